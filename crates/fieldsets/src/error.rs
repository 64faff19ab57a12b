//! The error type of the crate.

use std::fmt;

/// What went wrong. Names (see [`ErrorKind::name`]) are listed in
/// docs/ERRORS.md.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// FieldsV1 JSON that does not decode (bad key, non-object value,
    /// invalid JSON, trailing data).
    InvalidFieldsV1,
    /// The object does not fit its schema (undeclared field, wrong type).
    SchemaMismatch,
    /// A list item whose path element cannot be computed (a keyed list item
    /// that is not an object or has none of the key fields, an object in a
    /// set list, ...).
    InvalidListItem,
    /// Two items of an associative list have the same key or value.
    DuplicateListItem,
    /// Nesting deeper than the configured limit.
    TooDeep,
    /// The object is not an object, or its `metadata` is neither an object
    /// nor `null`.
    InvalidObject,
    /// `metadata.managedFields` or one of its entries is malformed.
    MalformedManagedFields,
    /// The manager has no `Apply` entry for the subresource.
    NoApplyEntry,
    /// The entry was recorded for another `apiVersion` than the object's
    /// (only with the strict check).
    ApiVersionMismatch,
    /// Nothing the manager owns is left at the top level (only with
    /// the reference's empty-result behaviour).
    EmptyResult,
}

impl ErrorKind {
    /// The stable snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidFieldsV1 => "invalid_fieldsv1",
            ErrorKind::SchemaMismatch => "schema_mismatch",
            ErrorKind::InvalidListItem => "invalid_list_item",
            ErrorKind::DuplicateListItem => "duplicate_list_item",
            ErrorKind::TooDeep => "too_deep",
            ErrorKind::InvalidObject => "invalid_object",
            ErrorKind::MalformedManagedFields => "malformed_managed_fields",
            ErrorKind::NoApplyEntry => "no_apply_entry",
            ErrorKind::ApiVersionMismatch => "api_version_mismatch",
            ErrorKind::EmptyResult => "empty_result",
        }
    }
}

/// An error with its kind, where it happened and a message.
///
/// `path` is a JSON pointer into the object (`/spec/ports/1`) for errors
/// about an object, or the path-element path (`f:spec.k:{…}`) for errors in
/// FieldsV1 text; empty at the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    path: String,
    message: String,
}

impl Error {
    pub(crate) fn new(
        kind: ErrorKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error {
            kind,
            path: path.into(),
            message: message.into(),
        }
    }

    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Where (see the type's docs).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn prefixed(mut self, prefix: &str) -> Self {
        self.message = format!("{prefix}{}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for Error {}
