//! Bad input: every error names where it happened; nothing panics or
//! overflows the stack; the inputs are not changed.

use serde_json::json;
use smpatch_fieldsets::{
    extract, fields_of, managed_fields, owners, prune, ErrorKind, ExtractOptions, FieldSet,
    FieldsOptions,
};
use smpatch_schema::Cursor;
use smpatch_value::{from_serde, parse_json, to_json_string, Arena, ParseOptions, Value};

fn fields_err(ty: &str, doc: serde_json::Value) -> (ErrorKind, String, String) {
    let arena = Arena::new();
    let v = from_serde(&arena, &doc, 256).expect("doc");
    let c = smpatch_schema::embedded().cursor(ty).expect("type");
    let e = fields_of(&v, c, &FieldsOptions::default()).expect_err("must fail");
    (e.kind(), e.path().to_owned(), e.message().to_owned())
}

#[test]
fn object_errors_carry_a_json_pointer() {
    let (k, p, m) = fields_err("v1/ConfigMap", json!({"data": {"a": "1"}, "spec": {}}));
    assert_eq!((k, p.as_str()), (ErrorKind::SchemaMismatch, "/spec"));
    assert!(m.contains("field not declared in schema"), "{m}");

    let (k, p, m) = fields_err("v1/ConfigMap", json!({"metadata": {"labels": ["a"]}}));
    assert_eq!(
        (k, p.as_str()),
        (ErrorKind::SchemaMismatch, "/metadata/labels")
    );
    assert_eq!(m, "expected a map, got list");

    let (k, p, _) = fields_err("v1/ConfigMap", json!({"metadata": {"name": {"x": 1}}}));
    assert_eq!(
        (k, p.as_str()),
        (ErrorKind::SchemaMismatch, "/metadata/name")
    );

    let (k, p, m) = fields_err(
        "v1/Pod",
        json!({"spec": {"containers": [{"name": "a"}, "b"]}}),
    );
    assert_eq!(
        (k, p.as_str()),
        (ErrorKind::InvalidListItem, "/spec/containers/1")
    );
    assert!(m.contains("non-map elements"), "{m}");

    let (k, p, _) = fields_err("v1/Pod", json!({"spec": {"containers": [null]}}));
    assert_eq!(
        (k, p.as_str()),
        (ErrorKind::InvalidListItem, "/spec/containers/0")
    );

    let (k, p, m) = fields_err("v1/Pod", json!({"spec": {"containers": [{"image": "x"}]}}));
    assert_eq!(
        (k, p.as_str()),
        (ErrorKind::InvalidListItem, "/spec/containers/0")
    );
    assert!(m.contains(r#"omits all key fields ["name"]"#), "{m}");

    let (k, p, m) = fields_err(
        "v1/ConfigMap",
        json!({"metadata": {"finalizers": ["a", {"b": 1}]}}),
    );
    assert_eq!(
        (k, p.as_str()),
        (ErrorKind::InvalidListItem, "/metadata/finalizers/1")
    );
    assert!(m.contains("map type"), "{m}");

    let (k, p, m) = fields_err(
        "v1/ConfigMap",
        json!({"metadata": {"finalizers": ["a", "b", "a"]}}),
    );
    assert_eq!(
        (k, p.as_str()),
        (ErrorKind::DuplicateListItem, "/metadata/finalizers/2")
    );
    assert!(m.contains(r#"v:"a""#), "{m}");

    let (k, p, _) = fields_err("v1/ConfigMap", json!({"metadata": {"na/me~": 1}}));
    assert_eq!(
        (k, p.as_str()),
        (ErrorKind::SchemaMismatch, "/metadata/na~1me~0")
    );
}

#[test]
fn depth_is_limited_and_configurable() {
    let arena = Arena::new();
    let depth = 5_000;
    let text = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
    let opts = ParseOptions::default().with_max_depth(depth + 10);
    let v = parse_json(&arena, text.as_bytes(), &opts).expect("parses");
    let e = fields_of(&v, Cursor::UNKNOWN, &FieldsOptions::default()).expect_err("too deep");
    assert_eq!(e.kind(), ErrorKind::TooDeep);
    assert!(e.path().starts_with("/a/a/a"));
    let small = FieldsOptions {
        max_depth: 3,
        ..FieldsOptions::default()
    };
    let v3 = from_serde(&arena, &json!({"a": {"b": {"c": {"d": 1}}}}), 16).expect("doc");
    assert_eq!(
        fields_of(&v3, Cursor::UNKNOWN, &small)
            .expect_err("limit")
            .kind(),
        ErrorKind::TooDeep
    );
    let four = FieldsOptions {
        max_depth: 4,
        ..FieldsOptions::default()
    };
    assert!(fields_of(&v3, Cursor::UNKNOWN, &four).is_ok());
    let set = FieldSet::from_json(br#"{"f:a":{"f:a":{"f:a":{}}}}"#).expect("set");
    let deep_opts = ExtractOptions::default();
    let e = prune(&arena, &v, Cursor::UNKNOWN, &set, &deep_opts).expect("prunes the top");
    assert!(e.is_some());
}

fn live(managed: serde_json::Value) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c", "managedFields": managed}, "data": {"a": "1"}})
}

fn extract_err(doc: serde_json::Value, manager: &str) -> (ErrorKind, String, String) {
    let arena = Arena::new();
    let v = from_serde(&arena, &doc, 256).expect("doc");
    let before = to_json_string(&v);
    let c = smpatch_schema::embedded()
        .cursor("v1/ConfigMap")
        .expect("type");
    let e = extract(&arena, &v, c, manager, &ExtractOptions::default()).expect_err("must fail");
    assert_eq!(to_json_string(&v), before, "input unchanged");
    (e.kind(), e.path().to_owned(), e.message().to_owned())
}

#[test]
fn malformed_managed_fields_name_the_entry_index() {
    let (k, p, _) = extract_err(live(json!({"a": 1})), "m");
    assert_eq!(
        (k, p.as_str()),
        (ErrorKind::MalformedManagedFields, "/metadata/managedFields")
    );

    let (k, p, m) = extract_err(live(json!([{"manager": "x"}, 3])), "m");
    assert_eq!(
        (k, p.as_str()),
        (
            ErrorKind::MalformedManagedFields,
            "/metadata/managedFields/1"
        )
    );
    assert!(m.contains("entry 1"), "{m}");

    let (k, p, _) = extract_err(live(json!([{"manager": 7}])), "m");
    assert_eq!(
        (k, p.as_str()),
        (
            ErrorKind::MalformedManagedFields,
            "/metadata/managedFields/0/manager"
        )
    );

    let (k, p, m) = extract_err(live(json!([{"manager": "m", "operation": "Apply"}])), "m");
    assert_eq!(
        (k, p.as_str()),
        (
            ErrorKind::MalformedManagedFields,
            "/metadata/managedFields/0/fieldsV1"
        )
    );
    assert!(m.contains("no fieldsV1") && m.contains("\"m\""), "{m}");

    let (k, _, m) = extract_err(
        live(
            json!([{"manager": "x", "operation": "Update"}, {"manager": "m", "operation": "Apply", "fieldsV1": {"f:data": 1}}]),
        ),
        "m",
    );
    assert_eq!(k, ErrorKind::MalformedManagedFields);
    assert!(m.contains("entry 1") && m.contains("f:data"), "{m}");

    let (k, p, m) = extract_err(
        live(json!([{"manager": "m", "operation": "Update", "fieldsV1": {}}])),
        "m",
    );
    assert_eq!(
        (k, p.as_str()),
        (ErrorKind::NoApplyEntry, "/metadata/managedFields")
    );
    assert!(m.contains("Update entry 0"), "{m}");

    let bad_meta = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": 3});
    assert_eq!(extract_err(bad_meta, "m").0, ErrorKind::InvalidObject);
}

#[test]
fn owners_and_entries_tolerate_absent_parts() {
    let arena = Arena::new();
    let v = from_serde(
        &arena,
        &json!({"metadata": {"managedFields": [{"manager": "a"}]}}),
        16,
    )
    .expect("doc");
    assert!(owners(&v).expect("no fieldsV1 owns nothing").is_empty());
    assert_eq!(
        managed_fields(&Value::empty_object()).expect("none").len(),
        0
    );
    assert_eq!(
        managed_fields(&Value::Bool(true))
            .expect_err("not an object")
            .kind(),
        ErrorKind::InvalidObject
    );
}
