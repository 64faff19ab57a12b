//! Union normalization, union and enum validation, and the server pipeline
//! (strategic merge, then normalization against the live object, then
//! validation), on `serde_json` values and on the arena.
//!
//! This module is the only caller of `smpatch-union-normalize`; the
//! pipeline ([`crate::ops::Op::Normalize`], [`crate::ops::Op::ServerApply`]),
//! the batch protocol (`normalize` op, `apply` with `normalize_unions`) and
//! the CLI (`patch --normalize-unions`, `validate`) go through it, all
//! with the same `UnionOptions` (docs/UNIONS.md, "Options").

use std::fmt;

use crate::error::FacadeKind;
use crate::ops::{self, Op, Outcome};
use crate::{ApplyOptions, Error, Input, Output, Schema, TypeRef};
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
    /// kind `validation` whose message lists the violations (and whose
    /// [`Error::violations`] holds them).
    pub fn to_error(&self) -> Error {
        match self {
            PipelineError::Patch(e) => e.clone(),
            PipelineError::Invalid(v) => validation_error(v.clone()),
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
    /// A `validation` error becomes [`PipelineError::Invalid`], any other
    /// [`PipelineError::Patch`].
    fn from(e: Error) -> Self {
        if e.kind() == crate::ErrorKind::Facade(FacadeKind::Validation) {
            PipelineError::Invalid(e.violations().to_vec())
        } else {
            PipelineError::Patch(e)
        }
    }
}

/// The violations a `validation` [`Error`] carries as its source.
#[derive(Clone, Debug)]
pub(crate) struct Violations(pub(crate) Vec<Violation>);

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let listed: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        write!(
            f,
            "{} union/enum violation{}: {}",
            self.0.len(),
            if self.0.len() == 1 { "" } else { "s" },
            listed.join("; ")
        )
    }
}

impl std::error::Error for Violations {}

/// The `validation` error for a list of violations.
pub(crate) fn validation_error(v: Vec<Violation>) -> Error {
    let v = Violations(v);
    Error::facade(FacadeKind::Validation, "", v.to_string()).with_source(v)
}

/// Normalizes `new` against `old` and validates the result: the last step
/// of [`Op::Normalize`] and [`Op::ServerApply`].
pub(crate) fn normalize_validated<'a>(
    arena: &'a Arena,
    old: Option<Value<'_>>,
    new: Value<'a>,
    cursor: Cursor<'_>,
    opts: &UnionOptions,
) -> Result<Outcome<'a>, Error> {
    let n = un::normalize(arena, old, new, cursor, opts)?;
    let found = un::validate(old, n.value, cursor, opts)?;
    if found.is_empty() {
        Ok(Outcome::Normalized {
            value: n.value,
            cleared: n.cleared,
        })
    } else {
        Err(validation_error(found))
    }
}

fn normalized(out: Outcome<'_>) -> Normalized<'_> {
    match out {
        Outcome::Normalized { value, cleared } => Normalized { value, cleared },
        other => Normalized {
            value: other.into_value(),
            cleared: Vec::new(),
        },
    }
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
    Ok(normalized(normalize_validated(
        arena, old, new, cursor, opts,
    )?))
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
    let op = Op::ServerApply {
        apply: apply_opts.clone(),
        unions: union_opts.clone(),
    };
    Ok(normalized(ops::execute(
        arena,
        &op,
        &[live, patch],
        cursor,
    )?))
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
    let op = Op::ServerApply {
        apply: apply_opts.clone(),
        unions: union_opts.clone(),
    };
    Ok(run_json(op, &[live, patch], schema, ty)?)
}

/// Runs a normalizing `op` on `serde_json` documents.
fn run_json(
    op: Op,
    docs: &[&serde_json::Value],
    schema: &Schema,
    ty: &TypeRef,
) -> Result<NormalizedJson, Error> {
    let arena = Arena::new();
    let values = docs
        .iter()
        .zip(op.roles())
        .map(|(d, what)| d.read(&arena, &op, what))
        .collect::<Result<Vec<_>, _>>()?;
    let n = normalized(ops::run(&arena, &op, &values, &[schema], ty)?);
    Ok(NormalizedJson {
        object: serde_json::Value::from_value(&n.value)?,
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
    let (n, o, cursor) = read_pair(&arena, old, new, schema, ty, opts)?;
    let r = un::normalize(&arena, o, n, cursor, opts)?;
    Ok(NormalizedJson {
        object: serde_json::Value::from_value(&r.value)?,
        cleared: r.cleared,
    })
}

/// Every union (V1–V5) and enum violation of `new`, judged against `old`
/// (`None` on create). An empty list means valid. The options are those of
/// every entry point of the union pass (docs/UNIONS.md, "Options"): here
/// `ratcheting` tolerates an enum value the stored object already had.
///
/// ```
/// use serde_json::json;
/// use smpatch::{validate_json, Schema, TypeRef, UnionOptions};
/// let schema = Schema::from_bytes(br#"{"swagger": "2.0", "definitions": {"C": {
///   "properties": {"pull": {"type": "string", "enum": ["Always", "Never"]}}}}}"#, "doc").unwrap();
/// let ty = TypeRef::Definition("C".into());
/// let (old, new) = (json!({"pull": "Sometimes", "x": 1}), json!({"pull": "Sometimes", "x": 2}));
/// let strict = validate_json(Some(&old), &new, &schema, &ty, &UnionOptions::default()).unwrap();
/// assert_eq!((strict[0].path.as_str(), strict[0].rule.name()), ("/pull", "enum"));
/// let ratcheting = UnionOptions { ratcheting: true, ..UnionOptions::default() };
/// assert!(validate_json(Some(&old), &new, &schema, &ty, &ratcheting).unwrap().is_empty());
/// assert_eq!(UnionOptions::default().max_depth, smpatch::DEFAULT_MAX_DEPTH);
/// ```
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
    let (n, o, cursor) = read_pair(&arena, old, new, schema, ty, opts)?;
    Ok(un::validate(o, n, cursor, opts)?)
}

/// Arena API: every union (V1–V5) and enum violation of `new` as written,
/// judged against `old` (`None` on create); nothing is normalized. An
/// empty list means valid.
///
/// # Errors
/// A `too_deep` error when the object nests deeper than `opts.max_depth`.
pub fn validate_unions(
    old: Option<Value<'_>>,
    new: Value<'_>,
    cursor: Cursor<'_>,
    opts: &UnionOptions,
) -> Result<Vec<Violation>, Error> {
    Ok(un::validate(old, new, cursor, opts)?)
}

/// Reads `new` and `old` (`None` on create) and finds their type.
fn read_pair<'a, 's>(
    arena: &'a Arena,
    old: Option<&'a serde_json::Value>,
    new: &'a serde_json::Value,
    schema: &'s Schema,
    ty: &TypeRef,
    opts: &UnionOptions,
) -> Result<(Value<'a>, Option<Value<'a>>, Cursor<'s>), Error> {
    let op = Op::Normalize {
        options: opts.clone(),
        create: old.is_none(),
    };
    let n = new.read(arena, &op, "new")?;
    let o = old.map(|o| o.read(arena, &op, "old")).transpose()?;
    let docs = [n, o.unwrap_or(Value::empty_object())];
    let cursor = ops::resolve_type(&op, &[schema], ty, &docs)?;
    Ok((n, o, cursor))
}

/// True when a request carries document `name` (or `name_text`).
pub(crate) fn has_document(request: Value<'_>, name: &str) -> bool {
    let text = format!("{name}_text");
    [request.get(name), request.get(&text)]
        .iter()
        .any(|v| v.is_some_and(|v| !v.is_null()))
}
