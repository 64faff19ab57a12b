//! Patch metadata compiled from OpenAPI v2/v3 documents and CRDs.
//!
//! Owns: loading schemas once into an immutable `Send + Sync` lookup, the
//! cursor used by the merge algorithms, and the embedded Kubernetes schema.
//!
//! Must not: merge or diff values.
#![deny(missing_docs)]

mod model;

pub use model::{
    Cursor, Field, FieldDef, Gvk, ListType, LookupError, MapType, Node, NodeId, NodeKind,
    PatchMeta, Schema, Strategy, Union, UnionMember,
};
