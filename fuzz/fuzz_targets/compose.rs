//! Patch composition (docs/DIVERGENCES.md "Public `compose`", the
//! `smpatch_patch_create::compose` doc comment, through
//! `smpatch::compose_json`): for a well-formed `mergeItem`
//! document `d` and two patches `p1`, `p2` (made by `create_two_way_json`
//! along `d -> d1 -> d2`, or directive-rich from smpatch-testkit, or one of
//! each), when both sequential applies succeed and compose answers `Ok`,
//! `apply(d, compose(p1, p2))` succeeds and equals `apply(apply(d, p1), p2)`
//! up to list order (every list of scalars and every list of objects sorted
//! by its JSON text, on both sides). Compose of two created patches may fail
//! there only with `unsupported`; generated patches may fail with any error
//! (compose has no document, so it refuses malformed patches, which apply
//! accepts where the document lacks the field). Byte 0 picks `fix_quirks` (the law holds both ways, see
//! crates/patch-create/tests/compose.rs) and how each patch is made. Always:
//! no panic, and `compose_bytes` agrees with `compose_json`.
//!
//! Malformed generated patches (duplicate merge keys, keyless elements,
//! ill-typed directives: findings A, C-J in docs/FUZZING.md) are refused by
//! compose with an error, which is allowed here; findings B and K are fixed.
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
    let copts = CreateOptions::default().with_fix_quirks(fix);
    let aopts = ApplyOptions::default().with_fix_quirks(fix);
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
            a.name(), b.name(),
            "compose json and bytes paths fail differently\np1 {p1}\np2 {p2}"
        ),
        _ => panic!(
            "compose json and bytes paths disagree: {composed:?} vs {:?}\np1 {p1}\np2 {p2}",
            via_bytes.map(|b| String::from_utf8_lossy(&b).into_owned())
        ),
    }

    let Ok(s1) = smpatch::apply_json(&d, &p1, t.schema, &t.ty, &aopts) else {
        return;
    };
    let Ok(s2) = smpatch::apply_json(&s1, &p2, t.schema, &t.ty, &aopts) else {
        return;
    };
    let c = match composed {
        Ok(c) => c,
        Err(e) if e.name() == "unsupported" => return,
        // Generated patches may fail (see the header); created ones must
        // compose.
        Err(_) if !both_created => return,
        Err(e) => panic!(
            "compose of two created patches failed (fix_quirks {fix}): {e}\n\
             d {d}\np1 {p1}\np2 {p2}"
        ),
    };
    let once = smpatch::apply_json(&d, &c, t.schema, &t.ty, &aopts).unwrap_or_else(|e| {
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
