//! The arena value tree of smpatch.
//!
//! Owns: the [`Value`] tree allocated in an [`Arena`], number literals kept
//! exactly, deep equality, Go `%v` rendering, conversion to and from
//! `serde_json::Value`, and the document boundary:
//!
//! * readers: [`parse_json`] (bytes straight into the arena, borrowing
//!   unescaped strings) and [`parse_yaml`] / [`parse_yaml_single`] (scalars
//!   resolved as kubectl resolves them), both bounded by [`ParseOptions`] and
//!   failing with a located [`ParseError`];
//! * writers: [`to_json_string`] (compact, literals kept), [`to_json_pretty`]
//!   (kubectl `-o json` layout), [`to_go_json`] / [`to_go_json_pretty`]
//!   (Go `encoding/json` bytes: sorted keys, Go floats, HTML-safe escapes) and
//!   [`to_yaml_string`] (kubectl `-o yaml` layout);
//! * [`hashing`]: the keyed (per-process random) hash maps, sets and hashes
//!   every smpatch crate uses over input, so no keys collide on purpose.
//!
//! Architecture Invariant: no reader, writer or comparison recurses; every
//! tree walk uses an explicit stack, so depth is limited only by
//! [`ParseOptions::max_depth`] and memory.
//!
//! Must not: know anything about schemas or patches, or recurse in a way a
//! deep input can overflow.
//!
//! ```
//! use smpatch_value::{from_serde, to_serde, Arena};
//! let arena = Arena::new();
//! let v = from_serde(&arena, &serde_json::json!({"spec": {"replicas": 3}}), 256).unwrap();
//! assert_eq!(to_serde(&v).unwrap(), serde_json::json!({"spec": {"replicas": 3}}));
//!
//! use smpatch_value::{parse_json, parse_yaml_single, to_go_json, ParseOptions};
//! let opts = ParseOptions::default();
//! let a = parse_json(&arena, br#"{"spec":{"paused":true,"replicas":3}}"#, &opts).unwrap();
//! let b = parse_yaml_single(&arena, "spec:\n  replicas: 3\n  paused: yes\n", &opts).unwrap();
//! assert!(a == b);
//! assert_eq!(to_go_json(&b), r#"{"spec":{"paused":true,"replicas":3}}"#);
//! ```
#![deny(missing_docs)]

mod arena;
mod error;
mod hash;
pub mod hashing;
mod parse_json;
mod path;
mod render;
mod serde_conv;
mod value;
mod write_json;
mod write_yaml;
mod yaml;
mod yaml_input;

pub use arena::Arena;
pub use error::{DuplicateKeys, ParseError, ParseErrorKind, ParseOptions};
pub use parse_json::parse_json;
pub use path::{pointer_of, push_pointer_token, push_step, Path, Step, DEFAULT_MAX_DEPTH};
pub use render::{go_format_g, render};
pub use serde_conv::{from_serde, to_serde, ConvertError};
pub use value::{Kind, Member, Number, NumberKind, Object, Value};
pub use write_json::{
    to_go_json, to_go_json_pretty, to_json_pretty, to_json_string, write_go_json, write_json,
    write_json_pretty_to, write_json_to,
};
pub use write_yaml::{to_yaml_string, write_yaml, write_yaml_to};
pub use yaml::{parse_yaml, parse_yaml_single};
