//! The arena value tree of smpatch.
//!
//! Owns: the [`Value`] tree allocated in an [`Arena`], number literals kept
//! exactly, deep equality, Go `%v` rendering, conversion to and from
//! `serde_json::Value`.
//!
//! Must not: know anything about schemas or patches, or recurse in a way a
//! deep input can overflow.
//!
//! ```
//! use smpatch_value::{from_serde, to_serde, Arena};
//! let arena = Arena::new();
//! let v = from_serde(&arena, &serde_json::json!({"spec": {"replicas": 3}}), 256).unwrap();
//! assert_eq!(to_serde(&v).unwrap(), serde_json::json!({"spec": {"replicas": 3}}));
//! ```
#![deny(missing_docs)]

mod arena;
mod render;
mod serde_conv;
mod value;

pub use arena::Arena;
pub use render::{go_format_g, render};
pub use serde_conv::{from_serde, to_serde, ConvertError};
pub use value::{Kind, Member, Number, NumberKind, Object, Value};
