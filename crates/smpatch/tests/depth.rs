//! Every facade entry point honours `max_depth` above the default (issue 9):
//! a 500-deep document passes with `max_depth: 1000` and is `too_deep` with
//! the default.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use serde_json::{json, Value as J};
use smpatch::{ApplyOptions, CreateOptions, OnConflict, ThreeWayDocs, TypeRef, DEFAULT_MAX_DEPTH};

const DEPTH: usize = 500;

fn nested_text(leaf: &str) -> String {
    format!("{}{leaf}{}", "{\"a\":".repeat(DEPTH), "}".repeat(DEPTH))
}

fn nested_json(leaf: J) -> J {
    (0..DEPTH).fold(leaf, |inner, _| json!({ "a": inner }))
}

fn apply_opts(max_depth: usize) -> ApplyOptions {
    ApplyOptions::default().with_max_depth(max_depth)
}

fn create_opts(max_depth: usize) -> CreateOptions {
    CreateOptions::default().with_max_depth(max_depth)
}

#[test]
fn json_entry_points() {
    let schema = smpatch::embedded_schema().unwrap();
    let ty = TypeRef::Schemaless;
    let (one, two) = (nested_json(json!(1)), nested_json(json!(2)));
    let empty = json!({});
    let out = smpatch::apply_json(&one, &two, schema, &ty, &apply_opts(1000)).unwrap();
    assert_eq!(out, two);
    let e = smpatch::apply_json(&one, &two, schema, &ty, &apply_opts(DEFAULT_MAX_DEPTH));
    assert_eq!(e.unwrap_err().name(), "too_deep");
    let out = smpatch::create_two_way_json(&one, &two, schema, &ty, &create_opts(1000)).unwrap();
    assert_eq!(out, two);
    let e = smpatch::create_two_way_json(&one, &two, schema, &ty, &create_opts(DEFAULT_MAX_DEPTH));
    assert_eq!(e.unwrap_err().name(), "too_deep");
    let out = smpatch::create_three_way_json(
        ThreeWayDocs::new(&empty, &two, &one),
        schema,
        &ty,
        OnConflict::Overwrite,
        &create_opts(1000),
    )
    .unwrap();
    assert_eq!(out, two);
    assert!(smpatch::conflicts_json(&one, &two, schema, &ty, &create_opts(1000)).unwrap());
    let out = smpatch::compose_json(&one, &two, schema, &ty, &create_opts(1000)).unwrap();
    assert_eq!(out, two);
}

#[test]
fn bytes_entry_points() {
    let schema = smpatch::embedded_schema().unwrap();
    let ty = TypeRef::Schemaless;
    let (one, two) = (nested_text("1"), nested_text("2"));
    let (one, two) = (one.as_bytes(), two.as_bytes());
    let out = smpatch::apply_bytes(one, two, schema, &ty, &apply_opts(1000)).unwrap();
    assert_eq!(out, two);
    let e = smpatch::apply_bytes(one, two, schema, &ty, &apply_opts(DEFAULT_MAX_DEPTH));
    assert_eq!(e.unwrap_err().name(), "too_deep");
    let out = smpatch::create_two_way_bytes(one, two, schema, &ty, &create_opts(1000)).unwrap();
    assert_eq!(out, two);
    let out = smpatch::create_three_way_bytes(
        ThreeWayDocs::new(b"{}", two, one),
        schema,
        &ty,
        OnConflict::Overwrite,
        &create_opts(1000),
    )
    .unwrap();
    assert_eq!(out, two);
    assert!(smpatch::conflicts_bytes(one, two, schema, &ty, &create_opts(1000)).unwrap());
    let e = smpatch::conflicts_bytes(one, two, schema, &ty, &create_opts(DEFAULT_MAX_DEPTH));
    assert_eq!(e.unwrap_err().name(), "too_deep");
    let out = smpatch::compose_bytes(one, two, schema, &ty, &create_opts(1000)).unwrap();
    assert_eq!(out, two);
}
