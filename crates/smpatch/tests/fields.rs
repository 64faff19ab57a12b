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
