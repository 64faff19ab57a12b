//! Typed k8s-openapi resources in and out (smpatch feature `k8s-openapi`):
//! merge a patch into a `Deployment` and get a `Deployment` back, and build
//! the `kubectl apply` patch of two typed manifests. The schema type comes
//! from the Rust type (`apps/v1/Deployment`).
//!
//! `cargo run -p smpatch-examples --features k8s-openapi --example k8s_typed`

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec};
use serde_json::json;
use smpatch::k8s::{apply_typed, create_three_way_typed, type_ref};
use smpatch::{ApplyOptions, CreateOptions, OnConflict, ThreeWayDocs, TypeRef};

fn deployment(replicas: i32, containers: &[(&str, &str)]) -> Deployment {
    Deployment {
        spec: DeploymentSpec {
            replicas: Some(replicas),
            template: PodTemplateSpec {
                spec: Some(PodSpec {
                    containers: containers
                        .iter()
                        .map(|(name, image)| Container {
                            name: (*name).into(),
                            image: Some((*image).into()),
                            ..Container::default()
                        })
                        .collect(),
                    ..PodSpec::default()
                }),
                ..PodTemplateSpec::default()
            },
            ..DeploymentSpec::default()
        },
        ..Deployment::default()
    }
}

fn images(d: &Deployment) -> Vec<(String, Option<String>)> {
    d.spec
        .template
        .spec
        .iter()
        .flat_map(|p| p.containers.iter())
        .map(|c| (c.name.clone(), c.image.clone()))
        .collect()
}

fn main() -> Result<(), smpatch::Error> {
    let schema = smpatch::embedded_schema()?;
    assert_eq!(
        type_ref::<Deployment>(),
        TypeRef::Gvk("apps/v1/Deployment".into())
    );

    let live = deployment(2, &[("web", "nginx:1.25"), ("sidecar", "envoy:1")]);
    let patch = json!({"spec": {"template": {"spec": {"containers": [
        {"name": "web", "image": "nginx:1.27"}]}}}});
    let merged: Deployment = apply_typed(&live, &patch, schema, &ApplyOptions::default())?;
    println!("{:?}", images(&merged));
    assert_eq!(
        images(&merged),
        [
            ("web".to_owned(), Some("nginx:1.27".to_owned())),
            ("sidecar".to_owned(), Some("envoy:1".to_owned()))
        ]
    );

    // kubectl apply: the last-applied manifest, the new one, the live object.
    // Send the patch with kube-rs as `Patch::Strategic(patch)`.
    let last_applied = deployment(2, &[("web", "nginx:1.25")]);
    let manifest = deployment(3, &[("web", "nginx:1.27")]);
    let live = deployment(2, &[("web", "nginx:1.25"), ("injected", "proxy:1")]);
    let patch = create_three_way_typed(
        ThreeWayDocs::new(&last_applied, &manifest, &live),
        schema,
        OnConflict::Overwrite,
        &CreateOptions::default(),
    )?;
    println!("{patch}");
    assert_eq!(
        patch,
        json!({"spec": {"replicas": 3, "template": {"spec": {
            "$setElementOrder/containers": [{"name": "web"}],
            "containers": [{"name": "web", "image": "nginx:1.27"}]}}}})
    );
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
