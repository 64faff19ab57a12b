//! Batch mode as a stream: every request line gets one answer whatever its
//! bytes (issue 8: invalid UTF-8, NUL, a lone `\r`, a cut last line, a line
//! past the limit), ids are answered when they can be read, request shape
//! errors are `invalid_request` at a JSON pointer, and `options.max_depth`
//! is honoured above the default.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use smpatch::batch::{handle_line, handle_line_bytes, run_session_with, BatchState, SessionError};
use std::io::{Cursor, Read};

/// Runs a session over `input`; answers its output lines.
fn session(state: &mut BatchState, input: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    run_session_with(state, Cursor::new(input.to_vec()), &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn json(line: &str) -> serde_json::Value {
    serde_json::from_str(line).unwrap()
}

const OK: &[u8] =
    br#"{"id":"next","op":"apply","schema":{"none":true},"original":{"a":1},"patch":{"b":2}}"#;

fn assert_next_ok(line: &str) {
    assert_eq!(line, r#"{"id":"next","ok":{"a":1,"b":2}}"#);
}

fn assert_invalid(line: &str, id: serde_json::Value) {
    let v = json(line);
    assert_eq!(v["id"], id, "{line}");
    assert_eq!(v["error"]["kind"], "invalid_request", "{line}");
}

fn with_next(bad: &[u8]) -> Vec<u8> {
    let mut input = bad.to_vec();
    input.push(b'\n');
    input.extend_from_slice(OK);
    input.push(b'\n');
    input
}

#[test]
fn invalid_utf8_line_is_answered_and_the_stream_goes_on() {
    let mut state = BatchState::new();
    let out = session(
        &mut state,
        &with_next(b"{\"id\":5,\"op\":\"apply\",\"x\":\"\xff\"}"),
    );
    assert_eq!(out.len(), 2);
    assert_invalid(&out[0], 5.into());
    assert!(out[0].contains("UTF-8"), "{}", out[0]);
    assert_next_ok(&out[1]);
    // No readable id: null.
    let out = session(&mut state, &with_next(b"\xff\xfe"));
    assert_invalid(&out[0], serde_json::Value::Null);
    assert_next_ok(&out[1]);
}

#[test]
fn nul_byte_line_is_answered() {
    let mut state = BatchState::new();
    let out = session(&mut state, &with_next(b"{\"id\":6,\"op\":\"apply\"}\0"));
    assert_eq!(out.len(), 2);
    assert_invalid(&out[0], 6.into());
    assert_next_ok(&out[1]);
    let out = session(&mut state, &with_next(b"{\"id\":7,\"x\":\"a\0b\"}"));
    assert_invalid(&out[0], 7.into());
    assert_next_ok(&out[1]);
}

#[test]
fn lone_carriage_return_is_one_line_and_crlf_is_a_line_end() {
    let mut state = BatchState::new();
    // A `\r` that ends no line: the two requests are one bad line.
    let out = session(
        &mut state,
        &with_next(b"{\"id\":8,\"op\":\"apply\"}\r{\"id\":9,\"op\":\"apply\"}"),
    );
    assert_eq!(out.len(), 2);
    assert_invalid(&out[0], 8.into());
    assert_next_ok(&out[1]);
    // A line of only `\r` is an empty request.
    let out = session(&mut state, &with_next(b"\r"));
    assert_invalid(&out[0], serde_json::Value::Null);
    assert_next_ok(&out[1]);
    // CRLF line ends are accepted.
    let mut input = OK.to_vec();
    input.extend_from_slice(b"\r\n");
    input.extend_from_slice(OK);
    input.extend_from_slice(b"\r\n");
    let out = session(&mut state, &input);
    assert_eq!(out.len(), 2);
    assert_next_ok(&out[0]);
    assert_next_ok(&out[1]);
}

#[test]
fn last_line_without_newline_is_answered() {
    let mut state = BatchState::new();
    // Complete: answered as usual.
    let out = session(&mut state, OK);
    assert_eq!(out.len(), 1);
    assert_next_ok(&out[0]);
    // Cut off: invalid_request with the id it had.
    let mut input = OK.to_vec();
    input.push(b'\n');
    input.extend_from_slice(br#"{"id":10,"op":"apply","original":{"a":"#);
    let out = session(&mut state, &input);
    assert_eq!(out.len(), 2);
    assert_next_ok(&out[0]);
    assert_invalid(&out[1], 10.into());
}

#[test]
fn line_past_the_limit_is_too_large_and_the_stream_goes_on() {
    let mut state = BatchState::with_max_line_bytes(1000);
    let mut long = br#"{"id":11,"op":"apply","original":{"a":""#.to_vec();
    long.extend(std::iter::repeat_n(b'x', 5000));
    long.extend_from_slice(br#""}}"#);
    let out = session(&mut state, &with_next(&long));
    assert_eq!(out.len(), 2);
    let v = json(&out[0]);
    assert_eq!(v["id"], 11);
    assert_eq!(v["error"]["kind"], "too_large");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1000 bytes"),
        "{}",
        out[0]
    );
    assert_next_ok(&out[1]);
    // A line of exactly the limit is read.
    let mut state = BatchState::with_max_line_bytes(OK.len());
    assert_next_ok(&session(&mut state, OK)[0]);
}

/// Endless zeros, counting what was read.
struct Zeros {
    left: usize,
}

impl Read for Zeros {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.left);
        buf[..n].fill(0);
        self.left -= n;
        Ok(n)
    }
}

#[test]
fn a_huge_line_is_answered_before_it_ends() {
    // 64 MiB of NUL without a newline, limit 4 KiB: one answer, and the
    // session holds no more than the limit (the arena stays small).
    let mut state = BatchState::with_max_line_bytes(4096);
    let mut out = Vec::new();
    let input = std::io::BufReader::new(Zeros { left: 64 << 20 });
    run_session_with(&mut state, input, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(out.lines().count(), 1);
    assert_eq!(
        json(out.lines().next().unwrap())["error"]["kind"],
        "too_large"
    );
}

#[test]
fn write_errors_are_output_errors() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let e = run_session_with(&mut BatchState::new(), Cursor::new(OK.to_vec()), Full).unwrap_err();
    assert!(matches!(e, SessionError::Write(_)), "{e:?}");
    assert!(e.to_string().starts_with("writing responses: "), "{e}");
}

fn error_of(line: &str) -> (serde_json::Value, String, String) {
    let v = json(&handle_line(&mut BatchState::new(), line));
    let e = &v["error"];
    (
        v["id"].clone(),
        e["kind"].as_str().unwrap_or_default().to_owned(),
        e["path"].as_str().unwrap_or_default().to_owned(),
    )
}

#[test]
fn unknown_and_contradictory_members_are_invalid_requests() {
    let (id, kind, path) =
        error_of(r#"{"id":1,"op":"apply","schema":{"none":true},"original":{},"pacth":{}}"#);
    assert_eq!(
        (id, kind.as_str(), path.as_str()),
        (1.into(), "invalid_request", "/pacth")
    );
    let (_, kind, path) =
        error_of(r#"{"id":2,"op":"apply","schema":{"none":true,"builtin":"v1/Pod"}}"#);
    assert_eq!(
        (kind.as_str(), path.as_str()),
        ("invalid_request", "/schema")
    );
    let (_, kind, path) =
        error_of(r#"{"id":3,"op":"conflicts","schema":{"none":true},"original":{},"patch":{}}"#);
    assert_eq!(
        (kind.as_str(), path.as_str()),
        ("invalid_request", "/original")
    );
    let (_, kind, path) =
        error_of(r#"{"id":4,"op":"create2","schema":{"none":true},"overwrite":true}"#);
    assert_eq!(
        (kind.as_str(), path.as_str()),
        ("invalid_request", "/overwrite")
    );
    let (_, kind, path) = error_of(r#"{"id":5,"op":"apply","schema":{"definition":"X"}}"#);
    assert_eq!(
        (kind.as_str(), path.as_str()),
        ("invalid_request", "/schema/definition")
    );
    // Every member of the op is still accepted.
    let ok = handle_line(
        &mut BatchState::new(),
        r#"{"id":6,"op":"create3","schema":{"none":true},"original":{},"modified_text":"a: 1","current":{},"overwrite":false,"options":{}}"#,
    );
    assert_eq!(ok, r#"{"id":6,"ok":{"a":1}}"#);
}

#[test]
fn schema_file_errors_point_at_the_request() {
    let v = json(&handle_line(
        &mut BatchState::new(),
        r#"{"id":1,"op":"apply","schema":{"file":"no/such/schema.json"},"original":{}}"#,
    ));
    assert_eq!(v["error"]["path"], "/schema/file");
    assert_eq!(v["error"]["kind"], "io");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("no/such/schema.json: "), "{message}");
}

fn nested(depth: usize, leaf: &str) -> String {
    format!("{}{leaf}{}", "{\"a\":".repeat(depth), "}".repeat(depth))
}

#[test]
fn a_line_too_deep_to_parse_answers_its_id() {
    let line = format!(
        r#"{{"id":"deep","op":"apply","schema":{{"none":true}},"original":{},"patch":{{}}}}"#,
        nested(400, "1")
    );
    let v = json(&handle_line(&mut BatchState::new(), &line));
    assert_eq!(v["id"], "deep");
    assert_eq!(v["error"]["kind"], "invalid_request");
    assert!(v["error"]["message"].as_str().unwrap().contains("deep"));
}

#[test]
fn max_depth_above_the_default_is_honoured() {
    let request = |max_depth: Option<usize>| {
        let options = max_depth.map_or(String::new(), |d| {
            format!(r#","options":{{"max_depth":{d}}}"#)
        });
        format!(
            r#"{{"id":1,"op":"apply","schema":{{"none":true}},"original":{},"patch":{}{options}}}"#,
            nested(500, "1"),
            nested(500, "2"),
        )
    };
    let out = handle_line(&mut BatchState::new(), &request(Some(1000)));
    assert_eq!(out, format!(r#"{{"id":1,"ok":{}}}"#, nested(500, "2")));
    let v = json(&handle_line(&mut BatchState::new(), &request(None)));
    assert_eq!(v["id"], 1);
    assert!(
        v["error"].is_object(),
        "the default (256) refuses 500 levels"
    );
    // Text documents too.
    let line = format!(
        r#"{{"id":2,"op":"create2","schema":{{"none":true}},"original":{{}},"modified_text":{},"options":{{"max_depth":1000}}}}"#,
        serde_json::to_string(&nested(500, "1")).unwrap()
    );
    let out = handle_line(&mut BatchState::new(), &line);
    assert_eq!(out, format!(r#"{{"id":2,"ok":{}}}"#, nested(500, "1")));
}

#[test]
fn bytes_and_str_lines_answer_alike() {
    let mut state = BatchState::new();
    assert_eq!(
        handle_line(&mut state, std::str::from_utf8(OK).unwrap()),
        handle_line_bytes(&mut state, OK)
    );
}

#[test]
fn batch_caches_schema_files() {
    let Some(schema) = smpatch_testkit::shared_path("conformance/schemas/merge-item.v2.json")
    else {
        return;
    };
    let mut state = BatchState::new();
    for id in 0..3 {
        let line = format!(
            r#"{{"id":{id},"op":"apply","schema":{{"file":{:?},"definition":"mergeItem"}},"original":{{"name":"a"}},"patch":{{"value":1}}}}"#,
            schema.display().to_string()
        );
        let out = handle_line(&mut state, &line);
        assert_eq!(
            out,
            format!(r#"{{"id":{id},"ok":{{"name":"a","value":1}}}}"#)
        );
    }
    assert_eq!(state.cached_schema_files(), 1);
}

/// `unknown_type` answers name the request member that fixes it, in the
/// protocol's words: a document without apiVersion/kind does not get the
/// library's Rust `TypeRef` forms.
#[test]
fn unknown_type_names_the_schema_member() {
    let mut state = BatchState::new();
    for (line, starts) in [
        (
            r#"{"id":1,"op":"apply","original":{"spec":{}},"patch":{}}"#,
            "cannot tell the document's type: no apiVersion and kind; add them, or name the type in the request's \"schema\": ",
        ),
        (
            r#"{"id":2,"op":"create2","original":{"apiVersion":"x.io/v1","kind":"Y"},"modified":{}}"#,
            "no schema for apiVersion \"x.io/v1\", kind \"Y\"",
        ),
    ] {
        let v = json(&handle_line(&mut state, line));
        assert_eq!(v["error"]["kind"], "unknown_type", "{v}");
        assert_eq!(v["error"]["path"], "/schema", "{v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(starts), "{message}");
        assert!(message.contains(r#"{"none": true}"#), "{message}");
        assert!(!message.contains("TypeRef"), "{message}");
    }
}
