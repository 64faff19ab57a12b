//! Apply on raw bytes: byte 0 selects options, the rest splits at the first
//! 0xFF into original and patch. Every result is a JSON object.
#![no_main]
use libfuzzer_sys::fuzz_target;
use smpatch::ApplyOptions;
use smpatch_value::{parse_json, Arena, ParseOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let t = smpatch_fuzz::target();
    let (original, patch) = smpatch_fuzz::split2(rest);
    let opts = ApplyOptions::default()
        .with_fix_quirks(flags & 1 != 0)
        .with_compound_keys(flags & 2 != 0)
        .with_reject_duplicate_keys(flags & 4 != 0);
    if let Ok(out) = smpatch::apply_bytes(original, patch, t.schema, &t.ty, &opts) {
        let arena = Arena::new();
        let v = parse_json(
            &arena,
            &out,
            &ParseOptions::default().with_max_depth(usize::MAX),
        )
        .unwrap_or_else(|e| panic!("apply output is not JSON: {e}"));
        assert!(v.is_object(), "apply output is not an object");
    }
});
