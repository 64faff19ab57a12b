//! Path elements and FieldsV1 documents as a reference suite would test
//! them (docs/FIELDSETS.md): the exact text each reads back as, the inputs
//! each must refuse, and a set using every kind at several depths. Our own
//! inputs, written for the audit of round 8.

use smpatch_fieldsets::{FieldSet, PathElement};

fn pe(s: &str) -> Result<String, String> {
    match PathElement::parse(s) {
        Ok(Some(p)) => Ok(p.to_string()),
        Ok(None) => Ok("<unknown kind>".to_owned()),
        Err(e) => Err(e),
    }
}

#[test]
fn path_elements_read_back_as_written() {
    // (input, canonical text; `None`: the input itself)
    let rows: &[(&str, Option<&str>)] = &[
        ("i:0", None),
        ("i:4096", None),
        ("f:", None),
        ("f:  padded name  ", None),
        ("f:tab\there", None),
        ("f:emoji-\u{1F680}", None),
        ("f:back\\n", None),
        ("k:{\"id\":\"  spaced  \"}", None),
        (
            "k:{\"zone\":\"eu\",\"rack\":7}",
            Some("k:{\"rack\":7,\"zone\":\"eu\"}"),
        ),
        ("k:{\"opt\":null}", None),
        (
            "k:{\"cfg\":{\"b\":[1,\"x\"],\"a\":{\"z\":null,\"y\":true}}}",
            Some("k:{\"cfg\":{\"a\":{\"y\":true,\"z\":null},\"b\":[1,\"x\"]}}"),
        ),
        ("k:{\"ids\":[\"3\",\"1\"]}", None),
        ("k:{\"name\":\"\u{4f60}\u{597d}\"}", None),
        // A repeated key-field name is kept, every occurrence, in document
        // order after the stable sort by name.
        ("k:{\"dup\":\"1\",\"dup\":\"2\"}", None),
        ("k:{\"dup\":\"2\",\"dup\":\"1\"}", None),
        (
            "k:{\"b\":1,\"a\":\"x\",\"a\":\"y\"}",
            Some("k:{\"a\":\"x\",\"a\":\"y\",\"b\":1}"),
        ),
        (
            "k:{\"a\\\"q\":1,\"a\\\"q\":{\"s\":\"}],\\\"{\"}}",
            Some("k:{\"a\\\"q\":1,\"a\\\"q\":{\"s\":\"}],\\\"{\"}}"),
        ),
        // Inside a value a repeated object key keeps its last value.
        ("v:{\"dup\":\"1\",\"dup\":\"2\"}", Some("v:{\"dup\":\"2\"}")),
        ("k:{\"o\":{\"d\":1,\"d\":2}}", Some("k:{\"o\":{\"d\":2}}")),
        ("v:null", None),
        ("v:\"plain\"", None),
        ("v:77", None),
        ("v:{\"k\":\"v\"}", None),
        ("v:[true,false,null]", None),
        // Escapes are decoded, then written as the reference writes them.
        ("k:{\"a\\u002db\":\"c\"}", Some("k:{\"a-b\":\"c\"}")),
        ("k:{\"n\\nl\":\"q\\\"t\"}", None),
        (
            "k:{\"r-\\ud83d\\ude80\":\"x\"}",
            Some("k:{\"r-\u{1F680}\":\"x\"}"),
        ),
        ("v:\"\\u4f60\"", Some("v:\"\u{4f60}\"")),
        ("v:\"a<b>&c\"", Some("v:\"a\\u003cb\\u003e\\u0026c\"")),
        ("k:{\"a<b\":\"a<b\"}", Some("k:{\"a<b\":\"a\\u003cb\"}")),
        // Whitespace around the payload; `k:null` and `k:{}` are one key.
        ("v: {\"k\":\"v\"}", Some("v:{\"k\":\"v\"}")),
        ("k:{\"n\":\"c\"} ", Some("k:{\"n\":\"c\"}")),
        ("k: null ", Some("k:{}")),
        ("k:{}", None),
        // Numbers: one numeric kind, Go-style floats.
        ("v:1.0", Some("v:1")),
        ("v:-0.0", Some("v:-0")),
        ("v:1e-7", Some("v:1e-07")),
        ("v:1.5e300", Some("v:1.5e+300")),
        ("v:0.000001", None),
        ("v:1e20", Some("v:100000000000000000000")),
        ("k:{\"w\":2.50}", Some("k:{\"w\":2.5}")),
        // Unknown kinds are not errors.
        ("r:Hello", Some("<unknown kind>")),
        ("K:{}", Some("<unknown kind>")),
    ];
    let mut bad = Vec::new();
    for (input, want) in rows {
        let want = want.unwrap_or(input);
        match pe(input) {
            Ok(got) if got == want => {
                // The canonical text is a fixed point.
                if want != "<unknown kind>" && pe(want).as_deref() != Ok(want) {
                    bad.push(format!("{input:?}: {want:?} does not read back as itself"));
                }
            }
            other => bad.push(format!("{input:?}: got {other:?}, want {want:?}")),
        }
    }
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

#[test]
fn repeated_key_fields_make_a_different_element() {
    let one = PathElement::parse("k:{\"a\":1}").unwrap().unwrap();
    let two = PathElement::parse("k:{\"a\":1,\"a\":1}").unwrap().unwrap();
    let swapped = PathElement::parse("k:{\"a\":2,\"a\":1}").unwrap().unwrap();
    let ordered = PathElement::parse("k:{\"a\":1,\"a\":2}").unwrap().unwrap();
    assert_ne!(one, two);
    assert!(one < two, "a prefix sorts first");
    assert_ne!(swapped, ordered);
    assert!(ordered < swapped);
    let set = FieldSet::from_json(
        br#"{"f:l":{"k:{\"a\":2,\"a\":1}":{},"k:{\"a\":1}":{},"k:{\"a\":1,\"a\":2}":{"f:x":{}}}}"#,
    )
    .unwrap();
    assert_eq!(
        set.to_json(),
        r#"{"f:l":{"k:{\"a\":1}":{},"k:{\"a\":1,\"a\":2}":{"f:x":{}},"k:{\"a\":2,\"a\":1}":{}}}"#
    );
}

#[test]
fn malformed_path_elements_are_refused() {
    let rows = [
        "",
        "f",
        "k",
        "v",
        "i",
        "no-colon",
        "i:not a number",
        "i:1.23",
        "i:",
        "i: 0",
        "i:0 ",
        "i:9223372036854775808",
        "v:",
        "v:bare words",
        "v:{\"s\":\" \\x41\"}",
        "v:{\"a\":\"b\"",
        "k:{\"a\":\"b\"",
        "k:{\"n\":bare}",
        "k:bare",
        "k:[\"n\"]",
        "k:\"n\"",
        "k:7",
        "v:{\"a\":1} {\"b\":2}",
        "k:{\"a\":1} {\"b\":2}",
        "v:{\"a\":1} {\"b\":2",
        "k:{\"a\":1} trailing",
        "v:1 2",
    ];
    let accepted: Vec<String> = rows
        .iter()
        .filter_map(|r| pe(r).ok().map(|got| format!("{r:?} -> {got:?}")))
        .collect();
    assert!(accepted.is_empty(), "accepted: {accepted:?}");
    // As FieldsV1 keys they fail the document, naming the key.
    let e = FieldSet::from_json(br#"{"f:spec":{"k:{\"a\":1} trailing":{}}}"#).unwrap_err();
    assert_eq!(e.path(), "f:spec.k:{\"a\":1} trailing");
    assert!(
        e.message().starts_with("parsing key as path element"),
        "{e}"
    );
}

/// Every kind of element at several depths, with a member that also has
/// paths below it: written in any order, it reads and writes back to one
/// canonical text.
#[test]
fn a_set_of_every_kind_has_one_canonical_text() {
    let canonical = concat!(
        r#"{"f:alpha":{"k:{\"id\":\"x\"}":{"v:4":{"f:deep":{}}},"v:4":{},"v:false":{}},"#,
        r#""f:beta":{"f:alpha":{},"f:omega":{"k:{\"port\":80,\"proto\":\"udp\"}":{"k:{\"port\":80,\"proto\":\"tcp\"}":{}}},"k:{\"id\":\"w\"}":{}},"#,
        r#""k:{\"port\":80,\"proto\":\"tcp\"}":{".":{},"f:alpha":{"i:2":{}}},"#,
        r#""k:{\"port\":443,\"proto\":\"tcp\"}":{},"#,
        r#""v:3":{"f:gamma":{}},"v:10":{},"v:\"s\"":{"i:0":{}},"v:true":{},"v:[1]":{},"v:{\"a\":1}":{},"v:null":{},"#,
        r#""i:1":{"i:3":{"f:z":{}}},"i:10":{}}"#
    );
    let set = FieldSet::from_json(canonical.as_bytes()).unwrap();
    assert_eq!(set.to_json(), canonical);
    // The same paths, shuffled, with whitespace, a redundant root ".",
    // `null` leaves and non-canonical spellings.
    let shuffled = concat!(
        r#"{ "i:10" : null , "i:01":{"i:3":{"f:z":{}}}, ".":{},"#,
        r#""v:{\"a\":1.0}":{},"v:null":{},"v:[1]":{},"v:true":{},"v:\"s\"":{"i:0":{}},"v:10":{},"v:3.0":{"f:gamma":{}},"#,
        r#""k:{\"proto\":\"tcp\",\"port\":443}":{},"#,
        r#""k:{\"proto\":\"tcp\",\"port\":80}":{"f:alpha":{"i:+2":{}},".":{}},"#,
        r#""f:beta":{"k:{\"id\":\"w\"}":{},"f:omega":{"k:{\"proto\":\"udp\",\"port\":80}":{"k:{\"proto\":\"tcp\",\"port\":80}":{}}},"f:alpha":{}},"#,
        r#""f:alpha":{"v:false":{},"v:4":{},"k:{\"id\":\"x\"}":{"v:4":{"f:deep":{}}}}}"#
    );
    let again = FieldSet::from_json(shuffled.as_bytes()).unwrap();
    assert_eq!(again, set);
    assert_eq!(again.to_json(), canonical);
}
