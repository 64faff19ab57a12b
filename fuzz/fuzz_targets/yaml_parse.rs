//! YAML: any text either fails with an error or gives documents that survive
//! JSON and YAML serialization.
#![no_main]
use libfuzzer_sys::fuzz_target;
use smpatch_value::{parse_json, parse_yaml, to_json_string, to_yaml_string, Arena, ParseOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let arena = Arena::new();
    let opts = ParseOptions::default();
    let Ok(docs) = parse_yaml(&arena, text, &opts) else {
        return;
    };
    for v in docs.into_iter().filter(|v| !v.is_null()) {
        let json = to_json_string(&v);
        let back = parse_json(&arena, json.as_bytes(), &opts)
            .unwrap_or_else(|e| panic!("JSON of a YAML document does not parse: {e}: {json}"));
        assert!(v.deep_eq(&back), "JSON round trip changed {json}");
        let yaml = to_yaml_string(&v);
        let again = parse_yaml(&arena, arena.alloc_str(&yaml), &opts)
            .unwrap_or_else(|e| panic!("written YAML does not parse: {e}:\n{yaml}\nfrom {json}"));
        assert_eq!(again.len(), 1, "written YAML is not one document:\n{yaml}");
        assert!(
            smpatch_fuzz::eq_yaml(&v, &again[0]),
            "YAML round trip changed the value:\n{yaml}\nfrom {json}\nto   {}",
            to_json_string(&again[0])
        );
    }
});
