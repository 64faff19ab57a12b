//! Conformance driver: every case file of the shared reference suite and of
//! the project's own `testdata/` runs through the batch code path
//! (`smpatch::batch::handle_line`), against the v2 and the v3 schema of each
//! case. Prints `conformance: N passed, M failed, K skipped`.
//!
//! The shared suite is optional: without it the project's own cases run
//! alone, after the notice of `smpatch_testkit::shared_dir` (a failure when
//! `SMPATCH_REQUIRE_SHARED=1`, as in CI).
//!
//! Environment: `SMPATCH_SHARED` (default `<repo>/../shared`), `SMPATCH_CASE`
//! (run only cases whose name contains this text), `SMPATCH_REQUIRE_SHARED`.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use smpatch::batch::{handle_line, BatchState};
use smpatch_value::{parse_json, render, to_json_string, Arena, Member, ParseOptions, Value};
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Reference message fragments → our error kinds, in
/// `testdata/conformance-phrases.json` (the Python conformance test reads the
/// same table); the first fragment a message contains wins.
fn phrases() -> &'static [(String, String)] {
    static PHRASES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    PHRASES.get_or_init(|| {
        let path = repo_root().join("testdata/conformance-phrases.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        doc["phrases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|pair| {
                let text = |i: usize| pair[i].as_str().unwrap().to_owned();
                (text(0), text(1))
            })
            .collect()
    })
}

fn expected_kind(text: &str) -> Option<&'static str> {
    phrases()
        .iter()
        .find(|(phrase, _)| text.contains(phrase.as_str()))
        .map(|(_, kind)| kind.as_str())
}

fn is_kind_name(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
}

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
    failures: Vec<String>,
    notes: Vec<String>,
}

fn truncate(s: &str, n: usize) -> String {
    if s.len() <= n {
        s.to_owned()
    } else {
        let mut end = n;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    }
}

/// Sorts, recursively, every list of objects that all have `name` (by name)
/// and every list of scalars (by value).
fn sort_lists<'a>(arena: &'a Arena, v: Value<'a>) -> Value<'a> {
    match v {
        Value::Object(o) => {
            let members: Vec<Member<'a>> = o
                .members()
                .iter()
                .map(|m| Member {
                    key: m.key,
                    value: sort_lists(arena, m.value),
                })
                .collect();
            Value::object_from_members(arena, &members)
        }
        Value::Array(items) => {
            let mut items: Vec<Value<'a>> = items.iter().map(|i| sort_lists(arena, *i)).collect();
            let all_named = !items.is_empty()
                && items
                    .iter()
                    .all(|i| i.is_object() && i.get("name").is_some());
            let all_scalar = items.iter().all(|i| i.kind().is_scalar());
            if all_named {
                items.sort_by(|a, b| {
                    let (x, y) = (
                        a.get("name").unwrap_or(Value::Null),
                        b.get("name").unwrap_or(Value::Null),
                    );
                    (x.kind(), render(&x)).cmp(&(y.kind(), render(&y)))
                });
            } else if all_scalar {
                items.sort_by(|a, b| (a.kind(), render(a)).cmp(&(b.kind(), render(b))));
            }
            Value::array_from(arena, &items)
        }
        other => other,
    }
}

/// Every case file: `*.json` directly in the shared conformance folder (when
/// there is one), and every `*.json` below `testdata/` that holds a list of
/// cases.
fn case_files(conformance: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(conformance) = conformance {
        let mut shared: Vec<PathBuf> = std::fs::read_dir(conformance)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", conformance.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
            .collect();
        shared.sort();
        files.extend(shared);
    }
    let mut stack = vec![repo_root().join("testdata")];
    let mut own = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                own.push(p);
            }
        }
    }
    own.sort();
    files.extend(own);
    files
}

fn is_case_list(v: &Value<'_>) -> bool {
    match v.as_array() {
        Some(items) => {
            !items.is_empty()
                && items
                    .iter()
                    .all(|c| c.get("checks").is_some() && c.get("name").is_some())
        }
        None => false,
    }
}

const INPUTS: &[&str] = &["original", "patch", "modified", "current", "left", "right"];

fn main() {
    // `None`: the shared suite is absent (notice printed); own cases only.
    let conformance = smpatch_testkit::shared_dir().map(|shared| shared.join("conformance"));
    if let Some(c) = conformance.as_deref().filter(|c| !c.is_dir()) {
        eprintln!(
            "conformance: the shared conformance folder is missing: {} (set SMPATCH_SHARED)",
            c.display()
        );
        std::process::exit(1);
    }
    let filter = std::env::var("SMPATCH_CASE").ok();
    let mut state = BatchState::new();
    let mut tally = Tally::default();
    let mut files_run = 0;
    for file in case_files(conformance.as_deref()) {
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let arena = Arena::new();
        let opts = ParseOptions::default().with_max_depth(1024);
        let doc = match parse_json(&arena, &bytes, &opts) {
            Ok(d) => d,
            Err(e) => {
                if conformance.as_deref().is_some_and(|c| file.starts_with(c)) {
                    panic!("{}: {e}", file.display());
                }
                continue;
            }
        };
        if !is_case_list(&doc) {
            continue;
        }
        files_run += 1;
        let case_dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
        for case in doc.as_array().unwrap_or(&[]) {
            let name = case.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            if filter.as_deref().is_some_and(|f| !name.contains(f)) {
                continue;
            }
            run_case(
                &mut state,
                &mut tally,
                &arena,
                *case,
                &case_dir,
                conformance.as_deref(),
            );
        }
    }
    for f in &tally.failures {
        println!("FAIL {f}");
    }
    for n in &tally.notes {
        println!("note: {n}");
    }
    println!("conformance files: {files_run}");
    println!(
        "conformance: {} passed, {} failed, {} skipped",
        tally.passed, tally.failed, tally.skipped
    );
    println!(
        "{} passed, {} failed, {} skipped",
        tally.passed, tally.failed, tally.skipped
    );
    if tally.failed > 0 || files_run == 0 {
        std::process::exit(1);
    }
}

/// The schema variants of a case: `(label, schema value for the request)`.
fn schema_variants<'a>(
    arena: &'a Arena,
    schema: Option<Value<'a>>,
    case_dir: &Path,
    conformance: Option<&Path>,
) -> Vec<(String, Option<Value<'a>>)> {
    let Some(s) = schema else {
        return vec![("detect".into(), None)];
    };
    let Some(file) = s.get("file").and_then(|f| f.as_str()) else {
        return vec![("schema".into(), Some(s))];
    };
    let resolve = |f: &str| -> PathBuf {
        let local = case_dir.join(f);
        match conformance {
            Some(c) if !local.exists() => c.join(f),
            _ => local,
        }
    };
    let mut files = vec![("v2".to_owned(), resolve(file))];
    if file.contains(".v2.") {
        let v3 = resolve(&file.replace(".v2.", ".v3."));
        if v3.exists() {
            files.push(("v3".to_owned(), v3));
        }
    } else {
        files[0].0 = "schema".into();
    }
    files
        .into_iter()
        .map(|(label, path)| {
            let path = arena.alloc_str(&path.to_string_lossy());
            let mut members = vec![Member {
                key: "file",
                value: Value::String(path),
            }];
            if let Some(d) = s.get("definition") {
                members.push(Member {
                    key: "definition",
                    value: d,
                });
            }
            (label, Some(Value::object_from_members(arena, &members)))
        })
        .collect()
}

fn run_case<'a>(
    state: &mut BatchState,
    tally: &mut Tally,
    arena: &'a Arena,
    case: Value<'a>,
    case_dir: &Path,
    conformance: Option<&Path>,
) {
    let name = case.get("name").and_then(|n| n.as_str()).unwrap_or("?");
    let sorted = case.get("compare").and_then(|c| c.as_str()) == Some("sorted-merge-lists");
    let case_raw = case
        .get("rawInputs")
        .and_then(|r| r.as_bool())
        .unwrap_or(false);
    let variants = schema_variants(arena, case.get("schema"), case_dir, conformance);
    let checks = case.get("checks").and_then(|c| c.as_array()).unwrap_or(&[]);
    for (i, check) in checks.iter().enumerate() {
        let op = check.get("op").and_then(|o| o.as_str()).unwrap_or("?");
        let raw = case_raw
            || check
                .get("rawInputs")
                .and_then(|r| r.as_bool())
                .unwrap_or(false);
        for (label, schema) in &variants {
            let mut members = vec![
                Member {
                    key: "id",
                    value: Value::String(arena.alloc_str(&format!("{name}#{i}"))),
                },
                Member {
                    key: "op",
                    value: Value::String(op),
                },
            ];
            if let Some(s) = schema {
                members.push(Member {
                    key: "schema",
                    value: *s,
                });
            }
            for key in INPUTS {
                if let Some(v) = check.get(key) {
                    match (raw, v) {
                        (true, Value::String(_)) => {
                            let k = arena.alloc_str(&format!("{key}_text"));
                            members.push(Member { key: k, value: v });
                        }
                        _ => members.push(Member { key, value: v }),
                    }
                }
            }
            for key in ["overwrite", "options"] {
                if let Some(v) = check.get(key) {
                    members.push(Member { key, value: v });
                }
            }
            let request = to_json_string(&Value::object_from_members(arena, &members));
            let response_text = handle_line(state, &request);
            let response = match parse_json(
                arena,
                arena.alloc_str(&response_text).as_bytes(),
                &ParseOptions::default(),
            ) {
                Ok(r) => r,
                Err(e) => {
                    tally.failed += 1;
                    tally.failures.push(format!(
                        "{name} [{label}] #{i} {op}: unparsable response {e}: {response_text}"
                    ));
                    continue;
                }
            };
            let expect = check.get("expect").unwrap_or(Value::Null);
            let outcome = judge(arena, expect, response, sorted);
            let where_ = format!("{name} [{label}] #{i} {op}");
            match outcome {
                Outcome::Pass(note) => {
                    tally.passed += 1;
                    if let Some(n) = note {
                        tally.notes.push(format!("{where_}: {n}"));
                    }
                }
                Outcome::Skip => tally.skipped += 1,
                Outcome::Fail(why) => {
                    tally.failed += 1;
                    tally.failures.push(format!("{where_}: {why}"));
                }
            }
        }
    }
}

enum Outcome {
    Pass(Option<String>),
    Fail(String),
    Skip,
}

fn judge<'a>(arena: &'a Arena, expect: Value<'a>, response: Value<'a>, sorted: bool) -> Outcome {
    let error = response.get("error");
    let kind = error.and_then(|e| e.get("kind")).and_then(|k| k.as_str());
    if kind == Some("unsupported") {
        return Outcome::Skip;
    }
    let got = || truncate(&to_json_string(&response), 400);
    if let Some(want) = expect.get("ok") {
        let Some(ok) = response.get("ok") else {
            return Outcome::Fail(format!(
                "expected ok {} got {}",
                truncate(&to_json_string(&want), 300),
                got()
            ));
        };
        let (a, b) = if sorted {
            (sort_lists(arena, want), sort_lists(arena, ok))
        } else {
            (want, ok)
        };
        return if a.deep_eq(&b) {
            Outcome::Pass(None)
        } else {
            Outcome::Fail(format!(
                "expected ok {} got {}",
                truncate(&to_json_string(&want), 300),
                got()
            ))
        };
    }
    if expect.get("conflict").and_then(|c| c.as_bool()) == Some(true) {
        return if kind == Some("conflict") {
            Outcome::Pass(None)
        } else {
            Outcome::Fail(format!("expected a conflict error, got {}", got()))
        };
    }
    if let Some(text) = expect.get("error").and_then(|e| e.as_str()) {
        let Some(kind) = kind else {
            return Outcome::Fail(format!("expected error {text:?}, got {}", got()));
        };
        let want = if is_kind_name(text) {
            Some(text)
        } else {
            expected_kind(text)
        };
        return match want {
            Some(w) if w == kind => Outcome::Pass(None),
            Some(w) => Outcome::Fail(format!("expected error kind {w} ({text:?}), got {}", got())),
            None => Outcome::Pass(Some(format!(
                "unmapped reference phrase {text:?}; accepted kind {kind}"
            ))),
        };
    }
    Outcome::Fail(format!("unknown expectation {}", to_json_string(&expect)))
}
