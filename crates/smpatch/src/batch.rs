//! Batch mode: the machine interface (`smpatch batch`).
//!
//! One JSON request per line in, one JSON response per line out, in order,
//! never stopping at a bad request:
//!
//! ```text
//! {"id": ANY, "op": "apply" | "create2" | "create3" | "conflicts" | "normalize"
//!        | "fields" | "extract",
//!  "schema": {"file": "PATH", "definition": "NAME"} | {"builtin": "apps/v1/Deployment"}
//!            | {"none": true} | absent,
//!  "original": JSON, "patch": JSON, "modified": JSON, "current": JSON,
//!  "left": JSON, "right": JSON, "object": JSON, "object_text": "…",
//!  "manager": "NAME", "subresource": "S",
//!  "original_text": "…", "patch_text": "…", "modified_text": "…", "current_text": "…",
//!  "overwrite": true, "options": {"fix_quirks": false, "compound_keys": false, …}}
//! → {"id": ANY, "ok": JSON}
//! → {"id": ANY, "error": {"kind": "snake_case_kind", "path": "/json/pointer", "message": "…"}}
//! ```
//!
//! Union normalization (KEP-1027): op `normalize` takes `new` and optional
//! `old` (absent = create), options `ratcheting`, `check_enums`,
//! `non_discriminated_update`, `max_depth`; op `apply` with
//! `"options": {"normalize_unions": true}` merges, normalizes against
//! `original` and validates. Both answer
//! `{"id", "ok": OBJECT, "cleared": [POINTER, …]}` or
//! `{"id", "error": {"kind": "validation", "path": "", "message": "…",
//! "violations": [{"path", "rule", "message"}, …]}}`.
//!
//! Requests are read with the value crate's exact parser, so numbers keep
//! their literal text from request to response. Lines are read as bytes: a
//! line that is not a JSON object (invalid UTF-8, a NUL byte, cut off, too
//! deep) answers `invalid_request` with its `"id"` when that can be read on
//! its own and `"id": null` otherwise; a line longer than
//! [`BatchState::max_line_bytes`] answers `too_large` without being read
//! whole. Request members the op does not read are `invalid_request`.
//!
//! Adding an op: a [`crate::ops::Op`] variant (see [`crate::ops`]), then an
//! `OpName` variant here with its name, the `Op` it builds and any extra
//! request members it reads.
//!
//! ```
//! use smpatch::batch::{handle_line, BatchState};
//! let mut state = BatchState::new();
//! let out = handle_line(&mut state, r#"{"id": 7, "op": "frobnicate"}"#);
//! assert!(out.starts_with(r#"{"id":7,"error":{"kind":"invalid_request""#));
//! let out = handle_line(&mut state, "not json");
//! assert!(out.starts_with(r#"{"id":null,"error":"#));
//! ```

use crate::error::FacadeKind;
use crate::input::{check_object, parse_options, read_document, Empty};
use crate::ops::{self, Op, Outcome};
use crate::unions::has_document;
use crate::{ApplyOptions, CreateOptions, Error, TypeRef, UnionOptions};
use smpatch_schema::Schema;
use smpatch_value::{
    parse_json, to_json_string, Arena, ParseError, ParseErrorKind, ParseOptions, Value,
};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// State kept across the lines of one batch session: compiled schema files
/// (each file is compiled once, failures included) and a reusable arena.
pub struct BatchState {
    schemas: BTreeMap<PathBuf, Result<Arc<Schema>, Error>>,
    arena: Arena,
    max_line_bytes: usize,
}

impl Default for BatchState {
    fn default() -> Self {
        BatchState {
            schemas: BTreeMap::new(),
            arena: Arena::new(),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }
}

/// The longest request line [`run_session`] reads by default: the parser's
/// default input limit (512 MiB).
pub const DEFAULT_MAX_LINE_BYTES: usize = 512 << 20;

impl BatchState {
    /// A fresh session.
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh session whose request lines may hold at most `limit` bytes
    /// (longer lines are answered `too_large`).
    pub fn with_max_line_bytes(limit: usize) -> Self {
        BatchState {
            max_line_bytes: limit,
            ..Self::default()
        }
    }

    /// The longest request line this session reads, in bytes.
    pub fn max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// Number of schema files compiled so far (for tests of the cache).
    pub fn cached_schema_files(&self) -> usize {
        self.schemas.len()
    }
}

impl std::fmt::Debug for BatchState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchState")
            .field("cached_schema_files", &self.schemas.len())
            .finish()
    }
}

/// Answers one request line with one response line (without the newline).
pub fn handle_line(state: &mut BatchState, line: &str) -> String {
    handle_line_bytes(state, line.as_bytes())
}

/// Answers one request line given as bytes (without its newline): a line
/// that is not UTF-8 or holds a NUL byte is one `invalid_request` answer
/// like any other line that is not a JSON object. When the request cannot
/// be read, its `"id"` is still answered if it can be read on its own,
/// else `"id": null`.
///
/// ```
/// use smpatch::batch::{handle_line_bytes, BatchState};
/// let mut state = BatchState::new();
/// let out = handle_line_bytes(&mut state, b"{\"id\": 3, \"op\": \"apply\", \"x\": \"\xff\"}");
/// assert!(out.starts_with(r#"{"id":3,"error":{"kind":"invalid_request""#));
/// ```
pub fn handle_line_bytes(state: &mut BatchState, line: &[u8]) -> String {
    state.arena.reset();
    let BatchState { schemas, arena, .. } = state;
    let arena: &Arena = arena;
    let request = match parse_request(arena, line) {
        Ok(v @ Value::Object(_)) => v,
        Ok(other) => {
            return respond_error(
                arena,
                salvage_id(arena, line),
                &invalid_at(
                    "",
                    format!(
                        "a request must be a JSON object, not a {}",
                        other.kind().name()
                    ),
                ),
            )
        }
        Err(e) => {
            return respond_error(
                arena,
                salvage_id(arena, line),
                &invalid_at(e.path.clone(), format!("request is not valid JSON: {e}")),
            )
        }
    };
    let id = request.get("id").unwrap_or(Value::Null);
    match run(arena, schemas, request) {
        Ok(Outcome::Normalized { value, cleared }) => {
            let cleared: Vec<Value<'_>> = cleared
                .iter()
                .map(|p| Value::String(arena.alloc_str(p)))
                .collect();
            let cleared = Value::array_from(arena, &cleared);
            let response =
                Value::object_from(arena, &[("id", id), ("ok", value), ("cleared", cleared)]);
            to_json_string(&response)
        }
        Ok(ok) => {
            let response = Value::object_from(arena, &[("id", id), ("ok", ok.into_value())]);
            to_json_string(&response)
        }
        Err(e) => respond_error(arena, id, &e),
    }
}

/// Parses a request line. Documents sit one level below the request, so the
/// parser allows two levels more than the request's `options.max_depth`
/// (default [`crate::DEFAULT_MAX_DEPTH`]); that option is read on its own
/// first only when the line is deeper than the default allows.
fn parse_request<'a>(arena: &'a Arena, line: &'a [u8]) -> Result<Value<'a>, ParseError> {
    let mut opts = ParseOptions::default()
        .with_max_depth(crate::DEFAULT_MAX_DEPTH + 2)
        .with_max_input_bytes(usize::MAX);
    match parse_json(arena, line, &opts) {
        Err(e) if e.kind == ParseErrorKind::TooDeep => {
            let wanted = member(line, b"options")
                .and_then(|o| member(o, b"max_depth"))
                .and_then(|d| std::str::from_utf8(d).ok()?.parse::<usize>().ok())
                .map(|d| d.saturating_add(2));
            match wanted {
                Some(depth) if depth > opts.max_depth => {
                    opts.max_depth = depth;
                    parse_json(arena, line, &opts)
                }
                _ => Err(e),
            }
        }
        other => other,
    }
}

/// The request's `"id"` when it can be read on its own (for lines that are
/// not a valid request), else `null`.
fn salvage_id<'a>(arena: &'a Arena, line: &'a [u8]) -> Value<'a> {
    member(line, b"id")
        .and_then(|raw| parse_json(arena, raw, &ParseOptions::default()).ok())
        .unwrap_or(Value::Null)
}

/// The raw text of member `key` of the JSON object `text`, found by walking
/// the object's members without building them (no recursion, no
/// allocation): later members may be malformed, too deep or cut off. Keys
/// are compared as written (an escaped key does not match).
fn member<'t>(text: &'t [u8], key: &[u8]) -> Option<&'t [u8]> {
    let mut i = skip_ws(text, 0);
    if text.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(text, i);
        if text.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(text, i)?;
        let name = &text[i + 1..key_end - 1];
        i = skip_ws(text, key_end);
        if text.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(text, i + 1);
        let end = skip_value(text, i)?;
        if name == key {
            return Some(&text[i..end]);
        }
        i = skip_ws(text, end);
        match text.get(i) {
            Some(b',') => i += 1,
            _ => return None,
        }
    }
}

fn skip_ws(text: &[u8], mut i: usize) -> usize {
    while matches!(text.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// `text[i]` opens a string: the index just past its closing quote.
fn skip_string(text: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match text.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// The index just past the value starting at `text[i]`: containers are
/// skipped by counting brackets, not by recursion.
fn skip_value(text: &[u8], mut i: usize) -> Option<usize> {
    match text.get(i)? {
        b'"' => skip_string(text, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                match text.get(i)? {
                    b'"' => {
                        i = skip_string(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let start = i;
            while !matches!(
                text.get(i),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                i += 1;
            }
            (i > start && i < text.len()).then_some(i)
        }
    }
}

/// Runs a whole session: reads requests from `input` until EOF and writes
/// one response line per request line to `output` (see [`run_session_with`]).
pub fn run_session(input: impl BufRead, output: impl Write) -> Result<(), SessionError> {
    run_session_with(&mut BatchState::new(), input, output)
}

/// Runs a session with `state`: one response line per request line, never
/// stopping at a bad line. Lines are read as bytes; a line longer than
/// [`BatchState::max_line_bytes`] is answered `too_large` as soon as the
/// limit is passed and the rest of it is skipped unread into memory, so a
/// session holds at most one line of that size. A `\r` before the `\n` is
/// dropped; a last line without `\n` is answered like any other.
pub fn run_session_with(
    state: &mut BatchState,
    mut input: impl BufRead,
    mut output: impl Write,
) -> Result<(), SessionError> {
    let mut line = Vec::new();
    let limit = state.max_line_bytes;
    while let Some(end) = read_line(&mut input, &mut line, limit).map_err(SessionError::Read)? {
        let response = match end {
            LineEnd::Complete => handle_line_bytes(state, &line),
            LineEnd::TooLong => {
                state.arena.reset();
                let arena = &state.arena;
                let e = Error::facade(
                    FacadeKind::TooLarge,
                    "",
                    format!("the request line is longer than the limit of {limit} bytes"),
                );
                respond_error(arena, salvage_id(arena, &line), &e)
            }
        };
        output
            .write_all(response.as_bytes())
            .and_then(|()| output.write_all(b"\n"))
            .and_then(|()| output.flush())
            .map_err(SessionError::Write)?;
        if end == LineEnd::TooLong {
            skip_line(&mut input).map_err(SessionError::Read)?;
        }
    }
    Ok(())
}

/// Why a batch session stopped: its input could not be read or its output
/// not written (bad request lines never stop it).
#[derive(Debug)]
pub enum SessionError {
    /// Reading the requests failed.
    Read(std::io::Error),
    /// Writing a response failed (a closed pipe is `ErrorKind::BrokenPipe`).
    Write(std::io::Error),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Read(e) => write!(f, "reading requests: {e}"),
            SessionError::Write(e) => write!(f, "writing responses: {e}"),
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SessionError::Read(e) | SessionError::Write(e) => Some(e),
        }
    }
}

/// How [`read_line`] ended a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineEnd {
    /// A newline or the end of the input ended the line.
    Complete,
    /// The line passed the limit: `buf` holds its first `limit + 1` bytes,
    /// the rest is still unread.
    TooLong,
}

/// Reads one line (without its `\n`, and without a `\r` right before it)
/// into `buf` as bytes, holding at most `limit + 1` bytes. `Ok(None)` at
/// the end of the input.
fn read_line(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<LineEnd>> {
    buf.clear();
    let mut seen_any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        seen_any = true;
        let newline = chunk.iter().position(|&b| b == b'\n');
        let take = newline.unwrap_or(chunk.len());
        let room = limit.saturating_add(1) - buf.len();
        if take >= room {
            buf.extend_from_slice(&chunk[..room]);
            input.consume(room);
            return Ok(Some(LineEnd::TooLong));
        }
        buf.extend_from_slice(&chunk[..take]);
        input.consume(take + usize::from(newline.is_some()));
        if newline.is_some() {
            break;
        }
    }
    if !seen_any {
        return Ok(None);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(LineEnd::Complete))
}

/// Drops the input up to and including the next newline.
fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                input.consume(n);
            }
        }
    }
}

fn respond_error(arena: &Arena, id: Value<'_>, e: &Error) -> String {
    let mut members = vec![
        ("kind", Value::String(e.name())),
        ("path", Value::String(arena.alloc_str(e.path()))),
        ("message", Value::String(arena.alloc_str(e.message()))),
    ];
    if e.kind() == crate::ErrorKind::Facade(FacadeKind::Validation) {
        let items: Vec<Value<'_>> = e
            .violations()
            .iter()
            .map(|v| {
                Value::object_from(
                    arena,
                    &[
                        ("path", Value::String(arena.alloc_str(&v.path))),
                        ("rule", Value::String(v.rule.name())),
                        ("message", Value::String(arena.alloc_str(&v.message))),
                    ],
                )
            })
            .collect();
        members.push(("violations", Value::array_from(arena, &items)));
    }
    let error = Value::object_from(arena, &members);
    let response = Value::object_from(arena, &[("id", id), ("error", error)]);
    to_json_string(&response)
}

fn invalid(message: impl Into<String>) -> Error {
    invalid_at("", message)
}

/// An `invalid_request` error at `path` of the request.
fn invalid_at(path: impl Into<String>, message: impl Into<String>) -> Error {
    Error::facade(FacadeKind::InvalidRequest, path, message)
}

/// The batch ops. Adding one: a variant, its name in [`OpName::parse`] and
/// [`OP_NAMES`], and an arm in [`OpName::op`] building the [`Op`] it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OpName {
    Apply,
    Create2,
    Create3,
    Conflicts,
    Normalize,
    Fields,
    Extract,
}

const OP_NAMES: &str = "apply, create2, create3, conflicts, normalize, fields or extract";

impl OpName {
    fn parse(name: &str) -> Option<OpName> {
        Some(match name {
            "apply" => OpName::Apply,
            "create2" => OpName::Create2,
            "create3" => OpName::Create3,
            "conflicts" => OpName::Conflicts,
            "normalize" => OpName::Normalize,
            "fields" => OpName::Fields,
            "extract" => OpName::Extract,
            _ => return None,
        })
    }

    /// The [`Op`] this request runs, built from its options.
    fn op(self, request: Value<'_>) -> Result<Op, Error> {
        let options = request.get("options");
        Ok(match self {
            OpName::Apply => {
                let (apply, normalize_unions) = apply_options(options)?;
                if normalize_unions {
                    let unions = UnionOptions {
                        max_depth: apply.max_depth,
                        ..UnionOptions::default()
                    };
                    Op::ServerApply { apply, unions }
                } else {
                    Op::Apply(apply)
                }
            }
            OpName::Create2 => Op::Create2(create_options(options)?),
            OpName::Create3 => Op::Create3 {
                options: create_options(options)?,
                overwrite: match request.get("overwrite") {
                    None | Some(Value::Null) => true,
                    Some(Value::Bool(b)) => b,
                    Some(_) => {
                        return Err(invalid_at("/overwrite", "overwrite must be true or false"))
                    }
                },
            },
            OpName::Conflicts => Op::Conflicts(create_options(options)?),
            OpName::Normalize => {
                if !has_document(request, "new") {
                    return Err(invalid(
                        "the normalize op needs \"new\" (and optionally \"old\")",
                    ));
                }
                Op::Normalize {
                    options: union_options(options)?,
                    create: !has_document(request, "old"),
                }
            }
            OpName::Fields => crate::fields::batch_fields(request)?,
            OpName::Extract => crate::fields::batch_extract(request)?,
        })
    }

    /// Request members this op reads besides `id`, `op`, `schema`, `options`
    /// and its documents.
    fn extra_members(self) -> &'static [&'static str] {
        match self {
            OpName::Create3 => &["overwrite"],
            OpName::Extract => &["manager", "subresource"],
            _ => &[],
        }
    }
}

/// Where a request's type comes from.
enum SchemaChoice {
    File(Arc<Schema>, Option<String>),
    Builtin(String),
    None,
    Detect,
}

fn run<'a>(
    arena: &'a Arena,
    cache: &mut SchemaCache,
    request: Value<'a>,
) -> Result<Outcome<'a>, Error> {
    let name = match request.get("op") {
        Some(Value::String(name)) => OpName::parse(name).ok_or_else(|| {
            invalid_at("/op", format!("unknown op {name:?}; expected {OP_NAMES}"))
        })?,
        Some(_) => return Err(invalid_at("/op", "op must be a string")),
        None => return Err(invalid("the request has no \"op\"")),
    };
    let op = name.op(request)?;
    check_members(request, &op, name.extra_members())?;
    let choice = schema_choice(cache, request.get("schema"))?;
    let parse = parse_options(op.max_depth());
    let docs = op
        .roles()
        .iter()
        .map(|role| document(arena, request, role, op.empty(), &parse))
        .collect::<Result<Vec<_>, _>>()?;
    let embedded;
    let (schemas, ty): (Vec<&Schema>, TypeRef) = match &choice {
        SchemaChoice::File(s, Some(def)) => (vec![&**s], TypeRef::Definition(def.clone())),
        SchemaChoice::File(s, None) => (vec![&**s], TypeRef::Detect),
        SchemaChoice::Builtin(name) => {
            embedded = crate::embedded_schema()?;
            (vec![embedded], TypeRef::Gvk(name.clone()))
        }
        SchemaChoice::None => (Vec::new(), TypeRef::Schemaless),
        SchemaChoice::Detect => {
            embedded = crate::embedded_schema()?;
            (vec![embedded], TypeRef::Detect)
        }
    };
    let cursor =
        ops::resolve_type(&op, &schemas, &ty, &docs).map_err(|e| e.with_prefix("/schema"))?;
    let out = ops::execute(arena, &op, &docs, cursor);
    if matches!(name, OpName::Fields | OpName::Extract) {
        // Errors of the field-set ops point into the request's `object`.
        return out.map_err(|e| e.with_prefix("/object"));
    }
    out
}

/// Refuses request members the op does not read: a misspelled name
/// (`"pacth"`) or one of another op (`original` in `conflicts`).
fn check_members(request: Value<'_>, op: &Op, extra: &[&str]) -> Result<(), Error> {
    let Some(obj) = request.as_object() else {
        return Ok(());
    };
    for (key, _) in obj.iter() {
        let known = matches!(key, "id" | "op" | "schema" | "options")
            || extra.contains(&key)
            || op
                .roles()
                .iter()
                .any(|role| key == *role || key.strip_suffix("_text") == Some(role));
        if !known {
            let mut expected: Vec<String> = op
                .roles()
                .iter()
                .flat_map(|r| [r.to_string(), format!("{r}_text")])
                .collect();
            expected.extend(extra.iter().map(|e| e.to_string()));
            return Err(invalid_at(
                format!("/{}", pointer_token(key)),
                format!(
                    "unknown request member {key:?} for this op; it reads id, op, schema, options, {}",
                    expected.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// `key` escaped as one RFC 6901 pointer token.
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Reads document `name` (or `name_text`) of a request.
fn document<'a>(
    arena: &'a Arena,
    request: Value<'a>,
    name: &str,
    empty: Empty,
    parse: &ParseOptions,
) -> Result<Value<'a>, Error> {
    let text_key = format!("{name}_text");
    let value = request.get(name);
    let text = request.get(&text_key);
    match (value, text) {
        (Some(v), Some(t)) if !v.is_null() && !t.is_null() => Err(invalid(format!(
            "give either {name:?} or {text_key:?}, not both"
        ))),
        (_, Some(Value::String(t))) => read_document(arena, t.as_bytes(), empty, true, name, parse)
            .map_err(|e| e.with_prefix(&format!("/{text_key}"))),
        (_, Some(t)) if !t.is_null() => Err(invalid_at(
            format!("/{text_key}"),
            format!("{text_key} must be a string"),
        )),
        (Some(v), _) => check_object(v, name).map_err(|e| e.with_prefix(&format!("/{name}"))),
        (None, _) => Ok(Value::empty_object()),
    }
}

type SchemaCache = BTreeMap<PathBuf, Result<Arc<Schema>, Error>>;

fn schema_choice(
    cache: &mut SchemaCache,
    schema: Option<Value<'_>>,
) -> Result<SchemaChoice, Error> {
    let obj = match schema {
        None | Some(Value::Null) => return Ok(SchemaChoice::Detect),
        Some(Value::Object(o)) => o,
        Some(_) => return Err(invalid_at("/schema", "schema must be an object")),
    };
    let string = |key: &str| -> Result<Option<String>, Error> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.to_owned())),
            Some(_) => Err(invalid_at(
                format!("/schema/{key}"),
                format!("schema.{key} must be a string"),
            )),
        }
    };
    for (key, _) in obj.iter() {
        if !matches!(key, "file" | "definition" | "builtin" | "none") {
            return Err(invalid_at(
                format!("/schema/{}", pointer_token(key)),
                format!(
                    "unknown schema key {key:?}; expected file (+ definition), builtin or none"
                ),
            ));
        }
    }
    let none = match obj.get("none") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => b,
        Some(_) => return Err(invalid_at("/schema/none", "schema.none must be true")),
    };
    let (file, builtin, definition) = (string("file")?, string("builtin")?, string("definition")?);
    let given: Vec<&str> = [
        ("file", file.is_some()),
        ("builtin", builtin.is_some()),
        ("none", none),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(k, _)| *k)
    .collect();
    if given.len() > 1 {
        return Err(invalid_at(
            "/schema",
            format!(
                "schema gives {}; give exactly one of file (+ definition), builtin or none",
                given.join(" and ")
            ),
        ));
    }
    if definition.is_some() && file.is_none() {
        return Err(invalid_at(
            "/schema/definition",
            "schema.definition names a type of schema.file; give the file too",
        ));
    }
    if let Some(file) = file {
        let path = PathBuf::from(file);
        let loaded = cache
            .entry(path.clone())
            .or_insert_with(|| crate::load_schema(&path).map(Arc::new))
            .clone()
            .map_err(|e| e.relocated("/schema/file"))?;
        return Ok(SchemaChoice::File(loaded, definition));
    }
    if let Some(name) = builtin {
        return Ok(SchemaChoice::Builtin(name));
    }
    match obj.get("none") {
        Some(Value::Bool(true)) => Ok(SchemaChoice::None),
        _ => Err(invalid_at(
            "/schema",
            "schema needs \"file\", \"builtin\" or \"none\": true",
        )),
    }
}

/// The apply options, and whether `normalize_unions` asks for the server
/// pipeline.
fn apply_options(options: Option<Value<'_>>) -> Result<(ApplyOptions, bool), Error> {
    let mut o = ApplyOptions::default();
    let mut normalize_unions = false;
    set_options(options, APPLY_OPTIONS, |key, v| match key {
        "normalize_unions" => bool_option(&mut normalize_unions, v),
        _ => set_apply_option(&mut o, key, v),
    })?;
    Ok((o, normalize_unions))
}

fn union_options(options: Option<Value<'_>>) -> Result<UnionOptions, Error> {
    let mut o = UnionOptions::default();
    set_options(options, NORMALIZE_OPTIONS, |key, v| match key {
        "ratcheting" => bool_option(&mut o.ratcheting, v),
        "check_enums" => bool_option(&mut o.check_enums, v),
        "non_discriminated_update" => bool_option(&mut o.non_discriminated_update, v),
        "max_depth" => usize_option(&mut o.max_depth, v),
        _ => None,
    })?;
    Ok(o)
}

fn create_options(options: Option<Value<'_>>) -> Result<CreateOptions, Error> {
    let mut o = CreateOptions::default();
    set_options(options, CREATE_OPTIONS, |key, v| {
        set_create_option(&mut o, key, v)
    })?;
    Ok(o)
}

fn set_options(
    options: Option<Value<'_>>,
    known: &[&str],
    mut set: impl FnMut(&str, Value<'_>) -> OptionSet,
) -> Result<(), Error> {
    let obj = match options {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Object(o)) => o,
        Some(_) => return Err(invalid_at("/options", "options must be an object")),
    };
    for (key, value) in obj.iter() {
        let path = format!("/options/{}", pointer_token(key));
        match set(key, value) {
            Some(Ok(())) => {}
            Some(Err(expected)) => {
                return Err(invalid_at(
                    path,
                    format!("option {key:?} must be {expected}"),
                ))
            }
            None => {
                return Err(invalid_at(
                    path,
                    format!(
                        "unknown option {key:?} for this op; known: {}",
                        known.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// `Some(Ok)` set, `Some(Err(expected))` wrong type, `None` unknown key.
type OptionSet = Option<Result<(), &'static str>>;

fn bool_option(field: &mut bool, v: Value<'_>) -> OptionSet {
    match v {
        Value::Bool(b) => {
            *field = b;
            Some(Ok(()))
        }
        _ => Some(Err("true or false")),
    }
}

fn usize_option(field: &mut usize, v: Value<'_>) -> OptionSet {
    match v
        .as_number()
        .and_then(|n| n.as_u64())
        .and_then(|n| usize::try_from(n).ok())
    {
        Some(n) => {
            *field = n;
            Some(Ok(()))
        }
        None => Some(Err("a non-negative integer")),
    }
}

const APPLY_OPTIONS: &[&str] = &[
    "normalize_unions",
    "fix_quirks",
    "compound_keys",
    "reject_duplicate_keys",
    "max_depth",
];
const NORMALIZE_OPTIONS: &[&str] = &[
    "ratcheting",
    "check_enums",
    "non_discriminated_update",
    "max_depth",
];
const CREATE_OPTIONS: &[&str] = &[
    "fix_quirks",
    "compound_keys",
    "ignore_changes_and_additions",
    "ignore_deletions",
    "max_depth",
];

fn set_apply_option(o: &mut ApplyOptions, key: &str, v: Value<'_>) -> OptionSet {
    match key {
        "fix_quirks" => bool_option(&mut o.fix_quirks, v),
        "compound_keys" => bool_option(&mut o.compound_keys, v),
        "reject_duplicate_keys" => bool_option(&mut o.reject_duplicate_keys, v),
        "max_depth" => usize_option(&mut o.max_depth, v),
        _ => None,
    }
}

fn set_create_option(o: &mut CreateOptions, key: &str, v: Value<'_>) -> OptionSet {
    match key {
        "fix_quirks" => bool_option(&mut o.fix_quirks, v),
        "compound_keys" => bool_option(&mut o.compound_keys, v),
        "ignore_changes_and_additions" => bool_option(&mut o.ignore_changes_and_additions, v),
        "ignore_deletions" => bool_option(&mut o.ignore_deletions, v),
        "max_depth" => usize_option(&mut o.max_depth, v),
        _ => None,
    }
}
