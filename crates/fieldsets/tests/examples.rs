//! The worked examples of `testdata/fieldsets/*.json` (our own objects for
//! each rule of docs/FIELDSETS.md): the expected Apply set (canonical bytes),
//! optionally the Update-on-create set, and extraction results. Every
//! extraction with the default options is also checked against the subset
//! law: the field set of the result lies within the manager's set.

use std::path::PathBuf;

use serde_json::Value as J;
use smpatch_fieldsets::{
    extract, fields_of, managed_fields, ApiCheck, ExtractOptions, FieldSet, FieldsOptions,
};
use smpatch_schema::Schema;
use smpatch_value::{from_serde, to_json_string, Arena};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The example's schema; `None` for an `openapi:FILE` of the shared suite
/// when the suite is absent (the example skips, after testkit's notice).
fn load_schema(spec: &J) -> Option<Schema> {
    Some(match spec {
        J::String(s) if s == "embedded" => smpatch_schema::embedded().clone(),
        J::String(s) => {
            let file = s.strip_prefix("openapi:").expect("openapi:FILE");
            let path = smpatch_testkit::shared_path("openapi")?.join(file);
            let bytes = std::fs::read(&path).expect("shared openapi document");
            Schema::from_bytes(&bytes, file).expect("schema")
        }
        doc => Schema::from_bytes(doc.to_string().as_bytes(), "inline").expect("inline schema"),
    })
}

fn options(name: Option<&str>) -> ExtractOptions {
    match name.unwrap_or("default") {
        "default" => ExtractOptions::default(),
        "reference" => ExtractOptions::reference(),
        "strict" => ExtractOptions {
            api_version_check: ApiCheck::Strict,
            ..ExtractOptions::default()
        },
        "keys" => ExtractOptions {
            include_key_fields: true,
            ..ExtractOptions::default()
        },
        other => panic!("unknown options {other}"),
    }
}

fn run(path: &PathBuf) -> Vec<String> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("?")
        .to_owned();
    let mut failures = Vec::new();
    let case: J = serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json");
    let Some(schema) = load_schema(&case["schema"]) else {
        return failures;
    };
    let ty = case["type"].as_str().expect("type");
    let cursor = schema
        .cursor(ty)
        .unwrap_or_else(|| panic!("{name}: no type {ty}"));
    let arena = Arena::new();
    let object = from_serde(&arena, &case["object"], 256).expect("object");
    let apply = fields_of(&object, cursor, &FieldsOptions::default());
    match (&case["apply_set"], &case["apply_error"], apply) {
        (J::String(want), _, Ok(set)) => {
            if set.to_json() != *want {
                failures.push(format!(
                    "{name}: apply set\n  got  {}\n  want {want}",
                    set.to_json()
                ));
            }
            let back = FieldSet::from_json(want.as_bytes()).map(|s| s.to_json());
            if back.as_ref() != Ok(want) {
                failures.push(format!("{name}: expected set is not canonical"));
            }
        }
        (_, J::Object(e), Err(err)) => {
            if e["kind"].as_str() != Some(err.kind().name())
                || e["path"].as_str() != Some(err.path())
            {
                failures.push(format!("{name}: apply error {err:?}, want {e:?}"));
            }
        }
        (J::Null, J::Null, _) => {}
        (_, _, r) => failures.push(format!("{name}: apply result {r:?}")),
    }
    if let J::String(want) = &case["update_set"] {
        let opts = FieldsOptions {
            strip_server_fields: true,
            ..FieldsOptions::update_on_create()
        };
        match fields_of(&object, cursor, &opts) {
            Ok(set) if set.to_json() == *want => {}
            r => failures.push(format!(
                "{name}: update set\n  got  {:?}\n  want {want}",
                r.map(|s| s.to_json())
            )),
        }
    }
    for (i, x) in case["extract"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let live_json = if x["object"].is_null() {
            &case["object"]
        } else {
            &x["object"]
        };
        let live = from_serde(&arena, live_json, 256).expect("live");
        let mut opts = options(x["options"].as_str());
        opts.subresource = x["subresource"].as_str().unwrap_or("").to_owned();
        let manager = x["manager"].as_str().expect("manager");
        let got = extract(&arena, &live, cursor, manager, &opts);
        match (got, &x["expected"], &x["error"]) {
            (Ok(v), want, J::Null) => {
                let text = to_json_string(&v);
                let want_text = serde_json::to_string(want).expect("json");
                if text != want_text {
                    failures.push(format!(
                        "{name}: extract {i} ({manager})\n  got  {text}\n  want {want}"
                    ));
                }
                if x["options"].as_str().unwrap_or("default") == "default" {
                    let entries = managed_fields(&live).expect("entries");
                    if let Some(e) = entries.iter().find(|e| {
                        e.manager == manager
                            && e.operation == "Apply"
                            && e.subresource == opts.subresource
                    }) {
                        let owned = e.field_set().expect("set");
                        let fs = fields_of(&v, cursor, &FieldsOptions::default())
                            .expect("fields of result");
                        let law_exempt = x["subset_law_exempt"].as_bool().unwrap_or(false);
                        if !law_exempt && !fs.is_subset(&owned) {
                            failures.push(format!(
                                "{name}: extract {i}: subset law broken: {} not within {}",
                                fs.to_json(),
                                owned.to_json()
                            ));
                        }
                        if let J::Bool(true) = x["round_trip"] {
                            if fs != owned {
                                failures.push(format!(
                                    "{name}: extract {i}: round trip {} != {}",
                                    fs.to_json(),
                                    owned.to_json()
                                ));
                            }
                        }
                    }
                }
            }
            (Err(e), _, J::String(kind)) if e.kind().name() == kind => {}
            (r, _, _) => failures.push(format!("{name}: extract {i}: {r:?}")),
        }
    }
    failures
}

#[test]
fn worked_examples() {
    let dir = root().join("testdata/fieldsets");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("testdata/fieldsets")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 12, "worked examples: {}", files.len());
    let failures: Vec<String> = files.iter().flat_map(run).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
