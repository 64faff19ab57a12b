//! The hostile-input table (issue 5), shared by the test
//! `crates/smpatch/tests/hostile.rs` and the `reliability` program, which
//! includes this file with `#[path]`.
//!
//! Every case goes through the public facade (`apply_bytes`, `apply_json`,
//! `create_two_way_bytes`, …) or the batch path (`batch::handle_line`) and
//! must end in a structured error of the expected kind or a correct result:
//! never a panic, abort, stack overflow or quadratic blow-up. Inputs are
//! built in memory (and schema files in a temporary folder) when a case runs.

use serde_json::json;
use smpatch::batch::{handle_line, BatchState};
use smpatch::{ApplyOptions, CreateOptions, TypeRef};
use std::fmt::Write as _;
use std::path::PathBuf;

/// What a case ended with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Success, with a short description checked by the case.
    Ok(String),
    /// A structured error: its kind and message.
    Err(String, String),
}

impl Outcome {
    /// One line for reports.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Ok(s) => format!("ok: {s}"),
            Outcome::Err(k, m) => {
                let m: String = m.chars().take(110).collect();
                format!("error `{k}`: {m}")
            }
        }
    }
}

/// What a case must end with.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// An error of one of these kinds.
    Error(&'static [&'static str]),
    /// Success with exactly this summary.
    Ok(&'static str),
}

impl Expect {
    /// Whether `o` is what was expected.
    pub fn matches(&self, o: &Outcome) -> bool {
        match (self, o) {
            (Expect::Error(kinds), Outcome::Err(k, _)) => kinds.contains(&k.as_str()),
            (Expect::Ok(want), Outcome::Ok(got)) => want == got,
            _ => false,
        }
    }

    /// Text for reports.
    pub fn describe(&self) -> String {
        match self {
            Expect::Error(kinds) => format!("error {}", kinds.join(" or ")),
            Expect::Ok(s) => format!("ok: {s}"),
        }
    }
}

/// One hostile input.
pub struct Case {
    /// Short name (also the `--case` argument of the program).
    pub name: &'static str,
    /// The expected outcome.
    pub expect: Expect,
    /// Builds the input and runs it.
    pub run: fn() -> Outcome,
}

const MILLION: usize = 1_000_000;

fn from_result<T>(r: Result<T, smpatch::Error>, ok: impl FnOnce(T) -> String) -> Outcome {
    match r {
        Ok(v) => Outcome::Ok(ok(v)),
        Err(e) => Outcome::Err(e.name().to_owned(), e.message().to_owned()),
    }
}

fn pod() -> TypeRef {
    TypeRef::Gvk("v1/Pod".into())
}

fn schemaless() -> TypeRef {
    TypeRef::Schemaless
}

fn embedded() -> &'static smpatch::Schema {
    smpatch::embedded_schema().expect("embedded schema")
}

/// The conformance-like test schema: `mergeItem` of the shared suite, built
/// in code (the hostile table must not depend on ../shared).
fn merge_item_schema() -> serde_json::Value {
    let item = json!({"$ref": "#/definitions/mergeItem"});
    json!({"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {}, "definitions": {
        "mergeItem": {"type": "object", "properties": {
            "name": {"type": "string"}, "value": {"type": "string"},
            "mergingList": {"type": "array", "items": item,
                "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
            "mergingIntList": {"type": "array", "items": {"type": "integer"},
                "x-kubernetes-patch-strategy": "merge"},
            "mergeItemPtr": {"$ref": "#/definitions/mergeItem"},
            "retainKeysMap": {"$ref": "#/definitions/mergeItem",
                "x-kubernetes-patch-strategy": "retainKeys"}
        }}
    }})
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("smpatch-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("temp file");
    path
}

/// Runs apply on bytes against the `mergeItem` schema.
fn apply_merge_item(original: &[u8], patch: &[u8]) -> Result<Vec<u8>, smpatch::Error> {
    let path = temp_file(
        "merge-item.json",
        merge_item_schema().to_string().as_bytes(),
    );
    let schema = smpatch::load_schema(&path)?;
    smpatch::apply_bytes(
        original,
        patch,
        &schema,
        &TypeRef::Definition("mergeItem".into()),
        &ApplyOptions::default(),
    )
}

/// `apply_bytes` with the embedded schema, schemaless, default options.
fn apply_schemaless(original: &[u8], patch: &[u8]) -> Result<Vec<u8>, smpatch::Error> {
    smpatch::apply_bytes(
        original,
        patch,
        embedded(),
        &schemaless(),
        &ApplyOptions::default(),
    )
}

fn summary_len(out: Vec<u8>) -> String {
    format!("{} bytes", out.len())
}

/// `{"a":` × n, `1`, `}` × n.
fn nested_objects(n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n * 6 + 1);
    for _ in 0..n {
        v.extend_from_slice(b"{\"a\":");
    }
    v.push(b'1');
    v.extend(std::iter::repeat_n(b'}', n));
    v
}

fn deep_original() -> Outcome {
    from_result(
        apply_schemaless(&nested_objects(MILLION), b"{}"),
        summary_len,
    )
}

fn deep_patch() -> Outcome {
    from_result(
        apply_schemaless(b"{}", &nested_objects(MILLION)),
        summary_len,
    )
}

fn deep_modified_create() -> Outcome {
    from_result(
        smpatch::create_two_way_bytes(
            b"{}",
            &nested_objects(MILLION),
            embedded(),
            &schemaless(),
            &CreateOptions::default(),
        ),
        summary_len,
    )
}

/// 1,000,000 nested `[` in a batch request line.
fn deep_batch_line() -> Outcome {
    let mut state = BatchState::new();
    let mut line =
        String::from(r#"{"id":1,"op":"apply","schema":{"none":true},"original":{},"patch":{"a":"#);
    line.push_str(&"[".repeat(MILLION));
    batch_outcome(&handle_line(&mut state, &line))
}

/// A schema whose one definition nests `properties` 1,000,000 deep.
fn deep_schema() -> Outcome {
    deep_schema_of(MILLION)
}

/// 500 nested field levels (JSON depth about 1,000): within the schema
/// loader's default depth limit (2,048).
fn deepish_schema() -> Outcome {
    deep_schema_of(500)
}

fn deep_schema_of(levels: usize) -> Outcome {
    let mut s = String::from(r#"{"swagger":"2.0","definitions":{"T":"#);
    for _ in 0..levels {
        s.push_str(r#"{"type":"object","properties":{"a":"#);
    }
    s.push_str(r#"{"type":"string"}"#);
    for _ in 0..levels {
        s.push_str("}}");
    }
    s.push_str("}}");
    let path = temp_file(&format!("deep-schema-{levels}.json"), s.as_bytes());
    from_result(smpatch::load_schema(&path), |s| {
        format!("{} definitions", s.definition_names().count())
    })
}

/// A 100 MB string value survives apply unchanged.
fn huge_string() -> Outcome {
    let n = 100 * MILLION;
    let mut original = Vec::with_capacity(n + 16);
    original.extend_from_slice(b"{\"s\":\"");
    original.extend(std::iter::repeat_n(b'x', n));
    original.extend_from_slice(b"\"}");
    from_result(apply_schemaless(&original, br#"{"t":1}"#), |out| {
        let ok = out.len() == n + 14
            && out.starts_with(b"{\"s\":\"xxx")
            && out.ends_with(b"x\",\"t\":1}");
        format!("string kept: {ok}")
    })
}

fn containers(n: usize, prefix: &str) -> String {
    let mut s = String::with_capacity(n * 20);
    s.push('[');
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, r#"{{"name":"{prefix}{i}"}}"#);
    }
    s.push(']');
    s
}

/// A keyed merge list of 1,000,000 containers, patched at 1,000 of them plus
/// one new element: linear, not quadratic.
fn million_keyed_list() -> Outcome {
    let original = format!(
        r#"{{"spec":{{"containers":{}}}}}"#,
        containers(MILLION, "c")
    );
    let mut patch = String::from(r#"{"spec":{"containers":["#);
    for i in 0..1000 {
        let _ = write!(patch, r#"{{"name":"c{}","image":"x"}},"#, i * 997);
    }
    patch.push_str(r#"{"name":"new"}]}}"#);
    from_result(
        smpatch::apply_bytes(
            original.as_bytes(),
            patch.as_bytes(),
            embedded(),
            &pod(),
            &ApplyOptions::default(),
        ),
        |out| {
            let images = count(&out, br#""image":"x""#);
            let names = count(&out, br#""name":"#);
            format!("{names} elements, {images} patched")
        },
    )
}

/// A primitive merge list (`finalizers`) of 1,000,000 strings, 100,000
/// deleted with `$deleteFromPrimitiveList`.
fn million_primitive_list() -> Outcome {
    let list: Vec<String> = (0..MILLION).map(|i| format!("f{i}")).collect();
    let del: Vec<String> = (0..100_000).map(|i| format!("f{}", i * 10)).collect();
    let original = json!({"metadata": {"finalizers": list}});
    let patch =
        json!({"metadata": {"$deleteFromPrimitiveList/finalizers": del, "finalizers": ["g"]}});
    from_result(
        smpatch::apply_json(
            &original,
            &patch,
            embedded(),
            &pod(),
            &ApplyOptions::default(),
        ),
        |v| {
            let n = v["metadata"]["finalizers"].as_array().map_or(0, Vec::len);
            format!("{n} finalizers")
        },
    )
}

/// An atomic list of 1,000,000 numbers diffed against a changed copy.
fn million_atomic_list_create() -> Outcome {
    let a: Vec<usize> = (0..MILLION).collect();
    let mut b = a.clone();
    b[MILLION / 2] = 0;
    let o = json!({"spec": {"args": a}});
    let m = json!({"spec": {"args": b}});
    from_result(
        smpatch::create_two_way_json(&o, &m, embedded(), &schemaless(), &CreateOptions::default()),
        |p| {
            let n = p["spec"]["args"].as_array().map_or(0, Vec::len);
            format!("patch replaces the list ({n} items)")
        },
    )
}

/// 100,000 live elements and 10,000 patch elements sharing one merge key.
fn duplicate_merge_keys(reject: bool) -> Outcome {
    let live = vec![r#"{"name":"a"}"#; 100_000].join(",");
    let patch = vec![r#"{"name":"a","image":"x"}"#; 10_000].join(",");
    let original = format!(r#"{{"spec":{{"containers":[{live}]}}}}"#);
    let patch = format!(r#"{{"spec":{{"containers":[{patch}]}}}}"#);
    let opts = ApplyOptions::default().with_reject_duplicate_keys(reject);
    from_result(
        smpatch::apply_bytes(
            original.as_bytes(),
            patch.as_bytes(),
            embedded(),
            &pod(),
            &opts,
        ),
        |out| {
            let images = count(&out, br#""image":"x""#);
            let names = count(&out, br#""name":"#);
            format!("{names} elements, {images} patched")
        },
    )
}

fn duplicate_merge_keys_merged() -> Outcome {
    duplicate_merge_keys(false)
}

fn duplicate_merge_keys_rejected() -> Outcome {
    duplicate_merge_keys(true)
}

fn count(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}

fn dup_keys(n: usize) -> Vec<u8> {
    let mut s = String::from("{");
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, r#""a":{i}"#);
    }
    s.push('}');
    s.into_bytes()
}

fn duplicate_keys() -> Outcome {
    from_result(apply_schemaless(&dup_keys(10_000), b"{}"), summary_len)
}

fn duplicate_keys_in_batch_line() -> Outcome {
    let mut state = BatchState::new();
    let patch = String::from_utf8(dup_keys(10_000)).unwrap_or_default();
    let line = format!(
        r#"{{"id":1,"op":"apply","schema":{{"none":true}},"original":{{}},"patch":{patch}}}"#
    );
    batch_outcome(&handle_line(&mut state, &line))
}

fn invalid_utf8() -> Outcome {
    from_result(
        apply_schemaless(b"{\"a\":\"\xff\xfe\"}", b"{}"),
        summary_len,
    )
}

fn lone_surrogate() -> Outcome {
    from_result(
        apply_schemaless(br#"{}"#, br#"{"a":"\ud800x"}"#),
        summary_len,
    )
}

fn lone_low_surrogate_in_key() -> Outcome {
    from_result(
        smpatch::create_two_way_bytes(
            br#"{}"#,
            br#"{"\udc00":1}"#,
            embedded(),
            &schemaless(),
            &CreateOptions::default(),
        ),
        summary_len,
    )
}

/// Numbers of 100,000 digits are kept exactly by the bytes API.
fn long_numbers() -> Outcome {
    let big = format!("1{}", "7".repeat(100_000));
    let frac = format!("-0.{}e-99999", "3".repeat(100_000));
    let original = format!(r#"{{"a":{big},"b":{frac}}}"#);
    let patch = format!(r#"{{"c":{big}}}"#);
    from_result(
        apply_schemaless(original.as_bytes(), patch.as_bytes()),
        |out| {
            let want = format!(r#"{{"a":{big},"b":{frac},"c":{big}}}"#);
            format!("exact: {}", out == want.as_bytes())
        },
    )
}

/// The same numbers through the serde_json API: they do not fit.
fn long_numbers_serde() -> Outcome {
    let mut state = BatchState::new();
    let big = format!("1{}", "7".repeat(100_000));
    let line = format!(
        r#"{{"id":1,"op":"create2","schema":{{"none":true}},"original":{{"a":1}},"modified":{{"a":{big}}}}}"#
    );
    let out = handle_line(&mut state, &line);
    match batch_outcome(&out) {
        Outcome::Ok(_) => Outcome::Ok(format!("exact: {}", out.contains(&big))),
        e => e,
    }
}

fn nan() -> Outcome {
    from_result(apply_schemaless(br#"{"a":NaN}"#, b"{}"), summary_len)
}

fn infinity() -> Outcome {
    from_result(apply_schemaless(b"{}", br#"{"a":-Infinity}"#), summary_len)
}

fn yaml_inf_nan() -> Outcome {
    let mut state = BatchState::new();
    let line = r#"{"id":1,"op":"apply","schema":{"none":true},"original_text":"a: .inf\nb: .nan\n","patch":{}}"#;
    batch_outcome(&handle_line(&mut state, line))
}

/// Billion laughs in a YAML document of a batch request.
fn yaml_alias_bomb() -> Outcome {
    let mut y = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        let refs = vec![format!("*{}", w[0]); 9].join(", ");
        let _ = writeln!(y, "{}: &{} [{}]", w[1], w[1], refs);
    }
    let line = json!({"id": 1, "op": "apply", "schema": {"none": true},
        "original_text": y, "patch": {}})
    .to_string();
    let mut state = BatchState::new();
    batch_outcome(&handle_line(&mut state, &line))
}

fn merge_item_apply(original: serde_json::Value, patch: serde_json::Value) -> Outcome {
    from_result(
        apply_merge_item(
            original.to_string().as_bytes(),
            patch.to_string().as_bytes(),
        ),
        |out| String::from_utf8_lossy(&out).chars().take(100).collect(),
    )
}

fn patch_number() -> Outcome {
    merge_item_apply(json!({"value": "a"}), json!({"$patch": 1}))
}

fn patch_null_in_list() -> Outcome {
    merge_item_apply(
        json!({"mergingList": [{"name": "a"}]}),
        json!({"mergingList": [{"name": "a", "$patch": null}]}),
    )
}

fn patch_object_value() -> Outcome {
    merge_item_apply(
        json!({"mergeItemPtr": {"name": "n"}}),
        json!({"mergeItemPtr": {"$patch": {"replace": true}}}),
    )
}

/// Inserted values holding `$patch` are not inserted (as the reference's
/// `removeDirectives` drops them, docs/QUIRKS.md#q8), whatever
/// the directive's value.
fn patch_object_value_inserted() -> Outcome {
    merge_item_apply(
        json!({}),
        json!({"mergeItemPtr": {"$patch": {"replace": true}}}),
    )
}

fn patch_list_value_in_list() -> Outcome {
    merge_item_apply(
        json!({"mergingIntList": [1, 2]}),
        json!({"mergingIntList": [{"$patch": ["replace"]}]}),
    )
}

fn retain_keys_string() -> Outcome {
    merge_item_apply(
        json!({"retainKeysMap": {"name": "a", "value": "b"}}),
        json!({"retainKeysMap": {"$retainKeys": "name"}}),
    )
}

fn retain_keys_numbers() -> Outcome {
    merge_item_apply(
        json!({"retainKeysMap": {"name": "a"}}),
        json!({"retainKeysMap": {"$retainKeys": [1, null, {"a": 1}]}}),
    )
}

/// `$setElementOrder` naming 100,000 elements that are in neither list.
fn set_element_order_absent() -> Outcome {
    let order: Vec<serde_json::Value> = (0..100_000)
        .map(|i| json!({"name": format!("x{i}")}))
        .collect();
    merge_item_apply(
        json!({"mergingList": [{"name": "a"}, {"name": "b"}]}),
        json!({"$setElementOrder/mergingList": order, "mergingList": [{"name": "c"}]}),
    )
}

/// The same for a primitive list: 100,000 integers absent from the list.
fn set_element_order_absent_primitive() -> Outcome {
    let order: Vec<usize> = (10..100_010).collect();
    merge_item_apply(
        json!({"mergingIntList": [1, 2]}),
        json!({"$setElementOrder/mergingIntList": order, "mergingIntList": [3]}),
    )
}

/// `{"mergeItemPtr": {"$patch": "replace", "mergeItemPtr": {…}}}`, 200 deep
/// (inside the depth limit) and 100,000 deep (beyond it).
fn nested_patch_replace(depth: usize) -> Outcome {
    let mut patch = String::new();
    for _ in 0..depth {
        patch.push_str(r#"{"$patch":"replace","value":"v","mergeItemPtr":"#);
    }
    patch.push_str("{}");
    patch.push_str(&"}".repeat(depth));
    from_result(
        apply_merge_item(
            br#"{"value":"old","mergeItemPtr":{"name":"n"}}"#,
            patch.as_bytes(),
        ),
        |out| format!("{} levels", count(&out, b"mergeItemPtr")),
    )
}

fn nested_patch_replace_200() -> Outcome {
    nested_patch_replace(200)
}

fn nested_patch_replace_100k() -> Outcome {
    nested_patch_replace(100_000)
}

fn merge_key_object() -> Outcome {
    merge_item_apply(
        json!({"mergingList": [{"name": "a"}]}),
        json!({"mergingList": [{"name": {"a": 1}, "value": "x"}]}),
    )
}

fn merge_key_list_in_original() -> Outcome {
    merge_item_apply(
        json!({"mergingList": [{"name": ["a"]}, {"name": "b"}]}),
        json!({"mergingList": [{"name": "b", "value": "x"}]}),
    )
}

fn merge_key_object_create() -> Outcome {
    let schema_path = temp_file(
        "merge-item.json",
        merge_item_schema().to_string().as_bytes(),
    );
    let schema = match smpatch::load_schema(&schema_path) {
        Ok(s) => s,
        Err(e) => return Outcome::Err(e.name().to_owned(), e.message().to_owned()),
    };
    from_result(
        smpatch::create_two_way_json(
            &json!({"mergingList": [{"name": {"k": 1}}]}),
            &json!({"mergingList": [{"name": {"k": 2}}]}),
            &schema,
            &TypeRef::Definition("mergeItem".into()),
            &CreateOptions::default(),
        ),
        |p| p.to_string(),
    )
}

fn schema_outcome(doc: serde_json::Value, file: &str) -> Outcome {
    let path = temp_file(file, doc.to_string().as_bytes());
    from_result(smpatch::load_schema(&path), |s| {
        format!("{} definitions", s.definition_names().count())
    })
}

fn ref_cycle() -> Outcome {
    schema_outcome(
        json!({"swagger": "2.0", "definitions": {
            "A": {"$ref": "#/definitions/B"}, "B": {"$ref": "#/definitions/C"},
            "C": {"$ref": "#/definitions/A"}}}),
        "ref-cycle.json",
    )
}

/// A self alias compiles (as the schema crate's own tests decide) and merges
/// schemalessly without looping.
fn ref_self() -> Outcome {
    let path = temp_file(
        "ref-self.json",
        json!({"swagger": "2.0", "definitions": {"A": {"$ref": "#/definitions/A"}}})
            .to_string()
            .as_bytes(),
    );
    let schema = match smpatch::load_schema(&path) {
        Ok(s) => s,
        Err(e) => return Outcome::Err(e.name().to_owned(), e.message().to_owned()),
    };
    from_result(
        smpatch::apply_json(
            &json!({"x": {"a": 1}, "l": [1]}),
            &json!({"x": {"b": 2}, "l": [2]}),
            &schema,
            &TypeRef::Definition("A".into()),
            &ApplyOptions::default(),
        ),
        |v| v.to_string(),
    )
}

/// A type that refers to itself through a property is fine (recursion is
/// only in the data), and a 300-deep document of it hits the depth limit.
fn recursive_type_deep_document() -> Outcome {
    let path = temp_file(
        "recursive.json",
        json!({"swagger": "2.0", "definitions": {"A": {"type": "object", "properties": {
            "a": {"$ref": "#/definitions/A"},
            "l": {"type": "array", "items": {"$ref": "#/definitions/A"},
                  "x-kubernetes-patch-merge-key": "n", "x-kubernetes-patch-strategy": "merge"}}}}})
        .to_string()
        .as_bytes(),
    );
    let schema = match smpatch::load_schema(&path) {
        Ok(s) => s,
        Err(e) => return Outcome::Err(e.name().to_owned(), e.message().to_owned()),
    };
    let mut doc = String::new();
    for _ in 0..300 {
        doc.push_str(r#"{"l":[{"n":"x","a":"#);
    }
    doc.push_str("{}");
    doc.push_str(&"}]}".repeat(300));
    from_result(
        smpatch::apply_bytes(
            doc.as_bytes(),
            doc.as_bytes(),
            &schema,
            &TypeRef::Definition("A".into()),
            &ApplyOptions::default(),
        ),
        summary_len,
    )
}

fn ref_nowhere() -> Outcome {
    schema_outcome(
        json!({"swagger": "2.0", "definitions": {"A": {"type": "object", "properties": {
            "x": {"$ref": "#/definitions/Missing"}}}}}),
        "ref-nowhere.json",
    )
}

fn ref_nowhere_v3() -> Outcome {
    schema_outcome(
        json!({"openapi": "3.0.0", "components": {"schemas": {"A": {"type": "object", "properties": {
            "x": {"allOf": [{"$ref": "#/components/schemas/Nope"}]}}}}}}),
        "ref-nowhere-v3.json",
    )
}

/// 100,000 definitions, each referring to the next; then a merge with one.
fn many_definitions() -> Outcome {
    let n = 100_000;
    let mut s = String::from(r#"{"swagger":"2.0","definitions":{"#);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        let next = (i + 1) % n;
        let _ = write!(
            s,
            r##""T{i}":{{"type":"object","properties":{{"next":{{"$ref":"#/definitions/T{next}"}},"l":{{"type":"array","items":{{"type":"string"}},"x-kubernetes-patch-strategy":"merge"}}}}}}"##
        );
    }
    s.push_str("}}");
    let path = temp_file("many.json", s.as_bytes());
    let schema = match smpatch::load_schema(&path) {
        Ok(s) => s,
        Err(e) => return Outcome::Err(e.name().to_owned(), e.message().to_owned()),
    };
    let count = schema.definition_names().count();
    from_result(
        smpatch::apply_json(
            &json!({"next": {"l": ["a"]}}),
            &json!({"next": {"l": ["b"]}}),
            &schema,
            &TypeRef::Definition("T5".into()),
            &ApplyOptions::default(),
        ),
        |v| format!("{count} definitions, merged {}", v["next"]["l"]),
    )
}

/// Schema file given to the batch path that is not a schema at all.
fn batch_schema_garbage() -> Outcome {
    let path = temp_file("garbage.json", b"\x00\x01 not json");
    let line = json!({"id": 1, "op": "apply", "schema": {"file": path, "definition": "A"},
        "original": {}, "patch": {}})
    .to_string();
    let mut state = BatchState::new();
    batch_outcome(&handle_line(&mut state, &line))
}

/// Parses a batch response into an outcome.
fn batch_outcome(response: &str) -> Outcome {
    match serde_json::from_str::<serde_json::Value>(response) {
        Ok(v) => match (v.get("ok"), v.get("error")) {
            (Some(ok), None) => Outcome::Ok(ok.to_string().chars().take(100).collect()),
            (None, Some(e)) => Outcome::Err(
                e["kind"].as_str().unwrap_or("?").to_owned(),
                e["message"].as_str().unwrap_or("").to_owned(),
            ),
            _ => Outcome::Err("bad_response".into(), response.chars().take(200).collect()),
        },
        // serde_json cannot hold every number we keep exactly: judge by shape.
        Err(_) if response.starts_with(r#"{"id":1,"ok":"#) => {
            Outcome::Ok(response[13..].chars().take(100).collect())
        }
        Err(e) => Outcome::Err("bad_response".into(), format!("{e}: {response:.200}")),
    }
}

const PARSE: &[&str] = &["invalid_document"];
const DEEP: &[&str] = &["too_deep"];
const LARGE: &[&str] = &["too_large"];
const REQUEST: &[&str] = &["invalid_request"];

/// The table: the cases of issue 5, then the list shapes of issue 8.
pub fn cases() -> Vec<Case> {
    let mut cases = base_cases();
    cases.extend(key_shape_cases());
    cases
}

fn base_cases() -> Vec<Case> {
    use Expect::{Error, Ok};
    vec![
        Case {
            name: "nesting 1,000,000 deep in original",
            expect: Error(DEEP),
            run: deep_original,
        },
        Case {
            name: "nesting 1,000,000 deep in patch",
            expect: Error(DEEP),
            run: deep_patch,
        },
        Case {
            name: "nesting 1,000,000 deep in modified (create2)",
            expect: Error(DEEP),
            run: deep_modified_create,
        },
        Case {
            name: "nesting 1,000,000 deep in a batch line",
            expect: Error(REQUEST),
            run: deep_batch_line,
        },
        Case {
            name: "nesting 1,000,000 deep in a schema (beyond LoadOptions::max_depth)",
            expect: Error(&["too_deep"]),
            run: deep_schema,
        },
        Case {
            name: "nesting 1,000 deep in a schema (within the default limit)",
            expect: Ok("1 definitions"),
            run: deepish_schema,
        },
        Case {
            name: "100 MB string",
            expect: Ok("string kept: true"),
            run: huge_string,
        },
        Case {
            name: "1,000,000-element keyed list, 1,001 patched",
            expect: Ok("1000001 elements, 1000 patched"),
            run: million_keyed_list,
        },
        Case {
            name: "1,000,000-element primitive list, 100,000 deleted",
            expect: Ok("900001 finalizers"),
            run: million_primitive_list,
        },
        Case {
            name: "1,000,000-element atomic list (create2)",
            expect: Ok("patch replaces the list (1000000 items)"),
            run: million_atomic_list_create,
        },
        Case {
            name: "100,000 live and 10,000 patch elements with one merge key (all merge into the first)",
            expect: Ok("100000 elements, 1 patched"),
            run: duplicate_merge_keys_merged,
        },
        Case {
            name: "the same with reject_duplicate_keys",
            expect: Error(&["duplicate_merge_key"]),
            run: duplicate_merge_keys_rejected,
        },
        Case {
            name: "10,000 duplicate keys",
            expect: Error(PARSE),
            run: duplicate_keys,
        },
        Case {
            name: "10,000 duplicate keys in a batch line",
            expect: Error(REQUEST),
            run: duplicate_keys_in_batch_line,
        },
        Case {
            name: "invalid UTF-8",
            expect: Error(PARSE),
            run: invalid_utf8,
        },
        Case {
            name: "lone high surrogate escape",
            expect: Error(PARSE),
            run: lone_surrogate,
        },
        Case {
            name: "lone low surrogate escape in a key",
            expect: Error(PARSE),
            run: lone_low_surrogate_in_key,
        },
        Case {
            name: "numbers of 100,000 digits (bytes API)",
            expect: Ok("exact: true"),
            run: long_numbers,
        },
        Case {
            name: "number of 100,000 digits (batch)",
            expect: Ok("exact: true"),
            run: long_numbers_serde,
        },
        Case {
            name: "NaN",
            expect: Error(PARSE),
            run: nan,
        },
        Case {
            name: "-Infinity",
            expect: Error(PARSE),
            run: infinity,
        },
        Case {
            name: "YAML .inf and .nan",
            expect: Error(PARSE),
            run: yaml_inf_nan,
        },
        Case {
            name: "YAML alias bomb (billion laughs)",
            expect: Error(LARGE),
            run: yaml_alias_bomb,
        },
        Case {
            name: "$patch: 1",
            expect: Error(&["unknown_patch_type"]),
            run: patch_number,
        },
        Case {
            name: "$patch: null in a list element",
            expect: Error(&["unknown_patch_type"]),
            run: patch_null_in_list,
        },
        Case {
            name: "$patch: {object}",
            expect: Error(&["unknown_patch_type"]),
            run: patch_object_value,
        },
        Case {
            name: "$patch: {object} in an inserted value (not inserted, as upstream)",
            expect: Ok("{}"),
            run: patch_object_value_inserted,
        },
        Case {
            name: "$patch: [list] in a primitive list",
            expect: Error(&["unknown_patch_type", "mixed_element_types"]),
            run: patch_list_value_in_list,
        },
        Case {
            name: "$retainKeys: \"string\"",
            expect: Error(&["invalid_retain_keys"]),
            run: retain_keys_string,
        },
        Case {
            name: "$retainKeys: [1, null, {}]",
            expect: Ok(r#"{"retainKeysMap":{}}"#),
            run: retain_keys_numbers,
        },
        Case {
            name: "$setElementOrder: 100,000 keyed entries absent from the list",
            expect: Error(&["order_mismatch", "invalid_set_element_order"]),
            run: set_element_order_absent,
        },
        Case {
            name: "$setElementOrder: 100,000 integers absent from the list",
            expect: Error(&["order_mismatch", "invalid_set_element_order"]),
            run: set_element_order_absent_primitive,
        },
        Case {
            name: "$patch: replace nested 200 deep (remainder cleaned, Q7 fixed)",
            expect: Ok("0 levels"),
            run: nested_patch_replace_200,
        },
        Case {
            name: "$patch: replace nested 100,000 deep",
            expect: Error(DEEP),
            run: nested_patch_replace_100k,
        },
        Case {
            name: "merge key that is an object (patch): a new element",
            expect: Ok(r#"{"mergingList":[{"name":{"a":1},"value":"x"},{"name":"a"}]}"#),
            run: merge_key_object,
        },
        Case {
            name: "merge key that is a list (original): never matches",
            expect: Ok(r#"{"mergingList":[{"name":["a"]},{"name":"b","value":"x"}]}"#),
            run: merge_key_list_in_original,
        },
        Case {
            name: "merge keys that are objects (create2): compared deeply",
            expect: Ok(
                r#"{"mergingList":[{"name":{"k":2}},{"name":{"k":1},"$patch":"delete"}],"$setElementOrder/mergingList":[{"name":{"k":2}}]}"#,
            ),
            run: merge_key_object_create,
        },
        Case {
            name: "$ref cycle A -> B -> C -> A",
            expect: Error(&["dangling_ref"]),
            run: ref_cycle,
        },
        Case {
            name: "$ref to itself (compiles; merges schemalessly)",
            expect: Ok(r#"{"x":{"a":1,"b":2},"l":[2]}"#),
            run: ref_self,
        },
        Case {
            name: "recursive type, 300-deep document",
            expect: Error(DEEP),
            run: recursive_type_deep_document,
        },
        Case {
            name: "$ref to nowhere (v2)",
            expect: Error(&["dangling_ref"]),
            run: ref_nowhere,
        },
        Case {
            name: "$ref to nowhere (v3 allOf)",
            expect: Error(&["dangling_ref"]),
            run: ref_nowhere_v3,
        },
        Case {
            name: "schema of 100,000 definitions, each $ref to the next",
            expect: Ok(r#"100000 definitions, merged ["b","a"]"#),
            run: many_definitions,
        },
        Case {
            name: "schema file that is not JSON (batch)",
            expect: Error(&["parse"]),
            run: batch_schema_garbage,
        },
        Case {
            name: "union in each of 1,000,000 keyed-list elements, 1,000 discriminators changed (batch apply + normalize_unions)",
            expect: Ok("1000000 elements, 1000 cleared"),
            run: million_unions_in_a_list,
        },
        Case {
            name: "10 MB union discriminator (batch normalize)",
            expect: Error(&["validation"]),
            run: huge_discriminator,
        },
        Case {
            name: "10,000 unions in one schema, all switched in one object (batch normalize)",
            expect: Ok("10000 unions, 10000 cleared"),
            run: ten_thousand_unions,
        },
    ]
}

/// A schema with the KEP-1027 union `Src` (discriminator `type`, members
/// `git`, `http`) in the keyed list `Host.sources`.
fn union_schema_file() -> PathBuf {
    let doc = json!({"swagger": "2.0", "definitions": {
        "Host": {"type": "object", "properties": {"sources": {"type": "array",
            "items": {"$ref": "#/definitions/Src"},
            "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"}}},
        "Src": {"type": "object", "properties": {
            "name": {"type": "string"},
            "type": {"type": "string", "enum": ["Git", "Http", ""],
                "x-kubernetes-unions": {"fieldMembers": {"Git": {"name": "git"}, "Http": {"name": "http"}, "": null}}},
            "git": {"type": "object"}, "http": {"type": "object"}}}}});
    temp_file("unions.json", doc.to_string().as_bytes())
}

/// Counts `"/sources/` pointers in the `cleared` list of a batch answer.
fn cleared_count(response: &str) -> Option<usize> {
    let at = response.rfind(r#""cleared":["#)?;
    Some(count(&response.as_bytes()[at..], b"\"/"))
}

/// 1,000,000 list elements, each a union; a patch switches 1,000 of them.
fn million_unions_in_a_list() -> Outcome {
    let mut original = String::from(r#"{"sources":["#);
    for i in 0..MILLION {
        if i > 0 {
            original.push(',');
        }
        let _ = write!(original, r#"{{"name":"s{i}","type":"Git","git":{{}}}}"#);
    }
    original.push_str("]}");
    let mut patch = String::from(r#"{"sources":["#);
    for i in 0..1000 {
        if i > 0 {
            patch.push(',');
        }
        let _ = write!(
            patch,
            r#"{{"name":"s{}","type":"Http","http":{{}}}}"#,
            i * 997
        );
    }
    patch.push_str("]}");
    let file = union_schema_file();
    let line = format!(
        r#"{{"id":1,"op":"apply","schema":{{"file":{},"definition":"Host"}},"options":{{"normalize_unions":true}},"original":{original},"patch":{patch}}}"#,
        json!(file)
    );
    let response = handle_line(&mut BatchState::new(), &line);
    if !response.starts_with(r#"{"id":1,"ok":"#) {
        return batch_outcome(&response);
    }
    let elements = count(response.as_bytes(), br#""name":"#);
    match cleared_count(&response) {
        Some(n) => Outcome::Ok(format!("{elements} elements, {n} cleared")),
        None => Outcome::Err("bad_response".into(), "no cleared list".into()),
    }
}

/// A discriminator value of 10 MB: V1, with the value cut in the message.
fn huge_discriminator() -> Outcome {
    let file = union_schema_file();
    let big = "G".repeat(10 * 1024 * 1024);
    let line = json!({"id": 1, "op": "normalize", "schema": {"file": file, "definition": "Src"},
        "old": {"type": "Git", "git": {}}, "new": {"type": big, "git": {}}})
    .to_string();
    let response = handle_line(&mut BatchState::new(), &line);
    if response.len() > 10_000 {
        return Outcome::Err(
            "bad_response".into(),
            format!("{} bytes of response", response.len()),
        );
    }
    batch_outcome(&response)
}

/// One struct declaring 10,000 unions (`d{i}` selects `a{i}` or `b{i}`); an
/// object switching every one of them with both members set.
fn ten_thousand_unions() -> Outcome {
    let n = 10_000;
    let mut props = serde_json::Map::new();
    let mut new = serde_json::Map::new();
    let mut old = serde_json::Map::new();
    for i in 0..n {
        props.insert(
            format!("d{i}"),
            json!({"type": "string", "x-kubernetes-unions": {"fieldMembers": {
            "A": {"name": format!("a{i}")}, "B": {"name": format!("b{i}")}}}}),
        );
        props.insert(format!("a{i}"), json!({"type": "integer"}));
        props.insert(format!("b{i}"), json!({"type": "integer"}));
        old.insert(format!("d{i}"), json!("A"));
        old.insert(format!("a{i}"), json!(1));
        new.insert(format!("d{i}"), json!("B"));
        new.insert(format!("a{i}"), json!(1));
        new.insert(format!("b{i}"), json!(2));
    }
    let doc =
        json!({"swagger": "2.0", "definitions": {"Many": {"type": "object", "properties": props}}});
    let file = temp_file("many-unions.json", doc.to_string().as_bytes());
    let line = json!({"id": 1, "op": "normalize", "schema": {"file": file, "definition": "Many"},
        "old": old, "new": new})
    .to_string();
    let response = handle_line(&mut BatchState::new(), &line);
    match serde_json::from_str::<serde_json::Value>(&response) {
        Ok(v) if v.get("ok").is_some() => {
            let left = v["ok"].as_object().map_or(0, |o| o.len());
            let cleared = v["cleared"].as_array().map_or(0, Vec::len);
            Outcome::Ok(format!("{} unions, {cleared} cleared", left / 2))
        }
        _ => batch_outcome(&response),
    }
}

// ---- Issue 8: every merge-key kind and list directive at 100,000 elements.
//
// Each identity (merge key, compound key, primitive element) goes through a
// hash of its canonical form (`Value::deep_hash`); a key kind that hashed
// badly (lists and objects hashed by length, float bit patterns clustering)
// made these shapes quadratic: list keys took 13.6 s at 16,000 elements.

/// Elements per list in the key-shape cases.
const KEYS_N: usize = 100_000;

/// The JSON text of key number `i` of a kind.
pub fn shape_key(kind: &str, i: usize) -> String {
    match kind {
        "int" => format!("{i}"),
        "float" => format!("{i}.5"),
        "bool" => format!("{}", i % 2 == 0),
        // One kind inside: `conflicts` compares key lists as scalar lists.
        "list" => format!(r#"["k{i}","l"]"#),
        "object" => format!(r#"{{"k":{i}}}"#),
        "object21" => {
            let fields: Vec<String> = (0..21).map(|f| format!(r#""f{f}":{i}"#)).collect();
            format!("{{{}}}", fields.join(","))
        }
        _ => format!(r#""k{i}""#),
    }
}

/// `[f(0),…,f(n-1)]`.
pub fn shape_list(n: usize, f: impl Fn(usize) -> String) -> String {
    let items: Vec<String> = (0..n).map(f).collect();
    format!("[{}]", items.join(","))
}

/// The `mergeItem` schema plus `compoundList`, a list-map list keyed by
/// `a` and `b` (a non-built-in type: merged by the compound key).
fn key_shape_schema() -> smpatch::Schema {
    let mut doc = merge_item_schema();
    doc["definitions"]["mergeItem"]["properties"]["compoundList"] = json!({
        "type": "array", "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["a", "b"],
        "items": {"type": "object", "properties": {"a": {}, "b": {}, "v": {"type": "string"}}}
    });
    let path = temp_file("key-shapes.json", doc.to_string().as_bytes());
    smpatch::load_schema(&path).expect("key-shape schema")
}

/// A list shape: what is applied (`live`, `patch`) and which list to count.
pub struct Shape {
    /// The live document.
    pub live: String,
    /// The patch.
    pub patch: String,
    /// The list field the summary counts.
    pub field: &'static str,
}

/// The list shapes of issue 8 for a key kind and size `n`.
pub fn shape(name: &str, kind: &str, n: usize) -> Shape {
    let el = |i: usize| format!(r#"{{"name":{}}}"#, shape_key(kind, i));
    let keyed = |body: String| format!(r#"{{"mergingList":{body}}}"#);
    let (live, patch, field) = match name {
        // One patch element against n live elements.
        "one" => (
            keyed(shape_list(n, el)),
            keyed(format!(
                r#"[{{"name":{},"value":"v"}}]"#,
                shape_key(kind, n / 2)
            )),
            "mergingList",
        ),
        // n patch elements against one live element.
        "many" => (
            keyed(format!("[{}]", el(0))),
            keyed(shape_list(n, el)),
            "mergingList",
        ),
        // n against n, patch in reverse order.
        "all" => (
            keyed(shape_list(n, el)),
            keyed(shape_list(n, |i| {
                format!(r#"{{"name":{},"value":"v"}}"#, shape_key(kind, n - 1 - i))
            })),
            "mergingList",
        ),
        // $setElementOrder reversing n elements, one of them patched.
        "order" => (
            keyed(shape_list(n, el)),
            format!(
                r#"{{"$setElementOrder/mergingList":{},"mergingList":[{{"name":{},"value":"v"}}]}}"#,
                shape_list(n, |i| el(n - 1 - i)),
                shape_key(kind, 0)
            ),
            "mergingList",
        ),
        // $patch: delete of every element.
        "delete" => (
            keyed(shape_list(n, el)),
            keyed(shape_list(n, |i| {
                format!(r#"{{"name":{},"$patch":"delete"}}"#, shape_key(kind, i))
            })),
            "mergingList",
        ),
        // $deleteFromPrimitiveList of every element of a primitive list.
        "delete-primitive" => (
            format!(
                r#"{{"mergingIntList":{}}}"#,
                shape_list(n, |i| shape_key(kind, i))
            ),
            format!(
                r#"{{"$deleteFromPrimitiveList/mergingIntList":{}}}"#,
                shape_list(n, |i| shape_key(kind, n - 1 - i))
            ),
            "mergingIntList",
        ),
        // A primitive merge list united with n new values and n repeats.
        "set" => (
            format!(
                r#"{{"mergingIntList":{}}}"#,
                shape_list(n, |i| shape_key(kind, i))
            ),
            format!(
                r#"{{"mergingIntList":{}}}"#,
                shape_list(2 * n, |i| shape_key(kind, i / 2 + (i % 2) * n))
            ),
            "mergingIntList",
        ),
        // Compound keys (list-map keys a, b), n against n.
        _ => {
            let c = |i: usize| {
                format!(
                    r#"{{"a":{},"b":{}}}"#,
                    shape_key(kind, i),
                    shape_key(kind, i + 1)
                )
            };
            (
                format!(r#"{{"compoundList":{}}}"#, shape_list(n, c)),
                format!(
                    r#"{{"compoundList":{}}}"#,
                    shape_list(n, |i| {
                        format!(
                            r#"{{"a":{},"b":{},"v":"x"}}"#,
                            shape_key(kind, n - 1 - i),
                            shape_key(kind, n - i)
                        )
                    })
                ),
                "compoundList",
            )
        }
    };
    Shape { live, patch, field }
}

/// Runs one operation on a shape: `apply`, `create2` (live → applied),
/// `create3` (same, current = live), `conflicts` (patch against itself) or
/// `compose` (the patch after itself).
pub fn run_shape(op: &str, s: &Shape) -> Result<String, smpatch::Error> {
    let schema = key_shape_schema();
    let ty = TypeRef::Definition("mergeItem".into());
    let count = |out: &[u8], field: &str| -> String {
        let v: serde_json::Value = serde_json::from_slice(out).unwrap_or_default();
        format!("{} elements", v[field].as_array().map_or(0, Vec::len))
    };
    let apply =
        |a: &[u8], p: &[u8]| smpatch::apply_bytes(a, p, &schema, &ty, &ApplyOptions::default());
    let opts = CreateOptions::default();
    match op {
        "apply" => apply(s.live.as_bytes(), s.patch.as_bytes()).map(|o| count(&o, s.field)),
        "create2" | "create3" => {
            let (o, m) = (
                s.live.as_bytes(),
                apply(s.live.as_bytes(), s.patch.as_bytes())?,
            );
            let p = if op == "create2" {
                smpatch::create_two_way_bytes(o, &m, &schema, &ty, &opts)?
            } else {
                smpatch::create_three_way_bytes(
                    smpatch::ThreeWayDocs::new(o, &m, o),
                    &schema,
                    &ty,
                    smpatch::OnConflict::Fail,
                    &opts,
                )?
            };
            // The patch recreates `modified`.
            let back = apply(o, &p)?;
            Ok(format!("{}, round trip: {}", count(&m, s.field), back == m))
        }
        "conflicts" => {
            let p = s.patch.as_bytes();
            smpatch::conflicts_bytes(p, p, &schema, &ty, &opts).map(|c| format!("conflict: {c}"))
        }
        _ => {
            let p = s.patch.as_bytes();
            smpatch::compose_bytes(p, p, &schema, &ty, &opts).map(|o| count(&o, s.field))
        }
    }
}

fn shape_outcome(op: &str, name: &str, kind: &str) -> Outcome {
    from_result(run_shape(op, &shape(name, kind, KEYS_N)), |s| s)
}

macro_rules! shape_case {
    ($name:expr, $expect:expr, $op:expr, $shape:expr, $kind:expr) => {
        Case {
            name: $name,
            expect: Expect::Ok($expect),
            run: || shape_outcome($op, $shape, $kind),
        }
    };
}

/// Floats beyond `f64` are refused (as Go's decoder refuses them), so two
/// of them never compare equal through a lossy `f64`.
fn beyond_f64_create2() -> Outcome {
    from_result(
        smpatch::create_two_way_bytes(
            br#"{"a":1e400}"#,
            br#"{"a":7e401}"#,
            embedded(),
            &schemaless(),
            &CreateOptions::default(),
        ),
        |p| String::from_utf8_lossy(&p).into_owned(),
    )
}

fn beyond_f64_delete_from_primitive_list() -> Outcome {
    from_result(
        apply_merge_item(
            br#"{"mergingIntList":[1.5,2.5]}"#,
            br#"{"$deleteFromPrimitiveList/mergingIntList":[9e999]}"#,
        ),
        |p| String::from_utf8_lossy(&p).into_owned(),
    )
}

fn beyond_f64_merge_keys() -> Outcome {
    from_result(
        apply_merge_item(
            br#"{"mergingList":[{"name":1e400}]}"#,
            br#"{"mergingList":[{"name":2e400,"value":"x"}]}"#,
        ),
        |p| String::from_utf8_lossy(&p).into_owned(),
    )
}

fn beyond_f64_batch() -> Outcome {
    let mut state = BatchState::new();
    let line = r#"{"id":1,"op":"conflicts","schema":{"none":true},"left":{"a":1e400},"right":{"a":2e400}}"#;
    batch_outcome(&handle_line(&mut state, line))
}

/// The issue 8 rows: each key kind and directive at 100,000 elements.
fn key_shape_cases() -> Vec<Case> {
    vec![
        Case {
            name: "float beyond f64: create2 of 1e400 -> 7e401",
            expect: Expect::Error(PARSE),
            run: beyond_f64_create2,
        },
        Case {
            name: "float beyond f64: $deleteFromPrimitiveList [9e999]",
            expect: Expect::Error(PARSE),
            run: beyond_f64_delete_from_primitive_list,
        },
        Case {
            name: "float beyond f64: merge keys 1e400 and 2e400",
            expect: Expect::Error(PARSE),
            run: beyond_f64_merge_keys,
        },
        Case {
            name: "float beyond f64: conflicts in a batch line",
            expect: Expect::Error(REQUEST),
            run: beyond_f64_batch,
        },
        shape_case!(
            "list merge keys: 1 patch element against 100,000",
            "100000 elements",
            "apply",
            "one",
            "list"
        ),
        shape_case!(
            "list merge keys: 100,000 patch elements against 1",
            "100000 elements",
            "apply",
            "many",
            "list"
        ),
        shape_case!(
            "object merge keys: 1 patch element against 100,000",
            "100000 elements",
            "apply",
            "one",
            "object"
        ),
        shape_case!(
            "object merge keys: 100,000 patch elements against 1",
            "100000 elements",
            "apply",
            "many",
            "object"
        ),
        shape_case!(
            "object merge keys of 21 fields: 1 against 100,000",
            "100000 elements",
            "apply",
            "one",
            "object21"
        ),
        shape_case!(
            "float merge keys: 100,000 against 100,000",
            "100000 elements",
            "apply",
            "all",
            "float"
        ),
        shape_case!(
            "int merge keys: 100,000 against 100,000",
            "100000 elements",
            "apply",
            "all",
            "int"
        ),
        shape_case!(
            "string merge keys: 100,000 against 100,000",
            "100000 elements",
            "apply",
            "all",
            "string"
        ),
        shape_case!(
            "bool merge keys (duplicates): 100,000 against 100,000",
            "100000 elements",
            "apply",
            "all",
            "bool"
        ),
        shape_case!(
            "compound list-map keys of lists: 100,000 against 100,000",
            "100000 elements",
            "apply",
            "compound",
            "list"
        ),
        shape_case!(
            "compound list-map keys of floats: 100,000 against 100,000",
            "100000 elements",
            "apply",
            "compound",
            "float"
        ),
        shape_case!(
            "$setElementOrder of 100,000 list keys",
            "100000 elements",
            "apply",
            "order",
            "list"
        ),
        shape_case!(
            "$setElementOrder of 100,000 object keys",
            "100000 elements",
            "apply",
            "order",
            "object"
        ),
        shape_case!(
            "$patch: delete of 100,000 object keys",
            "0 elements",
            "apply",
            "delete",
            "object"
        ),
        shape_case!(
            "$deleteFromPrimitiveList of 100,000 floats",
            "0 elements",
            "apply",
            "delete-primitive",
            "float"
        ),
        shape_case!(
            "$deleteFromPrimitiveList of 100,000 bools (duplicates)",
            "0 elements",
            "apply",
            "delete-primitive",
            "bool"
        ),
        shape_case!(
            "primitive merge list of 100,000 floats, 200,000 patch values",
            "200000 elements",
            "apply",
            "set",
            "float"
        ),
        shape_case!(
            "primitive merge list of 100,000 strings, 200,000 patch values",
            "200000 elements",
            "apply",
            "set",
            "string"
        ),
        shape_case!(
            "create2 with 100,000 list merge keys",
            "100000 elements, round trip: true",
            "create2",
            "all",
            "list"
        ),
        shape_case!(
            "create2 with 100,000 float merge keys",
            "100000 elements, round trip: true",
            "create2",
            "all",
            "float"
        ),
        shape_case!(
            "create3 with 100,000 object merge keys",
            "100000 elements, round trip: true",
            "create3",
            "all",
            "object"
        ),
        shape_case!(
            "create3 with 100,000 compound keys of objects",
            "100000 elements, round trip: true",
            "create3",
            "compound",
            "object"
        ),
        shape_case!(
            "conflicts of 100,000 list merge keys",
            "conflict: false",
            "conflicts",
            "all",
            "list"
        ),
        shape_case!(
            "conflicts of 100,000 floats in a primitive list",
            "conflict: false",
            "conflicts",
            "set",
            "float"
        ),
        shape_case!(
            "compose of 100,000 object merge keys",
            "100000 elements",
            "compose",
            "all",
            "object"
        ),
        shape_case!(
            "compose of 200,000 floats in a primitive list",
            "200000 elements",
            "compose",
            "set",
            "float"
        ),
    ]
}
