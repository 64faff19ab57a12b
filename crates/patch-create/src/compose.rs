//! Patch composition: the reference's COMPOSE mode (used by the three-way
//! diff, Q21 pinned) and the public composition that keeps directives (Q32
//! fixed).

use crate::CreateOptions;
use smpatch_patch_apply::{ApplyOptions, Error};
use smpatch_schema::Cursor;
use smpatch_value::{Arena, Value};

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
    ApplyOptions {
        fix_quirks: opts.fix_quirks,
        compound_keys: opts.compound_keys,
        max_depth: opts.depth_limit(),
        ..ApplyOptions::default()
    }
}

/// The public composition (directives carried through).
pub(crate) fn compose_public<'a>(
    arena: &'a Arena,
    p1: Value<'a>,
    p2: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    compose_reference(arena, p1, p2, cursor, opts)
}
