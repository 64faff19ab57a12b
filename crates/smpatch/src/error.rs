//! The facade error: one shape for parse, schema, patch and facade errors.
//!
//! Adding a kind: a refusal of the facade itself gets a [`FacadeKind`]
//! variant and a line in [`FacadeKind::name`]; a new engine crate's error
//! gets an [`ErrorKind`] variant holding that crate's kind, an arm in
//! [`ErrorKind::name`] and a `From` conversion below. Both enums are
//! `#[non_exhaustive]`, so adding a variant breaks no caller. Every name is
//! listed in `docs/ERRORS.md` and never changes once published.

use smpatch_fieldsets::{Error as FieldsError, ErrorKind as FieldsErrorKind};
use smpatch_patch_apply::ErrorKind as PatchErrorKind;
use smpatch_schema::{SchemaError, SchemaErrorKind};
use smpatch_union_normalize::{Error as UnionError, ErrorKind as UnionErrorKind, Violation};
use smpatch_value::{ParseError, ParseErrorKind};
use std::fmt;
use std::sync::Arc;

/// Which layer refused, and why: the typed form of an [`Error`]'s kind.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A document could not be read (smpatch-value's parser).
    Parse(ParseErrorKind),
    /// A schema could not be loaded, or has no such type (smpatch-schema).
    Schema(SchemaErrorKind),
    /// Apply, create, conflicts or compose refused the documents
    /// (smpatch-patch-apply's kinds, shared by smpatch-patch-create).
    Patch(PatchErrorKind),
    /// The facade, batch mode or the CLI refused the call itself.
    Facade(FacadeKind),
    /// Union normalization or validation could not run (smpatch-union-normalize).
    Union(UnionErrorKind),
    /// Field sets, extract or owners refused the object or its managed
    /// fields (smpatch-fieldsets).
    Fields(FieldsErrorKind),
}

impl ErrorKind {
    /// The stable snake_case name printed by the CLI and batch mode
    /// (`docs/ERRORS.md`). Parse kinds print as `too_deep` and `too_large`
    /// for the parser's limits and `invalid_document` for everything else.
    ///
    /// ```
    /// use smpatch::{ErrorKind, FacadeKind};
    /// assert_eq!(ErrorKind::Facade(FacadeKind::InvalidRequest).name(), "invalid_request");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Parse(k) => match k {
                ParseErrorKind::TooDeep => "too_deep",
                ParseErrorKind::TooLarge
                | ParseErrorKind::StringTooLong
                | ParseErrorKind::AliasLimit => "too_large",
                _ => "invalid_document",
            },
            ErrorKind::Schema(k) => k.name(),
            ErrorKind::Patch(k) => k.name(),
            ErrorKind::Facade(k) => k.name(),
            ErrorKind::Union(k) => k.name(),
            ErrorKind::Fields(k) => k.name(),
        }
    }
}

/// The facade's own refusals.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FacadeKind {
    /// A document is empty where one is required, is not an object, or a
    /// YAML stream holds several documents where one is expected.
    InvalidDocument,
    /// A `serde_json::Value` nests deeper than the call's `max_depth`.
    TooDeep,
    /// An input (a file, stdin, a batch request line) is longer than its limit.
    TooLarge,
    /// A result number that `serde_json::Number` cannot hold.
    UnrepresentableNumber,
    /// No type for the documents (`TypeRef` names none, or `Detect` finds none).
    UnknownType,
    /// A batch request or CLI call that is malformed.
    InvalidRequest,
    /// An operation this build does not provide.
    Unsupported,
    /// The result breaks union (KEP-1027) or enum (KEP-2887) rules; every
    /// violation is in [`Error::violations`].
    Validation,
}

impl FacadeKind {
    /// The stable snake_case name (`docs/ERRORS.md`).
    pub fn name(self) -> &'static str {
        match self {
            FacadeKind::InvalidDocument => "invalid_document",
            FacadeKind::TooDeep => "too_deep",
            FacadeKind::TooLarge => "too_large",
            FacadeKind::UnrepresentableNumber => "unrepresentable_number",
            FacadeKind::UnknownType => "unknown_type",
            FacadeKind::InvalidRequest => "invalid_request",
            FacadeKind::Unsupported => "unsupported",
            FacadeKind::Validation => "validation",
        }
    }
}

/// An error from any layer, as machines and people see it: a typed
/// [`kind`](Error::kind) with a stable snake_case [`name`](Error::name), an
/// RFC 6901 JSON [`path`](Error::path) (`""` is the document root; for schema
/// errors, the schema location), a [`message`](Error::message) that says what
/// to fix, and the lower layer's error as [`source`](std::error::Error::source).
///
/// ```
/// use smpatch::{apply_bytes, ApplyOptions, ErrorKind, TypeRef};
/// let schema = smpatch::embedded_schema().unwrap();
/// let e = apply_bytes(b"[1]", b"{}", schema, &TypeRef::Schemaless, &ApplyOptions::default())
///     .unwrap_err();
/// assert_eq!(e.name(), "invalid_document");
/// assert!(matches!(e.kind(), ErrorKind::Facade(_)));
/// assert_eq!(e.to_string(), "/: invalid JSON document (original): the top level must be an object, not a list");
/// ```
///
/// Its `Debug` form (what `fn main() -> Result<(), smpatch::Error>` prints
/// on failure) shows the kind, path and message once; the lower layer's
/// error, which says the same thing, is left to
/// [`source`](std::error::Error::source).
#[derive(Clone)]
pub struct Error {
    kind: ErrorKind,
    path: String,
    message: String,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl PartialEq for Error {
    /// Kind, path and message (the source is not compared).
    fn eq(&self, other: &Self) -> bool {
        (self.kind, &self.path, &self.message) == (other.kind, &other.path, &other.message)
    }
}

impl Eq for Error {}

impl Error {
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind, path: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            kind,
            path: path.into(),
            message: message.into(),
            source: None,
        }
    }

    /// A facade error.
    pub(crate) fn facade(
        kind: FacadeKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::new(ErrorKind::Facade(kind), path, message)
    }

    /// The same error, with `source` as its cause.
    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// A parse error of the document named `what`: `too_deep` and
    /// `too_large` for the parser's limits, `invalid_document` otherwise
    /// (its message then says `invalid JSON document (<what>)`).
    pub(crate) fn parse(e: ParseError, what: &str) -> Self {
        let kind = ErrorKind::Parse(e.kind);
        // The error's own path leads its Display; the parser's message is
        // taken without it so the pointer is not said twice.
        let at = format!(
            "{} at line {} column {} (byte {})",
            e.message, e.line, e.column, e.offset
        );
        let message = if kind.name() == "invalid_document" {
            format!("invalid JSON document ({what}): {at}")
        } else {
            format!("{what}: {at}")
        };
        Error::new(kind, e.path.clone(), message).with_source(e)
    }

    /// True for the `unknown_type` error of a document that has neither
    /// `apiVersion` nor `kind`: its message starts with
    /// [`Error::UNTYPED_DOCUMENT`] and goes on with the Rust
    /// [`TypeRef`](crate::TypeRef) forms that fix it, so a front end (the
    /// CLI, batch mode, the Python binding) can say its own way instead.
    ///
    /// ```
    /// use serde_json::json;
    /// use smpatch::{apply_json, ApplyOptions, TypeRef};
    /// let schema = smpatch::embedded_schema().unwrap();
    /// let (live, patch) = (json!({"spec": {}}), json!({"spec": {"a": 1}}));
    /// let e = apply_json(&live, &patch, schema, &TypeRef::Detect, &ApplyOptions::default())
    ///     .unwrap_err();
    /// assert!(e.is_untyped_document());
    /// assert!(e.message().starts_with(smpatch::Error::UNTYPED_DOCUMENT));
    /// ```
    pub fn is_untyped_document(&self) -> bool {
        self.kind == ErrorKind::Facade(FacadeKind::UnknownType)
            && self.message.starts_with(Self::UNTYPED_DOCUMENT)
    }

    /// How the message of an [untyped document](Error::is_untyped_document)
    /// error starts.
    pub const UNTYPED_DOCUMENT: &'static str =
        "cannot tell the document's type: no apiVersion and kind";

    /// The same error (kind, path and source) with `message` instead of its
    /// own: for front ends that reword a message in their terms.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    /// The typed kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The kind's stable snake_case name (`missing_merge_key`,
    /// `invalid_document`, …), as the CLI and batch mode print it.
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// Where: an RFC 6901 JSON pointer (`""` = root); for schema errors the
    /// schema location `<source>#<pointer>`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was wrong and what to fix.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The union and enum violations of a `validation` error (every one
    /// found, in document order); empty for every other error.
    pub fn violations(&self) -> &[Violation] {
        self.source
            .as_deref()
            .and_then(|s| s.downcast_ref::<crate::unions::Violations>())
            .map_or(&[], |v| v.0.as_slice())
    }

    /// Prefixes the path (used when an error happened inside a sub-document).
    pub(crate) fn with_prefix(mut self, prefix: &str) -> Self {
        if !prefix.is_empty() {
            self.path = format!("{prefix}{}", self.path);
        }
        self
    }

    /// Moves the error to `path` (a JSON pointer into a request); its old
    /// location, when it had one, leads the message instead.
    pub(crate) fn relocated(mut self, path: &str) -> Self {
        if !self.path.is_empty() {
            self.message = format!("{}: {}", self.path, self.message);
        }
        self.path = path.to_owned();
        self
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind)
            .field("path", &self.path)
            .field("message", &self.message)
            .finish()
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

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<smpatch_patch_apply::Error> for Error {
    fn from(e: smpatch_patch_apply::Error) -> Self {
        Error::new(ErrorKind::Patch(e.kind()), e.path(), e.message()).with_source(e)
    }
}

impl From<SchemaError> for Error {
    /// Kind and message unchanged; `path` is the schema location.
    fn from(e: SchemaError) -> Self {
        Error::new(
            ErrorKind::Schema(e.kind),
            e.pointer.clone(),
            e.message.clone(),
        )
        .with_source(e)
    }
}

impl From<UnionError> for Error {
    /// Kind (`too_deep`), path and message unchanged.
    fn from(e: UnionError) -> Self {
        Error::new(ErrorKind::Union(e.kind), e.path.clone(), e.message.clone()).with_source(e)
    }
}

impl From<FieldsError> for Error {
    /// Kind, path and message unchanged.
    fn from(e: FieldsError) -> Self {
        Error::new(ErrorKind::Fields(e.kind()), e.path(), e.message()).with_source(e)
    }
}
