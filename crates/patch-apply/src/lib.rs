//! Applying a strategic merge patch to an object (server side), and composing
//! two patches (used by patch creation).
//!
//! Owns: the strategic merge of the reference (k8s.io/apimachinery
//! `strategicpatch`): object merge, keyed and primitive merge lists, every
//! directive, the ordering rules, and the apply error catalogue; the
//! reference's COMPOSE mode (the merge of two patches inside a three-way
//! patch).
//!
//! Must not: parse JSON text or schemas (callers hand it arena values and a
//! compiled schema cursor); mutate its inputs.
//!
//! ```
//! use smpatch_patch_apply::{apply, ApplyOptions};
//! use smpatch_schema::Cursor;
//! use smpatch_value::{from_serde, to_serde, Arena};
//! use serde_json::json;
//!
//! let arena = Arena::new();
//! let live = from_serde(&arena, &json!({"labels": {"a": "1", "b": "2"}}), 256).unwrap();
//! let patch = from_serde(&arena, &json!({"labels": {"b": null, "c": "3"}}), 256).unwrap();
//! let out = apply(&arena, live, patch, Cursor::UNKNOWN, &ApplyOptions::default()).unwrap();
//! assert_eq!(to_serde(&out).unwrap(), json!({"labels": {"a": "1", "c": "3"}}));
//! ```
//!
//! Architecture Invariant: inputs are immutable arena values; on error only
//! the error is returned and nothing the caller holds has changed.
#![deny(missing_docs)]

mod check;
pub mod directives;
mod error;
mod gosort;
mod identity;
mod merge;
mod rules;

pub use check::{check_composable, check_patch};
pub use error::{push_pointer_token, Error, ErrorKind};
pub use rules::{element_kind, KindRule};

use merge::{Merger, Mode};
use smpatch_schema::Cursor;
use smpatch_value::{Arena, Value};

/// Options of [`apply`] and [`compose_patches`]. The batch protocol maps its
/// `options` keys to these field names.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApplyOptions {
    /// Turn on the fixes of the reference's quirks Q3, Q8, Q11, Q12, Q15, Q20,
    /// Q22 and Q23 (docs/QUIRKS.md describes each, docs/DIVERGENCES.md lists
    /// them). Q6/Q7/Q9/Q10/Q30 (directive leaks), Q13 (hash order) and Q14
    /// (null elements) are always fixed.
    pub fix_quirks: bool,
    /// Identify elements of lists that have both a patch merge key and
    /// `x-kubernetes-list-map-keys` by all the list-map keys (e.g. container
    /// ports by `containerPort` and `protocol`).
    pub compound_keys: bool,
    /// Reject live keyed lists holding two elements with the same merge key
    /// (error `duplicate_merge_key`) instead of merging into the first.
    pub reject_duplicate_keys: bool,
    /// Maximum nesting depth the merge descends (error `too_deep`).
    pub max_depth: usize,
}

impl ApplyOptions {
    /// The schema decisions these options select.
    pub fn rules(&self) -> smpatch_schema::Rules {
        smpatch_schema::Rules {
            fix_quirks: self.fix_quirks,
            compound_keys: self.compound_keys,
        }
    }
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions {
            fix_quirks: false,
            compound_keys: false,
            reject_duplicate_keys: false,
            max_depth: smpatch_value::DEFAULT_MAX_DEPTH,
        }
    }
}

/// Builder-style setters (the struct is `#[non_exhaustive]`: start from
/// [`ApplyOptions::default`] and set what differs).
///
/// ```
/// use smpatch_patch_apply::ApplyOptions;
/// let opts = ApplyOptions::default().with_fix_quirks(true).with_max_depth(64);
/// assert!(opts.fix_quirks && !opts.compound_keys);
/// ```
impl ApplyOptions {
    /// Sets [`ApplyOptions::fix_quirks`]: turn on the fixes for the reference's quirks.
    #[must_use]
    pub fn with_fix_quirks(mut self, fix_quirks: bool) -> Self {
        self.fix_quirks = fix_quirks;
        self
    }

    /// Sets [`ApplyOptions::compound_keys`]: identify list-map elements by all their keys.
    #[must_use]
    pub fn with_compound_keys(mut self, compound_keys: bool) -> Self {
        self.compound_keys = compound_keys;
        self
    }

    /// Sets [`ApplyOptions::reject_duplicate_keys`]: reject live lists with duplicate merge keys.
    #[must_use]
    pub fn with_reject_duplicate_keys(mut self, reject_duplicate_keys: bool) -> Self {
        self.reject_duplicate_keys = reject_duplicate_keys;
        self
    }

    /// Sets [`ApplyOptions::max_depth`]: the deepest nesting the merge descends.
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }
}

/// The top level of a document as an object (as the reference reads it): `null` counts as
/// `{}`, any other non-object is [`ErrorKind::InvalidDocument`]. `what` names
/// the document in the message (`original`, `patch`, …). Shared by apply,
/// compose and patch creation.
pub fn top_object<'a>(v: Value<'a>, what: &str) -> Result<smpatch_value::Object<'a>, Error> {
    match v {
        Value::Null => Ok(smpatch_value::Object::default()),
        Value::Object(o) => Ok(o),
        other => Err(Error::new(
            ErrorKind::InvalidDocument,
            "",
            format!(
                "invalid JSON document: the {what} must be a JSON object, not a {}",
                other.kind().name()
            ),
        )),
    }
}

/// Applies a strategic merge patch to `original` (APPLY mode, as
/// `strategicpatch.StrategicMergeMapPatch` of k8s.io/apimachinery).
///
/// `cursor` is the schema of the document's type ([`Cursor::UNKNOWN`] for
/// schema-less merging: objects merge, lists are atomic). A top-level `null`
/// original or patch counts as `{}`; any other non-object is
/// [`ErrorKind::InvalidDocument`]. Errors carry a JSON pointer into the patch.
pub fn apply<'a>(
    arena: &'a Arena,
    original: Value<'a>,
    patch: Value<'a>,
    cursor: Cursor<'_>,
    opts: &ApplyOptions,
) -> Result<Value<'a>, Error> {
    let original = top_object(original, "original")?;
    let patch = top_object(patch, "patch")?;
    let root = smpatch_value::Path::Root;
    let w = smpatch_schema::Walk::new(&root, cursor, opts.max_depth);
    Merger::new(arena, opts, Mode::Apply).merge_object(Value::Object(original), patch, w)
}

/// Merges `patch` into the accumulated patch `acc` (COMPOSE mode: the
/// reference's merge with `MergeParallelList` off), as the reference does when it builds a three-way patch: nulls are
/// kept, `$retainKeys` and `$setElementOrder/..` are copied or compared,
/// `$deleteFromPrimitiveList/..` is overwritten (quirk Q22; united with
/// `fix_quirks`), `$patch` directives of later patches are executed against
/// the accumulator and inserted values only lose `$patch` objects (Q21, Q32 as
/// the reference). Every rule of the reference's COMPOSE mode is covered.
pub fn compose_patches<'a>(
    arena: &'a Arena,
    acc: Value<'a>,
    patch: Value<'a>,
    cursor: Cursor<'_>,
    opts: &ApplyOptions,
) -> Result<Value<'a>, Error> {
    let acc = top_object(acc, "first patch")?;
    let patch = top_object(patch, "second patch")?;
    let root = smpatch_value::Path::Root;
    let w = smpatch_schema::Walk::new(&root, cursor, opts.max_depth);
    Merger::new(arena, opts, Mode::Compose).merge_object(Value::Object(acc), patch, w)
}

#[cfg(test)]
mod tests;
