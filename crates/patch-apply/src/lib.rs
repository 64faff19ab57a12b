//! Applying a strategic merge patch to an object (server side).
//!
//! Owns: the merge of spec §3: object merge, keyed and primitive merge lists,
//! every directive, the ordering rules, and the apply error catalogue.
//!
//! Must not: parse JSON text or schemas (callers hand it arena values and a
//! compiled schema cursor); mutate its inputs.
#![deny(missing_docs)]

mod error;

pub use error::{push_pointer_token, Error, ErrorKind};
