//! The facade error: one shape for parse, schema and patch errors.

use std::fmt;

/// An error from any layer, as machines and people see it: a stable
/// snake_case `kind` (listed in `docs/ERRORS.md`), an RFC 6901 JSON `path`
/// (`""` is the document root; for schema errors, the schema location), and a
/// `message` that says what to fix.
///
/// ```
/// let e = smpatch::Error::new("invalid_document", "", "the document is not an object");
/// assert_eq!(e.to_string(), "/: the document is not an object");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// Stable snake_case kind (`missing_merge_key`, `invalid_document`, …).
    pub kind: &'static str,
    /// RFC 6901 JSON pointer of the offending value (`""` = root).
    pub path: String,
    /// What was wrong and what to fix.
    pub message: String,
}

/// The facade error under the name the issue uses.
pub type FacadeError = Error;

impl Error {
    /// A new error.
    pub fn new(kind: &'static str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            kind,
            path: path.into(),
            message: message.into(),
        }
    }

    /// Prefixes the path (used when an error happened inside a sub-document).
    pub(crate) fn with_prefix(mut self, prefix: &str) -> Self {
        if !prefix.is_empty() {
            self.path = format!("{prefix}{}", self.path);
        }
        self
    }
}

impl fmt::Display for Error {
    /// `"<path>: <message>"`, the root printed as `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{path}: {}", self.message)
    }
}

impl std::error::Error for Error {}

impl From<smpatch_patch_apply::Error> for Error {
    fn from(e: smpatch_patch_apply::Error) -> Self {
        Error::new(e.kind().name(), e.path(), e.message())
    }
}
