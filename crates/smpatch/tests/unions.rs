//! Union normalization and validation through the batch code path
//! (`batch::handle_line`): every case of `testdata/unions/cases.json` for
//! both union declaration formats, OpenAPI v2 and v3, at the top level and
//! nested in a keyed list, a map and a positional list; plus the `apply`
//! pipeline (`normalize_unions`) and the protocol's error answers.

use serde_json::{json, Value as J};
use smpatch::batch::{handle_line, BatchState};
use std::path::PathBuf;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/unions")
}

fn call(state: &mut BatchState, request: &J) -> J {
    let line = handle_line(state, &request.to_string());
    serde_json::from_str(&line).expect("a response is JSON")
}

/// Wraps a union object of type `def` into `com.example.Host`, and the
/// pointer prefix that goes with it.
fn nest(def: &str, v: &J) -> (J, &'static str) {
    match def {
        "Src" => {
            let mut elem = json!({"name": "n"});
            if let (Some(e), Some(o)) = (elem.as_object_mut(), v.as_object()) {
                e.extend(o.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            (json!({"sources": [elem]}), "/sources/0")
        }
        "Strict" => (json!({"strictMap": {"k": v}}), "/strictMap/k"),
        _ => (json!({"plains": [v]}), "/plains/0"),
    }
}

fn pairs(v: &J) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v
        .as_array()
        .map(|a| {
            a.iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap_or_default().to_owned(),
                        p[1].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn decision_table_worked_examples_and_version_skew() {
    let text = std::fs::read_to_string(testdata().join("cases.json")).expect("cases.json");
    let doc: J = serde_json::from_str(&text).expect("cases.json is JSON");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 30);
    let mut state = BatchState::new();
    let mut runs = 0;
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap_or("?");
        let def = case["def"].as_str().unwrap_or("Src");
        for format in ["fieldMembers", "struct-level"] {
            let expect = match (format, case.get("struct_level")) {
                ("struct-level", Some(e)) => e,
                _ => &case["expect"],
            };
            for version in [2, 3] {
                let file = testdata().join(format!("{format}.v{version}.json"));
                for nested in [false, true] {
                    let (new, prefix, definition) = if nested {
                        let (n, p) = nest(def, &case["new"]);
                        (n, p, "com.example.Host".to_owned())
                    } else {
                        (case["new"].clone(), "", format!("com.example.{def}"))
                    };
                    let mut request = json!({"id": name, "op": "normalize", "new": new,
                        "schema": {"file": file, "definition": definition}});
                    if let Some(old) = case.get("old") {
                        request["old"] = if nested {
                            nest(def, old).0
                        } else {
                            old.clone()
                        };
                    }
                    if let Some(o) = case.get("options") {
                        request["options"] = o.clone();
                    }
                    let got = call(&mut state, &request);
                    runs += 1;
                    let at = format!(
                        "{name} [{format} v{version}{}]",
                        if nested { " nested" } else { "" }
                    );
                    if let Some(want) = expect.get("ok") {
                        let want = if nested {
                            nest(def, want).0
                        } else {
                            want.clone()
                        };
                        let cleared: Vec<String> = expect["cleared"]
                            .as_array()
                            .map(|c| {
                                c.iter()
                                    .map(|p| format!("{prefix}{}", p.as_str().unwrap_or("")))
                                    .collect()
                            })
                            .unwrap_or_default();
                        if got.get("ok") != Some(&want) || got["cleared"] != json!(cleared) {
                            failures.push(format!(
                                "{at}: want ok {want} cleared {cleared:?}, got {got}"
                            ));
                        }
                    } else {
                        let want: Vec<(String, String)> = pairs(&expect["violations"])
                            .into_iter()
                            .map(|(p, r)| (format!("{prefix}{p}"), r))
                            .collect();
                        let error = &got["error"];
                        let found: Vec<J> =
                            error["violations"].as_array().cloned().unwrap_or_default();
                        let mut have: Vec<(String, String)> = found
                            .iter()
                            .map(|v| {
                                (
                                    v["path"].as_str().unwrap_or("").to_owned(),
                                    v["rule"].as_str().unwrap_or("").to_owned(),
                                )
                            })
                            .collect();
                        have.sort();
                        let messages_ok = found
                            .iter()
                            .all(|v| v["message"].as_str().is_some_and(|m| m.len() > 20));
                        if error["kind"] != "validation" || have != want || !messages_ok {
                            failures.push(format!("{at}: want violations {want:?}, got {got}"));
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn v3_message_tells_the_client_to_change_the_discriminator() {
    let file = testdata().join("fieldMembers.v2.json");
    let got = call(
        &mut BatchState::new(),
        &json!({"id": 1, "op": "normalize", "schema": {"file": file, "definition": "com.example.Src"},
            "old": {"type": "Git", "git": {}}, "new": {"type": "Git", "git": {}, "http": {}}}),
    );
    let v = &got["error"]["violations"][0];
    assert_eq!(v["rule"], "V3");
    assert!(v["message"]
        .as_str()
        .unwrap_or("")
        .contains("change the discriminator \"type\" when you change which member is set"));
}

#[test]
fn apply_with_normalize_unions_runs_the_pipeline() {
    let file = testdata().join("fieldMembers.v3.json");
    let schema = json!({"file": file, "definition": "com.example.Host"});
    let mut state = BatchState::new();
    let live = json!({"sources": [{"name": "a", "type": "Git", "git": {"url": "g"}}]});
    let patch = json!({"sources": [{"name": "a", "type": "Http", "http": {"url": "h"}}]});
    let got = call(
        &mut state,
        &json!({"id": 1, "op": "apply", "schema": schema, "original": live, "patch": patch,
            "options": {"normalize_unions": true}}),
    );
    assert_eq!(
        got,
        json!({"id": 1, "ok": {"sources": [{"name": "a", "type": "Http", "http": {"url": "h"}}]},
            "cleared": ["/sources/0/git"]})
    );
    // Without the option: the plain merge keeps both members.
    let got = call(
        &mut state,
        &json!({"id": 2, "op": "apply", "schema": schema, "original": live, "patch": patch}),
    );
    assert_eq!(got["ok"]["sources"][0]["git"], json!({"url": "g"}));
    assert!(got.get("cleared").is_none());
    // A patch that sets a second member without changing the discriminator.
    let got = call(
        &mut state,
        &json!({"id": 3, "op": "apply", "schema": schema, "original": live,
            "patch": {"sources": [{"name": "a", "http": {"url": "h"}}]},
            "options": {"normalize_unions": true}}),
    );
    assert_eq!(got["error"]["kind"], "validation");
    let rules: Vec<&str> = got["error"]["violations"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v["rule"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(rules, ["V3", "V5"]);
    // A patch error is still a patch error.
    let got = call(
        &mut state,
        &json!({"id": 4, "op": "apply", "schema": schema, "original": live,
            "patch": {"sources": [{"$patch": "bogus"}]}, "options": {"normalize_unions": true}}),
    );
    assert_ne!(got["error"]["kind"], "validation");
    assert!(got["error"].get("violations").is_none());
}

#[test]
fn normalize_request_errors() {
    let file = testdata().join("fieldMembers.v2.json");
    let schema = json!({"file": file, "definition": "com.example.Src"});
    let mut state = BatchState::new();
    let got = call(
        &mut state,
        &json!({"id": 1, "op": "normalize", "schema": schema}),
    );
    assert_eq!(got["error"]["kind"], "invalid_request");
    let got = call(
        &mut state,
        &json!({"id": 2, "op": "normalize", "schema": schema, "new": {}, "options": {"fix_quirks": true}}),
    );
    assert_eq!(got["error"]["kind"], "invalid_request");
    assert_eq!(got["error"]["path"], "/options/fix_quirks");
    let got = call(
        &mut state,
        &json!({"id": 3, "op": "normalize", "schema": schema, "new": {}, "options": {"max_depth": 0}}),
    );
    assert_eq!(got["error"]["kind"], "too_deep");
    // Text documents work too; an absent old means create.
    let got = call(
        &mut state,
        &json!({"id": 4, "op": "normalize", "schema": schema,
            "new_text": "type: Git\ngit: {url: g}\nhttp: {url: h}\n"}),
    );
    assert_eq!(
        got,
        json!({"id": 4, "ok": {"type": "Git", "git": {"url": "g"}}, "cleared": ["/http"]})
    );
}

/// The rule-by-rule cases of `testdata/unions/rules.json` through the
/// `serde_json` facade: `normalize_json`, then `validate_json` on the
/// result, with the file's definitions as OpenAPI v2 and v3.
#[test]
fn rule_cases_through_the_json_facade() {
    use smpatch::{normalize_json, validate_json, Schema, TypeRef, UnionOptions};
    let text = std::fs::read_to_string(testdata().join("rules.json")).expect("rules.json");
    let doc: J = serde_json::from_str(&text).expect("rules.json is JSON");
    let defs = &doc["definitions"];
    let v2 = json!({"swagger": "2.0", "info": {"title": "rules", "version": "v1"}, "paths": {},
        "definitions": defs});
    let v3_defs: J = serde_json::from_str(
        &defs
            .to_string()
            .replace("#/definitions/", "#/components/schemas/"),
    )
    .expect("v3 definitions");
    let v3 = json!({"openapi": "3.0.0", "info": {"title": "rules", "version": "v1"}, "paths": {},
        "components": {"schemas": v3_defs}});
    let mut failures = Vec::new();
    let mut runs = 0;
    for (version, d) in [("v2", v2), ("v3", v3)] {
        let schema = Schema::from_bytes(d.to_string().as_bytes(), "rules.json").expect("loads");
        for case in doc["cases"].as_array().expect("cases") {
            let name = case["name"].as_str().unwrap_or("?");
            let ty = TypeRef::Definition(case["type"].as_str().unwrap_or("").into());
            let mut opts = UnionOptions::default();
            if let Some(o) = case.get("options").and_then(J::as_object) {
                opts.non_discriminated_update =
                    o.get("non_discriminated_update") == Some(&J::Bool(true));
                opts.ratcheting = o.get("ratcheting") == Some(&J::Bool(true));
                opts.check_enums = o.get("check_enums") != Some(&J::Bool(false));
            }
            let old = case.get("old");
            runs += 1;
            let n = match normalize_json(old, &case["new"], &schema, &ty, &opts) {
                Ok(n) => n,
                Err(e) => {
                    failures.push(format!("{name} [{version}]: {e}"));
                    continue;
                }
            };
            let found = match validate_json(old, &n.object, &schema, &ty, &opts) {
                Ok(f) => f,
                Err(e) => {
                    failures.push(format!("{name} [{version}]: {e}"));
                    continue;
                }
            };
            let mut have: Vec<(String, String)> = found
                .iter()
                .map(|v| (v.path.clone(), v.rule.name().to_owned()))
                .collect();
            have.sort();
            let want: Vec<(String, String)> = pairs(&case["violations"]);
            if n.object != case["normalized"] || json!(n.cleared) != case["cleared"] || have != want
            {
                failures.push(format!(
                    "{name} [{version}]: got {} cleared {:?} violations {have:?}",
                    n.object, n.cleared
                ));
            }
        }
    }
    assert!(runs >= 100, "{runs} runs");
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
