//! Differential test against `kubectl patch --local --type strategic -o json`
//! over the corpus in `testdata/kubectl/*.json` (built-in kinds, fields that
//! exist in both kubectl's Kubernetes version and the embedded schema's).
//!
//! Each case: `{"name", "live", "patch", "divergence"?}`. smpatch runs through
//! the batch code path with the type detected from apiVersion/kind. Results
//! must be equal as JSON values (numbers compared by value), or both sides
//! must fail; a case with `divergence` names its entry in
//! `docs/DIVERGENCES.md` and may differ. Skips with a notice when kubectl is
//! not installed. `SMPATCH_CASE=substring` filters cases.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use smpatch::batch::{handle_line, BatchState};
use smpatch_value::{parse_json, to_json_string, Arena, Member, ParseOptions, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Deep equality with numbers compared by value (kubectl re-encodes them).
fn same(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same(&v, &w)))
        }
        _ => a.deep_eq(b),
    }
}

fn kubectl_available() -> bool {
    Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn main() {
    if !kubectl_available() {
        println!("kubectl_diff: kubectl is not installed; skipping the differential test");
        return;
    }
    let dir = repo_root().join("testdata/kubectl");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let divergences =
        std::fs::read_to_string(repo_root().join("docs/DIVERGENCES.md")).unwrap_or_default();
    let filter = std::env::var("SMPATCH_CASE").ok();
    let tmp = std::env::temp_dir().join(format!("smpatch-kubectl-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut state = BatchState::new();
    let (mut agree, mut differ, mut diverge, mut skipped) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let arena = Arena::new();
        let cases = parse_json(&arena, &bytes, &ParseOptions::default()).unwrap();
        for case in cases.as_array().expect("a case file holds a list") {
            let name = case
                .get("name")
                .and_then(|n| n.as_str())
                .expect("case name");
            if filter.as_deref().is_some_and(|f| !name.contains(f)) {
                continue;
            }
            let live = case.get("live").expect("live");
            let patch = case.get("patch").expect("patch");
            let divergence = case.get("divergence").and_then(|d| d.as_str());
            let (lp, pp) = (tmp.join("live.json"), tmp.join("patch.json"));
            std::fs::write(&lp, to_json_string(&live)).unwrap();
            std::fs::write(&pp, to_json_string(&patch)).unwrap();
            let out = Command::new("kubectl")
                .args([
                    "patch",
                    "--local",
                    "--type",
                    "strategic",
                    "-o",
                    "json",
                    "-f",
                ])
                .arg(&lp)
                .arg("--patch-file")
                .arg(&pp)
                .output()
                .expect("run kubectl");
            let stdout = arena.alloc_str(&String::from_utf8_lossy(&out.stdout));
            let theirs = if out.status.success() {
                Ok(
                    parse_json(&arena, stdout.as_bytes(), &ParseOptions::default())
                        .expect("kubectl prints JSON"),
                )
            } else {
                Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
            };
            let request = Value::object_from_members(
                &arena,
                &[
                    Member {
                        key: "id",
                        value: Value::String(name),
                    },
                    Member {
                        key: "op",
                        value: Value::String("apply"),
                    },
                    Member {
                        key: "original",
                        value: live,
                    },
                    Member {
                        key: "patch",
                        value: patch,
                    },
                ],
            );
            let response = handle_line(&mut state, &to_json_string(&request));
            let response = parse_json(
                &arena,
                arena.alloc_str(&response).as_bytes(),
                &ParseOptions::default(),
            )
            .unwrap();
            let kind = response
                .get("error")
                .and_then(|e| e.get("kind"))
                .and_then(|k| k.as_str());
            if kind == Some("unsupported") {
                skipped += 1;
                continue;
            }
            let ours = match response.get("ok") {
                Some(v) => Ok(v),
                None => Err(to_json_string(&response)),
            };
            let equal = match (&theirs, &ours) {
                (Ok(t), Ok(o)) => same(t, o),
                (Err(_), Err(_)) => true,
                _ => false,
            };
            let show = |r: &Result<Value<'_>, String>| match r {
                Ok(v) => format!("ok {}", to_json_string(v)),
                Err(e) => format!("error {e}"),
            };
            match (equal, divergence) {
                (true, None) => agree += 1,
                (true, Some(d)) => {
                    agree += 1;
                    println!("note: {name}: marked divergence {d:?} but results agree");
                }
                (false, Some(d)) => {
                    diverge += 1;
                    if !divergences.contains(d) {
                        failures.push(format!(
                            "{name}: divergence {d:?} is not in docs/DIVERGENCES.md"
                        ));
                    }
                }
                (false, None) => {
                    differ += 1;
                    failures.push(format!(
                        "{name}:\n    kubectl: {}\n    smpatch: {}",
                        show(&theirs),
                        show(&ours)
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    for f in &failures {
        println!("FAIL {f}");
    }
    println!(
        "kubectl_diff: {agree} agree, {differ} differ, {diverge} documented divergences, {skipped} skipped"
    );
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
