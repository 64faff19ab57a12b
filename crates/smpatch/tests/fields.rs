//! The field-set front doors of the facade read JSON and YAML bytes (as
//! their docs say) through the shared pipeline.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use smpatch::fieldsets::{ExtractOptions, FieldsOptions};
use smpatch::{extract_bytes, fields_bytes, TypeRef};

const LIVE_YAML: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  managedFields:
  - manager: me
    operation: Apply
    apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1: {\"f:data\": {\"f:a\": {}}}
data: {a: \"1\", b: \"2\"}
";

#[test]
fn extract_bytes_reads_yaml() {
    let schema = smpatch::embedded_schema().unwrap();
    let out = extract_bytes(
        LIVE_YAML.as_bytes(),
        schema,
        &TypeRef::Detect,
        "me",
        &ExtractOptions::default(),
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}"#
    );
    let e = extract_bytes(
        LIVE_YAML.as_bytes(),
        schema,
        &TypeRef::Detect,
        "you",
        &ExtractOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.name(), "no_apply_entry");
}

#[test]
fn fields_bytes_reads_json_and_yaml_alike() {
    let schema = smpatch::embedded_schema().unwrap();
    let opts = FieldsOptions::default();
    let yaml = fields_bytes(
        b"data: {k: v}\n",
        schema,
        &TypeRef::Gvk("v1/ConfigMap".into()),
        &opts,
    );
    let json = fields_bytes(
        br#"{"data":{"k":"v"}}"#,
        schema,
        &TypeRef::Gvk("v1/ConfigMap".into()),
        &opts,
    );
    assert_eq!(yaml.unwrap(), json.unwrap());
    assert_eq!(
        fields_bytes(b"", schema, &TypeRef::Schemaless, &opts)
            .unwrap_err()
            .name(),
        "invalid_document"
    );
}

/// `fields_json` builds its answer straight from the set (not through the
/// FieldsV1 text): it must be the canonical bytes of
/// `fields_bytes`, member order included, and fail alike.
#[test]
fn fields_json_agrees_with_fields_bytes() {
    let schema = smpatch::embedded_schema().unwrap();
    let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "labels": {"b": "1", "a": "2"}, "finalizers": ["z", "y"]},
        "spec": {"containers": [
            {"name": "web", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"},
                {"containerPort": 53, "protocol": "UDP"}], "env": [{"name": "X", "value": "\"q\""}]},
            {"name": "a\u{e9}", "image": "x", "resources": {}}]}});
    for opts in [FieldsOptions::default(), FieldsOptions::update_on_create()] {
        let bytes =
            fields_bytes(pod.to_string().as_bytes(), schema, &TypeRef::Detect, &opts).unwrap();
        let json = smpatch::fields_json(&pod, schema, &TypeRef::Detect, &opts).unwrap();
        assert_eq!(serde_json::to_string(&json).unwrap().into_bytes(), bytes);
    }
    let bad = serde_json::json!({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": 1}});
    let e1 = smpatch::fields_json(&bad, schema, &TypeRef::Detect, &FieldsOptions::default())
        .unwrap_err();
    let e2 = fields_bytes(
        bad.to_string().as_bytes(),
        schema,
        &TypeRef::Detect,
        &FieldsOptions::default(),
    )
    .unwrap_err();
    assert_eq!((e1.name(), e1.path()), (e2.name(), e2.path()));
}
