//! `smpatch batch` through the binary: the session's `--max-depth` (default
//! and ceiling of every request's depth limit) and the `patch_type` option
//! of `apply` and `create3` (the names and meaning of `smpatch apply
//! --type`: strategic, merge, auto).

mod common;

use common::smpatch;
use serde_json::{json, Value};

/// Runs `smpatch batch ARGS` on `requests` (one per line): the response
/// lines (kept as text: serde_json reads neither big integers exactly nor
/// documents deeper than 128 levels).
fn batch(args: &[&str], requests: &[Value]) -> Vec<String> {
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let out = smpatch()
        .arg("batch")
        .args(args)
        .write_stdin(input)
        .output()
        .expect("smpatch runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let responses: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(responses.len(), requests.len(), "one response per request");
    responses
}

fn one(args: &[&str], request: Value) -> String {
    batch(args, &[request]).remove(0)
}

/// A response as JSON (for shallow answers).
fn parsed(response: &str) -> Value {
    serde_json::from_str(response).unwrap_or_else(|e| panic!("{e}: {response}"))
}

fn is_ok(response: &str) -> bool {
    response.starts_with(r#"{"id":1,"ok":"#)
}

/// `{"a": {"a": … {}}}` with `levels` objects below the root.
fn nested(levels: usize) -> Value {
    (0..levels).fold(json!({}), |inner, _| json!({ "a": inner }))
}

/// An apply request whose patch is `patch` (the engine walks all of it).
fn apply_request(patch: Value, options: Value) -> Value {
    json!({"id": 1, "op": "apply", "schema": {"none": true},
           "original": {}, "patch": patch, "options": options})
}

/// The error kind and path of a response.
fn error_of(response: &str) -> (String, String) {
    let v = parsed(response);
    let e = &v["error"];
    (
        e["kind"]
            .as_str()
            .unwrap_or_else(|| panic!("an error: {response}"))
            .to_owned(),
        e["path"].as_str().unwrap_or_default().to_owned(),
    )
}

#[test]
fn max_depth_flag_is_every_requests_default() {
    // Without the flag: the default of 256.
    let ok = one(&[], apply_request(nested(255), json!({})));
    assert!(is_ok(&ok), "{ok}");
    let deep = one(&[], apply_request(nested(300), json!({})));
    assert!(!is_ok(&deep), "{deep}");
    // --max-depth 10: a document at the limit passes, one level more is
    // the engine's too_deep error at the document's path, as a request's
    // own options.max_depth of 10 gives it.
    let args = ["--max-depth", "10"];
    {
        let ok = one(&args, apply_request(nested(9), json!({})));
        assert!(is_ok(&ok), "{ok}");
        let flag = one(&args, apply_request(nested(10), json!({})));
        let own = one(&[], apply_request(nested(10), json!({"max_depth": 10})));
        assert_eq!(error_of(&flag).0, "too_deep", "{flag}");
        assert_eq!(flag, own, "the flag is the request's default");
    }
    // Raised above the default: deep documents pass without options.
    let ok = one(
        &["--max-depth", "400"],
        apply_request(nested(350), json!({})),
    );
    assert!(is_ok(&ok), "{ok}");
}

#[test]
fn max_depth_flag_is_the_ceiling_of_a_requests_own_limit() {
    let args = ["--max-depth", "10"];
    // Lower is fine and holds.
    let lower = one(&args, apply_request(nested(6), json!({"max_depth": 5})));
    assert_eq!(error_of(&lower).0, "too_deep", "{lower}");
    let equal = one(&args, apply_request(nested(9), json!({"max_depth": 10})));
    assert!(is_ok(&equal), "{equal}");
    // Above the flag: refused, naming the option and the limit.
    let above = one(&args, apply_request(json!({}), json!({"max_depth": 11})));
    assert_eq!(
        error_of(&above),
        (
            "invalid_request".to_owned(),
            "/options/max_depth".to_owned()
        ),
        "{above}"
    );
    let above = parsed(&above);
    let message = above["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("10") && message.contains("--max-depth"),
        "{message}"
    );
    // Also for a request line deeper than the default parse allows.
    let deep = one(&args, apply_request(nested(400), json!({"max_depth": 500})));
    assert_eq!(error_of(&deep).0, "invalid_request", "{deep}");
    // Without the flag a request may raise its own limit (unchanged).
    let raised = one(&[], apply_request(nested(400), json!({"max_depth": 500})));
    assert!(is_ok(&raised), "{raised}");
    // Every op takes the default: each answers under the flag what it
    // answers with its own options.max_depth of 10.
    let create3 = |options| {
        json!({"id": 2, "op": "create3", "schema": {"none": true},
        "original": {}, "modified": nested(12), "current": {}, "options": options})
    };
    let normalize = |options| {
        json!({"id": 3, "op": "normalize", "schema": {"none": true},
        "new": nested(12), "options": options})
    };
    let ten = json!({"max_depth": 10});
    let by_flag = batch(&args, &[create3(json!({})), normalize(json!({}))]);
    let by_option = batch(&[], &[create3(ten.clone()), normalize(ten)]);
    assert_eq!(by_flag, by_option);
    assert_eq!(error_of(&by_flag[0]).0, "too_deep");
    // `fields` has no max_depth option: the flag is its limit.
    let fields = json!({"id": 1, "op": "fields", "schema": {"none": true},
        "object": nested(12)});
    assert_eq!(error_of(&one(&args, fields.clone())).0, "too_deep");
    assert!(is_ok(&one(&[], fields)));
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget",
           "metadata": {"name": "w"}, "spec": spec})
}

fn create3(options: Value) -> Value {
    json!({"id": "c3", "op": "create3",
        "original": widget(json!({"a": 1, "tags": ["x"]})),
        "modified": widget(json!({"tags": ["y"]})),
        "current": widget(json!({"a": 1, "b": 2, "tags": ["x", "z"]})),
        "options": options})
}

#[test]
fn create3_patch_type_merge_is_kubectls_three_way_json_merge_patch() {
    let want = json!({"spec": {"a": null, "tags": ["y"]}});
    let merge = parsed(&one(&[], create3(json!({"patch_type": "merge"}))));
    assert_eq!(merge["ok"], want, "{merge}");
    // auto on a kind the embedded schema lacks: merge, as kubectl.
    let auto = parsed(&one(&[], create3(json!({"patch_type": "auto"}))));
    assert_eq!(auto["ok"], want, "{auto}");
    // strategic (the default) on that kind: no schema for it.
    for options in [json!({}), json!({"patch_type": "strategic"})] {
        let r = one(&[], create3(options));
        assert_eq!(error_of(&r).0, "unknown_type", "{r}");
    }
    // merge needs no schema and ignores overwrite (kubectl has no conflict
    // check in this mode); numbers stay exact.
    let r = one(
        &[],
        json!({"id": 1, "op": "create3", "overwrite": false,
            "original_text": "{\"n\": 1}",
            "modified_text": "{\"n\": 12345678901234567890123}",
            "current_text": "{\"n\": 2}",
            "options": {"patch_type": "merge"}}),
    );
    assert_eq!(r, r#"{"id":1,"ok":{"n":12345678901234567890123}}"#);
}

#[test]
fn patch_type_auto_takes_the_strategic_patch_for_builtin_kinds() {
    let cm = |data: Value| {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c"}, "data": data})
    };
    let dep = |containers: Value| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"template": {"spec": {"containers": containers}}}})
    };
    let c = |name: &str, image: &str| json!({"name": name, "image": image});
    // create3 on a Deployment: auto = strategic (merge keys), merge
    // replaces the list whole.
    let request = |ty: &str| {
        json!({"id": ty, "op": "create3",
            "original": dep(json!([c("a", "1")])),
            "modified": dep(json!([c("a", "2")])),
            "current": dep(json!([c("a", "1"), c("b", "1")])),
            "options": {"patch_type": ty}})
    };
    let r: Vec<Value> = batch(
        &[],
        &[request("auto"), request("strategic"), request("merge")],
    )
    .iter()
    .map(|r| parsed(r))
    .collect();
    assert_eq!(r[0]["ok"], r[1]["ok"], "auto is strategic for a Deployment");
    assert_ne!(r[0]["ok"], r[2]["ok"]);
    assert_eq!(
        r[2]["ok"]["spec"]["template"]["spec"]["containers"],
        json!([c("a", "2")])
    );
    // apply: auto = strategic for a ConfigMap.
    let apply = |original: Value, patch: Value, ty: &str| {
        json!({"id": 0, "op": "apply", "original": original, "patch": patch,
            "options": {"patch_type": ty}})
    };
    let r = parsed(&one(
        &[],
        apply(cm(json!({"a": "1"})), json!({"data": {"b": "2"}}), "auto"),
    ));
    assert_eq!(r["ok"]["data"], json!({"a": "1", "b": "2"}), "{r}");
    // apply: merge (Go's MergePatch) replaces lists and deletes with null;
    // auto does the same for a custom resource.
    for ty in ["merge", "auto"] {
        let r = parsed(&one(
            &[],
            apply(
                widget(json!({"l": [1, 2], "a": 1, "b": 1})),
                json!({"spec": {"l": [3], "a": null}}),
                ty,
            ),
        ));
        assert_eq!(r["ok"]["spec"], json!({"l": [3], "b": 1}), "{ty}: {r}");
    }
    // A document without apiVersion/kind is no built-in type: auto merges.
    let r = parsed(&one(
        &[],
        apply(json!({"l": [1]}), json!({"l": [2], "x": null}), "auto"),
    ));
    assert_eq!(r["ok"], json!({"l": [2]}), "{r}");
}

#[test]
fn patch_type_errors_name_the_option() {
    for (value, ops) in [
        (json!("json"), ["apply", "create3"]),
        (json!("Merge"), ["apply", "create3"]),
        (json!(true), ["apply", "create3"]),
        (json!(null), ["apply", "create3"]),
    ] {
        for op in ops {
            let r = one(
                &[],
                json!({"id": 1, "op": op, "schema": {"none": true},
                    "options": {"patch_type": value}}),
            );
            assert_eq!(
                error_of(&r),
                (
                    "invalid_request".to_owned(),
                    "/options/patch_type".to_owned()
                ),
                "{op} {value}: {r}"
            );
            let message = parsed(&r)["error"]["message"].to_string();
            assert!(message.contains("auto"), "{message}");
        }
    }
    // The ops that compute no three-way or apply patch do not take it.
    for op in ["create2", "conflicts"] {
        let r = one(
            &[],
            json!({"id": 1, "op": op, "schema": {"none": true},
                "options": {"patch_type": "merge"}}),
        );
        assert_eq!(
            error_of(&r),
            (
                "invalid_request".to_owned(),
                "/options/patch_type".to_owned()
            ),
            "{r}"
        );
    }
    // normalize_unions is the server's pipeline for a strategic patch.
    let r = one(
        &[],
        json!({"id": 1, "op": "apply", "schema": {"none": true},
            "options": {"patch_type": "merge", "normalize_unions": true}}),
    );
    assert_eq!(
        error_of(&r),
        (
            "invalid_request".to_owned(),
            "/options/patch_type".to_owned()
        ),
        "{r}"
    );
}
