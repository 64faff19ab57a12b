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

/// Custom resources (testdata/fieldsets 22 and 24: a CRD whose `metadata` is
/// a bare object, or undeclared with `apiVersion` and `kind`): the serde_json
/// and bytes front doors and the batch protocol give the worked examples'
/// sets and configurations (fieldsets-audit-2, round 8).
#[test]
fn custom_resource_field_sets_agree_across_front_doors() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/fieldsets");
    for name in [
        "22-crd-metadata-is-object-meta.json",
        "24-crd-undeclared-identity-and-key-defaults.json",
    ] {
        let case: serde_json::Value =
            serde_json::from_slice(&std::fs::read(root.join(name)).unwrap()).unwrap();
        let crd = std::env::temp_dir().join(format!("smpatch-{}-{name}", std::process::id()));
        std::fs::write(&crd, case["schema"].to_string()).unwrap();
        let schema = smpatch::schema_set(&[&crd]).unwrap();
        let ty = TypeRef::Gvk(case["type"].as_str().unwrap().into());
        let want: serde_json::Value =
            serde_json::from_str(case["apply_set"].as_str().unwrap()).unwrap();
        let opts = FieldsOptions::default();
        assert_eq!(
            smpatch::fields_json(&case["object"], &schema, &ty, &opts).unwrap(),
            want,
            "{name}"
        );
        let bytes =
            fields_bytes(case["object"].to_string().as_bytes(), &schema, &ty, &opts).unwrap();
        assert_eq!(
            bytes,
            case["apply_set"].as_str().unwrap().as_bytes(),
            "{name}"
        );
        let mut state = smpatch::batch::BatchState::new();
        let file = crd.to_str().unwrap();
        let line = serde_json::json!({"id": 1, "op": "fields", "schema": {"file": file},
            "object": case["object"]});
        let answer: serde_json::Value =
            serde_json::from_str(&smpatch::batch::handle_line(&mut state, &line.to_string()))
                .unwrap();
        assert_eq!(answer["ok"], want, "{name}: {answer}");
        for x in case["extract"].as_array().unwrap() {
            if x.get("options").is_some() {
                continue;
            }
            let manager = x["manager"].as_str().unwrap();
            let sub = x["subresource"].as_str().unwrap_or("");
            let opts = ExtractOptions {
                subresource: sub.into(),
                ..ExtractOptions::default()
            };
            let got = smpatch::extract_json(&x["object"], &schema, &ty, manager, &opts).unwrap();
            assert_eq!(got, x["expected"], "{name} {manager}");
            let raw = extract_bytes(
                x["object"].to_string().as_bytes(),
                &schema,
                &ty,
                manager,
                &opts,
            )
            .unwrap();
            let parsed: serde_json::Value = serde_json::from_slice(&raw).unwrap();
            assert_eq!(parsed, x["expected"], "{name} {manager}");
            let line = serde_json::json!({"id": 2, "op": "extract", "schema": {"file": file},
                "manager": manager, "subresource": sub, "object": x["object"]});
            let answer: serde_json::Value =
                serde_json::from_str(&smpatch::batch::handle_line(&mut state, &line.to_string()))
                    .unwrap();
            assert_eq!(answer["ok"], x["expected"], "{name} {manager}: {answer}");
        }
        std::fs::remove_file(&crd).unwrap();
    }
}
