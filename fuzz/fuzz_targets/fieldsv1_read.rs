//! FieldsV1 reader: any bytes either fail with an error or read as a set
//! whose canonical writing reads back to the same set and is a fixed point.
#![no_main]
use libfuzzer_sys::fuzz_target;
use smpatch_fieldsets::FieldSet;

fuzz_target!(|data: &[u8]| {
    let Ok(set) = FieldSet::from_json(data) else {
        return;
    };
    let text = set.to_json();
    let back = FieldSet::from_json(text.as_bytes())
        .unwrap_or_else(|e| panic!("canonical output does not re-read: {e}: {text}"));
    assert!(back == set, "canonical round trip changed the set: {text}");
    assert_eq!(back.to_json(), text, "canonical output is not a fixed point");
    // The algebra stays within the set and keeps its invariants.
    let leaves = set.leaves();
    assert!(leaves.is_subset(&set), "leaves not within the set: {text}");
    assert!(set.difference(&leaves).union(&leaves) == set, "difference/union: {text}");
    assert_eq!(set.paths().len(), set.len());
});
