//! The field-set commands (`smpatch fields`, `extract`, `owners`) and the
//! batch ops `fields` / `extract`, against expected output in
//! `crates/cli/testdata/` (regenerate a file by running the command in its test).

mod common;

use common::{expected, run, smpatch};

/// Runs `args` and checks that it succeeds with the expected stdout.
fn check(args: &[&str], file: &str) {
    common::check(args, 0, file);
}

const LIVE: &str = "crates/cli/testdata/fields-live.yaml";

#[test]
fn fields_json_and_paths() {
    check(&["fields", "-f", LIVE], "fields-live.json");
    check(&["fields", "-f", LIVE, "-o", "paths"], "fields-live.paths");
}

#[test]
fn extract_yaml_default_json_and_subresource() {
    check(
        &["extract", "-f", LIVE, "--manager", "orders-operator"],
        "extract-orders-operator.yaml",
    );
    check(
        &[
            "extract",
            "-f",
            LIVE,
            "--manager",
            "scaler",
            "--subresource",
            "status",
            "-o",
            "json",
        ],
        "extract-scaler-status.json",
    );
}

#[test]
fn extract_output_is_a_valid_apply_configuration() {
    // Its own field set is within the manager's entry (the subset law).
    let out = smpatch()
        .args([
            "extract",
            "-f",
            LIVE,
            "--manager",
            "orders-operator",
            "-o",
            "json",
        ])
        .output()
        .expect("runs");
    let fields = smpatch()
        .args(["fields", "-f", "-"])
        .write_stdin(out.stdout)
        .output()
        .expect("runs");
    let got = String::from_utf8_lossy(&fields.stdout).trim().to_owned();
    let entry = r#"{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"orders\"}":{".":{},"f:args":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":8081,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}}}}}}"#;
    assert_eq!(got, entry);
}

#[test]
fn extract_unknown_manager_is_an_error_naming_it() {
    let out = smpatch()
        .args([
            "extract",
            "-f",
            LIVE,
            "--manager",
            "kube-controller-manager",
            "--subresource",
            "status",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"kube-controller-manager\"") && err.contains("[no_apply_entry]"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    // client-go's behaviour on request: identity fields only.
    let (code, stdout, _) = run(&[
        "extract",
        "-f",
        LIVE,
        "--manager",
        "nobody",
        "--reference",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(
        v,
        serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "orders", "namespace": "shop-eu"}})
    );
}

#[test]
fn extract_strict_api_version() {
    let live = expected("fields-live.yaml").replace(
        "apiVersion: \"apps/v1\"\n      time",
        "apiVersion: \"apps/v1beta2\"\n      time",
    );
    let out = smpatch()
        .args([
            "extract",
            "-f",
            "-",
            "--manager",
            "mesh-injector",
            "--strict-api-version",
        ])
        .write_stdin(live.clone())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("[api_version_mismatch]"));
    let out = smpatch()
        .args(["extract", "-f", "-", "--manager", "mesh-injector"])
        .write_stdin(live)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn owners_table() {
    check(&["owners", "-f", LIVE], "owners-live.txt");
}

#[test]
fn malformed_managed_fields_name_the_entry() {
    let live = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  managedFields:\n  - manager: a\n    operation: Apply\n    fieldsV1: {\"f:data\": {\"xy\": {}}}\n";
    let out = smpatch()
        .args(["owners", "-f", "-"])
        .write_stdin(live)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/metadata/managedFields/0/fieldsV1")
            && err.contains("entry 0")
            && err.contains("missing colon"),
        "{err}"
    );
}

#[test]
fn batch_fields_and_extract() {
    let requests = concat!(
        r#"{"id":1,"op":"fields","object":{"apiVersion":"v1","kind":"Service","spec":{"ports":[{"port":80,"protocol":"TCP"}]}}}"#,
        "\n",
        r#"{"id":2,"op":"fields","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":"1"}},"options":{"shape":"update"}}"#,
        "\n",
        r#"{"id":3,"op":"extract","manager":"me","object_text":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  generation: 12345678901234567890\n  managedFields:\n  - {manager: me, operation: Apply, apiVersion: v1, fieldsV1: {\"f:data\": {\"f:x\": {}}}}\ndata: {x: \"1\", y: \"2\"}\n"}"#,
        "\n",
        r#"{"id":4,"op":"extract","manager":"you","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}},"options":{"missing_entry":"identity"}}"#,
        "\n",
        r#"{"id":5,"op":"extract","object":{"apiVersion":"v1","kind":"ConfigMap"}}"#,
        "\n",
        r#"{"id":6,"op":"fields","object":{"apiVersion":"v1","kind":"ConfigMap","bogus":1}}"#,
        "\n",
        r#"{"id":7,"op":"fields","object":{"apiVersion":"v1","kind":"ConfigMap"},"options":{"shape":"mine"}}"#,
        "\n",
    );
    let out = smpatch()
        .arg("batch")
        .write_stdin(requests)
        .output()
        .expect("runs");
    let got = String::from_utf8_lossy(&out.stdout);
    let want = concat!(
        r#"{"id":1,"ok":{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{}}}}}}"#,
        "\n",
        r#"{"id":2,"ok":{"f:data":{".":{},"f:x":{}}}}"#,
        "\n",
        r#"{"id":3,"ok":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":"1"}}}"#,
        "\n",
        r#"{"id":4,"ok":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}}"#,
        "\n",
        r#"{"id":5,"error":{"kind":"invalid_request","path":"","message":"the request has no \"manager\""}}"#,
        "\n",
        r#"{"id":6,"error":{"kind":"schema_mismatch","path":"/object/bogus","message":"field not declared in schema (io.k8s.api.core.v1.ConfigMap)"}}"#,
        "\n",
        r#"{"id":7,"error":{"kind":"invalid_request","path":"/options/shape","message":"unknown shape \"mine\"; expected apply or update"}}"#,
        "\n",
    );
    assert_eq!(got, want);
}

/// `owners` on an object without managedFields prints the header and says
/// on stderr why nothing is listed (and how kubectl shows the field).
#[test]
fn owners_without_managed_fields_says_why() {
    let (code, out, err) = run(&["owners", "-f", "testdata/examples/live.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "PATH  MANAGERS\n");
    assert_eq!(
        err,
        "note: testdata/examples/live.yaml: no field manager owns anything (no \
         metadata.managedFields; kubectl prints them with `kubectl get -o yaml \
         --show-managed-fields`)\n"
    );
}

/// A label key holding a newline (or a backslash, a tab) is one path per
/// line in `fields -o paths` and in `owners`: the field name is escaped as
/// in a JSON string; `k:` elements are JSON already and stay as they were.
#[test]
fn paths_escape_newlines_and_backslashes_in_field_names() {
    let doc = r#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","labels":{"a\nb":"1","c\\d":"2","e\tf":"3"}},"spec":{"ports":[{"port":80,"protocol":"TCP","name":"x\ny"}]}}"#;
    let out = smpatch()
        .args(["fields", "-f", "-", "-o", "paths"])
        .write_stdin(doc)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let got = String::from_utf8_lossy(&out.stdout);
    let want = concat!(
        "f:metadata.f:labels.f:a\\nb\n",
        "f:metadata.f:labels.f:c\\\\d\n",
        "f:metadata.f:labels.f:e\\tf\n",
        "f:spec.f:ports.k:{\"port\":80,\"protocol\":\"TCP\"}\n",
        "f:spec.f:ports.k:{\"port\":80,\"protocol\":\"TCP\"}.f:name\n",
        "f:spec.f:ports.k:{\"port\":80,\"protocol\":\"TCP\"}.f:port\n",
        "f:spec.f:ports.k:{\"port\":80,\"protocol\":\"TCP\"}.f:protocol\n",
    );
    assert_eq!(got, want);
    // The JSON output is the FieldsV1 encoding itself (the key, escaped by JSON).
    let json = smpatch()
        .args(["fields", "-f", "-"])
        .write_stdin(doc)
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&json.stdout).contains(r#""f:a\nb":{}"#));
    let live = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":"m","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a\nb":{}}}}]},"data":{"a\nb":"1"}}"#;
    let owners = smpatch()
        .args(["owners", "-f", "-"])
        .write_stdin(live)
        .output()
        .expect("runs");
    assert_eq!(owners.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&owners.stdout),
        "PATH           MANAGERS\nf:data.f:a\\nb  m (Apply)\n"
    );
}

/// `extract --include-key-fields` (batch `include_key_fields`, Python
/// `include_key_fields=True`): a container whose `image` alone the manager
/// owns keeps its `name`, so the configuration can be applied as it is.
#[test]
fn extract_include_key_fields() {
    let live = r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","managedFields":[{"manager":"img","operation":"Apply","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{"f:image":{}}}}}}}}]},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"web","image":"nginx","ports":[{"containerPort":80}]}]}}}}"#;
    let containers = |extra: &[&str]| {
        let mut args = vec!["extract", "-f", "-", "--manager", "img", "-o", "json"];
        args.extend_from_slice(extra);
        let out = smpatch()
            .args(&args)
            .write_stdin(live)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        v["spec"]["template"]["spec"]["containers"].clone()
    };
    assert_eq!(containers(&[]), serde_json::json!([{"image": "nginx"}]));
    assert_eq!(
        containers(&["--include-key-fields"]),
        serde_json::json!([{"name": "web", "image": "nginx"}])
    );
}
