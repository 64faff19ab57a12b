//! The schema loading error.

use std::fmt;

/// What went wrong while loading a schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaErrorKind {
    /// A file or directory could not be read.
    Io,
    /// The bytes are not valid JSON or YAML.
    Parse,
    /// The document is nested deeper than the parser accepts.
    TooDeep,
    /// A file or document is larger than `LoadOptions::max_input_bytes`.
    TooLarge,
    /// The document is neither an OpenAPI v2/v3 document, a JSON-Schema
    /// `$defs` document, nor a CustomResourceDefinition.
    NotASchema,
    /// A `$ref` points to a definition the document does not have.
    DanglingRef,
    /// An `x-kubernetes-*` extension has the wrong JSON type or an unknown value.
    InvalidExtension,
    /// `x-kubernetes-patch-strategy` names an unknown strategy or an invalid
    /// combination (the reference accepts these silently: docs/QUIRKS.md#q29).
    UnknownStrategy,
    /// An `x-kubernetes-unions` declaration is malformed (KEP-1027).
    InvalidUnion,
    /// A CustomResourceDefinition lacks group, kind, versions or a schema.
    InvalidCrd,
    /// `explain`: no definition has that name or GVK.
    UnknownType,
    /// `explain`: a path segment names no field.
    UnknownField,
}

impl SchemaErrorKind {
    /// The kind as `snake_case` text (stable; used by the CLI and tests).
    pub fn name(self) -> &'static str {
        match self {
            SchemaErrorKind::Io => "io",
            SchemaErrorKind::Parse => "parse",
            SchemaErrorKind::TooDeep => "too_deep",
            SchemaErrorKind::TooLarge => "too_large",
            SchemaErrorKind::NotASchema => "not_a_schema",
            SchemaErrorKind::DanglingRef => "dangling_ref",
            SchemaErrorKind::InvalidExtension => "invalid_extension",
            SchemaErrorKind::UnknownStrategy => "unknown_strategy",
            SchemaErrorKind::InvalidUnion => "invalid_union",
            SchemaErrorKind::InvalidCrd => "invalid_crd",
            SchemaErrorKind::UnknownType => "unknown_type",
            SchemaErrorKind::UnknownField => "unknown_field",
        }
    }
}

/// An error loading (or explaining) a schema: a kind, where, and what to fix.
///
/// `pointer` is `<source>#<JSON pointer>` (for example
/// `swagger.json#/definitions/X/properties/y/x-kubernetes-patch-strategy`);
/// for errors without a position it is just the source name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    /// What went wrong.
    pub kind: SchemaErrorKind,
    /// Where: source name, `#`, JSON pointer into the document.
    pub pointer: String,
    /// Human-readable explanation.
    pub message: String,
}

impl SchemaError {
    /// Builds an error.
    pub fn new(
        kind: SchemaErrorKind,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        SchemaError {
            kind,
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    /// The kind as `snake_case` text.
    pub fn kind_name(&self) -> &'static str {
        self.kind.name()
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "{}: {}", self.kind.name(), self.message)
        } else {
            write!(
                f,
                "{}: {}: {}",
                self.kind.name(),
                self.pointer,
                self.message
            )
        }
    }
}

impl std::error::Error for SchemaError {}
