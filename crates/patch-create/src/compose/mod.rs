//! Patch composition: the reference's COMPOSE mode (used by the three-way
//! diff, Q21 pinned) and the public composition that keeps directives (Q32
//! fixed).
//!
//! Split by job: `check` (which patches and which pairs of patches compose
//! at all), `fold` (the merge of two checked patches, field by field),
//! `side` (what one patch does to one field), `encode` (a value written as
//! a patch that sets it whatever the document holds).

use crate::CreateOptions;
use smpatch_patch_apply::directives::{self, PatchDirective};
use smpatch_patch_apply::{ApplyOptions, Error};
use smpatch_schema::{Cursor, Walk};
use smpatch_value::{Arena, Path, Value};

mod check;
mod encode;
mod fold;
mod side;

use fold::Composer;

/// `merge_object(acc, patch, COMPOSE)` exactly as the reference composes the
/// three-way `deletions` and `delta` maps.
pub(crate) fn compose_reference<'a>(
    arena: &'a Arena,
    acc: Value<'a>,
    patch: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    smpatch_patch_apply::compose_patches(arena, acc, patch, cursor, &apply_options(opts))
}

/// The apply options matching create options.
pub(crate) fn apply_options(opts: &CreateOptions) -> ApplyOptions {
    ApplyOptions::default()
        .with_fix_quirks(opts.fix_quirks)
        .with_compound_keys(opts.compound_keys)
        .with_max_depth(opts.depth_limit())
}

/// The `$patch` directive of `v` (every patch passed
/// [`smpatch_patch_apply::check_composable`], so a
/// `$patch` value is one of the three).
pub(super) fn directive_of(v: &Value<'_>) -> Option<PatchDirective> {
    directives::patch_directive(v)
}

/// The public composition (Q32 fixed): one patch `c` with
/// `apply(x, c) == apply(apply(x, p1), p2)`, built field by field.
///
/// Each field is transformed by what each patch holds for it (its value,
/// `$setElementOrder/<f>`, `$deleteFromPrimitiveList/<f>`, and whether the
/// object's `$retainKeys` drops it):
///
/// * `p2` alone, or `p2` setting a value that ignores the old one (a scalar,
///   `null`, an atomic list, a `replace` object, `$patch: replace`): `p2`'s
///   entries;
/// * `p1` alone: `p1`'s entries;
/// * `p1` setting a value that ignores the old one (or dropping the field via
///   `$retainKeys` or `$patch: delete`) and `p2` merging into it: the value
///   both produce, written so that it replaces whatever the document has
///   (objects with `$retainKeys` listing their keys, keyed lists with a
///   `$patch: replace` element);
/// * both merging: objects recurse, keyed lists pair elements by merge key
///   and compose paired elements the same way (a `p2` delete wins, a `p1`
///   delete followed by a `p2` element keeps both: the delete, then the
///   element appended anew), primitive merge lists compose their additions
///   and deletion lists (without `fix_quirks`, an order list over a composed
///   list left empty is dropped, Q20);
/// * `$retainKeys`: the composed list keeps the fields both patches keep,
///   plus the fields `p2` sets.
///
/// A primitive merge list that `p1` sets absolutely (null, or dropped by
/// `$retainKeys`) and `p2` then fills cannot be written as one patch (a
/// merge list cannot be replaced): [`ErrorKind::Unsupported`].
pub(crate) fn compose_public<'a>(
    arena: &'a Arena,
    p1: Value<'a>,
    p2: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    check::composable(p1, p2, cursor, &apply_options(opts))?;
    let c = Composer { arena, opts };
    let root = Path::Root;
    c.object(p1, p2, Walk::new(&root, cursor, opts.depth_limit()))
}
