//! Data-driven cases from `testdata/value/*.json`, all run by one `check`.
//!
//! Case fields: `name`, `input`, `format` (`json`|`yaml`), `options`, then
//! outputs `compact`|`go`|`pretty`|`go_pretty`|`yaml`, or `error` (kind name)
//! with optional `error_path` (JSON pointer) and `error_at` (`line:column`).
//!
//! Set `SMPATCH_CASE=<substring>` to run only the cases whose name matches.

use serde_json::{Map, Value as J};
use smpatch_value::{
    parse_json, parse_yaml, to_go_json, to_go_json_pretty, to_json_pretty, to_json_string,
    to_yaml_string, Arena, DuplicateKeys, ParseOptions, Value,
};
use std::path::PathBuf;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/value")
}

fn load(name: &str) -> J {
    let path = testdata().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

fn options(o: Option<&J>) -> ParseOptions {
    let mut opts = ParseOptions::default();
    let Some(o) = o else { return opts };
    for (k, v) in o.as_object().expect("options is an object") {
        let n = || v.as_u64().expect("numeric option") as usize;
        match k.as_str() {
            "max_depth" => opts.max_depth = n(),
            "max_input_bytes" => opts.max_input_bytes = n(),
            "max_string_bytes" => opts.max_string_bytes = n(),
            "max_yaml_alias_expansions" => opts.max_yaml_alias_expansions = n(),
            "duplicate_keys" => {
                opts.duplicate_keys = match v.as_str() {
                    Some("error") => DuplicateKeys::Error,
                    Some("last_wins") => DuplicateKeys::LastWins,
                    other => panic!("bad duplicate_keys {other:?}"),
                }
            }
            other => panic!("unknown option {other}"),
        }
    }
    opts
}

const FIELDS: &[&str] = &[
    "name",
    "input",
    "format",
    "options",
    "compact",
    "go",
    "pretty",
    "go_pretty",
    "yaml",
    "error",
    "error_path",
    "error_at",
];

type Writer = fn(&Value<'_>) -> String;

/// Runs one case; returns a failure description.
fn check(case: &Map<String, J>) -> Result<(), String> {
    for k in case.keys() {
        if !FIELDS.contains(&k.as_str()) {
            return Err(format!("unknown field {k}"));
        }
    }
    let input = case["input"].as_str().expect("input is a string");
    let opts = options(case.get("options"));
    let arena = Arena::new();
    let parsed: Result<Vec<Value<'_>>, _> =
        match case.get("format").and_then(J::as_str).unwrap_or("json") {
            "json" => parse_json(&arena, input.as_bytes(), &opts).map(|v| vec![v]),
            "yaml" => parse_yaml(&arena, input, &opts),
            f => return Err(format!("unknown format {f}")),
        };
    if let Some(kind) = case.get("error").and_then(J::as_str) {
        let err = match parsed {
            Ok(v) => {
                let got: Vec<String> = v.iter().map(to_json_string).collect();
                return Err(format!("expected error {kind}, got {got:?}"));
            }
            Err(e) => e,
        };
        if err.kind_name() != kind {
            return Err(format!(
                "expected error {kind}, got {}: {err}",
                err.kind_name()
            ));
        }
        if let Some(path) = case.get("error_path").and_then(J::as_str) {
            if err.path != path {
                return Err(format!(
                    "expected error path {path:?}, got {:?}: {err}",
                    err.path
                ));
            }
        }
        if let Some(at) = case.get("error_at").and_then(J::as_str) {
            let got = format!("{}:{}", err.line, err.column);
            if got != at {
                return Err(format!(
                    "expected error at {at} (line:column), got {got}: {err}"
                ));
            }
        }
        let shown = err.to_string();
        if !shown.contains(&format!("line {}", err.line)) {
            return Err(format!("Display lacks the location: {shown}"));
        }
        return Ok(());
    }
    let docs = parsed.map_err(|e| format!("unexpected error {}: {e}", e.kind_name()))?;
    let writers: [(&str, Writer); 5] = [
        ("compact", to_json_string),
        ("go", to_go_json),
        ("pretty", to_json_pretty),
        ("go_pretty", to_go_json_pretty),
        ("yaml", to_yaml_string),
    ];
    let mut checked = 0;
    for (field, write) in writers {
        if let Some(want) = case.get(field).and_then(J::as_str) {
            checked += 1;
            let got: Vec<String> = docs.iter().map(write).collect();
            let got = got.join("\n");
            if got != want {
                return Err(format!("{field}:\n want {want:?}\n  got {got:?}"));
            }
        }
    }
    if checked == 0 {
        return Err("case checks nothing".into());
    }
    // Every successful case must also round-trip through our own writers.
    for v in &docs {
        let text = to_json_string(v);
        let a2 = Arena::new();
        let back = parse_json(&a2, text.as_bytes(), &ParseOptions::default())
            .map_err(|e| format!("re-parse of {text}: {e}"))?;
        if back != *v {
            return Err(format!("JSON round trip changed the value: {text}"));
        }
    }
    Ok(())
}

fn run_file(name: &str) {
    let filter = std::env::var("SMPATCH_CASE").ok();
    let doc = load(name);
    let cases = doc["cases"].as_array().expect("cases");
    let mut failures = Vec::new();
    for case in cases {
        let case = case.as_object().expect("case is an object");
        let cname = case["name"].as_str().expect("name");
        if filter.as_deref().is_some_and(|f| !cname.contains(f)) {
            continue;
        }
        if let Err(e) = check(case) {
            failures.push(format!("{name}: {cname}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn json_cases() {
    run_file("json.json");
}

#[test]
fn yaml_cases() {
    run_file("yaml.json");
}

/// The kubectl-verified scalar table: `kubectl` is what kubectl printed for
/// the scalar, which must equal our Go-compatible output.
#[test]
fn yaml_scalars_match_kubectl() {
    let doc = load("yaml-scalars.json");
    let opts = ParseOptions::default();
    let mut failures = Vec::new();
    for c in doc["values"].as_array().expect("values") {
        let (y, want) = (c["yaml"].as_str().unwrap(), c["kubectl"].as_str().unwrap());
        let input = format!("v: {y}\n");
        let arena = Arena::new();
        match smpatch_value::parse_yaml_single(&arena, &input, &opts) {
            Ok(v) => {
                let got = to_go_json(&v.get("v").unwrap());
                if got != want {
                    failures.push(format!("value {y:?}: want {want}, got {got}"));
                }
            }
            Err(e) => failures.push(format!("value {y:?}: {e}")),
        }
    }
    for c in doc["keys"].as_array().expect("keys") {
        let (y, want) = (c["yaml"].as_str().unwrap(), c["kubectl"].as_str().unwrap());
        let input = format!("{y}: x\n");
        let arena = Arena::new();
        match smpatch_value::parse_yaml_single(&arena, &input, &opts) {
            Ok(v) => {
                let key = v.as_object().unwrap().members()[0].key;
                let got = to_go_json(&Value::String(key));
                if got != want {
                    failures.push(format!("key {y:?}: want {want}, got {got}"));
                }
            }
            Err(e) => failures.push(format!("key {y:?}: {e}")),
        }
    }
    for c in doc["errors"].as_array().expect("errors") {
        let (y, want) = (c["yaml"].as_str().unwrap(), c["error"].as_str().unwrap());
        let arena = Arena::new();
        match parse_yaml(&arena, y, &opts) {
            Ok(v) => failures.push(format!("{y:?}: want error {want}, got {}", v.len())),
            Err(e) if e.kind_name() != want => {
                failures.push(format!("{y:?}: want error {want}, got {e}"))
            }
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
