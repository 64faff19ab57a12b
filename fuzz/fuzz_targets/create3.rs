//! Three-way patches of well-formed documents: with overwrite the patch
//! exists and applies to current; without, it is the same patch or a
//! `conflict`; when current == original, applying gives modified
//! (`fix_quirks`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use smpatch::{ApplyOptions, CreateOptions, OnConflict, ThreeWayDocs};
use smpatch_testkit::{merge_item_doc, Unstructured};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(flags) = u.arbitrary::<u8>() else {
        return;
    };
    let (Ok(o), Ok(m)) = (merge_item_doc(&mut u, 3), merge_item_doc(&mut u, 3)) else {
        return;
    };
    let unchanged = flags & 1 != 0;
    let c = if unchanged {
        o.clone()
    } else {
        match merge_item_doc(&mut u, 3) {
            Ok(c) => c,
            Err(_) => return,
        }
    };
    let t = smpatch_fuzz::target();
    let fix = unchanged || flags & 2 != 0;
    let copts = CreateOptions::default().with_fix_quirks(fix);
    let aopts = ApplyOptions::default().with_fix_quirks(fix);
    let p = smpatch::create_three_way_json(
        ThreeWayDocs::new(&o, &m, &c),
        t.schema,
        &t.ty,
        OnConflict::Overwrite,
        &copts,
    )
    .unwrap_or_else(|e| panic!("create3 failed: {e}\no {o}\nm {m}\nc {c}"));
    let r = smpatch::apply_json(&c, &p, t.schema, &t.ty, &aopts).unwrap_or_else(|e| {
        panic!("apply of a three-way patch failed: {e}\no {o}\nm {m}\nc {c}\npatch {p}")
    });
    if unchanged {
        assert_eq!(
            r, m,
            "current == original but apply(c, create3) != m\no {o}\nm {m}\npatch {p}"
        );
    }
    match smpatch::create_three_way_json(
        ThreeWayDocs::new(&o, &m, &c),
        t.schema,
        &t.ty,
        OnConflict::Fail,
        &copts,
    ) {
        Ok(p2) => assert_eq!(p2, p, "overwrite changed a conflict-free patch"),
        // Without fix_quirks the conflict check keeps quirk Q18 (directive
        // keys on both sides are looked up as fields; two empty lists fail).
        Err(e) if !fix && matches!(e.name(), "schema_lookup" | "no_elements") => {}
        Err(e) => {
            assert_eq!(
                e.name(), "conflict",
                "unexpected error without overwrite: {e}"
            );
            assert!(!unchanged, "conflict although current == original: {e}");
        }
    }
    let _ = smpatch::conflicts_json(&p, &m, t.schema, &t.ty, &copts);
});
