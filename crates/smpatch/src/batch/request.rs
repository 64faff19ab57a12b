//! Reading a request's parts besides its op: the members it may hold, its
//! documents (`name` or `name_text`) and its schema choice (with the
//! session's cache of compiled schema files).

use super::SchemaCache;
use crate::error::FacadeKind;
use crate::input::{check_object, read_document, Empty};
use crate::ops::Op;
use crate::Error;
use smpatch_schema::Schema;
use smpatch_value::{Arena, ParseOptions, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// An `invalid_request` error at the request's root.
pub(super) fn invalid(message: impl Into<String>) -> Error {
    invalid_at("", message)
}

/// An `invalid_request` error at `path` of the request.
pub(super) fn invalid_at(path: impl Into<String>, message: impl Into<String>) -> Error {
    Error::facade(FacadeKind::InvalidRequest, path, message)
}

/// Where a request's type comes from.
pub(super) enum SchemaChoice {
    File(Arc<Schema>, Option<String>),
    Builtin(String),
    None,
    Detect,
}

/// Refuses request members the op does not read: a misspelled name
/// (`"pacth"`) or one of another op (`original` in `conflicts`).
pub(super) fn check_members(request: Value<'_>, op: &Op, extra: &[&str]) -> Result<(), Error> {
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
pub(super) fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Reads document `name` (or `name_text`) of a request.
pub(super) fn document<'a>(
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

pub(super) fn schema_choice(
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
