//! Hostile inputs: each must give its documented outcome quickly, without a
//! stack overflow or an unbounded allocation. One table, one driver.

use smpatch_value::{
    parse_json, parse_yaml, to_go_json, to_json_pretty, to_json_string, to_yaml_string, Arena,
    DuplicateKeys, ParseOptions, Value,
};

#[derive(Clone, Copy)]
enum Format {
    Json,
    Yaml,
}

enum Expect {
    /// The error kind name.
    Error(&'static str),
    /// The parse succeeds and the check holds.
    Ok(fn(&[Value<'_>]) -> bool),
}

struct Case {
    name: &'static str,
    format: Format,
    input: fn() -> Vec<u8>,
    opts: fn() -> ParseOptions,
    expect: Expect,
}

fn defaults() -> ParseOptions {
    ParseOptions::default()
}

fn unlimited_depth() -> ParseOptions {
    ParseOptions::default().with_max_depth(usize::MAX)
}

fn last_wins() -> ParseOptions {
    ParseOptions::default().with_duplicate_keys(DuplicateKeys::LastWins)
}

const MILLION: usize = 1_000_000;

fn nested_open() -> Vec<u8> {
    vec![b'['; MILLION]
}

fn nested_balanced() -> Vec<u8> {
    let mut v = vec![b'['; MILLION];
    v.extend(std::iter::repeat_n(b']', MILLION));
    v
}

fn nested_objects() -> Vec<u8> {
    "{\"a\":".repeat(MILLION).into_bytes()
}

fn yaml_block_nested() -> Vec<u8> {
    let mut s = String::new();
    for i in 0..2_000 {
        s.push_str(&" ".repeat(i));
        s.push_str("a:\n");
    }
    s.into_bytes()
}

fn yaml_block_seq_1m() -> Vec<u8> {
    let mut s = "- ".repeat(MILLION);
    s.push('x');
    s.into_bytes()
}

fn yaml_flow_maps_1m() -> Vec<u8> {
    "{a: ".repeat(MILLION).into_bytes()
}

fn dup_keys_10k() -> Vec<u8> {
    let items: Vec<String> = (0..10_000).map(|i| format!("\"a\":{i}")).collect();
    format!("{{{}}}", items.join(",")).into_bytes()
}

fn distinct_keys_then_dup() -> Vec<u8> {
    let mut items: Vec<String> = (0..10_000).map(|i| format!("\"k{i}\":{i}")).collect();
    items.push("\"k9999\":0".into());
    format!("{{{}}}", items.join(",")).into_bytes()
}

fn yaml_dup_keys_10k() -> Vec<u8> {
    (0..10_000)
        .map(|i| format!("a: {i}\n"))
        .collect::<String>()
        .into_bytes()
}

/// Keys of the wide `<<` merge cases: enough that a per-key scan of the
/// mapping (quadratic) would take minutes in a debug build.
const WIDE: usize = 50_000;

/// `NAME: &NAME` then the mapping `k{i}: VALUE` for `i` in `from..to`
/// (`VALUE` the number `i` when `value` is `None`).
fn yaml_anchor(name: &str, from: usize, to: usize, value: Option<&str>) -> String {
    let mut s = format!("{name}: &{name}\n");
    for i in from..to {
        match value {
            Some(v) => s.push_str(&format!("  k{i}: {v}\n")),
            None => s.push_str(&format!("  k{i}: {i}\n")),
        }
    }
    s
}

/// Explicit keys `k0`, `k2`, … of `m`, each `x`.
fn even_explicit_keys() -> String {
    (0..WIDE)
        .step_by(2)
        .map(|i| format!("  k{i}: x\n"))
        .collect()
}

fn yaml_merge_wide() -> Vec<u8> {
    let mut s = yaml_anchor("b", 0, WIDE, None);
    s.push_str("m: {<<: *b}\n");
    s.into_bytes()
}

fn yaml_merge_wide_then_explicit() -> Vec<u8> {
    let mut s = yaml_anchor("b", 0, WIDE, None);
    s.push_str("m:\n  <<: *b\n");
    s.push_str(&even_explicit_keys());
    s.into_bytes()
}

fn yaml_explicit_then_merge_wide() -> Vec<u8> {
    let mut s = yaml_anchor("b", 0, WIDE, None);
    s.push_str("m:\n");
    s.push_str(&even_explicit_keys());
    s.push_str("  <<: *b\n");
    s.into_bytes()
}

fn yaml_merge_wide_sources() -> Vec<u8> {
    let mut s = yaml_anchor("b", 0, WIDE, None);
    s.push_str(&yaml_anchor("c", WIDE / 2, WIDE + WIDE / 2, Some("c")));
    s.push_str("m:\n  <<: [*b, *c]\np:\n  <<: *b\n  <<: *c\n");
    s.into_bytes()
}

/// Whether the member at `i` of `m` is `k{key}` with the number `key` (or
/// the string `text`).
fn member_is(m: &[smpatch_value::Member<'_>], i: usize, key: usize, text: Option<&str>) -> bool {
    let Some(e) = m.get(i) else {
        return false;
    };
    let value_ok = match text {
        Some(t) => e.value.as_str() == Some(t),
        None => e.value.as_number().and_then(|n| n.as_i64()) == Some(key as i64),
    };
    e.key == format!("k{key}") && value_ok
}

fn members_of<'a>(docs: &[Value<'a>], key: &str) -> &'a [smpatch_value::Member<'a>] {
    docs.first()
        .and_then(|d| d.get(key))
        .and_then(|v| v.as_object())
        .map_or(&[], |o| o.members())
}

/// `m` holds the even keys first (explicit, with `even`), then the odd ones
/// (merged).
fn evens_then_odds(docs: &[Value<'_>], even: Option<&str>) -> bool {
    let m = members_of(docs, "m");
    let half = WIDE / 2;
    m.len() == WIDE
        && (0..half).all(|i| member_is(m, i, 2 * i, even))
        && (0..half).all(|i| member_is(m, half + i, 2 * i + 1, None))
}

fn big_number() -> Vec<u8> {
    let mut s = String::from("[1");
    s.push_str(&"7".repeat(100_000));
    s.push_str(", -0.");
    s.push_str(&"3".repeat(100_000));
    s.push_str("e-99999]");
    s.into_bytes()
}

fn billion_laughs() -> Vec<u8> {
    let mut s = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        let refs = vec![format!("*{}", w[0]); 9].join(", ");
        s.push_str(&format!("{}: &{} [{}]\n", w[1], w[1], refs));
    }
    s.into_bytes()
}

fn huge_string() -> Vec<u8> {
    let mut s = b"\"".to_vec();
    s.extend(std::iter::repeat_n(b'x', 1 << 20));
    s.push(b'"');
    s
}

fn small_string_limit() -> ParseOptions {
    ParseOptions::default().with_max_string_bytes(1 << 16)
}

fn small_input_limit() -> ParseOptions {
    ParseOptions::default().with_max_input_bytes(1 << 10)
}

fn cases() -> Vec<Case> {
    use Expect::*;
    use Format::*;
    vec![
        Case {
            name: "1,000,000 nested [ (json)",
            format: Json,
            input: nested_open,
            opts: defaults,
            expect: Error("too_deep"),
        },
        Case {
            name: "1,000,000 nested [ with max_depth usize::MAX (json)",
            format: Json,
            input: nested_open,
            opts: unlimited_depth,
            expect: Error("syntax"),
        },
        Case {
            name: "1,000,000 balanced [] with max_depth usize::MAX: parse, write, compare",
            format: Json,
            input: nested_balanced,
            opts: unlimited_depth,
            expect: Ok(|v| {
                let s = to_json_string(&v[0]);
                // (Pretty output is quadratic in depth by nature: checked on a shallower tree.)
                s.len() == 2 * MILLION
                    && to_go_json(&v[0]) == s
                    && to_yaml_string(&v[0]).len() == 2 * MILLION + 1
                    && v[0].deep_eq(&v[0])
                    && smpatch_value::render(&v[0]).len() == 2 * MILLION
                    && v[0].depth() == MILLION
            }),
        },
        Case {
            name: "2,000 balanced [] pretty-printed",
            format: Json,
            input: || {
                let mut v = vec![b'['; 2_000];
                v.extend(std::iter::repeat_n(b']', 2_000));
                v
            },
            opts: unlimited_depth,
            expect: Ok(|v| to_json_pretty(&v[0]).lines().count() == 3_999),
        },
        Case {
            name: "1,000,000 nested objects (json)",
            format: Json,
            input: nested_objects,
            opts: defaults,
            expect: Error("too_deep"),
        },
        Case {
            name: "1,000,000 nested [ (yaml)",
            format: Yaml,
            input: nested_open,
            opts: defaults,
            expect: Error("too_deep"),
        },
        Case {
            name: "1,000,000 nested [ with max_depth usize::MAX (yaml)",
            format: Yaml,
            input: nested_open,
            opts: unlimited_depth,
            expect: Error("too_deep"),
        },
        Case {
            name: "2,000 nested block mappings (yaml)",
            format: Yaml,
            input: yaml_block_nested,
            opts: defaults,
            expect: Error("too_deep"),
        },
        Case {
            name: "1,000,000 nested block sequences on one line (yaml)",
            format: Yaml,
            input: yaml_block_seq_1m,
            opts: defaults,
            expect: Error("too_deep"),
        },
        Case {
            name: "1,000,000 nested flow mappings (yaml)",
            format: Yaml,
            input: yaml_flow_maps_1m,
            opts: unlimited_depth,
            expect: Error("too_deep"),
        },
        Case {
            name: "input larger than max_input_bytes",
            format: Json,
            input: dup_keys_10k,
            opts: small_input_limit,
            expect: Error("too_large"),
        },
        Case {
            name: "input larger than max_input_bytes (yaml)",
            format: Yaml,
            input: yaml_dup_keys_10k,
            opts: small_input_limit,
            expect: Error("too_large"),
        },
        Case {
            name: "1 MiB string over a 64 KiB limit",
            format: Json,
            input: huge_string,
            opts: small_string_limit,
            expect: Error("string_too_long"),
        },
        Case {
            name: "1 MiB string within the default limit",
            format: Json,
            input: huge_string,
            opts: defaults,
            expect: Ok(|v| v[0].as_str().map(str::len) == Some(1 << 20)),
        },
        Case {
            name: "10,000 duplicate keys",
            format: Json,
            input: dup_keys_10k,
            opts: defaults,
            expect: Error("duplicate_key"),
        },
        Case {
            name: "10,000 duplicate keys, last wins",
            format: Json,
            input: dup_keys_10k,
            opts: last_wins,
            expect: Ok(|v| to_json_string(&v[0]) == r#"{"a":9999}"#),
        },
        Case {
            name: "10,000 distinct keys then one repeat (hashed check)",
            format: Json,
            input: distinct_keys_then_dup,
            opts: defaults,
            expect: Error("duplicate_key"),
        },
        Case {
            name: "10,000 duplicate keys (yaml)",
            format: Yaml,
            input: yaml_dup_keys_10k,
            opts: defaults,
            expect: Error("duplicate_key"),
        },
        Case {
            name: "10,000 duplicate keys, last wins (yaml)",
            format: Yaml,
            input: yaml_dup_keys_10k,
            opts: last_wins,
            expect: Ok(|v| to_json_string(&v[0]) == r#"{"a":9999}"#),
        },
        Case {
            name: "`<<` of an anchor of 50,000 keys (yaml)",
            format: Yaml,
            input: yaml_merge_wide,
            opts: defaults,
            expect: Ok(|v| {
                let m = members_of(v, "m");
                m.len() == WIDE && (0..WIDE).all(|i| member_is(m, i, i, None))
            }),
        },
        Case {
            name: "25,000 explicit keys after a `<<` of 50,000 keys replace them (yaml)",
            format: Yaml,
            input: yaml_merge_wide_then_explicit,
            opts: defaults,
            expect: Ok(|v| evens_then_odds(v, Some("x"))),
        },
        Case {
            name: "a `<<` of 50,000 keys after 25,000 explicit keys replaces them (yaml)",
            format: Yaml,
            input: yaml_explicit_then_merge_wide,
            opts: defaults,
            expect: Ok(|v| evens_then_odds(v, None)),
        },
        Case {
            name: "`<<` lists and repeated `<<` of 50,000 overlapping keys (yaml)",
            format: Yaml,
            input: yaml_merge_wide_sources,
            opts: defaults,
            expect: Ok(|v| {
                // Among one `<<` list's sources the first wins; a later
                // `<<` replaces an earlier one's keys (moved to the end).
                let (half, m, p) = (WIDE / 2, members_of(v, "m"), members_of(v, "p"));
                m.len() == WIDE + half
                    && (0..WIDE).all(|i| member_is(m, i, i, None))
                    && (WIDE..WIDE + half).all(|i| member_is(m, i, i, Some("c")))
                    && p.len() == WIDE + half
                    && (0..half).all(|i| member_is(p, i, i, None))
                    && (half..WIDE + half).all(|i| member_is(p, i, i, Some("c")))
            }),
        },
        Case {
            name: "invalid UTF-8 in a string",
            format: Json,
            input: || b"{\"a\":[\"\xff\"]}".to_vec(),
            opts: defaults,
            expect: Error("invalid_utf8"),
        },
        Case {
            name: "overlong UTF-8 encoding",
            format: Json,
            input: || b"\"\xc0\xaf\"".to_vec(),
            opts: defaults,
            expect: Error("invalid_utf8"),
        },
        Case {
            name: "truncated UTF-8 at the end",
            format: Json,
            input: || b"\"\xe2\x82".to_vec(),
            opts: defaults,
            expect: Error("invalid_utf8"),
        },
        Case {
            name: "invalid UTF-8 after the value",
            format: Json,
            input: || b"{} \xff".to_vec(),
            opts: defaults,
            expect: Error("invalid_utf8"),
        },
        Case {
            name: "invalid UTF-8 inside a literal",
            format: Json,
            input: || b"[tru\xff]".to_vec(),
            opts: defaults,
            expect: Error("invalid_utf8"),
        },
        Case {
            name: "UTF-16 surrogate encoded in UTF-8",
            format: Json,
            input: || b"\"\xed\xa0\x80\"".to_vec(),
            opts: defaults,
            expect: Error("invalid_utf8"),
        },
        Case {
            name: "lone high surrogate \\ud800",
            format: Json,
            input: || br#""\ud800""#.to_vec(),
            opts: defaults,
            expect: Error("invalid_escape"),
        },
        Case {
            name: "lone low surrogate \\udfff",
            format: Json,
            input: || br#"["\udfff"]"#.to_vec(),
            opts: defaults,
            expect: Error("invalid_escape"),
        },
        Case {
            name: "reversed surrogate pair",
            format: Json,
            input: || br#""\udc00\ud800""#.to_vec(),
            opts: defaults,
            expect: Error("invalid_escape"),
        },
        Case {
            name: "100,000-digit numbers are kept exactly",
            format: Json,
            input: big_number,
            opts: defaults,
            expect: Ok(|v| {
                let s = to_json_string(&v[0]);
                s.as_bytes()
                    == &big_number()[..]
                        .iter()
                        .filter(|b| **b != b' ')
                        .copied()
                        .collect::<Vec<u8>>()[..]
                    && v[0]
                        .as_array()
                        .and_then(|a| a[0].as_number())
                        .is_some_and(|n| n.is_int())
            }),
        },
        Case {
            name: "NaN",
            format: Json,
            input: || b"NaN".to_vec(),
            opts: defaults,
            expect: Error("invalid_number"),
        },
        Case {
            name: "Infinity",
            format: Json,
            input: || b"[Infinity]".to_vec(),
            opts: defaults,
            expect: Error("invalid_number"),
        },
        Case {
            name: "-Infinity",
            format: Json,
            input: || b"{\"a\":-Infinity}".to_vec(),
            opts: defaults,
            expect: Error("invalid_number"),
        },
        Case {
            name: ".nan (yaml)",
            format: Yaml,
            input: || b"a: .nan".to_vec(),
            opts: defaults,
            expect: Error("yaml"),
        },
        Case {
            name: "billion laughs (yaml)",
            format: Yaml,
            input: billion_laughs,
            opts: defaults,
            expect: Error("alias_limit"),
        },
        Case {
            name: "NUL byte in the input",
            format: Json,
            input: || b"[1,\x00]".to_vec(),
            opts: defaults,
            expect: Error("syntax"),
        },
        Case {
            name: "byte order mark",
            format: Json,
            input: || b"\xef\xbb\xbf{}".to_vec(),
            opts: defaults,
            expect: Error("syntax"),
        },
    ]
}

#[test]
fn hostile_inputs() {
    let mut failures = Vec::new();
    let filter = std::env::var("SMPATCH_CASE").ok();
    for case in cases() {
        if filter.as_deref().is_some_and(|f| !case.name.contains(f)) {
            continue;
        }
        eprintln!("hostile: {}", case.name);
        let input = (case.input)();
        let opts = (case.opts)();
        let arena = Arena::new();
        let got = match case.format {
            Format::Json => parse_json(&arena, &input, &opts).map(|v| vec![v]),
            Format::Yaml => match std::str::from_utf8(&input) {
                Ok(s) => parse_yaml(&arena, s, &opts),
                Err(e) => panic!("{}: yaml input must be UTF-8: {e}", case.name),
            },
        };
        match (&case.expect, got) {
            (Expect::Error(kind), Err(e)) if e.kind_name() == *kind => {
                // Locations must be inside the input.
                if e.offset > input.len() {
                    failures.push(format!("{}: offset {} past the end", case.name, e.offset));
                }
            }
            (Expect::Error(kind), Err(e)) => failures.push(format!(
                "{}: want {kind}, got {}: {e}",
                case.name,
                e.kind_name()
            )),
            (Expect::Error(kind), Ok(_)) => {
                failures.push(format!("{}: want {kind}, parsed fine", case.name))
            }
            (Expect::Ok(check), Ok(v)) => {
                if !check(&v) {
                    failures.push(format!("{}: check failed", case.name));
                }
            }
            (Expect::Ok(_), Err(e)) => failures.push(format!("{}: {e}", case.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn invalid_utf8_error_carries_path_and_offset() {
    let arena = Arena::new();
    let e = parse_json(&arena, b"{\"a\":[1,\"x\xff\"]}", &ParseOptions::default()).unwrap_err();
    assert_eq!(
        (e.kind_name(), e.path.as_str(), e.offset),
        ("invalid_utf8", "/a/1", 10)
    );
    assert_eq!(
        e.to_string(),
        "/a/1: invalid UTF-8 in the input at line 1 column 11 (byte 10)"
    );
}
