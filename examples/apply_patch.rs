//! Apply a strategic merge patch to a live object, as the API server does
//! for `kubectl patch` (the format: the Kubernetes contributor guide,
//! sig-api-machinery/strategic-merge-patch.md).
//!
//! `cargo run -p smpatch-examples --example apply_patch`

use serde_json::json;
use smpatch::{apply_bytes, apply_json, ApplyOptions, TypeRef};

fn main() -> Result<(), smpatch::Error> {
    let schema = smpatch::embedded_schema()?;
    let live = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [
            {"name": "web", "image": "nginx:1.25"},
            {"name": "sidecar", "image": "envoy:1"}]}}}});
    // Containers merge by their `name` (the schema's patch merge key): the
    // patch changes one image and keeps the other container.
    let patch = json!({"spec": {"template": {"spec": {"containers": [
        {"name": "web", "image": "nginx:1.27"}]}}}});
    let merged = apply_json(
        &live,
        &patch,
        schema,
        &TypeRef::Detect,
        &ApplyOptions::default(),
    )?;
    println!(
        "{}",
        serde_json::to_string_pretty(&merged).unwrap_or_default()
    );
    let containers = &merged["spec"]["template"]["spec"]["containers"];
    assert_eq!(containers[0]["image"], "nginx:1.27");
    assert_eq!(containers[1]["name"], "sidecar");

    // The bytes API keeps every number exactly as written (serde_json
    // cannot hold this one) and the members in document order.
    let out = apply_bytes(
        br#"{"kind":"ConfigMap","apiVersion":"v1","data":{"a":"1"}}"#,
        br#"{"metadata":{"annotations":{"big":"x"}},"data":{"n":"1","size":123456789012345678901234567890}}"#,
        schema,
        &TypeRef::Detect,
        &ApplyOptions::default(),
    )?;
    let text = String::from_utf8_lossy(&out);
    println!("{text}");
    assert_eq!(
        text,
        r#"{"kind":"ConfigMap","apiVersion":"v1","data":{"a":"1","n":"1","size":123456789012345678901234567890},"metadata":{"annotations":{"big":"x"}}}"#
    );
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
