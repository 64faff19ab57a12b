//! JSON: what parses serializes (compact, pretty, Go, YAML) and re-parses to
//! an equal value; compact output is a fixed point, and the same bytes as the
//! general (streaming) writer's, which never copies objects' source text.
#![no_main]
use libfuzzer_sys::fuzz_target;
use smpatch_value::{
    parse_json, parse_yaml, to_go_json, to_json_pretty, to_json_string, to_yaml_string, Arena,
    write_json_to, ParseOptions,
};

fuzz_target!(|data: &[u8]| {
    let arena = Arena::new();
    let opts = ParseOptions::default();
    let Ok(v) = parse_json(&arena, data, &opts) else {
        return;
    };
    let compact = to_json_string(&v);
    let mut general = Vec::new();
    write_json_to(&mut general, &v).expect("writing to a Vec");
    assert_eq!(
        compact.as_bytes(),
        &general[..],
        "the compact writer differs from the general writer"
    );
    let v2 = parse_json(&arena, compact.as_bytes(), &opts)
        .unwrap_or_else(|e| panic!("compact output does not re-parse: {e}: {compact}"));
    assert!(
        v.deep_eq(&v2),
        "compact round trip changed the value: {compact}"
    );
    assert_eq!(
        to_json_string(&v2),
        compact,
        "compact output is not a fixed point"
    );

    let pretty = to_json_pretty(&v);
    let v3 = parse_json(&arena, pretty.as_bytes(), &opts)
        .unwrap_or_else(|e| panic!("pretty output does not re-parse: {e}: {pretty}"));
    assert!(
        v.deep_eq(&v3),
        "pretty round trip changed the value: {pretty}"
    );

    // Go's writer normalizes numbers (1.0 -> 1, and the float -0.0 -> `-0`,
    // which reads back as the integer 0 -> `0`), so a fixed point holds from
    // the second round on.
    let go = to_go_json(&v);
    let v4 = parse_json(&arena, arena.alloc_str(&go).as_bytes(), &opts)
        .unwrap_or_else(|e| panic!("Go output does not re-parse: {e}: {go}"));
    let go2 = to_go_json(&v4);
    let v5 = parse_json(&arena, go2.as_bytes(), &opts)
        .unwrap_or_else(|e| panic!("Go output does not re-parse: {e}: {go2}"));
    assert_eq!(to_go_json(&v5), go2, "Go output is not a fixed point");

    // A top-level null is written as `null`, which reads back as no
    // document (kubectl skips null documents).
    if v.is_null() {
        return;
    }
    let yaml = to_yaml_string(&v);
    let docs = parse_yaml(&arena, arena.alloc_str(&yaml), &opts)
        .unwrap_or_else(|e| panic!("YAML output does not re-parse: {e}:\n{yaml}\nfrom {compact}"));
    assert_eq!(docs.len(), 1, "YAML output is not one document:\n{yaml}");
    assert!(
        smpatch_fuzz::eq_yaml(&v, &docs[0]),
        "YAML round trip changed the value:\n{yaml}\nfrom {compact}\nto   {}",
        to_json_string(&docs[0])
    );
});
