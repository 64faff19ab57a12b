//! Patch composition: the reference's COMPOSE mode (used by the three-way
//! diff, Q21 pinned) and the public composition that keeps directives (Q32
//! fixed).

use crate::CreateOptions;
use smpatch_patch_apply::{Error, ErrorKind};
use smpatch_schema::Cursor;
use smpatch_value::{Arena, Value};

/// `merge_object(acc, patch, COMPOSE)` exactly as the reference composes the
/// three-way `deletions` and `delta` maps.
pub(crate) fn compose_reference<'a>(
    _arena: &'a Arena,
    _acc: Value<'a>,
    _patch: Value<'a>,
    _cursor: Cursor<'_>,
    _opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    Err(Error::new(
        ErrorKind::Unsupported,
        "",
        "patch composition is not available yet (waiting for smpatch-patch-apply)",
    ))
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
