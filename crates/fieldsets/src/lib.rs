//! Field sets of server-side apply (`metadata.managedFields[*].fieldsV1`)
//! and apply configurations extracted from live objects (KEP-2155).
//!
//! Owns:
//! * [`FieldSet`], a set of field paths whose [`PathElement`]s are fields
//!   (`f:`), keyed list items (`k:`), set items (`v:`) and indices (`i:`),
//!   ordered as the reference orders them (not by their text), with the set
//!   algebra (union, intersection, difference, recursive difference, leaves);
//! * FieldsV1 JSON: [`FieldSet::from_json`] and the canonical writer
//!   [`FieldSet::to_json`];
//! * [`fields_of`]: the set of an object as server-side apply computes it
//!   from the schema (`x-kubernetes-list-type`, list-map keys and their
//!   defaults, `x-kubernetes-map-type`, the patch-merge-key fallback);
//! * [`prune`], [`extract`] (a manager's apply configuration), [`owners`]
//!   (who owns which path) and [`managed_fields`].
//!
//! Behaviour and the options that differ from client-go are described in
//! docs/FIELDSETS.md of this repository.
//!
//! Must not: merge or diff patches, or do I/O. It stands on `smpatch-value`
//! and `smpatch-schema` only, and walks on their shared parts (the walk
//! context `smpatch_schema::Walk` with `smpatch_value::Path`, and
//! `ListPlan::field_set` for list types) rather than copies. Every walk is
//! bounded by a configurable depth.
//!
//! ```
//! use smpatch_fieldsets::FieldSet;
//! let set = FieldSet::from_json(br#"{"f:spec":{"f:ports":{"k:{\"protocol\":\"TCP\",\"port\":9090}":{},"k:{\"port\":53,\"protocol\":\"UDP\"}":{}}}}"#).unwrap();
//! assert_eq!(set.to_json(), r#"{"f:spec":{"f:ports":{"k:{\"port\":53,\"protocol\":\"UDP\"}":{},"k:{\"port\":9090,\"protocol\":\"TCP\"}":{}}}}"#);
//! ```
#![deny(missing_docs)]

mod error;
mod extract;
mod json;
mod pe;
mod set;
mod walk;

pub use error::{Error, ErrorKind};
pub use extract::{
    extract, managed_fields, owners, prune, ApiCheck, EmptyResult, ExtractOptions, LeafPolicy,
    ManagedFieldsEntry, MissingEntry, Owner, Unmatched,
};
pub use pe::{path_string, Path, PathElement, PeValue};
pub use set::{Entries, Entry, FieldSet, MAX_SET_DEPTH};
pub use walk::{fields_of, server_fields, FieldsOptions, Shape};
