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
//! Requests are read with the value crate's exact parser, so numbers keep
//! their literal text from request to response. A line that is not a JSON
//! object answers an error with `"id": null`.
//!
//! ```
//! use smpatch::batch::{handle_line, BatchState};
//! let mut state = BatchState::new();
//! let out = handle_line(&mut state, r#"{"id": 7, "op": "frobnicate"}"#);
//! assert!(out.starts_with(r#"{"id":7,"error":{"kind":"invalid_request""#));
//! let out = handle_line(&mut state, "not json");
//! assert!(out.starts_with(r#"{"id":null,"error":"#));
//! ```

use crate::engine::{self, ApplyOptions, CreateOptions, ParseOptions};
use crate::input::{check_object, parse_document, resolve_cursor, Empty};
use crate::{Error, TypeRef};
use smpatch_schema::{Cursor, Schema};
use smpatch_value::{Arena, Value};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// State kept across the lines of one batch session: compiled schema files
/// (each file is compiled once, failures included) and a reusable arena.
#[derive(Default)]
pub struct BatchState {
    schemas: HashMap<PathBuf, Result<Arc<Schema>, Error>>,
    arena: Arena,
}

impl BatchState {
    /// A fresh session.
    pub fn new() -> Self {
        Self::default()
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
    state.arena.reset();
    let BatchState { schemas, arena } = state;
    let arena: &Arena = arena;
    let opts = ParseOptions {
        // Documents sit one level below the request object.
        max_depth: ParseOptions::default().max_depth + 2,
        ..ParseOptions::default()
    };
    let request = match engine::parse_json(arena, line.as_bytes(), &opts) {
        Ok(v @ Value::Object(_)) => v,
        Ok(other) => {
            return respond_error(
                arena,
                Value::Null,
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
                Value::Null,
                &invalid_at(e.path.clone(), format!("request is not valid JSON: {e}")),
            )
        }
    };
    let id = request.get("id").unwrap_or(Value::Null);
    match run(arena, schemas, request) {
        Ok(ok) => {
            let response = Value::object_from(arena, &[("id", id), ("ok", ok)]);
            engine::to_json_string(&response)
        }
        Err(e) => respond_error(arena, id, &e),
    }
}

/// Runs a whole session: reads requests from `input` until EOF and writes
/// one response line per request line to `output`.
pub fn run_session(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let mut state = BatchState::new();
    for line in input.lines() {
        let line = line?;
        let response = handle_line(&mut state, &line);
        output.write_all(response.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}

fn respond_error(arena: &Arena, id: Value<'_>, e: &Error) -> String {
    let error = Value::object_from(
        arena,
        &[
            ("kind", Value::String(e.kind)),
            ("path", Value::String(arena.alloc_str(&e.path))),
            ("message", Value::String(arena.alloc_str(&e.message))),
        ],
    );
    let response = Value::object_from(arena, &[("id", id), ("error", error)]);
    engine::to_json_string(&response)
}

fn invalid(message: impl Into<String>) -> Error {
    invalid_at("", message)
}

/// An `invalid_request` error at `path` of the request.
fn invalid_at(path: impl Into<String>, message: impl Into<String>) -> Error {
    Error::new("invalid_request", path, message)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Apply,
    Create2,
    Create3,
    Conflicts,
    Normalize,
    Fields,
    Extract,
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
    cache: &mut HashMap<PathBuf, Result<Arc<Schema>, Error>>,
    request: Value<'a>,
) -> Result<Value<'a>, Error> {
    let op = match request.get("op") {
        Some(Value::String("apply")) => Op::Apply,
        Some(Value::String("create2")) => Op::Create2,
        Some(Value::String("create3")) => Op::Create3,
        Some(Value::String("conflicts")) => Op::Conflicts,
        Some(Value::String("normalize")) => Op::Normalize,
        Some(Value::String("fields")) => Op::Fields,
        Some(Value::String("extract")) => Op::Extract,
        Some(Value::String(other)) => {
            return Err(invalid_at(
                "/op",
                format!(
                "unknown op {other:?}; expected apply, create2, create3, conflicts, normalize, fields or extract"
            ),
            ))
        }
        Some(_) => return Err(invalid_at("/op", "op must be a string")),
        None => return Err(invalid("the request has no \"op\"")),
    };
    if op == Op::Normalize {
        return Err(Error::unsupported("normalize"));
    }
    let (mut apply_opts, mut create_opts) = (ApplyOptions::default(), CreateOptions::default());
    if let Some(options) = request
        .get("options")
        .filter(|_| !matches!(op, Op::Fields | Op::Extract))
    {
        set_options(options, op, &mut apply_opts, &mut create_opts)?;
    }
    let choice = schema_choice(cache, request.get("schema"))?;
    let empty = if op == Op::Apply {
        Empty::IsError
    } else {
        Empty::IsObject
    };
    let doc = |name: &str| document(arena, request, name, empty);
    let embedded;
    let (schemas, ty): (Vec<&Schema>, TypeRef) = match &choice {
        SchemaChoice::File(s, Some(def)) => (vec![&**s], TypeRef::Definition(def.clone())),
        SchemaChoice::File(s, None) => (vec![&**s], TypeRef::Detect),
        SchemaChoice::Builtin(name) => {
            embedded = engine::embedded_schema()?;
            (vec![embedded], TypeRef::Gvk(name.clone()))
        }
        SchemaChoice::None => (Vec::new(), TypeRef::Schemaless),
        SchemaChoice::Detect => {
            embedded = engine::embedded_schema()?;
            (vec![embedded], TypeRef::Detect)
        }
    };
    let cursor = |docs: &[Value<'_>]| -> Result<Cursor<'_>, Error> {
        resolve_cursor(&schemas, &ty, docs).map_err(|e| e.with_prefix("/schema"))
    };
    match op {
        Op::Apply => {
            let (o, p) = (doc("original")?, doc("patch")?);
            engine::apply(arena, o, p, cursor(&[o, p])?, &apply_opts)
        }
        Op::Create2 => {
            let (o, m) = (doc("original")?, doc("modified")?);
            engine::create_two_way(arena, o, m, cursor(&[m, o])?, &create_opts)
        }
        Op::Create3 => {
            let (o, m, c) = (doc("original")?, doc("modified")?, doc("current")?);
            let overwrite = match request.get("overwrite") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => b,
                Some(_) => return Err(invalid_at("/overwrite", "overwrite must be true or false")),
            };
            engine::create_three_way(arena, o, m, c, cursor(&[m, o, c])?, overwrite, &create_opts)
        }
        Op::Conflicts => {
            let (l, r) = (doc("left")?, doc("right")?);
            engine::conflicts(l, r, cursor(&[l, r])?, &create_opts).map(Value::Bool)
        }
        Op::Normalize => Err(Error::unsupported("normalize")),
        Op::Fields => {
            let o = doc("object")?;
            crate::fields::batch_fields(arena, request, o, cursor(&[o])?)
        }
        Op::Extract => {
            let o = doc("object")?;
            crate::fields::batch_extract(arena, request, o, cursor(&[o])?)
        }
    }
}

/// Reads document `name` (or `name_text`) of a request.
fn document<'a>(
    arena: &'a Arena,
    request: Value<'a>,
    name: &str,
    empty: Empty,
) -> Result<Value<'a>, Error> {
    let text_key = format!("{name}_text");
    let value = request.get(name);
    let text = request.get(&text_key);
    match (value, text) {
        (Some(v), Some(t)) if !v.is_null() && !t.is_null() => Err(invalid(format!(
            "give either {name:?} or {text_key:?}, not both"
        ))),
        (_, Some(Value::String(t))) => parse_document(arena, t.as_bytes(), empty, true, name)
            .map_err(|e| e.with_prefix(&format!("/{text_key}"))),
        (_, Some(t)) if !t.is_null() => Err(invalid_at(
            format!("/{text_key}"),
            format!("{text_key} must be a string"),
        )),
        (Some(v), _) => check_object(v, name).map_err(|e| e.with_prefix(&format!("/{name}"))),
        (None, _) => Ok(Value::empty_object()),
    }
}

fn schema_choice(
    cache: &mut HashMap<PathBuf, Result<Arc<Schema>, Error>>,
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
                format!("/schema/{key}"),
                format!(
                    "unknown schema key {key:?}; expected file (+ definition), builtin or none"
                ),
            ));
        }
    }
    if let Some(file) = string("file")? {
        let path = PathBuf::from(file);
        let loaded = cache
            .entry(path.clone())
            .or_insert_with(|| engine::load_schema_path(&path).map(Arc::new))
            .clone()
            .map_err(|e| e.with_prefix("/schema/file"))?;
        return Ok(SchemaChoice::File(loaded, string("definition")?));
    }
    if let Some(name) = string("builtin")? {
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

fn set_options(
    options: Value<'_>,
    op: Op,
    apply: &mut ApplyOptions,
    create: &mut CreateOptions,
) -> Result<(), Error> {
    let obj = match options {
        Value::Null => return Ok(()),
        Value::Object(o) => o,
        _ => return Err(invalid_at("/options", "options must be an object")),
    };
    let is_apply = op == Op::Apply;
    for (key, value) in obj.iter() {
        let path = format!("/options/{key}");
        let known = if is_apply {
            set_apply_option(apply, key, value)
        } else {
            set_create_option(create, key, value)
        };
        match known {
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
                        if is_apply {
                            APPLY_OPTIONS
                        } else {
                            CREATE_OPTIONS
                        }
                        .join(", ")
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
    "fix_quirks",
    "compound_keys",
    "reject_duplicate_keys",
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
