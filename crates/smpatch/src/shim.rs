//! Temporary stand-ins for workspace APIs that have not landed yet.
//!
//! Each item here mirrors the signature of the real one so that switching is
//! a one-line change in `engine.rs`. Nothing here pretends to merge or diff:
//! operations whose crate has not landed answer `unsupported`.

use smpatch_value::{from_serde, to_serde, Arena, Value};

/// Mirrors `smpatch_value::ParseOptions` (subset).
#[derive(Clone, Debug)]
pub(crate) struct ParseOptions {
    pub(crate) max_depth: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { max_depth: 256 }
    }
}

/// Mirrors `smpatch_value::ParseError` (subset).
#[derive(Clone, Debug)]
pub(crate) struct ParseError {
    pub(crate) path: String,
    pub(crate) message: String,
}

impl ParseError {
    pub(crate) fn kind_name(&self) -> &'static str {
        "syntax"
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

pub(crate) fn parse_json<'a>(
    arena: &'a Arena,
    bytes: &[u8],
    opts: &ParseOptions,
) -> Result<Value<'a>, ParseError> {
    let v: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| ParseError {
        path: String::new(),
        message: e.to_string(),
    })?;
    from_serde(arena, &v, opts.max_depth).map_err(|e| ParseError {
        path: e.path,
        message: e.message,
    })
}

pub(crate) fn parse_yaml<'a>(
    _arena: &'a Arena,
    _text: &str,
    _opts: &ParseOptions,
) -> Result<Vec<Value<'a>>, ParseError> {
    Err(ParseError {
        path: String::new(),
        message: "YAML input is not supported yet".into(),
    })
}

pub(crate) fn to_json_string(v: &Value<'_>) -> String {
    to_serde(v)
        .map(|s| s.to_string())
        .unwrap_or_else(|e| format!("\"unserializable: {e}\""))
}

pub(crate) fn to_json_pretty(v: &Value<'_>) -> String {
    to_serde(v)
        .ok()
        .and_then(|s| serde_json::to_string_pretty(&s).ok())
        .unwrap_or_default()
}

pub(crate) fn to_go_json(v: &Value<'_>) -> String {
    to_json_string(v)
}

pub(crate) fn to_yaml_string(v: &Value<'_>) -> String {
    to_json_pretty(v)
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

/// Mirrors `smpatch_patch_create::CreateOptions` until it lands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateOptions {
    /// Turn on every fix §10 of the spec recommends.
    pub fix_quirks: bool,
    /// Merge `x-kubernetes-list-type: map` lists by all their list-map keys.
    pub compound_keys: bool,
    /// Emit only deletions.
    pub ignore_changes_and_additions: bool,
    /// Emit no deletions.
    pub ignore_deletions: bool,
}
