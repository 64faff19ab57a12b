//! Reading documents and finding their type: shared by the facade, batch
//! mode and the CLI.

use crate::error::FacadeKind;
use crate::ops::Op;
use crate::{Error, TypeRef};
use smpatch_schema::{Cursor, Schema};
use smpatch_value::{parse_json, parse_yaml, Arena, ParseOptions, Value};

/// How an empty or absent document is treated (as the reference: patch
/// creation reads zero bytes as `{}`, `StrategicMergePatch` refuses them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Empty {
    /// Patch creation: zero bytes (or whitespace) is `{}`.
    IsObject,
    /// Apply: a present but empty document is `invalid_document`.
    IsError,
}

/// True when text looks like JSON rather than YAML (kubectl's sniffing: the
/// first non-space character opens an object or a list).
pub fn looks_like_json(text: &[u8]) -> bool {
    matches!(
        text.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// Parses one JSON document for `op`'s document `what`, with `op`'s depth
/// limit, and checks it is an object (`null` counts as `{}`; empty input is
/// `{}` except for apply, where it is `invalid_document`).
pub fn parse_document<'a>(
    arena: &'a Arena,
    text: &'a [u8],
    op: &Op,
    what: &str,
) -> Result<Value<'a>, Error> {
    read_document(
        arena,
        text,
        op.empty(),
        false,
        what,
        &parse_options(op.max_depth()),
    )
}

/// The parser options for documents of an operation allowing `max_depth`:
/// the default limits, with the depth raised (never lowered) to `max_depth`.
pub(crate) fn parse_options(max_depth: usize) -> ParseOptions {
    let mut opts = ParseOptions::default();
    opts.max_depth = opts.max_depth.max(max_depth);
    opts
}

fn empty_document(what: &str) -> Error {
    Error::facade(
        FacadeKind::InvalidDocument,
        "",
        format!("invalid JSON document ({what}): the document is empty"),
    )
}

/// Parses one document from text, JSON or (when `allow_yaml`) YAML, and
/// checks it is an object (`null` counts as `{}`).
pub(crate) fn read_document<'a>(
    arena: &'a Arena,
    text: &'a [u8],
    empty: Empty,
    allow_yaml: bool,
    what: &str,
    opts: &ParseOptions,
) -> Result<Value<'a>, Error> {
    if text.iter().all(u8::is_ascii_whitespace) {
        return match empty {
            Empty::IsObject => Ok(Value::empty_object()),
            Empty::IsError => Err(empty_document(what)),
        };
    }
    let value = if allow_yaml && !looks_like_json(text) {
        let s = std::str::from_utf8(text).map_err(|e| {
            Error::facade(
                FacadeKind::InvalidDocument,
                "",
                format!("invalid JSON document ({what}): not UTF-8: {e}"),
            )
        })?;
        let docs = parse_yaml(arena, s, opts).map_err(|e| Error::parse(e, what))?;
        match docs.as_slice() {
            [] => match empty {
                Empty::IsObject => Value::empty_object(),
                Empty::IsError => return Err(empty_document(what)),
            },
            [one] => *one,
            _ => {
                return Err(Error::facade(
                    FacadeKind::InvalidDocument,
                    "",
                    format!(
                        "invalid JSON document ({what}): expected one YAML document, found {}",
                        docs.len()
                    ),
                ))
            }
        }
    } else {
        parse_json(arena, text, opts).map_err(|e| Error::parse(e, what))?
    };
    check_object(value, what)
}

/// `null` → `{}`; objects pass; anything else is `invalid_document`.
pub fn check_object<'a>(value: Value<'a>, what: &str) -> Result<Value<'a>, Error> {
    match value {
        Value::Null => Ok(Value::empty_object()),
        Value::Object(_) => Ok(value),
        other => Err(Error::facade(
            FacadeKind::InvalidDocument,
            "",
            format!(
                "invalid JSON document ({what}): the top level must be an object, not {} {}",
                if other.kind().name().starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                },
                other.kind().name()
            ),
        )),
    }
}

/// The `apiVersion/kind` of a document, when it has both as strings.
pub(crate) fn gvk_of(doc: &Value<'_>) -> Option<(String, String)> {
    let api_version = doc.get("apiVersion")?.as_str()?;
    let kind = doc.get("kind")?.as_str()?;
    Some((api_version.to_owned(), kind.to_owned()))
}

/// Finds the schema cursor for `ty`, looking in each schema in turn.
/// `docs` are the documents to detect the type from, in priority order.
pub(crate) fn resolve_cursor<'s>(
    schemas: &[&'s Schema],
    ty: &TypeRef,
    docs: &[Value<'_>],
) -> Result<Cursor<'s>, Error> {
    match ty {
        TypeRef::Schemaless => Ok(Cursor::UNKNOWN),
        TypeRef::Definition(name) | TypeRef::Gvk(name) => {
            schemas.iter().find_map(|s| s.cursor(name)).ok_or_else(|| {
                Error::facade(
                    FacadeKind::UnknownType,
                    "",
                    format!(
                        "the schema has no type named {name:?}{}",
                        type_hint(schemas, name)
                    ),
                )
            })
        }
        TypeRef::Detect => {
            let Some((api_version, kind)) = docs.iter().find_map(gvk_of) else {
                return Err(Error::facade(
                    FacadeKind::UnknownType,
                    "",
                    format!(
                        "{}; name the type (TypeRef::Gvk(\"apps/v1/Deployment\") or \
                         TypeRef::Definition) or merge without metadata (TypeRef::Schemaless)",
                        Error::UNTYPED_DOCUMENT
                    ),
                ));
            };
            schemas
                .iter()
                .find_map(|s| s.cursor_for(&api_version, &kind))
                .ok_or_else(|| {
                    Error::facade(
                        FacadeKind::UnknownType,
                        "",
                        format!(
                            "no schema for apiVersion {api_version:?}, kind {kind:?}; \
                             pass the schema that defines it"
                        ),
                    )
                })
        }
    }
}

/// What to write instead of an unknown type name: the GVKs whose kind is the
/// name's last word (a bare `Deployment`, a mistyped group or version), else
/// the two ways to name a type. Starts with `"; "`.
fn type_hint(schemas: &[&Schema], name: &str) -> String {
    let word = name.rsplit(['/', '.']).next().unwrap_or(name);
    let mut known: Vec<String> = schemas
        .iter()
        .flat_map(|s| s.gvks())
        .filter(|g| g.kind.eq_ignore_ascii_case(word))
        .map(|g| format!("{:?}", g.to_string()))
        .collect();
    known.sort();
    known.dedup();
    match known.len() {
        0 => "; name a GVK such as \"apps/v1/Deployment\" or a definition such as \
              \"io.k8s.api.apps.v1.Deployment\", or pass the schema that defines it"
            .to_owned(),
        1..=4 => format!("; did you mean {}?", known.join(" or ")),
        n => format!(
            "; did you mean {} (or {} more)?",
            known[..4].join(", "),
            n - 4
        ),
    }
}
