//! The merge engine: `merge_object` / `merge_list` in APPLY and COMPOSE mode
//! (the reference's `mergeMap` / `mergeSlice` in k8s.io/apimachinery
//! `strategicpatch`), split by job: `object` (objects and their
//! directives), `clean` (values about to be stored), `list` (merge lists),
//! `order` (ordering and `$setElementOrder`), `scalars` (primitive merge
//! lists and their orderings on one identity index). The rules and their errors live
//! in `crate::rules`, the directive names in `crate::directives`.
//!
//! Every function takes the shared walk context ([`Walk`]): its document
//! path (rendered only on error), its schema cursor and its depth. The
//! recursive entry points (`merge_object`, `merge_list`, `clean`) receive
//! the walk one level down (their caller steps it) and check its depth on
//! entry; the others receive the walk of the level they serve, moved to the
//! member or element they work on with [`Walk::at`].
//!
//! Architecture Invariant: inputs are never mutated; every result is a new
//! arena value (untouched subtrees are shared).

use crate::identity::IdError;
use crate::rules::{self, Problem};
use crate::{ApplyOptions, Error, ErrorKind};
use smpatch_schema::{Field, FieldShape, Rules, Walk};
use smpatch_value::{Arena, Step, Value};

mod clean;
mod list;
mod object;
mod order;
mod scalars;

#[cfg(test)]
pub(crate) use order::EAGER_FOLLOWS;
#[cfg(test)]
pub(crate) use scalars::SCALARS_GENERAL;

/// Which of the two uses of the merge routine runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Apply a patch to a stored object (`MergeParallelList`, `IgnoreUnmatchedNulls`).
    Apply,
    /// Merge two patches into one (the reference's three-way composition).
    Compose,
}

/// The merge state: arena, options, mode and the schema rules. Where the
/// merge stands travels in the [`Walk`] each call takes.
pub(crate) struct Merger<'a, 'o> {
    arena: &'a Arena,
    opts: &'o ApplyOptions,
    mode: Mode,
    rules: Rules,
    /// The primitive list a `$setElementOrder` pass just stored, with its
    /// identity index, for the `$deleteFromPrimitiveList` of the same field
    /// that follows ([`scalars::Ordered`]).
    ordered: std::cell::RefCell<Option<scalars::Ordered<'a>>>,
}

impl<'a, 'o> Merger<'a, 'o> {
    pub(crate) fn new(arena: &'a Arena, opts: &'o ApplyOptions, mode: Mode) -> Self {
        Merger {
            arena,
            opts,
            mode,
            rules: opts.rules(),
            ordered: std::cell::RefCell::new(None),
        }
    }

    // ----- errors and paths -------------------------------------------------

    fn err(&self, w: Walk<'_, '_>, kind: ErrorKind, message: impl Into<String>) -> Error {
        Error::new(kind, w.path().pointer(), message)
    }

    fn err_at(
        &self,
        w: Walk<'_, '_>,
        step: Step<'_>,
        kind: ErrorKind,
        message: impl Into<String>,
    ) -> Error {
        self.problem_at(w, step, Problem::new(kind, message))
    }

    /// A broken rule at the walk's path.
    fn problem(&self, w: Walk<'_, '_>, p: Problem) -> Error {
        p.at(w.path().pointer())
    }

    /// A broken rule one step below the walk's path.
    fn problem_at(&self, w: Walk<'_, '_>, step: Step<'_>, p: Problem) -> Error {
        p.at(w.path().pointer_with([step]))
    }

    /// Refuses a walk deeper than the limit (on entry of a recursive step).
    fn check_depth(&self, w: Walk<'_, '_>) -> Result<(), Error> {
        w.check().map_err(crate::check::too_deep)
    }

    fn id_error(
        &self,
        w: Walk<'_, '_>,
        step: Option<Step<'_>>,
        e: IdError<'_>,
        elem: &Value<'_>,
        what: &str,
    ) -> Error {
        let p = rules::id_problem(e, elem, what);
        match step {
            Some(s) => self.problem_at(w, s, p),
            None => self.problem(w, p),
        }
    }

    // ----- schema -------------------------------------------------------------

    /// Field `key` of the object whose schema is `w`'s cursor; errors name
    /// `w`'s path.
    fn lookup<'s>(
        &self,
        w: Walk<'_, 's>,
        key: &str,
        shape: FieldShape,
    ) -> Result<Field<'s>, Error> {
        self.rules.field(w.cursor(), key, shape).map_err(|e| {
            self.err(
                w,
                ErrorKind::SchemaLookup,
                format!("{e}; the schema does not describe this field, so it cannot be merged"),
            )
        })
    }
}
