//! [`ParseOptions`] and [`ParseError`], shared by the JSON and YAML readers.

use crate::path::Step;
use std::fmt;

/// What to do when an object repeats a key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DuplicateKeys {
    /// Reject the document with [`ParseErrorKind::DuplicateKey`] (the default;
    /// a documented divergence from Go, see docs/DIVERGENCES.md).
    #[default]
    Error,
    /// The later value replaces the earlier one, which keeps the position of
    /// the *first* occurrence (like Go decoding into a map, and like
    /// `serde_json` with `preserve_order`).
    LastWins,
}

/// Limits and policies of [`parse_json`](crate::parse_json) and
/// [`parse_yaml`](crate::parse_yaml).
///
/// ```
/// use smpatch_value::{DuplicateKeys, ParseOptions};
/// let opts = ParseOptions::default().with_duplicate_keys(DuplicateKeys::LastWins);
/// assert_eq!(opts.max_depth, 256);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Deepest container nesting accepted (a flat list is depth 1). Default
    /// [`DEFAULT_MAX_DEPTH`](crate::DEFAULT_MAX_DEPTH) (256).
    pub max_depth: usize,
    /// Largest input accepted, in bytes. Default 512 MiB.
    pub max_input_bytes: usize,
    /// Longest string (after unescaping) accepted, in bytes. Default 256 MiB.
    pub max_string_bytes: usize,
    /// Duplicate object keys policy. Default [`DuplicateKeys::Error`].
    pub duplicate_keys: DuplicateKeys,
    /// YAML only: the most nodes that alias expansion may add to a stream
    /// (each `*alias` counts the nodes of the tree it stands for). Guards
    /// against "billion laughs" documents. Default 1,000,000.
    pub max_yaml_alias_expansions: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_depth: crate::DEFAULT_MAX_DEPTH,
            max_input_bytes: 512 << 20,
            max_string_bytes: 256 << 20,
            duplicate_keys: DuplicateKeys::Error,
            max_yaml_alias_expansions: 1_000_000,
        }
    }
}

/// Builder-style setters (the struct is `#[non_exhaustive]`: start from
/// [`ParseOptions::default`] and set what differs).
///
/// ```
/// use smpatch_value::{DuplicateKeys, ParseOptions};
/// let opts = ParseOptions::default().with_max_depth(64).with_duplicate_keys(DuplicateKeys::LastWins);
/// assert_eq!((opts.max_depth, opts.duplicate_keys), (64, DuplicateKeys::LastWins));
/// ```
impl ParseOptions {
    /// Sets [`ParseOptions::max_depth`]: deepest container nesting accepted.
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Sets [`ParseOptions::max_input_bytes`]: largest input accepted, in bytes.
    #[must_use]
    pub fn with_max_input_bytes(mut self, max_input_bytes: usize) -> Self {
        self.max_input_bytes = max_input_bytes;
        self
    }

    /// Sets [`ParseOptions::max_string_bytes`]: longest string accepted, in bytes.
    #[must_use]
    pub fn with_max_string_bytes(mut self, max_string_bytes: usize) -> Self {
        self.max_string_bytes = max_string_bytes;
        self
    }

    /// Sets [`ParseOptions::duplicate_keys`]: the duplicate object keys policy.
    #[must_use]
    pub fn with_duplicate_keys(mut self, duplicate_keys: DuplicateKeys) -> Self {
        self.duplicate_keys = duplicate_keys;
        self
    }

    /// Sets [`ParseOptions::max_yaml_alias_expansions`]: the YAML alias expansion budget.
    #[must_use]
    pub fn with_max_yaml_alias_expansions(mut self, max_yaml_alias_expansions: usize) -> Self {
        self.max_yaml_alias_expansions = max_yaml_alias_expansions;
        self
    }
}

/// The class of a [`ParseError`]. Names are listed in `docs/ERRORS.md`.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParseErrorKind {
    /// Malformed JSON structure (unexpected character, missing `:`, `,`, …)
    /// or unexpected end of input.
    Syntax,
    /// The input is not valid UTF-8.
    InvalidUtf8,
    /// A bad `\` escape in a string, including lone UTF-16 surrogates.
    InvalidEscape,
    /// A raw control character (U+0000–U+001F) inside a string.
    ControlCharacter,
    /// A number that breaks the RFC 8259 grammar (also `NaN`, `Infinity`).
    InvalidNumber,
    /// An object repeats a key and [`DuplicateKeys::Error`] is in force.
    DuplicateKey,
    /// Nesting deeper than [`ParseOptions::max_depth`].
    TooDeep,
    /// Input longer than [`ParseOptions::max_input_bytes`].
    TooLarge,
    /// A string longer than [`ParseOptions::max_string_bytes`].
    StringTooLong,
    /// Empty or whitespace-only input where a document is required.
    Empty,
    /// More text after a complete JSON value.
    TrailingCharacters,
    /// YAML the reader rejects (syntax, unsupported keys, `.inf`/`.nan`, …).
    Yaml,
    /// YAML alias expansion beyond [`ParseOptions::max_yaml_alias_expansions`].
    AliasLimit,
    /// A YAML alias names an anchor that was not defined before it.
    UnknownAnchor,
    /// More than one YAML document where exactly one was required.
    MultipleDocuments,
}

impl ParseErrorKind {
    /// The stable snake_case name (`syntax`, `too_deep`, …).
    pub fn name(self) -> &'static str {
        match self {
            ParseErrorKind::Syntax => "syntax",
            ParseErrorKind::InvalidUtf8 => "invalid_utf8",
            ParseErrorKind::InvalidEscape => "invalid_escape",
            ParseErrorKind::ControlCharacter => "control_character",
            ParseErrorKind::InvalidNumber => "invalid_number",
            ParseErrorKind::DuplicateKey => "duplicate_key",
            ParseErrorKind::TooDeep => "too_deep",
            ParseErrorKind::TooLarge => "too_large",
            ParseErrorKind::StringTooLong => "string_too_long",
            ParseErrorKind::Empty => "empty",
            ParseErrorKind::TrailingCharacters => "trailing_characters",
            ParseErrorKind::Yaml => "yaml",
            ParseErrorKind::AliasLimit => "alias_limit",
            ParseErrorKind::UnknownAnchor => "unknown_anchor",
            ParseErrorKind::MultipleDocuments => "multiple_documents",
        }
    }
}

/// Why a document could not be read, and where.
///
/// Display: `<path>: <message> at line L column C (byte O)`; the path part
/// is left out at the document root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// 1-based line of the offending byte.
    pub line: usize,
    /// 1-based column (in characters) of the offending byte.
    pub column: usize,
    /// 0-based byte offset of the offending byte.
    pub offset: usize,
    /// RFC 6901 JSON pointer of the value being read (`""` for the root).
    pub path: String,
    /// A sentence saying what is wrong.
    pub message: String,
}

impl ParseError {
    /// The kind's stable snake_case name, as in `docs/ERRORS.md`.
    pub fn kind_name(&self) -> &'static str {
        self.kind.name()
    }

    /// An error at byte `offset` of `input`; line and column are computed here.
    pub(crate) fn at(
        kind: ParseErrorKind,
        input: &[u8],
        offset: usize,
        path: String,
        message: String,
    ) -> Self {
        let offset = offset.min(input.len());
        let before = &input[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        // Count characters, not bytes: skip UTF-8 continuation bytes.
        let column = before[line_start..]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count()
            + 1;
        ParseError {
            kind,
            line,
            column,
            offset,
            path,
            message,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        write!(
            f,
            "{} at line {} column {} (byte {})",
            self.message, self.line, self.column, self.offset
        )
    }
}

impl std::error::Error for ParseError {}

/// The path of a parser's stack of open containers, outermost first: each is
/// `(Some(key being read or None), _)` for a map or `(None, start)` for a
/// list whose items begin at `values[start]`; a list's index is the number of
/// items it holds so far (up to the next open list's start, or `values_len`).
pub(crate) fn open_path<'a>(
    open: impl Iterator<Item = (Option<Option<&'a str>>, usize)> + Clone,
    values_len: usize,
) -> Vec<Step<'a>> {
    let mut segs = Vec::new();
    let mut rest = open.clone();
    for (map_key, start) in open {
        rest.next();
        match map_key {
            Some(key) => segs.extend(key.map(Step::Key)),
            None => {
                let end = rest
                    .clone()
                    .find(|g| g.0.is_none())
                    .map_or(values_len, |g| g.1);
                segs.push(Step::Index(end - start));
            }
        }
    }
    segs
}
