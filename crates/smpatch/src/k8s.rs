//! Typed helpers for [k8s-openapi] resources (feature `k8s-openapi`, off by
//! default): a typed object in, a typed object or a patch out, the schema
//! type taken from the Rust type's group, version and kind
//! ([`k8s_openapi::Resource`]).
//!
//! smpatch does not pick a Kubernetes version of k8s-openapi: your build
//! turns on one of its `v1_*` features, as k8s-openapi asks of the final
//! crate. The embedded schema describes Kubernetes v1.37.
//!
//! The patches are `serde_json::Value`s: with kube-rs, send one as
//! `kube::api::Patch::Strategic(patch)`.
//!
//! [k8s-openapi]: https://crates.io/crates/k8s-openapi

use crate::{
    ApplyOptions, CreateOptions, Error, FacadeKind, OnConflict, Schema, ThreeWayDocs, TypeRef,
};
use k8s_openapi::serde::{de::DeserializeOwned, Serialize};
use k8s_openapi::Resource;

/// The schema type of `K`: its `group/version/kind`, e.g.
/// `apps/v1/Deployment` for `k8s_openapi::api::apps::v1::Deployment`.
pub fn type_ref<K: Resource>() -> TypeRef {
    TypeRef::Gvk(format!("{}/{}", K::API_VERSION, K::KIND))
}

fn to_json<K: Serialize>(v: &K, what: &str) -> Result<serde_json::Value, Error> {
    serde_json::to_value(v)
        .map_err(|e| Error::facade(FacadeKind::InvalidDocument, "", format!("{what}: {e}")))
}

/// Merges a strategic merge `patch` into the typed object `live` and reads
/// the result back as `K`. `live` is not changed.
pub fn apply_typed<K>(
    live: &K,
    patch: &serde_json::Value,
    schema: &Schema,
    opts: &ApplyOptions,
) -> Result<K, Error>
where
    K: Resource + Serialize + DeserializeOwned,
{
    let merged = crate::apply_json(
        &to_json(live, "live")?,
        patch,
        schema,
        &type_ref::<K>(),
        opts,
    )?;
    serde_json::from_value(merged).map_err(|e| {
        Error::facade(
            FacadeKind::InvalidDocument,
            "",
            format!("the merged object does not read back as {}: {e}", K::KIND),
        )
    })
}

/// The two-way patch that turns `original` into `modified`.
pub fn create_two_way_typed<K>(
    original: &K,
    modified: &K,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<serde_json::Value, Error>
where
    K: Resource + Serialize,
{
    crate::create_two_way_json(
        &to_json(original, "original")?,
        &to_json(modified, "modified")?,
        schema,
        &type_ref::<K>(),
        opts,
    )
}

/// The three-way patch of `kubectl apply`: `docs.original` (the object of
/// the last-applied annotation), `docs.modified` (the new manifest) and
/// `docs.current` (the live object). With [`OnConflict::Fail`], a change made
/// on the server that the patch would undo is a `conflict` error.
pub fn create_three_way_typed<K>(
    docs: ThreeWayDocs<'_, K>,
    schema: &Schema,
    on_conflict: OnConflict,
    opts: &CreateOptions,
) -> Result<serde_json::Value, Error>
where
    K: Resource + Serialize,
{
    let original = to_json(docs.original, "original")?;
    let modified = to_json(docs.modified, "modified")?;
    let current = to_json(docs.current, "current")?;
    crate::create_three_way_json(
        ThreeWayDocs::new(&original, &modified, &current),
        schema,
        &type_ref::<K>(),
        on_conflict,
        opts,
    )
}
