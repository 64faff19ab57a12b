//! The merge engine: `merge_object` / `merge_list` of spec §3 in APPLY and
//! COMPOSE mode, split by job: `object` (objects and their directives),
//! `clean` (values about to be stored), `list` (merge lists), `order`
//! (ordering and `$setElementOrder`). The rules and their errors live in
//! `crate::rules`, the directive names in `crate::directives`.
//!
//! Architecture Invariant: inputs are never mutated; every result is a new
//! arena value (untouched subtrees are shared).

use crate::identity::IdError;
use crate::rules::{self, Problem};
use crate::{ApplyOptions, Error, ErrorKind};
use smpatch_schema::{Cursor, Field, FieldShape, Rules};
use smpatch_value::{pointer_of, push_step, Arena, Step, Value};

mod clean;
mod list;
mod object;
mod order;

/// Which of the two uses of the merge routine runs (§3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Apply a patch to a stored object (`MergeParallelList`, `IgnoreUnmatchedNulls`).
    Apply,
    /// Merge two patches into one (§3.15).
    Compose,
}

/// The merge state: arena, options, mode, the path stack (materialised only on
/// error) and the recursion depth.
pub(crate) struct Merger<'a, 'o> {
    arena: &'a Arena,
    opts: &'o ApplyOptions,
    mode: Mode,
    rules: Rules,
    path: Vec<Step<'a>>,
    depth: usize,
}

impl<'a, 'o> Merger<'a, 'o> {
    pub(crate) fn new(arena: &'a Arena, opts: &'o ApplyOptions, mode: Mode) -> Self {
        Merger {
            arena,
            opts,
            mode,
            rules: opts.rules(),
            path: Vec::new(),
            depth: 0,
        }
    }

    // ----- errors and paths -------------------------------------------------

    fn pointer(&self) -> String {
        pointer_of(self.path.iter().copied())
    }

    fn err(&self, kind: ErrorKind, message: impl Into<String>) -> Error {
        Error::new(kind, self.pointer(), message)
    }

    fn err_at(&self, step: Step<'a>, kind: ErrorKind, message: impl Into<String>) -> Error {
        self.problem_at(step, Problem::new(kind, message))
    }

    /// A broken rule at the current path.
    fn problem(&self, p: Problem) -> Error {
        p.at(self.pointer())
    }

    /// A broken rule one step below the current path.
    fn problem_at(&self, step: Step<'a>, p: Problem) -> Error {
        let mut pointer = self.pointer();
        push_step(&mut pointer, step);
        p.at(pointer)
    }

    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > self.opts.max_depth {
            self.depth -= 1;
            return Err(crate::check::too_deep(smpatch_schema::TooDeep {
                pointer: self.pointer(),
                limit: self.opts.max_depth,
            }));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn id_error(
        &self,
        step: Option<Step<'a>>,
        e: IdError<'_>,
        elem: &Value<'_>,
        what: &str,
    ) -> Error {
        let p = rules::id_problem(e, elem, what);
        match step {
            Some(s) => self.problem_at(s, p),
            None => self.problem(p),
        }
    }

    // ----- schema -------------------------------------------------------------

    fn lookup<'s>(
        &self,
        cursor: Cursor<'s>,
        key: &'a str,
        shape: FieldShape,
    ) -> Result<Field<'s>, Error> {
        self.rules.field(cursor, key, shape).map_err(|e| {
            self.err(
                ErrorKind::SchemaLookup,
                format!("{e}; the schema does not describe this field, so it cannot be merged"),
            )
        })
    }
}
