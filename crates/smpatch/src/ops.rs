//! The pipeline, written once: documents → type → engine → result.
//!
//! Every entry point (the `*_json` and `*_bytes` functions, batch mode, the
//! CLI) reads its documents its own way, then calls [`run`]: it finds the
//! schema type ([`TypeRef`]) from the documents in the operation's order and
//! calls the engine crate. This is the only module that calls
//! smpatch-patch-apply and smpatch-patch-create; union normalization and
//! field sets run from here too (through `unions.rs`, and
//! smpatch-fieldsets directly), except `validate_json`/`validate_unions`
//! (no merge, no op) and `owners` (no schema).
//!
//! Adding an operation: a variant of [`Op`] (holding its options), its
//! document names in [`Op::roles`], the order its type is detected from in
//! `Op::detect_order`, its depth limit in [`Op::max_depth`], and one arm
//! in [`execute`]; then the facade function, a batch `op` name and a CLI
//! command that build the `Op`.
//!
//! ```
//! use smpatch::ops::{run, Op, Outcome};
//! use smpatch::{parse_document, ApplyOptions, Arena, TypeRef};
//! let arena = Arena::new();
//! let op = Op::Apply(ApplyOptions::default());
//! let o = parse_document(&arena, br#"{"a":{"b":1}}"#, &op, "original").unwrap();
//! let p = parse_document(&arena, br#"{"a":{"c":2}}"#, &op, "patch").unwrap();
//! let out = run(&arena, &op, &[o, p], &[], &TypeRef::Schemaless).unwrap();
//! let Outcome::Document(v) = out else { unreachable!() };
//! assert_eq!(smpatch_value::to_json_string(&v), r#"{"a":{"b":1,"c":2}}"#);
//! ```

use crate::error::FacadeKind;
use crate::input::{resolve_cursor, Empty};
use crate::{Error, TypeRef};
use smpatch_fieldsets::{ExtractOptions, FieldSet, FieldsOptions};
use smpatch_patch_apply::ApplyOptions;
use smpatch_patch_create::CreateOptions;
use smpatch_schema::{Cursor, Schema};
use smpatch_union_normalize::Options as UnionOptions;
use smpatch_value::{Arena, Value};

/// One operation with its options.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Merge `patch` into `original`.
    Apply(ApplyOptions),
    /// The two-way patch from `original` to `modified`.
    Create2(CreateOptions),
    /// The three-way patch of `kubectl apply` (`original`, `modified`,
    /// `current`); without `overwrite`, server-side changes the patch would
    /// undo are a `conflict` error.
    Create3 {
        /// Options.
        options: CreateOptions,
        /// Overwrite changes made on the server.
        overwrite: bool,
    },
    /// Whether `left` and `right` touch the same path differently.
    Conflicts(CreateOptions),
    /// Merge the RFC 7386 JSON merge patch `patch` into `original` as the
    /// API server merges one (Go's `MergePatch`: no schema, lists replaced
    /// whole, `null` deletes); only the options' `max_depth` is read.
    MergeApply(ApplyOptions),
    /// kubectl's three-way JSON merge patch for kinds without a Go type
    /// (`CreateThreeWayJSONMergePatch`, kubernetes/kubernetes#58414) of
    /// `original`, `modified` and `current`: no schema, lists replaced
    /// whole, no conflict check; only the options' `max_depth` is read.
    MergeCreate3(CreateOptions),
    /// One patch equivalent to `first` then `second`.
    Compose(CreateOptions),
    /// The server pipeline (KEP-1027): merge `patch` into `original`,
    /// normalize the result's unions against `original`, validate unions
    /// and enums; answers [`Outcome::Normalized`] or a `validation` error.
    ServerApply {
        /// Options of the merge.
        apply: ApplyOptions,
        /// Options of normalization and validation.
        unions: UnionOptions,
    },
    /// Normalize the unions of `new` against `old` and validate the result
    /// (KEP-1027); answers [`Outcome::Normalized`] or a `validation` error.
    Normalize {
        /// Options of normalization and validation.
        options: UnionOptions,
        /// `new` is being created: the `old` document is ignored (there is
        /// no stored object, which is not the same as a stored `{}`).
        create: bool,
    },
    /// The field set of `object` as server-side apply records it
    /// (KEP-2155); answers [`Outcome::FieldSet`].
    Fields(FieldsOptions),
    /// The apply configuration `manager` owns in the live `object`
    /// (KEP-2155, client-go's extract).
    Extract {
        /// The field manager whose `Apply` entry is extracted.
        manager: String,
        /// Options (subresource, apiVersion check, reference mode, …).
        options: ExtractOptions,
    },
}

impl Op {
    /// The names of the operation's documents, in the order [`run`] takes them.
    pub fn roles(&self) -> &'static [&'static str] {
        match self {
            Op::Apply(_) | Op::MergeApply(_) => &["original", "patch"],
            Op::Create2(_) => &["original", "modified"],
            Op::Create3 { .. } | Op::MergeCreate3(_) => &["original", "modified", "current"],
            Op::Conflicts(_) => &["left", "right"],
            Op::Compose(_) => &["first", "second"],
            Op::ServerApply { .. } => &["original", "patch"],
            Op::Normalize { .. } => &["new", "old"],
            Op::Fields(_) | Op::Extract { .. } => &["object"],
        }
    }

    /// The documents (indexes into [`Op::roles`]) whose `apiVersion`/`kind`
    /// [`TypeRef::Detect`] looks at, first match wins.
    fn detect_order(&self) -> &'static [usize] {
        match self {
            Op::Apply(_)
            | Op::MergeApply(_)
            | Op::Conflicts(_)
            | Op::Compose(_)
            | Op::ServerApply { .. }
            | Op::Normalize { .. } => &[0, 1],
            Op::Fields(_) | Op::Extract { .. } => &[0],
            Op::Create2(_) => &[1, 0],
            Op::Create3 { .. } | Op::MergeCreate3(_) => &[1, 0, 2],
        }
    }

    /// The deepest nesting the operation accepts (its options' `max_depth`);
    /// documents are read with this limit too when it is above the default.
    pub fn max_depth(&self) -> usize {
        match self {
            Op::Apply(o) | Op::MergeApply(o) => o.max_depth,
            Op::ServerApply { apply, .. } => apply.max_depth,
            Op::Fields(o) => o.max_depth,
            Op::Extract { options, .. } => options.max_depth,
            Op::Normalize { options, .. } => options.max_depth,
            Op::Create2(o)
            | Op::Create3 { options: o, .. }
            | Op::MergeCreate3(o)
            | Op::Conflicts(o)
            | Op::Compose(o) => o.max_depth,
        }
    }

    /// Sets the operation's depth limit (every `max_depth` of its options).
    pub fn set_max_depth(&mut self, max_depth: usize) {
        match self {
            Op::Apply(o) | Op::MergeApply(o) => o.max_depth = max_depth,
            Op::ServerApply { apply, unions } => {
                apply.max_depth = max_depth;
                unions.max_depth = max_depth;
            }
            Op::Fields(o) => o.max_depth = max_depth,
            Op::Extract { options, .. } => options.max_depth = max_depth,
            Op::Normalize { options, .. } => options.max_depth = max_depth,
            Op::Create2(o)
            | Op::Create3 { options: o, .. }
            | Op::MergeCreate3(o)
            | Op::Conflicts(o)
            | Op::Compose(o) => o.max_depth = max_depth,
        }
    }

    /// The operation for `patch_type` (the names and meaning of `smpatch
    /// apply --type`): [`Op::Apply`] and [`Op::Create3`] become
    /// [`Op::MergeApply`] and [`Op::MergeCreate3`] when `patch_type` is
    /// `Merge`, or `Auto` and the embedded Kubernetes schema lacks the type
    /// of `docs` (in [`Op::roles`] order; their `apiVersion`/`kind` is read
    /// in the order the op detects its type:
    /// [`ApplyPatchType::resolve`](crate::apply_flow::ApplyPatchType::resolve)).
    /// Every other operation, and `Strategic`, stays as it is.
    ///
    /// ```
    /// use smpatch::apply_flow::ApplyPatchType;
    /// use smpatch::ops::Op;
    /// use smpatch::{parse_document, ApplyOptions, Arena};
    /// let arena = Arena::new();
    /// let op = Op::Apply(ApplyOptions::default());
    /// let cr = parse_document(&arena, br#"{"apiVersion":"x.io/v1","kind":"Widget"}"#, &op, "original").unwrap();
    /// let docs = [cr, smpatch::Value::empty_object()];
    /// let merge = op.clone().with_patch_type(ApplyPatchType::Auto, &docs);
    /// assert_eq!(merge, Op::MergeApply(ApplyOptions::default()));
    /// assert_eq!(op.clone().with_patch_type(ApplyPatchType::Strategic, &docs), op);
    /// ```
    pub fn with_patch_type(
        self,
        patch_type: crate::apply_flow::ApplyPatchType,
        docs: &[Value<'_>],
    ) -> Op {
        use crate::apply_flow::ApplyPatchType;
        if patch_type == ApplyPatchType::Strategic
            || !matches!(self, Op::Apply(_) | Op::Create3 { .. })
        {
            return self;
        }
        let ordered: Vec<Value<'_>> = self
            .detect_order()
            .iter()
            .filter_map(|&i| docs.get(i).copied())
            .collect();
        match (patch_type.resolve(&ordered), self) {
            (ApplyPatchType::Merge, Op::Apply(o)) => Op::MergeApply(o),
            (ApplyPatchType::Merge, Op::Create3 { options, .. }) => Op::MergeCreate3(options),
            (_, op) => op,
        }
    }

    /// True for the operations that read no schema (the JSON merge patch
    /// ones): [`resolve_type`] answers the schemaless cursor for them.
    pub fn is_schemaless(&self) -> bool {
        matches!(self, Op::MergeApply(_) | Op::MergeCreate3(_))
    }

    /// How an empty document counts: an error for apply, `{}` otherwise.
    pub(crate) fn empty(&self) -> Empty {
        match self {
            Op::Apply(_)
            | Op::MergeApply(_)
            | Op::ServerApply { .. }
            | Op::Fields(_)
            | Op::Extract { .. } => Empty::IsError,
            _ => Empty::IsObject,
        }
    }
}

/// What an operation answers.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<'a> {
    /// A merged document or a patch.
    Document(Value<'a>),
    /// The answer of [`Op::Conflicts`].
    Conflicts(bool),
    /// The answer of [`Op::Normalize`] and [`Op::ServerApply`]: the
    /// normalized object and the JSON pointers of the members normalization
    /// cleared, in document order.
    Normalized {
        /// The normalized (and valid) object.
        value: Value<'a>,
        /// Pointers of the cleared members.
        cleared: Vec<String>,
    },
    /// The answer of [`Op::Fields`]: the set, and its canonical FieldsV1
    /// JSON as a value.
    FieldSet {
        /// The FieldsV1 object (members in canonical order).
        value: Value<'a>,
        /// The set.
        set: FieldSet,
    },
}

impl<'a> Outcome<'a> {
    /// The outcome as a value (`Conflicts` as a JSON boolean).
    pub fn into_value(self) -> Value<'a> {
        match self {
            Outcome::Document(v)
            | Outcome::Normalized { value: v, .. }
            | Outcome::FieldSet { value: v, .. } => v,
            Outcome::Conflicts(b) => Value::Bool(b),
        }
    }
}

/// Runs `op` on `docs` (one per [`Op::roles`] entry, each an object) with
/// the type `ty` found in `schemas` (first schema that has it wins).
pub fn run<'a>(
    arena: &'a Arena,
    op: &Op,
    docs: &[Value<'a>],
    schemas: &[&Schema],
    ty: &TypeRef,
) -> Result<Outcome<'a>, Error> {
    let cursor = resolve_type(op, schemas, ty, docs)?;
    execute(arena, op, docs, cursor)
}

/// The schema type of `docs` for `op` (the first step of [`run`]).
pub fn resolve_type<'s>(
    op: &Op,
    schemas: &[&'s Schema],
    ty: &TypeRef,
    docs: &[Value<'_>],
) -> Result<Cursor<'s>, Error> {
    if op.is_schemaless() {
        return resolve_cursor(schemas, &TypeRef::Schemaless, docs);
    }
    let ordered: Vec<Value<'_>> = op
        .detect_order()
        .iter()
        .filter_map(|&i| docs.get(i).copied())
        .collect();
    resolve_cursor(schemas, ty, &ordered)
}

/// Calls the engine crate for `op` (the second step of [`run`]).
pub fn execute<'a>(
    arena: &'a Arena,
    op: &Op,
    docs: &[Value<'a>],
    cursor: Cursor<'_>,
) -> Result<Outcome<'a>, Error> {
    let document = |v: Result<Value<'a>, smpatch_patch_apply::Error>| {
        v.map(Outcome::Document).map_err(Error::from)
    };
    match (op, docs) {
        (Op::Apply(o), &[original, patch]) => document(smpatch_patch_apply::apply(
            arena, original, patch, cursor, o,
        )),
        (Op::Create2(o), &[original, modified]) => document(smpatch_patch_create::create_two_way(
            arena,
            original,
            modified,
            cursor,
            o,
            &[],
        )),
        (Op::Create3 { options, overwrite }, &[original, modified, current]) => {
            let docs = smpatch_patch_create::ThreeWay {
                original,
                modified,
                current,
            };
            let on_conflict = smpatch_patch_create::OnConflict::overwrite_if(*overwrite);
            document(smpatch_patch_create::create_three_way(
                arena,
                docs,
                cursor,
                on_conflict,
                options,
                &[],
            ))
        }
        (Op::MergeApply(_), &[original, patch]) => Ok(Outcome::Document(
            smpatch_patch_create::json_merge::merge_like_go(arena, original, patch),
        )),
        (Op::MergeCreate3(_), &[original, modified, current]) => {
            smpatch_patch_create::json_merge::three_way(arena, original, modified, current, &[])
                .map(Outcome::Document)
                .map_err(Error::from)
        }
        (Op::Conflicts(o), &[left, right]) => {
            smpatch_patch_create::conflicts(left, right, cursor, o)
                .map(Outcome::Conflicts)
                .map_err(Error::from)
        }
        (Op::Compose(o), &[first, second]) => document(smpatch_patch_create::compose(
            arena, first, second, cursor, o,
        )),
        (Op::ServerApply { apply, unions }, &[original, patch]) => {
            let merged = smpatch_patch_apply::apply(arena, original, patch, cursor, apply)?;
            crate::unions::normalize_validated(arena, Some(original), merged, cursor, unions)
        }
        (Op::Normalize { options, create }, &[new, old]) => {
            let old = (!create).then_some(old);
            crate::unions::normalize_validated(arena, old, new, cursor, options)
        }
        (Op::Fields(o), &[object]) => {
            let set = smpatch_fieldsets::fields_of(&object, cursor, o)?;
            let value = crate::fields::set_value(arena, &set)?;
            Ok(Outcome::FieldSet { value, set })
        }
        (Op::Extract { manager, options }, &[object]) => {
            smpatch_fieldsets::extract(arena, &object, cursor, manager, options)
                .map(Outcome::Document)
                .map_err(Error::from)
        }
        _ => Err(Error::facade(
            FacadeKind::InvalidRequest,
            "",
            format!(
                "{} documents given, the operation takes {} ({})",
                docs.len(),
                op.roles().len(),
                op.roles().join(", ")
            ),
        )),
    }
}
