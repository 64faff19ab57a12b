//! Batch mode: the machine interface (`smpatch batch`).
//!
//! One JSON request per line in, one JSON response per line out, in order,
//! never stopping at a bad request:
//!
//! ```text
//! {"id": ANY, "op": "apply" | "create2" | "create3" | "conflicts" | "compose"
//!        | "normalize" | "validate" | "fields" | "extract" | "owners",
//!  "schema": {"file": "PATH", "definition": "NAME"} | {"builtin": "apps/v1/Deployment"}
//!            | {"none": true} | absent,
//!  "original": JSON, "patch": JSON, "modified": JSON, "current": JSON,
//!  "left": JSON, "right": JSON, "first": JSON, "second": JSON,
//!  "object": JSON, "object_text": "…",
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
//! `original` and validates (op `validate` takes what `normalize` takes and
//! answers the list of violations, `{"id", "ok": [{"path", "rule",
//! "message"}, …]}`, empty when valid, nothing normalized). Both answer
//! `{"id", "ok": OBJECT, "cleared": [POINTER, …]}` or
//! `{"id", "error": {"kind": "validation", "path": "", "message": "…",
//! "violations": [{"path", "rule", "message"}, …]}}`.
//!
//! Op `apply` and `create3` take `"options": {"patch_type": "strategic" |
//! "merge" | "auto"}` (the names of `smpatch apply --type`): `merge` is the
//! RFC 7386 JSON merge patch (kubernetes/kubernetes#58414; `create3`
//! answers kubectl's three-way JSON merge patch, `apply` merges as the API
//! server merges one), `auto` chooses per request from the documents'
//! `apiVersion`/`kind` ([`crate::apply_flow::ApplyPatchType::resolve`]).
//! A session's depth limit ([`BatchState::set_max_depth`], `smpatch batch
//! --max-depth`) is every request's default and ceiling.
//!
//! Requests are read with the value crate's exact parser, so numbers keep
//! their literal text from request to response. Lines are read as bytes: a
//! line that is not a JSON object (invalid UTF-8, a NUL byte, cut off, too
//! deep) answers `invalid_request` with its `"id"` when that can be read on
//! its own and `"id": null` otherwise; a line longer than
//! [`BatchState::max_line_bytes`] answers `too_large` without being read
//! whole. Request members and options the op does not read are
//! `invalid_request` (they would change nothing): `compose` takes
//! `fix_quirks`, `compound_keys` and `max_depth` only, `owners` no
//! `schema`.
//! Adding an op: a [`crate::ops::Op`] variant (see [`crate::ops`]), then an
//! `OpName` variant in `dispatch.rs` with its name, the `Op` it builds and
//! any extra request members it reads.
//!
//! The module is split by job: `session.rs` reads the input line by line
//! with the length cap and writes the answers; `line.rs` parses one request
//! line (and salvages the `"id"` of a line that is not a request);
//! `dispatch.rs` picks the op and runs it; `request.rs` reads the request's
//! documents and schema choice, `options.rs` its options; `respond.rs` writes
//! the response object.
//!
//! ```
//! use smpatch::batch::{handle_line, BatchState};
//! let mut state = BatchState::new();
//! let out = handle_line(&mut state, r#"{"id": 7, "op": "frobnicate"}"#);
//! assert!(out.starts_with(r#"{"id":7,"error":{"kind":"invalid_request""#));
//! let out = handle_line(&mut state, "not json");
//! assert!(out.starts_with(r#"{"id":null,"error":"#));
//! ```

mod dispatch;
mod line;
mod options;
mod request;
mod respond;
mod session;

pub use session::{run_session, run_session_with, SessionError, DEFAULT_MAX_LINE_BYTES};

use crate::Error;
use smpatch_schema::Schema;
use smpatch_value::{Arena, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Compiled schema files by path, failures included.
type SchemaCache = BTreeMap<PathBuf, Result<Arc<Schema>, Error>>;

/// State kept across the lines of one batch session: compiled schema files
/// (each file is compiled once, failures included) and a reusable arena.
pub struct BatchState {
    schemas: SchemaCache,
    arena: Arena,
    max_line_bytes: usize,
    max_depth: Option<usize>,
}

impl Default for BatchState {
    fn default() -> Self {
        BatchState {
            schemas: BTreeMap::new(),
            arena: Arena::new(),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_depth: None,
        }
    }
}

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

    /// Sets the session's depth limit (`smpatch batch --max-depth`): every
    /// request's `max_depth` when its `options` give none, and the most a
    /// request's `options.max_depth` may ask for (more is an
    /// `invalid_request` error at `/options/max_depth`). Without it,
    /// requests default to [`crate::DEFAULT_MAX_DEPTH`] and may raise
    /// their own.
    ///
    /// ```
    /// use smpatch::batch::{handle_line, BatchState};
    /// let mut state = BatchState::new();
    /// state.set_max_depth(2);
    /// let deep = r#"{"id":1,"op":"apply","schema":{"none":true},"patch":{"a":{"b":{"c":1}}}}"#;
    /// assert!(handle_line(&mut state, deep).contains(r#""kind":"too_deep""#));
    /// let asks = r#"{"id":2,"op":"apply","schema":{"none":true},"patch":{},"options":{"max_depth":3}}"#;
    /// assert!(handle_line(&mut state, asks).contains(r#""path":"/options/max_depth""#));
    /// ```
    pub fn set_max_depth(&mut self, max_depth: usize) {
        self.max_depth = Some(max_depth);
    }

    /// The session's depth limit ([`BatchState::set_max_depth`]), if set.
    pub fn max_depth(&self) -> Option<usize> {
        self.max_depth
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
            .field("max_line_bytes", &self.max_line_bytes)
            .field("max_depth", &self.max_depth)
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
    let BatchState {
        schemas,
        arena,
        max_depth,
        ..
    } = state;
    let arena: &Arena = arena;
    let max_depth = *max_depth;
    let request = match line::parse_request(arena, line, max_depth) {
        Ok(v @ Value::Object(_)) => v,
        Ok(other) => {
            return respond::error(
                arena,
                line::salvage_id(arena, line),
                &request::invalid_at(
                    "",
                    format!(
                        "a request must be a JSON object, not a {}",
                        other.kind().name()
                    ),
                ),
            )
        }
        Err(e) => {
            return respond::error(
                arena,
                line::salvage_id(arena, line),
                &request::invalid_at(e.path.clone(), format!("request is not valid JSON: {e}")),
            )
        }
    };
    let id = request.get("id").unwrap_or(Value::Null);
    match dispatch::run(arena, schemas, request, max_depth) {
        Ok(outcome) => respond::ok(arena, id, outcome),
        Err(e) => respond::error(arena, id, &e),
    }
}
