//! Server-side apply field sets (KEP-2155): the set of fields an applied
//! configuration claims, in the `metadata.managedFields[*].fieldsV1`
//! encoding the API server stores, and "extract": the part of a live
//! object that one field manager owns, as an apply configuration ready to
//! change and send back with `kubectl apply --server-side`. The CLI:
//! `smpatch fields`, `smpatch extract`, `smpatch owners`; details in
//! docs/FIELDSETS.md.
//!
//! `cargo run -p smpatch-examples --example field_sets`

use serde_json::json;
use smpatch::fieldsets::{ExtractOptions, FieldsOptions};
use smpatch::{extract_json, fields_json, owners_json, TypeRef};

fn main() -> Result<(), smpatch::Error> {
    let schema = smpatch::embedded_schema()?;
    let ty = TypeRef::Detect;

    // What the server records for a manager that applies this configuration:
    // containers are keyed by their name (`k:{"name":"web"}`).
    let config = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [
            {"name": "web", "image": "nginx:1.27"}]}}}});
    let set = fields_json(&config, schema, &ty, &FieldsOptions::default())?;
    println!("{set}");
    let web = &set["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"web\"}"];
    assert_eq!(web["f:image"], json!({}));
    assert_eq!(set["f:spec"]["f:replicas"], json!({}));

    // A live object two managers wrote to: `deployer` applied the image,
    // an autoscaler updated the replicas.
    let live = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "managedFields": [
            {"manager": "deployer", "operation": "Apply", "apiVersion": "apps/v1",
             "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:template": {"f:spec": {
                 "f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:name": {}, "f:image": {}}}}}}}},
            {"manager": "autoscaler", "operation": "Update", "apiVersion": "apps/v1",
             "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]},
        "spec": {"replicas": 7, "template": {"spec": {"containers": [
            {"name": "web", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent"}]}}}});

    // The apply configuration `deployer` owns: its image, not the replicas
    // nor the server-defaulted pull policy.
    let mine = extract_json(&live, schema, &ty, "deployer", &ExtractOptions::default())?;
    println!(
        "{}",
        serde_json::to_string_pretty(&mine).unwrap_or_default()
    );
    assert_eq!(
        mine,
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"template": {"spec": {"containers": [
                {"name": "web", "image": "nginx:1.27"}]}}}})
    );

    // The autoscaler has no Apply entry (it used Update): extract says so
    // instead of answering an empty configuration.
    let err = extract_json(&live, schema, &ty, "autoscaler", &ExtractOptions::default())
        .expect_err("the autoscaler has no Apply entry");
    println!("{err}");
    assert_eq!(err.name(), "no_apply_entry");

    // Who owns what, to explain a server-side apply conflict.
    let owners = owners_json(&live)?;
    println!("{owners}");
    assert!(owners.to_string().contains("autoscaler"));
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
