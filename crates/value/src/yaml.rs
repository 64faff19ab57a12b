//! The YAML reader: saphyr-parser events into arena values, with scalars
//! resolved the way kubectl does (sigs.k8s.io/yaml over go-yaml v2).
//!
//! Architecture Invariant: no recursion; the event stream is folded with an
//! explicit frame stack. Aliases reuse the anchored arena value (no copy),
//! but every alias is charged the node count of what it stands for against
//! [`ParseOptions::max_yaml_alias_expansions`], so a consumer that walks the
//! expanded tree is never handed an exponential one.

use crate::error::{open_path, DuplicateKeys, ParseError, ParseErrorKind, ParseOptions};
use crate::hashing::HashMap;
use crate::parse_json::{first_duplicate, last_wins};
use crate::path::{pointer_of, Step};
use crate::write_json::go_format_float;
use crate::{Arena, Member, Number, Object, Value};
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span, Tag};
use std::borrow::Cow;
use std::collections::hash_map::Entry;

/// What a plain YAML scalar resolves to (go-yaml v2 rules, YAML 1.1-ish).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str,
    /// The merge key `<<`.
    Merge,
}

/// Resolves a plain (unquoted, untagged) scalar as go-yaml v2 does for an
/// `interface{}` target. Timestamps stay strings (go-yaml v2 keeps them as
/// strings for `interface{}`).
pub(crate) fn resolve_plain(s: &str) -> Resolved {
    let Some(&first) = s.as_bytes().first() else {
        return Resolved::Null;
    };
    let hint = match first {
        b'+' | b'-' => b'S',
        b'0'..=b'9' => b'D',
        b'.' => b'.',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' | b'<' => b'M',
        _ => return Resolved::Str,
    };
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Resolved::Bool(false)
        }
        "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        "<<" => return Resolved::Merge,
        _ => {}
    }
    match hint {
        b'.' => match s.parse::<f64>() {
            Ok(f) if f.is_finite() => Resolved::Float(f),
            _ => Resolved::Str,
        },
        b'D' | b'S' => {
            let plain: Cow<'_, str> = if s.contains('_') {
                Cow::Owned(s.replace('_', ""))
            } else {
                Cow::Borrowed(s)
            };
            if let Some((neg, mag)) = go_parse_int_base0(&plain) {
                if neg {
                    if mag <= 1u128 << 63 {
                        return Resolved::Int((mag as i128).wrapping_neg() as i64);
                    }
                } else if mag <= i64::MAX as u128 {
                    return Resolved::Int(mag as i64);
                } else if mag <= u64::MAX as u128 && !plain.starts_with('+') {
                    return Resolved::Uint(mag as u64);
                }
            }
            if is_yaml_style_float(&plain) {
                if let Ok(f) = plain.parse::<f64>() {
                    if f.is_finite() {
                        return Resolved::Float(f);
                    }
                }
            }
            Resolved::Str
        }
        _ => Resolved::Str,
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)` syntax: sign, then `0x`/`0o`/`0b`
/// prefixes, a leading `0` for octal, or decimal. Returns the sign and the
/// magnitude (saturated past `u64`), or `None` for bad syntax.
fn go_parse_int_base0(s: &str) -> Option<(bool, u128)> {
    let b = s.as_bytes();
    let (neg, rest) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    let (radix, digits) = match rest {
        [b'0', b'x' | b'X', d @ ..] => (16, d),
        [b'0', b'b' | b'B', d @ ..] => (2, d),
        [b'0', b'o' | b'O', d @ ..] => (8, d),
        [b'0', d @ ..] if !d.is_empty() => (8, d),
        d => (10, d),
    };
    if digits.is_empty() {
        return None;
    }
    let mut mag: u128 = 0;
    for &c in digits {
        let d = (c as char).to_digit(radix)?;
        mag = mag
            .saturating_mul(u128::from(radix))
            .saturating_add(u128::from(d));
    }
    Some((neg, mag))
}

/// go-yaml's `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let s = *i;
        while matches!(b.get(*i), Some(b'0'..=b'9')) {
            *i += 1;
        }
        *i - s
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// The text of a float mapping key as sigs.k8s.io/yaml writes it:
/// `strconv.FormatFloat(f, 'g', -1, 32)` (so `3.14159265358979` becomes
/// `3.1415927` and `1e39`, beyond `f32`, becomes `.inf`), with infinities and
/// NaN spelled `.inf`, `-.inf` and `.nan`.
fn yaml_float_key(f: f64) -> String {
    // `as` rounds to the nearest f32 (ties to even), as Go's float32(f) does.
    let g = f as f32;
    if g.is_nan() {
        return ".nan".into();
    }
    if g.is_infinite() {
        return if g > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    if g == 0.0 {
        return if g.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // `{:e}` of an f32 prints its shortest round-trip digits.
    let e = format!("{:e}", g.abs());
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let sign = if g.is_sign_negative() { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        crate::render::format_exponent(sign, digits, exp)
    } else {
        crate::render::plain(sign, digits, exp)
    }
}

/// The text of a `!!binary` scalar as go-yaml v2 and encoding/json leave
/// it: standard base64 with padding, line breaks skipped (Go's
/// `base64.StdEncoding`), the bytes then read as UTF-8 with each byte of an
/// invalid sequence replaced by U+FFFD. `None` for invalid base64.
fn decode_binary(text: &str) -> Option<String> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine;
    const GO_STD: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
    );
    let compact: String = text.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    let bytes = GO_STD.decode(compact.as_bytes()).ok()?;
    let mut out = String::with_capacity(bytes.len());
    let mut rest = &bytes[..];
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return Some(out);
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let n = e.error_len().unwrap_or(bad.len());
                for _ in 0..n {
                    out.push('\u{FFFD}');
                }
                rest = &bad[n..];
            }
        }
    }
}

/// The name of a YAML core-schema tag, `int` for both `!!int` and the
/// verbatim `!<tag:yaml.org,2002:int>` (go-yaml v2 shortens the long form
/// before it looks at a tag); `None` for any other tag (`!foo`,
/// `!<!!int>`), which makes a string.
fn core_tag(t: &Tag) -> Option<&str> {
    if t.is_yaml_core_schema() || t.handle == "!!" {
        Some(&t.suffix)
    } else if t.handle.is_empty() {
        t.suffix.strip_prefix("tag:yaml.org,2002:")
    } else {
        None
    }
}

/// Reads a YAML stream into one value per document.
///
/// Plain scalars resolve as kubectl resolves them (see
/// `testdata/value/yaml-scalars.json`): `yes`/`on`/`y` are booleans, `~` is
/// null, `0x1F` and `0o10` and `010` are integers, and floats become the JSON
/// text Go would write for them (so `1.0` and `1e3` read as the integers `1`
/// and `1000`). Quoted and block scalars are strings unless tagged `!!int`,
/// `!!float`, `!!bool` or `!!null` (text of another type under such a tag,
/// `!!int x`, is an error; an integer may be a `!!float`); `!!str` and any custom tag (`!foo 12` →
/// `"12"`) make a string. A verbatim core tag (`!<tag:yaml.org,2002:int>`)
/// is read as its `!!` form. Non-string keys become strings (`1: x` → `"1"`);
/// `null` and unsigned keys beyond `i64` are errors, as in kubectl; float keys
/// are written as float32 (`3.14159265358979: x` → `"3.1415927"`, `.inf: x`
/// → `".inf"`). `.inf` and `.nan` values are errors (JSON cannot hold them).
/// `!!binary` scalars are base64-decoded (invalid UTF-8 bytes become
/// U+FFFD). Anchors, aliases and `<<` merge keys are expanded; a mapping's
/// explicit and merged keys are assigned in document order, the later one
/// winning (among the sources of one `<<` list the first wins), as go-yaml v2
/// does. Documents that are empty or `null` are skipped, as kubectl
/// skips them.
///
/// ```
/// use smpatch_value::{parse_yaml, to_json_string, Arena, ParseOptions};
/// let arena = Arena::new();
/// let docs = parse_yaml(&arena, "a: yes\nb: 0x1F\n---\n---\n- 1.0\n", &ParseOptions::default()).unwrap();
/// assert_eq!(docs.len(), 2);
/// assert_eq!(to_json_string(&docs[0]), r#"{"a":true,"b":31}"#);
/// assert_eq!(to_json_string(&docs[1]), "[1]");
/// ```
pub fn parse_yaml<'a>(
    arena: &'a Arena,
    input: &'a str,
    opts: &ParseOptions,
) -> Result<Vec<Value<'a>>, ParseError> {
    if input.len() > opts.max_input_bytes {
        return Err(ParseError::at(
            ParseErrorKind::TooLarge,
            b"",
            0,
            String::new(),
            format!(
                "input of {} bytes is larger than the limit of {} bytes",
                input.len(),
                opts.max_input_bytes
            ),
        ));
    }
    let mut b = Builder {
        arena,
        input,
        opts,
        values: Vec::new(),
        members: Vec::new(),
        key_offsets: Vec::new(),
        frames: Vec::new(),
        anchors: HashMap::default(),
        expanded: 0,
        root: None,
        docs: Vec::new(),
    };
    let mut parser = Parser::new(crate::yaml_input::ShortLookahead::new(input));
    while let Some(ev) = parser.next_event() {
        match ev {
            Ok((ev, span)) => b.event(ev, span)?,
            Err(e) => return Err(b.scan_error(&e)),
        }
    }
    Ok(b.docs)
}

/// Reads a YAML stream that must hold exactly one non-empty document.
/// Errors: [`ParseErrorKind::Empty`] for none, [`ParseErrorKind::MultipleDocuments`]
/// for more than one.
pub fn parse_yaml_single<'a>(
    arena: &'a Arena,
    input: &'a str,
    opts: &ParseOptions,
) -> Result<Value<'a>, ParseError> {
    let docs = parse_yaml(arena, input, opts)?;
    match docs.as_slice() {
        [v] => Ok(*v),
        [] => Err(ParseError::at(
            ParseErrorKind::Empty,
            input.as_bytes(),
            input.len(),
            String::new(),
            "the YAML stream holds no document".into(),
        )),
        _ => Err(ParseError::at(
            ParseErrorKind::MultipleDocuments,
            input.as_bytes(),
            0,
            String::new(),
            format!("expected one YAML document, found {}", docs.len()),
        )),
    }
}

#[derive(Clone, Copy)]
struct Sized<'a> {
    value: Value<'a>,
    /// Nodes in the expanded tree.
    nodes: usize,
    /// Container nesting of the tree (0 for scalars).
    height: usize,
}

enum Key<'a> {
    Str(&'a str),
    Merge,
}

struct Frame<'a> {
    is_map: bool,
    start: usize,
    anchor: usize,
    nodes: usize,
    height: usize,
    key: Option<Key<'a>>,
    /// Character index of `key` (turned into a byte offset only on error).
    key_at: usize,
    /// The members `<<` keys assigned and no later key replaced, in order;
    /// a replaced one is left as `None`.
    merged: Vec<Option<Member<'a>>>,
    /// Where each live key of `merged` is, and which `<<` of this mapping
    /// (counted from 1) assigned it: one lookup per key keeps a mapping
    /// with many merged and explicit keys linear.
    merged_at: HashMap<&'a str, (usize, u32)>,
    /// The `<<` keys of this mapping so far.
    merges: u32,
}

struct Builder<'a, 'o> {
    arena: &'a Arena,
    input: &'a str,
    opts: &'o ParseOptions,
    values: Vec<Value<'a>>,
    members: Vec<Member<'a>>,
    /// Character index of each key in `members`, for duplicate-key errors.
    key_offsets: Vec<usize>,
    frames: Vec<Frame<'a>>,
    anchors: HashMap<usize, Sized<'a>>,
    expanded: usize,
    root: Option<Value<'a>>,
    docs: Vec<Value<'a>>,
}

impl<'a> Builder<'a, '_> {
    fn event(&mut self, ev: Event<'a>, span: Span) -> Result<(), ParseError> {
        match ev {
            Event::Nothing | Event::StreamStart | Event::StreamEnd => {}
            Event::DocumentStart(_) => {
                self.root = None;
                self.anchors.clear();
            }
            Event::DocumentEnd => {
                if let Some(v) = self.root.take() {
                    if !v.is_null() {
                        self.docs.push(v);
                    }
                }
            }
            Event::Alias(id) => {
                let Some(&s) = self.anchors.get(&id) else {
                    return Err(self.err(
                        ParseErrorKind::UnknownAnchor,
                        &span,
                        "alias refers to an unknown anchor".into(),
                    ));
                };
                self.expanded = self.expanded.saturating_add(s.nodes);
                if self.expanded > self.opts.max_yaml_alias_expansions {
                    return Err(self.err(
                        ParseErrorKind::AliasLimit,
                        &span,
                        format!(
                            "aliases expand to more than {} nodes",
                            self.opts.max_yaml_alias_expansions
                        ),
                    ));
                }
                if self.frames.len().saturating_add(s.height) > self.opts.max_depth {
                    return Err(self.too_deep(&span));
                }
                if self.expecting_key() {
                    let key = self.key_from_value(s.value, &span)?;
                    self.set_key(Key::Str(key), &span);
                } else {
                    self.emit(s, &span)?;
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                if text.len() > self.opts.max_string_bytes {
                    return Err(self.err(
                        ParseErrorKind::StringTooLong,
                        &span,
                        format!(
                            "string is longer than the limit of {} bytes",
                            self.opts.max_string_bytes
                        ),
                    ));
                }
                // Tags as kubectl reads them: core `!!int`/`!!float`/`!!bool`/
                // `!!null` (or their verbatim `!<tag:yaml.org,2002:int>`
                // forms) resolve the text even when quoted, every other tag
                // (`!!str`, custom `!foo`) makes a string.
                let core = tag.as_deref().and_then(core_tag);
                let binary = core == Some("binary");
                let text = if binary {
                    match decode_binary(&text) {
                        Some(d) => Cow::Owned(d),
                        None => {
                            return Err(self.err(
                                ParseErrorKind::Yaml,
                                &span,
                                "!!binary value contains invalid base64 data".into(),
                            ))
                        }
                    }
                } else {
                    text
                };
                let resolved = match (tag.is_some(), core) {
                    _ if binary => Resolved::Str,
                    // `!!merge <<` is the merge key too (go-yaml v2's isMerge).
                    (_, Some("merge")) if text == "<<" => Resolved::Merge,
                    (false, _) if style == ScalarStyle::Plain => resolve_plain(&text),
                    (false, _) => Resolved::Str,
                    (_, Some(want @ ("int" | "float" | "bool" | "null"))) => {
                        // go-yaml v2 refuses text that resolves to another
                        // type (`!!int x`); an integer passes as a float.
                        let r = resolve_plain(&text);
                        let found = match r {
                            Resolved::Null => "null",
                            Resolved::Bool(_) => "bool",
                            Resolved::Int(_) | Resolved::Uint(_) => "int",
                            Resolved::Float(_) => "float",
                            Resolved::Str | Resolved::Merge => "str",
                        };
                        if found != want && !(want == "float" && found == "int") {
                            return Err(self.err(
                                ParseErrorKind::Yaml,
                                &span,
                                format!("cannot decode !!{found} `{text}` as a !!{want}"),
                            ));
                        }
                        r
                    }
                    (true, _) => Resolved::Str,
                };
                let s: &'a str = match text {
                    Cow::Borrowed(s) => s,
                    Cow::Owned(s) => self.arena.alloc_str(&s),
                };
                if self.expecting_key() {
                    let key = match resolved {
                        Resolved::Merge => Key::Merge,
                        r => Key::Str(self.key_from_resolved(r, s, &span)?),
                    };
                    if anchor != 0 {
                        let value = match key {
                            Key::Str(k) => Value::String(k),
                            Key::Merge => Value::String("<<"),
                        };
                        self.anchors.insert(
                            anchor,
                            Sized {
                                value,
                                nodes: 1,
                                height: 0,
                            },
                        );
                    }
                    self.set_key(key, &span);
                } else {
                    let value = self.value_from_resolved(resolved, s, &span)?;
                    let sized = Sized {
                        value,
                        nodes: 1,
                        height: 0,
                    };
                    if anchor != 0 {
                        self.anchors.insert(anchor, sized);
                    }
                    self.emit(sized, &span)?;
                }
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                let is_map = matches!(ev, Event::MappingStart(..));
                if self.expecting_key() {
                    return Err(self.err(
                        ParseErrorKind::Yaml,
                        &span,
                        "a list or mapping cannot be a mapping key".into(),
                    ));
                }
                if self.frames.len() >= self.opts.max_depth {
                    return Err(self.too_deep(&span));
                }
                let start = if is_map {
                    self.members.len()
                } else {
                    self.values.len()
                };
                self.frames.push(Frame {
                    is_map,
                    start,
                    anchor,
                    nodes: 1,
                    height: 1,
                    key: None,
                    key_at: 0,
                    merged: Vec::new(),
                    merged_at: HashMap::default(),
                    merges: 0,
                });
            }
            Event::SequenceEnd => {
                if let Some(f) = self.frames.pop() {
                    let items = self.arena.alloc_slice_copy(&self.values[f.start..]);
                    self.values.truncate(f.start);
                    self.finish(f, Value::Array(items), &span)?;
                }
            }
            Event::MappingEnd => {
                if let Some(mut f) = self.frames.pop() {
                    let v = self.close_map(&mut f, &span)?;
                    self.finish(f, v, &span)?;
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, f: Frame<'a>, value: Value<'a>, span: &Span) -> Result<(), ParseError> {
        let sized = Sized {
            value,
            nodes: f.nodes,
            height: f.height,
        };
        if f.anchor != 0 {
            self.anchors.insert(f.anchor, sized);
        }
        self.emit(sized, span)
    }

    fn close_map(&mut self, f: &mut Frame<'a>, span: &Span) -> Result<Value<'a>, ParseError> {
        let ms = &self.members[f.start..];
        let mut out: Cow<'_, [Member<'a>]> = Cow::Borrowed(ms);
        if let Some(d) = first_duplicate(ms) {
            match self.opts.duplicate_keys {
                DuplicateKeys::Error => {
                    let key = ms[d].key;
                    let mut segs = self.path_segments();
                    segs.push(Step::Key(key));
                    let at = self
                        .key_offsets
                        .get(f.start + d)
                        .map(|&c| char_to_byte(self.input, c));
                    return Err(ParseError::at(
                        ParseErrorKind::DuplicateKey,
                        self.input.as_bytes(),
                        at.unwrap_or_else(|| self.byte_offset(span)),
                        pointer_of(segs),
                        format!("duplicate key {key:?} in mapping"),
                    ));
                }
                DuplicateKeys::LastWins => out = Cow::Owned(last_wins(ms)),
            }
        }
        if !f.merged.is_empty() {
            // go-yaml v2 (kubectl) assigns a mapping's entries in document
            // order, a `<<` entry assigning each key of its sources: the
            // later assignment wins. `f.merged` holds only the merged keys
            // no later explicit key replaced (see `emit`), so a merged key
            // that is also explicit came after it and wins.
            let mut merged = std::mem::take(&mut f.merged);
            let mut all = out.into_owned();
            for e in &mut all {
                if let Some(&(i, _)) = f.merged_at.get(e.key) {
                    if let Some(m) = merged.get_mut(i).and_then(Option::take) {
                        e.value = m.value;
                    }
                }
            }
            all.extend(merged.into_iter().flatten());
            out = Cow::Owned(all);
        }
        let members = self.arena.alloc_slice_copy(&out);
        self.members.truncate(f.start);
        self.key_offsets.truncate(f.start);
        Ok(Value::Object(Object::from_members(members)))
    }

    fn expecting_key(&self) -> bool {
        matches!(self.frames.last(), Some(f) if f.is_map && f.key.is_none())
    }

    fn set_key(&mut self, key: Key<'a>, span: &Span) {
        let at = span.start.index();
        if let Some(f) = self.frames.last_mut() {
            f.key = Some(key);
            f.key_at = at;
        }
    }

    fn emit(&mut self, s: Sized<'a>, span: &Span) -> Result<(), ParseError> {
        let Some(f) = self.frames.last_mut() else {
            self.root = Some(s.value);
            return Ok(());
        };
        f.nodes = f.nodes.saturating_add(s.nodes);
        f.height = f.height.max(s.height + 1);
        if !f.is_map {
            self.values.push(s.value);
            return Ok(());
        }
        match f.key.take() {
            Some(Key::Str(key)) => {
                self.key_offsets.push(f.key_at);
                self.members.push(Member {
                    key,
                    value: s.value,
                });
                // An explicit key after a `<<` replaces what it merged.
                if let Some((i, _)) = f.merged_at.remove(key) {
                    if let Some(slot) = f.merged.get_mut(i) {
                        *slot = None;
                    }
                }
            }
            Some(Key::Merge) | None => {
                let sources: &[Value<'a>] = match s.value {
                    Value::Array(items) => items,
                    _ => std::slice::from_ref(&s.value),
                };
                if !sources.iter().all(|v| matches!(v, Value::Object(_))) {
                    return Err(self.err(
                        ParseErrorKind::Yaml,
                        span,
                        "a `<<` merge key needs a mapping or a list of mappings".into(),
                    ));
                }
                let Some(f) = self.frames.last_mut() else {
                    return Ok(());
                };
                f.merges = f.merges.saturating_add(1);
                let this = f.merges;
                for m in sources
                    .iter()
                    .filter_map(Value::as_object)
                    .flat_map(|o| o.members())
                {
                    let at = (f.merged.len(), this);
                    match f.merged_at.entry(m.key) {
                        Entry::Vacant(e) => {
                            e.insert(at);
                        }
                        Entry::Occupied(mut e) => {
                            let (i, by) = *e.get();
                            // Among the sources of one `<<` the first one wins.
                            if by == this {
                                continue;
                            }
                            // A later `<<` replaces what earlier ones merged.
                            if let Some(slot) = f.merged.get_mut(i) {
                                *slot = None;
                            }
                            e.insert(at);
                        }
                    }
                    f.merged.push(Some(*m));
                }
            }
        }
        Ok(())
    }

    fn value_from_resolved(
        &self,
        r: Resolved,
        s: &'a str,
        span: &Span,
    ) -> Result<Value<'a>, ParseError> {
        Ok(match r {
            Resolved::Null => Value::Null,
            Resolved::Bool(b) => Value::Bool(b),
            Resolved::Int(i) => Value::Number(Number::from_i64(self.arena, i)),
            Resolved::Uint(u) => Value::Number(Number::from_literal_unchecked(
                self.arena.alloc_str(&u.to_string()),
            )),
            Resolved::Float(f) if f.is_finite() => Value::Number(Number::from_literal_unchecked(
                self.arena.alloc_str(&go_format_float(f)),
            )),
            Resolved::Float(_) => {
                return Err(self.err(
                    ParseErrorKind::Yaml,
                    span,
                    format!(
                    "{s} (infinity or NaN) cannot be represented in JSON; quote it for a string"
                ),
                ))
            }
            Resolved::Str | Resolved::Merge => Value::String(s),
        })
    }

    /// sigs.k8s.io/yaml turns scalar keys into strings: ints in decimal,
    /// floats with `%g`-like shortest form, booleans as words.
    fn key_from_resolved(
        &self,
        r: Resolved,
        s: &'a str,
        span: &Span,
    ) -> Result<&'a str, ParseError> {
        Ok(match r {
            Resolved::Str | Resolved::Merge => s,
            Resolved::Bool(true) => "true",
            Resolved::Bool(false) => "false",
            Resolved::Int(i) => self.arena.alloc_str(&i.to_string()),
            Resolved::Float(f) => self.arena.alloc_str(&yaml_float_key(f)),
            Resolved::Null => {
                return Err(self.err(
                    ParseErrorKind::Yaml,
                    span,
                    "a mapping key cannot be null; quote it for a string".into(),
                ))
            }
            Resolved::Uint(_) => {
                return Err(self.err(
                    ParseErrorKind::Yaml,
                    span,
                    format!(
                        "mapping key {s} is an integer beyond int64 (kubectl rejects it); quote it"
                    ),
                ))
            }
        })
    }

    fn key_from_value(&self, v: Value<'a>, span: &Span) -> Result<&'a str, ParseError> {
        match v {
            Value::String(s) => Ok(s),
            Value::Bool(b) => Ok(if b { "true" } else { "false" }),
            Value::Number(_) => Ok(match crate::render(&v) {
                Cow::Borrowed(s) => s,
                Cow::Owned(s) => self.arena.alloc_str(&s),
            }),
            _ => Err(self.err(
                ParseErrorKind::Yaml,
                span,
                "a mapping key must be a scalar".into(),
            )),
        }
    }

    fn path_segments(&self) -> Vec<Step<'a>> {
        let open = self.frames.iter().map(|f| {
            let key = match f.key {
                Some(Key::Str(k)) => Some(k),
                _ => None,
            };
            (f.is_map.then_some(key), f.start)
        });
        open_path(open, self.values.len())
    }

    fn byte_offset(&self, span: &Span) -> usize {
        char_to_byte(self.input, span.start.index())
    }

    fn err(&self, kind: ParseErrorKind, span: &Span, message: String) -> ParseError {
        ParseError::at(
            kind,
            self.input.as_bytes(),
            self.byte_offset(span),
            pointer_of(self.path_segments()),
            message,
        )
    }

    fn too_deep(&self, span: &Span) -> ParseError {
        self.err(
            ParseErrorKind::TooDeep,
            span,
            format!(
                "nesting is deeper than the limit of {}",
                self.opts.max_depth
            ),
        )
    }

    fn scan_error(&self, e: &ScanError) -> ParseError {
        let offset = char_to_byte(self.input, e.marker().index());
        let kind = if e.info().contains("recursion limit") {
            ParseErrorKind::TooDeep
        } else {
            ParseErrorKind::Yaml
        };
        ParseError::at(
            kind,
            self.input.as_bytes(),
            offset,
            pointer_of(self.path_segments()),
            format!("invalid YAML: {}", e.info()),
        )
    }
}

fn char_to_byte(s: &str, chars: usize) -> usize {
    s.char_indices().nth(chars).map_or(s.len(), |(b, _)| b)
}
