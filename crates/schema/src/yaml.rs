//! YAML input (CRD manifests).

use crate::compile::Builder;
use crate::error::{SchemaError, SchemaErrorKind};

/// Parses YAML (one or more documents) and compiles every document.
pub(crate) fn add_yaml(_b: &mut Builder, _bytes: &[u8], source: &str) -> Result<(), SchemaError> {
    Err(SchemaError::new(
        SchemaErrorKind::Parse,
        source,
        "YAML input is not supported yet (JSON documents must start with '{')",
    ))
}
