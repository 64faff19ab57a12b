//! smpatch: strategic merge patch for Kubernetes-style objects.
//!
//! Owns: the public facade (serde_json and bytes in, serde_json and bytes
//! out) over the arena crates, batch mode (the machine interface) and the
//! `smpatch` command-line tool.
//!
//! Must not: hold merge or diff logic of its own.
//!
//! ```
//! use serde_json::json;
//! use smpatch::{apply_json, ApplyOptions, TypeRef};
//!
//! let schema = smpatch::embedded_schema().unwrap();
//! let live = json!({"apiVersion": "apps/v1", "kind": "Deployment",
//!     "spec": {"template": {"spec": {"containers": [
//!         {"name": "web", "image": "nginx:1.25"},
//!         {"name": "sidecar", "image": "envoy:1"}]}}}});
//! let patch = json!({"spec": {"template": {"spec": {"containers": [
//!     {"name": "web", "image": "nginx:1.27"}]}}}});
//! let merged = apply_json(&live, &patch, schema, &TypeRef::Detect, &ApplyOptions::default()).unwrap();
//! assert_eq!(merged["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.27");
//! assert_eq!(merged["spec"]["template"]["spec"]["containers"][1]["name"], "sidecar");
//! ```
#![deny(missing_docs)]

pub mod batch;
pub mod cli;
mod engine;
mod error;
mod fields;
mod input;

pub use engine::{ApplyOptions, CreateOptions, Precondition};
pub use error::{Error, FacadeError};
pub use fields::{extract_bytes, extract_json, fields_bytes, fields_json, owners_json};
/// Field sets and apply configurations (KEP-2155): the `smpatch-fieldsets` crate.
pub use smpatch_fieldsets as fieldsets;
pub use smpatch_patch_apply::{Error as PatchError, ErrorKind};
pub use smpatch_schema::{Cursor, Gvk, Schema};
pub use smpatch_value::{Arena, Value};

use input::{check_object, parse_document, resolve_cursor, Empty};
use smpatch_value::{from_serde, to_serde};

/// Which type of the schema a document has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeRef {
    /// A definition name, e.g. `io.k8s.api.apps.v1.Deployment`.
    Definition(String),
    /// A group/version/kind, e.g. `apps/v1/Deployment` or `v1/Pod`.
    Gvk(String),
    /// From the documents' `apiVersion` and `kind`: for apply the original's
    /// then the patch's; for create the modified's then the original's (then
    /// the current's); for conflicts the left's then the right's.
    Detect,
    /// No schema: objects merge, every list is atomic, nothing errors on
    /// lookups.
    Schemaless,
}

/// The embedded Kubernetes built-in API schema (compiled once).
pub fn embedded_schema() -> Result<&'static Schema, Error> {
    engine::embedded_schema()
}

/// Loads a schema from a file or directory: OpenAPI v2/v3 JSON or CRD YAML.
pub fn load_schema(path: impl AsRef<std::path::Path>) -> Result<Schema, Error> {
    engine::load_schema_path(path.as_ref())
}

const MAX_DEPTH: usize = 256;

fn doc_from_serde<'a>(
    arena: &'a Arena,
    v: &serde_json::Value,
    what: &str,
) -> Result<Value<'a>, Error> {
    let value = from_serde(arena, v, MAX_DEPTH)
        .map_err(|e| Error::new("too_deep", e.path, format!("{what}: {}", e.message)))?;
    check_object(value, what)
}

fn value_to_serde(v: &Value<'_>) -> Result<serde_json::Value, Error> {
    to_serde(v).map_err(|e| {
        Error::new(
            "unrepresentable_number",
            e.path,
            format!("{}; use the bytes API to keep such numbers", e.message),
        )
    })
}

fn bytes_doc<'a>(
    arena: &'a Arena,
    b: &'a [u8],
    empty: Empty,
    what: &str,
) -> Result<Value<'a>, Error> {
    parse_document(arena, b, empty, false, what)
}

/// Merges a strategic merge `patch` into `original` (serde_json values).
///
/// A `null` document counts as `{}`; anything else that is not an object is
/// an `invalid_document` error. The inputs are never changed.
///
/// ```
/// use serde_json::json;
/// use smpatch::{apply_json, ApplyOptions, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let live = json!({"metadata": {"finalizers": ["a", "b"]}});
/// let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}});
/// let ty = TypeRef::Gvk("v1/ConfigMap".into());
/// let out = apply_json(&live, &patch, schema, &ty, &ApplyOptions::default()).unwrap();
/// assert_eq!(out, json!({"metadata": {"finalizers": ["b"]}}));
/// ```
pub fn apply_json(
    original: &serde_json::Value,
    patch: &serde_json::Value,
    schema: &Schema,
    ty: &TypeRef,
    opts: &ApplyOptions,
) -> Result<serde_json::Value, Error> {
    let arena = Arena::new();
    let o = doc_from_serde(&arena, original, "original")?;
    let p = doc_from_serde(&arena, patch, "patch")?;
    let cursor = resolve_cursor(&[schema], ty, &[o, p])?;
    value_to_serde(&engine::apply(&arena, o, p, cursor, opts)?)
}

/// Merges a patch into an object given as JSON bytes; answers compact JSON
/// bytes, every number written exactly as it was read.
///
/// Empty input is an `invalid_document` error (spec §1.1); `null` counts as `{}`.
///
/// ```
/// use smpatch::{apply_bytes, ApplyOptions, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let out = apply_bytes(br#"{"spec":{"replicas":1}}"#, br#"{"spec":{"replicas":12345678901234567890}}"#,
///     schema, &TypeRef::Gvk("apps/v1/Deployment".into()), &ApplyOptions::default()).unwrap();
/// assert_eq!(out, br#"{"spec":{"replicas":12345678901234567890}}"#);
/// ```
pub fn apply_bytes(
    original: &[u8],
    patch: &[u8],
    schema: &Schema,
    ty: &TypeRef,
    opts: &ApplyOptions,
) -> Result<Vec<u8>, Error> {
    let arena = Arena::new();
    let o = bytes_doc(&arena, original, Empty::IsError, "original")?;
    let p = bytes_doc(&arena, patch, Empty::IsError, "patch")?;
    let cursor = resolve_cursor(&[schema], ty, &[o, p])?;
    let r = engine::apply(&arena, o, p, cursor, opts)?;
    Ok(engine::to_json_string(&r).into_bytes())
}

/// The two-way patch that turns `original` into `modified` (serde_json values).
///
/// ```
/// use serde_json::json;
/// use smpatch::{create_two_way_json, CreateOptions, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let o = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1", "b": "2"}});
/// let m = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"}});
/// let patch = create_two_way_json(&o, &m, schema, &TypeRef::Detect, &CreateOptions::default()).unwrap();
/// assert_eq!(patch, json!({"data": {"b": null}}));
/// ```
pub fn create_two_way_json(
    original: &serde_json::Value,
    modified: &serde_json::Value,
    schema: &Schema,
    ty: &TypeRef,
    opts: &CreateOptions,
) -> Result<serde_json::Value, Error> {
    let arena = Arena::new();
    let o = doc_from_serde(&arena, original, "original")?;
    let m = doc_from_serde(&arena, modified, "modified")?;
    let cursor = resolve_cursor(&[schema], ty, &[m, o])?;
    value_to_serde(&engine::create_two_way(&arena, o, m, cursor, opts)?)
}

/// [`create_two_way_json`] on JSON bytes (empty input counts as `{}`).
///
/// ```
/// use smpatch::{create_two_way_bytes, CreateOptions, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let patch = create_two_way_bytes(b"", br#"{"data":{"a":"1"}}"#, schema,
///     &TypeRef::Gvk("v1/ConfigMap".into()), &CreateOptions::default()).unwrap();
/// assert_eq!(patch, br#"{"data":{"a":"1"}}"#);
/// ```
pub fn create_two_way_bytes(
    original: &[u8],
    modified: &[u8],
    schema: &Schema,
    ty: &TypeRef,
    opts: &CreateOptions,
) -> Result<Vec<u8>, Error> {
    let arena = Arena::new();
    let o = bytes_doc(&arena, original, Empty::IsObject, "original")?;
    let m = bytes_doc(&arena, modified, Empty::IsObject, "modified")?;
    let cursor = resolve_cursor(&[schema], ty, &[m, o])?;
    let r = engine::create_two_way(&arena, o, m, cursor, opts)?;
    Ok(engine::to_json_string(&r).into_bytes())
}

/// The three-way patch of `kubectl apply` (serde_json values): `original` is
/// the last applied configuration, `modified` the new one, `current` the
/// live object. With `overwrite == false`, changes made on the server that
/// the patch would undo are a `conflict` error.
///
/// ```
/// use serde_json::json;
/// use smpatch::{create_three_way_json, CreateOptions, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let ty = TypeRef::Gvk("v1/ConfigMap".into());
/// let o = json!({"data": {"a": "1", "b": "2"}});
/// let m = json!({"data": {"a": "1"}});
/// let c = json!({"data": {"a": "1", "b": "2", "c": "3"}});
/// let patch = create_three_way_json(&o, &m, &c, schema, &ty, true, &CreateOptions::default()).unwrap();
/// assert_eq!(patch, json!({"data": {"b": null}}));
/// ```
#[allow(clippy::too_many_arguments)]
pub fn create_three_way_json(
    original: &serde_json::Value,
    modified: &serde_json::Value,
    current: &serde_json::Value,
    schema: &Schema,
    ty: &TypeRef,
    overwrite: bool,
    opts: &CreateOptions,
) -> Result<serde_json::Value, Error> {
    let arena = Arena::new();
    let o = doc_from_serde(&arena, original, "original")?;
    let m = doc_from_serde(&arena, modified, "modified")?;
    let c = doc_from_serde(&arena, current, "current")?;
    let cursor = resolve_cursor(&[schema], ty, &[m, o, c])?;
    value_to_serde(&engine::create_three_way(
        &arena, o, m, c, cursor, overwrite, opts,
    )?)
}

/// [`create_three_way_json`] on JSON bytes (empty input counts as `{}`).
#[allow(clippy::too_many_arguments)]
pub fn create_three_way_bytes(
    original: &[u8],
    modified: &[u8],
    current: &[u8],
    schema: &Schema,
    ty: &TypeRef,
    overwrite: bool,
    opts: &CreateOptions,
) -> Result<Vec<u8>, Error> {
    let arena = Arena::new();
    let o = bytes_doc(&arena, original, Empty::IsObject, "original")?;
    let m = bytes_doc(&arena, modified, Empty::IsObject, "modified")?;
    let c = bytes_doc(&arena, current, Empty::IsObject, "current")?;
    let cursor = resolve_cursor(&[schema], ty, &[m, o, c])?;
    let r = engine::create_three_way(&arena, o, m, c, cursor, overwrite, opts)?;
    Ok(engine::to_json_string(&r).into_bytes())
}

/// Whether two patches touch the same path differently (spec §4.7).
///
/// ```
/// use serde_json::json;
/// use smpatch::{conflicts_json, CreateOptions, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let ty = TypeRef::Gvk("apps/v1/Deployment".into());
/// let l = json!({"spec": {"replicas": 2}});
/// let r = json!({"spec": {"replicas": 3}});
/// assert!(conflicts_json(&l, &r, schema, &ty, &CreateOptions::default()).unwrap());
/// ```
pub fn conflicts_json(
    left: &serde_json::Value,
    right: &serde_json::Value,
    schema: &Schema,
    ty: &TypeRef,
    opts: &CreateOptions,
) -> Result<bool, Error> {
    let arena = Arena::new();
    let l = doc_from_serde(&arena, left, "left")?;
    let r = doc_from_serde(&arena, right, "right")?;
    let cursor = resolve_cursor(&[schema], ty, &[l, r])?;
    engine::conflicts(l, r, cursor, opts)
}

/// [`conflicts_json`] on JSON bytes (empty input counts as `{}`).
pub fn conflicts_bytes(
    left: &[u8],
    right: &[u8],
    schema: &Schema,
    ty: &TypeRef,
    opts: &CreateOptions,
) -> Result<bool, Error> {
    let arena = Arena::new();
    let l = bytes_doc(&arena, left, Empty::IsObject, "left")?;
    let r = bytes_doc(&arena, right, Empty::IsObject, "right")?;
    let cursor = resolve_cursor(&[schema], ty, &[l, r])?;
    engine::conflicts(l, r, cursor, opts)
}

/// One patch equivalent to applying `first` and then `second` (serde_json
/// values), when the two do not conflict (check with [`conflicts_json`]).
/// `$patch` directives of both patches are carried through.
///
/// ```
/// use serde_json::json;
/// use smpatch::{compose_json, CreateOptions, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let ty = TypeRef::Gvk("v1/ConfigMap".into());
/// let p1 = json!({"data": {"a": "1"}});
/// let p2 = json!({"data": {"b": "2"}});
/// let p = compose_json(&p1, &p2, schema, &ty, &CreateOptions::default()).unwrap();
/// assert_eq!(p, json!({"data": {"a": "1", "b": "2"}}));
/// ```
pub fn compose_json(
    first: &serde_json::Value,
    second: &serde_json::Value,
    schema: &Schema,
    ty: &TypeRef,
    opts: &CreateOptions,
) -> Result<serde_json::Value, Error> {
    let arena = Arena::new();
    let a = doc_from_serde(&arena, first, "first")?;
    let b = doc_from_serde(&arena, second, "second")?;
    let cursor = resolve_cursor(&[schema], ty, &[a, b])?;
    value_to_serde(&engine::compose(&arena, a, b, cursor, opts)?)
}

/// [`compose_json`] on JSON bytes (empty input counts as `{}`); answers
/// compact JSON bytes with numbers written exactly as read.
///
/// ```
/// use smpatch::{compose_bytes, CreateOptions, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let p = compose_bytes(br#"{"spec":{"replicas":2}}"#, br#"{"spec":{"paused":true}}"#, schema,
///     &TypeRef::Gvk("apps/v1/Deployment".into()), &CreateOptions::default()).unwrap();
/// assert_eq!(p, br#"{"spec":{"replicas":2,"paused":true}}"#);
/// ```
pub fn compose_bytes(
    first: &[u8],
    second: &[u8],
    schema: &Schema,
    ty: &TypeRef,
    opts: &CreateOptions,
) -> Result<Vec<u8>, Error> {
    let arena = Arena::new();
    let a = bytes_doc(&arena, first, Empty::IsObject, "first")?;
    let b = bytes_doc(&arena, second, Empty::IsObject, "second")?;
    let cursor = resolve_cursor(&[schema], ty, &[a, b])?;
    let r = engine::compose(&arena, a, b, cursor, opts)?;
    Ok(engine::to_json_string(&r).into_bytes())
}
