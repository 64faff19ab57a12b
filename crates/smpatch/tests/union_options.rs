//! The options of the union pass (`UnionOptions`: `ratcheting`,
//! `check_enums`, `non_discriminated_update`, `max_depth`) mean the same at
//! every entry point that runs it: the cases of
//! `testdata/unions/options.json` through `server_apply_json`, through
//! `apply_json` then `normalize_json` + `validate_json`, through batch
//! `apply` with `normalize_unions` and through batch `apply` then
//! `normalize`; the option errors of the two batch ops agree; and depth:
//! an input deeper than the limit is `too_deep` naming the path and the
//! limit, the same default (256) everywhere, raised by `max_depth`.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use serde_json::{json, Value as J};
use smpatch::batch::{handle_line, BatchState};
use smpatch::{ApplyOptions, PipelineError, Schema, TypeRef, UnionOptions};
use std::path::PathBuf;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/unions")
}

fn call(state: &mut BatchState, request: &J) -> J {
    let line = handle_line(state, &request.to_string());
    serde_json::from_str(&line).unwrap()
}

fn cases() -> Vec<J> {
    let text = std::fs::read_to_string(testdata().join("options.json")).unwrap();
    let doc: J = serde_json::from_str(&text).unwrap();
    doc["cases"].as_array().unwrap().clone()
}

/// The case's options as `UnionOptions` and `ApplyOptions` (one `max_depth`).
fn options(o: &J) -> (UnionOptions, ApplyOptions) {
    let d = UnionOptions::default();
    let max_depth = o["max_depth"]
        .as_u64()
        .map_or(d.max_depth, |n| usize::try_from(n).unwrap());
    let unions = UnionOptions {
        ratcheting: o["ratcheting"].as_bool().unwrap_or(d.ratcheting),
        check_enums: o["check_enums"].as_bool().unwrap_or(d.check_enums),
        non_discriminated_update: o["non_discriminated_update"]
            .as_bool()
            .unwrap_or(d.non_discriminated_update),
        max_depth,
    };
    (unions, ApplyOptions::default().with_max_depth(max_depth))
}

/// An answer in the cases' shape, from an `ok`/`cleared` pair or an error.
fn answer(result: Result<(J, Vec<String>), smpatch::Error>) -> J {
    match result {
        Ok((object, cleared)) => json!({"ok": object, "cleared": cleared}),
        Err(e) => {
            let mut out = json!({"error": e.name(), "path": e.path()});
            if !e.violations().is_empty() {
                out["violations"] = e
                    .violations()
                    .iter()
                    .map(|v| json!([v.path, v.rule.name()]))
                    .collect();
            }
            out
        }
    }
}

/// A batch response in the cases' shape.
fn batch_answer(response: &J) -> J {
    if let Some(e) = response.get("error") {
        let mut out = json!({"error": e["kind"], "path": e["path"]});
        if let Some(v) = e.get("violations") {
            out["violations"] = v
                .as_array()
                .unwrap()
                .iter()
                .map(|v| json!([v["path"], v["rule"]]))
                .collect();
        }
        out
    } else {
        json!({"ok": response["ok"], "cleared": response["cleared"]})
    }
}

#[test]
fn every_case_answers_the_same_through_the_facade_and_batch() {
    let cases = cases();
    assert!(cases.len() >= 12);
    let file = testdata().join("fieldMembers.v2.json");
    let schema = Schema::from_bytes(&std::fs::read(&file).unwrap(), "fieldMembers").unwrap();
    let ty = TypeRef::Definition("com.example.Host".into());
    let batch_schema = json!({"file": file, "definition": "com.example.Host"});
    let mut state = BatchState::new();
    for (i, c) in cases.iter().enumerate() {
        let name = c["name"].as_str().unwrap();
        let (live, patch, expect) = (&c["live"], &c["patch"], &c["expect"]);
        let (unions, apply) = options(&c["options"]);

        let got = smpatch::server_apply_json(live, patch, &schema, &ty, &apply, &unions)
            .map(|n| (n.object, n.cleared))
            .map_err(|e: PipelineError| e.to_error());
        assert_eq!(&answer(got), expect, "server_apply_json: {name}");

        let got = smpatch::apply_json(live, patch, &schema, &ty, &apply).and_then(|merged| {
            let n = smpatch::normalize_json(Some(live), &merged, &schema, &ty, &unions)?;
            let found = smpatch::validate_json(Some(live), &n.object, &schema, &ty, &unions)?;
            if found.is_empty() {
                Ok((n.object, n.cleared))
            } else {
                Err(PipelineError::Invalid(found).to_error())
            }
        });
        assert_eq!(
            &answer(got),
            expect,
            "normalize_json + validate_json: {name}"
        );

        let mut opts = c["options"].clone();
        opts["normalize_unions"] = json!(true);
        let got = call(
            &mut state,
            &json!({"id": i, "op": "apply", "schema": batch_schema, "original": live,
                "patch": patch, "options": opts}),
        );
        assert_eq!(&batch_answer(&got), expect, "batch apply: {name}");

        let mut plain = json!({});
        if let Some(d) = c["options"].get("max_depth") {
            plain["max_depth"] = d.clone();
        }
        let merged = call(
            &mut state,
            &json!({"id": i, "op": "apply", "schema": batch_schema, "original": live,
                "patch": patch, "options": plain}),
        );
        let got = match merged.get("ok") {
            Some(new) => call(
                &mut state,
                &json!({"id": i, "op": "normalize", "schema": batch_schema, "new": new,
                    "old": live, "options": c["options"]}),
            ),
            None => merged,
        };
        assert_eq!(
            &batch_answer(&got),
            expect,
            "batch apply, normalize: {name}"
        );
    }
}

#[test]
fn union_options_errors_agree_between_batch_ops() {
    let file = testdata().join("fieldMembers.v2.json");
    let schema = json!({"file": file, "definition": "com.example.Host"});
    let mut state = BatchState::new();
    for (op, docs) in [
        ("normalize", json!({"new": {}})),
        ("apply", json!({"original": {}, "patch": {}})),
    ] {
        let request = |options: J| {
            let mut r = json!({"id": 1, "op": op, "schema": schema, "options": options});
            for (k, v) in docs.as_object().unwrap() {
                r[k] = v.clone();
            }
            if op == "apply" {
                r["options"]["normalize_unions"] = json!(true);
            }
            r
        };
        for key in ["ratcheting", "check_enums", "non_discriminated_update"] {
            let got = call(&mut state, &request(json!({key: "yes"})));
            assert_eq!(got["error"]["kind"], "invalid_request", "{op} {key}");
            assert_eq!(
                got["error"]["path"],
                format!("/options/{key}"),
                "{op} {key}"
            );
            assert!(
                got["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("must be true or false"),
                "{op} {key}: {got}"
            );
            let got = call(&mut state, &request(json!({key: true})));
            assert!(got.get("ok").is_some(), "{op} {key}: {got}");
        }
        let got = call(&mut state, &request(json!({"max_depth": -1})));
        assert_eq!(got["error"]["path"], "/options/max_depth", "{op}");
    }
    // Without normalize_unions a union option would change nothing.
    for key in ["ratcheting", "check_enums", "non_discriminated_update"] {
        for normalize_unions in [json!(false), J::Null] {
            let mut options = json!({key: true});
            if !normalize_unions.is_null() {
                options["normalize_unions"] = normalize_unions.clone();
            }
            let got = call(
                &mut state,
                &json!({"id": 2, "op": "apply", "schema": schema, "original": {}, "patch": {},
                    "options": options}),
            );
            assert_eq!(got["error"]["kind"], "invalid_request", "{key}");
            assert_eq!(got["error"]["path"], format!("/options/{key}"), "{key}");
            assert!(
                got["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("normalize_unions"),
                "{got}"
            );
        }
    }
}

/// A schema whose union nests in itself (`a` and `b` are `Node`s), so that
/// the union pass walks as deep as the document goes.
pub fn recursive_schema() -> Schema {
    let doc = json!({"swagger": "2.0", "definitions": {"Node": {"type": "object", "properties": {
        "type": {"type": "string", "enum": ["A", "B", ""],
            "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a", "optional": true},
                "B": {"name": "b", "optional": true}, "": null}}},
        "a": {"$ref": "#/definitions/Node"}, "b": {"$ref": "#/definitions/Node"}}}}});
    Schema::from_bytes(doc.to_string().as_bytes(), "recursive").unwrap()
}

/// `depth` levels of `{"type": "A", "a": …}` around `{"type": "B", "b": {}}`.
fn chain(depth: usize) -> J {
    (1..depth).fold(
        json!({"type": "B", "b": {}}),
        |inner, _| json!({"type": "A", "a": inner}),
    )
}

#[test]
fn depth_limits_agree_and_name_path_and_limit() {
    let schema = recursive_schema();
    let ty = TypeRef::Definition("Node".into());
    let deep = chain(300);
    let opts = |d: Option<usize>| UnionOptions {
        max_depth: d.unwrap_or(UnionOptions::default().max_depth),
        ..UnionOptions::default()
    };
    assert_eq!(
        UnionOptions::default().max_depth,
        smpatch::DEFAULT_MAX_DEPTH
    );
    // The default: 256 for reading the document and for the walk.
    for e in [
        smpatch::normalize_json(None, &deep, &schema, &ty, &opts(None)).unwrap_err(),
        smpatch::validate_json(None, &deep, &schema, &ty, &opts(None)).unwrap_err(),
    ] {
        assert_eq!(e.name(), "too_deep", "{e}");
        assert!(e.path().starts_with("/a/a/a/"), "{e}");
        assert!(e.message().contains("256"), "{e}");
    }
    // Raised: the walk goes all the way (and normalizes nothing here).
    let n = smpatch::normalize_json(None, &deep, &schema, &ty, &opts(Some(1000))).unwrap();
    assert_eq!(n.object, deep);
    let found = smpatch::validate_json(None, &deep, &schema, &ty, &opts(Some(1000))).unwrap();
    assert!(found.is_empty(), "{found:?}");
    // Lowered below the parser's default: the walk's own too_deep.
    let e = smpatch::normalize_json(None, &chain(10), &schema, &ty, &opts(Some(5))).unwrap_err();
    assert_eq!((e.name(), e.path()), ("too_deep", "/a/a/a/a/a"), "{e}");
    assert!(e.message().contains("limit of 5 levels"), "{e}");
}

#[test]
fn batch_depth_agrees_for_json_members_and_text() {
    // The same default for a document as a JSON member and as text: the
    // union pass used to read `new_text` up to 1,000 levels by default.
    let dir = std::env::temp_dir().join(format!("smpatch-union-depth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("recursive.json");
    let doc = json!({"swagger": "2.0", "definitions": {"Node": {"type": "object", "properties": {
        "type": {"type": "string", "enum": ["A", "B", ""],
            "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a", "optional": true},
                "B": {"name": "b", "optional": true}, "": null}}},
        "a": {"$ref": "#/definitions/Node"}, "b": {"$ref": "#/definitions/Node"}}}}});
    std::fs::write(&file, doc.to_string()).unwrap();
    let schema = json!({"file": file, "definition": "Node"});
    let deep = chain(300);
    let mut state = BatchState::new();
    for options in [json!({}), json!({"max_depth": 1000})] {
        let raised = options.get("max_depth").is_some();
        for request in [
            json!({"id": 1, "op": "normalize", "schema": schema, "new": deep}),
            json!({"id": 2, "op": "normalize", "schema": schema, "new_text": deep.to_string()}),
            json!({"id": 3, "op": "apply", "schema": schema, "original": {}, "patch": deep}),
            json!({"id": 4, "op": "apply", "schema": schema, "original": {},
                "patch_text": deep.to_string()}),
        ] {
            let mut request = request;
            request["options"] = options.clone();
            if request["op"] == "apply" {
                request["options"]["normalize_unions"] = json!(true);
            }
            let line = handle_line(&mut state, &request.to_string());
            if raised {
                let id = &request["id"];
                assert_eq!(line, format!(r#"{{"id":{id},"ok":{deep},"cleared":[]}}"#));
                continue;
            }
            let got: J = serde_json::from_str(&line).unwrap();
            let e = &got["error"];
            assert!(e["path"].as_str().unwrap().contains("/a/a/a/"), "{got}");
            if request.get("new").is_some() || request.get("patch").is_some() {
                // A JSON member too deep is the request line's parse error
                // (`invalid_request`, as for every op), at the member's
                // pointer; the line allows two levels for the request.
                assert_eq!(e["kind"], "invalid_request", "{got}");
                assert!(
                    e["message"].as_str().unwrap().contains("limit of 258"),
                    "{got}"
                );
            } else {
                assert_eq!(e["kind"], "too_deep", "{got}");
                assert!(e["message"].as_str().unwrap().contains("256"), "{got}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
