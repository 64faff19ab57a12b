//! `smpatch::schema_set`: the embedded schema plus files, later files
//! winning (issue 12).

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use serde_json::json;
use smpatch::{apply_json, ApplyOptions, ErrorKind, TypeRef};
use std::path::PathBuf;

const WIDGET: &str = "../../testdata/schemas/widget.v2.json";

/// A schema file defining `Widget` with an atomic `items` list.
fn atomic_widget() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("smpatch-schema-set-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("atomic-widget.json");
    let doc = json!({"swagger": "2.0", "info": {"title": "t", "version": "v1"}, "paths": {},
        "definitions": {"Widget": {"type": "object", "properties": {
            "items": {"type": "array", "items": {"type": "object"}}}}}});
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

#[test]
fn later_files_win_and_the_embedded_types_stay() {
    let live = json!({"items": [{"id": "a", "v": 1}, {"id": "b"}]});
    let patch = json!({"items": [{"id": "a", "w": 2}]});
    let ty = TypeRef::Definition("Widget".into());
    let atomic = atomic_widget();
    let merged = json!({"items": [{"id": "a", "v": 1, "w": 2}, {"id": "b"}]});
    let cases = [
        (vec![PathBuf::from(WIDGET)], merged.clone()),
        (vec![atomic.clone(), PathBuf::from(WIDGET)], merged),
        (vec![PathBuf::from(WIDGET), atomic], patch.clone()),
    ];
    for (paths, want) in cases {
        let set = smpatch::schema_set(&paths).unwrap();
        let out = apply_json(&live, &patch, &set, &ty, &ApplyOptions::default()).unwrap();
        assert_eq!(out, want, "{paths:?}");
        assert!(set.cursor("apps/v1/Deployment").is_some());
    }
}

#[test]
fn no_files_is_the_embedded_schema_and_a_missing_file_is_a_schema_error() {
    let none: [&str; 0] = [];
    let set = smpatch::schema_set(&none).unwrap();
    assert!(set.cursor("v1/Pod").is_some());
    let e = smpatch::schema_set(&["../../testdata/schemas/no-such-file.json"]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Schema(_)), "{e:?}");
}
