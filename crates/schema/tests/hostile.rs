//! Malformed and hostile schemas: each case states the outcome, and nothing
//! overflows the stack or goes quadratic.
#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use serde_json::json;
use smpatch_schema::{LoadOptions, Schema, Strategy};

/// Expected outcome: `Ok` or the error kind name, plus a text the pointer
/// (for errors) must end with.
struct Case {
    name: &'static str,
    doc: serde_json::Value,
    expect: Result<(), (&'static str, &'static str)>,
}

fn v2(defs: serde_json::Value) -> serde_json::Value {
    json!({"swagger": "2.0", "definitions": defs})
}

fn cases() -> Vec<Case> {
    let prop = |p: serde_json::Value| v2(json!({"T": {"properties": {"f": p}}}));
    let union_a = |u: serde_json::Value| {
        v2(
            json!({"T": {"properties": {"type": {"type": "string"}, "a": {"type": "string"}, "b": {"type": "string"}},
                        "x-kubernetes-unions": u}}),
        )
    };
    vec![
        Case {
            name: "dangling ref",
            doc: prop(json!({"$ref": "#/definitions/Nope"})),
            expect: Err(("dangling_ref", "/definitions/T/properties/f/$ref")),
        },
        Case {
            name: "ref into another file",
            doc: prop(json!({"$ref": "other.json#/definitions/T"})),
            expect: Err(("dangling_ref", "/properties/f/$ref")),
        },
        Case {
            name: "v3 dangling ref inside allOf",
            doc: json!({"openapi": "3.0", "components": {"schemas": {"T": {"properties": {"f": {"allOf": [{"$ref": "#/components/schemas/X"}]}}}}}}),
            expect: Err((
                "dangling_ref",
                "/components/schemas/T/properties/f/allOf/0/$ref",
            )),
        },
        Case {
            name: "recursive type through a property is fine",
            doc: v2(
                json!({"T": {"properties": {"self": {"$ref": "#/definitions/T"}, "l": {"type": "array", "items": {"$ref": "#/definitions/T"}}}}}),
            ),
            expect: Ok(()),
        },
        Case {
            name: "alias cycle with no schema",
            doc: v2(json!({"A": {"$ref": "#/definitions/B"}, "B": {"$ref": "#/definitions/A"}})),
            expect: Err(("dangling_ref", "")),
        },
        Case {
            name: "self alias",
            doc: v2(json!({"A": {"$ref": "#/definitions/A"}})),
            expect: Ok(()),
        },
        Case {
            name: "non-string strategy",
            doc: prop(json!({"type": "array", "x-kubernetes-patch-strategy": 1})),
            expect: Err((
                "invalid_extension",
                "/definitions/T/properties/f/x-kubernetes-patch-strategy",
            )),
        },
        Case {
            name: "non-string strategy on a v3 allOf wrapper",
            doc: json!({"openapi": "3.0", "components": {"schemas": {"X": {"type": "object"}, "T": {"properties": {"f": {"allOf": [{"$ref": "#/components/schemas/X"}], "x-kubernetes-patch-strategy": true}}}}}}),
            expect: Err((
                "invalid_extension",
                "/components/schemas/T/properties/f/x-kubernetes-patch-strategy",
            )),
        },
        Case {
            name: "unknown strategy (Q29)",
            doc: prop(json!({"type": "array", "x-kubernetes-patch-strategy": "mrege"})),
            expect: Err((
                "unknown_strategy",
                "/properties/f/x-kubernetes-patch-strategy",
            )),
        },
        Case {
            name: "two strategies",
            doc: prop(json!({"type": "array", "x-kubernetes-patch-strategy": "merge,replace"})),
            expect: Err(("unknown_strategy", "/x-kubernetes-patch-strategy")),
        },
        Case {
            name: "three strategies",
            doc: prop(
                json!({"type": "array", "x-kubernetes-patch-strategy": "merge,retainKeys,merge"}),
            ),
            expect: Err(("unknown_strategy", "/x-kubernetes-patch-strategy")),
        },
        Case {
            name: "non-string merge key",
            doc: prop(json!({"type": "array", "x-kubernetes-patch-merge-key": ["name"]})),
            expect: Err(("invalid_extension", "/x-kubernetes-patch-merge-key")),
        },
        Case {
            name: "unknown list type",
            doc: prop(json!({"type": "array", "x-kubernetes-list-type": "bag"})),
            expect: Err(("invalid_extension", "/x-kubernetes-list-type")),
        },
        Case {
            name: "non-string list map key",
            doc: prop(json!({"type": "array", "x-kubernetes-list-map-keys": ["a", 1]})),
            expect: Err(("invalid_extension", "/x-kubernetes-list-map-keys/1")),
        },
        Case {
            name: "unknown map type",
            doc: prop(json!({"type": "object", "x-kubernetes-map-type": "fine"})),
            expect: Err(("invalid_extension", "/x-kubernetes-map-type")),
        },
        // The same extensions on lists and maps that are not properties
        // (a map's values, a list's items, a definition) are refused too,
        // naming the schema's pointer (review of round 8: they used to load).
        Case {
            name: "unknown list type on a map's values",
            doc: prop(json!({"type": "object", "additionalProperties": {"type": "array",
                "x-kubernetes-list-type": "bogus", "items": {"type": "string"}}})),
            expect: Err((
                "invalid_extension",
                "#/definitions/T/properties/f/additionalProperties/x-kubernetes-list-type",
            )),
        },
        Case {
            name: "non-string list map key on a list's items",
            doc: prop(json!({"type": "array", "items": {"type": "array",
                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": [1]}})),
            expect: Err((
                "invalid_extension",
                "#/definitions/T/properties/f/items/x-kubernetes-list-map-keys/0",
            )),
        },
        Case {
            name: "unknown strategy on a list definition",
            doc: v2(json!({"T": {"properties": {"f": {"$ref": "#/definitions/L"}}},
                "L": {"type": "array", "x-kubernetes-patch-strategy": "mrege"}})),
            expect: Err((
                "unknown_strategy",
                "#/definitions/L/x-kubernetes-patch-strategy",
            )),
        },
        Case {
            name: "v3: unknown list type on a map's values",
            doc: json!({"openapi": "3.0", "components": {"schemas": {"T": {"properties": {"f": {
                "type": "object", "additionalProperties": {"type": "array",
                "x-kubernetes-list-type": "bag"}}}}}}}),
            expect: Err((
                "invalid_extension",
                "#/components/schemas/T/properties/f/additionalProperties/x-kubernetes-list-type",
            )),
        },
        Case {
            name: "CRD: unknown list type on a map's values",
            doc: json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "spec": {"group": "example.com", "names": {"kind": "W"}, "versions": [{"name": "v1",
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                "type": "object", "additionalProperties": {"type": "array",
                "x-kubernetes-list-type": "bogus", "items": {"type": "string"}}}}}}}]}}),
            expect: Err((
                "invalid_extension",
                "#/spec/versions/0/schema/openAPIV3Schema/properties/spec/additionalProperties/x-kubernetes-list-type",
            )),
        },
        Case {
            name: "unknown map type on a map's values",
            doc: prop(json!({"type": "object", "additionalProperties": {"type": "object",
                "x-kubernetes-map-type": "fine"}})),
            expect: Err((
                "invalid_extension",
                "#/definitions/T/properties/f/additionalProperties/x-kubernetes-map-type",
            )),
        },
        Case {
            name: "valid list metadata on a map's values loads",
            doc: prop(json!({"type": "object", "additionalProperties": {"type": "array",
                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name",
                "items": {"type": "object", "x-kubernetes-map-type": "atomic"}}})),
            expect: Ok(()),
        },
        Case {
            name: "non-bool preserve-unknown-fields",
            doc: prop(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": "yes"})),
            expect: Err(("invalid_extension", "/x-kubernetes-preserve-unknown-fields")),
        },
        Case {
            name: "bad gvk",
            doc: v2(
                json!({"T": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "", "version": 1, "kind": "T"}]}}),
            ),
            expect: Err(("invalid_extension", "/x-kubernetes-group-version-kind/0")),
        },
        Case {
            name: "union: non-string discriminator",
            doc: union_a(json!([{"discriminator": 1, "fields-to-discriminateBy": {"a": "A"}}])),
            expect: Err(("invalid_union", "/x-kubernetes-unions/0")),
        },
        Case {
            name: "union: same discriminated name twice",
            doc: union_a(
                json!([{"discriminator": "type", "fields-to-discriminateBy": {"a": "A", "b": "A"}}]),
            ),
            expect: Err(("invalid_union", "/x-kubernetes-unions/0")),
        },
        Case {
            name: "union: discriminator without members",
            doc: union_a(json!([{"discriminator": "type", "fields-to-discriminateBy": {}}])),
            expect: Err(("invalid_union", "/x-kubernetes-unions/0")),
        },
        Case {
            name: "union: field in two unions",
            doc: union_a(
                json!([{"fields-to-discriminateBy": {"a": "A"}}, {"fields-to-discriminateBy": {"a": "B"}}]),
            ),
            expect: Err(("invalid_union", "/x-kubernetes-unions/1")),
        },
        Case {
            name: "union: non-string member value",
            doc: union_a(json!([{"fields-to-discriminateBy": {"a": true}}])),
            expect: Err(("invalid_union", "/x-kubernetes-unions/0")),
        },
        Case {
            name: "union: not a list",
            doc: union_a(json!("type")),
            expect: Err(("invalid_union", "/x-kubernetes-unions")),
        },
        Case {
            name: "union format B: bad member",
            doc: prop(
                json!({"type": "string", "x-kubernetes-unions": {"fieldMembers": {"A": {"name": 1}}}}),
            ),
            expect: Err(("invalid_union", "/properties/f/x-kubernetes-unions")),
        },
        Case {
            name: "union format B: no fieldMembers",
            doc: prop(json!({"type": "string", "x-kubernetes-unions": {"members": {}}})),
            expect: Err(("invalid_union", "/properties/f/x-kubernetes-unions")),
        },
        Case {
            name: "union format B shares a field with format A",
            doc: v2(
                json!({"T": {"properties": {"type": {"type": "string", "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}}}}, "a": {}},
                                "x-kubernetes-unions": [{"fields-to-discriminateBy": {"a": "A"}}]}}),
            ),
            expect: Err(("invalid_union", "x-kubernetes-unions")),
        },
        Case {
            name: "not a schema document",
            doc: json!({"hello": "world"}),
            expect: Err(("not_a_schema", "")),
        },
        Case {
            name: "definitions not an object",
            doc: json!({"swagger": "2.0", "definitions": [1]}),
            expect: Err(("not_a_schema", "/definitions")),
        },
        Case {
            name: "CRD without group",
            doc: json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "spec": {"names": {"kind": "X"}, "versions": []}}),
            expect: Err(("invalid_crd", "/spec/group")),
        },
        Case {
            name: "CRD version without a schema",
            doc: json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                        "spec": {"group": "g.io", "names": {"kind": "X"}, "versions": [{"name": "v1"}]}}),
            expect: Err(("invalid_crd", "/spec/versions/0/schema")),
        },
        Case {
            name: "CRD with a $ref",
            doc: json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                        "spec": {"group": "g.io", "names": {"kind": "X"}, "versions": [{"name": "v1",
                          "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"$ref": "#/definitions/Y"}}}}}]}}),
            expect: Err((
                "dangling_ref",
                "/spec/versions/0/schema/openAPIV3Schema/properties/spec/$ref",
            )),
        },
        Case {
            name: "reference testdata quirk: additionalProperties is a string",
            doc: prop(json!({"additionalProperties": "object", "items": {"type": "string"}})),
            expect: Ok(()),
        },
    ]
}

#[test]
fn hostile_table() {
    let mut failures = Vec::new();
    for case in cases() {
        let got = Schema::from_json_value(&case.doc, "doc.json");
        // The same document as bytes gives the same outcome.
        let bytes = serde_json::to_vec(&case.doc).unwrap();
        let got_bytes = Schema::from_bytes(&bytes, "doc.json");
        for (how, got) in [("value", &got), ("bytes", &got_bytes)] {
            let ok = match (&case.expect, got) {
                (Ok(()), Ok(_)) => true,
                (Err((kind, ptr)), Err(e)) => {
                    e.kind_name() == *kind
                        && e.pointer.starts_with("doc.json")
                        && e.pointer.ends_with(ptr)
                }
                _ => false,
            };
            if !ok {
                failures.push(format!(
                    "{} ({how}): expected {:?}, got {:?}",
                    case.name,
                    case.expect,
                    got.as_ref().map(|_| ())
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn error_messages() {
    let doc = v2(
        json!({"T": {"properties": {"f": {"type": "array", "x-kubernetes-patch-strategy": 1}}}}),
    );
    let e = Schema::from_json_value(&doc, "s.json").unwrap_err();
    assert_eq!(e.message, "expected a string, but received a int");
    assert_eq!(
        e.to_string(),
        "invalid_extension: s.json#/definitions/T/properties/f/x-kubernetes-patch-strategy: expected a string, but received a int"
    );
    let doc = v2(
        json!({"T": {"properties": {"f": {"type": "array", "x-kubernetes-patch-strategy": "a,b"}}}}),
    );
    let e = Schema::from_json_value(&doc, "s.json").unwrap_err();
    assert_eq!(e.message, "unexpected patch strategy: [a b]");
    let e = Schema::from_bytes(b"{\"swagger\": ", "s.json").unwrap_err();
    assert_eq!(e.kind_name(), "parse");
    let e = Schema::load_path("/nonexistent/schema.json").unwrap_err();
    assert_eq!(e.kind_name(), "io");
}

/// `{"properties":{"a": ... }}` nested `depth` times, as JSON text.
fn deep_text(depth: usize) -> String {
    let mut s = String::with_capacity(depth * 20 + 64);
    s.push_str(r#"{"swagger":"2.0","definitions":{"T":"#);
    for _ in 0..depth {
        s.push_str(r#"{"properties":{"a":"#);
    }
    s.push_str(r##"{"type":"array","items":{"$ref":"#/definitions/T"}}"##);
    for _ in 0..depth {
        s.push_str("}}");
    }
    s.push_str("}}");
    s
}

#[test]
fn million_deep_nesting_compiles_without_recursion() {
    let depth = 1_000_000;
    let text = deep_text(depth);
    // The default limit refuses it; with the limit lifted, the (iterative)
    // parser and compiler take it.
    let e = Schema::from_bytes(text.as_bytes(), "deep.json").unwrap_err();
    assert_eq!(e.kind_name(), "too_deep");
    assert!(e.pointer.starts_with("deep.json:1:"), "{}", e.pointer);
    let unlimited = LoadOptions::default().with_max_depth(usize::MAX);
    let start = std::time::Instant::now();
    let s = Schema::from_bytes_with(text.as_bytes(), "deep.json", &unlimited).unwrap();
    let elapsed = start.elapsed();
    let mut c = s.cursor("T").unwrap();
    for _ in 0..depth {
        c = c.lookup_object("a").unwrap().cursor;
    }
    // The innermost node is a list of T again.
    assert_eq!(c.list_items().unwrap().type_name(), Some("T"));
    assert!(elapsed.as_secs() < 60, "{elapsed:?}");
}

#[test]
fn deep_serde_value_compiles() {
    // serde_json::Value drops recursively: build and drop it on a big stack.
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(|| {
            let depth = 100_000;
            let mut v = json!({"type": "string"});
            for _ in 0..depth {
                // Not `json!`: it would re-serialise `v` each time.
                let mut inner = serde_json::Map::new();
                inner.insert("a".into(), v);
                let mut outer = serde_json::Map::new();
                outer.insert("properties".into(), serde_json::Value::Object(inner));
                v = serde_json::Value::Object(outer);
            }
            let doc = v2(json!({"T": v}));
            let s = Schema::from_json_value(&doc, "deep").unwrap();
            assert!(s.node_count() > depth);
            drop(doc);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn hundred_thousand_definitions() {
    let n = 100_000;
    let mut text = String::from(r#"{"swagger":"2.0","definitions":{"#);
    for i in 0..n {
        if i > 0 {
            text.push(',');
        }
        // Each definition refers to the next one (and the last to the first).
        let next = (i + 1) % n;
        text.push_str(&format!(
            r##""D{i}":{{"properties":{{"next":{{"$ref":"#/definitions/D{next}"}},"l":{{"type":"array","items":{{"$ref":"#/definitions/D{i}"}},"x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"k"}}}}}}"##
        ));
    }
    text.push_str("}}");
    let start = std::time::Instant::now();
    let s = Schema::from_bytes(text.as_bytes(), "many.json").unwrap();
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
    assert_eq!(s.definition_names().count(), n);
    let mut c = s.cursor("D0").unwrap();
    for _ in 0..n {
        c = c.lookup_object("next").unwrap().cursor;
    }
    assert_eq!(c.type_name(), Some("D0"));
    let l = c.lookup_list("l").unwrap();
    assert_eq!(l.meta.strategy, Strategy::Merge);
    assert_eq!(l.cursor.type_name(), Some("D0"));
}

#[test]
fn load_options_bound_depth_size_and_aliases() {
    // Depth: the limit is exact (JSON depth 4 here: document, definitions,
    // T, properties).
    let doc = br#"{"definitions":{"T":{"properties":{"a":{"type":"string"}}}}}"#;
    let at = |max_depth| LoadOptions::default().with_max_depth(max_depth);
    assert!(Schema::from_bytes_with(doc, "d.json", &at(5)).is_ok());
    let e = Schema::from_bytes_with(doc, "d.json", &at(4)).unwrap_err();
    assert_eq!(e.kind_name(), "too_deep");
    // Size.
    let small = LoadOptions::default().with_max_input_bytes(10);
    let e = Schema::from_bytes_with(doc, "d.json", &small).unwrap_err();
    assert_eq!(e.kind_name(), "too_large");
    assert!(
        e.message.contains("too large") || e.message.contains("larger"),
        "{e}"
    );
    // YAML alias expansion (a CRD manifest is YAML).
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n";
    let tight = LoadOptions::default().with_max_yaml_alias_expansions(50);
    let e = Schema::from_bytes_with(bomb.as_bytes(), "bomb.yaml", &tight).unwrap_err();
    assert_eq!(e.kind_name(), "parse", "{e}");
    // The default path through files honours the options too.
    let dir = std::env::temp_dir().join(format!("smpatch-load-opts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("d.json");
    std::fs::write(&file, doc).unwrap();
    assert!(Schema::load_paths_with(&[&file], &at(5)).is_ok());
    let e = Schema::load_paths_with(&[&file], &at(4)).unwrap_err();
    assert_eq!(e.kind_name(), "too_deep");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 8: a schema file is read only up to `LoadOptions::max_input_bytes`
/// (plus one byte), so an endless input ends in `too_large` naming the
/// limit instead of exhausting memory.
#[test]
fn endless_schema_file_stops_at_the_limit() {
    let zero = std::path::Path::new("/dev/zero");
    if !zero.exists() {
        return;
    }
    let opts = LoadOptions::default().with_max_input_bytes(1 << 20);
    let e = Schema::load_paths_with(&[zero], &opts).unwrap_err();
    assert_eq!(e.kind_name(), "too_large", "{e}");
    assert!(e.message.contains("1048576 bytes"), "{e}");
    assert_eq!(e.pointer, "/dev/zero");
    // A file just within the limit loads; one byte more does not.
    let dir = std::env::temp_dir().join(format!("smpatch-cap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.json");
    let doc = br#"{"definitions":{"T":{"type":"object"}}}"#;
    std::fs::write(&file, doc).unwrap();
    let at = |max_input_bytes| LoadOptions::default().with_max_input_bytes(max_input_bytes);
    assert!(Schema::load_paths_with(&[&file], &at(doc.len())).is_ok());
    let e = Schema::load_paths_with(&[&file], &at(doc.len() - 1)).unwrap_err();
    assert_eq!(e.kind_name(), "too_large", "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
