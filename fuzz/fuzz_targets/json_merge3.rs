//! kubectl's three-way JSON merge patch (`json_merge::three_way`, Go's
//! `CreateThreeWayJSONMergePatch`; kubernetes/kubernetes#58414) of
//! original, modified and current, applied to current as the API server
//! merges it (`merge_like_go`). Laws that hold for the Go implementation:
//! - no panic; the same inputs give the same patch; the inputs are
//!   untouched; the batch/library op (`Op::MergeCreate3`) gives the same
//!   patch;
//! - every value modified sets (a scalar or a list, below objects only)
//!   is in the result, as modified has it or as the Go library stores a
//!   sent value (`null` members of objects inside lists pruned); an object
//!   modified sets is an object in the result (unless it holds `null`s
//!   alone, which is no change: Go's `keepOrDeleteNullInObj` drops it);
//! - a member modified sets to `null` (unless original has `null` there
//!   too: no change, no deletion), and one original has and modified (an
//!   object there) lacks, is gone from the result;
//! - every member of the patch is a member of modified or original;
//! - applying the patch again changes nothing;
//! - the patch equals a model written from the Go code (evanphx/json-patch
//!   v4 `CreateMergePatch`/`getDiff` and `MergePatch` with `pruneNulls`,
//!   apimachinery's `keepOrDeleteNullInObj`) on serde_json values (numbers
//!   compared as ours are: integers and floats distinct).
//! Keys come from a small alphabet so that the three documents overlap.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value as J};
use smpatch::ops::{self, Op, Outcome};
use smpatch::{CreateOptions, TypeRef};
use smpatch_patch_create::json_merge::{merge_like_go, three_way};
use smpatch_testkit::Unstructured;
use smpatch_value::{from_serde, to_json_string, to_serde, Arena, Value};

const KEYS: &[&str] = &["a", "b", "c", "", "d/e", "~0"];

type R<T> = arbitrary::Result<T>;

fn scalar(u: &mut Unstructured<'_>) -> R<J> {
    Ok(match u.int_in_range(0..=6)? {
        0 => J::Null,
        1 => J::Bool(u.arbitrary()?),
        2 => J::from(u.int_in_range(-2i64..=2)?),
        3 => serde_json::Number::from_f64(f64::from(u.int_in_range(-2i8..=2)?) / 2.0)
            .map_or(J::Null, J::Number),
        4 => J::from(u.arbitrary::<i64>()?),
        5 => J::String(String::new()),
        _ => J::String(KEYS[u.choose_index(KEYS.len())?].to_owned()),
    })
}

fn value(u: &mut Unstructured<'_>, depth: u32) -> R<J> {
    Ok(match u.int_in_range(0..=4)? {
        0 | 1 if depth > 0 => J::Object(object(u, depth - 1)?),
        2 if depth > 0 => {
            let n = u.int_in_range(0..=3)?;
            let mut l = Vec::with_capacity(n);
            for _ in 0..n {
                l.push(value(u, depth - 1)?);
            }
            J::Array(l)
        }
        _ => scalar(u)?,
    })
}

fn object(u: &mut Unstructured<'_>, depth: u32) -> R<Map<String, J>> {
    let mut m = Map::new();
    for _ in 0..u.int_in_range(0..=4)? {
        let k = KEYS[u.choose_index(KEYS.len())?];
        m.insert(k.to_owned(), value(u, depth)?);
    }
    Ok(m)
}

/// `base` with some members changed, removed or added (current and
/// modified as edits of original make the interesting overlaps).
fn edit(u: &mut Unstructured<'_>, base: &Map<String, J>, depth: u32) -> R<Map<String, J>> {
    let mut m = Map::new();
    for (k, v) in base {
        match u.int_in_range(0..=5)? {
            0 => {}
            1 => {
                m.insert(k.clone(), value(u, depth)?);
            }
            2 => {
                m.insert(k.clone(), J::Null);
            }
            3 if depth > 0 => match v {
                J::Object(o) => {
                    m.insert(k.clone(), J::Object(edit(u, o, depth - 1)?));
                }
                _ => {
                    m.insert(k.clone(), v.clone());
                }
            },
            _ => {
                m.insert(k.clone(), v.clone());
            }
        }
    }
    if u.ratio(1, 3)? {
        let k = KEYS[u.choose_index(KEYS.len())?];
        m.insert(k.to_owned(), value(u, depth)?);
    }
    Ok(m)
}

fn show(v: &Value<'_>) -> String {
    to_json_string(v)
}

/// Member `key` of `v` when `v` is an object.
fn member<'a>(v: Value<'a>, key: &str) -> Option<Value<'a>> {
    v.as_object().and_then(|o| o.get(key))
}

/// The values modified sets and the members it deletes, checked in the
/// result (`r`) at the same place; `o` is original at that place.
fn check_modified<'a>(
    arena: &'a Arena,
    m: Value<'a>,
    o: Option<Value<'a>>,
    r: Option<Value<'a>>,
    path: &str,
    ctx: &str,
) {
    let Some(mo) = m.as_object() else {
        return;
    };
    // An object of nulls alone is no change (Go's keepOrDeleteNullInObj
    // drops the submap it filters empty): current's value may stay.
    if all_null(m) && !r.is_some_and(|r| r.is_object()) {
        return;
    }
    let Some(r) = r.filter(|r| r.is_object()) else {
        panic!(
            "{path}: modified has an object, the result {:?}{ctx}",
            r.map(|r| show(&r))
        );
    };
    for (k, mv) in mo.iter() {
        let at = format!("{path}/{k}");
        let rv = member(r, k);
        match mv {
            // `null` in original too: no change between them, no deletion.
            Value::Null if o.and_then(|o| member(o, k)).is_some_and(|v| v.is_null()) => {}
            Value::Null => assert!(
                rv.is_none(),
                "{at}: modified sets null, the result keeps {:?}{ctx}",
                rv.map(|v| show(&v))
            ),
            Value::Object(_) => {
                check_modified(arena, mv, o.and_then(|o| member(o, k)), rv, &at, ctx);
            }
            _ => {
                // As modified has it (current had it already: not sent),
                // or as the Go library stores a value sent where no object
                // was (`null` members of objects in lists pruned).
                let want = merge_like_go(arena, Value::Null, mv);
                let got = rv.unwrap_or_else(|| {
                    panic!(
                        "{at}: modified sets {}, the result lacks it{ctx}",
                        show(&mv)
                    )
                });
                assert!(
                    got.deep_eq(&mv) || got.deep_eq(&want),
                    "{at}: modified sets {}, the result holds {}{ctx}",
                    show(&want),
                    show(&got)
                );
            }
        }
    }
    // Deleted between original and modified: gone.
    if let Some(oo) = o.and_then(|o| o.as_object()) {
        for (k, _) in oo.iter() {
            if mo.get(k).is_none() {
                assert!(
                    member(r, k).is_none(),
                    "{path}/{k}: original has it, modified does not, the result keeps it{ctx}"
                );
            }
        }
    }
}

/// A non-empty object whose members are all `null` or such objects.
fn all_null(v: Value<'_>) -> bool {
    v.as_object()
        .is_some_and(|o| !o.is_empty() && o.iter().all(|(_, v)| v.is_null() || all_null(v)))
}

/// Every member of the patch `p` is one of modified (`m`) or original (`o`).
fn check_members(p: Value<'_>, m: Option<Value<'_>>, o: Option<Value<'_>>, path: &str, ctx: &str) {
    let Some(po) = p.as_object() else {
        return;
    };
    for (k, pv) in po.iter() {
        let (mv, ov) = (m.and_then(|m| member(m, k)), o.and_then(|o| member(o, k)));
        assert!(
            mv.is_some() || ov.is_some(),
            "{path}/{k}: in the patch, in neither modified nor original{ctx}"
        );
        check_members(pv, mv, ov, &format!("{path}/{k}"), ctx);
    }
}

/// Go's `getDiff`: the merge patch from `a` to `b`.
fn model_diff(a: &Map<String, J>, b: &Map<String, J>) -> Map<String, J> {
    let mut into = Map::new();
    for (k, bv) in b {
        match (a.get(k), bv) {
            (None, _) => {
                into.insert(k.clone(), bv.clone());
            }
            (Some(J::Object(x)), J::Object(y)) => {
                let d = model_diff(x, y);
                if !d.is_empty() {
                    into.insert(k.clone(), J::Object(d));
                }
            }
            (Some(av), _) if av == bv => {}
            _ => {
                into.insert(k.clone(), bv.clone());
            }
        }
    }
    for k in a.keys() {
        if !b.contains_key(k) {
            into.insert(k.clone(), J::Null);
        }
    }
    into
}

/// apimachinery's `keepOrDeleteNullInObj`.
fn model_keep(m: &Map<String, J>, keep_null: bool) -> Map<String, J> {
    let mut out = Map::new();
    for (k, v) in m {
        match v {
            J::Null if keep_null => {
                out.insert(k.clone(), J::Null);
            }
            J::Null => {}
            J::Object(o) if o.is_empty() => {
                if !keep_null {
                    out.insert(k.clone(), v.clone());
                }
            }
            J::Object(o) => {
                let sub = model_keep(o, keep_null);
                if !sub.is_empty() {
                    out.insert(k.clone(), J::Object(sub));
                }
            }
            _ if !keep_null => {
                out.insert(k.clone(), v.clone());
            }
            _ => {}
        }
    }
    out
}

/// evanphx/json-patch v4 `pruneNulls`.
fn model_prune(v: &mut J) {
    match v {
        J::Object(o) => {
            o.retain(|_, v| !v.is_null());
            o.values_mut().for_each(model_prune);
        }
        J::Array(l) => l.iter_mut().filter(|v| !v.is_null()).for_each(model_prune),
        _ => {}
    }
}

/// evanphx/json-patch v4 `mergeDocs` (`MergePatch` of two objects).
fn model_merge_docs(doc: &mut Map<String, J>, patch: &Map<String, J>) {
    for (k, v) in patch {
        if v.is_null() {
            doc.remove(k);
            continue;
        }
        let merged = match doc.remove(k) {
            None | Some(J::Null) => {
                let mut p = v.clone();
                model_prune(&mut p);
                p
            }
            Some(cur) => model_merge(cur, v),
        };
        doc.insert(k.clone(), merged);
    }
}

/// evanphx/json-patch v4 `merge`: a target that is no object takes the
/// patch without its nulls, a patch that is no object is stored as sent.
fn model_merge(cur: J, patch: &J) -> J {
    match (cur, patch) {
        (J::Object(mut c), J::Object(p)) => {
            model_merge_docs(&mut c, p);
            J::Object(c)
        }
        (J::Object(_), _) => patch.clone(),
        (_, _) => {
            let mut p = patch.clone();
            model_prune(&mut p);
            p
        }
    }
}

/// Go's `CreateThreeWayJSONMergePatch` without preconditions.
fn model_three_way(o: &Map<String, J>, m: &Map<String, J>, c: &Map<String, J>) -> J {
    let changes = model_keep(&model_diff(c, m), false);
    let mut deletions = model_keep(&model_diff(o, m), true);
    model_merge_docs(&mut deletions, &changes);
    J::Object(deletions)
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(flags) = u.arbitrary::<u8>() else {
        return;
    };
    let Ok(o) = object(&mut u, 3) else {
        return;
    };
    let m = if flags & 1 != 0 {
        edit(&mut u, &o, 3)
    } else {
        object(&mut u, 3)
    };
    let Ok(m) = m else {
        return;
    };
    let c = match flags >> 1 & 3 {
        0 => Ok(o.clone()),
        1 => Ok(m.clone()),
        2 => edit(&mut u, &o, 3),
        _ => object(&mut u, 3),
    };
    let Ok(c) = c else {
        return;
    };
    let arena = Arena::new();
    let model = model_three_way(&o, &m, &c);
    let read =
        |j: Map<String, J>| from_serde(&arena, &J::Object(j), 64).expect("shallow documents");
    let (ov, mv, cv) = (read(o), read(m), read(c));
    let before = [show(&ov), show(&mv), show(&cv)];
    let patch = three_way(&arena, ov, mv, cv, &[]).expect("no preconditions, no error");
    let again = three_way(&arena, ov, mv, cv, &[]).expect("no preconditions, no error");
    assert_eq!(show(&patch), show(&again), "not deterministic");
    assert_eq!(before, [show(&ov), show(&mv), show(&cv)], "inputs changed");
    let via_op = ops::run(
        &arena,
        &Op::MergeCreate3(CreateOptions::default()),
        &[ov, mv, cv],
        &[],
        &TypeRef::Detect,
    )
    .expect("the merge op needs no schema");
    let Outcome::Document(via_op) = via_op else {
        panic!("the merge op answers a document");
    };
    assert_eq!(show(&via_op), show(&patch), "Op::MergeCreate3 differs");
    let result = merge_like_go(&arena, cv, patch);
    let ctx = format!(
        "\no {}\nm {}\nc {}\npatch {}\nresult {}",
        before[0],
        before[1],
        before[2],
        show(&patch),
        show(&result)
    );
    let ours = to_serde(&patch).expect("serde_json holds every value here");
    assert!(ours == model, "the Go model's patch is {model}{ctx}");
    check_modified(&arena, mv, Some(ov), Some(result), "", &ctx);
    check_members(patch, Some(mv), Some(ov), "", &ctx);
    let twice = merge_like_go(&arena, result, patch);
    assert!(
        twice.deep_eq(&result),
        "applying the patch again changed the result to {}{ctx}",
        show(&twice)
    );
});
