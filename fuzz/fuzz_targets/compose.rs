//! Patch composition (spec §3.15, `smpatch_patch_create::compose` doc
//! comment, through `smpatch::compose_json`): for a well-formed `mergeItem`
//! document `d` and two patches `p1`, `p2` (made by `create_two_way_json`
//! along `d -> d1 -> d2`, or directive-rich from smpatch-testkit, or one of
//! each), when both sequential applies succeed and compose answers `Ok`,
//! `apply(d, compose(p1, p2))` succeeds and equals `apply(apply(d, p1), p2)`
//! up to list order (every list of scalars and every list of objects sorted
//! by its JSON text, on both sides). Compose of two created patches may fail
//! there only with `unsupported`; generated patches may fail with any error
//! (compose has no document, so it checks directives apply skips where the
//! document lacks the field: documented as "the list and schema errors of
//! apply"). Byte 0 picks `fix_quirks` (the law holds both ways, see
//! crates/patch-create/tests/compose.rs) and how each patch is made. Always:
//! no panic, and `compose_bytes` agrees with `compose_json`.
//!
//! The law is checked only for generated patches whose directives are well
//! typed and whose keyed lists have unique merge keys: the open findings of
//! this target (A-K in docs/FUZZING.md, "Found") are skipped by
//! `malformed_keyed_list`, `ill_typed_directive`, `delete_of_replace_field`
//! and `order_beside_null`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value as J};
use smpatch::{ApplyOptions, CreateOptions};
use smpatch_testkit::{merge_item_doc, merge_item_patch, Unstructured};

/// `v` with object keys sorted and every list of scalars or of objects
/// sorted by the JSON text of its (canonical) elements, at every depth.
fn canonical(v: &J) -> J {
    match v {
        J::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&m[k]));
            }
            J::Object(out)
        }
        J::Array(l) => {
            let mut l: Vec<J> = l.iter().map(canonical).collect();
            let scalars = l.iter().all(|e| !e.is_object() && !e.is_array());
            let objects = l.iter().all(J::is_object);
            if scalars || objects {
                l.sort_by_cached_key(J::to_string);
            }
            J::Array(l)
        }
        v => v.clone(),
    }
}

/// True when `f` holds for some object in `v` (at any depth).
fn any_object(v: &J, f: &dyn Fn(&Map<String, J>) -> bool) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            J::Object(m) => {
                if f(m) {
                    return true;
                }
                stack.extend(m.values());
            }
            J::Array(l) => stack.extend(l),
            _ => {}
        }
    }
    false
}

const KEYED_LISTS: [&str; 2] = ["mergingList", "retainKeysMergingList"];

/// A keyed list with two elements of the same merge key (`name`) or an
/// element without a string one (other than `{"$patch": "replace"}`);
/// `{"name": null}` counts as keyless. Apply accepts
/// both where the document lacks the list (it inserts the elements as they
/// are) and merges duplicates into an existing list. Open findings A and C:
/// compose keeps both duplicates of `p2` where `p1` creates the list (the
/// law breaks), and it adds `p2`'s keyed elements to `p1`'s
/// `$setElementOrder` beside keyless ones (`order_mismatch`). Open finding
/// J: after `p1` resets the list with `null`, compose writes `p2`'s keyless
/// elements into a replace list, which apply rejects on a document that has
/// the list (`missing_merge_key`).
fn malformed_keyed_list(m: &Map<String, J>) -> bool {
    KEYED_LISTS.iter().any(|k| {
        let Some(J::Array(l)) = m.get(*k) else {
            return false;
        };
        let mut names = Vec::new();
        l.iter().any(|e| match e.get("name") {
            Some(n) if !n.is_string() || names.contains(&n) => true,
            Some(n) => {
                names.push(n);
                false
            }
            None => e.as_object().map_or(true, |o| {
                !(o.len() == 1 && o.get("$patch").is_some_and(|p| p == "replace"))
            }),
        })
    })
}

/// A directive the law is not checked for: a `$patch` other than
/// `"replace"`, `"merge"` or `"delete"`, a `$retainKeys` that is not a list
/// of strings, a `$setElementOrder` of a field that is no merge list or not
/// a list of integers / `{"name": string}` objects, a
/// `$deleteFromPrimitiveList` of a field that is no primitive merge list or
/// not a list of integers (`mergingIntList` holds integers), or another `$`
/// key. Apply accepts most of them where the document lacks the field, and
/// compose, which has no document, carries them into places where they act:
/// open findings D-I.
fn ill_typed_directive(m: &Map<String, J>) -> bool {
    let ints = |v: &J| v.as_array().is_some_and(|l| l.iter().all(J::is_i64));
    let names = |v: &J| {
        v.as_array().is_some_and(|l| {
            l.iter().all(|e| {
                e.as_object()
                    .is_some_and(|o| o.len() == 1 && o.get("name").is_some_and(J::is_string))
            })
        })
    };
    m.iter().any(|(k, v)| {
        if !k.starts_with('$') {
            false
        } else if k == "$patch" {
            !matches!(v.as_str(), Some("replace" | "merge" | "delete"))
        } else if k == "$retainKeys" {
            !v.as_array().is_some_and(|l| l.iter().all(J::is_string))
        } else if let Some(f) = k.strip_prefix("$setElementOrder/") {
            match f {
                "mergingIntList" => !ints(v),
                "mergingList" | "retainKeysMergingList" => !names(v),
                _ => true,
            }
        } else if let Some(f) = k.strip_prefix("$deleteFromPrimitiveList/") {
            f != "mergingIntList" || !ints(v)
        } else {
            true
        }
    })
}

/// `{"$patch": "delete"}` on `replacingItem` (patch strategy `replace`;
/// checked on `p2`). Open finding K (well-typed patches): apply deletes the
/// field for it, but after `p1` set the field compose writes
/// `{"$retainKeys": []}`, which leaves `{}`.
fn delete_of_replace_field(m: &Map<String, J>) -> bool {
    m.get("replacingItem")
        .and_then(|r| r.get("$patch"))
        .is_some_and(|p| p == "delete")
}

/// `$setElementOrder/<f>` beside `<f>: null` (checked on the composed
/// patch). Open finding B (well-typed patches too): when `p1` sets a list
/// and `p2` drops it with `$retainKeys` while keeping an order list for it,
/// compose writes the field as `null` beside the order list, which apply
/// rejects (`expected_list`).
fn order_beside_null(m: &Map<String, J>) -> bool {
    m.keys().any(|k| {
        k.strip_prefix("$setElementOrder/")
            .is_some_and(|f| m.get(f).is_some_and(J::is_null))
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(flags) = u.arbitrary::<u8>() else {
        return;
    };
    let Ok(d) = merge_item_doc(&mut u, 3) else {
        return;
    };
    let t = smpatch_fuzz::target();
    let fix = flags & 1 != 0;
    let copts = CreateOptions {
        fix_quirks: fix,
        ..CreateOptions::default()
    };
    let aopts = ApplyOptions {
        fix_quirks: fix,
        ..ApplyOptions::default()
    };
    // Bits 1-2: each patch created from two documents or generated.
    let created = |u: &mut Unstructured<'_>, a: &J| -> Option<(J, J)> {
        let b = merge_item_doc(u, 3).ok()?;
        let p = smpatch::create_two_way_json(a, &b, t.schema, &t.ty, &copts)
            .unwrap_or_else(|e| panic!("create2 failed: {e}\na {a}\nb {b}"));
        Some((b, p))
    };
    let (d1, p1) = if flags & 2 != 0 {
        let Some((d1, p1)) = created(&mut u, &d) else {
            return;
        };
        (d1, p1)
    } else {
        let Ok(p1) = merge_item_patch(&mut u, 3) else {
            return;
        };
        (d.clone(), p1)
    };
    let p2 = if flags & 4 != 0 {
        let Some((_, p2)) = created(&mut u, &d1) else {
            return;
        };
        p2
    } else {
        let Ok(p2) = merge_item_patch(&mut u, 3) else {
            return;
        };
        p2
    };

    let both_created = flags & 6 == 6;
    let composed = smpatch::compose_json(&p1, &p2, t.schema, &t.ty, &copts);
    let via_bytes = smpatch::compose_bytes(
        p1.to_string().as_bytes(),
        p2.to_string().as_bytes(),
        t.schema,
        &t.ty,
        &copts,
    );
    match (&composed, &via_bytes) {
        (Ok(a), Ok(b)) => {
            let b: J = serde_json::from_slice(b).expect("compose_bytes output is JSON");
            assert_eq!(
                a, &b,
                "compose json and bytes paths disagree\np1 {p1}\np2 {p2}"
            );
        }
        (Err(a), Err(b)) => assert_eq!(
            a.kind, b.kind,
            "compose json and bytes paths fail differently\np1 {p1}\np2 {p2}"
        ),
        _ => panic!(
            "compose json and bytes paths disagree: {composed:?} vs {:?}\np1 {p1}\np2 {p2}",
            via_bytes.map(|b| String::from_utf8_lossy(&b).into_owned())
        ),
    }

    let skip = |v: &J| any_object(v, &|m| malformed_keyed_list(m) || ill_typed_directive(m));
    if (flags & 2 == 0 && skip(&p1))
        || (flags & 4 == 0 && skip(&p2))
        || any_object(&p2, &delete_of_replace_field)
    {
        return;
    }
    let Ok(s1) = smpatch::apply_json(&d, &p1, t.schema, &t.ty, &aopts) else {
        return;
    };
    let Ok(s2) = smpatch::apply_json(&s1, &p2, t.schema, &t.ty, &aopts) else {
        return;
    };
    let c = match composed {
        Ok(c) => c,
        Err(e) if e.kind == "unsupported" => return,
        // Generated patches may fail (see the header); created ones must
        // compose.
        Err(_) if !both_created => return,
        Err(e) => panic!(
            "compose of two created patches failed (fix_quirks {fix}): {e}\n\
             d {d}\np1 {p1}\np2 {p2}"
        ),
    };
    let once = smpatch::apply_json(&d, &c, t.schema, &t.ty, &aopts);
    if once.is_err() && any_object(&c, &order_beside_null) {
        return;
    }
    let once = once.unwrap_or_else(|e| {
        panic!(
            "apply of the composed patch failed (fix_quirks {fix}): {e}\n\
             d {d}\np1 {p1}\np2 {p2}\ncomposed {c}\nsequential {s2}"
        )
    });
    let (once_c, seq_c) = (canonical(&once), canonical(&s2));
    assert!(
        once_c == seq_c,
        "apply(d, compose(p1, p2)) != apply(apply(d, p1), p2) (fix_quirks {fix})\n\
         d {d}\np1 {p1}\np2 {p2}\ncomposed {c}\nonce {once}\nsequential {s2}"
    );
});
