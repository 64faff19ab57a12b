//! The embedded Kubernetes schema answers the metadata kubectl relies on.
#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use smpatch_schema::{embedded, embedded_checked, explain, Cursor, Strategy};

fn walk<'s>(mut c: Cursor<'s>, path: &[&str]) -> Cursor<'s> {
    for p in path {
        c = c.lookup_object(p).unwrap().cursor;
    }
    c
}

#[test]
fn embedded_compiles() {
    let s = embedded_checked().unwrap();
    assert!(
        s.definition_names().count() > 800,
        "{}",
        s.definition_names().count()
    );
    assert!(s.gvks().count() > 100);
}

#[test]
fn deployment_containers_and_volumes() {
    let d = embedded().cursor("apps/v1/Deployment").unwrap();
    assert_eq!(d.type_name(), Some("io.k8s.api.apps.v1.Deployment"));
    let pod = walk(d, &["spec", "template", "spec"]);
    let c = pod.lookup_list("containers").unwrap();
    assert_eq!(c.meta.strategy, Strategy::Merge);
    assert!(!c.meta.retain_keys);
    assert_eq!(c.meta.merge_key(), Some("name"));
    assert_eq!(c.cursor.type_name(), Some("io.k8s.api.core.v1.Container"));
    let v = pod.lookup_list("volumes").unwrap();
    assert_eq!(v.meta.strategy, Strategy::Merge);
    assert!(v.meta.retain_keys);
    assert_eq!(v.meta.merge_key(), Some("name"));
    // Containers' ports: merge on containerPort.
    let ports = c.cursor.lookup_list("ports").unwrap();
    assert_eq!(ports.meta.merge_key(), Some("containerPort"));
    // Labels are a map of strings; lookups inside a map fail (Q23).
    let meta = walk(d, &["metadata"]);
    let labels = meta.lookup_object("labels").unwrap().cursor;
    assert!(labels.map_value().is_some());
    assert!(labels.lookup_object("x").is_err());
}

#[test]
fn pod_and_core_group() {
    let s = embedded();
    let p = s.cursor("v1/Pod").unwrap();
    assert_eq!(p.type_name(), Some("io.k8s.api.core.v1.Pod"));
    assert!(s.cursor_for("v1", "Pod").is_some());
    let spec = p.lookup_object("spec").unwrap().cursor;
    let tol = spec.lookup_list("tolerations").unwrap();
    assert_eq!(tol.meta.strategy, Strategy::None);
    // IntOrString is a scalar.
    let port = walk(s.cursor("io.k8s.api.core.v1.ServicePort").unwrap(), &[]);
    let tp = port.lookup_object("targetPort").unwrap().cursor;
    assert!(tp.flags().int_or_string);
}

#[test]
fn explain_volumes() {
    let text = explain(
        embedded(),
        "apps/v1/Deployment",
        Some("spec.template.spec.volumes"),
    )
    .unwrap();
    assert!(text.contains("STRATEGY:   merge,retainKeys"), "{text}");
    assert!(text.contains("MERGE KEY:  name"), "{text}");
    assert!(text.contains("list of io.k8s.api.core.v1.Volume"), "{text}");
    assert!(text.contains("configMap"), "{text}");
    let err = explain(embedded(), "apps/v1/Deployment", Some("spec.nope")).unwrap_err();
    assert_eq!(err.kind_name(), "unknown_field");
    let err = explain(embedded(), "v9/Nothing", None).unwrap_err();
    assert_eq!(err.kind_name(), "unknown_type");
}

/// The generator's translation keeps patch metadata: every field the 1.27
/// swagger and the embedded 1.37 schema both define has the same strategy,
/// retainKeys flag and merge key (Kubernetes does not change these).
#[test]
fn embedded_agrees_with_swagger_1_27() {
    let Some(shared) = smpatch_testkit::shared_dir() else {
        return;
    };
    let old =
        smpatch_schema::Schema::load_path(shared.join("openapi/kubernetes-v1.27.swagger.json"))
            .unwrap();
    let new = embedded();
    let mut compared = 0;
    let mut diffs = Vec::new();
    for name in old.definition_names() {
        let (Some(a), Some(b)) = (old.cursor(name), new.cursor(name)) else {
            continue;
        };
        let fb: std::collections::HashMap<&str, _> = b.fields().collect();
        for (field, fa) in a.fields() {
            let Some(fb) = fb.get(field) else { continue };
            // Upstream change: 1.27 carried a stray `merge` strategy with merge
            // key `key` on this scalar field; later versions dropped it.
            if name == "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement"
                && field == "key"
            {
                continue;
            }
            compared += 1;
            let (ma, mb) = (fa.meta, fb.meta);
            if (ma.strategy, ma.retain_keys, ma.merge_key())
                != (mb.strategy, mb.retain_keys, mb.merge_key())
            {
                diffs.push(format!("{name}.{field}: 1.27 {ma:?} / 1.37 {mb:?}"));
            }
            // Same shape class too.
            let class = |c: Cursor<'_>| std::mem::discriminant(c.kind().unwrap());
            if class(fa.cursor) != class(fb.cursor) {
                diffs.push(format!(
                    "{name}.{field}: shape {:?} / {:?}",
                    fa.cursor.kind(),
                    fb.cursor.kind()
                ));
            }
        }
    }
    assert!(compared > 1500, "{compared}");
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
