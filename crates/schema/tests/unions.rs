//! Union and enum compilation: KEP-1027 declarations that must fail to load
//! (with the definition and property named), what a valid one records, and
//! the per-node index of where unions and enums can be reached.

use smpatch_schema::{Schema, SchemaErrorKind};

fn doc(props: &str, extra: &str) -> String {
    format!(
        r##"{{"swagger": "2.0", "definitions": {{"com.example.Src": {{{extra} "properties": {props}}},
            "com.example.Holder": {{"properties": {{"src": {{"$ref": "#/definitions/com.example.Src"}},
               "plain": {{"properties": {{"a": {{"type": "string"}}}}}}}}}}}}}}"##
    )
}

fn load_err(props: &str) -> smpatch_schema::SchemaError {
    match Schema::from_bytes(doc(props, "").as_bytes(), "u.json") {
        Ok(_) => panic!("expected a load error for {props}"),
        Err(e) => e,
    }
}

#[test]
fn invalid_kep1027_declarations_are_load_errors() {
    let cases = [
        (
            r#"{"type": {"type": "integer", "x-kubernetes-unions": {"fieldMembers": {"1": {"name": "a"}}}}, "a": {}}"#,
            "must be a string property",
        ),
        (
            r#"{"type": {"type": "string", "enum": ["A"], "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}, "B": {"name": "b"}}}}, "a": {}, "b": {}}"#,
            "is not in its enum",
        ),
        (
            r#"{"type": {"type": "string", "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}, "B": {"name": "a"}}}}, "a": {}}"#,
            "more than one discriminator value",
        ),
        (
            // A discriminator value is a string: "1" is not the entry 1.
            r#"{"type": {"enum": ["A", 1], "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}, "1": {"name": "b"}}}}, "a": {}, "b": {}}"#,
            "is not in its enum",
        ),
        (
            r#"{"type": {"type": "string", "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}}}},
                "kind": {"type": "string", "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}}}}, "a": {}}"#,
            "belongs to more than one union",
        ),
    ];
    for (props, want) in cases {
        let e = load_err(props);
        assert_eq!(e.kind, SchemaErrorKind::InvalidUnion, "{e}");
        assert!(e.message.contains(want), "{e}");
        assert!(
            e.pointer
                .contains("/definitions/com.example.Src/properties/"),
            "the pointer names definition and property: {e}"
        );
    }
}

#[test]
fn member_values_outside_an_enum_behind_ref_are_load_errors() {
    // The same rule as an inline enum (KEP-1027: member values are enum
    // values), for a discriminator that reaches its enum by `$ref` (OpenAPI
    // v2) or `allOf: [{$ref}]` (v3), also through an alias definition.
    let defs = r##""com.example.Kind": {"type": "string", "enum": ["A", "B", ""]},
        "com.example.Alias": {"$ref": "#/definitions/com.example.Kind"},"##;
    for (prop, values, ok) in [
        (
            r##"{"$ref": "#/definitions/com.example.Kind""##,
            r#""A": {"name": "a"}, "": null"#,
            true,
        ),
        (
            r##"{"$ref": "#/definitions/com.example.Kind""##,
            r#""A": {"name": "a"}, "C": null"#,
            false,
        ),
        (
            r##"{"allOf": [{"$ref": "#/definitions/com.example.Kind"}]"##,
            r#""B": {"name": "a"}"#,
            true,
        ),
        (
            r##"{"allOf": [{"$ref": "#/definitions/com.example.Kind"}]"##,
            r#""Z": {"name": "a"}"#,
            false,
        ),
        (
            r##"{"$ref": "#/definitions/com.example.Alias""##,
            r#""Z": {"name": "a"}"#,
            false,
        ),
    ] {
        let text = format!(
            r##"{{"swagger": "2.0", "definitions": {{{defs} "com.example.Src": {{"properties": {{
                "type": {prop}, "x-kubernetes-unions": {{"fieldMembers": {{{values}}}}}}}, "a": {{}}}}}}}}}}"##
        );
        match (Schema::from_bytes(text.as_bytes(), "u.json"), ok) {
            (Ok(_), true) => {}
            (Err(e), false) => {
                assert_eq!(e.kind, SchemaErrorKind::InvalidUnion, "{e}");
                assert!(e.message.contains("is not in its enum"), "{e}");
                assert!(
                    e.pointer
                        .contains("/definitions/com.example.Src/properties/type"),
                    "{e}"
                );
            }
            (r, _) => panic!("{prop} {values}: {:?}", r.err()),
        }
    }
}

#[test]
fn struct_level_values_matching_no_member_load() {
    // What real specs carry: SeccompProfile's member value is a Go field
    // name that is not in the discriminator's enum.
    let s = Schema::from_bytes(
        doc(
            r#"{"type": {"type": "string", "enum": ["Localhost", "RuntimeDefault"]}, "localhostProfile": {"type": "string"}}"#,
            r#""x-kubernetes-unions": [{"discriminator": "type", "fields-to-discriminateBy": {"localhostProfile": "LocalhostProfile"}}],"#,
        )
        .as_bytes(),
        "u.json",
    )
    .unwrap();
    let c = s.cursor("com.example.Src").unwrap();
    assert!(c.unions()[0].is_struct_level());
    assert!(c.unions()[0].member_for("Localhost").is_none());
}

#[test]
fn required_and_default_discriminators_are_recorded() {
    let s = Schema::from_bytes(
        doc(
            r#"{"type": {"type": "string", "default": "", "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}, "": null}}}, "a": {}}"#,
            r#""required": ["type"],"#,
        )
        .as_bytes(),
        "u.json",
    )
    .unwrap();
    let u = &s.cursor("com.example.Src").unwrap().unions()[0];
    assert!(u.discriminator_required);
    assert_eq!(u.discriminator_default.as_deref(), Some(""));
    assert!(!u.is_struct_level());
}

#[test]
fn reaches_checks_marks_only_paths_to_unions_and_enums() {
    let s = Schema::from_bytes(
        doc(
            r#"{"type": {"type": "string", "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a"}}}}, "a": {}}"#,
            "",
        )
        .as_bytes(),
        "u.json",
    )
    .unwrap();
    let h = s.cursor("com.example.Holder").unwrap();
    assert!(h.reaches_checks());
    assert!(h.lookup_object("src").unwrap().cursor.reaches_checks());
    assert!(!h.lookup_object("plain").unwrap().cursor.reaches_checks());
    let e = smpatch_schema::embedded();
    let pod = e.cursor("v1/Pod").unwrap();
    let spec = pod.lookup_object("spec").unwrap().cursor;
    assert!(spec.reaches_checks(), "PodSpec reaches SeccompProfile");
    let md = pod.lookup_object("metadata").unwrap().cursor;
    assert!(!md.reaches_checks(), "ObjectMeta declares no union or enum");
}

#[test]
fn enum_entries_keep_their_json_kind() {
    let s = Schema::from_bytes(
        doc(
            r#"{"e": {"type": "string", "enum": ["1", 1, 1.0, true, null, "a\"b"]}}"#,
            "",
        )
        .as_bytes(),
        "u.json",
    )
    .unwrap();
    let e = s
        .cursor("com.example.Src")
        .unwrap()
        .lookup_object("e")
        .unwrap()
        .cursor;
    let json: Vec<&str> = e.enum_json().unwrap().iter().map(|x| &**x).collect();
    assert_eq!(json, ["\"1\"", "1", "1.0", "true", "null", "\"a\\\"b\""]);
    let text: Vec<&str> = e.enum_values().unwrap().iter().map(|x| &**x).collect();
    assert_eq!(text[0], "1");
    assert_eq!(text[5], "a\"b");
}
