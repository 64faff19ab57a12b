//! Real Kubernetes unions of the embedded v1.37 schema end to end through
//! the `smpatch` binary: `validate` (text, JSON, `--old`, exit codes) and
//! `patch --normalize-unions` on SeccompProfile, flowcontrol Subject,
//! PriorityLevelConfigurationSpec and LimitResponse, including the rule that
//! a struct-level discriminator value matching no member (`Localhost` vs the
//! member value `LocalhostProfile`, `Reject`) clears nothing.
//! Inputs live in `testdata/unions/k8s/`, expected output in
//! `crates/cli/testdata/unions/expected/`.

#![allow(clippy::unwrap_used)] // tests may unwrap (clippy.toml: allow-unwrap-in-tests)

mod common;

use common::run as smpatch;

/// The expected output `crates/cli/testdata/unions/expected/<name>`.
fn expected(name: &str) -> String {
    common::expected(&format!("unions/expected/{name}"))
}

const K8S: &str = "testdata/unions/k8s";

#[test]
fn validate_reports_every_violation_of_every_document() {
    let (code, out, _) = smpatch(&["validate", "-f", &format!("{K8S}/flowschemas.yaml")]);
    assert_eq!(code, 1);
    assert_eq!(out, expected("validate-flowschemas.txt"));
    let (code, out, _) = smpatch(&[
        "validate",
        "-f",
        &format!("{K8S}/flowschemas.yaml"),
        "-o",
        "json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["valid"], false);
    let counts: Vec<usize> = v["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["violations"].as_array().unwrap().len())
        .collect();
    assert_eq!(counts, [0, 4, 2]);
    assert_eq!(v["documents"][1]["violations"][2]["rule"], "V4");
    assert_eq!(
        v["documents"][1]["violations"][2]["path"],
        "/spec/rules/0/subjects/1/serviceAccount"
    );
}

#[test]
fn validate_with_old_tells_the_client_to_change_the_discriminator() {
    let (code, out, _) = smpatch(&[
        "validate",
        "-f",
        &format!("{K8S}/plc-limited-and-exempt.yaml"),
        "--old",
        &format!("{K8S}/plc-limited.yaml"),
    ]);
    assert_eq!(code, 1);
    assert_eq!(out, expected("validate-old.txt"));
    assert!(out.contains("change the discriminator \"type\" when you change which member is set"));
}

#[test]
fn validate_exit_codes() {
    // SeccompProfile: `type: Localhost` does not select the member whose
    // value is `LocalhostProfile`, so nothing is wrong.
    let (code, out, _) = smpatch(&["validate", "-f", &format!("{K8S}/pod-seccomp.yaml")]);
    assert_eq!((code, out.as_str()), (0, ""));
    let (code, _, err) = smpatch(&["validate", "-f", &format!("{K8S}/missing.yaml")]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: "));
    let (code, _, err) = smpatch(&["validate", "-f", "testdata/unions/cases.json"]);
    assert_eq!(code, 2, "no apiVersion/kind: {err}");
}

#[test]
fn patch_normalize_unions_clears_the_members_a_changed_discriminator_deselects() {
    let file = format!("{K8S}/plc-limited.yaml");
    let patch = r#"{"spec":{"type":"Exempt","exempt":{}}}"#;
    let (code, out, _) = smpatch(&["patch", "-f", &file, "-p", patch, "--normalize-unions"]);
    assert_eq!(code, 0);
    assert_eq!(out, expected("patch-plc-exempt.json"));
    // Without the flag the merge keeps both members.
    let (code, out, _) = smpatch(&["patch", "-f", &file, "-p", patch]);
    assert_eq!(code, 0);
    assert!(out.contains("\"limited\""));
}

#[test]
fn patch_normalize_unions_never_clears_for_values_matching_no_member() {
    let (code, out, _) = smpatch(&[
        "patch",
        "-f",
        &format!("{K8S}/pod-seccomp.yaml"),
        "-p",
        r#"{"spec":{"securityContext":{"seccompProfile":{"type":"RuntimeDefault"}}}}"#,
        "--normalize-unions",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, expected("patch-seccomp-runtime-default.json"));
    assert!(out.contains("profiles/audit.json"));
    let (code, out, _) = smpatch(&[
        "patch",
        "-f",
        &format!("{K8S}/plc-limited.yaml"),
        "-p",
        r#"{"spec":{"limited":{"limitResponse":{"type":"Reject"}}}}"#,
        "--normalize-unions",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, expected("patch-limit-response-reject.json"));
}

#[test]
fn patch_normalize_unions_rejects_a_second_member_without_a_discriminator_change() {
    let (code, out, err) = smpatch(&[
        "patch",
        "-f",
        &format!("{K8S}/plc-limited.yaml"),
        "-p",
        r#"{"spec":{"exempt":{}}}"#,
        "--normalize-unions",
    ]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("(V3)") && err.contains("(V5)"), "{err}");
    let (code, _, err) = smpatch(&[
        "patch",
        "-f",
        &format!("{K8S}/plc-limited.yaml"),
        "-p",
        "{}",
        "--type",
        "merge",
        "--normalize-unions",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("--type strategic"));
}

#[test]
fn enums_of_a_real_spec_are_checked() {
    // The shared v1.27 swagger declares field enums (the embedded v1.37
    // schema has none besides apiVersion/kind): SeccompProfile.type is a
    // closed enum (V1 for its union), imagePullPolicy a plain enum.
    let Some(swagger) = smpatch_testkit::shared_path("openapi/kubernetes-v1.27.swagger.json")
    else {
        return;
    };
    let swagger = swagger.to_str().expect("UTF-8 path");
    let file = format!("{K8S}/pod-bad-enums.yaml");
    let (code, out, err) = smpatch(&["validate", "-f", &file, "--schema", swagger]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, expected("validate-v1.27-enums.txt"));
    let (code, out, _) = smpatch(&["validate", "-f", &file, "--schema", swagger, "--no-enums"]);
    assert_eq!(code, 1);
    assert!(out.contains("[V1]") && !out.contains("[enum]"), "{out}");
    let (code, _, _) = smpatch(&["validate", "-f", &file]);
    assert_eq!(code, 0, "the embedded schema has no field enums");
}
