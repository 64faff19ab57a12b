//! smpatch: strategic merge patch for Kubernetes-style objects.
//!
//! Owns: the public facade (serde_json and bytes in, serde_json and bytes
//! out) over the arena crates, the pipeline every entry point shares
//! ([`ops`]), the typed [`Error`], batch mode (the machine interface,
//! [`batch`]), union normalization and validation (KEP-1027/KEP-2887,
//! [`server_apply_json`], [`normalize_json`], [`validate_json`]) and field
//! sets (KEP-2155, [`fields_json`], [`extract_json`], [`owners_json`]).
//! The `smpatch` command-line tool lives in `crates/cli`.
//!
//! Must not: hold merge or diff logic of its own, or depend on CLI crates
//! (clap) or JSON-patch crates.
//!
//! # Start here
//!
//! Every call takes a [`Schema`] ([`embedded_schema`] for the built-in
//! Kubernetes types; [`schema_set`] adds CRD or OpenAPI files), a
//! [`TypeRef`] ([`TypeRef::Detect`] reads `apiVersion`/`kind`) and its
//! options (`Default` is the Go reference's behaviour). Each comes in a
//! `_json` form (`serde_json::Value`) and a `_bytes` form (JSON bytes in,
//! compact JSON bytes out, numbers exactly as written).
//!
//! | You want | Call |
//! |---|---|
//! | the API server's merge of a patch (`kubectl patch`) | [`apply_json`], [`apply_bytes`] |
//! | the patch between two versions (`kubectl edit`) | [`create_two_way_json`] |
//! | `kubectl apply`'s three-way patch | [`create_three_way_json`] with [`ThreeWayDocs`] and [`OnConflict`] |
//! | the whole `kubectl apply` flow (last-applied annotation, merge, `configured`) | [`apply_flow::client_apply_json`] |
//! | `kubectl apply` of a custom resource (three-way JSON merge patch) | the same with [`apply_flow::ApplyPatchType::Merge`]; [`json_merge`] |
//! | whether two patches conflict; one patch for two | [`conflicts_json`], [`compose_json`] |
//! | unions (KEP-1027) and enums (KEP-2887) | [`server_apply_json`], [`normalize_json`], [`validate_json`] |
//! | field sets and extract (KEP-2155) | [`fields_json`], [`extract_json`], [`owners_json`] |
//! | answer requests from another program | [`batch`] (what `smpatch batch` runs) |
//!
//! # Errors
//!
//! Every call answers one [`Error`]: [`Error::name`] is the stable kind
//! (`docs/ERRORS.md` lists them all), [`Error::path`] the JSON pointer of
//! the culprit, [`Error::message`] what to fix. Its `Display` is
//! `<pointer>: <message>`; a `main` that returns `Result<_, smpatch::Error>`
//! prints the `Debug` form instead (`Error { kind, path, message }`), so print
//! it yourself for one line:
//!
//! ```
//! use serde_json::json;
//! use smpatch::{apply_json, ApplyOptions, TypeRef};
//!
//! let schema = smpatch::embedded_schema().unwrap();
//! let live = json!({"apiVersion": "apps/v1", "kind": "Deployment",
//!     "spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}}});
//! // A container without its merge key "name".
//! let patch = json!({"spec": {"template": {"spec": {"containers": [{"image": "nginx:1.27"}]}}}});
//! let e = apply_json(&live, &patch, schema, &TypeRef::Detect, &ApplyOptions::default())
//!     .unwrap_err();
//! assert_eq!(e.name(), "missing_merge_key");
//! assert_eq!(e.path(), "/spec/template/spec/containers/0");
//! let line = format!("error: {e} [{}]", e.name());
//! assert!(line.starts_with("error: /spec/template/spec/containers/0: patch element has no merge key \"name\""));
//! ```
//!
//! The `smpatch` command-line tool and the runnable programs of
//! `examples/` (`cargo run -p smpatch-examples --example apply_patch`) use
//! the same calls.
//!
//! # Key order
//!
//! The `*_bytes` functions keep members in document order. The `*_json`
//! functions take and give `serde_json::Value`, whose maps keep insertion
//! order only when your build turns on serde_json's `preserve_order`
//! feature; smpatch does not turn it on for you, so without it the members
//! come out with sorted keys (as Go's `encoding/json` writes them). The
//! patches and merged objects are the same either way; only member order
//! differs.
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

pub mod apply_flow;
pub mod batch;
mod error;
mod fields;
mod input;
#[cfg(feature = "k8s-openapi")]
pub mod k8s;
pub mod ops;
mod unions;

pub use error::{Error, ErrorKind, FacadeKind};
pub use fields::{extract_bytes, extract_json, fields_bytes, fields_json, owners_json};
pub use fields::{owners_bytes, owners_bytes_with};
pub use input::{check_object, looks_like_json, parse_document};
/// Field sets and apply configurations (KEP-2155): the `smpatch-fieldsets` crate.
pub use smpatch_fieldsets as fieldsets;
pub use smpatch_fieldsets::ErrorKind as FieldsErrorKind;
pub use smpatch_patch_apply::{ApplyOptions, ErrorKind as PatchErrorKind};
/// RFC 7386 JSON merge patches on arena values (kubectl's patch type for
/// custom resources): merge, two-way and the three-way `kubectl apply` patch.
pub use smpatch_patch_create::json_merge;
pub use smpatch_patch_create::{CreateOptions, OnConflict};
pub use smpatch_schema::{Cursor, LoadOptions, Schema, SchemaErrorKind};
pub use smpatch_union_normalize::ErrorKind as UnionErrorKind;
pub use smpatch_value::{Arena, ParseErrorKind, Value};
pub use unions::{
    normalize_and_validate, normalize_json, server_apply, server_apply_json, validate_json,
    validate_unions, Normalized, NormalizedJson, PipelineError, Rule, UnionOptions, Violation,
};

use input::{parse_options, read_document};
use ops::{Op, Outcome};
use smpatch_value::{from_serde, to_json_string, to_serde, write_json};

/// The depth limit every entry point uses unless told otherwise: the
/// engines' default `max_depth` (`ApplyOptions::default().max_depth`).
pub const DEFAULT_MAX_DEPTH: usize = smpatch_patch_create::DEFAULT_MAX_DEPTH;

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
    smpatch_schema::embedded_checked().map_err(|e| Error::from(e.clone()))
}

/// Loads a schema from a file or directory: OpenAPI v2/v3 JSON or CRD YAML.
pub fn load_schema(path: impl AsRef<std::path::Path>) -> Result<Schema, Error> {
    Schema::load_path(path.as_ref()).map_err(Error::from)
}

/// A schema set: the embedded Kubernetes schema with each file or directory
/// of `paths` (OpenAPI v2/v3 JSON, CRD YAML) layered over it, in order. A
/// type defined again wins over the embedded one and over earlier files
/// (same name or same group/version/kind); types already compiled keep
/// their own references. This is what the CLI's `--schema` flags build.
///
/// ```
/// use serde_json::json;
/// use smpatch::{apply_json, ApplyOptions, TypeRef};
/// let set = smpatch::schema_set(&["../../testdata/schemas/widget.v2.json"]).unwrap();
/// // The file's types and the built-in ones, in one schema.
/// let ty = TypeRef::Definition("Widget".into());
/// let live = json!({"items": [{"id": "a", "v": 1}, {"id": "b"}]});
/// let patch = json!({"items": [{"id": "a", "w": 2}]});
/// let out = apply_json(&live, &patch, &set, &ty, &ApplyOptions::default()).unwrap();
/// assert_eq!(out, json!({"items": [{"id": "a", "v": 1, "w": 2}, {"id": "b"}]}));
/// assert!(set.cursor("apps/v1/Deployment").is_some());
/// ```
pub fn schema_set<P: AsRef<std::path::Path>>(paths: &[P]) -> Result<Schema, Error> {
    schema_set_with(paths, &LoadOptions::default())
}

/// [`schema_set`] with explicit reading limits for the files (each file is
/// held to them on its own).
pub fn schema_set_with<P: AsRef<std::path::Path>>(
    paths: &[P],
    opts: &LoadOptions,
) -> Result<Schema, Error> {
    let files = Schema::load_paths_with(paths, opts)?;
    Ok(embedded_schema()?.clone().merge(files))
}

/// An input document of the facade: a `serde_json::Value` or JSON bytes.
trait Input {
    /// Reads the document named `what` for `op` into `arena`.
    fn read<'a>(&'a self, arena: &'a Arena, op: &Op, what: &str) -> Result<Value<'a>, Error>;

    /// The document's size in bytes when it is text (0 otherwise): sizes
    /// the call's arena ([`arena_for`]) and the output buffer of operations
    /// whose result is about as large as their inputs.
    fn text_len(&self) -> usize {
        0
    }
}

impl Input for serde_json::Value {
    fn read<'a>(&'a self, arena: &'a Arena, op: &Op, what: &str) -> Result<Value<'a>, Error> {
        let depth = parse_options(op.max_depth()).max_depth;
        let value = from_serde(arena, self, depth).map_err(|e| {
            Error::facade(
                FacadeKind::TooDeep,
                e.path.clone(),
                format!("{what}: {}", e.message),
            )
        })?;
        check_object(value, what)
    }
}

impl Input for [u8] {
    fn read<'a>(&'a self, arena: &'a Arena, op: &Op, what: &str) -> Result<Value<'a>, Error> {
        let opts = parse_options(op.max_depth());
        read_document(arena, self, op.empty(), false, what, &opts)
    }

    fn text_len(&self) -> usize {
        self.len()
    }
}

/// An output of the facade, built from the engine's result.
trait Output: Sized {
    fn from_value(v: &Value<'_>) -> Result<Self, Error>;

    /// [`Output::from_value`] for a result of about `size_hint` bytes of
    /// JSON (a hint: any value is correct).
    fn from_value_sized(v: &Value<'_>, size_hint: usize) -> Result<Self, Error> {
        let _ = size_hint;
        Self::from_value(v)
    }
}

impl Output for serde_json::Value {
    fn from_value(v: &Value<'_>) -> Result<Self, Error> {
        to_serde(v).map_err(|e| {
            Error::facade(
                FacadeKind::UnrepresentableNumber,
                e.path.clone(),
                format!("{}; use the bytes API to keep such numbers", e.message),
            )
        })
    }
}

impl Output for Vec<u8> {
    fn from_value(v: &Value<'_>) -> Result<Self, Error> {
        Ok(to_json_string(v).into_bytes())
    }

    fn from_value_sized(v: &Value<'_>, size_hint: usize) -> Result<Self, Error> {
        // One buffer of about the final size: the writer never moves what
        // it wrote (on a 143 KB merge result, ~18 reallocations otherwise).
        let mut out = String::with_capacity(size_hint);
        write_json(&mut out, v);
        Ok(out.into_bytes())
    }
}

/// The facade pipeline: read each document, run `op`, hand the outcome to
/// `finish`.
fn pipeline<I: Input + ?Sized, R>(
    op: Op,
    docs: &[&I],
    schema: &Schema,
    ty: &TypeRef,
    finish: impl FnOnce(Outcome<'_>) -> Result<R, Error>,
) -> Result<R, Error> {
    let arena = arena_for(&op, docs);
    let values = docs
        .iter()
        .zip(op.roles())
        .map(|(d, what)| d.read(&arena, &op, what))
        .collect::<Result<Vec<_>, _>>()?;
    finish(ops::run(&arena, &op, &values, &[schema], ty)?)
}

/// The arena of one facade call, sized from the input text so that a
/// typical call fits in its first chunk. An arena that starts small doubles
/// its chunks as it fills; the chunks of earlier sizes stay allocated, so
/// the peak can reach twice what is used (create2 on a 143 KB Deployment
/// used 524 KB and held 1,047 KB). A parsed document takes 1.6 to 2.3 bytes
/// of arena per byte of compact JSON; a merge also builds a result about
/// the size of the patch's changes, so apply counts the patch more. Inputs
/// without text (serde_json values) start small. docs/BENCHMARKS.md,
/// "streaming and memory (this round)", has the measurements.
///
/// The first chunk is at most [`ARENA_FIRST_CHUNK_MAX`] (bigger inputs grow
/// the arena as they parse, and an input over the parser's size limit is
/// refused by the parser, not reserved for here), and a refused allocation
/// falls back to a small arena.
fn arena_for<I: Input + ?Sized>(op: &Op, docs: &[&I]) -> Arena {
    let limit = parse_options(op.max_depth()).max_input_bytes;
    let text = |d: &&I| d.text_len().min(limit);
    let bytes = match op {
        Op::Apply(_) | Op::ServerApply { .. } => {
            let (first, rest) = docs.split_first().map_or((0, 0), |(f, r)| {
                (text(f), r.iter().map(text).sum::<usize>())
            });
            first.saturating_mul(9) / 4 + rest.saturating_mul(15) / 4
        }
        _ => docs.iter().map(text).sum::<usize>().saturating_mul(9) / 4,
    };
    if bytes == 0 {
        Arena::new()
    } else {
        // Small inputs still get one page-sized chunk to grow from.
        let first = bytes.saturating_add(4096).min(ARENA_FIRST_CHUNK_MAX);
        Arena::try_with_capacity(first).unwrap_or_default()
    }
}

/// The largest first chunk [`arena_for`] reserves: 64 MiB, room for about
/// 28 MB of input.
const ARENA_FIRST_CHUNK_MAX: usize = 64 << 20;

/// [`pipeline`] for operations that answer a document.
fn document<I: Input + ?Sized, O: Output>(
    op: Op,
    docs: &[&I],
    schema: &Schema,
    ty: &TypeRef,
) -> Result<O, Error> {
    // A merge result is about as large as its two inputs together; a
    // patch is usually small, so other operations start from nothing.
    let size_hint = match op {
        Op::Apply(_) | Op::ServerApply { .. } => docs.iter().map(|d| d.text_len()).sum::<usize>(),
        _ => 0,
    };
    pipeline(op, docs, schema, ty, |out| {
        O::from_value_sized(&out.into_value(), size_hint)
    })
}

/// [`pipeline`] for [`Op::Conflicts`].
fn conflicts<I: Input + ?Sized>(
    docs: &[&I],
    schema: &Schema,
    ty: &TypeRef,
    opts: &CreateOptions,
) -> Result<bool, Error> {
    pipeline(Op::Conflicts(opts.clone()), docs, schema, ty, |out| {
        Ok(out == Outcome::Conflicts(true))
    })
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
    document(Op::Apply(opts.clone()), &[original, patch], schema, ty)
}

/// Merges a patch into an object given as JSON bytes; answers compact JSON
/// bytes, every number written exactly as it was read.
///
/// Empty input is an `invalid_document` error (as the reference's
/// `StrategicMergePatch`); `null` counts as `{}`.
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
    document(Op::Apply(opts.clone()), &[original, patch], schema, ty)
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
    document(Op::Create2(opts.clone()), &[original, modified], schema, ty)
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
    document(Op::Create2(opts.clone()), &[original, modified], schema, ty)
}

/// The three documents of a three-way patch ([`create_three_way_json`],
/// [`create_three_way_bytes`]); `T` is `serde_json::Value` or `[u8]`.
#[derive(Debug)]
pub struct ThreeWayDocs<'d, T: ?Sized> {
    /// The last applied configuration.
    pub original: &'d T,
    /// The new configuration.
    pub modified: &'d T,
    /// The live object.
    pub current: &'d T,
}

impl<'d, T: ?Sized> ThreeWayDocs<'d, T> {
    /// The documents in kubectl's order: last applied, new, live.
    pub fn new(original: &'d T, modified: &'d T, current: &'d T) -> Self {
        ThreeWayDocs {
            original,
            modified,
            current,
        }
    }
}

impl<T: ?Sized> Clone for ThreeWayDocs<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for ThreeWayDocs<'_, T> {}

/// The three-way patch of `kubectl apply` (serde_json values): `original` is
/// the last applied configuration, `modified` the new one, `current` the
/// live object. With [`OnConflict::Fail`], changes made on the server that
/// the patch would undo are a `conflict` error; [`OnConflict::Overwrite`]
/// (`kubectl apply --overwrite`) returns the patch anyway. The whole kubectl
/// flow (annotation, namespace, merge) is [`apply_flow`].
///
/// ```
/// use serde_json::json;
/// use smpatch::{create_three_way_json, CreateOptions, OnConflict, ThreeWayDocs, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let ty = TypeRef::Gvk("v1/ConfigMap".into());
/// let o = json!({"data": {"a": "1", "b": "2"}});
/// let m = json!({"data": {"a": "1"}});
/// let c = json!({"data": {"a": "1", "b": "2", "c": "3"}});
/// let docs = ThreeWayDocs::new(&o, &m, &c);
/// let patch = create_three_way_json(docs, schema, &ty, OnConflict::Overwrite, &CreateOptions::default()).unwrap();
/// assert_eq!(patch, json!({"data": {"b": null}}));
/// ```
pub fn create_three_way_json(
    docs: ThreeWayDocs<'_, serde_json::Value>,
    schema: &Schema,
    ty: &TypeRef,
    on_conflict: OnConflict,
    opts: &CreateOptions,
) -> Result<serde_json::Value, Error> {
    let op = Op::Create3 {
        options: opts.clone(),
        overwrite: on_conflict == OnConflict::Overwrite,
    };
    document(
        op,
        &[docs.original, docs.modified, docs.current],
        schema,
        ty,
    )
}

/// [`create_three_way_json`] on JSON bytes (empty input counts as `{}`);
/// answers compact JSON bytes with numbers written exactly as read.
///
/// ```
/// use smpatch::{create_three_way_bytes, CreateOptions, OnConflict, ThreeWayDocs, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let docs = ThreeWayDocs::new(&br#"{"spec":{"replicas":1}}"#[..], br#"{"spec":{"replicas":2}}"#, br#"{"spec":{"replicas":3}}"#);
/// let ty = TypeRef::Gvk("apps/v1/Deployment".into());
/// let e = create_three_way_bytes(docs, schema, &ty, OnConflict::Fail, &CreateOptions::default()).unwrap_err();
/// assert_eq!(e.name(), "conflict");
/// let p = create_three_way_bytes(docs, schema, &ty, OnConflict::Overwrite, &CreateOptions::default()).unwrap();
/// assert_eq!(p, br#"{"spec":{"replicas":2}}"#);
/// ```
pub fn create_three_way_bytes(
    docs: ThreeWayDocs<'_, [u8]>,
    schema: &Schema,
    ty: &TypeRef,
    on_conflict: OnConflict,
    opts: &CreateOptions,
) -> Result<Vec<u8>, Error> {
    let op = Op::Create3 {
        options: opts.clone(),
        overwrite: on_conflict == OnConflict::Overwrite,
    };
    document(
        op,
        &[docs.original, docs.modified, docs.current],
        schema,
        ty,
    )
}

/// Whether two patches touch the same path differently (the reference's
/// `MergingMapsHaveConflicts`; quirks Q18/Q19 in docs/QUIRKS.md).
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
    conflicts(&[left, right], schema, ty, opts)
}

/// [`conflicts_json`] on JSON bytes (empty input counts as `{}`).
pub fn conflicts_bytes(
    left: &[u8],
    right: &[u8],
    schema: &Schema,
    ty: &TypeRef,
    opts: &CreateOptions,
) -> Result<bool, Error> {
    conflicts(&[left, right], schema, ty, opts)
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
    document(Op::Compose(opts.clone()), &[first, second], schema, ty)
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
    document(Op::Compose(opts.clone()), &[first, second], schema, ty)
}

#[cfg(test)]
mod arena_tests {
    use super::*;

    /// The facade's arena starts with room for what parsing the input
    /// text takes (about 2 bytes per byte) plus the operation, in one
    /// chunk, so a typical call never doubles its way up; values without
    /// text start small.
    #[test]
    fn the_facade_arena_is_sized_from_the_input_text() {
        let doc = vec![b' '; 100_000];
        let small = vec![b' '; 1_000];
        let c2 = arena_for::<[u8]>(&Op::Create2(CreateOptions::default()), &[&doc, &doc]);
        assert!(c2.allocated_bytes() >= 450_000, "{c2:?}");
        assert!(c2.allocated_bytes() < 600_000, "{c2:?}");
        // Apply counts the patch more: its merge builds a result about the
        // size of the patch's changes.
        let apply = Op::Apply(ApplyOptions::default());
        let a = arena_for::<[u8]>(&apply, &[&doc, &small]);
        assert!(a.allocated_bytes() >= 225_000 + 3_750, "{a:?}");
        let v = serde_json::json!({"a": 1});
        let none = arena_for::<serde_json::Value>(&apply, &[&v, &v]);
        assert_eq!(none.allocated_bytes(), 0);
    }

    /// A document that only claims a size.
    struct Claims(usize);

    impl Input for Claims {
        fn read<'a>(&'a self, _: &'a Arena, _: &Op, _: &str) -> Result<Value<'a>, Error> {
            unimplemented!("only sized")
        }

        fn text_len(&self) -> usize {
            self.0
        }
    }

    /// Huge inputs (over the parser's limit, or near `usize::MAX`) reserve
    /// at most the capped first chunk instead of asking the allocator for
    /// a multiple of their size (which would abort when refused).
    #[test]
    fn huge_inputs_reserve_a_capped_first_chunk() {
        let apply = Op::Apply(ApplyOptions::default());
        for len in [1 << 30, 4 << 30, usize::MAX / 2, usize::MAX] {
            let (a, b) = (Claims(len), Claims(len));
            let arena = arena_for::<Claims>(&apply, &[&a, &b]);
            assert!(
                arena.allocated_bytes() <= ARENA_FIRST_CHUNK_MAX + 4096,
                "{len}: {}",
                arena.allocated_bytes()
            );
        }
    }
}
