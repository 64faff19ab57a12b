//! The serde_json boundary keeps members in the map's iteration order, with
//! or without serde_json's `preserve_order` feature (this crate does not turn
//! it on; `cargo test -p smpatch-value` runs without it, the workspace test
//! run with it, through the facade's dev-dependencies).

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use smpatch_value::{from_serde, parse_json, to_json_string, to_serde, Arena, ParseOptions};

#[test]
fn from_serde_follows_the_map_iteration_order() {
    let doc: serde_json::Value =
        serde_json::from_str(r#"{"zeta":1,"alpha":{"y":2,"b":3},"mid":[{"k":"v","a":null}]}"#)
            .unwrap();
    let arena = Arena::new();
    let v = from_serde(&arena, &doc, 64).unwrap();
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    let arena_keys: Vec<&str> = v.as_object().unwrap().iter().map(|(k, _)| k).collect();
    assert_eq!(arena_keys, keys(&doc));
    let inner: Vec<&str> = v
        .get("alpha")
        .unwrap()
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(inner, keys(&doc["alpha"]));
    // Both directions agree, and the round trip is exact in either build.
    let back = to_serde(&v).unwrap();
    assert_eq!(back, doc);
    assert_eq!(back.to_string(), doc.to_string());
    if serde_json_preserves_order() {
        assert_eq!(keys(&doc), ["zeta", "alpha", "mid"]);
    } else {
        assert_eq!(keys(&doc), ["alpha", "mid", "zeta"]);
    }
}

#[test]
fn bytes_keep_document_order_in_every_build() {
    let text = br#"{"zeta":1,"alpha":{"y":2,"b":3}}"#;
    let arena = Arena::new();
    let v = parse_json(&arena, text, &ParseOptions::default()).unwrap();
    assert_eq!(to_json_string(&v).as_bytes(), text);
}

/// Whether this build's `serde_json::Map` keeps insertion order.
fn serde_json_preserves_order() -> bool {
    let mut m = serde_json::Map::new();
    m.insert("b".into(), serde_json::Value::Null);
    m.insert("a".into(), serde_json::Value::Null);
    m.keys().next().map(String::as_str) == Some("b")
}

/// A tree deeper than the limit is refused at the first container (in
/// document order) that passes it, named by its pointer (keys escaped).
#[test]
fn too_deep_names_the_path_of_the_first_container_past_the_limit() {
    let arena = smpatch_value::Arena::new();
    let v = serde_json::json!({"a": 1, "b/~": [0, {"c": {"d": {}}}], "z": {"y": {}}});
    let e = smpatch_value::from_serde(&arena, &v, 3).unwrap_err();
    assert_eq!(e.path, "/b~1~0/1/c");
    assert_eq!(e.message, "document nests deeper than the limit of 3");
    let e = smpatch_value::from_serde(&arena, &v, 1).unwrap_err();
    assert_eq!(e.path, "/b~1~0");
    let e = smpatch_value::from_serde(&arena, &v, 0).unwrap_err();
    assert_eq!(e.path, "");
    let e = smpatch_value::from_serde(&arena, &v, 4).unwrap_err();
    assert_eq!(e.path, "/b~1~0/1/c/d");
    assert!(smpatch_value::from_serde(&arena, &v, 5).is_ok());
}
