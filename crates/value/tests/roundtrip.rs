//! Round-trip laws, checked with proptest:
//! `parse_json(to_json_string(v)) == v`, the same through the pretty and Go
//! writers (Go numbers only for values Go keeps exactly), and
//! `parse_yaml_single(to_yaml_string(v)) == v` for values whose numbers
//! kubectl's YAML reading keeps (integers in `i64`, non-integral floats).

use proptest::prelude::*;
use smpatch_value::{
    parse_json, parse_yaml_single, to_go_json, to_json_pretty, to_json_string, to_yaml_string,
    write_json, write_json_to, Arena, Member, Number, ParseOptions, Value,
};

#[derive(Clone, Debug)]
enum T {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<T>),
    Obj(Vec<(String, T)>),
}

fn build<'a>(arena: &'a Arena, t: &T) -> Value<'a> {
    match t {
        T::Null => Value::Null,
        T::Bool(b) => Value::Bool(*b),
        T::Num(s) => {
            Value::Number(Number::parse_literal(arena.alloc_str(s)).expect("valid literal"))
        }
        T::Str(s) => Value::String(arena.alloc_str(s)),
        T::Arr(items) => {
            let items: Vec<Value<'a>> = items.iter().map(|i| build(arena, i)).collect();
            Value::array_from(arena, &items)
        }
        T::Obj(ms) => {
            let mut seen = std::collections::HashSet::new();
            let members: Vec<Member<'a>> = ms
                .iter()
                .filter(|(k, _)| seen.insert(k.clone()))
                .map(|(k, v)| Member {
                    key: arena.alloc_str(k),
                    value: build(arena, v),
                })
                .collect();
            Value::object_from_members(arena, &members)
        }
    }
}

/// Numbers any JSON writer keeps: all literal shapes.
fn json_number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        "-?[1-9][0-9]{18,40}",
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:?}")),
        "-?(0|[1-9][0-9]{0,5})(\\.[0-9]{1,8})?([eE][+-]?[0-9]{1,2})?",
    ]
}

/// Numbers that survive kubectl-style YAML reading with their kind.
fn yaml_number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        any::<f64>()
            .prop_filter("finite, non-integral", |f| f.is_finite()
                && f.fract() != 0.0)
            .prop_map(|f| format!("{f:?}")),
    ]
}

fn tree(num: BoxedStrategy<String>) -> impl Strategy<Value = T> {
    let leaf = prop_oneof![
        Just(T::Null),
        any::<bool>().prop_map(T::Bool),
        num.prop_map(T::Num),
        any::<String>().prop_map(T::Str),
        "[a-z]{0,3}( |: | #|\n|-|'|\"|yes|null|1)?[a-z ]{0,3}\n?".prop_map(T::Str),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(T::Arr),
            prop::collection::vec((any::<String>(), inner.clone()), 0..6).prop_map(T::Obj),
            prop::collection::vec(("[a-z0-9.~]{0,4}", inner), 0..6).prop_map(T::Obj),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn json_round_trip(t in tree(json_number().boxed())) {
        let arena = Arena::new();
        let v = build(&arena, &t);
        let opts = ParseOptions::default();
        let texts = [to_json_string(&v), to_json_pretty(&v)];
        for text in &texts {
            let back = parse_json(&arena, text.as_bytes(), &opts);
            prop_assert!(back.as_ref().is_ok_and(|b| *b == v), "{text}: {back:?}");
        }
        // The compact writer writes literals unchanged.
        let again = parse_json(&arena, texts[0].as_bytes(), &opts).unwrap();
        prop_assert_eq!(to_json_string(&again), to_json_string(&v));
    }

    #[test]
    fn go_json_round_trip(t in tree(yaml_number().boxed())) {
        let arena = Arena::new();
        let v = build(&arena, &t);
        let text = to_go_json(&v);
        let back = parse_json(&arena, text.as_bytes(), &ParseOptions::default());
        prop_assert!(back.as_ref().is_ok_and(|b| *b == v), "{text}: {back:?}");
        // Go output is canonical: writing it again changes nothing.
        prop_assert_eq!(to_go_json(&back.unwrap()), text);
    }

    #[test]
    fn yaml_round_trip(t in tree(yaml_number().boxed())) {
        let arena = Arena::new();
        let v = build(&arena, &t);
        let text = to_yaml_string(&v);
        let back = parse_yaml_single(&arena, &text, &ParseOptions::default());
        // A top-level null is an empty document, which the reader skips.
        if v.is_null() {
            prop_assert!(back.is_err());
        } else {
            prop_assert!(back.as_ref().is_ok_and(|b| *b == v), "{text}\n{back:?}\n{}", to_json_string(&v));
        }
    }
}

/// Short strings around the escaping writer's word boundaries: quotes,
/// backslashes, control characters, HTML characters and multi-byte text at
/// every offset of 0 to 20 bytes.
fn escapy_string() -> impl Strategy<Value = String> {
    "[\"\\\\\u{0}-\u{1f}\u{7f}a-z<>&/é\u{2028}\u{10000}]{0,20}"
}

fn escapy_tree() -> impl Strategy<Value = T> {
    let leaf = prop_oneof![
        Just(T::Null),
        any::<bool>().prop_map(T::Bool),
        json_number().prop_map(T::Num),
        escapy_string().prop_map(T::Str),
        any::<String>().prop_map(T::Str),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(T::Arr),
            prop::collection::vec((escapy_string(), inner), 0..6).prop_map(T::Obj),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// The compact writer's fast path (`to_json_string`, `write_json`)
    /// writes the same bytes as the general writer behind the streaming
    /// API, and what it writes reads back as the same value.
    #[test]
    fn compact_writer_matches_general_writer(t in escapy_tree()) {
        let arena = Arena::new();
        let v = build(&arena, &t);
        let fast = to_json_string(&v);
        let mut general = Vec::new();
        write_json_to(&mut general, &v).expect("writing to a Vec");
        prop_assert_eq!(fast.as_bytes(), &general[..]);
        let mut appended = String::from("prefix");
        write_json(&mut appended, &v);
        prop_assert_eq!(&appended[6..], &fast[..]);
        let back = parse_json(&arena, fast.as_bytes(), &ParseOptions::default());
        prop_assert!(back.as_ref().is_ok_and(|b| *b == v), "{fast}: {back:?}");
    }
}

/// Strings that stress the YAML quoting rules, as values and as keys.
#[test]
fn yaml_tricky_strings() {
    let tricky = [
        "",
        " ",
        "-",
        "- ",
        "?",
        ":",
        "a:",
        "a: b",
        "#",
        "a #b",
        "a#b",
        "...",
        "---",
        "--- x",
        "|",
        ">",
        "'",
        "\"",
        "''",
        "@",
        "`",
        "%",
        "!",
        "&a",
        "*a",
        "[",
        "]",
        "{",
        "}",
        ",",
        "a,b",
        "<<",
        "=",
        "~",
        "null",
        "Null",
        "y",
        "n",
        "yes",
        "off",
        "1",
        "-1",
        "+1",
        "0x1F",
        "0o7",
        "1e3",
        "1_000",
        ".5",
        ".inf",
        ".nan",
        "-.inf",
        "2001-12-14",
        "1:20",
        "\n",
        "\n\n",
        "a\n",
        "a\n\n",
        "a\n\n\n",
        "\na",
        " a\nb",
        "a\n b",
        "a\n\tb",
        "a\r\nb",
        "\t",
        "a\t",
        "\u{85}",
        "\u{2028}",
        "\u{feff}x",
        "\u{0}",
        "\u{7f}",
        "é",
        "😀",
        "a\n  \nb",
        "a\n  ",
        "x\u{a0}",
        "0",
        "-0",
        "0.0",
        "1.",
        "1e",
        "12e",
        "true",
        "TRUE",
        "True",
        "on",
        "<",
        "a: \n",
        "key:\n",
    ];
    let arena = Arena::new();
    let mut failures = Vec::new();
    for s in tricky {
        let v = Value::object_from(
            &arena,
            &[
                ("k", Value::String(s)),
                (s, Value::Array(arena.alloc_slice_copy(&[Value::String(s)]))),
            ],
        );
        let v = if s == "k" { Value::String(s) } else { v };
        let text = to_yaml_string(&v);
        match parse_yaml_single(&arena, &text, &ParseOptions::default()) {
            Ok(back) if back == v => {}
            Ok(back) => failures.push(format!(
                "{s:?}: {text:?} read back as {}",
                to_json_string(&back)
            )),
            Err(e) => failures.push(format!("{s:?}: {text:?}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Keys and values longer than YAML's 1024-character implicit key limit.
#[test]
fn yaml_long_strings() {
    let arena = Arena::new();
    let long = "k".repeat(5000);
    let v = Value::object_from(&arena, &[(long.as_str(), Value::String(&long))]);
    let text = to_yaml_string(&v);
    let back = parse_yaml_single(&arena, &text, &ParseOptions::default()).unwrap();
    assert!(back == v);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Any bytes: a value or an error, never a panic; errors point inside.
    #[test]
    fn parse_json_total(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let arena = Arena::new();
        if let Err(e) = parse_json(&arena, &bytes, &ParseOptions::default()) {
            prop_assert!(e.offset <= bytes.len());
        }
    }

    /// JSON-ish text mutations: a value or an error, never a panic.
    #[test]
    fn parse_json_total_on_near_json(s in r#"[\[\]{}",:0-9eE.+\-a-z\\ \n]{0,40}"#) {
        let arena = Arena::new();
        let _ = parse_json(&arena, s.as_bytes(), &ParseOptions::default());
    }

    /// YAML-ish text: a value or an error, never a panic.
    #[test]
    fn parse_yaml_total(s in r#"[\[\]{}",:#&*!|>'%@`?\-~ \na-z0-9.<]{0,40}"#) {
        let arena = Arena::new();
        let _ = smpatch_value::parse_yaml(&arena, &s, &ParseOptions::default());
    }
}
