//! FieldsV1 reader and writer edge cases (docs/FIELDSETS.md).

use smpatch_fieldsets::{path_string, ErrorKind, FieldSet};

fn canon(s: &str) -> String {
    FieldSet::from_json(s.as_bytes())
        .unwrap_or_else(|e| panic!("{s}: {e}"))
        .to_json()
}

#[test]
fn members_dots_and_nulls() {
    assert_eq!(canon("null"), "{}");
    assert_eq!(canon(" {} "), "{}");
    assert_eq!(canon(r#"{"f:a":null}"#), r#"{"f:a":{}}"#);
    assert_eq!(canon(r#"{"f:a":{".":{}}}"#), r#"{"f:a":{}}"#);
    assert_eq!(canon(r#"{"f:a":{".":[1,2]}}"#), r#"{"f:a":{}}"#);
    assert_eq!(canon(r#"{".":{},"f:a":{}}"#), r#"{"f:a":{}}"#);
    assert_eq!(canon(r#"{".":{}}"#), "{}");
    assert_eq!(canon(r#"{"f:a":{"x:y":{}}}"#), r#"{"f:a":{}}"#);
    assert_eq!(
        canon(r#"{"f:a":{"f:b":{}, ".":{}}}"#),
        r#"{"f:a":{".":{},"f:b":{}}}"#
    );
    assert_eq!(
        canon(r#"{"f:\u0061":{},"f:a\u003cb":{}}"#),
        r#"{"f:a":{},"f:a<b":{}}"#
    );
    assert_eq!(
        canon(r#"{"i:007":{},"i:10":{},"i:2":{}}"#),
        r#"{"i:2":{},"i:7":{},"i:10":{}}"#
    );
    assert_eq!(
        canon(r#"{"v:1E2":{},"v:1.0":{}}"#),
        r#"{"v:1":{},"v:100":{}}"#
    );
}

#[test]
fn unknown_kinds_are_dropped_with_their_subtree() {
    assert_eq!(
        canon(r#"{"r:anything":{"f:x":{}},"F:a":{},"z:{{{":[1],"f:kept":{}}"#),
        r#"{"f:kept":{}}"#
    );
}

#[test]
fn repeated_keys_unite_both_subtrees() {
    // The reference keeps only the last subtree (its F2 quirk); we unite,
    // as docs/FIELDSETS.md recommends. Memberships accumulate in both.
    assert_eq!(
        canon(r#"{"f:a":{"f:b":{}},"f:a":{"f:c":{}}}"#),
        r#"{"f:a":{"f:b":{},"f:c":{}}}"#
    );
    assert_eq!(
        canon(r#"{"f:a":{},"f:a":{"f:b":{}}}"#),
        r#"{"f:a":{".":{},"f:b":{}}}"#
    );
}

#[test]
fn errors_name_the_offending_path_element() {
    let cases: &[(&str, &str, &str)] = &[
        ("", "", "empty input"),
        ("  ", "", "empty input"),
        ("[]", "", "FieldsV1 object"),
        ("3", "", "FieldsV1 object"),
        (r#"{"f:a":1}"#, "f:a", "FieldsV1 object"),
        (r#"{"f:a":{"f:b":[]}}"#, "f:a.f:b", "FieldsV1 object"),
        (r#"{"f:spec":{"f":{}}}"#, "f:spec.f", "2 characters"),
        (r#"{"f:spec":{"":{}}}"#, "f:spec.", "2 characters"),
        (r#"{"spec":{}}"#, "spec", "missing colon"),
        (
            r#"{"f:a":{"i: 1":{}}}"#,
            "f:a.i: 1",
            "parsing key as path element",
        ),
        (
            r#"{"k:{invalid}":{}}"#,
            "k:{invalid}",
            "parsing key as path element",
        ),
        (r#"{"v:":{}}"#, "v:", "parsing key as path element"),
        (r#"{"f:a":{}} x"#, "", "trailing"),
        (r#"{"f:a":{}"#, "", "EOF"),
        (r#"{"f:a":{"f:b":{"#, "f:a.f:b", "EOF"),
    ];
    for (input, path, phrase) in cases {
        let e = FieldSet::from_json(input.as_bytes()).expect_err(input);
        assert_eq!(e.kind(), ErrorKind::InvalidFieldsV1, "{input}");
        assert_eq!(e.path(), *path, "{input}: {e}");
        assert!(e.message().contains(phrase), "{input}: {e}");
    }
}

#[test]
fn deep_input_is_an_error_not_a_crash() {
    let depth = 100_000;
    let text = format!("{}{}", r#"{"f:a":"#.repeat(depth), "}".repeat(depth + 1));
    let e = FieldSet::from_json(text.as_bytes()).expect_err("too deep");
    assert_eq!(e.kind(), ErrorKind::InvalidFieldsV1);
    assert!(e.message().contains("recursion limit"), "{e}");
}

#[test]
fn escaping_survives_every_ascii_byte() {
    let name: String = (0u8..0x80).map(char::from).chain(['\u{2028}']).collect();
    let mut set = FieldSet::new();
    let f = smpatch_fieldsets::PathElement::Field(name.clone());
    let v = smpatch_fieldsets::PathElement::Value(smpatch_fieldsets::PeValue::String(name.clone()));
    set.insert(std::slice::from_ref(&f));
    set.insert(std::slice::from_ref(&v));
    let text = set.to_json();
    assert!(
        text.contains(r"\\u003c") && text.contains(r"\\u2028"),
        "{text}"
    );
    let back = FieldSet::from_json(text.as_bytes()).expect("decodes");
    assert_eq!(back, set);
    assert!(back.has(&[f]) && back.has(&[v]));
    assert_eq!(back.paths().len(), 2);
    assert_eq!(path_string(&back.paths()[0])[..2], *"f:");
}

#[test]
fn reading_a_parsed_value_agrees_with_reading_text() {
    use smpatch_value::{parse_json, Arena, ParseOptions};
    let inputs = [
        r#"null"#,
        r#"{}"#,
        r#"{".":{},"f:a":{".":{},"f:b":{}},"k:{\"port\":80}":null}"#,
        r#"{"v:1.0":{},"v:1E2":{},"i:007":{"f:x":{}},"r:drop":{"f:y":{}}}"#,
        r#"{"f:a":{"x:y":{}}}"#,
        r#"{"f:spec":{"f":{}}}"#,
        r#"{"f:a":{"i: 1":{}}}"#,
        r#"{"f:a":1}"#,
        r#"{"f:a":{"f:b":[]}}"#,
        r#"[]"#,
    ];
    let arena = Arena::new();
    for input in inputs {
        let v = parse_json(&arena, input.as_bytes(), &ParseOptions::default()).expect("json");
        let a = FieldSet::from_json(input.as_bytes());
        let b = FieldSet::from_value(&v);
        match (a, b) {
            (Ok(a), Ok(b)) => assert_eq!(a.to_json(), b.to_json(), "{input}"),
            (Err(a), Err(b)) => {
                assert_eq!(a.kind(), b.kind(), "{input}");
                assert_eq!(a.path(), b.path(), "{input}");
            }
            (a, b) => panic!("{input}: {a:?} vs {b:?}"),
        }
    }
}

#[test]
fn reader_errors_name_the_place_as_dotted_path_elements() {
    use smpatch_value::{parse_json, Arena, ParseOptions};
    let arena = Arena::new();
    for (input, path) in [
        (r#"{"f:a":{"f:b":{"i: 1":{}}}}"#, "f:a.f:b.i: 1"),
        (
            r#"{"f:a":{"k:{\"n\":\"x/y\"}":{"f:c":3}}}"#,
            r#"f:a.k:{"n":"x/y"}.f:c"#,
        ),
        (r#"{"f:a":{"f:b":[]}}"#, "f:a.f:b"),
    ] {
        let v = parse_json(&arena, input.as_bytes(), &ParseOptions::default()).expect("json");
        let from_text = FieldSet::from_json(input.as_bytes()).expect_err(input);
        let from_value = FieldSet::from_value(&v).expect_err(input);
        assert_eq!(from_text.path(), path, "{input}");
        assert_eq!(from_value.path(), path, "{input}");
    }
}

/// Sets as deep as `fields_of` writes them (beyond serde_json's 128 levels)
/// read back; deeper than `MAX_SET_DEPTH` is still an error.
#[test]
fn sets_deeper_than_128_levels_read_back() {
    use smpatch_fieldsets::{fields_of, FieldsOptions, MAX_SET_DEPTH};
    use smpatch_value::{parse_json, Arena, ParseOptions};
    let depth = 300;
    let doc = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    let arena = Arena::new();
    let v = parse_json(
        &arena,
        doc.as_bytes(),
        &ParseOptions::default().with_max_depth(400),
    )
    .unwrap();
    let opts = FieldsOptions {
        max_depth: 400,
        ..FieldsOptions::default()
    };
    let set = fields_of(&v, smpatch_schema::Cursor::UNKNOWN, &opts).unwrap();
    let text = set.to_json();
    assert_eq!(FieldSet::from_json(text.as_bytes()).unwrap(), set);
    let too_deep = format!(
        "{}{}",
        r#"{"f:a":"#.repeat(MAX_SET_DEPTH + 5),
        "}".repeat(MAX_SET_DEPTH + 6)
    );
    let e = FieldSet::from_json(too_deep.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidFieldsV1);
    assert!(e.message().contains("recursion limit"), "{e}");
    assert!(e.path().starts_with("f:a.f:a."), "{}", e.path());
}
