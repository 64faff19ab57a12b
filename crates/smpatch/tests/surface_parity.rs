//! Batch requests the other surfaces had and the protocol lacked: the
//! `compose` op (Python's `compose`, the library's `compose_bytes`), the
//! `max_depth` option of `fields` and `extract`, and `extract`'s `validate`
//! (Python's `extract(validate=...)`).

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use smpatch::batch::{handle_line, BatchState};
use smpatch::{CreateOptions, TypeRef};

fn answer(line: &str) -> serde_json::Value {
    serde_json::from_str(&handle_line(&mut BatchState::new(), line)).unwrap()
}

fn error(line: &str) -> (String, String) {
    let v = answer(line);
    let e = &v["error"];
    (
        e["kind"].as_str().unwrap_or_default().to_owned(),
        e["path"].as_str().unwrap_or_default().to_owned(),
    )
}

const FIRST: &str =
    r#"{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}"#;
const SECOND: &str = r#"{"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}"#;

#[test]
fn compose_answers_what_compose_bytes_answers() {
    let line = format!(
        r#"{{"id":1,"op":"compose","schema":{{"builtin":"apps/v1/Deployment"}},"first":{FIRST},"second":{SECOND}}}"#
    );
    let v = answer(&line);
    assert_eq!(v["id"], 1, "{v}");
    let schema = smpatch::embedded_schema().unwrap();
    let want = smpatch::compose_bytes(
        FIRST.as_bytes(),
        SECOND.as_bytes(),
        schema,
        &TypeRef::Gvk("apps/v1/Deployment".into()),
        &CreateOptions::default(),
    )
    .unwrap();
    let want: serde_json::Value = serde_json::from_slice(&want).unwrap();
    assert_eq!(v["ok"], want);
    // Applying the composed patch is applying both, one after the other.
    let live = r#"{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.25"},{"name":"sidecar","image":"envoy:1"}]}}}}"#;
    let apply = |original: &str, patch: &str| {
        answer(&format!(
            r#"{{"id":0,"op":"apply","original":{original},"patch":{patch}}}"#
        ))["ok"]
            .clone()
    };
    let one_by_one = apply(&apply(live, FIRST).to_string(), SECOND);
    assert_eq!(apply(live, &v["ok"].to_string()), one_by_one);
    assert_eq!(one_by_one["spec"]["replicas"], 3);
    assert_eq!(
        one_by_one["spec"]["template"]["spec"]["containers"],
        serde_json::json!([{"name": "web", "image": "nginx:1.27"}])
    );
}

#[test]
fn compose_reads_text_detects_the_type_and_keeps_numbers() {
    let v = answer(
        r#"{"id":2,"op":"compose","first_text":"apiVersion: v1\nkind: ConfigMap\ndata: {a: '1'}\n","second":{"metadata":{"generation":12345678901234567890}}}"#,
    );
    assert_eq!(
        handle_line(
            &mut BatchState::new(),
            r#"{"id":2,"op":"compose","schema":{"none":true},"first":{"a":1.50},"second":{"b":12345678901234567890}}"#
        ),
        r#"{"id":2,"ok":{"a":1.50,"b":12345678901234567890}}"#
    );
    assert_eq!(v["ok"]["data"]["a"], "1", "{v}");
}

#[test]
fn compose_refuses_what_it_does_not_read() {
    assert_eq!(
        error(r#"{"id":3,"op":"compose","schema":{"none":true},"first":{},"patch":{}}"#),
        ("invalid_request".into(), "/patch".into())
    );
    assert_eq!(
        error(
            r#"{"id":4,"op":"compose","schema":{"none":true},"first":{},"second":{},"options":{"patch_type":"merge"}}"#
        ),
        ("invalid_request".into(), "/options/patch_type".into())
    );
    // An unknown op names compose among the known ones.
    let v = answer(r#"{"id":5,"op":"composer"}"#);
    assert!(
        v["error"]["message"].as_str().unwrap().contains("compose,"),
        "{v}"
    );
    // A bad patch is an error pointing into it.
    let (kind, path) = error(
        r#"{"id":6,"op":"compose","schema":{"builtin":"v1/Pod"},"first":{"spec":{"containers":[{"image":"x"}]}},"second":{}}"#,
    );
    assert_eq!(
        (kind.as_str(), path.as_str()),
        ("missing_merge_key", "/spec/containers/0")
    );
}

#[test]
fn fields_and_extract_take_max_depth() {
    let cm = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}}"#;
    let ok = answer(&format!(
        r#"{{"id":1,"op":"fields","object":{cm},"options":{{"max_depth":3}}}}"#
    ));
    assert_eq!(ok["ok"], serde_json::json!({"f:data": {"f:k": {}}}), "{ok}");
    assert_eq!(
        error(&format!(
            r#"{{"id":2,"op":"fields","object":{cm},"options":{{"max_depth":1}}}}"#
        )),
        ("too_deep".into(), "/object/metadata".into())
    );
    assert_eq!(
        error(&format!(
            r#"{{"id":3,"op":"fields","object":{cm},"options":{{"max_depth":-1}}}}"#
        )),
        ("invalid_request".into(), "/options/max_depth".into())
    );
    let live = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":"me","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]},"data":{"k":"v"}}"#;
    let ok = answer(&format!(
        r#"{{"id":4,"op":"extract","manager":"me","object":{live},"options":{{"max_depth":5}}}}"#
    ));
    assert_eq!(ok["ok"]["data"], serde_json::json!({"k": "v"}), "{ok}");
    let (kind, _) = error(&format!(
        r#"{{"id":5,"op":"extract","manager":"me","object":{live},"options":{{"max_depth":1}}}}"#
    ));
    assert_eq!(kind, "too_deep");
    // The session's limit (smpatch batch --max-depth) caps them as every op's.
    let mut state = BatchState::new();
    state.set_max_depth(4);
    let v: serde_json::Value = serde_json::from_str(&handle_line(
        &mut state,
        &format!(r#"{{"id":6,"op":"fields","object":{cm},"options":{{"max_depth":9}}}}"#),
    ))
    .unwrap();
    assert_eq!(v["error"]["path"], "/options/max_depth", "{v}");
}

#[test]
fn extract_validate_option() {
    // A field the schema does not declare: refused by default (as the
    // reference validates first), kept out of the answer with validate off.
    let live = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":"me","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]},"data":{"k":"v"},"bogus":1}"#;
    let (kind, path) = error(&format!(
        r#"{{"id":1,"op":"extract","manager":"me","object":{live}}}"#
    ));
    assert_eq!(
        (kind.as_str(), path.as_str()),
        ("schema_mismatch", "/object/bogus")
    );
    let ok = answer(&format!(
        r#"{{"id":2,"op":"extract","manager":"me","object":{live},"options":{{"validate":false}}}}"#
    ));
    assert_eq!(
        ok["ok"],
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}),
        "{ok}"
    );
    assert_eq!(
        error(&format!(
            r#"{{"id":3,"op":"extract","manager":"me","object":{live},"options":{{"validate":"no"}}}}"#
        )),
        ("invalid_request".into(), "/options/validate".into())
    );
}

/// `owners_bytes` (Python's `owners`) answers the table `owners_json`
/// answers, from JSON and from YAML, in the same member order.
#[test]
fn owners_bytes_is_owners_json() {
    let live = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c",
        "generation": 12345678901234567890u64, "managedFields": [
        {"manager": "a", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {"f:x": {}}}},
        {"manager": "b", "operation": "Update", "apiVersion": "v1", "subresource": "status",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:x": {}, "f:y": {}}}}]},
        "data": {"x": "1", "y": "2"}});
    let want = smpatch::owners_json(&live).unwrap();
    let got = smpatch::owners_bytes(live.to_string().as_bytes()).unwrap();
    assert_eq!(String::from_utf8(got).unwrap(), want.to_string());
    let yaml = b"metadata:\n  managedFields:\n  - {manager: a, operation: Apply, apiVersion: v1, fieldsV1: {f:data: {f:x: {}}}}\n  - {manager: b, operation: Update, apiVersion: v1, subresource: status, fieldsV1: {f:data: {f:x: {}, f:y: {}}}}\n";
    assert_eq!(
        smpatch::owners_bytes(yaml).unwrap(),
        want.to_string().into_bytes()
    );
    let e =
        smpatch::owners_bytes(br#"{"metadata":{"managedFields":[{"manager":7}]}}"#).unwrap_err();
    assert_eq!(e.name(), "malformed_managed_fields");
    assert_eq!(
        smpatch::owners_bytes(b"[1]").unwrap_err().name(),
        "invalid_document"
    );
    let deep = format!("{}{}", r#"{"a":"#.repeat(300), "}".repeat(300));
    let deep = deep.replacen(r#"{"a":}"#, "{}", 1);
    assert_eq!(
        smpatch::owners_bytes(deep.as_bytes()).unwrap_err().name(),
        "too_deep"
    );
}

/// Op `validate` (as `smpatch validate` and Python's `validate`): the
/// violations of `new` as written, judged against `old`, nothing
/// normalized; the `normalize` op's members and options.
#[test]
fn validate_lists_violations_without_normalizing() {
    let schema = r#""schema":{"file":"../../testdata/unions/fieldMembers.v2.json","definition":"com.example.Src"}"#;
    let v = answer(&format!(
        r#"{{"id":1,"op":"validate",{schema},"new":{{"type":"Git","git":{{"url":"g"}},"mode":"Medium"}}}}"#
    ));
    let found = v["ok"].as_array().unwrap_or_else(|| panic!("{v}"));
    assert_eq!(found.len(), 1, "{v}");
    assert_eq!(
        (found[0]["path"].as_str(), found[0]["rule"].as_str()),
        (Some("/mode"), Some("enum"))
    );
    assert!(
        found[0]["message"].as_str().unwrap().contains("Medium"),
        "{v}"
    );
    // check_enums off: valid, an empty list.
    let v = answer(&format!(
        r#"{{"id":2,"op":"validate",{schema},"new":{{"type":"Git","git":{{"url":"g"}},"mode":"Medium"}},"options":{{"check_enums":false}}}}"#
    ));
    assert_eq!(v["ok"], serde_json::json!([]), "{v}");
    // Two members set after the discriminator changed: normalize would
    // clear one; validate reports and keeps both (the same document through
    // normalize answers the cleared member).
    let both = r#""new":{"type":"Http","git":{"url":"g"},"http":{"url":"h"}},"old":{"type":"Git","git":{"url":"g"}}"#;
    let v = answer(&format!(r#"{{"id":3,"op":"validate",{schema},{both}}}"#));
    assert!(!v["ok"].as_array().unwrap().is_empty(), "{v}");
    let n = answer(&format!(r#"{{"id":4,"op":"normalize",{schema},{both}}}"#));
    assert_eq!(n["cleared"], serde_json::json!(["/git"]), "{n}");
    // The library's answer is the same list.
    let lib = smpatch::validate_json(
        Some(&serde_json::json!({"type":"Git","git":{"url":"g"}})),
        &serde_json::json!({"type":"Http","git":{"url":"g"},"http":{"url":"h"}}),
        &smpatch_schema::Schema::load_paths(&["../../testdata/unions/fieldMembers.v2.json"])
            .unwrap(),
        &TypeRef::Definition("com.example.Src".into()),
        &smpatch::UnionOptions::default(),
    )
    .unwrap();
    let lib: Vec<(String, String)> = lib
        .iter()
        .map(|x| (x.path.clone(), x.rule.name().to_owned()))
        .collect();
    let got: Vec<(String, String)> = v["ok"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["path"].as_str().unwrap().to_owned(),
                x["rule"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(got, lib);
    // Request errors as normalize's.
    assert_eq!(
        error(&format!(r#"{{"id":5,"op":"validate",{schema}}}"#)),
        ("invalid_request".into(), "".into())
    );
    assert_eq!(
        error(&format!(
            r#"{{"id":6,"op":"validate",{schema},"new":{{}},"options":{{"fix_quirks":true}}}}"#
        )),
        ("invalid_request".into(), "/options/fix_quirks".into())
    );
    assert_eq!(
        error(&format!(
            r#"{{"id":7,"op":"validate",{schema},"new":{{}},"patch":{{}}}}"#
        )),
        ("invalid_request".into(), "/patch".into())
    );
}

/// Op `owners` (as `smpatch owners` and Python's `owners`): the table
/// `owners_json` answers, with no schema needed (a kind the embedded
/// schema does not know is fine).
#[test]
fn owners_op_answers_the_owners_table() {
    let live = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w",
        "managedFields": [
        {"manager": "a", "operation": "Apply", "apiVersion": "example.com/v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:x": {}}}},
        {"manager": "b", "operation": "Update", "apiVersion": "example.com/v1", "subresource": "status",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:y": {}}}}]},
        "spec": {"x": 1}, "status": {"y": 2}});
    let v = answer(&format!(r#"{{"id":1,"op":"owners","object":{live}}}"#));
    assert_eq!(v["ok"], smpatch::owners_json(&live).unwrap(), "{v}");
    assert_eq!(v["ok"][1]["owners"][0]["subresource"], "status", "{v}");
    let yaml = serde_json::to_string(
        "metadata:\n  managedFields:\n  - {manager: a, operation: Apply, apiVersion: v1, fieldsV1: {f:data: {f:x: {}}}}\n",
    )
    .unwrap();
    let v = answer(&format!(r#"{{"id":2,"op":"owners","object_text":{yaml}}}"#));
    assert_eq!(v["ok"][0]["path"], "f:data.f:x", "{v}");
    assert_eq!(
        answer(r#"{"id":3,"op":"owners","object":{"metadata":{}}}"#)["ok"],
        serde_json::json!([])
    );
    assert_eq!(
        error(r#"{"id":4,"op":"owners","object":{"metadata":{"managedFields":[{"manager":7}]}}}"#),
        (
            "malformed_managed_fields".into(),
            "/object/metadata/managedFields/0/manager".into()
        )
    );
    assert_eq!(
        error(r#"{"id":5,"op":"owners","object":{},"options":{"shape":"apply"}}"#),
        ("invalid_request".into(), "/options/shape".into())
    );
    assert_eq!(
        error(r#"{"id":6,"op":"owners","object":{"a":{"b":{}}},"options":{"max_depth":2}}"#).0,
        "too_deep"
    );
    assert_eq!(
        error(r#"{"id":7,"op":"owners","object":{},"manager":"m"}"#),
        ("invalid_request".into(), "/manager".into())
    );
}

/// `compose` takes the options of Python's `compose` (`fix_quirks`,
/// `compound_keys`, `max_depth`); the ignore options of the create ops
/// would change nothing and are refused at their path.
#[test]
fn compose_refuses_the_ignore_options() {
    for option in ["ignore_deletions", "ignore_changes_and_additions"] {
        let (kind, path) = error(&format!(
            r#"{{"id":2,"op":"compose","first":{{"a":1}},"second":{{"a":null,"b":2}},"schema":{{"none":true}},"options":{{"{option}":true}}}}"#
        ));
        assert_eq!(
            (kind.as_str(), path.as_str()),
            ("invalid_request", format!("/options/{option}").as_str())
        );
    }
    let v = answer(
        r#"{"id":3,"op":"compose","first":{"a":1},"second":{"a":null,"b":2},"schema":{"none":true},"options":{"fix_quirks":true,"compound_keys":false,"max_depth":8}}"#,
    );
    assert_eq!(v["ok"], serde_json::json!({"a": null, "b": 2}), "{v}");
    let v = answer(r#"{"id":4,"op":"compose","first":{},"second":{},"options":{"bogus":1}}"#);
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("fix_quirks, compound_keys, max_depth") && !message.contains("ignore"),
        "{v}"
    );
}

/// `owners` reads no schema: a `"schema"` member is refused before any
/// file is read or type named.
#[test]
fn owners_refuses_a_schema() {
    for schema in [
        r#"{"file":"/nonexistent"}"#,
        r#"{"builtin":"v1/Nope"}"#,
        r#"{"none":true}"#,
    ] {
        assert_eq!(
            error(&format!(
                r#"{{"id":1,"op":"owners","object":{{"a":1}},"schema":{schema}}}"#
            )),
            ("invalid_request".into(), "/schema".into()),
            "{schema}"
        );
    }
}

/// `owners`' `too_deep` names the first node past the limit, as `fields`
/// and `extract` do; the library's `owners_bytes_with` the same pointer
/// without the request's `/object`.
#[test]
fn owners_too_deep_names_the_deep_node() {
    let cm = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}}"#;
    assert_eq!(
        error(&format!(
            r#"{{"id":1,"op":"owners","object":{cm},"options":{{"max_depth":1}}}}"#
        )),
        ("too_deep".into(), "/object/metadata".into())
    );
    assert_eq!(
        error(&format!(
            r#"{{"id":2,"op":"fields","object":{cm},"options":{{"max_depth":1}}}}"#
        )),
        ("too_deep".into(), "/object/metadata".into())
    );
    assert_eq!(
        error(
            r#"{"id":3,"op":"owners","object":{"x":1,"a":[{},{"b":{"c/d":[[]]}}]},"options":{"max_depth":4}}"#
        ),
        ("too_deep".into(), "/object/a/1/b/c~1d".into())
    );
    assert_eq!(
        answer(r#"{"id":4,"op":"owners","object":{"a":[{"b":{}}]},"options":{"max_depth":4}}"#)
            ["ok"],
        serde_json::json!([])
    );
    let e = smpatch::owners_bytes_with(br#"{"a":{"b":{}}}"#, 2).unwrap_err();
    assert_eq!((e.name(), e.path()), ("too_deep", "/a/b"));
    assert!(smpatch::owners_bytes_with(br#"{"a":{"b":{}}}"#, 3).is_ok());
    let yaml = b"metadata:\n  labels: {a: b}\n";
    let e = smpatch::owners_bytes_with(yaml, 2).unwrap_err();
    assert_eq!((e.name(), e.path()), ("too_deep", "/metadata/labels"));
}
