//! End-to-end tests of the `smpatch` binary; expected output lives in
//! `crates/cli/testdata/` (regenerate a file by running the command shown in its
//! test and reviewing the diff).

#![allow(clippy::unwrap_used)] // tests may unwrap (clippy.toml: allow-unwrap-in-tests)

mod common;

use common::{check, check_both, expected, root, run, smpatch};

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
        err.starts_with(
            "error: testdata/examples/deployment.yaml: /spec/template/spec/containers/0: "
        ),
        "{err}"
    );
    assert!(err.contains("missing_merge_key"), "{err}");
}

#[test]
fn missing_file_is_an_error() {
    let (code, _, stderr) = run(&["patch", "-f", "nope.yaml", "-p", "{}"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("error: nope.yaml: "));
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
    let (code, stdout, _) = run(&["diff", DEPLOY, DEPLOY, "--exit-code"]);
    assert_eq!(code, 0);
    assert_eq!(stdout, "{}\n");
    let (code, _, _) = run(&["diff", DEPLOY, "missing.yaml", "--exit-code"]);
    assert_eq!(code, 2);
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
    let (code, _, stderr) = run(&["apply", "-f", DEPLOY2, "--live", LIVE, "--overwrite=false"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("[conflict]"));
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
    let (_, stdout, _) = run(&["apply", "-f", DEPLOY2, "--live", LIVE]);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
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

const MULTI: &str = "crates/cli/testdata/apply-multi-manifest.yaml";
const MULTI_LIVE: &str = "crates/cli/testdata/apply-multi-live.yaml";

/// kubectl's missing-annotation warning and one summary line per object
/// (`configured`, `unchanged`, `created`) go to stderr; stdout holds the
/// objects alone.
#[test]
fn apply_reports_each_object_on_stderr() {
    check_both(
        &["apply", "-f", MULTI, "--live", MULTI_LIVE, "-o", "yaml"],
        0,
        "apply-multi.yaml",
        "apply-multi.stderr",
    );
    let (_, _, stderr) = run(&["apply", "-f", DEPLOY2, "--live", LIVE]);
    assert_eq!(stderr, "deployment.apps/web configured\n");
}

/// `apply` takes the same engine flags as `patch` and `diff`, and they reach
/// the engine: with `--compound-keys` the ports list is keyed by
/// `[containerPort, protocol]`, which the manifest's port does not spell out.
#[test]
fn apply_takes_the_engine_flags() {
    let run = |extra: &[&str]| {
        smpatch()
            .args(["apply", "-f", DEPLOY2, "--live", LIVE])
            .args(extra)
            .output()
            .unwrap()
    };
    let plain = run(&[]);
    let quirks = run(&["--fix-quirks"]);
    assert_eq!(
        quirks.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&quirks.stderr)
    );
    assert_eq!(plain.stdout, quirks.stdout);
    let compound = run(&["--compound-keys"]);
    assert_eq!(compound.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&compound.stderr)
            .contains("declared merge key: protocol [missing_merge_key]"),
        "{}",
        String::from_utf8_lossy(&compound.stderr)
    );
}

/// `--show-patch` names the object of each patch: a YAML comment per
/// document, and the stderr lines in stdout's order.
#[test]
fn apply_show_patch_says_which_patch_is_which() {
    check_both(
        &[
            "apply",
            "-f",
            MULTI,
            "--live",
            MULTI_LIVE,
            "-o",
            "yaml",
            "--show-patch",
        ],
        0,
        "apply-multi-show-patch.yaml",
        "apply-multi-show-patch.stderr",
    );
}

/// A live object whose last-applied annotation is not JSON: the error names
/// the live file and the annotation; the objects before it were reported.
#[test]
fn apply_bad_annotation_names_the_live_file() {
    check_both(
        &[
            "apply",
            "-f",
            MULTI,
            "--live",
            "crates/cli/testdata/apply-bad-annotation-live.yaml",
        ],
        1,
        "empty.txt",
        "apply-bad-annotation.stderr",
    );
}

/// A conflict is one short line: the object, the paths and the fix (it was
/// 4 KB of both change sets).
#[test]
fn apply_conflict_is_short() {
    check_both(
        &["apply", "-f", DEPLOY2, "--live", LIVE, "--overwrite=false"],
        1,
        "empty.txt",
        "apply-conflict.stderr",
    );
    let err = expected("apply-conflict.stderr");
    assert!(err.len() < 500, "{err}");
    assert!(err.contains("/spec/replicas"), "{err}");
    assert!(err.contains("overwrite"), "{err}");
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
    let (code, _, stderr) = run(&["explain", "nope/v1/Nothing"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("error: "));
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

/// Runs `script` with `sh -c`, `$SMPATCH` naming the binary.
fn sh(script: &str) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("SMPATCH", assert_cmd::cargo::cargo_bin("smpatch"))
        .current_dir(root())
        .output()
        .unwrap()
}

/// Address-space cap for the endless-input tests, in KiB: far below what
/// reading the input whole would take, far above the 1 MiB input limit.
const ULIMIT_KIB: usize = 262_144;

fn assert_too_large(script: &str) {
    let out = sh(&format!(
        "ulimit -v {ULIMIT_KIB}; exec \"$SMPATCH\" --max-input-bytes 1048576 {script}"
    ));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{script}: {err}");
    assert!(err.contains("[too_large]"), "{script}: {err}");
    assert!(err.contains("1048576 bytes"), "{script}: {err}");
    assert_eq!(err.lines().count(), 1, "{script}: {err}");
}

#[test]
fn endless_files_stop_at_the_limit() {
    assert_too_large("patch -f /dev/zero -p '{}'");
    assert_too_large(&format!("patch -f {DEPLOY} --patch-file /dev/zero"));
    assert_too_large(&format!("diff /dev/zero {DEPLOY}"));
    assert_too_large(&format!("diff {DEPLOY} /dev/zero"));
    assert_too_large(&format!("apply -f {DEPLOY} --live /dev/zero"));
    assert_too_large("patch -f - -p '{}' < /dev/zero");
    assert_too_large(&format!("patch -f {DEPLOY} -p '{{}}' --schema /dev/zero"));
}

#[test]
fn endless_batch_line_is_answered_too_large() {
    // 300 MB without a newline, then one good request.
    let out = sh(&format!(
        "{{ head -c 300000000 /dev/zero; printf '\\n{{\"id\":2,\"op\":\"apply\",\"schema\":{{\"none\":true}},\"original\":{{}},\"patch\":{{\"a\":1}}}}\\n'; }} \
         | (ulimit -v {ULIMIT_KIB}; exec \"$SMPATCH\" --max-input-bytes 1048576 batch)"
    ));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with(r#"{"id":null,"error":{"kind":"too_large","#)
            && lines[0].contains("1048576 bytes"),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1], r#"{"id":2,"ok":{"a":1}}"#);
}

#[test]
fn batch_write_errors_name_stdout() {
    let out = sh("echo '{}' | \"$SMPATCH\" batch > /dev/full");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: stdout: "), "{err}");
}

#[test]
fn closed_stdout_ends_quietly() {
    let dir = std::env::temp_dir().join(format!("smpatch-cli-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.json");
    let data: serde_json::Map<String, serde_json::Value> = (0..200_000)
        .map(|i| {
            (
                format!("key-{i}"),
                serde_json::Value::from(format!("value-{i}")),
            )
        })
        .collect();
    let doc = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "data": data});
    std::fs::write(&big, doc.to_string()).unwrap();
    for output in ["json", "yaml"] {
        let out = sh(&format!(
            "{{ \"$SMPATCH\" patch -f '{}' -p '{{}}' -o {output}; echo \"status=$?\" >&2; }} | head -c 100 > /dev/null",
            big.display()
        ));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim(), "status=0", "-o {output}: {err}");
    }
    let out = sh(
        "{ yes '{\"id\":1,\"op\":\"apply\",\"schema\":{\"none\":true}}' | head -n 200000 | \"$SMPATCH\" batch; echo \"status=$?\" >&2; } | head -n 1 > /dev/null",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim(), "status=0", "batch: {err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn nested(depth: usize, leaf: &str) -> String {
    format!("{}{leaf}{}", "{\"a\":".repeat(depth), "}".repeat(depth))
}

/// A free-form type (`x-kubernetes-preserve-unknown-fields`): nested objects merge.
const JSON_TYPE: &str = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON";

#[test]
fn max_depth_flag_is_honoured() {
    let (one, two) = (nested(500, "1"), nested(500, "2"));
    let run = |args: &[&str]| {
        smpatch()
            .args(args)
            .args(["--type-name", JSON_TYPE, "-f", "-", "-p", &two])
            .write_stdin(one.clone())
            .output()
            .unwrap()
    };
    let out = run(&["--max-depth", "1000", "patch"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("\"a\"").count(), 500);
    assert!(stdout.contains("\"a\": 2"), "the patch's leaf");
    let out = run(&["patch"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("[too_deep]"));
    // Also after the command name, and for diff.
    let dir = std::env::temp_dir().join(format!("smpatch-cli-depth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&a, &one).unwrap();
    std::fs::write(&b, &two).unwrap();
    let out = smpatch()
        .args(["diff", "--type-name", JSON_TYPE, "--max-depth", "1000"])
        .args([&a, &b])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("\"a\"")
            .count(),
        500
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_name_the_file_once_and_the_document() {
    let stream = "apiVersion: v1\nkind: ConfigMap\ndata: {a: '1'}\n---\n- not\n- an object\n";
    let out = smpatch()
        .args(["patch", "-f", "-", "-p", "{}"])
        .write_stdin(stream)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.starts_with("error: -: document 2 of 2: /: "), "{err}");
    assert!(err.contains("[invalid_document]"), "{err}");
    // An engine error in the second document.
    let stream = "apiVersion: v1\nkind: Pod\nspec: {containers: [{name: a}]}\n---\n\
                  apiVersion: v1\nkind: Pod\nspec: {containers: [{name: a}]}\n";
    let out = smpatch()
        .args([
            "patch",
            "-f",
            "-",
            "-p",
            r#"{"spec":{"containers":[{"image":"x"}]}}"#,
        ])
        .write_stdin(stream)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: -: document 1 of 2: /spec/containers/0: "),
        "{err}"
    );
    // A YAML syntax error: the file once, with line and column.
    let (code, _, stderr) = run(&["patch", "-f", DEPLOY, "--patch-file", "Cargo.toml"]);
    let err = stderr;
    assert_eq!(code, 1);
    assert_eq!(err.matches("Cargo.toml").count(), 1, "{err}");
}

#[test]
fn merge_and_json_types_keep_big_numbers() {
    let dir = std::env::temp_dir().join(format!("smpatch-cli-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&a, r#"{"n":123456789012345678901234567890,"f":1.50}"#).unwrap();
    std::fs::write(&b, r#"{"n":123456789012345678901234567891,"f":1.5}"#).unwrap();
    for (ty, expected) in [
        ("merge", "{\n    \"n\": 123456789012345678901234567891\n}\n"),
        (
            "json",
            "[\n    {\n        \"op\": \"replace\",\n        \"path\": \"/n\",\n        \"value\": 123456789012345678901234567891\n    }\n]\n",
        ),
    ] {
        let out = smpatch()
            .args(["diff", "--type", ty, "--exit-code"])
            .args([&a, &b])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
        // Equal big numbers are no difference.
        let out = smpatch()
            .args(["diff", "--type", ty, "--exit-code"])
            .args([&a, &a])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out = smpatch()
        .args(["patch", "--type", "merge", "-f"])
        .arg(&a)
        .args(["-p", r#"{"m":99999999999999999999999}"#])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"m\": 99999999999999999999999"));
    let out = smpatch()
        .args(["patch", "--type", "json", "-f"])
        .arg(&a)
        .args(["-p", r#"[{"op":"test","path":"/n","value":1}]"#])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: --patch: /0: test failed"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `args` with `stdin`; checks status, stdout against
/// `crates/cli/testdata/<file>` (none: empty) and stderr against `stderr`.
fn check_stdin_both(args: &[&str], stdin: &str, status: i32, file: Option<&str>, stderr: &str) {
    let out = smpatch().args(args).write_stdin(stdin).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(status), "smpatch {args:?}: {err}");
    let want = file.map(expected).unwrap_or_default();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        want,
        "smpatch {args:?}"
    );
    assert_eq!(err, stderr, "smpatch {args:?}");
}

const INPUT_DIR: &str = "crates/cli/testdata/input";

#[test]
fn patch_reads_a_directory_and_expands_lists() {
    // *.json, *.yaml, *.yml in name order; notes.txt and sub/ skipped;
    // the `kind: List` document stands for its two items.
    check(
        &[
            "patch",
            "-f",
            INPUT_DIR,
            "-p",
            r#"{"data":{"k":"v"}}"#,
            "-o",
            "yaml",
        ],
        0,
        "patch-dir.yaml",
    );
}

#[test]
fn patch_recursive_and_several_files() {
    check(
        &[
            "patch",
            "-R",
            "-f",
            "crates/cli/testdata/input/sub",
            "-f",
            "crates/cli/testdata/input/b.json",
            "-p",
            r#"{"data":{"k":"v"}}"#,
        ],
        0,
        "patch-recursive.json",
    );
    // Without -R a directory's subdirectories are skipped: sub/ holds d and e.
    let out = smpatch()
        .args(["patch", "-f", INPUT_DIR, "-p", "{}", "-o", "yaml"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("name: d"));
    let (_, stdout, _) = run(&["patch", "-R", "-f", INPUT_DIR, "-p", "{}", "-o", "yaml"]);
    let text = stdout;
    assert_eq!(text.matches("kind: ConfigMap").count(), 6, "{text}");
}

#[test]
fn patch_reports_every_failure_and_every_result() {
    check_stdin_both(
        &[
            "patch",
            "-f",
            "crates/cli/testdata/input-errors.yaml",
            "-f",
            "nope.yaml",
            "-p",
            r#"{"spec":{"containers":[{"name":"a","image":"z"}]}}"#,
            "-o",
            "yaml",
        ],
        "",
        1,
        Some("patch-partial.yaml"),
        &expected("patch-partial.stderr"),
    );
}

#[test]
fn empty_input_and_empty_patch_are_errors() {
    check_stdin_both(
        &["patch", "-f", "-", "-p", "{}"],
        "",
        1,
        None,
        "error: no objects passed to patch\n",
    );
    check_stdin_both(
        &["patch", "-f", "-", "-p", "{}"],
        "---\n# nothing\n---\n",
        1,
        None,
        "error: no objects passed to patch\n",
    );
    check_stdin_both(
        &["patch", "-f", INPUT_DIR, "-p", " "],
        "",
        1,
        None,
        "error: --patch: the patch is empty: give its contents with -p or --patch-file\n",
    );
    check_stdin_both(
        &["patch", "-f", INPUT_DIR, "--patch-file", "/dev/null"],
        "",
        1,
        None,
        "error: /dev/null: the patch is empty: give its contents with -p or --patch-file\n",
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["patch"][..],
        &["bogus"],
        &["diff", DEPLOY],
        &["patch", "-f", DEPLOY, "-p", "{}", "--type", "nope"],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, 2, "smpatch {args:?}");
        assert!(stderr.starts_with("error: "));
    }
}

#[test]
fn diff_refuses_different_objects_unless_forced() {
    let other = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n";
    for (flags, status) in [(&[][..], 1), (&["--exit-code"][..], 2)] {
        let out = smpatch()
            .args(["diff", DEPLOY, "-"])
            .args(flags)
            .write_stdin(other)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(status));
        assert!(out.stdout.is_empty());
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "error: -: the documents are different objects (Deployment/web and \
             ConfigMap/other); pass --force to diff them anyway\n"
        );
    }
    let out = smpatch()
        .args(["diff", DEPLOY, "-", "--force", "--exit-code"])
        .write_stdin(other)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn sort_keys_prints_like_kubectl() {
    // patch-sorted.json is byte for byte what
    // `kubectl patch --local -f DEPLOY -p '{"spec":{"replicas":2}}' -o json` prints.
    check(
        &[
            "patch",
            "-f",
            DEPLOY,
            "-p",
            r#"{"spec":{"replicas":2}}"#,
            "--sort-keys",
        ],
        0,
        "patch-sorted.json",
    );
    check(
        &["diff", DEPLOY, DEPLOY2, "--sort-keys"],
        0,
        "diff-sorted.json",
    );
}

#[test]
fn version_names_the_embedded_kubernetes_schema() {
    let out = smpatch().arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "smpatch {} (Kubernetes {} API schema embedded)\n",
            env!("CARGO_PKG_VERSION"),
            smpatch_schema::EMBEDDED_VERSION
        )
    );
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let (code, stdout, _) = run(&["completions", shell]);
        assert_eq!(code, 0, "{shell}");
        let script = stdout;
        for word in [
            "explain",
            "patch",
            "diff",
            "completions",
            "sort-keys",
            "recursive",
        ] {
            assert!(script.contains(word), "{shell} completion names {word}");
        }
    }
    // The bash script is valid bash.
    let out = smpatch().args(["completions", "bash"]).output().unwrap();
    let check = std::process::Command::new("bash")
        .args(["-n", "-c"])
        .arg(String::from_utf8_lossy(&out.stdout).as_ref())
        .output();
    if let Ok(check) = check {
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
    let (code, _, _) = run(&["completions", "tcsh"]);
    assert_eq!(code, 2);
}

const WIDGET_CRD: &str = "crates/cli/testdata/crd-widget.yaml";

#[test]
fn explain_takes_kinds_plurals_and_short_names() {
    check(
        &["explain", "deploy", "spec.template.spec.containers"],
        0,
        "explain-deploy-containers.txt",
    );
    for (word, gvk) in [
        ("Deployment", "(apps/v1/Deployment)"),
        ("deployments", "(apps/v1/Deployment)"),
        ("svc", "(v1/Service)"),
        ("po", "(v1/Pod)"),
        ("cm", "(v1/ConfigMap)"),
        ("ns", "(v1/Namespace)"),
        ("sts", "(apps/v1/StatefulSet)"),
        ("ds", "(apps/v1/DaemonSet)"),
        ("rs", "(apps/v1/ReplicaSet)"),
        ("ing", "(networking.k8s.io/v1/Ingress)"),
        ("pvc", "(v1/PersistentVolumeClaim)"),
        ("pv", "(v1/PersistentVolume)"),
        ("sa", "(v1/ServiceAccount)"),
        ("cj", "(batch/v1/CronJob)"),
        ("hpa", "(autoscaling/v2/HorizontalPodAutoscaler)"),
        ("Event", "(v1/Event)"),
    ] {
        let (code, stdout, _) = run(&["explain", word]);
        assert_eq!(code, 0, "{word}");
        let text = stdout;
        assert!(
            text.lines().next().unwrap().ends_with(gvk),
            "{word}: {text}"
        );
    }
    let (code, _, _) = run(&["explain", "nope"]);
    assert_eq!(code, 1);
}

#[test]
fn explain_suggests_the_field_meant() {
    let (code, _, stderr) = run(&["explain", "deploy", "spec.template.spec.contaners"]);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "error: spec.template.spec.contaners: no field \"contaners\" in \
         io.k8s.api.core.v1.PodSpec; did you mean \"containers\"? [unknown_field]\n"
    );
    // Nothing close: no suggestion.
    let (_, _, stderr) = run(&["explain", "deploy", "spec.xyzzy"]);
    assert!(!stderr.contains("did you mean"));
}

/// `explain` shows what `patch` does with a CRD: `list-type: map` lists
/// merge by their keys, `list-type: set` lists as sets, other lists are
/// replaced, and an `x-kubernetes-map-type: atomic` map merges key by key
/// (docs/DIVERGENCES.md); patch-widget.yaml shows the same merge done.
#[test]
fn explain_and_patch_agree_on_crd_strategies() {
    check(
        &["explain", "--schema", WIDGET_CRD, "Widget", "spec"],
        0,
        "explain-widget-spec.txt",
    );
    check(
        &[
            "explain",
            "--schema",
            WIDGET_CRD,
            "widgets",
            "spec.selector",
        ],
        0,
        "explain-widget-selector.txt",
    );
    check(
        &[
            "patch",
            "--schema",
            WIDGET_CRD,
            "-f",
            "crates/cli/testdata/widget.yaml",
            "-p",
            r#"{"spec":{"selector":{"c":"3"},"ports":[{"port":80,"protocol":"UDP"}],"tags":["y"],"steps":["s2"]}}"#,
            "-o",
            "yaml",
        ],
        0,
        "patch-widget.yaml",
    );
}

#[test]
fn explain_follows_compound_keys() {
    let (_, stdout, _) = run(&["explain", "svc", "spec.ports", "--compound-keys"]);
    let text = stdout;
    assert!(
        text.contains("MERGE:      merge by [port,protocol]\n"),
        "{text}"
    );
    let (_, stdout, _) = run(&["explain", "svc", "spec.ports"]);
    let text = stdout;
    assert!(text.contains("MERGE:      merge by port\n"), "{text}");
}

#[test]
fn one_document_expected_says_so_once() {
    let out = smpatch()
        .args(["diff", "-", DEPLOY])
        .write_stdin("a: 1\n---\nb: 2\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: -: expected one document, found 2 [invalid_document]\n"
    );
    // A YAML syntax error says YAML and names the file once.
    let (_, _, stderr) = run(&["patch", "-f", DEPLOY, "-p", "a: [1,"]);
    let err = stderr;
    assert!(
        err.starts_with("error: --patch:1:7: invalid YAML: "),
        "{err}"
    );
    assert_eq!(err.matches("--patch").count(), 1, "{err}");
}

#[test]
fn json_patch_failures_name_each_object() {
    check_stdin_both(
        &[
            "patch",
            "-f",
            INPUT_DIR,
            "--type",
            "json",
            "-p",
            r#"[{"op":"test","path":"/metadata/name","value":"b"}]"#,
            "-o",
            "yaml",
        ],
        "",
        1,
        Some("patch-json-failures.yaml"),
        "error: crates/cli/testdata/input/a.yaml: --patch: /0: test failed: the value at \"/metadata/name\" differs [json_patch_failed]\n\
         error: crates/cli/testdata/input/c-list.yml: item 0: --patch: /0: test failed: the value at \"/metadata/name\" differs [json_patch_failed]\n\
         error: crates/cli/testdata/input/c-list.yml: item 1: --patch: /0: test failed: the value at \"/metadata/name\" differs [json_patch_failed]\n",
    );
}

#[test]
fn schema_parse_errors_give_the_position_once() {
    check_stdin_both(
        &[
            "patch",
            "-f",
            DEPLOY,
            "--schema",
            "crates/cli/testdata/bad-schema.yaml",
            "-p",
            "{}",
        ],
        "",
        1,
        None,
        "error: crates/cli/testdata/bad-schema.yaml:2:1: /a/1: invalid YAML: while parsing a \
         node, did not find expected node content [parse]\n",
    );
}

/// A document of a kind no schema defines: the error names the flags that
/// fix it (a newcomer's first custom resource), and passing the CRD works.
#[test]
fn unknown_kind_names_the_fix() {
    let widget = "crates/cli/testdata/widget.yaml";
    let (code, out, err) = run(&["patch", "-f", widget, "-p", "{}"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with(
            "error: crates/cli/testdata/widget.yaml: /: no schema for apiVersion \"example.com/v1\", \
             kind \"Widget\""
        ),
        "{err}"
    );
    assert!(err.contains("--schema FILE"), "{err}");
    assert!(err.contains("--type-name"), "{err}");
    assert!(err.trim_end().ends_with("[unknown_type]"), "{err}");
    let (code, out, err) = run(&[
        "patch",
        "-f",
        widget,
        "--schema",
        "crates/cli/testdata/crd-widget.yaml",
        "-p",
        r#"{"spec":{"ports":[{"port":80,"protocol":"TCP","name":"web"}]}}"#,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"name\": \"web\""), "{out}");
}

/// `--help` ends with examples and where to read more; `batch --help`
/// states the protocol and `apply --help` the three documents.
#[test]
fn help_shows_examples_and_protocols() {
    let (code, help, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(help.contains("Examples"), "{help}");
    assert!(help.contains("docs/ERRORS.md"), "{help}");
    let (code, help, _) = run(&["batch", "--help"]);
    assert_eq!(code, 0);
    for s in ["\"op\"", "\"ok\"", "\"error\"", "Batch mode"] {
        assert!(help.contains(s), "batch --help lacks {s}: {help}");
    }
    let (code, help, _) = run(&["apply", "--help"]);
    assert_eq!(code, 0);
    assert!(help.contains("last-applied-configuration"), "{help}");
}

/// The example in `batch --help` runs as printed.
#[test]
fn batch_help_example_runs() {
    let (_, help, _) = run(&["batch", "--help"]);
    let line = help
        .lines()
        .find_map(|l| l.trim().strip_prefix("echo '"))
        .and_then(|l| l.split("' | smpatch batch").next())
        .expect("batch --help has an echo example");
    let out = smpatch()
        .arg("batch")
        .write_stdin(format!("{line}\n"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"id\":1,\"ok\":{\"data\":{\"a\":\"1\",\"b\":\"2\"}}}\n"
    );
}

/// A JSON patch (a list) passed as the default strategic patch: the error
/// names `--type json`, and with it the same patch applies.
#[test]
fn list_patch_without_type_json_names_the_flag() {
    let ops = r#"[{"op":"replace","path":"/spec/replicas","value":1}]"#;
    let (code, out, err) = run(&["patch", "-f", DEPLOY, "-p", ops]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(
        err,
        "error: --patch: the document must be an object, found list (a list of operations \
         is an RFC 6902 JSON patch: pass --type json) [invalid_document]\n"
    );
    let (code, out, err) = run(&["patch", "-f", DEPLOY, "-p", ops, "--type", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"replicas\": 1"), "{out}");
}

/// `--type merge` as kubectl does it (differential finding): a patch that
/// is not an object is refused (kubectl: `Invalid JSON Patch` / `cannot
/// unmarshal array`), and null members of objects inside a list stored
/// where the document had no object are dropped.
#[test]
fn merge_patch_follows_kubectl() {
    for p in ["[]", "3", "\"s\""] {
        let (code, out, err) = run(&["patch", "-f", DEPLOY, "--type", "merge", "-p", p]);
        assert_eq!(code, 1, "{p}: {err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.starts_with("error: --patch: a merge patch must be an object, found "),
            "{err}"
        );
    }
    let p = r#"{"spec":{"replicas":[null,{"a":null,"b":1}],"x":{"y":[{"z":null}]}}}"#;
    let (code, out, err) = run(&[
        "patch", "-f", DEPLOY, "--type", "merge", "-p", p, "-o", "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["spec"]["replicas"], serde_json::json!([null, {"b": 1}]));
    assert_eq!(v["spec"]["x"], serde_json::json!({"y": [{}]}));
}

/// `patch` without a patch: the usage error names both ways to give one.
#[test]
fn missing_patch_names_both_flags() {
    let (code, out, err) = run(&["patch", "-f", DEPLOY]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("--patch <PATCH>|--patch-file <FILE>"), "{err}");
    let (code, _, err) = run(&[
        "patch",
        "-f",
        DEPLOY,
        "-p",
        "{}",
        "--patch-file",
        "testdata/examples/patch.yaml",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
}
