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
