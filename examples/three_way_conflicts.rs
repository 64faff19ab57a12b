//! The three-way patch of `kubectl apply`: last-applied configuration,
//! new manifest and live object in, patch out. Without overwrite, a change
//! made on the server that the patch would undo is a conflict.
//!
//! `cargo run -p smpatch-examples --example three_way_conflicts`

use serde_json::json;
use smpatch::{
    conflicts_json, create_three_way_json, CreateOptions, OnConflict, ThreeWayDocs, TypeRef,
};

fn main() -> Result<(), smpatch::Error> {
    let schema = smpatch::embedded_schema()?;
    let ty = TypeRef::Gvk("apps/v1/Deployment".into());
    let opts = CreateOptions::default();
    let last_applied = json!({"spec": {"replicas": 2, "paused": false}});
    let manifest = json!({"spec": {"replicas": 3, "paused": false}});
    // Someone scaled the live object to 5 since the last apply.
    let live = json!({"spec": {"replicas": 5, "paused": false}});

    let docs = ThreeWayDocs::new(&last_applied, &manifest, &live);
    // Overwrite: kubectl apply's behaviour, the manifest wins.
    let patch = create_three_way_json(docs, schema, &ty, OnConflict::Overwrite, &opts)?;
    println!("patch: {patch}");
    assert_eq!(patch, json!({"spec": {"replicas": 3}}));

    // Fail (`--overwrite=false`): the patch would undo the server's change.
    let err = create_three_way_json(docs, schema, &ty, OnConflict::Fail, &opts)
        .expect_err("replicas changed on both sides");
    println!("conflict: {err}");
    assert!(err.to_string().contains("replicas"), "{err}");

    // The same question for two patches: do they set a path differently?
    let ours = json!({"spec": {"replicas": 3}});
    let theirs = json!({"spec": {"replicas": 5}});
    assert!(conflicts_json(&ours, &theirs, schema, &ty, &opts)?);
    let unrelated = json!({"spec": {"paused": true}});
    assert!(!conflicts_json(&ours, &unrelated, schema, &ty, &opts)?);
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
