//! The compact writer copies an object parsed from compact text as that
//! text (its "compact source") instead of rewriting its members. These
//! tests check that this never changes a byte: for documents written in
//! every way JSON allows (whitespace anywhere, every escape form, upper-
//! and lowercase `\u` hex, surrogate pairs, `\/`, big and odd numbers,
//! duplicate keys), `to_json_string(parse(text))` is exactly what the
//! general writer (the streaming API, which never uses the source text)
//! writes for the same value.

use proptest::prelude::*;
use smpatch_value::{
    parse_json, to_json_string, write_json_to, Arena, DuplicateKeys, ParseOptions, Value,
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

/// How a document is written: whitespace between tokens, and which escape
/// form each character takes (chosen by a seeded generator).
struct Style {
    rng: u64,
    /// Out of 8: how often whitespace is added between tokens.
    ws: u64,
    /// Out of 8: how often a character that may be written plainly is
    /// escaped anyway.
    esc: u64,
    /// 0: any escape form anywhere. 1–3: characters that must be escaped
    /// take the writer's form, and only one kind of difference is added:
    /// `\/` for `/` (1), uppercase hex for control characters (2), none (3).
    /// (With every form mixed, nearly every long object holds some form the
    /// writer changes; these modes make the one difference the only one.)
    mode: u64,
}

impl Style {
    fn next(&mut self) -> u64 {
        self.rng = self
            .rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.rng >> 33
    }

    fn chance(&mut self, out_of_8: u64) -> bool {
        self.next() % 8 < out_of_8
    }

    fn space(&mut self, out: &mut String) {
        if self.ws > 0 && self.chance(self.ws) {
            let ws = [" ", "\n", "\t", "\r\n  ", "  "];
            out.push_str(ws[(self.next() % ws.len() as u64) as usize]);
        }
    }

    fn hex4(&mut self, out: &mut String, code: u32) {
        if self.chance(4) {
            out.push_str(&format!("\\u{code:04x}"));
        } else {
            out.push_str(&format!("\\u{code:04X}"));
        }
    }

    fn string(&mut self, out: &mut String, s: &str) {
        if self.mode != 0 {
            return self.string_one_difference(out, s);
        }
        out.push('"');
        for c in s.chars() {
            let forced = matches!(c, '"' | '\\') || (c as u32) < 0x20;
            if !forced && !self.chance(self.esc) {
                out.push(c);
                continue;
            }
            let letter = match c {
                '"' => Some('"'),
                '\\' => Some('\\'),
                '/' => Some('/'),
                '\u{8}' => Some('b'),
                '\u{c}' => Some('f'),
                '\n' => Some('n'),
                '\r' => Some('r'),
                '\t' => Some('t'),
                _ => None,
            };
            match letter {
                Some(l) if self.chance(6) => {
                    out.push('\\');
                    out.push(l);
                }
                _ => {
                    let code = c as u32;
                    if code >= 0x10000 {
                        let v = code - 0x10000;
                        self.hex4(out, 0xD800 + (v >> 10));
                        self.hex4(out, 0xDC00 + (v & 0x3FF));
                    } else {
                        self.hex4(out, code);
                    }
                }
            }
        }
        out.push('"');
    }

    fn string_one_difference(&mut self, out: &mut String, s: &str) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => {
                    if self.mode == 2 && self.chance(self.esc) {
                        out.push_str(&format!("\\u{:04X}", c as u32));
                    } else {
                        out.push_str(&format!("\\u{:04x}", c as u32));
                    }
                }
                '/' if self.mode == 1 && self.chance(self.esc) => out.push_str("\\/"),
                c => out.push(c),
            }
        }
        out.push('"');
    }

    fn write(&mut self, out: &mut String, t: &T) {
        self.space(out);
        match t {
            T::Null => out.push_str("null"),
            T::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            T::Num(n) => out.push_str(n),
            T::Str(s) => self.string(out, s),
            T::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.space(out);
                        out.push(',');
                    }
                    self.write(out, item);
                }
                self.space(out);
                out.push(']');
            }
            T::Obj(ms) => {
                out.push('{');
                for (i, (k, v)) in ms.iter().enumerate() {
                    if i > 0 {
                        self.space(out);
                        out.push(',');
                    }
                    self.space(out);
                    self.string(out, k);
                    self.space(out);
                    out.push(':');
                    self.write(out, v);
                }
                self.space(out);
                out.push('}');
            }
        }
        self.space(out);
    }
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        "-?[1-9][0-9]{18,40}",
        "-?(0|[1-9][0-9]{0,5})(\\.[0-9]{1,8})?([eE][+-]?[0-9]{1,2})?",
        Just("-0".to_string()),
        Just("1.0".to_string()),
    ]
}

/// Text with the characters escaping treats specially, and long runs so
/// that objects pass the size from which their source is kept.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9 ]{0,80}",
        "[a-z/\"\\\\\u{0}-\u{1f}é]{40,120}",
        "[\"\\\\/\\u{0}-\\u{1f}\\u{7f}a-z<>&é\\u{2028}\\u{10000}\\u{10FFFF}]{0,24}",
        any::<String>(),
    ]
}

fn tree() -> impl Strategy<Value = T> {
    let leaf = prop_oneof![
        Just(T::Null),
        any::<bool>().prop_map(T::Bool),
        number().prop_map(T::Num),
        text().prop_map(T::Str),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(T::Arr),
            // Keys may repeat: read with last-wins, the object is rebuilt.
            prop::collection::vec(("[a-e]{1,2}|[a-z]{3,12}", inner.clone()), 0..8).prop_map(T::Obj),
            prop::collection::vec((text(), inner), 0..8).prop_map(T::Obj),
        ]
    })
}

/// The general writer's compact output (it never uses source text).
fn general(v: &Value<'_>) -> String {
    let mut out = Vec::new();
    write_json_to(&mut out, v).expect("writing to a Vec");
    String::from_utf8(out).expect("UTF-8 output")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn source_copy_writes_what_the_general_writer_writes(
        t in tree(),
        seed in any::<u64>(),
        ws in prop_oneof![Just(0u64), 0u64..8],
        esc in prop_oneof![Just(0u64), 0u64..8],
        mode in 0u64..4,
    ) {
        let mut style = Style { rng: seed, ws, esc, mode };
        let mut text = String::new();
        style.write(&mut text, &t);
        let arena = Arena::new();
        let opts = ParseOptions::default().with_duplicate_keys(DuplicateKeys::LastWins);
        let v = parse_json(&arena, text.as_bytes(), &opts).expect("valid JSON");
        let fast = to_json_string(&v);
        prop_assert_eq!(&fast, &general(&v), "input: {}", text);
        // Compact output read again keeps every object's source: written
        // again it is the same text, and the same as the general writer's.
        let again = parse_json(&arena, fast.as_bytes(), &opts).expect("valid JSON");
        prop_assert_eq!(&to_json_string(&again), &fast);
        prop_assert_eq!(&general(&again), &fast);
        prop_assert!(again == v);
    }
}

/// An object long enough to keep its source, holding `inner` (raw JSON
/// member text) twice, at the top and one level down.
fn big_object(inner: &str) -> String {
    let pad = "p".repeat(300);
    format!(r#"{{"pad":"{pad}",{inner},"o":{{"pad":"{pad}",{inner}}}}}"#)
}

#[test]
fn every_escape_form_is_written_as_the_writer_writes_it() {
    let arena = Arena::new();
    let opts = ParseOptions::default();
    for (inner, want) in [
        // Written back the same.
        (r#""a":"x\"y\\z\n\r\t\b\f""#, r#""a":"x\"y\\z\n\r\t\b\f""#),
        (
            r#""a":"\u0000\u001f\u007f""#,
            "\"a\":\"\\u0000\\u001f\u{7f}\"",
        ),
        // Rewritten: other forms of the same characters.
        (r#""a":"\/""#, r#""a":"/""#),
        (r#""a":"\u001F""#, r#""a":"\u001f""#),
        (
            r#""a":"\u000a\u0008\u0009\u000c\u000d""#,
            r#""a":"\n\b\t\f\r""#,
        ),
        (r#""a":"\u0041\u00e9""#, "\"a\":\"A\u{e9}\""),
        (r#""a":"\ud83d\ude00""#, "\"a\":\"\u{1F600}\""),
        (r#""a":"\u2028""#, "\"a\":\"\u{2028}\""),
        (r#""\u0061":1"#, r#""a":1"#),
        // Numbers and plain text as written.
        (
            r#""a":[1.50,-0,1E+2,123456789012345678901234567890]"#,
            r#""a":[1.50,-0,1E+2,123456789012345678901234567890]"#,
        ),
        (r#""a":"<&>é","b":{},"c":[]"#, r#""a":"<&>é","b":{},"c":[]"#),
    ] {
        let input = big_object(inner);
        let v = parse_json(&arena, input.as_bytes(), &opts).expect("valid JSON");
        let out = to_json_string(&v);
        assert_eq!(out, big_object(want), "{inner}");
        assert_eq!(out, general(&v), "{inner}");
    }
}

#[test]
fn whitespace_and_duplicates_anywhere_are_not_copied() {
    let arena = Arena::new();
    let compact = big_object(r#""a":[1,{"b":2}]"#);
    // Whitespace at each position inside the object, one at a time.
    for at in 1..compact.len() {
        for ws in [" ", "\n", "\t", "\r"] {
            let mut input = compact.clone();
            input.insert_str(at, ws);
            let Ok(v) = parse_json(&arena, input.as_bytes(), &ParseOptions::default()) else {
                continue; // inside a string: a control character, or a changed string
            };
            let out = to_json_string(&v);
            assert_eq!(out, general(&v), "{input:?}");
            // Between tokens (an even number of quotes before: the text
            // has no escapes), the value is unchanged.
            if compact[..at].matches('"').count() % 2 == 0 {
                assert_eq!(out, compact, "{input:?}");
            }
        }
    }
    let dup = big_object(r#""a":1,"a":2"#);
    let opts = ParseOptions::default().with_duplicate_keys(DuplicateKeys::LastWins);
    let v = parse_json(&arena, dup.as_bytes(), &opts).expect("valid JSON");
    assert_eq!(to_json_string(&v), big_object(r#""a":2"#));
}

#[test]
fn the_source_is_never_a_member() {
    let arena = Arena::new();
    // A key that is a NUL character, like nothing else the parser makes.
    let input = big_object(r#""\u0000":1,"":2"#);
    let v = parse_json(&arena, input.as_bytes(), &ParseOptions::default()).expect("valid JSON");
    let o = v.as_object().expect("an object");
    let keys: Vec<&str> = o.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["pad", "\u{0}", "", "o"]);
    assert_eq!(o.len(), 4);
    assert_eq!(o.members().len(), 4);
    assert_eq!(
        v.get("\u{0}"),
        Some(Value::Number(
            smpatch_value::Number::from_literal_unchecked("1")
        ))
    );
    assert!(!o.is_empty());
    // Debug shows the members (four here, three in `o`), not the source.
    let debug = format!("{o:?}");
    assert_eq!(debug.matches("key:").count(), 7);
    assert!(!debug.contains("String(\"{"), "{debug}");
    // Pretty and Go writers see the same four members.
    assert_eq!(
        smpatch_value::to_json_pretty(&v).matches("\"pad\"").count(),
        2
    );
}

/// `deep_eq` takes two objects read from the same compact text as equal
/// without walking them; objects with different texts are still compared
/// member by member (equal despite key order or number spelling, unequal
/// when one value differs, even in the last byte).
#[test]
fn deep_eq_with_compact_sources() {
    let arena = Arena::new();
    let opts = ParseOptions::default();
    let long = "x".repeat(300);
    let texts = [
        format!(r#"{{"a":"{long}","b":[1,2.50],"c":{{"d":null}}}}"#),
        format!(r#"{{"a":"{long}","b":[1,2.50],"c":{{"d":null}}}}"#),
        format!(r#"{{"c":{{"d":null}},"b":[1,2.5],"a":"{long}"}}"#),
        format!(r#"{{"a":"{long}","b":[1,2.50],"c":{{"d":true}}}}"#),
        format!(r#"{{"a":"{long}","b":[1.0,2.50],"c":{{"d":null}}}}"#),
        format!(r#"{{"k":1,"v":{{"a":"{long}"}}}}"#),
        format!(r#"{{"k":2,"v":{{"a":"{long}"}}}}"#),
    ];
    let v: Vec<Value<'_>> = texts
        .iter()
        .map(|t| parse_json(&arena, t.as_bytes(), &opts).unwrap())
        .collect();
    let [a, same, reordered, last_byte, int_vs_float, outer_a, outer_b] = v[..] else {
        unreachable!()
    };
    assert!(a.deep_eq(&same));
    assert!(a.deep_eq(&reordered) && reordered.deep_eq(&a));
    assert!(!a.deep_eq(&last_byte) && !last_byte.deep_eq(&a));
    assert!(!a.deep_eq(&int_vs_float));
    // Nested: the outer objects differ, the inner long ones are equal.
    assert!(!outer_a.deep_eq(&outer_b));
    let inner_a = outer_a.as_object().and_then(|o| o.get("v")).unwrap();
    let inner_b = outer_b.as_object().and_then(|o| o.get("v")).unwrap();
    assert!(inner_a.deep_eq(&inner_b));
}

/// `t` with its `k`th leaf (depth-first) replaced by a different one, or,
/// when `swap`, the first two members of its `k`th object swapped (the
/// same value unless a key repeats); `k` counts down as nodes are passed.
fn mutate(t: &T, k: &mut usize, swap: bool) -> T {
    let here = *k == 0;
    *k = k.wrapping_sub(1);
    match t {
        T::Arr(items) => T::Arr(items.iter().map(|i| mutate(i, k, swap)).collect()),
        T::Obj(ms) => {
            let mut ms: Vec<(String, T)> = ms
                .iter()
                .map(|(key, v)| (key.clone(), mutate(v, k, swap)))
                .collect();
            if here && swap && ms.len() >= 2 {
                ms.swap(0, 1);
            }
            T::Obj(ms)
        }
        leaf if here && !swap => match leaf {
            T::Null => T::Bool(false),
            _ => T::Null,
        },
        leaf => leaf.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// `deep_eq` answers the same with source texts (compact input) as
    /// without (the same documents written with whitespace), for a tree
    /// against itself, a one-leaf change, and a member swap at any depth.
    #[test]
    fn deep_eq_with_sources_is_deep_eq_without(
        t in tree(),
        k in any::<usize>(),
        swap in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut nodes = 0usize;
        let _ = mutate(&t, &mut nodes, false);
        let mut at = k % nodes.wrapping_neg().max(1);
        let u = mutate(&t, &mut at, swap);
        let arena = Arena::new();
        let opts = ParseOptions::default().with_duplicate_keys(DuplicateKeys::LastWins);
        let write = |t: &T, ws: u64| {
            let mut style = Style { rng: seed, ws, esc: 0, mode: 3 };
            let mut text = String::new();
            style.write(&mut text, t);
            text
        };
        let texts = [write(&t, 0), write(&u, 0), write(&t, 8), write(&u, 8)];
        let v: Vec<Value<'_>> = texts
            .iter()
            .map(|text| parse_json(&arena, text.as_bytes(), &opts).expect("valid JSON"))
            .collect();
        let (tc, uc, ts, us) = (v[0], v[1], v[2], v[3]);
        let expected = ts.deep_eq(&us);
        prop_assert_eq!(tc.deep_eq(&uc), expected);
        prop_assert_eq!(uc.deep_eq(&tc), expected);
        prop_assert_eq!(tc.deep_eq(&us), expected);
        prop_assert!(tc.deep_eq(&tc) && tc.deep_eq(&ts));
    }
}
