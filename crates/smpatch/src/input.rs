//! Reading documents and finding their type: shared by the facade, batch
//! mode and the CLI.

use crate::engine::{self, ParseOptions};
use crate::{Error, TypeRef};
use smpatch_schema::{Cursor, Schema};
use smpatch_value::{Arena, Value};

/// How an empty or absent document is treated (spec §1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Empty {
    /// Patch creation: zero bytes (or whitespace) is `{}`.
    IsObject,
    /// Apply: a present but empty document is `invalid_document`.
    IsError,
}

/// True when text looks like JSON rather than YAML (kubectl's sniffing: the
/// first non-space character opens an object or a list).
pub(crate) fn looks_like_json(text: &[u8]) -> bool {
    matches!(
        text.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// Parses one document from text, JSON or (when `allow_yaml`) YAML, and
/// checks it is an object (`null` counts as `{}`).
pub(crate) fn parse_document<'a>(
    arena: &'a Arena,
    text: &'a [u8],
    empty: Empty,
    allow_yaml: bool,
    what: &str,
) -> Result<Value<'a>, Error> {
    if text.iter().all(u8::is_ascii_whitespace) {
        return match empty {
            Empty::IsObject => Ok(Value::empty_object()),
            Empty::IsError => Err(Error::new(
                "invalid_document",
                "",
                format!("invalid JSON document ({what}): the document is empty"),
            )),
        };
    }
    let opts = ParseOptions::default();
    let value = if allow_yaml && !looks_like_json(text) {
        let s = std::str::from_utf8(text).map_err(|e| {
            Error::new(
                "invalid_document",
                "",
                format!("invalid JSON document ({what}): not UTF-8: {e}"),
            )
        })?;
        let docs = engine::parse_yaml_docs(arena, s, &opts, what)?;
        match docs.as_slice() {
            [] => match empty {
                Empty::IsObject => Value::empty_object(),
                Empty::IsError => {
                    return Err(Error::new(
                        "invalid_document",
                        "",
                        format!("invalid JSON document ({what}): the document is empty"),
                    ))
                }
            },
            [one] => *one,
            _ => {
                return Err(Error::new(
                    "invalid_document",
                    "",
                    format!(
                        "invalid JSON document ({what}): expected one YAML document, found {}",
                        docs.len()
                    ),
                ))
            }
        }
    } else {
        engine::parse_json(arena, text, &opts).map_err(|e| engine::document_error(&e, what))?
    };
    check_object(value, what)
}

/// `null` → `{}`; objects pass; anything else is `invalid_document`.
pub(crate) fn check_object<'a>(value: Value<'a>, what: &str) -> Result<Value<'a>, Error> {
    match value {
        Value::Null => Ok(Value::empty_object()),
        Value::Object(_) => Ok(value),
        other => Err(Error::new(
            "invalid_document",
            "",
            format!(
                "invalid JSON document ({what}): the top level must be an object, not a {}",
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
                Error::new(
                    "unknown_type",
                    "",
                    format!("the schema has no type named {name:?}"),
                )
            })
        }
        TypeRef::Detect => {
            let Some((api_version, kind)) = docs.iter().find_map(gvk_of) else {
                return Err(Error::new(
                    "unknown_type",
                    "",
                    "cannot tell the document's type: no apiVersion and kind; name the type \
                     (a definition or GVK) or ask for schemaless mode",
                ));
            };
            schemas
                .iter()
                .find_map(|s| s.cursor_for(&api_version, &kind))
                .ok_or_else(|| {
                    Error::new(
                        "unknown_type",
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
