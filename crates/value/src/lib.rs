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
mod error;
mod parse_json;
mod render;
mod serde_conv;
mod value;
mod write_json;
mod write_yaml;
mod yaml;

pub use arena::Arena;
pub use error::{DuplicateKeys, ParseError, ParseErrorKind, ParseOptions};
pub use parse_json::parse_json;
pub use render::{go_format_g, render};
pub use serde_conv::{from_serde, to_serde, ConvertError};
pub use value::{Kind, Member, Number, NumberKind, Object, Value};
pub use write_json::{
    to_go_json, to_go_json_pretty, to_json_pretty, to_json_string, write_go_json, write_json,
};
pub use write_yaml::{to_yaml_string, write_yaml};
pub use yaml::{parse_yaml, parse_yaml_single};
