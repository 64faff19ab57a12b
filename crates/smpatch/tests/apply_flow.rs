//! The client-side apply flow as a library call (issue 12): actions,
//! kubectl's missing-annotation warning, conflicts, bad annotations.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use serde_json::{json, Value as J};
use smpatch::apply_flow::{
    client_apply_bytes, client_apply_json, ApplyAction, ApplyPatchType, ApplyWarning,
    ClientApplyOptions, LAST_APPLIED_ANNOTATION, LAST_APPLIED_POINTER,
};
use smpatch::{ErrorKind, PatchErrorKind, TypeRef};

fn cm(data: J, last_applied: Option<&str>) -> J {
    let mut v = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cfg", "namespace": "prod"}, "data": data});
    if let Some(la) = last_applied {
        v["metadata"]["annotations"] = json!({ LAST_APPLIED_ANNOTATION: la });
    }
    v
}

fn run(
    manifest: &J,
    live: Option<&J>,
    opts: &ClientApplyOptions,
) -> smpatch::apply_flow::ClientApplied<J> {
    let schema = smpatch::embedded_schema().unwrap();
    client_apply_json(manifest, live, schema, &TypeRef::Detect, opts).unwrap()
}

#[test]
fn applying_twice_is_unchanged_and_warns_only_without_annotation() {
    let manifest = cm(json!({"a": "1"}), None);
    let first = run(
        &manifest,
        Some(&cm(json!({"a": "0"}), None)),
        &ClientApplyOptions::default(),
    );
    assert_eq!(first.action, ApplyAction::Configured);
    assert_eq!(
        first.warning,
        Some(ApplyWarning::MissingLastApplied {
            resource: "configmap/cfg".into()
        })
    );
    assert_eq!(
        first.merged["metadata"]["annotations"][LAST_APPLIED_ANNOTATION],
        first.last_applied.as_str()
    );
    let second = run(
        &manifest,
        Some(&first.merged),
        &ClientApplyOptions::default(),
    );
    assert_eq!(second.action, ApplyAction::Unchanged);
    assert_eq!(second.patch, json!({}));
    assert_eq!(second.warning, None);
    assert_eq!(second.merged, first.merged);
}

#[test]
fn no_live_object_is_created_without_warning() {
    let manifest = cm(json!({"a": "1"}), None);
    let out = run(&manifest, None, &ClientApplyOptions::default());
    assert_eq!(out.action, ApplyAction::Created);
    assert_eq!(out.warning, None);
    assert_eq!(out.merged["data"], json!({"a": "1"}));
}

#[test]
fn removed_fields_are_pruned_only_with_the_annotation() {
    let old = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"a":"1","b":"2"}}"#;
    let manifest = cm(json!({"a": "1"}), None);
    let live = cm(json!({"a": "1", "b": "2", "server": "x"}), Some(old));
    let out = run(&manifest, Some(&live), &ClientApplyOptions::default());
    assert_eq!(out.merged["data"], json!({"a": "1", "server": "x"}));
    let unannotated = cm(json!({"a": "1", "b": "2"}), None);
    let out = run(
        &manifest,
        Some(&unannotated),
        &ClientApplyOptions::default(),
    );
    assert_eq!(out.merged["data"], json!({"a": "1", "b": "2"}));
}

#[test]
fn server_changes_conflict_without_overwrite() {
    let old =
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"a":"1"}}"#;
    let manifest = cm(json!({"a": "2"}), None);
    let live = cm(json!({"a": "server"}), Some(old));
    let schema = smpatch::embedded_schema().unwrap();
    let opts = ClientApplyOptions::default().overwrite(false);
    let e = client_apply_json(&manifest, Some(&live), schema, &TypeRef::Detect, &opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Patch(PatchErrorKind::Conflict));
    assert!(e.message().starts_with("configmap/cfg: "), "{e}");
    assert!(e.message().contains("/data/a"), "{e}");
    assert!(e.message().contains("overwrite"), "{e}");
    assert!(!e.message().contains("patch: {"), "short: {e}");
    let full = std::error::Error::source(&e).unwrap().to_string();
    assert!(
        full.contains("conflicts with changes made from original to current"),
        "{full}"
    );
    let out = run(&manifest, Some(&live), &ClientApplyOptions::default());
    assert_eq!(out.merged["data"]["a"], "2");
}

#[test]
fn a_bad_annotation_is_an_error_located_at_the_annotation() {
    let manifest = cm(json!({"a": "1"}), None);
    let schema = smpatch::embedded_schema().unwrap();
    for bad in ["{not json", "[1,2]"] {
        let live = cm(json!({}), Some(bad));
        let e = client_apply_json(
            &manifest,
            Some(&live),
            schema,
            &TypeRef::Detect,
            &Default::default(),
        )
        .unwrap_err();
        assert_eq!(e.name(), "invalid_document", "{bad}");
        assert_eq!(e.path(), LAST_APPLIED_POINTER, "{bad}");
    }
}

#[test]
fn non_string_annotations_count_as_none_like_kubectl() {
    let manifest = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cfg", "annotations": {"n": 1}}});
    let live = cm(json!({}), None);
    let out = run(&manifest, Some(&live), &ClientApplyOptions::default());
    assert!(out
        .last_applied
        .contains(r#""metadata":{"annotations":{},"name":"cfg","namespace":"prod"}"#));
    assert!(out.warning.is_some());
}

/// kubectl reads the original through `Unstructured.GetAnnotations` too: a
/// live object whose annotations hold a non-string value has no original,
/// so nothing the old configuration held is deleted (found by the
/// go-differential's `--napply` cases: kubectl's PATCH deleted nothing).
#[test]
fn live_annotations_with_a_non_string_value_give_no_original() {
    let old = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{"a":"1"},"name":"cfg","namespace":"prod"},"data":{"k":"v","old":"1"}}"#;
    let manifest = cm(json!({"k": "v2"}), None);
    let mut live = cm(json!({"k": "v", "old": "1"}), Some(old));
    live["metadata"]["annotations"]["a"] = json!("1");
    live["metadata"]["annotations"]["n"] = J::Null;
    let out = run(&manifest, Some(&live), &ClientApplyOptions::default());
    assert_eq!(out.merged["data"], json!({"k": "v2", "old": "1"}));
    assert_eq!(out.merged["metadata"]["annotations"]["a"], "1");
    assert!(out.warning.is_some());
    // A text that does not parse is not read either (kubectl sends its patch).
    live["metadata"]["annotations"][LAST_APPLIED_ANNOTATION] = json!("{not json");
    let out = run(&manifest, Some(&live), &ClientApplyOptions::default());
    assert_eq!(out.merged["data"], json!({"k": "v2", "old": "1"}));
    // With string annotations only, the same original prunes `old` and `a`.
    live["metadata"]["annotations"] = json!({ LAST_APPLIED_ANNOTATION: old, "a": "1" });
    let out = run(&manifest, Some(&live), &ClientApplyOptions::default());
    assert_eq!(out.merged["data"], json!({"k": "v2"}));
    assert!(out.merged["metadata"]["annotations"].get("a").is_none());
}

#[test]
fn bytes_keep_numbers_and_refuse_an_empty_manifest() {
    let schema = smpatch::embedded_schema().unwrap();
    let m = br#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"w"},"spec":{"replicas":123456789012345678901234}}"#;
    let out = client_apply_bytes(m, None, schema, &TypeRef::Detect, &Default::default()).unwrap();
    assert!(String::from_utf8(out.merged)
        .unwrap()
        .contains("123456789012345678901234"));
    // The annotation holds what kubectl writes: Go's float64 rendering.
    assert!(
        out.last_applied
            .contains(r#""replicas":1.2345678901234569e+23"#),
        "{}",
        out.last_applied
    );
    let e =
        client_apply_bytes(b"", None, schema, &TypeRef::Detect, &Default::default()).unwrap_err();
    assert_eq!(e.name(), "invalid_document");
}

/// A custom resource (no schema anywhere) as kubectl sees it.
fn widget(spec: J, last_applied: Option<&J>) -> J {
    let mut v = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "prod"}, "spec": spec});
    if let Some(la) = last_applied {
        let text = format!("{}\n", serde_json::to_string(la).unwrap());
        v["metadata"]["annotations"] = json!({ LAST_APPLIED_ANNOTATION: text });
    }
    v
}

fn merge_opts() -> ClientApplyOptions {
    ClientApplyOptions::default().patch_type(ApplyPatchType::Merge)
}

#[test]
fn merge_type_applies_a_custom_resource_as_kubectl_does() {
    // Last applied: ports [80], tags, replicas. The manifest drops `tags`,
    // changes the list; the live object has a field of its own (`status`-like
    // `observed`) and a list item a controller added.
    let before = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "prod"},
        "spec": {"replicas": 1, "tags": ["a"], "ports": [{"port": 80}]}});
    let live = widget(
        json!({"replicas": 1, "tags": ["a"], "ports": [{"port": 80}, {"port": 9090}], "observed": 3}),
        Some(&before),
    );
    let manifest = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w"}, "spec": {"replicas": 2, "ports": [{"port": 81}]}});
    let out = run(&manifest, Some(&live), &merge_opts());
    assert_eq!(out.action, ApplyAction::Configured);
    assert_eq!(out.warning, None);
    assert_eq!(out.resource, "widget.example.com/w");
    // The patch: tags deleted (it was applied before), list replaced whole,
    // the annotation changed; `observed` untouched.
    assert_eq!(
        out.patch,
        json!({"metadata": {"annotations": {LAST_APPLIED_ANNOTATION: out.last_applied}},
            "spec": {"tags": null, "replicas": 2, "ports": [{"port": 81}]}})
    );
    assert_eq!(
        out.merged["spec"],
        json!({"replicas": 2, "ports": [{"port": 81}], "observed": 3})
    );
    assert_eq!(out.merged["metadata"]["namespace"], "prod");
    // The strategic flow needs a schema for this kind.
    let schema = smpatch::embedded_schema().unwrap();
    let e = client_apply_json(
        &manifest,
        Some(&live),
        schema,
        &TypeRef::Detect,
        &ClientApplyOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.name(), "unknown_type");
    // Applying again: unchanged.
    let again = run(&manifest, Some(&out.merged), &merge_opts());
    assert_eq!(again.action, ApplyAction::Unchanged);
    assert_eq!(again.patch, json!({}));
    assert_eq!(again.merged, out.merged);
}

#[test]
fn merge_type_on_a_built_in_kind_replaces_lists() {
    // The same ConfigMap-free check on a Deployment: the containers list is
    // replaced whole (strategic merges it by name).
    let last = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1"}]}}}});
    let mut live = last.clone();
    live["metadata"]["annotations"] =
        json!({ LAST_APPLIED_ANNOTATION: serde_json::to_string(&last).unwrap() });
    live["spec"]["template"]["spec"]["containers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "sidecar", "image": "envoy"}));
    let mut manifest = last.clone();
    manifest["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:2");
    let names = |o: &smpatch::apply_flow::ClientApplied<J>| {
        o.merged["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let strategic = run(&manifest, Some(&live), &ClientApplyOptions::default());
    assert_eq!(names(&strategic), ["web", "sidecar"]);
    let merge = run(&manifest, Some(&live), &merge_opts());
    assert_eq!(names(&merge), ["web"]);
}

#[test]
fn merge_type_has_no_conflicts_and_checks_kubectls_preconditions() {
    // Changed on the server since the last apply: strategic without
    // overwrite is a conflict, the merge type takes the manifest's value
    // (kubectl has no conflict check there).
    let last = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w"}, "spec": {"size": 1}});
    let live = widget(json!({"size": 5}), Some(&last));
    let manifest = widget(json!({"size": 2}), None);
    let out = run(&manifest, Some(&live), &merge_opts().overwrite(false));
    assert_eq!(out.merged["spec"]["size"], 2);
    // A name the live object does not have: kubectl's precondition error.
    let mut renamed = manifest.clone();
    renamed["metadata"]["name"] = json!("other");
    let schema = smpatch::embedded_schema().unwrap();
    let e = client_apply_json(
        &renamed,
        Some(&live),
        schema,
        &TypeRef::Detect,
        &merge_opts(),
    )
    .unwrap_err();
    assert_eq!(e.name(), "precondition_failed");
    assert_eq!(e.path(), "/metadata/name");
    assert!(e.message().starts_with(
        "widget.example.com/other: at least one of apiVersion, kind and name was changed"
    ));
    // No live object: created, no preconditions (kubectl creates it).
    let created = run(&manifest, None, &merge_opts());
    assert_eq!(created.action, ApplyAction::Created);
    assert_eq!(created.merged["spec"]["size"], 2);
    assert_eq!(
        created.merged["metadata"]["annotations"][LAST_APPLIED_ANNOTATION],
        created.last_applied.as_str()
    );
}

#[test]
fn merge_type_on_bytes_keeps_numbers() {
    let schema = smpatch::embedded_schema().unwrap();
    let live = br#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"n":1,"keep":true}}"#;
    let manifest = br#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"n":123456789012345678901234567890}}"#;
    let out = client_apply_bytes(
        manifest,
        Some(live),
        schema,
        &TypeRef::Detect,
        &merge_opts(),
    )
    .unwrap();
    let merged = String::from_utf8(out.merged).unwrap();
    assert!(
        merged.contains(r#""spec":{"n":123456789012345678901234567890,"keep":true}"#),
        "{merged}"
    );
    assert!(out.warning.is_some());
}

#[test]
fn merge_type_survives_deep_documents_and_keeps_the_depth_limit() {
    // 20,000 levels (limit raised): the recursive walks grow their stack.
    let schema = smpatch::embedded_schema().unwrap();
    let (m, l) = (widget_bytes(19_999), widget_bytes(20_000));
    let opts = merge_opts().max_depth(30_000);
    let out = client_apply_bytes(&m, Some(&l), schema, &TypeRef::Detect, &opts).unwrap();
    assert_eq!(out.action, ApplyAction::Configured);
    let merged = String::from_utf8(out.merged).unwrap();
    // The manifest's depth: the live object's innermost level is gone.
    assert_eq!(merged.matches(r#"{"a":"#).count(), 19_999);
    assert!(merged.contains(r#"{"a":1}"#));
    // The default limit refuses the same documents with `too_deep`.
    let e = client_apply_bytes(&m, Some(&l), schema, &TypeRef::Detect, &merge_opts()).unwrap_err();
    assert_eq!(e.name(), "too_deep");
}

/// A Widget whose `spec` nests `n` objects deep, as JSON bytes.
fn widget_bytes(n: usize) -> Vec<u8> {
    let mut s = String::from(
        r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":"#,
    );
    s.push_str(&r#"{"a":"#.repeat(n));
    s.push('1');
    s.push_str(&"}".repeat(n));
    s.push('}');
    s.into_bytes()
}
