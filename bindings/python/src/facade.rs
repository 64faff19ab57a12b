//! The one module that calls the smpatch facade (and the schema loader).
//!
//! Everything here takes and returns owned Rust data (JSON bytes, options,
//! a `&Schema`), so the callers in `lib.rs` run it without the GIL. When the
//! facade's API changes, this file is the one to adapt, with `raise()` in
//! `lib.rs` (reads `Error::name`, `path`, `message`) and the error
//! constructors of `convert.rs` (`Error::new` with a `FacadeKind`, or the
//! parser's kind as `ErrorKind::Parse`).
//!
//! Facade items used: `apply_bytes`, `create_two_way_bytes`,
//! `create_three_way_bytes` (with `ThreeWayDocs`, `OnConflict`),
//! `conflicts_bytes`, `compose_bytes`,
//! `apply_json` (bench only), `embedded_schema`, `Error` (`name`, `path`,
//! `message`, `Error::new`, `From<SchemaError>`), `ErrorKind`, `FacadeKind`,
//! `TypeRef`, `ApplyOptions` and `CreateOptions` (their `with_*` setters),
//! `Schema`. From smpatch-schema: `Schema::load_paths`, `Schema::merge`,
//! `Schema::cursor`, `SchemaError`.

use smpatch::{
    ApplyOptions, CreateOptions, ErrorKind, FacadeKind, OnConflict, Schema, ThreeWayDocs, TypeRef,
};
use std::path::PathBuf;
use std::sync::Arc;

pub(crate) use smpatch::Error;

/// The schema a call uses: the embedded Kubernetes schema, a loaded one, or
/// none (schemaless mode: objects merge, every list is atomic).
#[derive(Clone)]
pub(crate) enum SchemaRef {
    Embedded(&'static Schema),
    Loaded(Arc<Schema>),
    Schemaless,
}

/// An empty schema, for the facade's `&Schema` parameter in schemaless mode
/// (the facade never looks at it then).
static EMPTY: std::sync::OnceLock<Schema> = std::sync::OnceLock::new();

impl SchemaRef {
    fn schema(&self) -> &Schema {
        match self {
            SchemaRef::Embedded(s) => s,
            SchemaRef::Loaded(s) => s,
            SchemaRef::Schemaless => EMPTY.get_or_init(Schema::default),
        }
    }

    /// The type reference for an optional type name: a name with a `/` is a
    /// GVK (`apps/v1/Deployment`), any other a definition name; no name
    /// detects the type from `apiVersion`/`kind`.
    fn type_ref(&self, name: Option<&str>) -> TypeRef {
        match (self, name) {
            (SchemaRef::Schemaless, _) => TypeRef::Schemaless,
            (_, None) => TypeRef::Detect,
            (_, Some(n)) if n.contains('/') => TypeRef::Gvk(n.to_owned()),
            (_, Some(n)) => TypeRef::Definition(n.to_owned()),
        }
    }

    /// True when the schema defines `name` (definition or GVK).
    pub(crate) fn has_type(&self, name: &str) -> bool {
        !matches!(self, SchemaRef::Schemaless) && self.schema().cursor(name).is_some()
    }
}

/// The embedded Kubernetes schema (compiled on first use).
pub(crate) fn embedded() -> Result<SchemaRef, Error> {
    smpatch::embedded_schema().map(SchemaRef::Embedded)
}

/// Loads and merges schema files or directories (later names win); with
/// `builtin`, on top of a copy of the embedded schema.
pub(crate) fn load(paths: &[PathBuf], builtin: bool) -> Result<SchemaRef, Error> {
    let loaded = smpatch_schema::Schema::load_paths(paths).map_err(Error::from)?;
    let schema = if builtin {
        smpatch::embedded_schema()?.clone().merge(loaded)
    } else {
        loaded
    };
    Ok(SchemaRef::Loaded(Arc::new(schema)))
}

/// Options of `apply`, by their Rust names (`None` keeps the default).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ApplyArgs {
    pub fix_quirks: bool,
    pub compound_keys: bool,
    pub reject_duplicate_keys: bool,
    pub max_depth: Option<usize>,
}

impl ApplyArgs {
    fn options(&self) -> ApplyOptions {
        // The options struct is `#[non_exhaustive]`: built with its setters.
        let o = ApplyOptions::default()
            .with_fix_quirks(self.fix_quirks)
            .with_compound_keys(self.compound_keys)
            .with_reject_duplicate_keys(self.reject_duplicate_keys);
        match self.max_depth {
            Some(d) => o.with_max_depth(d),
            None => o,
        }
    }
}

/// Options of the create operations, by their Rust names.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CreateArgs {
    pub fix_quirks: bool,
    pub compound_keys: bool,
    pub ignore_changes_and_additions: bool,
    pub ignore_deletions: bool,
    pub max_depth: Option<usize>,
}

impl CreateArgs {
    fn options(&self) -> CreateOptions {
        let o = CreateOptions::default()
            .with_fix_quirks(self.fix_quirks)
            .with_compound_keys(self.compound_keys)
            .with_ignore_changes_and_additions(self.ignore_changes_and_additions)
            .with_ignore_deletions(self.ignore_deletions);
        match self.max_depth {
            Some(d) => o.with_max_depth(d),
            None => o,
        }
    }
}

/// One operation on JSON documents; the documents are in the order of the
/// Python signature.
///
/// Extension point: the union and field-set operations (`normalize`,
/// `validate`, `extract`) become variants here, with an arm in [`run`]
/// calling their facade function, and one `#[pyfunction]` in `lib.rs` that
/// passes its documents to `call` (an `Answer` variant if they answer
/// something other than a document or a bool).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Apply(ApplyArgs),
    CreateTwoWay(CreateArgs),
    CreateThreeWay { overwrite: bool, args: CreateArgs },
    Conflicts(CreateArgs),
    Compose(CreateArgs),
}

/// What an operation answers.
pub(crate) enum Answer {
    /// A document (compact JSON, numbers written as they were read).
    Json(Vec<u8>),
    /// A yes/no answer (`conflicts`).
    Bool(bool),
}

/// Runs `op` on JSON documents.
pub(crate) fn run(
    op: Op,
    docs: &[Vec<u8>],
    schema: &SchemaRef,
    type_name: Option<&str>,
) -> Result<Answer, Error> {
    let s = schema.schema();
    let ty = schema.type_ref(type_name);
    let doc = |i: usize| docs.get(i).map_or(&b""[..], Vec::as_slice);
    match op {
        Op::Apply(a) => {
            smpatch::apply_bytes(doc(0), doc(1), s, &ty, &a.options()).map(Answer::Json)
        }
        Op::CreateTwoWay(a) => {
            smpatch::create_two_way_bytes(doc(0), doc(1), s, &ty, &a.options()).map(Answer::Json)
        }
        Op::CreateThreeWay { overwrite, args } => {
            let on_conflict = if overwrite {
                OnConflict::Overwrite
            } else {
                OnConflict::Fail
            };
            smpatch::create_three_way_bytes(
                ThreeWayDocs::new(doc(0), doc(1), doc(2)),
                s,
                &ty,
                on_conflict,
                &args.options(),
            )
            .map(Answer::Json)
        }
        Op::Conflicts(a) => {
            smpatch::conflicts_bytes(doc(0), doc(1), s, &ty, &a.options()).map(Answer::Bool)
        }
        Op::Compose(a) => {
            smpatch::compose_bytes(doc(0), doc(1), s, &ty, &a.options()).map(Answer::Json)
        }
    }
}

/// Bench support: seconds per call of the Rust facade's apply on the same
/// documents, through `apply_bytes` (bytes in and out) and through
/// `apply_json` (serde_json values in and out, parsed outside the timing).
pub(crate) fn time_facade_apply(
    original: &[u8],
    patch: &[u8],
    schema: &SchemaRef,
    iterations: u32,
) -> Result<(f64, f64), Error> {
    let s = schema.schema();
    let ty = schema.type_ref(None);
    let opts = ApplyOptions::default();
    let iterations = iterations.max(1);
    let start = std::time::Instant::now();
    for _ in 0..iterations {
        std::hint::black_box(smpatch::apply_bytes(original, patch, s, &ty, &opts)?);
    }
    let bytes = start.elapsed().as_secs_f64() / f64::from(iterations);
    let parse = |b: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(b).map_err(|e| {
            Error::new(
                ErrorKind::Facade(FacadeKind::InvalidDocument),
                "",
                e.to_string(),
            )
        })
    };
    let (o, p) = (parse(original)?, parse(patch)?);
    let start = std::time::Instant::now();
    for _ in 0..iterations {
        std::hint::black_box(smpatch::apply_json(&o, &p, s, &ty, &opts)?);
    }
    let json = start.elapsed().as_secs_f64() / f64::from(iterations);
    Ok((bytes, json))
}
