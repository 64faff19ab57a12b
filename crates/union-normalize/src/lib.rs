//! Union normalization and validation (KEP-1027, KEP-2887), run after a merge.
//!
//! Owns: clearing non-selected union members when a discriminator changes
//! ([`normalize`]), and validating unions against their discriminator and
//! strings against their `enum` ([`validate`]). Both take the stored object
//! (`old`, `None` on create) and the merged result (`new`), because whether
//! a discriminator *changed* decides what happens (KEP-1027).
//!
//! Must not: merge patches or parse schemas itself; it reads union metadata
//! from `smpatch-schema` (compiled and indexed once, when the schema loads)
//! and values from `smpatch-value`. It never changes its inputs. Its one
//! walk stands on the engines' shared parts, not copies: the walk context
//! `smpatch_schema::Walk` (depth guard, `grow_stack`) with
//! `smpatch_value::Path` for pointers, and `KeySpec::pairing` to find a list
//! element's old counterpart.
//!
//! Both unions declaration formats are supported: KEP-1027 (`fieldMembers`
//! on the discriminator property) and the struct-level list
//! (`discriminator` + `fields-to-discriminateBy`) that Kubernetes specs
//! carry. In the struct-level format a discriminator value that matches no
//! member (SeccompProfile's `type: Localhost` vs member value
//! `LocalhostProfile`) clears nothing, and such a union is checked only for
//! "more than one member set" (and, where the discriminator declares an
//! `enum`, for a value outside it). See docs/ERRORS.md for the rules V1–V5.
//!
//! ```
//! use smpatch_schema::Schema;
//! use smpatch_union_normalize::{normalize, validate, Options};
//! use smpatch_value::{parse_json, Arena, ParseOptions};
//!
//! let schema = Schema::from_bytes(br#"{"swagger": "2.0", "definitions": {"Src": {
//!   "properties": {
//!     "type": {"type": "string", "enum": ["Git", "Http", ""],
//!              "x-kubernetes-unions": {"fieldMembers": {
//!                 "Git": {"name": "git"}, "Http": {"name": "http"}, "": null}}},
//!     "git": {"type": "object"}, "http": {"type": "object"}}}}}"#, "doc").unwrap();
//! let cursor = schema.cursor("Src").unwrap();
//! let arena = Arena::new();
//! let p = |s: &'static str| parse_json(&arena, s.as_bytes(), &ParseOptions::default()).unwrap();
//! let old = p(r#"{"type": "Git", "git": {"url": "g"}}"#);
//! let new = p(r#"{"type": "Http", "git": {"url": "g"}, "http": {"url": "h"}}"#);
//! let out = normalize(&arena, Some(old), new, cursor, &Options::default()).unwrap();
//! assert_eq!(out.cleared, vec!["/git".to_owned()]);
//! assert!(validate(Some(old), out.value, cursor, &Options::default()).unwrap().is_empty());
//! ```

mod enums;
mod rules;
mod walk;

use smpatch_schema::Cursor;
use smpatch_value::{Arena, Value};

/// Switches of [`normalize`] and [`validate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Unions without a discriminator get the earlier unions KEP's update
    /// rule: when exactly one member was added, the other members are
    /// cleared. Off by default (KEP-1027 requires a discriminator).
    pub non_discriminated_update: bool,
    /// Ratcheting: a violation that the old object already had at the same
    /// place, and that did not get worse, is not reported: an enum value or
    /// unknown discriminator only when left exactly as it was, "more than
    /// one member" (V3) only with no member set that was not set before.
    /// Positional-list elements (no merge key or list-map keys) count as
    /// the same place only when equal to an old element. Off by default:
    /// KEP-1027 requires invalid objects to be made valid before they can
    /// be updated. See docs/UNIONS.md.
    pub ratcheting: bool,
    /// Report values outside their schema's `enum` (KEP-2887), compared by
    /// kind and value as smpatch compares values (the string `"1"` is not
    /// the number `1`, nor the integer `1` the float `1.0`). On by default.
    pub check_enums: bool,
    /// Deepest nesting the walk enters before it answers
    /// [`ErrorKind::TooDeep`]: [`smpatch_value::DEFAULT_MAX_DEPTH`] (256)
    /// by default, the limit of the parser and of every other engine, so
    /// that a document the parser reads with its default limit is walked
    /// with the same one.
    pub max_depth: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            non_discriminated_update: false,
            ratcheting: false,
            check_enums: true,
            max_depth: smpatch_value::DEFAULT_MAX_DEPTH,
        }
    }
}

/// The rule a [`Violation`] breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// The discriminator value is not one of the allowed values (its
    /// `enum`, else the union's member and empty values), or not a string.
    V1,
    /// A required discriminator without a `default` is unset.
    V2,
    /// More than one member of a union is set.
    V3,
    /// The member the discriminator selects is not set.
    V4,
    /// A member is set that the discriminator does not select.
    V5,
    /// A string outside its schema's `enum` (KEP-2887).
    Enum,
}

impl Rule {
    /// The rule's stable name: `V1` … `V5`, `enum`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::V1 => "V1",
            Rule::V2 => "V2",
            Rule::V3 => "V3",
            Rule::V4 => "V4",
            Rule::V5 => "V5",
            Rule::Enum => "enum",
        }
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One validation failure: where, which rule, and what to do about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer into the validated object (`""` is the object itself).
    pub path: String,
    /// The rule broken.
    pub rule: Rule,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{path}: {} ({})", self.message, self.rule)
    }
}

/// What went wrong other than a violation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The object nests deeper than [`Options::max_depth`].
    TooDeep,
}

impl ErrorKind {
    /// The kind as stable `snake_case` text.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::TooDeep => "too_deep",
        }
    }
}

/// An error of [`normalize`] or [`validate`]; the inputs are unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// JSON pointer of the value where it went wrong.
    pub path: String,
    /// A message for people.
    pub message: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{path}: {}", self.message)
    }
}

impl std::error::Error for Error {}

fn too_deep(e: smpatch_schema::TooDeep) -> Error {
    Error {
        kind: ErrorKind::TooDeep,
        path: e.pointer,
        message: format!(
            "the object nests deeper than the limit of {} levels",
            e.limit
        ),
    }
}

/// The result of [`normalize`].
#[derive(Clone, Debug)]
pub struct Normalized<'a> {
    /// The normalized object. It shares every unchanged subtree with `new`;
    /// only objects that lost members and the objects and lists above them
    /// are new arena nodes.
    pub value: Value<'a>,
    /// JSON pointers of the members that were cleared, in document order:
    /// exactly where `value` differs from `new`. A deselected member holding
    /// `null` is removed and listed too (KEP-1027 clears every member but
    /// the selected one).
    pub cleared: Vec<String>,
}

/// Normalizes the unions of `new` (the merged result) against `old` (the
/// stored object; `None` on create, read as `{}`), per KEP-1027: where a
/// union's discriminator changed, every member but the one it selects is
/// cleared (all of them for a value that selects none); where it did not,
/// nothing is touched. An unset discriminator (absent, `null` or not a
/// string) reads as its declared `default`, else `""`. Normalization never
/// sets or rewrites a discriminator. Unions are found at any depth, in keyed lists (paired
/// with the old element of the same key), positional lists (paired with an
/// equal old element, else the one at the same index) and maps. Only
/// subtrees whose schema declares a union are visited.
///
/// `new` and `old` are not changed; the result lives in `arena` and shares
/// unchanged subtrees with `new`.
///
/// # Errors
/// [`ErrorKind::TooDeep`] when the object nests deeper than
/// [`Options::max_depth`].
pub fn normalize<'a>(
    arena: &'a Arena,
    old: Option<Value<'_>>,
    new: Value<'a>,
    cursor: Cursor<'_>,
    opts: &Options,
) -> Result<Normalized<'a>, Error> {
    let mut v = rules::Normalizer {
        arena,
        opts,
        cleared: Vec::new(),
    };
    let changed = walk::walk(arena, old, new, cursor, opts.max_depth, &mut v).map_err(too_deep)?;
    Ok(Normalized {
        value: changed.unwrap_or(new),
        cleared: v.cleared,
    })
}

/// Validates the unions (V1–V5, see docs/ERRORS.md) and enums (KEP-2887) of
/// `new` and returns every violation (objects in document order, each
/// object's unions in declaration order, struct-level list first); `old` (`None` on
/// create) tells whether a discriminator changed and, with
/// [`Options::ratcheting`], which violations were already there.
///
/// ```
/// use smpatch_schema::Schema;
/// use smpatch_union_normalize::{validate, Options, Rule};
/// use smpatch_value::{parse_json, Arena, ParseOptions};
///
/// let schema = Schema::from_bytes(br#"{"swagger": "2.0", "definitions": {"C": {
///   "properties": {"pull": {"type": "string", "enum": ["Always", "Never"]}}}}}"#, "doc").unwrap();
/// let arena = Arena::new();
/// let new = parse_json(&arena, br#"{"pull": "Sometimes"}"#, &ParseOptions::default()).unwrap();
/// let found = validate(None, new, schema.cursor("C").unwrap(), &Options::default()).unwrap();
/// assert_eq!((found[0].path.as_str(), found[0].rule), ("/pull", Rule::Enum));
/// ```
///
/// # Errors
/// [`ErrorKind::TooDeep`] when the object nests deeper than
/// [`Options::max_depth`].
pub fn validate(
    old: Option<Value<'_>>,
    new: Value<'_>,
    cursor: Cursor<'_>,
    opts: &Options,
) -> Result<Vec<Violation>, Error> {
    // Validation never rebuilds anything; the arena stays empty.
    let arena = Arena::new();
    let mut v = rules::Validator {
        opts,
        violations: Vec::new(),
    };
    walk::walk(&arena, old, new, cursor, opts.max_depth, &mut v).map_err(too_deep)?;
    Ok(v.violations)
}
