//! The walk of `normalize` / `validate`: pairing of old and new values in
//! keyed lists (merge key and list-map keys), maps and positional lists,
//! structural sharing, the depth guard, inputs left unchanged, and messages
//! that stay short for huge values.

#![allow(clippy::unwrap_used)] // tests may unwrap

use smpatch_schema::Schema;
use smpatch_union_normalize::{normalize, validate, ErrorKind, Options, Rule};
use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions, Value};

const SCHEMA: &str = r##"{"swagger": "2.0", "definitions": {
  "Host": {"type": "object", "properties": {
    "byName": {"type": "array", "items": {"$ref": "#/definitions/U"},
               "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
    "byPair": {"type": "array", "items": {"$ref": "#/definitions/U"},
               "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "zone"]},
    "byIndex": {"type": "array", "items": {"$ref": "#/definitions/U"}},
    "byKey": {"type": "object", "additionalProperties": {"$ref": "#/definitions/U"}},
    "nested": {"type": "array", "items": {"type": "array", "items": {"$ref": "#/definitions/U"}}},
    "self": {"$ref": "#/definitions/Host"},
    "plain": {"type": "object", "properties": {"x": {"type": "string"}}}}},
  "U": {"type": "object", "properties": {
    "name": {"type": "string"}, "zone": {"type": "string"},
    "t": {"type": "string", "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}, "B": {"name": "b"}, "": null}}},
    "a": {"type": "integer"}, "b": {"type": "integer"}}}}}"##;

fn schema() -> Schema {
    Schema::from_bytes(SCHEMA.as_bytes(), "walk.json").unwrap()
}

fn p<'a>(arena: &'a Arena, s: &str) -> Value<'a> {
    let text = arena.alloc_str(s);
    parse_json(arena, text.as_bytes(), &ParseOptions::default()).unwrap()
}

fn run(old: &str, new: &str) -> (String, Vec<String>) {
    let s = schema();
    let arena = Arena::new();
    let (o, n) = (p(&arena, old), p(&arena, new));
    let r = normalize(
        &arena,
        Some(o),
        n,
        s.cursor("Host").unwrap(),
        &Options::default(),
    )
    .unwrap();
    (to_json_string(&r.value), r.cleared)
}

#[test]
fn keyed_lists_pair_by_key_not_position() {
    // The old element "y" moved to index 0: it is unchanged (B stays B).
    let (out, cleared) = run(
        r#"{"byName": [{"name": "x", "t": "A", "a": 1}, {"name": "y", "t": "B", "b": 1}]}"#,
        r#"{"byName": [{"name": "y", "t": "B", "b": 1, "a": 2}, {"name": "x", "t": "B", "a": 1, "b": 2}]}"#,
    );
    assert_eq!(cleared, ["/byName/1/a"]);
    assert!(out.contains(r#"{"name":"y","t":"B","b":1,"a":2}"#), "{out}");
    // Composite list-map keys.
    let (_, cleared) = run(
        r#"{"byPair": [{"name": "x", "zone": "1", "t": "A"}, {"name": "x", "zone": "2", "t": "B"}]}"#,
        r#"{"byPair": [{"name": "x", "zone": "2", "t": "A", "a": 1, "b": 1}, {"name": "x", "zone": "1", "t": "A", "a": 1, "b": 1}]}"#,
    );
    assert_eq!(cleared, ["/byPair/0/b"]);
}

#[test]
fn maps_positional_and_nested_lists() {
    let (_, mut cleared) = run(
        r#"{"byKey": {"k": {"t": "A"}}, "byIndex": [{"t": "A"}, {"t": "B"}], "nested": [[{"t": "A"}]]}"#,
        r#"{"byKey": {"k": {"t": "B", "a": 1, "b": 1}, "new": {"t": "A", "a": 1, "b": 1}},
            "byIndex": [{"t": "A", "a": 1, "b": 1}, {"t": "A", "a": 1, "b": 1}], "nested": [[{"t": "", "a": 1}]]}"#,
    );
    cleared.sort();
    assert_eq!(
        cleared,
        [
            "/byIndex/1/b",
            "/byKey/k/a",
            "/byKey/new/b",
            "/nested/0/0/a"
        ]
    );
}

#[test]
fn unchanged_subtrees_are_shared_and_inputs_untouched() {
    let s = schema();
    let arena = Arena::new();
    let old = p(
        &arena,
        r#"{"byName": [{"name": "x", "t": "A", "a": 1}], "plain": {"x": "1"}}"#,
    );
    let new = p(
        &arena,
        r#"{"byName": [{"name": "x", "t": "B", "a": 1, "b": 2}], "plain": {"x": "1"}}"#,
    );
    let before = to_json_string(&new);
    let cursor = s.cursor("Host").unwrap();
    let r = normalize(&arena, Some(old), new, cursor, &Options::default()).unwrap();
    assert_eq!(to_json_string(&new), before, "new is not changed");
    assert_eq!(r.cleared, ["/byName/0/a"]);
    let (Some(Value::Object(a)), Some(Value::Object(b))) = (new.get("plain"), r.value.get("plain"))
    else {
        panic!("plain kept");
    };
    assert!(
        std::ptr::eq(a.members(), b.members()),
        "unchanged subtrees are shared"
    );
    // Nothing to do: the very same value comes back.
    let r = normalize(&arena, Some(old), old, cursor, &Options::default()).unwrap();
    let (Value::Object(x), Value::Object(y)) = (old, r.value) else {
        panic!("objects")
    };
    assert!(std::ptr::eq(x.members(), y.members()));
}

#[test]
fn depth_guard_is_an_error_not_a_stack_overflow() {
    let s = schema();
    let arena = Arena::new();
    let mut text = String::new();
    for _ in 0..200 {
        text.push_str(r#"{"self":"#);
    }
    text.push_str("{}");
    for _ in 0..200 {
        text.push('}');
    }
    let opts = ParseOptions::default().with_max_depth(1000);
    let v = parse_json(&arena, text.as_bytes(), &opts).unwrap();
    let cursor = s.cursor("Host").unwrap();
    let limited = Options {
        max_depth: 50,
        ..Options::default()
    };
    let e = normalize(&arena, None, v, cursor, &limited).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TooDeep);
    assert!(e.path.starts_with("/self/self/"), "{}", e.path);
    let e = validate(None, v, cursor, &limited).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TooDeep);
    assert!(normalize(&arena, None, v, cursor, &Options::default()).is_ok());
}

#[test]
fn a_very_deep_walk_under_a_huge_limit_does_not_overflow() {
    // The walk recurses, one `grow_stack` per level: 300,000 levels under a
    // limit that lets them all through must neither overflow nor fail.
    const DEPTH: usize = 300_000;
    let s = schema();
    let arena = Arena::new();
    let mut text = String::with_capacity(DEPTH * 10 + 64);
    for _ in 0..DEPTH {
        text.push_str(r#"{"self":"#);
    }
    text.push_str(r#"{"byName":[{"name":"x","t":"B","a":1,"b":2}]}"#);
    for _ in 0..DEPTH {
        text.push('}');
    }
    let opts = ParseOptions::default().with_max_depth(DEPTH + 10);
    let v = parse_json(&arena, text.as_bytes(), &opts).unwrap();
    let cursor = s.cursor("Host").unwrap();
    let huge = Options {
        max_depth: DEPTH + 10,
        ..Options::default()
    };
    let bottom = format!("{}/byName/0", "/self".repeat(DEPTH));
    // Created with `t: B`: the deselected member `a` is cleared.
    let r = normalize(&arena, None, v, cursor, &huge).unwrap();
    assert_eq!(r.cleared, vec![format!("{bottom}/a")]);
    let found = validate(None, v, cursor, &huge).unwrap();
    assert_eq!(found.len(), 2); // V3 and V5 at the bottom
    assert!(found.iter().any(|f| f.path == bottom));
    assert!(found.iter().any(|f| f.path == format!("{bottom}/a")));
}

#[test]
fn long_values_are_cut_in_messages() {
    let s = schema();
    let arena = Arena::new();
    let big = "Z".repeat(100_000);
    let v = p(&arena, &format!(r#"{{"t": "{big}", "a": 1}}"#));
    let found = validate(None, v, s.cursor("U").unwrap(), &Options::default()).unwrap();
    assert_eq!(found[0].rule, Rule::V1);
    assert!(found[0].message.len() < 400, "{}", found[0].message.len());
    assert!(found[0].message.contains("(100000 bytes)"));
}

#[test]
fn several_unions_in_one_object_in_both_formats() {
    let s = Schema::from_bytes(
        br#"{"swagger": "2.0", "definitions": {"Two": {
          "x-kubernetes-unions": [{"discriminator": "kind", "fields-to-discriminateBy": {"x": "X", "y": "Y"}}],
          "properties": {
            "t": {"type": "string", "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}, "B": {"name": "b"}}}},
            "a": {"type": "integer"}, "b": {"type": "integer"},
            "kind": {"type": "string"}, "x": {"type": "integer"}, "y": {"type": "integer"}}}}}"#,
        "two.json",
    )
    .unwrap();
    let cursor = s.cursor("Two").unwrap();
    assert_eq!(cursor.unions().len(), 2);
    let arena = Arena::new();
    let old = p(&arena, r#"{"t": "A", "a": 1, "kind": "X", "x": 1}"#);
    let new = p(
        &arena,
        r#"{"t": "B", "a": 1, "b": 2, "kind": "Y", "x": 1, "y": 2}"#,
    );
    let r = normalize(&arena, Some(old), new, cursor, &Options::default()).unwrap();
    assert_eq!(r.cleared, ["/a", "/x"]);
    assert_eq!(
        to_json_string(&r.value),
        r#"{"t":"B","b":2,"kind":"Y","y":2}"#
    );
    // Unchanged discriminators, both unions broken: every violation.
    let bad = p(
        &arena,
        r#"{"t": "A", "a": 1, "b": 2, "kind": "X", "x": 1, "y": 2}"#,
    );
    let found = validate(Some(old), bad, cursor, &Options::default()).unwrap();
    let got: Vec<(&str, Rule)> = found.iter().map(|v| (v.path.as_str(), v.rule)).collect();
    assert_eq!(
        got,
        // The struct-level union is declared first.
        [
            ("", Rule::V3),
            ("/y", Rule::V5),
            ("", Rule::V3),
            ("/b", Rule::V5)
        ]
    );
}

/// A property that declares only `x-kubernetes-patch-strategy: merge` over
/// a list-map definition behind a `$ref` declares its list a set
/// (`PatchMeta::declares_list`, the field sets' rule too): elements pair
/// as in a positional list (an equal old element, else the same index),
/// not by the definition's keys (review of round 8: the two crates
/// disagreed here).
#[test]
fn a_merge_strategy_alone_on_a_ref_declares_the_list() {
    let doc = r##"{"swagger": "2.0", "definitions": {
      "Host": {"type": "object", "properties": {
        "viaRef": {"$ref": "#/definitions/UList"},
        "mergeOnly": {"$ref": "#/definitions/UList", "x-kubernetes-patch-strategy": "merge"}}},
      "UList": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"$ref": "#/definitions/U"}},
      "U": {"type": "object", "properties": {"name": {"type": "string"},
        "t": {"type": "string", "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}, "B": {"name": "b"}, "": null}}},
        "a": {"type": "integer"}, "b": {"type": "integer"}}}}}"##;
    let s = Schema::from_bytes(doc.as_bytes(), "merge-only.json").unwrap();
    let cleared = |field: &str| {
        let arena = Arena::new();
        let old = format!(
            r#"{{"{field}": [{{"name": "x", "t": "A", "a": 1}}, {{"name": "y", "t": "B", "b": 1}}]}}"#
        );
        let new = format!(
            r#"{{"{field}": [{{"name": "y", "t": "B", "b": 1, "a": 2}}, {{"name": "x", "t": "B", "a": 1, "b": 2}}]}}"#
        );
        let (o, n) = (p(&arena, &old), p(&arena, &new));
        normalize(
            &arena,
            Some(o),
            n,
            s.cursor("Host").unwrap(),
            &Options::default(),
        )
        .unwrap()
        .cleared
    };
    // The definition's keys: "x" changed from A to B.
    assert_eq!(cleared("viaRef"), ["/viaRef/1/a"]);
    // A set: the new "y" pairs with the old element at index 0 (A).
    assert_eq!(cleared("mergeOnly"), ["/mergeOnly/0/a"]);
}
