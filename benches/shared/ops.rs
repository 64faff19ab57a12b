//! The three measured operations, once, for every bench target and the
//! `profile` example (each includes this file with `#[path]`): the engine
//! calls on parsed documents, and the same through the facade's bytes API.
//! The benches library (`benches/src`) depends on serde_json only, so the
//! engine calls cannot live there.

use smpatch_patch_apply::{apply, ApplyOptions};
use smpatch_patch_create::{create_three_way, create_two_way, CreateOptions, OnConflict, ThreeWay};
use smpatch_schema::{Cursor, Schema};
use smpatch_value::{Arena, Value};

/// Which operation: apply (original, patch), create2 (original, modified)
/// or create3 (original, modified, current; `OnConflict::Fail`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Apply,
    Create2,
    Create3,
}

/// Options of every measured call (the defaults).
#[derive(Default)]
pub struct Opts {
    pub apply: ApplyOptions,
    pub create: CreateOptions,
}

/// The operation on parsed documents `v`, in the order [`Kind`] names.
pub fn engine<'a>(
    arena: &'a Arena,
    kind: Kind,
    v: &[Value<'a>],
    cursor: Cursor<'_>,
    opts: &Opts,
) -> Value<'a> {
    match kind {
        Kind::Apply => apply(arena, v[0], v[1], cursor, &opts.apply),
        Kind::Create2 => create_two_way(arena, v[0], v[1], cursor, &opts.create, &[]),
        Kind::Create3 => create_three_way(
            arena,
            ThreeWay {
                original: v[0],
                modified: v[1],
                current: v[2],
            },
            cursor,
            OnConflict::Fail,
            &opts.create,
            &[],
        ),
    }
    .unwrap()
}

/// The same through the facade's bytes API (its own arena, type look-up
/// and output buffer): the result as bytes.
pub fn facade(
    kind: Kind,
    docs: &[&[u8]],
    schema: &Schema,
    ty: &smpatch::TypeRef,
    opts: &Opts,
) -> Vec<u8> {
    match kind {
        Kind::Apply => smpatch::apply_bytes(docs[0], docs[1], schema, ty, &opts.apply),
        Kind::Create2 => smpatch::create_two_way_bytes(docs[0], docs[1], schema, ty, &opts.create),
        Kind::Create3 => smpatch::create_three_way_bytes(
            smpatch::ThreeWayDocs::new(docs[0], docs[1], docs[2]),
            schema,
            ty,
            OnConflict::Fail,
            &opts.create,
        ),
    }
    .unwrap()
}
