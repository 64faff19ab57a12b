//! The error type shared by apply, compose and create.

use std::fmt;

/// What went wrong, as machines see it. The snake_case name of each kind
/// ([`ErrorKind::name`]) is part of the contract (`docs/ERRORS.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A document is not a JSON object (or not valid JSON).
    InvalidDocument,
    /// `$patch` has a value other than `replace`/`delete` (or `merge` in an object).
    UnknownPatchType,
    /// `$patch: merge` as a list element.
    MergeListDirective,
    /// A keyed-list element lacks the merge key.
    MissingMergeKey,
    /// A list of objects merges but the schema gives no merge key.
    NoMergeKey,
    /// A merge list mixes element kinds.
    MixedElementTypes,
    /// A merge list contains lists.
    ListOfLists,
    /// A merge list contains `null`.
    NullElement,
    /// `$retainKeys` is not a list of strings, or a patch key is missing from it.
    InvalidRetainKeys,
    /// A malformed `$setElementOrder` key.
    InvalidSetElementOrder,
    /// A malformed `$deleteFromPrimitiveList` key or value.
    InvalidDeleteFromPrimitiveList,
    /// The patch list does not follow the `$setElementOrder` list.
    OrderMismatch,
    /// A directive or field holds the wrong container type (`expected a []interface {}`).
    ExpectedList,
    /// A keyed list needs an object (`expected a map[string]interface {}`).
    ExpectedObject,
    /// `$setElementOrder` where no list has any element (quirk Q20).
    NoElements,
    /// The schema cannot resolve a field (`unable to find api field`).
    SchemaLookup,
    /// The schema has a bad strategy or cannot be used.
    InvalidSchema,
    /// Two merge-list elements share a merge key (with `reject_duplicate_keys`).
    DuplicateMergeKey,
    /// Two composed patches disagree on a directive (`not deep equal`).
    ComposeMismatch,
    /// A three-way patch conflicts with changes made on the server.
    Conflict,
    /// A precondition on the created patch failed.
    PreconditionFailed,
    /// An input is deeper than the configured limit.
    TooDeep,
    /// An input is larger than a configured limit.
    TooLarge,
    /// The operation is not supported (yet).
    Unsupported,
}

impl ErrorKind {
    /// The snake_case name machines see.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidDocument => "invalid_document",
            ErrorKind::UnknownPatchType => "unknown_patch_type",
            ErrorKind::MergeListDirective => "merge_list_directive",
            ErrorKind::MissingMergeKey => "missing_merge_key",
            ErrorKind::NoMergeKey => "no_merge_key",
            ErrorKind::MixedElementTypes => "mixed_element_types",
            ErrorKind::ListOfLists => "list_of_lists",
            ErrorKind::NullElement => "null_element",
            ErrorKind::InvalidRetainKeys => "invalid_retain_keys",
            ErrorKind::InvalidSetElementOrder => "invalid_set_element_order",
            ErrorKind::InvalidDeleteFromPrimitiveList => "invalid_delete_from_primitive_list",
            ErrorKind::OrderMismatch => "order_mismatch",
            ErrorKind::ExpectedList => "expected_list",
            ErrorKind::ExpectedObject => "expected_object",
            ErrorKind::NoElements => "no_elements",
            ErrorKind::SchemaLookup => "schema_lookup",
            ErrorKind::InvalidSchema => "invalid_schema",
            ErrorKind::DuplicateMergeKey => "duplicate_merge_key",
            ErrorKind::ComposeMismatch => "compose_mismatch",
            ErrorKind::Conflict => "conflict",
            ErrorKind::PreconditionFailed => "precondition_failed",
            ErrorKind::TooDeep => "too_deep",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::Unsupported => "unsupported",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A patch error: its kind, where it happened (an RFC 6901 JSON pointer into
/// the patch or document), and a message that says what to fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    path: String,
    message: String,
}

impl Error {
    /// A new error.
    pub fn new(kind: ErrorKind, path: impl Into<String>, message: impl Into<String>) -> Self {
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

    /// Where: an RFC 6901 JSON pointer (`""` is the document root).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was wrong and what to fix.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error at another location (an RFC 6901 pointer), for
    /// callers that check a part of a document and know where it sits.
    pub fn at(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }
}

impl fmt::Display for Error {
    /// `"<path>: <message>"` (`"/: …"` style is avoided: the root prints as `/`).
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

/// Appends one RFC 6901 reference token (escaping `~` and `/`) to a pointer
/// (defined in `smpatch-value`; re-exported so this crate's API is unchanged).
pub use smpatch_value::push_pointer_token;
