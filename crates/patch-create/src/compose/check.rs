//! Which patches compose: each patch alone passes apply's rules plus the
//! refusals of a composition ([`smpatch_patch_apply::check_composable`]);
//! the two together may still hold what no single patch can (lists of two
//! kinds for one field, or a change that depends on the document:
//! [`unsupported`]).

use smpatch_patch_apply::{check_composable, ApplyOptions, Error, ErrorKind, KindRule};
use smpatch_schema::Cursor;
use smpatch_value::{Path, Value};

/// Checks both patches of a composition, the first one first.
pub(super) fn composable(
    p1: Value<'_>,
    p2: Value<'_>,
    cursor: Cursor<'_>,
    opts: &ApplyOptions,
) -> Result<(), Error> {
    check_composable(p1, cursor, opts)?;
    check_composable(p2, cursor, opts)
}

/// The kind shared by the scalars of `lists` (apply's check of a merge
/// list, [`smpatch_patch_apply::element_kind`]), for lists the two patches
/// hold for field `f`: each patch's lists passed the check alone, but the two
/// may differ.
pub(super) fn one_kind(f: &str, lists: &[&[Value<'_>]], fix_quirks: bool) -> Result<(), Error> {
    let rule = KindRule {
        null_anywhere: true,
        numbers_one_kind: fix_quirks,
    };
    smpatch_patch_apply::element_kind(lists, rule).map_err(|e| {
        let message = format!("cannot compose: {}", e.message());
        Error::new(e.kind(), Path::Root.key(f).pointer(), message)
    })?;
    Ok(())
}

/// No single patch does what the two do in sequence.
pub(super) fn unsupported(what: String) -> Error {
    Error::new(ErrorKind::Unsupported, "", what)
}
