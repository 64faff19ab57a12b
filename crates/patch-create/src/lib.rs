//! Patch creation: two-way and three-way strategic merge patch diffs,
//! conflict detection and patch composition (the reference's
//! `CreateTwoWayMergePatch`, `CreateThreeWayMergePatch`,
//! `MergingMapsHaveConflicts` and its patch composition).
//!
//! Owns: [`create_two_way`], [`create_three_way`] (the `kubectl apply` diff),
//! [`conflicts`], [`compose`], [`CreateOptions`] and [`Precondition`];
//! [`json_merge`], the RFC 7386 JSON merge patch kubectl uses for kinds it
//! has no Go type for (two-way, the three-way `kubectl apply` patch, and the
//! schema-free merge those need).
//!
//! Must not: parse schemas or documents itself, or merge strategic patches on its own:
//! composition reuses `smpatch-patch-apply`'s COMPOSE mode (the three-way
//! patch's composition takes the long keyed lists its diff already
//! composed, and hands every object it cannot reproduce exactly to that
//! mode).
//!
//! By default the patches equal the reference's (as JSON values), quirks
//! included; [`CreateOptions::fix_quirks`] turns on the fixes listed in
//! docs/QUIRKS.md (Q1, Q5, Q17, Q18, Q19).
//!
//! ```
//! use smpatch_patch_create::{create_two_way, CreateOptions};
//! use smpatch_schema::Cursor;
//! use smpatch_value::{from_serde, to_serde, Arena};
//! use serde_json::json;
//!
//! let arena = Arena::new();
//! let o = from_serde(&arena, &json!({"a": 1, "b": {"c": 2}}), 256).unwrap();
//! let m = from_serde(&arena, &json!({"a": 1, "b": {"c": 3}, "d": true}), 256).unwrap();
//! let p = create_two_way(&arena, o, m, Cursor::UNKNOWN, &CreateOptions::default(), &[]).unwrap();
//! assert_eq!(to_serde(&p).unwrap(), json!({"b": {"c": 3}, "d": true}));
//! ```
#![deny(missing_docs)]

mod compose;
mod compose3;
mod conflict;
mod diff;
mod diff3;
mod gosort;
pub mod json_merge;
mod keys;
mod shared;

use diff::{DiffFlags, Differ, RetainKeys};
use smpatch_patch_apply::{top_object, Error, ErrorKind};
use smpatch_schema::Cursor;
use smpatch_value::{Arena, Path, Value};

/// Options of patch creation. Build with `Default` and set fields; the batch
/// protocol maps its `options` keys to these field names.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CreateOptions {
    /// Turn on the fixes docs/QUIRKS.md describes for patch creation:
    /// Q1 (primitive-list reorders), Q4 (duplicate merge keys pair in list
    /// order, by a stable sort, instead of as after Go's `sort.Sort`), Q5
    /// (merge keys compared strictly),
    /// Q17 (unchanged `replace` objects not emitted), Q18 (directive keys,
    /// empty lists and de-duplicated lists in conflict checks), Q19
    /// (`replace` objects compared deeply for conflicts).
    pub fix_quirks: bool,
    /// Key merge lists by all their `x-kubernetes-list-map-keys` when both
    /// those and a merge key are declared.
    pub compound_keys: bool,
    /// Two-way only: emit only deletions.
    pub ignore_changes_and_additions: bool,
    /// Two-way only: emit no deletions.
    pub ignore_deletions: bool,
    /// Nesting limit of every document (objects and lists); deeper input is
    /// rejected with [`ErrorKind::TooDeep`]. `0` means the default (256).
    pub max_depth: usize,
}

/// The default nesting limit (the one of every smpatch crate).
pub use smpatch_value::DEFAULT_MAX_DEPTH;

impl Default for CreateOptions {
    fn default() -> Self {
        CreateOptions {
            fix_quirks: false,
            compound_keys: false,
            ignore_changes_and_additions: false,
            ignore_deletions: false,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

/// Builder-style setters (the struct is `#[non_exhaustive]`: start from
/// [`CreateOptions::default`] and set what differs).
///
/// ```
/// use smpatch_patch_create::CreateOptions;
/// let opts = CreateOptions::default().with_compound_keys(true).with_ignore_deletions(true);
/// assert!(opts.compound_keys && opts.ignore_deletions && !opts.fix_quirks);
/// ```
impl CreateOptions {
    /// Sets [`CreateOptions::fix_quirks`]: turn on the fixes for the reference's quirks.
    #[must_use]
    pub fn with_fix_quirks(mut self, fix_quirks: bool) -> Self {
        self.fix_quirks = fix_quirks;
        self
    }

    /// Sets [`CreateOptions::compound_keys`]: key merge lists by all their list-map keys.
    #[must_use]
    pub fn with_compound_keys(mut self, compound_keys: bool) -> Self {
        self.compound_keys = compound_keys;
        self
    }

    /// Sets [`CreateOptions::ignore_changes_and_additions`]: two-way only, emit only deletions.
    #[must_use]
    pub fn with_ignore_changes_and_additions(mut self, ignore_changes_and_additions: bool) -> Self {
        self.ignore_changes_and_additions = ignore_changes_and_additions;
        self
    }

    /// Sets [`CreateOptions::ignore_deletions`]: two-way only, emit no deletions.
    #[must_use]
    pub fn with_ignore_deletions(mut self, ignore_deletions: bool) -> Self {
        self.ignore_deletions = ignore_deletions;
        self
    }

    /// Sets [`CreateOptions::max_depth`]: the nesting limit of every document (`0`: the default).
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }
}

impl CreateOptions {
    pub(crate) fn depth_limit(&self) -> usize {
        if self.max_depth == 0 {
            DEFAULT_MAX_DEPTH
        } else {
            self.max_depth
        }
    }

    /// The schema decisions these options select.
    pub(crate) fn rules(&self) -> smpatch_schema::Rules {
        smpatch_schema::Rules {
            fix_quirks: self.fix_quirks,
            compound_keys: self.compound_keys,
        }
    }

    pub(crate) fn differ<'a>(&self, arena: &'a Arena) -> Differ<'a> {
        Differ {
            arena,
            rules: self.rules(),
            max_depth: self.depth_limit(),
            scratch: Default::default(),
        }
    }
}

/// A condition the created patch must meet (the reference's `PreconditionFunc`), checked on its top
/// level after it is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Precondition {
    /// Fails when the patch has this top-level key (even holding null).
    RequireKeyUnchanged(String),
    /// Fails when the patch's `metadata` is an object holding this key.
    RequireMetadataKeyUnchanged(String),
}

impl Precondition {
    /// True when `patch` meets the condition.
    pub fn holds(&self, patch: &Value<'_>) -> bool {
        match self {
            Precondition::RequireKeyUnchanged(k) => patch.get(k).is_none(),
            Precondition::RequireMetadataKeyUnchanged(k) => match patch.get("metadata") {
                Some(Value::Object(m)) => !m.contains_key(k),
                _ => true,
            },
        }
    }

    fn describe(&self) -> String {
        match self {
            Precondition::RequireKeyUnchanged(k) => format!("/{k} must not change"),
            Precondition::RequireMetadataKeyUnchanged(k) => {
                format!("/metadata/{k} must not change")
            }
        }
    }

    fn pointer(&self) -> String {
        let mut p = String::new();
        match self {
            Precondition::RequireKeyUnchanged(k) => {
                smpatch_patch_apply::push_pointer_token(&mut p, k)
            }
            Precondition::RequireMetadataKeyUnchanged(k) => {
                smpatch_patch_apply::push_pointer_token(&mut p, "metadata");
                smpatch_patch_apply::push_pointer_token(&mut p, k);
            }
        }
        p
    }
}

/// Compact JSON of a value, cut to a readable length for messages.
fn summary(v: &Value<'_>) -> String {
    const LIMIT: usize = 2000;
    let s = smpatch_value::to_json_string(v);
    if s.len() <= LIMIT {
        return s;
    }
    let mut end = LIMIT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

fn check_preconditions(patch: &Value<'_>, preconditions: &[Precondition]) -> Result<(), Error> {
    for p in preconditions {
        if !p.holds(patch) {
            return Err(Error::new(
                ErrorKind::PreconditionFailed,
                p.pointer(),
                format!(
                    "precondition failed ({}) for: {}",
                    p.describe(),
                    summary(patch)
                ),
            ));
        }
    }
    Ok(())
}

/// The two-way patch from `original` to `modified` (the reference's
/// `CreateTwoWayMergePatch`): applying it to `original` gives `modified` (for
/// well-formed input).
///
/// `cursor` is the schema of the documents' type ([`Cursor::UNKNOWN`] for
/// schema-less diffs: objects recurse, lists are atomic). The options'
/// `ignore_*` flags restrict what is emitted. Preconditions run on the
/// finished patch ([`ErrorKind::PreconditionFailed`]).
///
/// # Errors
/// [`ErrorKind::InvalidDocument`] for non-object documents, the schema and
/// list errors of the diff ([`ErrorKind::SchemaLookup`],
/// [`ErrorKind::MissingMergeKey`], [`ErrorKind::MixedElementTypes`], …),
/// [`ErrorKind::TooDeep`], [`ErrorKind::PreconditionFailed`].
pub fn create_two_way<'a>(
    arena: &'a Arena,
    original: Value<'a>,
    modified: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
    preconditions: &[Precondition],
) -> Result<Value<'a>, Error> {
    let o = top_object(original, "original")?;
    let m = top_object(modified, "modified")?;
    let flags = DiffFlags {
        set_element_order: true,
        ignore_changes_and_additions: opts.ignore_changes_and_additions,
        ignore_deletions: opts.ignore_deletions,
    };
    let differ = opts.differ(arena);
    let patch = differ.diff_objects(
        o,
        m,
        differ.root(&Path::Root, cursor),
        flags,
        RetainKeys::Skip,
    )?;
    let patch = Value::Object(patch);
    check_preconditions(&patch, preconditions)?;
    Ok(patch)
}

/// The three documents of [`create_three_way`].
#[derive(Clone, Copy, Debug)]
pub struct ThreeWay<'a> {
    /// The last applied configuration.
    pub original: Value<'a>,
    /// The new configuration.
    pub modified: Value<'a>,
    /// The live object.
    pub current: Value<'a>,
}

/// What [`create_three_way`] does when its patch conflicts with changes made
/// from `original` to `current`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnConflict {
    /// Fail with [`ErrorKind::Conflict`] naming the locations.
    Fail,
    /// Return the patch anyway (`kubectl apply --overwrite`).
    Overwrite,
}

impl OnConflict {
    /// [`OnConflict::Overwrite`] when `overwrite`, else [`OnConflict::Fail`]
    /// (for callers holding the batch protocol's or CLI's flag).
    pub fn overwrite_if(overwrite: bool) -> Self {
        if overwrite {
            OnConflict::Overwrite
        } else {
            OnConflict::Fail
        }
    }
}

/// The three-way patch of `kubectl apply` (the reference's
/// `CreateThreeWayMergePatch`): `original` is the last
/// applied configuration, `modified` the new one, `current` the live object.
///
/// The patch sets what `modified` specifies and differs in `current`, and
/// deletes what was removed from `original` to `modified`; fields only
/// `current` has are left alone. With [`OnConflict::Fail`], a patch that touches
/// a path changed from `original` to `current` differently fails with
/// [`ErrorKind::Conflict`], naming the conflicting locations (JSON pointers
/// into the patch). The returned patch is the same either way, except that
/// by default (not `fix_quirks`) a patch checked without conflict carries the
/// reference's in-place de-duplication and sort of the atomic scalar lists
/// both change sets hold with equal lengths (`args: [b, a]` is sent as
/// `[a, b]`; `[a, a, b]` as `[a, b, b]`).
///
/// The options' `ignore_*` flags do not apply here (the three-way diff sets
/// them itself).
///
/// # Errors
/// As [`create_two_way`], plus [`ErrorKind::Conflict`] and the composition
/// errors ([`ErrorKind::ComposeMismatch`], …).
///
/// ```
/// use smpatch_patch_create::{create_three_way, CreateOptions, OnConflict, ThreeWay};
/// use smpatch_schema::Cursor;
/// use smpatch_value::{from_serde, to_serde, Arena};
/// use serde_json::json;
///
/// let arena = Arena::new();
/// let doc = |v| from_serde(&arena, &v, 256).unwrap();
/// let docs = ThreeWay {
///     original: doc(json!({"a": 1, "b": 1})),
///     modified: doc(json!({"a": 2})),
///     current: doc(json!({"a": 1, "b": 1, "c": 1})),
/// };
/// let opts = CreateOptions::default();
/// let p = create_three_way(&arena, docs, Cursor::UNKNOWN, OnConflict::Fail, &opts, &[]).unwrap();
/// assert_eq!(to_serde(&p).unwrap(), json!({"a": 2, "b": null}));
/// ```
pub fn create_three_way<'a>(
    arena: &'a Arena,
    docs: ThreeWay<'a>,
    cursor: Cursor<'_>,
    on_conflict: OnConflict,
    opts: &CreateOptions,
    preconditions: &[Precondition],
) -> Result<Value<'a>, Error> {
    let o = top_object(docs.original, "original")?;
    let m = top_object(docs.modified, "modified")?;
    let c = top_object(docs.current, "current")?;
    let differ = opts.differ(arena);
    // The three diffs in one descent (`changed` only for the conflict
    // check); on any error they run one after the other, in the order that
    // reports the first error exactly.
    let check = on_conflict == OnConflict::Fail;
    let root = differ.root(&Path::Root, cursor);
    // The keyed lists the walk composes itself, and the composition that
    // takes them as they are.
    let table = compose3::Table::default();
    let fast = compose3::FastCompose::new(arena, opts, &table);
    let run = diff3::Run {
        ch: check,
        fast: Some(&fast),
    };
    let fused = differ.diff_three(o, m, c, root, RetainKeys::Skip, run);
    let (delta, deletions) = match &fused {
        Some(t) => (t.delta, t.deletions),
        None => (
            differ.diff_objects(c, m, root, diff3::DELTA, RetainKeys::Skip)?,
            differ.diff_objects(o, m, root, diff3::DELETIONS, RetainKeys::Skip)?,
        ),
    };
    let composed = match fused {
        Some(_) if !table.is_empty() => fast.object(deletions, delta, cursor, 1),
        _ => None,
    };
    let patch = match composed {
        Some(p) => p,
        None => compose::compose_reference(
            arena,
            Value::Object(deletions),
            Value::Object(delta),
            cursor,
            opts,
        )?,
    };
    check_preconditions(&patch, preconditions)?;
    if check {
        let changed = Value::Object(match &fused {
            Some(t) => t.changed,
            None => differ.diff_objects(o, c, root, diff3::CHANGED, RetainKeys::Skip)?,
        });
        let mut checker = conflict::Checker {
            rules: opts.rules(),
            max_depth: opts.depth_limit(),
            collect_all: true,
            found: Vec::new(),
            rewrites: Vec::new(),
        };
        if checker.check(patch, changed, cursor)? {
            let first = checker.found.first().cloned().unwrap_or_default();
            let list = if checker.found.is_empty() {
                "/".to_owned()
            } else {
                checker
                    .found
                    .iter()
                    .map(|p| if p.is_empty() { "/" } else { p.as_str() })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(Error::new(
                ErrorKind::Conflict,
                first,
                format!(
                    "the patch conflicts with changes made from original to current at {list} \
                     (use overwrite to apply anyway); patch: {} conflicts with changes made from \
                     original to current: {}",
                    summary(&patch),
                    summary(&changed)
                ),
            ));
        }
        if !checker.rewrites.is_empty() {
            // The reference's check sorts the patch's atomic scalar lists in
            // place (see `conflict::Checker::rewrites`).
            return Ok(conflict::apply_rewrites(arena, patch, &checker.rewrites));
        }
    }
    Ok(patch)
}

/// True when two change sets touch a path differently (the reference's
/// `MergingMapsHaveConflicts`): `left` is
/// a patch, `right` the changes made from original to current.
///
/// By default the reference's quirks Q18 (an error for directive keys both
/// sides hold and for two empty lists in one position) and Q19 (`replace`
/// objects never conflict) are kept; `fix_quirks` removes them. The
/// reference's crash on some de-duplicated atomic scalar lists answers
/// "conflict" instead.
///
/// # Errors
/// Schema lookup and list element errors, [`ErrorKind::NoElements`] (Q18),
/// [`ErrorKind::TooDeep`].
pub fn conflicts(
    left: Value<'_>,
    right: Value<'_>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<bool, Error> {
    let l = match left {
        Value::Null => Value::empty_object(),
        v => v,
    };
    let r = match right {
        Value::Null => Value::empty_object(),
        v => v,
    };
    let mut checker = conflict::Checker {
        rules: opts.rules(),
        max_depth: opts.depth_limit(),
        collect_all: false,
        found: Vec::new(),
        rewrites: Vec::new(),
    };
    checker.check(l, r, cursor)
}

/// One patch equivalent to applying `p1` then `p2`:
/// `apply(x, compose(p1, p2)) == apply(apply(x, p1), p2)` for every `x`
/// both applies accept, up to the order of merge lists, when `p1` and `p2`
/// are well formed: patches apply accepts on a document holding every
/// field they name. Apply skips many checks where the document lacks a
/// field, but compose has no document, so it checks both patches first and
/// refuses a malformed one with the error apply gives where the field
/// exists (a `$patch` other than `replace`/`merge`/`delete`, `$retainKeys`
/// that is no list of strings or omits a field the patch sets, a
/// `$setElementOrder` list that is no list of the list's elements or that
/// the patch list does not follow, a `$deleteFromPrimitiveList` that is no
/// list of scalars of a merge list of scalars, a keyed-list element without
/// a (non-null) merge key, merge lists mixing kinds or holding null), also
/// where apply would accept it on every document: two elements with one
/// merge key in a patch list ([`ErrorKind::DuplicateMergeKey`]; apply
/// merges them into an existing list) and an unknown `$` key
/// ([`ErrorKind::Unsupported`]; apply sets it like a field). Two
/// well-formed patches whose primitive lists hold different kinds are
/// refused too ([`ErrorKind::MixedElementTypes`]).
///
/// Unlike the reference's composition (used inside [`create_three_way`],
/// Q21), directives are composed at every depth, inside paired keyed-list
/// elements too (the fix of Q32). Where `p1` sets a field outright (null,
/// `$patch: replace` or `delete`, dropped by `$retainKeys`, a replace list)
/// and `p2` then changes it, the result is written as a replacement
/// (`$retainKeys` objects, `{"$patch": "replace"}` lists).
///
/// ```
/// use smpatch_patch_create::{compose, CreateOptions};
/// use smpatch_schema::Cursor;
/// use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
/// let arena = Arena::new();
/// let p = |s: &'static str| parse_json(&arena, s.as_bytes(), &ParseOptions::default()).unwrap();
/// let c = compose(&arena, p(r#"{"a":{"b":1}}"#), p(r#"{"a":{"c":2},"d":null}"#),
///     Cursor::UNKNOWN, &CreateOptions::default()).unwrap();
/// assert_eq!(to_json_string(&c), r#"{"a":{"b":1,"c":2},"d":null}"#);
/// ```
///
/// # Errors
/// [`ErrorKind::InvalidDocument`] for non-object patches;
/// [`ErrorKind::Unsupported`] naming the field where no single patch
/// exists (a primitive merge list reset by `p1` and filled by `p2`; without
/// `fix_quirks`, an object replaced or deleted by `p1` and then changed,
/// Q8); for malformed patches (see above) the list and directive errors
/// of apply ([`ErrorKind::UnknownPatchType`], [`ErrorKind::InvalidRetainKeys`],
/// [`ErrorKind::InvalidSetElementOrder`], [`ErrorKind::OrderMismatch`],
/// [`ErrorKind::MissingMergeKey`], …); the schema errors of apply
/// ([`ErrorKind::SchemaLookup`], …).
pub fn compose<'a>(
    arena: &'a Arena,
    p1: Value<'a>,
    p2: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    let a = top_object(p1, "first patch")?;
    let b = top_object(p2, "second patch")?;
    compose::compose_public(arena, Value::Object(a), Value::Object(b), cursor, opts)
}
