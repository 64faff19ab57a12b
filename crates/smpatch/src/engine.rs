//! The one place that calls into the workspace crates.
//!
//! Everything else in this crate (facade, batch mode, CLI) goes through these
//! functions, so each crate's API is wired in exactly once.

use crate::Error;
use smpatch_schema::{Cursor, Schema, SchemaError};
use smpatch_value::{Arena, Value};
use std::path::Path;

pub use smpatch_patch_apply::ApplyOptions;
pub use smpatch_patch_create::{CreateOptions, Precondition};
pub(crate) use smpatch_value::{
    parse_json, to_go_json, to_json_pretty, to_json_string, to_yaml_string, ParseError,
    ParseErrorKind, ParseOptions,
};

/// Merges `patch` into `original` (spec §3).
pub(crate) fn apply<'a>(
    arena: &'a Arena,
    original: Value<'a>,
    patch: Value<'a>,
    cursor: Cursor<'_>,
    opts: &ApplyOptions,
) -> Result<Value<'a>, Error> {
    Ok(smpatch_patch_apply::apply(
        arena, original, patch, cursor, opts,
    )?)
}

/// Two-way patch from `original` to `modified` (spec §4.2).
pub(crate) fn create_two_way<'a>(
    arena: &'a Arena,
    original: Value<'a>,
    modified: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    Ok(smpatch_patch_create::create_two_way(
        arena,
        original,
        modified,
        cursor,
        opts,
        &[],
    )?)
}

/// Three-way patch (spec §4.6).
pub(crate) fn create_three_way<'a>(
    arena: &'a Arena,
    original: Value<'a>,
    modified: Value<'a>,
    current: Value<'a>,
    cursor: Cursor<'_>,
    overwrite: bool,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    let docs = smpatch_patch_create::ThreeWay {
        original,
        modified,
        current,
    };
    let on_conflict = smpatch_patch_create::OnConflict::overwrite_if(overwrite);
    Ok(smpatch_patch_create::create_three_way(
        arena,
        docs,
        cursor,
        on_conflict,
        opts,
        &[],
    )?)
}

/// Whether two patches conflict (spec §4.7).
pub(crate) fn conflicts(
    left: Value<'_>,
    right: Value<'_>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<bool, Error> {
    Ok(smpatch_patch_create::conflicts(left, right, cursor, opts)?)
}

/// One patch equivalent to applying `first` then `second` (spec §3.15, with
/// `$patch` directives carried through: the fix for quirk Q32).
pub(crate) fn compose<'a>(
    arena: &'a Arena,
    first: Value<'a>,
    second: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    Ok(smpatch_patch_create::compose(
        arena, first, second, cursor, opts,
    )?)
}

/// Loads a schema file or directory (OpenAPI v2/v3 JSON, CRD YAML).
pub(crate) fn load_schema_path(path: &Path) -> Result<Schema, Error> {
    Schema::load_path(path).map_err(schema_error)
}

fn schema_error(e: SchemaError) -> Error {
    Error::new(e.kind_name(), e.pointer, e.message)
}

/// The embedded Kubernetes schema.
pub(crate) fn embedded_schema() -> Result<&'static Schema, Error> {
    smpatch_schema::embedded_checked().map_err(|e| schema_error(e.clone()))
}

/// Human-readable patch metadata of a type or field path.
pub(crate) fn explain(
    schema: &Schema,
    type_name: &str,
    path: Option<&str>,
) -> Result<String, Error> {
    smpatch_schema::explain(schema, type_name, path).map_err(schema_error)
}

/// Converts a parse error of a document into the facade error: `too_deep`
/// and `too_large` for the parser's limits, `invalid_document` otherwise.
pub(crate) fn document_error(e: &ParseError, what: &str) -> Error {
    let kind = match e.kind {
        ParseErrorKind::TooDeep => "too_deep",
        ParseErrorKind::TooLarge | ParseErrorKind::StringTooLong | ParseErrorKind::AliasLimit => {
            "too_large"
        }
        _ => "invalid_document",
    };
    let message = if kind == "invalid_document" {
        format!("invalid JSON document ({what}): {e}")
    } else {
        format!("{what}: {e}")
    };
    Error::new(kind, e.path.clone(), message)
}

/// Parses a YAML stream into documents; errors are `invalid_document`.
pub(crate) fn parse_yaml_docs<'a>(
    arena: &'a Arena,
    text: &'a str,
    opts: &ParseOptions,
    what: &str,
) -> Result<Vec<Value<'a>>, Error> {
    smpatch_value::parse_yaml(arena, text, opts).map_err(|e| document_error(&e, what))
}
