//! Hostile inputs (issue 5): the table of `tasks/reliability/src/table.rs`,
//! run through the public facade and the batch path. Each case must end in
//! a structured error of the expected kind or a correct result; a panic,
//! abort or stack overflow fails the test binary, a quadratic blow-up makes
//! it time out. Outcomes only, no timing (the `reliability` program in
//! `tasks/reliability` records time and peak memory in docs/RELIABILITY.md).
//!
//! `SMPATCH_HOSTILE=text` runs only the cases whose name contains `text`.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

#[path = "../../../tasks/reliability/src/table.rs"]
mod table;

#[test]
fn hostile_inputs() {
    let filter = std::env::var("SMPATCH_HOSTILE").unwrap_or_default();
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in table::cases() {
        if !case.name.contains(filter.as_str()) {
            continue;
        }
        ran += 1;
        let start = std::time::Instant::now();
        let outcome = (case.run)();
        eprintln!("{:>6} ms  {}", start.elapsed().as_millis(), case.name);
        if !case.expect.matches(&outcome) {
            failures.push(format!(
                "{}: expected {}, got {}",
                case.name,
                case.expect.describe(),
                outcome.describe()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} hostile cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A parse error names its pointer once: the facade error's Display leads
/// with it, and the parser's message follows without it.
#[test]
fn parse_errors_name_their_pointer_once() {
    use smpatch::{apply_bytes, ApplyOptions, TypeRef};
    let schema = smpatch::embedded_schema().unwrap();
    let opts = ApplyOptions::default();
    for (doc, patch, want) in [
        (
            &br#"{"a": [1, }"#[..],
            &b"{}"[..],
            "/a/1: invalid JSON document (original): ",
        ),
        (
            &b"{}"[..],
            &br#"{"a": {"b": tru}}"#[..],
            "/a/b: invalid JSON document (patch): ",
        ),
    ] {
        let e = apply_bytes(doc, patch, schema, &TypeRef::Schemaless, &opts).unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with(want), "{text}");
        assert_eq!(text.matches(e.path()).count(), 1, "{text}");
        assert!(text.contains(" at line 1 column "), "{text}");
    }
}

/// The Debug form (what `main` returning the error prints) says the message
/// once, not again through the parser's error it wraps.
#[test]
fn debug_form_says_the_message_once() {
    use smpatch::{apply_bytes, ApplyOptions, TypeRef};
    let schema = smpatch::embedded_schema().unwrap();
    let e = apply_bytes(
        br#"{"a": [1, }"#,
        b"{}",
        schema,
        &TypeRef::Schemaless,
        &ApplyOptions::default(),
    )
    .unwrap_err();
    let debug = format!("{e:?}");
    assert!(debug.starts_with("Error { kind: "), "{debug}");
    assert!(debug.contains("path: \"/a/1\""), "{debug}");
    assert_eq!(debug.matches("at line 1 column").count(), 1, "{debug}");
}

/// An unknown type name gets a way out: the GVKs of that kind, or how to
/// name a type; a document without apiVersion/kind names the TypeRef forms.
#[test]
fn unknown_types_say_what_to_write() {
    use smpatch::{apply_bytes, ApplyOptions, TypeRef};
    let schema = smpatch::embedded_schema().unwrap();
    let opts = ApplyOptions::default();
    let run = |ty: TypeRef| {
        let e = apply_bytes(b"{}", b"{}", schema, &ty, &opts).unwrap_err();
        assert_eq!(e.name(), "unknown_type");
        e.to_string()
    };
    let bare = run(TypeRef::Definition("Deployment".into()));
    assert!(
        bare.contains("did you mean \"apps/v1/Deployment\""),
        "{bare}"
    );
    let wrong_version = run(TypeRef::Gvk("apps/v9/deployment".into()));
    assert!(
        wrong_version.contains("\"apps/v1/Deployment\""),
        "{wrong_version}"
    );
    let nothing = run(TypeRef::Gvk("example.com/v1/Widget".into()));
    assert!(
        nothing.contains("pass the schema that defines it"),
        "{nothing}"
    );
    let detect = run(TypeRef::Detect);
    assert!(detect.contains("TypeRef::Schemaless"), "{detect}");
}
