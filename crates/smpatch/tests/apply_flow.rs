//! The client-side apply flow as a library call (issue 12): actions,
//! kubectl's missing-annotation warning, conflicts, bad annotations.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use serde_json::{json, Value as J};
use smpatch::apply_flow::{
    client_apply_bytes, client_apply_json, ApplyAction, ApplyWarning, ClientApplyOptions,
    LAST_APPLIED_ANNOTATION, LAST_APPLIED_POINTER,
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
