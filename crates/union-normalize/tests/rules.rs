//! The rule-by-rule cases of `testdata/unions/rules.json`: every case runs
//! `normalize(old, new)` and then `validate(old, normalized)` on the file's
//! `definitions`, loaded as OpenAPI v2 and as v3, and must give exactly the
//! expected normalized object, cleared pointers and violations (pointer,
//! rule, and where given a text the message contains).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may unwrap

use serde_json::{json, Value as J};
use smpatch_schema::Schema;
use smpatch_union_normalize::{normalize, validate, Options};
use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions, Value};
use std::path::PathBuf;

fn rules() -> J {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/unions/rules.json");
    let text = std::fs::read_to_string(&path).expect("testdata/unions/rules.json");
    serde_json::from_str(&text).expect("rules.json is JSON")
}

/// The file's definitions as an OpenAPI v2 document and as a v3 one.
fn schemas(defs: &J) -> Vec<(&'static str, Schema)> {
    let v2 = json!({"swagger": "2.0", "info": {"title": "rules", "version": "v1"},
        "paths": {}, "definitions": defs});
    let v3_defs: J = serde_json::from_str(
        &defs
            .to_string()
            .replace("#/definitions/", "#/components/schemas/"),
    )
    .expect("v3 definitions");
    let v3 = json!({"openapi": "3.0.0", "info": {"title": "rules", "version": "v1"},
        "paths": {}, "components": {"schemas": v3_defs}});
    vec![
        (
            "v2",
            Schema::from_bytes(v2.to_string().as_bytes(), "rules.v2.json").expect("v2 loads"),
        ),
        (
            "v3",
            Schema::from_bytes(v3.to_string().as_bytes(), "rules.v3.json").expect("v3 loads"),
        ),
    ]
}

fn options(o: Option<&J>) -> Options {
    let mut opts = Options::default();
    let Some(o) = o.and_then(J::as_object) else {
        return opts;
    };
    for (k, v) in o {
        match (k.as_str(), v) {
            ("non_discriminated_update", J::Bool(b)) => opts.non_discriminated_update = *b,
            ("ratcheting", J::Bool(b)) => opts.ratcheting = *b,
            ("check_enums", J::Bool(b)) => opts.check_enums = *b,
            _ => panic!("unknown option {k}: {v}"),
        }
    }
    opts
}

fn value<'a>(arena: &'a Arena, v: &J) -> Value<'a> {
    let text = arena.alloc_str(&v.to_string());
    parse_json(arena, text.as_bytes(), &ParseOptions::default()).expect("case value parses")
}

/// Runs one case on one schema; returns what differs from the expectation.
fn run(case: &J, schema: &Schema) -> Option<String> {
    let ty = case["type"].as_str().expect("type");
    let cursor = schema.cursor(ty).expect("case type");
    let opts = options(case.get("options"));
    let arena = Arena::new();
    let old = case.get("old").map(|o| value(&arena, o));
    let new = value(&arena, &case["new"]);
    let before = to_json_string(&new);
    let n = match normalize(&arena, old, new, cursor, &opts) {
        Ok(n) => n,
        Err(e) => return Some(format!("normalize failed: {e}")),
    };
    let found = match validate(old, n.value, cursor, &opts) {
        Ok(f) => f,
        Err(e) => return Some(format!("validate failed: {e}")),
    };
    let mut wrong = Vec::new();
    if to_json_string(&new) != before {
        wrong.push("the input `new` changed".to_owned());
    }
    let got: J = serde_json::from_str(&to_json_string(&n.value)).expect("output is JSON");
    if got != case["normalized"] {
        wrong.push(format!("normalized {got}, want {}", case["normalized"]));
    }
    if json!(n.cleared) != case["cleared"] {
        wrong.push(format!("cleared {:?}, want {}", n.cleared, case["cleared"]));
    }
    let mut want: Vec<(String, String, String)> = case["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| {
            let s = |i: usize| v.get(i).and_then(J::as_str).unwrap_or("").to_owned();
            (s(0), s(1), s(2))
        })
        .collect();
    want.sort();
    let mut have: Vec<(String, String, &str)> = found
        .iter()
        .map(|v| (v.path.clone(), v.rule.name().to_owned(), v.message.as_str()))
        .collect();
    have.sort();
    let same = want.len() == have.len()
        && want
            .iter()
            .zip(&have)
            .all(|(w, h)| w.0 == h.0 && w.1 == h.1 && h.2.contains(w.2.as_str()) && h.2.len() > 20);
    if !same {
        wrong.push(format!("violations {have:?}, want {want:?}"));
    }
    (!wrong.is_empty()).then(|| wrong.join("; "))
}

#[test]
fn every_rule_case_holds_for_openapi_v2_and_v3() {
    let doc = rules();
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 50, "{} cases", cases.len());
    let mut failures = Vec::new();
    for (version, schema) in schemas(&doc["definitions"]) {
        for case in cases {
            if let Some(why) = run(case, &schema) {
                failures.push(format!("{} [{version}]: {why}", case["name"]));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_normalized_object_normalizes_to_itself() {
    // Normalizing the result again (old unchanged) clears nothing more.
    let doc = rules();
    for (version, schema) in schemas(&doc["definitions"]) {
        for case in doc["cases"].as_array().expect("cases") {
            let cursor = schema.cursor(case["type"].as_str().expect("type")).unwrap();
            let opts = options(case.get("options"));
            let arena = Arena::new();
            let old = case.get("old").map(|o| value(&arena, o));
            let once = normalize(&arena, old, value(&arena, &case["new"]), cursor, &opts).unwrap();
            let twice = normalize(&arena, old, once.value, cursor, &opts).unwrap();
            assert!(
                twice.cleared.is_empty()
                    && to_json_string(&twice.value) == to_json_string(&once.value),
                "{} [{version}]",
                case["name"]
            );
        }
    }
}
