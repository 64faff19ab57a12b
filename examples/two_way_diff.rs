//! Compute the two-way strategic merge patch between two versions of an
//! object (what `kubectl diff`-style tools and controllers send), then check
//! that applying it to the old version gives the new one.
//!
//! `cargo run -p smpatch-examples --example two_way_diff`

use serde_json::json;
use smpatch::{apply_json, create_two_way_json, ApplyOptions, CreateOptions, TypeRef};

fn main() -> Result<(), smpatch::Error> {
    let schema = smpatch::embedded_schema()?;
    let old = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [
            {"name": "app", "image": "app:1", "env": [{"name": "MODE", "value": "prod"}, {"name": "DEBUG", "value": "0"}]}]}});
    let new = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [
            {"name": "app", "image": "app:2", "env": [{"name": "MODE", "value": "prod"}]}]}});
    let patch = create_two_way_json(
        &old,
        &new,
        schema,
        &TypeRef::Detect,
        &CreateOptions::default(),
    )?;
    println!("{patch}");
    // The patch names the container and the env entry by their merge keys:
    // it changes the image and deletes DEBUG with a `$patch: delete` element.
    assert_eq!(
        patch,
        json!({"spec": {"containers": [{
            "name": "app", "image": "app:2",
            "env": [{"$patch": "delete", "name": "DEBUG"}],
            "$setElementOrder/env": [{"name": "MODE"}]}],
            "$setElementOrder/containers": [{"name": "app"}]}})
    );
    let round_trip = apply_json(
        &old,
        &patch,
        schema,
        &TypeRef::Detect,
        &ApplyOptions::default(),
    )?;
    assert_eq!(round_trip, new);
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
