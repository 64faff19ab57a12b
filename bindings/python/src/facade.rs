//! The one module that calls the smpatch facade (and the schema loader).
//!
//! Everything here takes and returns Rust data (JSON bytes, arena values,
//! options, a `&Schema`), so the callers in `lib.rs` run it without the GIL. When the
//! facade's API changes, this file is the one to adapt, with `raise()` in
//! `lib.rs` (reads `Error::name`, `path`, `message`) and the error
//! constructors of `convert.rs` (`Error::new` with a `FacadeKind`, or the
//! parser's kind as `ErrorKind::Parse`).
//!
//! Facade items used: `apply_bytes`, `create_two_way_bytes`,
//! `create_three_way_bytes` (with `ThreeWayDocs`, `OnConflict`),
//! `conflicts_bytes`, `compose_bytes`, `fields_bytes`, `extract_bytes`,
//! `owners_bytes`,
//! `ops::{Op, Outcome, run, resolve_type}` with `parse_document` and
//! `check_object` (the arena path of Python objects: [`tree_op`],
//! [`run_tree`]; and `normalize`, `server_apply` on text),
//! `validate_unions`, `UnionOptions`,
//! `fieldsets::{FieldsOptions, ExtractOptions, ApiCheck}`, `Violation`
//! (`path`, `rule`, `message`), `Error::violations`,
//! `apply_json` (bench only), `embedded_schema`, `Error` (`name`, `path`,
//! `message`, `Error::new`, `From<SchemaError>`), `ErrorKind`, `FacadeKind`,
//! `TypeRef`, `ApplyOptions` and `CreateOptions` (their `with_*` setters),
//! `Schema`. From smpatch-schema: `Schema::load_paths`, `Schema::merge`,
//! `Schema::cursor`, `SchemaError`.

use smpatch::apply_flow::ApplyPatchType;
use smpatch::fieldsets::{ApiCheck, ExtractOptions, FieldsOptions, MissingEntry};
use smpatch::ops::{self, Outcome};
use smpatch::{
    ApplyOptions, Arena, CreateOptions, ErrorKind, FacadeKind, OnConflict, Schema, ThreeWayDocs,
    TypeRef, UnionOptions, Value,
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

/// Options of `apply`, by their Rust names (`None` keeps the default);
/// `patch_type` is the patch the call merges (`server_apply`: always
/// strategic).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ApplyArgs {
    pub fix_quirks: bool,
    pub compound_keys: bool,
    pub reject_duplicate_keys: bool,
    pub max_depth: Option<usize>,
    pub patch_type: ApplyPatchType,
}

/// The patch type named `name` (`patch_type=`: `strategic`, `merge`,
/// `auto`, the names of `smpatch apply --type`); any other name is an
/// `invalid_request` error.
pub(crate) fn patch_type(name: &str) -> Result<ApplyPatchType, Error> {
    ApplyPatchType::from_name(name).ok_or_else(|| {
        Error::new(
            ErrorKind::Facade(FacadeKind::InvalidRequest),
            "",
            format!("patch_type must be {}, not {name:?}", ApplyPatchType::NAMES),
        )
    })
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

/// The union options `apply` takes besides `normalize_unions` (`None`: not
/// given). Given without `normalize_unions=True`, each is an
/// `invalid_request` error, as in the batch protocol: it would change
/// nothing.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ApplyUnionFlags {
    pub ratcheting: Option<bool>,
    pub check_enums: Option<bool>,
    pub non_discriminated_update: Option<bool>,
}

fn invalid_request(message: String) -> Error {
    Error::new(ErrorKind::Facade(FacadeKind::InvalidRequest), "", message)
}

/// The op of `apply(..., normalize_unions=...)`: the merge alone, or (with
/// `normalize_unions`) the server pipeline of `server_apply` with the
/// union options of `normalize`, by the names and defaults of the batch
/// protocol's `apply` options. The same refusals as the batch protocol: a
/// union option without `normalize_unions`, and `normalize_unions` with a
/// `patch_type` other than strategic.
pub(crate) fn apply_op(
    apply: ApplyArgs,
    normalize_unions: bool,
    flags: ApplyUnionFlags,
) -> Result<Op, Error> {
    if !normalize_unions {
        let given = [
            ("ratcheting", flags.ratcheting),
            ("check_enums", flags.check_enums),
            ("non_discriminated_update", flags.non_discriminated_update),
        ];
        if let Some((name, _)) = given.iter().find(|(_, v)| v.is_some()) {
            return Err(invalid_request(format!(
                "{name} is an option of the union pass; it needs normalize_unions=True"
            )));
        }
        return Ok(Op::Apply(apply));
    }
    if apply.patch_type != ApplyPatchType::Strategic {
        return Err(invalid_request(
            "normalize_unions merges a strategic merge patch; leave patch_type out \
             (or \"strategic\") with it"
                .to_owned(),
        ));
    }
    let d = UnionOptions::default();
    let unions = UnionArgs {
        ratcheting: flags.ratcheting.unwrap_or(d.ratcheting),
        check_enums: flags.check_enums.unwrap_or(d.check_enums),
        non_discriminated_update: flags
            .non_discriminated_update
            .unwrap_or(d.non_discriminated_update),
        max_depth: apply.max_depth,
    };
    Ok(Op::ServerApply { apply, unions })
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
    /// The options every create operation takes (the others keep their
    /// defaults).
    pub(crate) fn common(fix_quirks: bool, compound_keys: bool, max_depth: Option<usize>) -> Self {
        CreateArgs {
            fix_quirks,
            compound_keys,
            max_depth,
            ..CreateArgs::default()
        }
    }

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

/// Options of the union operations (`normalize`, `validate`,
/// `server_apply`), by the Rust names of `UnionOptions`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct UnionArgs {
    pub non_discriminated_update: bool,
    pub ratcheting: bool,
    pub check_enums: bool,
    pub max_depth: Option<usize>,
}

impl UnionArgs {
    fn options(&self) -> UnionOptions {
        let d = UnionOptions::default();
        UnionOptions {
            non_discriminated_update: self.non_discriminated_update,
            ratcheting: self.ratcheting,
            check_enums: self.check_enums,
            max_depth: self.max_depth.unwrap_or(d.max_depth),
        }
    }
}

/// Options of `fields`, by the Rust names of `FieldsOptions`; `update`
/// is `shape="update"` (`None` for `allow_duplicates`: the shape's default).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldsArgs {
    pub update: bool,
    pub strip_server_fields: bool,
    pub allow_duplicates: Option<bool>,
    pub max_depth: Option<usize>,
}

/// `shape=`: `"apply"` (false) or `"update"` (true), the names of the
/// batch protocol's `options.shape` and of `smpatch fields --shape`; any
/// other name is an `invalid_request` error.
pub(crate) fn fields_shape(name: &str) -> Result<bool, Error> {
    match name {
        "apply" => Ok(false),
        "update" => Ok(true),
        other => Err(invalid_request(format!(
            "unknown shape {other:?}; expected apply or update"
        ))),
    }
}

impl FieldsArgs {
    /// As the batch protocol and the CLI build them: `update` is the shape
    /// of an `Update` entry written on create, server fields stripped,
    /// duplicates allowed; the options given override the shape's.
    fn options(&self) -> FieldsOptions {
        let d = if self.update {
            FieldsOptions {
                strip_server_fields: true,
                ..FieldsOptions::update_on_create()
            }
        } else {
            FieldsOptions::default()
        };
        FieldsOptions {
            strip_server_fields: self.strip_server_fields,
            allow_duplicates: self.allow_duplicates.unwrap_or(d.allow_duplicates),
            max_depth: self.max_depth.unwrap_or(d.max_depth),
            ..d
        }
    }
}

/// Options of `extract`: `reference` starts from `ExtractOptions::reference()`
/// (client-go's behaviour), the others are `ExtractOptions` fields
/// (`strict_api_version` sets `api_version_check` to `Strict`).
#[derive(Clone, Debug)]
pub(crate) struct ExtractArgs {
    pub manager: String,
    pub subresource: String,
    pub reference: bool,
    pub strict_api_version: bool,
    pub include_key_fields: bool,
    pub validate: bool,
    pub max_depth: Option<usize>,
    /// `missing_entry=` (`None`: the default of `reference` or not).
    pub missing_entry: Option<MissingEntry>,
}

/// `missing_entry=`: `"error"` or `"identity"`, the names of the batch
/// protocol's `options.missing_entry`; any other is `invalid_request`.
pub(crate) fn missing_entry(name: &str) -> Result<MissingEntry, Error> {
    match name {
        "error" => Ok(MissingEntry::Error),
        "identity" => Ok(MissingEntry::IdentityOnly),
        other => Err(invalid_request(format!(
            "unknown missing_entry {other:?}; expected error or identity"
        ))),
    }
}

impl ExtractArgs {
    fn options(&self) -> ExtractOptions {
        let d = if self.reference {
            ExtractOptions::reference()
        } else {
            ExtractOptions::default()
        };
        ExtractOptions {
            subresource: self.subresource.clone(),
            api_version_check: if self.strict_api_version {
                ApiCheck::Strict
            } else {
                ApiCheck::Ignore
            },
            include_key_fields: self.include_key_fields,
            validate: self.validate,
            max_depth: self.max_depth.unwrap_or(d.max_depth),
            missing_entry: self.missing_entry.unwrap_or(d.missing_entry),
            ..d
        }
    }
}

/// One operation on JSON documents; the documents are in the order of the
/// Python signature.
///
/// Extension point: a new operation becomes a variant here, with an arm in
/// [`run`] calling its facade function, and one `#[pyfunction]` in `lib.rs`
/// that passes its documents to `call` (an `Answer` variant if it answers
/// something other than a document, a bool, a normalized object or
/// violations).
#[derive(Clone, Debug)]
pub(crate) enum Op {
    Apply(ApplyArgs),
    CreateTwoWay(CreateArgs),
    CreateThreeWay {
        overwrite: bool,
        args: CreateArgs,
        patch_type: ApplyPatchType,
    },
    Conflicts(CreateArgs),
    Compose(CreateArgs),
    /// `new`, then `old` when `has_old` (without it, `new` is being created).
    Normalize {
        args: UnionArgs,
        has_old: bool,
    },
    /// `new`, then `old` when `has_old`.
    Validate {
        args: UnionArgs,
        has_old: bool,
    },
    ServerApply {
        apply: ApplyArgs,
        unions: UnionArgs,
    },
    Fields(FieldsArgs),
    Extract(ExtractArgs),
}

impl Op {
    /// The call's `max_depth` option (`None`: the default).
    pub(crate) fn max_depth(&self) -> Option<usize> {
        match self {
            Op::Apply(a) => a.max_depth,
            Op::ServerApply { apply, .. } => apply.max_depth,
            Op::CreateTwoWay(a)
            | Op::CreateThreeWay { args: a, .. }
            | Op::Conflicts(a)
            | Op::Compose(a) => a.max_depth,
            Op::Normalize { args, .. } | Op::Validate { args, .. } => args.max_depth,
            Op::Fields(a) => a.max_depth,
            Op::Extract(a) => a.max_depth,
        }
    }

    /// The patch type of `apply` and `create_three_way` (strategic for
    /// every other call).
    pub(crate) fn patch_type(&self) -> ApplyPatchType {
        match self {
            Op::Apply(a) => a.patch_type,
            Op::CreateThreeWay { patch_type, .. } => *patch_type,
            _ => ApplyPatchType::Strategic,
        }
    }
}

/// One union or enum violation: JSON pointer, rule name (`V1`…`V5`,
/// `enum`), message.
pub(crate) type ViolationParts = (String, &'static str, String);

/// What an operation answers.
pub(crate) enum Answer {
    /// A document (compact JSON, numbers written as they were read).
    Json(Vec<u8>),
    /// A yes/no answer (`conflicts`).
    Bool(bool),
    /// A normalized object (compact JSON) and the pointers of the members
    /// normalization cleared (`normalize`, `server_apply`).
    Normalized(Vec<u8>, Vec<String>),
    /// Every violation found (`validate`; empty when valid).
    Violations(Vec<ViolationParts>),
}

/// The violations of a facade error (empty unless its kind is `validation`).
pub(crate) fn violations(e: &Error) -> Vec<ViolationParts> {
    e.violations()
        .iter()
        .map(|v| (v.path.clone(), v.rule.name(), v.message.clone()))
        .collect()
}

/// Parses a call's documents (JSON or YAML, numbers exact) into `arena`,
/// each named by its role in `op`.
fn parse_documents<'a>(
    arena: &'a Arena,
    op: &ops::Op,
    docs: &[&'a [u8]],
) -> Result<Vec<smpatch_value::Value<'a>>, Error> {
    docs.iter()
        .zip(op.roles())
        .map(|(d, what)| smpatch::parse_document(arena, d, op, what))
        .collect()
}

/// Runs a union operation through the facade's pipeline on the arena:
/// parses the documents (JSON or YAML, numbers exact), runs `op`, writes
/// the normalized object back as compact JSON.
fn run_normalizing(
    op: &ops::Op,
    docs: &[&[u8]],
    schema: &Schema,
    ty: &TypeRef,
) -> Result<Answer, Error> {
    let arena = Arena::new();
    let mut values = parse_documents(&arena, op, docs)?;
    if values.len() < op.roles().len() {
        // `normalize` on create: the facade ignores the stored object.
        values.push(Value::empty_object());
    }
    match ops::run(&arena, op, &values, &[schema], ty)? {
        Outcome::Normalized { value, cleared } => Ok(Answer::Normalized(
            smpatch_value::to_json_string(&value).into_bytes(),
            cleared,
        )),
        other => Ok(Answer::Json(
            smpatch_value::to_json_string(&other.into_value()).into_bytes(),
        )),
    }
}

/// Every union and enum violation of `new`, judged against `old` (`None`
/// on create); nothing is normalized.
fn run_validate(
    new: &[u8],
    old: Option<&[u8]>,
    schema: &Schema,
    ty: &TypeRef,
    opts: UnionOptions,
) -> Result<Answer, Error> {
    let arena = Arena::new();
    let op = ops::Op::Normalize {
        options: opts.clone(),
        create: old.is_none(),
    };
    let n = smpatch::parse_document(&arena, new, &op, "new")?;
    let o = old
        .map(|o| smpatch::parse_document(&arena, o, &op, "old"))
        .transpose()?;
    let docs = [n, o.unwrap_or(Value::empty_object())];
    let cursor = ops::resolve_type(&op, &[schema], ty, &docs)?;
    let found = smpatch::validate_unions(o, n, cursor, &opts)?;
    Ok(Answer::Violations(
        found
            .into_iter()
            .map(|v| (v.path, v.rule.name(), v.message))
            .collect(),
    ))
}

/// Runs `apply` or `create_three_way` with a `patch_type` other than
/// strategic on JSON documents: parsed into the arena, the op chosen for
/// the patch type (`auto` reads the documents' `apiVersion`/`kind`), the
/// answer written back as compact JSON.
fn run_patch_type(
    op: &ops::Op,
    patch_type: ApplyPatchType,
    docs: &[&[u8]],
    schema: &Schema,
    ty: &TypeRef,
) -> Result<Answer, Error> {
    let arena = Arena::new();
    let values = parse_documents(&arena, op, docs)?;
    let op = op.clone().with_patch_type(patch_type, &values);
    let out = ops::run(&arena, &op, &values, &[schema], ty)?;
    Ok(Answer::Json(
        smpatch_value::to_json_string(&out.into_value()).into_bytes(),
    ))
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
    if op.patch_type() != ApplyPatchType::Strategic {
        if let Some(tree) = tree_op(&op) {
            let texts: Vec<&[u8]> = (0..tree.roles().len()).map(doc).collect();
            return run_patch_type(&tree, op.patch_type(), &texts, s, &ty);
        }
    }
    match op {
        Op::Apply(a) => {
            smpatch::apply_bytes(doc(0), doc(1), s, &ty, &a.options()).map(Answer::Json)
        }
        Op::CreateTwoWay(a) => {
            smpatch::create_two_way_bytes(doc(0), doc(1), s, &ty, &a.options()).map(Answer::Json)
        }
        Op::CreateThreeWay {
            overwrite, args, ..
        } => {
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
        Op::Normalize { args, has_old } => {
            let op = ops::Op::Normalize {
                options: args.options(),
                create: !has_old,
            };
            let docs: &[&[u8]] = if has_old {
                &[doc(0), doc(1)]
            } else {
                &[doc(0)]
            };
            run_normalizing(&op, docs, s, &ty)
        }
        Op::Validate { args, has_old } => {
            run_validate(doc(0), has_old.then(|| doc(1)), s, &ty, args.options())
        }
        Op::ServerApply { apply, unions } => {
            let op = ops::Op::ServerApply {
                apply: apply.options(),
                unions: unions.options(),
            };
            run_normalizing(&op, &[doc(0), doc(1)], s, &ty)
        }
        Op::Fields(a) => smpatch::fields_bytes(doc(0), s, &ty, &a.options()).map(Answer::Json),
        Op::Extract(a) => {
            smpatch::extract_bytes(doc(0), s, &ty, &a.manager, &a.options()).map(Answer::Json)
        }
    }
}

/// The owners table of a live object (`owners`): compact JSON bytes.
/// `max_depth`: the call's option (`None`: the default 256).
pub(crate) fn owners(object: &[u8], max_depth: Option<usize>) -> Result<Vec<u8>, Error> {
    match max_depth {
        Some(d) => smpatch::owners_bytes_with(object, d),
        None => smpatch::owners_bytes(object),
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

/// What an operation answers on the arena (the path for Python objects:
/// no JSON text between the caller's objects and the engine).
pub(crate) enum TreeAnswer<'a> {
    /// A document.
    Document(Value<'a>),
    /// A yes/no answer (`conflicts`).
    Bool(bool),
    /// A normalized object and the pointers normalization cleared.
    Normalized(Value<'a>, Vec<String>),
}

/// The engine operation of `op` when this binding runs it on arena values;
/// `None` for the operations it runs on bytes only (`validate`, `fields`,
/// `extract`: they read text their own way or answer something else).
pub(crate) fn tree_op(op: &Op) -> Option<ops::Op> {
    Some(match op {
        Op::Apply(a) => ops::Op::Apply(a.options()),
        Op::CreateTwoWay(a) => ops::Op::Create2(a.options()),
        Op::CreateThreeWay {
            overwrite, args, ..
        } => ops::Op::Create3 {
            options: args.options(),
            overwrite: *overwrite,
        },
        Op::Conflicts(a) => ops::Op::Conflicts(a.options()),
        Op::Compose(a) => ops::Op::Compose(a.options()),
        Op::Normalize { args, has_old } => ops::Op::Normalize {
            options: args.options(),
            create: !has_old,
        },
        Op::ServerApply { apply, unions } => ops::Op::ServerApply {
            apply: apply.options(),
            unions: unions.options(),
        },
        Op::Validate { .. } | Op::Fields(_) | Op::Extract(_) => return None,
    })
}

/// Reads a JSON text document into the arena as the bytes API does (the
/// operation's depth limit, empty text as the operation takes it, the top
/// level checked).
pub(crate) fn read_text<'a>(
    arena: &'a Arena,
    text: &'a [u8],
    op: &ops::Op,
    what: &str,
) -> Result<Value<'a>, Error> {
    smpatch::parse_document(arena, text, op, what)
}

/// Checks the top level of a document built from Python objects as the
/// bytes API checks parsed ones (`null` is `{}`, anything else but an
/// object is `invalid_document`).
pub(crate) fn check_object<'a>(value: Value<'a>, what: &str) -> Result<Value<'a>, Error> {
    smpatch::check_object(value, what)
}

/// Runs `op` (from [`tree_op`]) on documents already in the arena, in the
/// order of the Python signature (`normalize` without `old`: one), as the
/// JSON merge patch op when `patch_type` says so ([`Op::patch_type`]).
pub(crate) fn run_tree<'a>(
    arena: &'a Arena,
    op: &ops::Op,
    patch_type: ApplyPatchType,
    mut docs: Vec<Value<'a>>,
    schema: &SchemaRef,
    type_name: Option<&str>,
) -> Result<TreeAnswer<'a>, Error> {
    if docs.len() < op.roles().len() {
        // `normalize` on create: the facade ignores the stored object.
        docs.push(Value::empty_object());
    }
    let op = &op.clone().with_patch_type(patch_type, &docs);
    let ty = schema.type_ref(type_name);
    Ok(match ops::run(arena, op, &docs, &[schema.schema()], &ty)? {
        Outcome::Conflicts(b) => TreeAnswer::Bool(b),
        Outcome::Normalized { value, cleared } => TreeAnswer::Normalized(value, cleared),
        other => TreeAnswer::Document(other.into_value()),
    })
}
