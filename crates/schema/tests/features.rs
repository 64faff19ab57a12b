//! Loader features on small inline documents: CRDs (YAML and JSON), unions,
//! enums, maps, unknown fields, merging and directories.
#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use serde_json::json;
use smpatch_schema::{Gvk, LookupError, NodeKind, Schema, Strategy};

const CRD_YAML: &str = r#"
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
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            properties:
              mode:
                type: string
                enum: [Git, Http, ""]
                x-kubernetes-unions:
                  fieldMembers:
                    Git: {name: git}
                    Http: {name: http, optional: true}
                    "": null
              git: {type: object, properties: {url: {type: string}}}
              http: {type: object, properties: {url: {type: string}}}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  properties:
                    port: {type: integer}
                    protocol: {type: string}
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
              open:
                type: object
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  known: {type: object, properties: {a: {type: string}}}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
              size:
                x-kubernetes-int-or-string: true
              anything: {}
              labels:
                type: object
                additionalProperties: true
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  version: v1beta1
  names: {kind: Gadget}
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec: {type: object, properties: {count: {type: integer}}}
"#;

#[test]
fn crd_yaml() {
    let s = Schema::from_bytes(CRD_YAML.as_bytes(), "crds.yaml").unwrap();
    let w = s.cursor("example.com/v1/Widget").unwrap();
    assert_eq!(w.type_name(), Some("com.example.v1.Widget"));
    assert!(s
        .cursor_for_gvk(&Gvk::from_api_version("example.com/v2", "Widget"))
        .is_some());
    assert!(s.cursor("example.com/v1beta1/Gadget").is_some());
    // metadata of a CRD is schema-less, not a map.
    let md = w.lookup_object("metadata").unwrap().cursor;
    assert!(md.lookup_object("labels").unwrap().cursor.is_unknown());
    let spec = w.lookup_object("spec").unwrap().cursor;
    // Format B union with enum on the discriminator.
    let u = &spec.unions()[0];
    assert_eq!(u.discriminator.as_deref(), Some("mode"));
    assert_eq!(u.members.len(), 2);
    assert!(u.members.iter().any(|m| &*m.field == "http" && m.optional));
    assert_eq!(u.empty_values, vec![Box::<str>::from("")]);
    assert!(!u.deduce_discriminator);
    let mode = spec.lookup_object("mode").unwrap().cursor;
    assert_eq!(mode.enum_values().unwrap().len(), 3);
    // list-type map with two keys.
    let ports = spec.lookup_list("ports").unwrap();
    assert_eq!(
        &*ports.meta.list_map_keys,
        &["port".into(), "protocol".into()]
    );
    assert_eq!(ports.meta.strategy, Strategy::None);
    // preserve-unknown-fields without properties: unknown.
    let extra = spec.lookup_object("extra").unwrap().cursor;
    assert!(extra.is_unknown());
    assert!(extra
        .lookup_object("x")
        .unwrap()
        .cursor
        .lookup_list("y")
        .is_ok());
    // ... with properties: a struct whose unknown fields look up as unknown.
    let open = spec.lookup_object("open").unwrap().cursor;
    assert!(matches!(open.kind(), Some(NodeKind::Struct { .. })));
    assert!(open
        .lookup_object("known")
        .unwrap()
        .cursor
        .lookup_object("b")
        .is_err());
    assert!(open.lookup_object("unknown").unwrap().cursor.is_unknown());
    let t = spec.lookup_object("template").unwrap().cursor;
    assert!(t.flags().embedded_resource && t.is_unknown());
    assert!(
        spec.lookup_object("size")
            .unwrap()
            .cursor
            .flags()
            .int_or_string
    );
    assert!(spec.lookup_object("anything").unwrap().cursor.is_unknown());
    let labels = spec.lookup_object("labels").unwrap().cursor;
    assert!(labels.map_value().unwrap().is_unknown());
    assert!(matches!(
        labels.lookup_object("k"),
        Err(LookupError::InMap { .. })
    ));
    // Undeclared fields of an ordinary struct fail as in the reference.
    assert!(matches!(
        spec.lookup_object("nope"),
        Err(LookupError::NoSuchField { .. })
    ));
    // Legacy spec.validation.
    let g = s.cursor("example.com/v1beta1/Gadget").unwrap();
    let n = g
        .lookup_object("spec")
        .unwrap()
        .cursor
        .lookup_object("count")
        .unwrap();
    assert!(matches!(n.cursor.kind(), Some(NodeKind::Scalar { .. })));
}

#[test]
fn crd_json_and_list() {
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "spec": {"group": "a.io", "names": {"kind": "A"}, "versions": [{"name": "v1",
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object"}}}}}]}});
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [crd]});
    for doc in [&crd, &list] {
        let s = Schema::from_json_value(doc, "a.json").unwrap();
        assert!(s.cursor("a.io/v1/A").is_some());
        let bytes = serde_json::to_vec(doc).unwrap();
        assert!(Schema::from_bytes(&bytes, "a.json")
            .unwrap()
            .cursor("a.io/v1/A")
            .is_some());
    }
}

#[test]
fn format_a_union_and_gvk() {
    let doc = json!({"swagger": "2.0", "definitions": {
        "S": {"properties": {"kind": {"type": "string"}, "user": {}, "group": {}},
              "x-kubernetes-unions": [{"discriminator": "kind", "fields-to-discriminateBy": {"user": "User", "group": "Group"}}],
              "x-kubernetes-group-version-kind": [{"group": "g", "version": "v1", "kind": "S"}, {"version": "v1", "kind": "S"}]}}});
    let s = Schema::from_json_value(&doc, "u.json").unwrap();
    let c = s.cursor("g/v1/S").unwrap();
    assert!(s.cursor("v1/S").is_some());
    let u = &c.unions()[0];
    assert!(u.deduce_discriminator);
    assert_eq!(u.members.len(), 2);
    assert_eq!(u.members[0].value.as_ref(), "User");
}

#[test]
fn v3_allof_extensions_on_wrapper() {
    let doc = json!({"openapi": "3.0.0", "components": {"schemas": {
        "T": {"type": "object", "properties": {
            "src": {"allOf": [{"$ref": "#/components/schemas/Src"}], "x-kubernetes-patch-strategy": "retainKeys"},
            "l": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/Src"}], "default": {}},
                  "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "type"}}},
        "Src": {"type": "object", "x-kubernetes-patch-strategy": "replace",
                "properties": {"type": {"type": "string"}}}}}});
    let s = Schema::from_json_value(&doc, "v3.json").unwrap();
    let t = s.cursor("T").unwrap();
    let src = t.lookup_object("src").unwrap();
    assert!(src.meta.retain_keys);
    assert_eq!(
        src.meta.strategy,
        Strategy::None,
        "never read from the definition"
    );
    assert_eq!(src.cursor.type_name(), Some("Src"));
    let l = t.lookup_list("l").unwrap();
    assert_eq!(l.meta.merge_key(), Some("type"));
    assert_eq!(l.cursor.type_name(), Some("Src"));
    // A list lookup on a struct property yields the struct (as the reference's
    // OpenAPI lookup).
    assert_eq!(
        t.lookup_list("src").unwrap().cursor.type_name(),
        Some("Src")
    );
    // Fields iterate sorted.
    let names: Vec<&str> = t.fields().map(|(n, _)| n).collect();
    assert_eq!(names, ["l", "src"]);
}

#[test]
fn merge_and_directories() {
    let a = Schema::from_json_value(&json!({"swagger": "2.0", "definitions": {
        "A": {"properties": {"x": {"type": "array", "x-kubernetes-patch-strategy": "merge"}}, "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "A"}]}}}), "a").unwrap();
    let b = Schema::from_json_value(
        &json!({"swagger": "2.0", "definitions": {
        "A": {"properties": {"x": {"type": "array"}}},
        "B": {"properties": {"a": {"$ref": "#/definitions/A"}}}}}),
        "b",
    )
    .unwrap();
    let m = a.clone().merge(b);
    // Last wins for names; GVK still points at the first A.
    assert_eq!(
        m.cursor("A")
            .unwrap()
            .lookup_list("x")
            .unwrap()
            .meta
            .strategy,
        Strategy::None
    );
    assert_eq!(
        m.cursor("v1/A")
            .unwrap()
            .lookup_list("x")
            .unwrap()
            .meta
            .strategy,
        Strategy::Merge
    );
    assert!(m
        .cursor("B")
        .unwrap()
        .lookup_object("a")
        .unwrap()
        .cursor
        .lookup_list("x")
        .is_ok());

    let dir = std::env::temp_dir().join(format!("smpatch-schema-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("1.json"),
        r#"{"swagger":"2.0","definitions":{"A":{"properties":{"x":{}}}}}"#,
    )
    .unwrap();
    std::fs::write(dir.join("2.yaml"), CRD_YAML).unwrap();
    std::fs::write(dir.join("ignored.txt"), "not a schema").unwrap();
    let s = Schema::load_path(&dir).unwrap();
    assert!(s.cursor("A").is_some() && s.cursor("example.com/v1/Widget").is_some());
    let s = Schema::load_paths(&[dir.join("1.json"), dir.join("2.yaml")]).unwrap();
    assert!(s.cursor("A").is_some() && s.cursor("example.com/v1/Widget").is_some());
    std::fs::write(dir.join("3.yml"), "kind: ConfigMap\n").unwrap();
    assert_eq!(
        Schema::load_path(&dir).unwrap_err().kind_name(),
        "not_a_schema"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    // An empty directory is an error, not an empty schema.
    std::fs::create_dir_all(&dir).unwrap();
    assert_eq!(
        Schema::load_path(&dir).unwrap_err().kind_name(),
        "not_a_schema"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn schema_is_shareable_across_threads() {
    let s = smpatch_schema::embedded();
    std::thread::scope(|sc| {
        for _ in 0..4 {
            sc.spawn(|| assert!(s.cursor("v1/Pod").is_some()));
        }
    });
}
