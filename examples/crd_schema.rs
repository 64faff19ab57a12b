//! Patch a custom resource with the merge rules its CustomResourceDefinition
//! declares (`x-kubernetes-list-type: map` and `x-kubernetes-list-map-keys`
//! in its structural schema; the CLI's `--schema` takes the same CRD YAML).
//!
//! A cluster never does this merge: the API server and kubectl use no
//! strategic merge patch for custom resources (`kubectl apply` sends a JSON
//! merge patch; kubernetes/kubernetes#58414). It is for tools that want the
//! keyed merge offline; docs/DIVERGENCES.md, "Custom resources".
//!
//! `cargo run -p smpatch-examples --example crd_schema`

use serde_json::json;
use smpatch::{apply_json, ApplyOptions, Schema, TypeRef};

const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  properties:
                    name: {type: string}
                    port: {type: integer}
              tags:
                type: array
                items: {type: string}
"#;

fn main() -> Result<(), smpatch::Error> {
    // `smpatch::load_schema(path)` reads the same from a file or directory.
    // A schema error converts into `smpatch::Error` (kind `ErrorKind::Schema`).
    let schema = Schema::from_bytes(CRD.as_bytes(), "widget-crd.yaml")?;
    let live = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "spec": {"ports": [{"name": "http", "port": 80}, {"name": "metrics", "port": 9090}],
                 "tags": ["a", "b"]}});
    let patch = json!({"spec": {"ports": [{"name": "http", "port": 8080}], "tags": ["c"]}});
    let merged = apply_json(
        &live,
        &patch,
        &schema,
        &TypeRef::Detect,
        &ApplyOptions::default(),
    )?;
    println!("{merged}");
    // `ports` is a map-type list: elements merge by `name`. `tags` declares
    // no list type, so it is atomic: the patch replaces it.
    assert_eq!(
        merged["spec"],
        json!({"ports": [{"name": "http", "port": 8080}, {"name": "metrics", "port": 9090}],
               "tags": ["c"]})
    );
    // Without a schema every list is atomic.
    let plain = apply_json(
        &live,
        &patch,
        &schema,
        &TypeRef::Schemaless,
        &ApplyOptions::default(),
    )?;
    assert_eq!(
        plain["spec"]["ports"],
        json!([{"name": "http", "port": 8080}])
    );
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
