//! The two-way round-trip law with `fix_quirks`: for well-formed `a`, `b`
//! of the conformance `mergeItem` schema, `apply(a, create2(a, b)) == b`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use smpatch::{ApplyOptions, CreateOptions};
use smpatch_testkit::{merge_item_doc, Unstructured};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(a), Ok(b)) = (merge_item_doc(&mut u, 3), merge_item_doc(&mut u, 3)) else {
        return;
    };
    let t = smpatch_fuzz::target();
    let copts = CreateOptions::default().with_fix_quirks(true);
    let aopts = ApplyOptions::default().with_fix_quirks(true);
    let p = smpatch::create_two_way_json(&a, &b, t.schema, &t.ty, &copts)
        .unwrap_or_else(|e| panic!("create2 failed: {e}\na {a}\nb {b}"));
    let r = smpatch::apply_json(&a, &p, t.schema, &t.ty, &aopts)
        .unwrap_or_else(|e| panic!("apply failed: {e}\na {a}\nb {b}\npatch {p}"));
    assert_eq!(
        r, b,
        "apply(a, create2(a, b)) != b\na {a}\nb {b}\npatch {p}\nresult {r}"
    );
});
