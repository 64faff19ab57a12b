//! `smpatch apply --type merge`: the three-way JSON merge patch (RFC 7386)
//! `kubectl apply` computes for custom resources and every kind it has no
//! Go type for (kubernetes/kubernetes#58414).

#![allow(clippy::unwrap_used)] // tests may unwrap (clippy.toml: allow-unwrap-in-tests)

mod common;
use common::{expected, run};
use serde_json::{json, Value as J};

const LIVE: &str = "crates/cli/testdata/widget-live.yaml";
const MANIFEST: &str = "crates/cli/testdata/widget-v2.yaml";
const CRD: &str = "crates/cli/testdata/crd-widget.yaml";

#[test]
fn merge_type_applies_a_custom_resource_without_a_schema() {
    let (code, stdout, stderr) = run(&[
        "apply", "--type", "merge", "-f", MANIFEST, "--live", LIVE, "-o", "yaml",
    ]);
    assert_eq!(
        (code, stderr.as_str()),
        (0, "widget.example.com/w configured\n")
    );
    // `selector.b` and `tags` left the manifest: deleted; `selector.zone`,
    // `status` only the live object has: kept; `ports` replaced whole (the
    // live-only `metrics` port is gone).
    assert_eq!(stdout, expected("apply-merge-widget.yaml"));
}

#[test]
fn merge_type_shows_kubectls_patch() {
    let (code, stdout, _) = run(&[
        "apply",
        "--type",
        "merge",
        "-f",
        MANIFEST,
        "--live",
        LIVE,
        "--show-patch",
    ]);
    assert_eq!(code, 0);
    let mut patch: J = serde_json::from_str(&stdout).unwrap();
    let annotation = patch["metadata"]["annotations"]
        .as_object_mut()
        .unwrap()
        .remove("kubectl.kubernetes.io/last-applied-configuration")
        .unwrap();
    assert!(annotation
        .as_str()
        .unwrap()
        .ends_with("\"selector\":{\"a\":\"1\"}}}\n"));
    assert_eq!(
        patch,
        json!({"metadata": {"annotations": {}},
            "spec": {"tags": null, "selector": {"b": null},
                "ports": [{"port": 8080, "protocol": "TCP", "name": "http"}]}})
    );
    // Applied again to its own result: unchanged, empty patch.
    let (_, merged, _) = run(&["apply", "--type", "merge", "-f", MANIFEST, "--live", LIVE]);
    let dir = std::env::temp_dir().join(format!("smpatch-apply-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let again = dir.join("live.json");
    std::fs::write(&again, merged).unwrap();
    let again = again.to_str().unwrap();
    let (code, stdout, stderr) = run(&[
        "apply",
        "--type",
        "merge",
        "-f",
        MANIFEST,
        "--live",
        again,
        "--show-patch",
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 0);
    assert_eq!(stdout, "{}\n");
    assert!(
        stderr.starts_with("widget.example.com/w unchanged"),
        "{stderr}"
    );
}

#[test]
fn strategic_is_the_default_and_names_the_merge_type_without_a_schema() {
    let (code, stdout, stderr) = run(&["apply", "-f", MANIFEST, "--live", LIVE]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert!(
        stderr.ends_with(
            "or use --type merge, which needs no schema (the three-way JSON merge patch kubectl \
         applies custom resources with) [unknown_type]\n"
        ),
        "{stderr}"
    );
    let explicit = run(&[
        "apply",
        "--type",
        "strategic",
        "-f",
        MANIFEST,
        "--live",
        LIVE,
    ]);
    assert_eq!(explicit, (code, stdout, stderr));
}

#[test]
fn merge_and_strategic_differ_on_a_crds_keyed_list() {
    // With its CRD, the strategic flow merges `ports` by its list-map keys
    // (the live-only port stays); kubectl replaces the list.
    let ports = |args: &[&str]| {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 0, "{stderr}");
        let v: J = serde_json::from_str(&stdout).unwrap();
        v["spec"]["ports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["port"].clone())
            .collect::<Vec<_>>()
    };
    let base = ["apply", "-f", MANIFEST, "--live", LIVE, "--schema", CRD];
    let strategic = ports(&base);
    assert!(strategic.contains(&json!(9090)), "{strategic:?}");
    let merge = ports(&[&base[..], &["--type", "merge"]].concat());
    assert_eq!(merge, [json!(8080)]);
}

#[test]
fn json_patch_is_no_apply_type() {
    let (code, _, stderr) = run(&["apply", "--type", "json", "-f", MANIFEST, "--live", LIVE]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("[possible values: strategic, merge, auto]"),
        "{stderr}"
    );
    let (code, help, _) = run(&["apply", "--help"]);
    assert_eq!(code, 0);
    assert!(help.contains("smpatch apply --type merge -f crates/cli/testdata/widget-v2.yaml"));
    assert!(help.contains("kubernetes/kubernetes#58414"));
}

/// Differential: the merged object equals `kubectl patch --local --type
/// merge` of the live object with the patch smpatch computed (the API
/// server's merge of it). Skipped without kubectl on PATH.
#[test]
fn merged_object_equals_kubectls_merge_of_the_patch() {
    let Ok(probe) = std::process::Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
    else {
        eprintln!("kubectl not on PATH: differential skipped");
        return;
    };
    assert!(probe.status.success());
    let (_, patch, _) = run(&[
        "apply",
        "--type",
        "merge",
        "-f",
        MANIFEST,
        "--live",
        LIVE,
        "--show-patch",
    ]);
    let (_, ours, _) = run(&["apply", "--type", "merge", "-f", MANIFEST, "--live", LIVE]);
    let out = std::process::Command::new("kubectl")
        .current_dir(common::root())
        .args([
            "patch", "--local", "--type", "merge", "-o", "json", "-f", LIVE, "-p", &patch,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: J = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(serde_json::from_str::<J>(&ours).unwrap(), theirs);
}

/// Differential of the three-way patch itself against `kubectl apply`,
/// which computes it only while talking to an API server: the script runs
/// a fake one that records the patch kubectl sends
/// (`tests/kubectl/apply_merge_differential.py`). Skipped without kubectl
/// or python3 on PATH.
#[test]
fn three_way_patch_equals_kubectl_apply_against_a_fake_server() {
    let has = |cmd: &str, arg: &str| {
        std::process::Command::new(cmd)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has("kubectl", "help") || !has("python3", "--version") {
        eprintln!("kubectl or python3 not on PATH: differential skipped");
        return;
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kubectl/apply_merge_differential.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_smpatch"))
        .arg("60")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains(": 60 agree ("), "{report}");
}

#[test]
fn auto_type_chooses_per_object_as_kubectl_does() {
    // A Deployment (built in: strategic, the sidecar only the live object
    // has stays) and a Widget (no Go type in kubectl: JSON merge patch, the
    // live-only port goes), in one manifest.
    let args = [
        "apply",
        "--type",
        "auto",
        "-f",
        "crates/cli/testdata/apply-auto-manifest.yaml",
        "--live",
        "crates/cli/testdata/apply-auto-live.yaml",
    ];
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        "deployment.apps/web configured\nwidget.example.com/w configured\n"
    );
    let docs: Vec<J> = serde_json::Deserializer::from_str(&stdout)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let names: Vec<&J> = docs[0]["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["name"])
        .collect();
    assert_eq!(names, [&json!("web"), &json!("sidecar")]);
    assert_eq!(
        docs[1]["spec"]["ports"],
        json!([{"port": 8080, "protocol": "TCP", "name": "http"}])
    );
    // The patches: a strategic one (with its directive), a merge one.
    let (_, patches, _) = run(&[&args[..], &["--show-patch"]].concat());
    let patches: Vec<J> = serde_json::Deserializer::from_str(&patches)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert!(patches[0]["spec"]["template"]["spec"]
        .get("$setElementOrder/containers")
        .is_some());
    assert_eq!(
        patches[1]["spec"],
        json!({"ports": [{"port": 8080, "protocol": "TCP", "name": "http"}]})
    );
}
