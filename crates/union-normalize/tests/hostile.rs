//! Bad input never panics: arbitrary JSON (wrong kinds wherever a union,
//! member, discriminator, list or map is expected; field names and values
//! drawn from the union test types so that unions are often hit) as old and
//! new objects of every type of `testdata/unions/rules.json`. Normalization
//! succeeds, leaves `new` unchanged and is idempotent; every cleared pointer
//! names a member that was in `new` and is gone, and the output is `new`
//! without exactly those members; every violation names
//! a place in the normalized object (the value itself, or an absent member
//! of an object that is there); create (no old object) is the same as an
//! empty stored object (but for ratcheting).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may unwrap

use proptest::prelude::*;
use serde_json::{json, Map, Value as J};
use smpatch_schema::Schema;
use smpatch_union_normalize::{normalize, validate, Options};
use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
use std::path::PathBuf;
use std::sync::OnceLock;

const KEYS: &[&str] = &[
    "type",
    "mode",
    "name",
    "a",
    "b",
    "c",
    "d",
    "x",
    "y",
    "alpha",
    "beta",
    "git",
    "http",
    "rollingUpdate",
    "localhostProfile",
    "exempt",
    "limited",
    "items",
    "byKey",
    "grid",
    "profile",
    "policy",
    "policies",
    "labels",
    "k",
    "a/b~c",
];
const STRINGS: &[&str] = &[
    "",
    "A",
    "B",
    "C",
    "None",
    "X",
    "Y",
    "ALPHA",
    "BETA",
    "alpha",
    "Git",
    "Http",
    "Recreate",
    "RollingUpdate",
    "Localhost",
    "LocalhostProfile",
    "Exempt",
    "Limited",
    "Always",
    "Never",
    "a",
];

fn schema() -> &'static (Schema, Vec<String>) {
    static S: OnceLock<(Schema, Vec<String>)> = OnceLock::new();
    S.get_or_init(|| {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/unions/rules.json");
        let doc: J = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let defs = &doc["definitions"];
        let names = defs.as_object().unwrap().keys().cloned().collect();
        let v2 = json!({"swagger": "2.0", "info": {"title": "t", "version": "v"}, "paths": {},
            "definitions": defs});
        let s = Schema::from_bytes(v2.to_string().as_bytes(), "rules.json").unwrap();
        (s, names)
    })
}

fn leaf() -> impl Strategy<Value = J> {
    prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        (-3i64..300).prop_map(|i| json!(i)),
        Just(json!(1.5)),
        prop::sample::select(STRINGS).prop_map(|s| json!(s)),
    ]
}

const MEMBERS: &[&str] = &[
    "a",
    "b",
    "c",
    "d",
    "x",
    "y",
    "alpha",
    "beta",
    "git",
    "http",
    "rollingUpdate",
    "localhostProfile",
    "exempt",
    "limited",
];

fn value() -> impl Strategy<Value = J> {
    leaf().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(J::Array),
            // Union-shaped: a discriminator (usually a known value) and
            // some members, so that normalization often has work to do.
            (
                prop::sample::select(STRINGS),
                prop::sample::select(&["type", "mode"][..]),
                prop::collection::vec((prop::sample::select(MEMBERS), inner.clone()), 0..4),
            )
                .prop_map(|(d, key, members)| {
                    let mut m = Map::new();
                    m.insert(key.to_owned(), json!(d));
                    m.insert("name".to_owned(), json!("n"));
                    for (k, v) in members {
                        m.insert(k.to_owned(), v);
                    }
                    J::Object(m)
                }),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..7).prop_map(|kv| {
                J::Object(
                    kv.into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

/// The parent of a JSON pointer and its last (unescaped) token.
fn split(pointer: &str) -> Option<(&str, String)> {
    let i = pointer.rfind('/')?;
    let last = pointer[i + 1..].replace("~1", "/").replace("~0", "~");
    Some((&pointer[..i], last))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_documents_never_panic_and_pointers_name_real_places(
        which in any::<prop::sample::Index>(),
        old in prop::option::of(value()),
        new in value(),
        nd in any::<bool>(),
        ratcheting in any::<bool>(),
    ) {
        let (schema, names) = schema();
        let ty = which.get(names);
        let cursor = schema.cursor(ty).unwrap();
        let opts = Options { non_discriminated_update: nd, ratcheting, ..Options::default() };
        let arena = Arena::new();
        let parse = |v: &J| {
            let text = arena.alloc_str(&v.to_string());
            parse_json(&arena, text.as_bytes(), &ParseOptions::default()).unwrap()
        };
        let o = old.as_ref().map(parse);
        let n = parse(&new);
        let before = to_json_string(&n);
        let once = normalize(&arena, o, n, cursor, &opts).unwrap();
        prop_assert_eq!(to_json_string(&n), before);
        let out: J = serde_json::from_str(&to_json_string(&once.value)).unwrap();
        for c in &once.cleared {
            let (parent, key) = split(c).unwrap();
            prop_assert!(new.pointer(c).is_some(), "{} was there", c);
            prop_assert!(out.pointer(parent).and_then(|p| p.get(&key)).is_none(), "{} gone", c);
        }
        // The output is `new` without the cleared members, nothing else.
        let mut expect = new.clone();
        for c in &once.cleared {
            let (parent, key) = split(c).unwrap();
            expect.pointer_mut(parent).and_then(J::as_object_mut).map(|m| m.remove(&key));
        }
        prop_assert_eq!(&out, &expect);
        let twice = normalize(&arena, o, once.value, cursor, &opts).unwrap();
        prop_assert!(twice.cleared.is_empty());
        prop_assert_eq!(to_json_string(&twice.value), to_json_string(&once.value));
        // Create (no old object) is the same as an empty stored object,
        // except under ratcheting (a stored `{}` may already break a rule).
        if o.is_none() {
            let empty = parse(&json!({}));
            let same = normalize(&arena, Some(empty), n, cursor, &opts).unwrap();
            prop_assert_eq!(&same.cleared, &once.cleared);
            prop_assert_eq!(to_json_string(&same.value), to_json_string(&once.value));
            if !ratcheting {
                prop_assert_eq!(
                    validate(Some(empty), once.value, cursor, &opts).unwrap(),
                    validate(None, once.value, cursor, &opts).unwrap()
                );
            }
        }
        for v in validate(o, once.value, cursor, &opts).unwrap() {
            let here = out.pointer(&v.path).is_some()
                || split(&v.path).is_some_and(|(p, _)| out.pointer(p).is_some_and(J::is_object));
            prop_assert!(here, "{} names no place in {}", v, out);
            prop_assert!(v.message.len() > 20);
        }
    }
}
