//! `kubectl apply`, offline: the manifest you apply, the live object with
//! its `kubectl.kubernetes.io/last-applied-configuration` annotation, and
//! the three-way patch between them (original = the annotation, modified =
//! the manifest, current = the live object). Fields you dropped from the
//! manifest since the last apply are deleted; fields the server or another
//! client set are kept. The CLI's `smpatch apply -f MANIFEST --live LIVE`
//! runs the same flow.
//!
//! `cargo run -p smpatch-examples --example kubectl_apply`

use serde_json::json;
use smpatch::apply_flow::{client_apply_json, ApplyAction, ClientApplyOptions};
use smpatch::TypeRef;

fn main() -> Result<(), smpatch::Error> {
    let schema = smpatch::embedded_schema()?;
    let ty = TypeRef::Detect;

    // The first apply: there is no live object yet.
    let v1 = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web", "tier": "front"}},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [
            {"name": "web", "image": "nginx:1.25"}]}}}});
    let created = client_apply_json(&v1, None, schema, &ty, &ClientApplyOptions::default())?;
    assert_eq!(created.action, ApplyAction::Created);
    println!("{} {}", created.resource, created.action.as_str());

    // The live object as the server keeps it: it carries the annotation,
    // and an autoscaler has since changed the replicas and a controller
    // added an annotation of its own.
    let mut live = created.merged.clone();
    live["spec"]["replicas"] = json!(5);
    live["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = json!("1");

    // The second apply drops the `tier` label and bumps the image.
    let v2 = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [
            {"name": "web", "image": "nginx:1.27"}]}}}});
    let out = client_apply_json(
        &v2,
        Some(&live),
        schema,
        &ty,
        &ClientApplyOptions::default(),
    )?;
    println!(
        "{} {}\npatch: {}",
        out.resource,
        out.action.as_str(),
        serde_json::to_string(&out.patch).unwrap_or_default()
    );
    assert_eq!(out.resource, "deployment.apps/web");
    assert_eq!(out.action, ApplyAction::Configured);
    // The label dropped from the manifest is deleted (it was in the
    // last-applied configuration) ...
    assert_eq!(out.patch["metadata"]["labels"]["tier"], json!(null));
    assert_eq!(out.merged["metadata"]["labels"], json!({"app": "web"}));
    // ... the controller's annotation stays (it never was in a manifest) ...
    let annotations = &out.merged["metadata"]["annotations"];
    assert_eq!(annotations["deployment.kubernetes.io/revision"], "1");
    // ... and the annotation now records the new manifest.
    assert_eq!(
        annotations[smpatch::apply_flow::LAST_APPLIED_ANNOTATION],
        json!(out.last_applied)
    );
    let containers = &out.merged["spec"]["template"]["spec"]["containers"];
    assert_eq!(containers[0]["image"], "nginx:1.27");
    // The manifest says 2 replicas where the live object has 5: with
    // kubectl's default `--overwrite=true` the manifest wins.
    assert_eq!(out.merged["spec"]["replicas"], 2);

    // `--overwrite=false`: a field changed on the server since the last
    // apply that the manifest changes too is a conflict, naming the paths.
    // As with kubectl, the last-applied annotation is among them whenever
    // the manifest changed: the live object gained it after the last
    // apply, and the manifest brings a new one.
    let no_overwrite = ClientApplyOptions::default().overwrite(false);
    let err = client_apply_json(&v2, Some(&live), schema, &ty, &no_overwrite)
        .expect_err("replicas changed on both sides");
    println!("{err}");
    assert_eq!(err.name(), "conflict");
    assert!(err.to_string().contains("/spec/replicas"), "{err}");

    // Applying the merged result's manifest again changes nothing.
    let again = client_apply_json(
        &v2,
        Some(&out.merged),
        schema,
        &ty,
        &ClientApplyOptions::default(),
    )?;
    assert_eq!(again.action, ApplyAction::Unchanged);
    assert_eq!(again.patch, json!({}));

    // A manifest without apiVersion/kind cannot be typed: pass a
    // `TypeRef::Gvk`/`TypeRef::Definition`, or a schema that has the kind.
    let untyped = json!({"metadata": {"name": "web"}});
    let err = client_apply_json(&untyped, None, schema, &ty, &ClientApplyOptions::default())
        .expect_err("no apiVersion/kind");
    assert_eq!(err.name(), "unknown_type");
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
