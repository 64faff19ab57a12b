//! Patch metadata compiled from OpenAPI v2/v3 documents and CRDs.
//!
//! Owns: loading schemas once into an immutable `Send + Sync` lookup, the
//! cursor used by the merge algorithms, and the embedded Kubernetes schema.
//!
//! Also owns the decisions every patch engine shares (list plans and merge
//! keys, quirk-aware field lookup: [`Rules`]) and the walk context they
//! carry ([`Walk`], [`grow_stack`]).
//!
//! Must not: merge or diff values.
//!
//! ```
//! use smpatch_schema::{embedded, Strategy};
//! let deploy = embedded().cursor("apps/v1/Deployment").unwrap();
//! let pod_spec = deploy
//!     .lookup_object("spec").unwrap().cursor
//!     .lookup_object("template").unwrap().cursor
//!     .lookup_object("spec").unwrap().cursor;
//! let containers = pod_spec.lookup_list("containers").unwrap();
//! assert_eq!(containers.meta.strategy, Strategy::Merge);
//! assert_eq!(containers.meta.merge_key(), Some("name"));
//! ```
//!
//! Loading rules (see also `docs/ERRORS.md`):
//! * OpenAPI v2 `definitions`, OpenAPI v3 `components.schemas` (a property's
//!   `allOf[0]` is its schema, its own extensions are its metadata), JSON
//!   Schema `$defs`, and CustomResourceDefinitions (each version registered
//!   under its GVK and the name `<reversed group>.<version>.<Kind>`).
//! * Definitions become shared nodes; `$ref` is a node id, so recursive types
//!   are fine. Untyped schemas are [`NodeKind::Unknown`]; `type: object` without
//!   properties (or with `additionalProperties`) is a map.
//! * `x-kubernetes-preserve-unknown-fields: true` without properties is
//!   unknown; with properties it stays a struct whose undeclared fields look
//!   up as unknown (instead of the reference's "unable to find api field").
//! * Several documents: the last definition of a name wins.
#![deny(missing_docs)]

mod compile;
mod doc;
mod embedded;
mod error;
mod explain;
mod load;
mod model;
mod plan;
mod walk;

pub use embedded::{compile_embedded, embedded, embedded_checked, EMBEDDED_JSON, EMBEDDED_VERSION};
pub use error::{SchemaError, SchemaErrorKind};
pub use explain::{explain, explain_with, merge_text, strategy_text};
pub use load::{crd_definition_name, LoadOptions};
pub use model::{
    Cursor, Field, FieldDef, Gvk, ListType, LookupError, MapType, Node, NodeFlags, NodeId,
    NodeKind, PatchMeta, ScalarType, Schema, Strategy, Union, UnionMember,
};
pub use plan::{FieldShape, KeySpec, ListPlan, Rules};
pub use walk::{grow_stack, TooDeep, Walk, STACK_RED_ZONE, STACK_SEGMENT};
