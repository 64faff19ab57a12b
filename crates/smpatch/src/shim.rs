//! Temporary stand-ins for workspace APIs that have not landed yet.
//!
//! Each item here mirrors the signature of the real one so that switching is
//! a one-line change in `engine.rs`. Nothing here pretends to merge or diff:
//! operations whose crate has not landed answer `unsupported`.

use smpatch_value::{Arena, ParseOptions, Value};

pub(crate) fn parse_yaml<'a>(
    _arena: &'a Arena,
    _text: &'a str,
    _opts: &ParseOptions,
) -> Result<Vec<Value<'a>>, crate::Error> {
    Err(crate::Error::unsupported("YAML input"))
}

pub(crate) fn to_yaml_string(v: &Value<'_>) -> String {
    smpatch_value::to_json_pretty(v)
}

/// Mirrors `smpatch_patch_apply::ApplyOptions` until it lands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Turn on every fix §10 of the spec recommends.
    pub fix_quirks: bool,
    /// Merge `x-kubernetes-list-type: map` lists by all their list-map keys.
    pub compound_keys: bool,
    /// Reject duplicate merge keys in the live object.
    pub reject_duplicate_keys: bool,
}

