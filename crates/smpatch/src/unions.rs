//! Union normalization, union and enum validation, and the server pipeline
//! (strategic merge, then normalization against the live object, then
//! validation), on `serde_json` values and on the arena.
//!
//! This module is the only caller of `smpatch-union-normalize`; the batch
//! protocol (`normalize` op, `apply` with `normalize_unions`) and the CLI
//! (`patch --normalize-unions`, `validate`) go through it.

use std::fmt;

use crate::input::resolve_cursor;
use crate::{doc_from_serde, engine, value_to_serde, ApplyOptions, Error, Schema, TypeRef};
use smpatch_schema::Cursor;
use smpatch_union_normalize as un;
use smpatch_value::{Arena, Value};

pub use smpatch_union_normalize::{Normalized, Options as UnionOptions, Rule, Violation};

/// A normalized object and the JSON pointers of the members that were
/// cleared (for a server to report or audit).
#[derive(Clone, Debug, PartialEq)]
pub struct NormalizedJson {
    /// The normalized object.
    pub object: serde_json::Value,
    /// JSON pointers of the cleared members, in document order.
    pub cleared: Vec<String>,
}

/// Why the server pipeline refused a request: the patch failed, or the
/// result breaks union or enum rules. Either way the inputs are unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipelineError {
    /// Parsing, type resolution or the strategic merge failed.
    Patch(Error),
    /// The merged, normalized object breaks these rules (every one found).
    Invalid(Vec<Violation>),
}

impl PipelineError {
    /// The error in the facade's one shape: `Patch` as is, `Invalid` as
    /// kind `validation` whose message lists the violations.
    pub fn to_error(&self) -> Error {
        match self {
            PipelineError::Patch(e) => e.clone(),
            PipelineError::Invalid(v) => validation_error(v),
        }
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_error().fmt(f)
    }
}

impl std::error::Error for PipelineError {}

impl From<Error> for PipelineError {
    fn from(e: Error) -> Self {
        PipelineError::Patch(e)
    }
}

/// The `validation` error for a list of violations.
pub(crate) fn validation_error(v: &[Violation]) -> Error {
    let listed: Vec<String> = v.iter().map(ToString::to_string).collect();
    Error::new(
        "validation",
        "",
        format!(
            "{} union/enum violation{}: {}",
            v.len(),
            if v.len() == 1 { "" } else { "s" },
            listed.join("; ")
        ),
    )
}

fn walk_error(e: un::Error) -> Error {
    Error::new(e.kind.name(), e.path, e.message)
}

/// Arena API: normalizes `new` against `old` (`None` on create) and
/// validates the result. The result shares unchanged subtrees with `new`.
///
/// # Errors
/// [`PipelineError::Invalid`] with every violation, or
/// [`PipelineError::Patch`] when the object nests too deep.
pub fn normalize_and_validate<'a>(
    arena: &'a Arena,
    old: Option<Value<'_>>,
    new: Value<'a>,
    cursor: Cursor<'_>,
    opts: &UnionOptions,
) -> Result<Normalized<'a>, PipelineError> {
    let n = un::normalize(arena, old, new, cursor, opts).map_err(walk_error)?;
    let found = un::validate(old, n.value, cursor, opts).map_err(walk_error)?;
    if found.is_empty() {
        Ok(n)
    } else {
        Err(PipelineError::Invalid(found))
    }
}

/// Arena API of the server pipeline: strategic merge of `patch` into
/// `live`, normalization of the result against `live`, validation. Nothing
/// is copied: the merge result is normalized where it lies in `arena`.
///
/// # Errors
/// [`PipelineError::Patch`] when the merge fails, [`PipelineError::Invalid`]
/// with every violation of the result.
pub fn server_apply<'a>(
    arena: &'a Arena,
    live: Value<'a>,
    patch: Value<'a>,
    cursor: Cursor<'_>,
    apply_opts: &ApplyOptions,
    union_opts: &UnionOptions,
) -> Result<Normalized<'a>, PipelineError> {
    let merged = engine::apply(arena, live, patch, cursor, apply_opts)?;
    normalize_and_validate(arena, Some(live), merged, cursor, union_opts)
}

/// The server pipeline on `serde_json` values: what an API server does with
/// a strategic merge patch request (KEP-1027: merge, normalize against the
/// live object, validate).
///
/// ```
/// use serde_json::json;
/// use smpatch::{server_apply_json, ApplyOptions, TypeRef, UnionOptions};
///
/// let schema = smpatch::embedded_schema().unwrap();
/// let live = json!({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [
///     {"name": "a", "image": "i", "imagePullPolicy": "Always"}]}});
/// let patch = json!({"spec": {"containers": [{"name": "a", "imagePullPolicy": "Never"}]}});
/// let out = server_apply_json(&live, &patch, schema, &TypeRef::Detect,
///     &ApplyOptions::default(), &UnionOptions::default()).unwrap();
/// assert_eq!(out.object["spec"]["containers"][0]["imagePullPolicy"], "Never");
/// assert!(out.cleared.is_empty());
/// ```
///
/// # Errors
/// [`PipelineError::Patch`] for a bad document, an unknown type or a failed
/// merge; [`PipelineError::Invalid`] with every violation of the result.
pub fn server_apply_json(
    live: &serde_json::Value,
    patch: &serde_json::Value,
    schema: &Schema,
    ty: &TypeRef,
    apply_opts: &ApplyOptions,
    union_opts: &UnionOptions,
) -> Result<NormalizedJson, PipelineError> {
    let arena = Arena::new();
    let l = doc_from_serde(&arena, live, "live")?;
    let p = doc_from_serde(&arena, patch, "patch")?;
    let cursor = resolve_cursor(&[schema], ty, &[l, p])?;
    let n = server_apply(&arena, l, p, cursor, apply_opts, union_opts)?;
    Ok(NormalizedJson {
        object: value_to_serde(&n.value)?,
        cleared: n.cleared,
    })
}

/// Normalizes the unions of `new` against `old` (`None` on create) per
/// KEP-1027, without validating. See `smpatch_union_normalize::normalize`.
///
/// # Errors
/// A bad document, an unknown type, or an object nested too deep.
pub fn normalize_json(
    old: Option<&serde_json::Value>,
    new: &serde_json::Value,
    schema: &Schema,
    ty: &TypeRef,
    opts: &UnionOptions,
) -> Result<NormalizedJson, Error> {
    let arena = Arena::new();
    let n = doc_from_serde(&arena, new, "new")?;
    let o = old.map(|o| doc_from_serde(&arena, o, "old")).transpose()?;
    let cursor = resolve_cursor(&[schema], ty, &[n, o.unwrap_or(Value::empty_object())])?;
    let r = un::normalize(&arena, o, n, cursor, opts).map_err(walk_error)?;
    Ok(NormalizedJson {
        object: value_to_serde(&r.value)?,
        cleared: r.cleared,
    })
}

/// Every union (V1–V5) and enum violation of `new`, judged against `old`
/// (`None` on create). An empty list means valid.
///
/// # Errors
/// A bad document, an unknown type, or an object nested too deep.
pub fn validate_json(
    old: Option<&serde_json::Value>,
    new: &serde_json::Value,
    schema: &Schema,
    ty: &TypeRef,
    opts: &UnionOptions,
) -> Result<Vec<Violation>, Error> {
    let arena = Arena::new();
    let n = doc_from_serde(&arena, new, "new")?;
    let o = old.map(|o| doc_from_serde(&arena, o, "old")).transpose()?;
    let cursor = resolve_cursor(&[schema], ty, &[n, o.unwrap_or(Value::empty_object())])?;
    un::validate(o, n, cursor, opts).map_err(walk_error)
}

/// Batch-protocol state of one request: the union options and what the
/// response needs besides `ok` / `error`.
#[derive(Default)]
pub(crate) struct BatchExtra {
    /// `apply` with `"options": {"normalize_unions": true}`.
    pub normalize_unions: bool,
    pub opts: UnionOptions,
    cleared: Option<Vec<String>>,
    violations: Option<Vec<Violation>>,
}

/// Option names the `normalize` op accepts.
pub(crate) const NORMALIZE_OPTIONS: &[&str] = &[
    "ratcheting",
    "check_enums",
    "non_discriminated_update",
    "max_depth",
];

impl BatchExtra {
    /// Sets a union option of the `normalize` op (`None` = unknown key,
    /// `Some(Err(expected))` = wrong type).
    pub(crate) fn set_option(
        &mut self,
        key: &str,
        v: Value<'_>,
    ) -> Option<Result<(), &'static str>> {
        let flag = match key {
            "ratcheting" => &mut self.opts.ratcheting,
            "check_enums" => &mut self.opts.check_enums,
            "non_discriminated_update" => &mut self.opts.non_discriminated_update,
            "max_depth" => {
                return Some(
                    match v
                        .as_number()
                        .and_then(|n| n.as_u64())
                        .and_then(|n| usize::try_from(n).ok())
                    {
                        Some(n) => {
                            self.opts.max_depth = n;
                            Ok(())
                        }
                        None => Err("a non-negative integer"),
                    },
                )
            }
            _ => return None,
        };
        match v {
            Value::Bool(b) => {
                *flag = b;
                Some(Ok(()))
            }
            _ => Some(Err("true or false")),
        }
    }

    /// The `normalize` op, and the tail of `apply` with `normalize_unions`.
    pub(crate) fn run<'a>(
        &mut self,
        arena: &'a Arena,
        old: Option<Value<'_>>,
        new: Value<'a>,
        cursor: Cursor<'_>,
    ) -> Result<Value<'a>, Error> {
        match normalize_and_validate(arena, old, new, cursor, &self.opts) {
            Ok(n) => {
                self.cleared = Some(n.cleared);
                Ok(n.value)
            }
            Err(PipelineError::Patch(e)) => Err(e),
            Err(PipelineError::Invalid(v)) => {
                let e = validation_error(&v);
                self.violations = Some(v);
                Err(e)
            }
        }
    }

    /// `{"id", "ok", "cleared"?}`.
    pub(crate) fn respond_ok<'a>(&self, arena: &'a Arena, id: Value<'a>, ok: Value<'a>) -> String {
        let mut pairs = vec![("id", id), ("ok", ok)];
        let cleared;
        if let Some(c) = &self.cleared {
            let items: Vec<Value<'a>> = c
                .iter()
                .map(|p| Value::String(arena.alloc_str(p)))
                .collect();
            cleared = Value::array_from(arena, &items);
            pairs.push(("cleared", cleared));
        }
        engine::to_json_string(&object(arena, &pairs))
    }

    /// `{"id", "error": {kind, path, message, violations?}}`.
    pub(crate) fn respond_error<'a>(&self, arena: &'a Arena, id: Value<'a>, e: &Error) -> String {
        let mut error = vec![
            ("kind", Value::String(e.kind)),
            ("path", Value::String(arena.alloc_str(&e.path))),
            ("message", Value::String(arena.alloc_str(&e.message))),
        ];
        if let Some(v) = &self.violations {
            let items: Vec<Value<'a>> = v
                .iter()
                .map(|v| {
                    object(
                        arena,
                        &[
                            ("path", Value::String(arena.alloc_str(&v.path))),
                            ("rule", Value::String(v.rule.name())),
                            ("message", Value::String(arena.alloc_str(&v.message))),
                        ],
                    )
                })
                .collect();
            error.push(("violations", Value::array_from(arena, &items)));
        }
        let error = object(arena, &error);
        engine::to_json_string(&object(arena, &[("id", id), ("error", error)]))
    }
}

fn object<'a>(arena: &'a Arena, pairs: &[(&'a str, Value<'a>)]) -> Value<'a> {
    Value::object_from(arena, pairs)
}

/// True when a request carries document `name` (or `name_text`).
pub(crate) fn has_document(request: Value<'_>, name: &str) -> bool {
    let text = format!("{name}_text");
    [request.get(name), request.get(&text)]
        .iter()
        .any(|v| v.is_some_and(|v| !v.is_null()))
}
