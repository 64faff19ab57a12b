//! End-to-end tests of the `smpatch` binary; expected output lives in
//! `crates/cli/testdata/` (regenerate a file by running the command shown in its
//! test and reviewing the diff).

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name))
        .unwrap()
}

fn smpatch() -> Command {
    let mut cmd = Command::cargo_bin("smpatch").unwrap();
    cmd.current_dir(root());
    cmd
}

/// Runs `args` and checks status and stdout against `crates/cli/testdata/<file>`.
fn check(args: &[&str], status: i32, file: &str) {
    let out = smpatch().args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(status),
        "smpatch {args:?}: stderr {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        expected(file),
        "smpatch {args:?}"
    );
}

const DEPLOY: &str = "testdata/examples/deployment.yaml";
const DEPLOY2: &str = "testdata/examples/deployment-v2.yaml";
const PATCH: &str = "testdata/examples/patch.yaml";
const LIVE: &str = "testdata/examples/live.yaml";

#[test]
fn version_and_help() {
    let out = smpatch().arg("--version").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("smpatch "));
    let out = smpatch().arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for cmd in ["explain", "patch", "diff", "apply", "batch"] {
        assert!(help.contains(cmd), "help lists {cmd}");
    }
}

#[test]
fn patch_json_and_yaml() {
    check(
        &["patch", "-f", DEPLOY, "--patch-file", PATCH],
        0,
        "patch-example.json",
    );
    check(
        &["patch", "-f", DEPLOY, "--patch-file", PATCH, "-o", "yaml"],
        0,
        "patch-example.yaml",
    );
}

#[test]
fn patch_from_stdin_and_inline() {
    let out = smpatch()
        .args(["patch", "-f", "-", "-p", r#"{"data":{"b":"2"}}"#])
        .write_stdin("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: '1'\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"], serde_json::json!({"a": "1", "b": "2"}));
}

#[test]
fn patch_multi_document_and_merge_type() {
    let input = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n";
    let out = smpatch()
        .args([
            "patch",
            "-f",
            "-",
            "--type",
            "merge",
            "-p",
            r#"{"data":{"k":"v"}}"#,
            "-o",
            "yaml",
        ])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("k: v").count(), 2, "{text}");
    assert!(text.contains("---\n"));
}

#[test]
fn patch_json_patch_type() {
    let out = smpatch()
        .args([
            "patch",
            "-f",
            "-",
            "--type",
            "json",
            "-p",
            r#"[{"op":"add","path":"/data/z","value":"1"}]"#,
        ])
        .write_stdin(r#"{"apiVersion":"v1","kind":"ConfigMap","data":{}}"#)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"]["z"], "1");
}

#[test]
fn patch_error_names_location() {
    let out = smpatch()
        .args([
            "patch",
            "-f",
            DEPLOY,
            "-p",
            r#"{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}"#,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: /spec/template/spec/containers/0: "),
        "{err}"
    );
    assert!(err.contains("missing_merge_key"), "{err}");
}

#[test]
fn missing_file_is_an_error() {
    let out = smpatch()
        .args(["patch", "-f", "nope.yaml", "-p", "{}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: nope.yaml: "));
}

#[test]
fn diff_three_formats() {
    check(&["diff", DEPLOY, DEPLOY2], 0, "diff-strategic.json");
    check(
        &["diff", DEPLOY, DEPLOY2, "--type", "json"],
        0,
        "diff-json.json",
    );
    check(
        &["diff", DEPLOY, DEPLOY2, "--type", "merge"],
        0,
        "diff-merge.json",
    );
}

#[test]
fn diff_exit_code() {
    check(
        &["diff", DEPLOY, DEPLOY2, "--exit-code"],
        1,
        "diff-strategic.json",
    );
    let out = smpatch()
        .args(["diff", DEPLOY, DEPLOY, "--exit-code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{}\n");
    let out = smpatch()
        .args(["diff", DEPLOY, "missing.yaml", "--exit-code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn apply_offline() {
    check(
        &["apply", "-f", DEPLOY2, "--live", LIVE],
        0,
        "apply-example.json",
    );
    check(
        &["apply", "-f", DEPLOY2, "--live", LIVE, "--show-patch"],
        0,
        "apply-show-patch.json",
    );
    let out = smpatch()
        .args(["apply", "-f", DEPLOY2, "--live", LIVE, "--overwrite=false"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("[conflict]"));
}

/// A manifest without a namespace is applied to the live object's namespace
/// and the last-applied configuration records it, as kubectl stores it
/// (annotation text checked byte for byte against kubectl v1.32 with
/// `tasks/go-differential`).
#[test]
fn apply_takes_the_live_namespace() {
    check(
        &[
            "apply",
            "-f",
            "crates/cli/testdata/apply-namespace-manifest.yaml",
            "--live",
            "crates/cli/testdata/apply-namespace-live.yaml",
        ],
        0,
        "apply-namespace.json",
    );
}

#[test]
fn apply_sets_last_applied_as_kubectl_does() {
    let out = smpatch()
        .args(["apply", "-f", DEPLOY2, "--live", LIVE])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let la = v["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
        .as_str()
        .unwrap();
    assert!(
        la.ends_with("}\n"),
        "kubectl stores the JSON plus a newline"
    );
    assert!(la.starts_with(
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"#
    ));
    // Fields only the server set survive; the sidecar is gone.
    assert_eq!(v["spec"]["template"]["spec"]["dnsPolicy"], "ClusterFirst");
    assert_eq!(
        v["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn explain_field() {
    check(
        &[
            "explain",
            "apps/v1/Deployment",
            "spec.template.spec.volumes",
        ],
        0,
        "explain-volumes.txt",
    );
    let out = smpatch()
        .args(["explain", "nope/v1/Nothing"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
}

#[test]
fn batch_protocol() {
    let requests = expected("batch-requests.jsonl");
    let out = smpatch()
        .arg("batch")
        .write_stdin(requests.clone())
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.lines().count(),
        requests.lines().count(),
        "one response per request"
    );
    assert_eq!(stdout, expected("batch-responses.jsonl"));
}
