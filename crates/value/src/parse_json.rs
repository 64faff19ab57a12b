//! The JSON reader: bytes straight into the arena, iteratively.
//!
//! Architecture Invariant: no recursion. Open containers live on an explicit
//! frame stack; finished items wait in two scratch vectors (list items and
//! object members) and are copied into one arena slice when their container
//! closes. Unescaped strings are borrowed from the input.
//!
//! Objects read from text exactly as the compact writer writes them keep
//! that text (see `Parser::events` and `Object`): a count of what makes text
//! differ from the writer's output (whitespace, an escape written another
//! way, a collapsed duplicate key) that did not move between an object's
//! `{` and `}` means its text can be copied verbatim.

use crate::error::{open_path, DuplicateKeys, ParseError, ParseErrorKind, ParseOptions};
use crate::path::{pointer_of, Step};
use crate::value::{scan_json_number, source_mark};
use crate::{Arena, Member, Number, NumberKind, Object, Value};
use std::collections::HashMap;

/// Reads one JSON document (RFC 8259) into `arena`.
///
/// Strings without escapes borrow from `input`; escaped ones are unescaped
/// into the arena. Numbers keep their literal text. Nesting is bounded by
/// [`ParseOptions::max_depth`] and never uses the call stack, so any input is
/// safe. Duplicate keys follow [`ParseOptions::duplicate_keys`].
///
/// ```
/// use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
/// let arena = Arena::new();
/// let v = parse_json(&arena, br#"{"a": [1, 2.50, "x\n"]}"#, &ParseOptions::default()).unwrap();
/// assert_eq!(to_json_string(&v), r#"{"a":[1,2.50,"x\n"]}"#);
/// let err = parse_json(&arena, b"[1,]", &ParseOptions::default()).unwrap_err();
/// assert_eq!(err.kind_name(), "syntax");
/// ```
pub fn parse_json<'a>(
    arena: &'a Arena,
    input: &'a [u8],
    opts: &ParseOptions,
) -> Result<Value<'a>, ParseError> {
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
    // Validate UTF-8 once; parse the valid prefix and report the bad byte
    // (with the path reached so far) when the parser runs into it.
    //
    // The check is simdutf8's (SIMD where the CPU has it, chosen at run
    // time; several times std's speed on ASCII): it is a pass of its own over
    // the whole input, so its speed counts on large documents
    // (docs/BENCHMARKS.md, "io-scale"). Its error carries no position, so
    // invalid input is checked again by std, which names the byte.
    let checked = match simdutf8::basic::from_utf8(input) {
        Ok(s) => Ok(s),
        Err(_) => std::str::from_utf8(input),
    };
    let (src, invalid_at) = match checked {
        Ok(s) => (s, None),
        Err(e) => {
            let n = e.valid_up_to();
            match std::str::from_utf8(&input[..n]) {
                Ok(s) => (s, Some(n)),
                Err(_) => ("", Some(0)),
            }
        }
    };
    let mut p = Parser {
        arena,
        src,
        b: src.as_bytes(),
        full: input,
        invalid_at,
        opts,
        values: Vec::with_capacity(64),
        members: Vec::with_capacity(64),
        frames: Vec::with_capacity(16),
        scratch: String::new(),
        events: 0,
        mark: source_mark(),
    };
    p.parse()
}

struct Frame<'a> {
    is_object: bool,
    /// Index into `values` (lists) or `members` (objects) of the first item.
    start: usize,
    /// The key whose value is being read (objects only).
    key: Option<&'a str>,
    /// Byte offset of the opening bracket.
    open: usize,
    /// [`Parser::events`] when the bracket was read.
    events: usize,
}

struct Parser<'a, 'o> {
    arena: &'a Arena,
    src: &'a str,
    b: &'a [u8],
    full: &'a [u8],
    invalid_at: Option<usize>,
    opts: &'o ParseOptions,
    values: Vec<Value<'a>>,
    members: Vec<Member<'a>>,
    frames: Vec<Frame<'a>>,
    scratch: String,
    /// How many times whitespace was skipped or an escape sequence decoded
    /// so far: an object whose reading did not change it is written by the
    /// compact writer exactly as it reads (see [`Object::compact_source`]).
    events: usize,
    /// The key that marks an object's compact source member.
    mark: Option<&'static str>,
}

/// Objects whose compact source text is at least this long keep it (one
/// extra hidden member, 40 bytes of arena); smaller objects are quick to
/// write anyway. Flat input pays at most 40 bytes per 256 bytes; nested
/// large objects pay 40 bytes per level, so the bound is 40 bytes times the
/// nesting depth (`ParseOptions::max_depth`) per object path.
pub(crate) const COMPACT_SOURCE_MIN: usize = 256;

/// Bytes that end the fast string scan: `"`, `\` and control characters.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that is `"`, `\` or below 0x20, exact
/// for the lowest such byte (SWAR: bytes above a hit may be flagged too, so
/// only the lowest flag is used; the mask is zero exactly when no byte is a
/// stop byte).
///
/// Both tests are the classic "byte below n" trick (`(x - n..) & !x & 0x80..`,
/// exact for the lowest flagged byte): on `w ^ 0x02..` with n = 0x21, which
/// flags control characters and `"` at once (xor 2 swaps 0x20 and 0x22 and
/// keeps 0x00 to 0x1F among themselves), and on `w ^ '\'..` with n = 1. The
/// `!x` factor is `!w` for both (xor with an ASCII byte keeps the high bit):
/// bytes of 0x80 or more (UTF-8 sequences) are never flagged.
#[inline(always)]
pub(crate) fn stop_mask(w: u64) -> u64 {
    let quote_or_ctrl = (w ^ (LO * 0x02)).wrapping_sub(LO * 0x21);
    let bslash = (w ^ (LO * b'\\' as u64)).wrapping_sub(LO);
    (quote_or_ctrl | bslash) & !w & HI
}

/// True when any byte of `w` is `"`, `\` or below 0x20.
#[cfg(test)]
fn has_stop_byte(w: u64) -> bool {
    stop_mask(w) != 0
}

/// Index of the first `"`, `\` or control byte at or after `i`, or `b.len()`.
///
/// Eight bytes per step, then one; the byte is located from the mask, not
/// rescanned. The parser's speed is bound by the chain from one token's end
/// to the next token's start, which runs through this function: one word
/// and one `trailing_zeros` keep that chain short. A vector of sixteen bytes
/// per step runs fewer instructions, and two words per step mispredict
/// less, but both measured slower: their position takes longer to compute
/// (docs/BENCHMARKS.md).
#[inline(always)]
pub(crate) fn find_stop(b: &[u8], i: usize) -> usize {
    let Some(rest) = b.get(i..) else {
        return i;
    };
    let mut at = i;
    let mut words = rest.chunks_exact(8);
    for c in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let m = stop_mask(u64::from_le_bytes(w));
        if m != 0 {
            return at + (m.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    for &c in words.remainder() {
        if STOP[c as usize] {
            return at;
        }
        at += 1;
    }
    at
}

/// The position of the first byte at or after `pos` that is not JSON
/// whitespace (`pos` is at a whitespace byte or the end).
///
/// Pretty-printed input is a newline and a run of spaces before nearly every
/// token (four per nesting level in `kubectl get -o json`): runs of spaces
/// go eight bytes per step, right after the byte that starts them.
///
/// Inline: out of line (a call in the reading loop) it cost compact input
/// 1.4 % more instructions, and so did a separate test for the single
/// space of `": "` (docs/BENCHMARKS.md).
#[inline]
fn skip_ws_run(b: &[u8], mut pos: usize) -> usize {
    loop {
        match b.get(pos) {
            // The newline (or other whitespace) and the indentation after it.
            Some(b' ' | b'\n' | b'\r' | b'\t') => pos = skip_spaces(b, pos + 1),
            _ => return pos,
        }
    }
}

/// The position of the first byte at or after `pos` that is not a space.
///
/// SWAR: a word xor eight spaces is zero exactly when all eight bytes are
/// spaces, and its lowest non-zero byte is the first other byte (xor works
/// byte by byte, no carries).
#[inline(always)]
fn skip_spaces(b: &[u8], pos: usize) -> usize {
    let mut at = pos;
    while let Some(c) = b.get(at..at + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let other = u64::from_le_bytes(w) ^ (LO * u64::from(b' '));
        if other != 0 {
            return at + (other.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while b.get(at) == Some(&b' ') {
        at += 1;
    }
    at
}

impl<'a> Parser<'a, '_> {
    /// The reading loop. The position is a local (`pos`), passed to and
    /// returned from the helpers, never a field: the parser's speed is
    /// bound by the chain from one token's end to the next one's start, and
    /// a field of `self` (which escapes to the out-of-line error and escape
    /// paths) would make every step of that chain a store and a reload.
    fn parse(&mut self) -> Result<Value<'a>, ParseError> {
        let mut pos = self.skip_ws(0);
        if pos >= self.b.len() {
            if self.invalid_at.is_some() {
                return Err(self.eof());
            }
            return Err(self.err(
                ParseErrorKind::Empty,
                pos,
                "the document is empty; expected a JSON value".into(),
            ));
        }
        'value: loop {
            pos = self.skip_ws(pos);
            let Some(&c) = self.b.get(pos) else {
                return Err(self.eof());
            };
            let mut v = match c {
                b'{' | b'[' => {
                    if self.frames.len() >= self.opts.max_depth {
                        return Err(self.err(
                            ParseErrorKind::TooDeep,
                            pos,
                            format!(
                                "nesting is deeper than the limit of {}",
                                self.opts.max_depth
                            ),
                        ));
                    }
                    let open = pos;
                    let events = self.events;
                    pos = self.skip_ws(pos + 1);
                    let is_object = c == b'{';
                    let close = if is_object { b'}' } else { b']' };
                    if self.b.get(pos) == Some(&close) {
                        pos += 1;
                        if is_object {
                            Value::Object(Object::EMPTY)
                        } else {
                            Value::Array(&[])
                        }
                    } else {
                        let start = if is_object {
                            self.members.len()
                        } else {
                            self.values.len()
                        };
                        self.frames.push(Frame {
                            is_object,
                            start,
                            key: None,
                            open,
                            events,
                        });
                        if is_object {
                            pos = self.parse_key(pos)?;
                        }
                        continue 'value;
                    }
                }
                b'"' => {
                    let (s, end) = self.parse_string(pos)?;
                    pos = end;
                    Value::String(s)
                }
                b'-' | b'0'..=b'9' => {
                    let (n, end) = self.parse_number(pos)?;
                    pos = end;
                    Value::Number(n)
                }
                b't' => self.literal(&mut pos, b"true", Value::Bool(true))?,
                b'f' => self.literal(&mut pos, b"false", Value::Bool(false))?,
                b'n' => self.literal(&mut pos, b"null", Value::Null)?,
                b'N' | b'I' => {
                    return Err(self.err(
                        ParseErrorKind::InvalidNumber,
                        pos,
                        "NaN and Infinity are not JSON numbers".into(),
                    ))
                }
                _ => return Err(self.unexpected(pos, "a JSON value")),
            };
            // A value is complete: hand it to its container, then read what
            // follows; closing containers completes further values.
            loop {
                let Some(frame) = self.frames.last_mut() else {
                    pos = self.skip_ws(pos);
                    if pos < self.b.len() {
                        return Err(self.err(
                            ParseErrorKind::TrailingCharacters,
                            pos,
                            "unexpected text after the JSON value".into(),
                        ));
                    }
                    if self.invalid_at.is_some() {
                        return Err(self.eof());
                    }
                    return Ok(v);
                };
                let (is_object, start) = (frame.is_object, frame.start);
                if is_object {
                    let key = frame.key.take().unwrap_or("");
                    self.members.push(Member { key, value: v });
                } else {
                    self.values.push(v);
                }
                // The next member of compact input: `,"` (one step to the
                // key, no whitespace check between).
                if is_object && self.b.get(pos..pos + 2) == Some(b",\"") {
                    pos = self.parse_key(pos + 1)?;
                    continue 'value;
                }
                pos = self.skip_ws(pos);
                match self.b.get(pos) {
                    Some(b',') => {
                        pos += 1;
                        if is_object {
                            pos = self.skip_ws(pos);
                            pos = self.parse_key(pos)?;
                        }
                        continue 'value;
                    }
                    Some(b']') if !is_object => {
                        pos += 1;
                        // Tried and dropped (branch parse-direct, commit
                        // 1c29b4d): a list of 1024+ items moved into an
                        // arena vector sized from the input and read its
                        // further items straight into it. At 64k elements
                        // 20 % fewer simulated LL misses and 2 % fewer
                        // instructions, but the same thread CPU time at 64k
                        // and 256k (the scratch is written and read in
                        // order, which the prefetcher streams) and 1-2 %
                        // slower at 1k; its reserved room could also exceed
                        // the scratch it saved (docs/BENCHMARKS.md).
                        let items = self.arena.alloc_slice_copy(&self.values[start..]);
                        self.values.truncate(start);
                        self.frames.pop();
                        v = Value::Array(items);
                    }
                    Some(b'}') if is_object => {
                        pos += 1;
                        v = self.close_object(start, pos)?;
                        self.frames.pop();
                    }
                    _ => {
                        return Err(self.unexpected(
                            pos,
                            if is_object {
                                "`,` or `}`"
                            } else {
                                "`,` or `]`"
                            },
                        ))
                    }
                }
            }
        }
    }

    /// The position of the first byte at or after `pos` that is not JSON
    /// whitespace.
    #[inline(always)]
    fn skip_ws(&mut self, pos: usize) -> usize {
        // Compact input has no whitespace: one comparison settles it.
        if self.b.get(pos).is_none_or(|&c| c > b' ') {
            return pos;
        }
        self.events += 1;
        skip_ws_run(self.b, pos)
    }

    fn literal(&self, pos: &mut usize, word: &[u8], v: Value<'a>) -> Result<Value<'a>, ParseError> {
        let rest = self.b.get(*pos..).unwrap_or_default();
        if rest.starts_with(word) {
            *pos += word.len();
            Ok(v)
        } else if word.starts_with(rest) {
            // The (valid) input ends inside the word.
            Err(self.eof())
        } else {
            Err(self.unexpected(*pos, "a JSON value"))
        }
    }

    /// Reads `"key"` and the `:` after it from `pos` (at the `"`); the
    /// position after the `:`.
    #[inline(always)]
    fn parse_key(&mut self, pos: usize) -> Result<usize, ParseError> {
        if self.b.get(pos) != Some(&b'"') {
            return Err(self.unexpected(pos, "a string key"));
        }
        let (key, end) = self.parse_string(pos)?;
        let pos = if self.b.get(end) == Some(&b':') {
            end
        } else {
            let pos = self.skip_ws(end);
            if self.b.get(pos) != Some(&b':') {
                return Err(self.unexpected(pos, "`:`"));
            }
            pos
        };
        if let Some(f) = self.frames.last_mut() {
            f.key = Some(key);
        }
        Ok(pos + 1)
    }

    /// Reads a string from `pos` (at the opening quote): the string and the
    /// position after its closing quote. The common case (no escape, within
    /// the length limit) stays inline; escapes and errors go to
    /// [`Parser::parse_string_rest`].
    #[inline(always)]
    fn parse_string(&mut self, pos: usize) -> Result<(&'a str, usize), ParseError> {
        let b = self.b;
        let start = pos + 1;
        let i = find_stop(b, start);
        if b.get(i) == Some(&b'"') && i - start <= self.opts.max_string_bytes {
            // Both ends are next to ASCII quotes: always char boundaries.
            if let Some(s) = self.src.get(start..i) {
                return Ok((s, i + 1));
            }
        }
        self.parse_string_rest(start, i)
    }

    /// A string whose scan stopped at `i` on something other than a plain
    /// closing quote: an escape, a control character, the end of the input,
    /// or a string longer than the limit.
    #[inline(never)]
    fn parse_string_rest(
        &mut self,
        start: usize,
        i: usize,
    ) -> Result<(&'a str, usize), ParseError> {
        let b = self.b;
        match b.get(i) {
            Some(b'"') => {
                self.check_string_len(i - start, start)?;
                Ok((&self.src[start..i], i + 1))
            }
            Some(b'\\') => self.parse_escaped(start, i),
            Some(_) => Err(self.control(i)),
            None => Err(self.eof_at(i)),
        }
    }

    #[inline(always)]
    fn check_string_len(&self, len: usize, start: usize) -> Result<(), ParseError> {
        if len > self.opts.max_string_bytes {
            return Err(self.too_long(start));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_long(&self, start: usize) -> ParseError {
        self.err(
            ParseErrorKind::StringTooLong,
            start,
            format!(
                "string is longer than the limit of {} bytes",
                self.opts.max_string_bytes
            ),
        )
    }

    #[cold]
    #[inline(never)]
    fn control(&self, at: usize) -> ParseError {
        self.err(
            ParseErrorKind::ControlCharacter,
            at,
            "control character in a string; escape it (e.g. \\n, \\u0001)".into(),
        )
    }

    /// The slow path: a string with escapes, unescaped into the arena.
    fn parse_escaped(
        &mut self,
        start: usize,
        first_escape: usize,
    ) -> Result<(&'a str, usize), ParseError> {
        let b = self.b;
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        out.push_str(&self.src[start..first_escape]);
        let mut i = first_escape;
        loop {
            match b.get(i) {
                Some(b'"') => break,
                Some(b'\\') => {
                    let esc = i;
                    let c = match b.get(i + 1) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => {
                            // The writer writes a plain `/`.
                            self.events += 1;
                            '/'
                        }
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let hi = self.hex4(i + 2)?;
                            if !writer_escapes_as(hi, b.get(i + 2..i + 6)) {
                                self.events += 1;
                            }
                            i += 6;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                let lo = if b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u')
                                {
                                    self.hex4(i + 2)?
                                } else {
                                    0
                                };
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err(
                                        ParseErrorKind::InvalidEscape,
                                        esc,
                                        format!("lone UTF-16 surrogate \\u{hi:04x} (a high surrogate must be followed by a low one)"),
                                    ));
                                }
                                i += 6;
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.err(
                                    ParseErrorKind::InvalidEscape,
                                    esc,
                                    format!("lone UTF-16 surrogate \\u{hi:04x}"),
                                ));
                            } else {
                                hi
                            };
                            match char::from_u32(code) {
                                Some(ch) => out.push(ch),
                                None => {
                                    return Err(self.err(
                                        ParseErrorKind::InvalidEscape,
                                        esc,
                                        "invalid \\u escape".into(),
                                    ))
                                }
                            }
                            continue;
                        }
                        None => return Err(self.eof_at(i + 1)),
                        Some(_) => return Err(self.err(
                            ParseErrorKind::InvalidEscape,
                            esc,
                            "invalid escape; JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"
                                .into(),
                        )),
                    };
                    out.push(c);
                    i += 2;
                }
                Some(&c) if c < 0x20 => return Err(self.control(i)),
                Some(_) => {
                    let run = i;
                    i = find_stop(b, i);
                    out.push_str(&self.src[run..i]);
                }
                None => return Err(self.eof_at(i)),
            }
            if out.len() > self.opts.max_string_bytes {
                return Err(self.err(
                    ParseErrorKind::StringTooLong,
                    start,
                    format!(
                        "string is longer than the limit of {} bytes",
                        self.opts.max_string_bytes
                    ),
                ));
            }
        }
        self.check_string_len(out.len(), start)?;
        let s = self.arena.alloc_str(&out);
        self.scratch = out;
        Ok((s, i + 1))
    }

    fn hex4(&self, at: usize) -> Result<u32, ParseError> {
        let mut n = 0u32;
        for k in 0..4 {
            let d = match self.b.get(at + k) {
                Some(&c @ b'0'..=b'9') => c - b'0',
                Some(&c @ b'a'..=b'f') => c - b'a' + 10,
                Some(&c @ b'A'..=b'F') => c - b'A' + 10,
                None => return Err(self.eof_at(at + k)),
                Some(_) => {
                    return Err(self.err(
                        ParseErrorKind::InvalidEscape,
                        at.saturating_sub(2),
                        "\\u must be followed by four hex digits".into(),
                    ))
                }
            };
            n = n * 16 + u32::from(d);
        }
        Ok(n)
    }

    /// Reads a number; RFC 8259 grammar, literal text kept.
    #[inline]
    fn parse_number(&self, start: usize) -> Result<(Number<'a>, usize), ParseError> {
        let b = self.b;
        let (i, kind) = scan_json_number(b, start).map_err(|why| self.bad_number(start, why))?;
        if let Some(&c) = b.get(i) {
            if c.is_ascii_alphanumeric() || c == b'.' || c == b'+' || c == b'-' {
                return Err(self.bad_number(
                    start,
                    "not a JSON number (no leading zeros, hex, or other suffixes)",
                ));
            }
        }
        if kind == NumberKind::Float && beyond_f64(&b[start..i]) {
            let lit = &self.src[start..i];
            let shown: String = lit.chars().take(40).collect();
            let more = if shown.len() < lit.len() { "…" } else { "" };
            return Err(self.err(
                ParseErrorKind::InvalidNumber,
                start,
                format!(
                    "number out of range: {shown}{more} is beyond the 64-bit float range \
                     (Kubernetes' JSON decoder refuses it too; write it as a string)"
                ),
            ));
        }
        Ok((Number::with_kind(&self.src[start..i], kind), i))
    }

    #[cold]
    #[inline(never)]
    fn bad_number(&self, at: usize, why: &str) -> ParseError {
        self.err(
            ParseErrorKind::InvalidNumber,
            at,
            format!("invalid number: {why}"),
        )
    }

    /// Builds the object of `members[start..]` whose `}` ends before `end`,
    /// applying the duplicate rule.
    fn close_object(&mut self, start: usize, end: usize) -> Result<Value<'a>, ParseError> {
        let ms = &self.members[start..];
        let dup = first_duplicate(ms);
        let members = match dup {
            None => match self.compact_source(end) {
                Some((mark, text)) => {
                    let source = Member {
                        key: mark,
                        value: Value::String(text),
                    };
                    // The marker, then the members: one fill and one copy
                    // (a per-element iterator here cost 8% of the parse).
                    let with_mark = self.arena.alloc_slice_with_head(source, ms);
                    self.members.truncate(start);
                    return Ok(Value::Object(Object::from_marked(with_mark)));
                }
                None => self.arena.alloc_slice_copy(ms),
            },
            Some(d) => match self.opts.duplicate_keys {
                DuplicateKeys::Error => {
                    let key = ms[d].key;
                    // Point the path at the repeated key.
                    let mut path = self.path_segments();
                    path.push(Step::Key(key));
                    let open = self.frames.last().map_or(0, |f| f.open);
                    return Err(ParseError::at(
                        ParseErrorKind::DuplicateKey,
                        self.full,
                        nth_key_offset(self.b, open, d),
                        pointer_of(path),
                        format!("duplicate key {key:?} in object"),
                    ));
                }
                DuplicateKeys::LastWins => {
                    // The object loses members: neither it nor any object
                    // around it reads as it will be written.
                    self.events += 1;
                    self.arena.alloc_slice_copy(&last_wins(ms))
                }
            },
        };
        self.members.truncate(start);
        Ok(Value::Object(Object::from_members(members)))
    }

    /// The marker key and the text of the object that just closed (the
    /// position is after its `}`) when that text is what the compact writer
    /// writes for it: no whitespace skipped and no escape decoded since its
    /// `{`, and long enough to be worth a member.
    #[inline]
    fn compact_source(&self, end: usize) -> Option<(&'static str, &'a str)> {
        let f = self.frames.last()?;
        if f.events != self.events || end - f.open < COMPACT_SOURCE_MIN {
            return None;
        }
        // Both ends are ASCII brackets: char boundaries.
        Some((self.mark?, self.src.get(f.open..end)?))
    }

    fn path_segments(&self) -> Vec<Step<'a>> {
        let open = self.frames.iter().map(|f| {
            let key = f.key;
            (f.is_object.then_some(key), f.start)
        });
        open_path(open, self.values.len())
    }

    #[cold]
    #[inline(never)]
    fn err(&self, kind: ParseErrorKind, offset: usize, message: String) -> ParseError {
        ParseError::at(
            kind,
            self.full,
            offset,
            pointer_of(self.path_segments()),
            message,
        )
    }

    #[cold]
    #[inline(never)]
    fn eof(&self) -> ParseError {
        self.eof_at(self.b.len())
    }

    /// The end of the valid text: either the true end or an invalid UTF-8 byte.
    #[cold]
    #[inline(never)]
    fn eof_at(&self, at: usize) -> ParseError {
        match self.invalid_at {
            Some(n) => self.err(
                ParseErrorKind::InvalidUtf8,
                n,
                "invalid UTF-8 in the input".into(),
            ),
            None => self.err(ParseErrorKind::Syntax, at, "unexpected end of input".into()),
        }
    }

    #[cold]
    #[inline(never)]
    fn unexpected(&self, at: usize, wanted: &str) -> ParseError {
        match self.src.get(at..).and_then(|r| r.chars().next()) {
            None => self.eof(),
            Some(c) if (c as u32) < 0x20 && !matches!(c, '\n' | '\r' | '\t') => self.err(
                ParseErrorKind::Syntax,
                at,
                format!(
                    "unexpected control character U+{:04X}; expected {wanted}",
                    c as u32
                ),
            ),
            Some(c) => self.err(
                ParseErrorKind::Syntax,
                at,
                format!("unexpected {c:?}; expected {wanted}"),
            ),
        }
    }
}

/// True when the compact writer writes the character `code` as exactly
/// the four hex digits `hex` after `\u`: control characters without a
/// letter escape, as `00` and two lowercase hex digits.
fn writer_escapes_as(code: u32, hex: Option<&[u8]>) -> bool {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let letter = matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d);
    code < 0x20
        && !letter
        && hex
            == Some(&[
                b'0',
                b'0',
                HEX[(code >> 4) as usize & 0xf],
                HEX[code as usize & 0xf],
            ])
}

/// Byte offset of the `n`th key (0-based) of the well-formed object whose
/// `{` is at `open`. Only called on the error path, so a simple rescan.
fn nth_key_offset(b: &[u8], open: usize, n: usize) -> usize {
    let ws = |i: &mut usize| {
        while matches!(b.get(*i), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            *i += 1;
        }
    };
    let skip_string = |i: &mut usize| {
        *i += 1;
        while let Some(&c) = b.get(*i) {
            *i += 1;
            match c {
                b'"' => return,
                b'\\' => *i += 1,
                _ => {}
            }
        }
    };
    let mut i = open + 1;
    for k in 0..=n {
        ws(&mut i);
        if k == n {
            return i;
        }
        skip_string(&mut i); // the key
        ws(&mut i);
        i += 1; // `:`
        ws(&mut i);
        // Skip one value: count brackets outside strings.
        let mut depth = 0usize;
        while let Some(&c) = b.get(i) {
            match c {
                b'"' => {
                    skip_string(&mut i);
                    if depth == 0 {
                        break;
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                b',' | b'}' | b']' if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        ws(&mut i);
        i += 1; // `,`
    }
    i
}

/// Index of the first member whose key already appeared, if any. Linear for
/// small objects, hashed for large ones.
#[inline(always)]
pub(crate) fn first_duplicate(ms: &[Member<'_>]) -> Option<usize> {
    match ms {
        // Most objects of Kubernetes documents (env entries, ports, label
        // selectors) have one or two members: no call for them.
        [] | [_] => None,
        [a, b] => (a.key == b.key).then_some(1),
        _ => first_duplicate_of_many(ms),
    }
}

/// [`first_duplicate`] for three or more members.
#[inline(never)]
fn first_duplicate_of_many(ms: &[Member<'_>]) -> Option<usize> {
    if ms.len() <= 16 {
        for i in 1..ms.len() {
            let k = ms[i].key;
            if ms[..i].iter().any(|m| m.key == k) {
                return Some(i);
            }
        }
        None
    } else {
        let mut seen = std::collections::HashSet::with_capacity(ms.len());
        ms.iter().position(|m| !seen.insert(m.key))
    }
}

/// Members with repeated keys collapsed: the last value, the first position.
pub(crate) fn last_wins<'a>(ms: &[Member<'a>]) -> Vec<Member<'a>> {
    let mut out: Vec<Member<'a>> = Vec::with_capacity(ms.len());
    let mut index: HashMap<&'a str, usize> = HashMap::with_capacity(ms.len());
    for m in ms {
        match index.get(m.key) {
            Some(&i) => out[i].value = m.value,
            None => {
                index.insert(m.key, out.len());
                out.push(*m);
            }
        }
    }
    out
}

/// True when a float literal (valid RFC 8259 text) is beyond the `f64`
/// range, so Go's decoder would refuse it: the literal is below
/// `10^(integer digits + exponent)`, which is checked first so that only
/// literals near or past `1e308` are parsed.
fn beyond_f64(lit: &[u8]) -> bool {
    let digits = lit.strip_prefix(b"-").unwrap_or(lit);
    let int_digits = digits.iter().take_while(|c| c.is_ascii_digit()).count();
    let int_digits = if digits.first() == Some(&b'0') {
        0
    } else {
        int_digits
    };
    let mut exp: i64 = 0;
    if let Some(e) = digits.iter().position(|c| matches!(c, b'e' | b'E')) {
        let (neg, ds) = match digits.get(e + 1) {
            Some(b'-') => (true, &digits[e + 2..]),
            Some(b'+') => (false, &digits[e + 2..]),
            _ => (false, &digits[e + 1..]),
        };
        for d in ds {
            exp = exp
                .saturating_mul(10)
                .saturating_add(i64::from(d.saturating_sub(b'0')));
        }
        if neg {
            exp = -exp;
        }
    }
    let magnitude = exp.saturating_add(i64::try_from(int_digits).unwrap_or(i64::MAX));
    if magnitude <= 308 {
        return false;
    }
    std::str::from_utf8(lit)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .is_none_or(|f| !f.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[item(0),item(1),…]` for `n` items.
    fn list_of(n: usize, item: impl Fn(usize) -> String) -> String {
        let items: Vec<String> = (0..n).map(item).collect();
        format!("[{}]", items.join(","))
    }

    /// Parses compact `text` and checks the tree against serde_json's and
    /// that it writes back as `text`.
    fn reads_like_serde(text: &str) {
        let arena = Arena::new();
        let v = parse_json(&arena, text.as_bytes(), &ParseOptions::default()).expect(text);
        let want: serde_json::Value = serde_json::from_str(text).expect("valid test input");
        assert_eq!(crate::to_serde(&v).ok(), Some(want));
        assert_eq!(crate::to_json_string(&v), text);
    }

    #[test]
    fn long_and_nested_lists_read_like_serde() {
        // Around the scratch's doublings (64, 128, … items), a list after
        // other open lists' items, and long lists inside a long list.
        for n in [1023, 1024, 1025, 2047, 2048, 2049, 9217] {
            reads_like_serde(&list_of(n, |i| format!(r#"{{"name":"E{i}","value":"v"}}"#)));
            let inner = list_of(n, |i| i.to_string());
            reads_like_serde(&format!("[1,2,3,{inner},4]"));
            reads_like_serde(&format!(r#"[1,2,3,{{"a":{inner}}}]"#));
        }
        reads_like_serde(&list_of(3000, |i| {
            if i % 300 == 7 {
                list_of(1024 + i % 5, |j| format!("[{j}]"))
            } else {
                format!(r#"{{"k":[{i},[]]}}"#)
            }
        }));
    }

    #[test]
    fn errors_inside_long_lists_name_the_index_reached() {
        let opts = ParseOptions::default();
        let arena = Arena::new();
        for n in [1022, 1023, 1024, 1025, 5120] {
            let zeros = list_of(n, |_| "0".into());
            let open = &zeros[..zeros.len() - 1];
            // (input, pointer, offset of the error)
            let cases = [
                (format!("{open},x]"), format!("/{n}"), open.len() + 1),
                (
                    format!("{open},[1,tru]]"),
                    format!("/{n}/1"),
                    open.len() + 4,
                ),
                (
                    format!(r#"{{"a":{open},[{zeros},{{"b":1,"b":2}}]]}}"#),
                    format!("/a/{n}/1/b"),
                    5 + open.len() + 2 + zeros.len() + 8,
                ),
                (format!("{open},"), format!("/{n}"), open.len() + 1),
                (open.to_string(), format!("/{n}"), open.len()),
            ];
            for (doc, pointer, offset) in cases {
                let e = parse_json(&arena, doc.as_bytes(), &opts).expect_err(&pointer);
                assert_eq!(
                    (e.path.as_str(), e.offset),
                    (pointer.as_str(), offset),
                    "{e}"
                );
                assert_eq!((e.line, e.column), (1, offset + 1), "{e}");
            }
        }
    }

    #[test]
    fn floats_beyond_f64_are_refused() {
        let arena = Arena::new();
        let opts = ParseOptions::default();
        for bad in [
            "1e400",
            "-1e400",
            "1.8e308",
            "180e306",
            "1E+309",
            "9e999999999999999999999",
        ] {
            let doc = format!(r#"{{"a":[{bad}]}}"#);
            let e = parse_json(&arena, doc.as_bytes(), &opts).expect_err(bad);
            assert_eq!(e.kind, ParseErrorKind::InvalidNumber, "{bad}");
            assert!(e.to_string().contains("/a/0"), "{bad}: {e}");
            assert!(e.to_string().contains("out of range"), "{bad}: {e}");
        }
        for ok in [
            "1.7976931348623157e308",
            "-1.7976931348623157e+308",
            "1e-400",
            "0e999999999999999999999",
            "0.000001e310",
            "123456789012345678901234567890",
            "1e308",
        ] {
            let doc = format!(r#"{{"a":{ok}}}"#);
            let v = parse_json(&arena, doc.as_bytes(), &opts).expect(ok);
            assert_eq!(
                v.get("a").and_then(|n| n.as_number()).map(|n| n.literal()),
                Some(ok)
            );
        }
    }

    fn within(s: &str, input: &[u8]) -> bool {
        let r = input.as_ptr_range();
        let p = s.as_ptr();
        r.start <= p && p <= r.end
    }

    #[test]
    fn unescaped_strings_borrow_from_the_input() {
        let arena = Arena::new();
        let input = br#"{"plain": "abc", "esc\u0041": "x\ny"}"#;
        let v = parse_json(&arena, input, &ParseOptions::default()).unwrap();
        let o = v.as_object().unwrap();
        let ms = o.members();
        assert!(within(ms[0].key, input) && within(ms[0].value.as_str().unwrap(), input));
        assert_eq!((ms[1].key, ms[1].value.as_str().unwrap()), ("escA", "x\ny"));
        assert!(!within(ms[1].key, input) && !within(ms[1].value.as_str().unwrap(), input));
        // Number literals borrow too.
        let text = b" 12.50 ";
        let n = parse_json(&arena, text, &ParseOptions::default()).unwrap();
        assert!(within(n.as_number().unwrap().literal(), text));
    }

    /// A compact document of `len` bytes or more: items with keys and
    /// values holding characters of every UTF-8 length, escapes, numbers,
    /// literals and nested objects.
    fn doc_of(len: usize) -> String {
        use std::fmt::Write;
        let mut s = String::from(r#"{"items":["#);
        let mut i = 0usize;
        while s.len() < len {
            if i > 0 {
                s.push(',');
            }
            let pad: String = "aé€𝄞".chars().cycle().take((i * 37) % 150).collect();
            write!(
                s,
                r#"{{"name":"item-{i}-é","v":{i}.5,"k€{i}":"{pad}","o":{{"𝄞{pad}":[1,-2e3,true,null,"x"]}},"e":"a\nb\u00e9\/{pad}"}}"#
            )
            .unwrap();
            i += 1;
        }
        s.push_str("]}");
        s
    }

    /// Invalid sequences of every kind: a stray continuation byte, a byte
    /// never in UTF-8, overlong encodings, an encoded UTF-16 surrogate, a
    /// code point above U+10FFFF, and multibyte sequences cut short.
    const INVALID: [&[u8]; 10] = [
        &[0x80],
        &[0xFF],
        &[0xC0, 0xAF],
        &[0xE0, 0x80, 0xAF],
        &[0xF0, 0x80, 0x80, 0xAF],
        &[0xED, 0xA0, 0x80],
        &[0xF4, 0x90, 0x80, 0x80],
        &[0xC3],
        &[0xE2, 0x82],
        &[0xF0, 0x9D, 0x84],
    ];

    /// Where to put a bad sequence at or after `at`: inside a string value,
    /// inside a key, in place of a number, between tokens, after an escape.
    fn injections(doc: &[u8], at: usize) -> Vec<(&'static str, usize, usize)> {
        let find = |pat: &[u8]| {
            doc[at..]
                .windows(pat.len())
                .position(|w| w == pat)
                .map(|p| at + p + pat.len())
        };
        let mut out = Vec::new();
        if let Some(p) = find(br#""name":"item"#) {
            out.push(("in a string", p, 0));
        }
        if let Some(p) = find(br#"{"na"#) {
            out.push(("in a key", p, 0));
        }
        if let Some(p) = find(br#""v":"#) {
            out.push(("in place of a number", p, 1));
        }
        if let Some(p) = find(b"],") {
            out.push(("between tokens", p, 0));
        }
        if let Some(p) = find(br#""e":"a\n"#) {
            out.push(("after an escape", p, 0));
        }
        out
    }

    #[test]
    fn invalid_utf8_anywhere_names_its_byte_and_the_item() {
        let arena = Arena::new();
        let opts = ParseOptions::default();
        let doc = doc_of(4000).into_bytes();
        assert!(parse_json(&arena, &doc, &opts).is_ok());
        let mut checked = 0;
        for (n, at) in (0..doc.len() - 200).step_by(97).enumerate() {
            for (place, p, cut) in injections(&doc, at) {
                let bad_seq = INVALID[n % INVALID.len()];
                let mut bad = doc[..p].to_vec();
                bad.extend_from_slice(bad_seq);
                bad.extend_from_slice(&doc[p + cut..]);
                let e = parse_json(&arena, &bad, &opts).unwrap_err();
                assert_eq!(e.kind, ParseErrorKind::InvalidUtf8, "{place}: {e}");
                assert_eq!(e.offset, p, "{place}: {e}");
                assert!(e.path.starts_with("/items/"), "{place}: {e}");
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked}");
    }

    /// The SIMD check reads 64-byte blocks and a tail: a bad sequence at
    /// every offset of strings of every length around those sizes is
    /// reported at its first byte (std's `valid_up_to`), and the same
    /// documents with valid multibyte characters there parse.
    #[test]
    fn invalid_utf8_at_every_offset_of_block_sized_inputs() {
        let arena = Arena::new();
        let opts = ParseOptions::default();
        for len in (0..200).chain([255, 256, 257, 1023, 1024, 1025]) {
            for at in 0..len {
                for (n, bad_seq) in INVALID.iter().enumerate() {
                    if (at + n) % 7 != 0 && len > 140 {
                        continue;
                    }
                    let mut doc = b"[\"".to_vec();
                    doc.extend((0..len).map(|i| b'a' + (i % 26) as u8));
                    doc.extend_from_slice(b"\"]");
                    let good = doc.clone();
                    let p = 2 + at;
                    doc.splice(p..p, bad_seq.iter().copied());
                    let want = std::str::from_utf8(&doc).unwrap_err().valid_up_to();
                    let e = parse_json(&arena, &doc, &opts).unwrap_err();
                    assert_eq!((e.kind, e.offset), (ParseErrorKind::InvalidUtf8, want));
                    assert_eq!(e.offset, p, "len {len} at {at} seq {n}");
                    let mut ok = good;
                    ok.splice(p..p, "é€𝄞".bytes());
                    let v = parse_json(&arena, &ok, &opts).unwrap();
                    assert_eq!(
                        v.pointer("/0").and_then(|v| v.as_str()).map(str::len),
                        Some(len + 9)
                    );
                }
            }
        }
    }

    #[test]
    fn invalid_utf8_errors_name_the_byte_and_the_path() {
        let arena = Arena::new();
        let opts = ParseOptions::default();
        // (input, offset, pointer)
        let cases: &[(&[u8], usize, &str)] = &[
            (b"{\"a\":\"x\xC3(\"}", 7, "/a"),
            (b"{\"a\":1,\"k\xE0\x80\xAF\":2}", 9, ""),
            (b"{\"a\":[1,\xFF]}", 8, "/a/1"),
            (b"{\"a\":[1,2]\x80}", 10, ""),
            (b"{\"a\":\"\xED\xA0\x80\"}", 6, "/a"),
            (b"{\"a\":\"\xF4\x90\x80\x80\"}", 6, "/a"),
            (b"{\"a\":\"\xF0\x9D\x84", 6, "/a"),
            (b"{\"a\":2}\xE2\x82", 7, ""),
            (b"[tr\xC3]", 3, "/0"),
        ];
        for &(input, offset, path) in cases {
            let e = parse_json(&arena, input, &opts).unwrap_err();
            assert_eq!(
                (e.kind, e.offset, e.path.as_str()),
                (ParseErrorKind::InvalidUtf8, offset, path),
                "{input:?}: {e}"
            );
        }
    }

    #[test]
    fn swar_stop_byte_detection() {
        for b in 0u8..=255 {
            let w = u64::from_le_bytes([b'a', b'b', b, b'c', b'd', b'e', b'f', b'g']);
            assert_eq!(has_stop_byte(w), STOP[b as usize], "byte {b:#x}");
        }
    }

    /// Strings of every length from 0 to 40 with one special character
    /// (an escape, a surrogate pair, a non-ASCII character, a control
    /// character) at every offset, so each crosses the eight-byte
    /// steps of the scan at every alignment, inside and after other text:
    /// each reads as serde_json reads it, or fails where it does.
    #[test]
    fn strings_with_a_special_character_at_every_offset() {
        let arena = Arena::new();
        let opts = ParseOptions::default();
        let specials: [&str; 8] = [
            "\\n",
            "\\\"",
            "\\u00e9",
            "\\ud834\\udd1e",
            "é",
            "𝄞",
            "\u{1}",
            "\t",
        ];
        for len in 0..40 {
            for at in 0..=len {
                for sp in specials {
                    let body: String = (0..len)
                        .map(|i| {
                            if i == at {
                                sp.to_string()
                            } else {
                                ((b'a' + (i % 26) as u8) as char).to_string()
                            }
                        })
                        .collect();
                    for doc in [
                        format!(r#"["{body}"]"#),
                        format!(r#"{{"k":1,"{body}":"{body}"}}"#),
                    ] {
                        let ours = parse_json(&arena, doc.as_bytes(), &opts);
                        let theirs: Result<serde_json::Value, _> = serde_json::from_str(&doc);
                        match (ours, theirs) {
                            (Ok(v), Ok(t)) => {
                                let back: serde_json::Value =
                                    serde_json::from_str(&crate::to_json_string(&v)).unwrap();
                                assert_eq!(back, t, "{doc:?}");
                            }
                            (Err(e), Err(_)) => {
                                assert_eq!(
                                    e.kind,
                                    ParseErrorKind::ControlCharacter,
                                    "{doc:?}: {e}"
                                );
                                assert!(doc.as_bytes()[e.offset] < 0x20, "{doc:?}: {e}");
                            }
                            (ours, theirs) => panic!("{doc:?}: {ours:?} vs {theirs:?}"),
                        }
                    }
                }
            }
        }
    }

    /// Duplicate keys in objects of 1 to 20 members (the two-member fast
    /// path, the pairwise scan and the hashed scan), at every pair of
    /// positions: the error names the second occurrence (pointer and
    /// offset), and last-wins keeps the first position with the last value.
    #[test]
    fn duplicate_keys_at_every_position() {
        let arena = Arena::new();
        let strict = ParseOptions::default();
        let lenient = ParseOptions::default().with_duplicate_keys(DuplicateKeys::LastWins);
        for n in 1..=20usize {
            let keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
            let doc = |keys: &[String]| {
                let ms: Vec<String> = keys
                    .iter()
                    .enumerate()
                    .map(|(i, k)| format!(r#""{k}":{i}"#))
                    .collect();
                format!(r#"{{"o":{{{}}}}}"#, ms.join(","))
            };
            assert!(parse_json(&arena, doc(&keys).as_bytes(), &strict).is_ok());
            for first in 0..n {
                for second in first + 1..n {
                    let mut ks = keys.clone();
                    ks[second] = ks[first].clone();
                    let text = doc(&ks);
                    let e = parse_json(&arena, text.as_bytes(), &strict).unwrap_err();
                    assert_eq!(e.kind, ParseErrorKind::DuplicateKey, "{text}");
                    assert_eq!(e.path, format!("/o/k{first}"), "{text}");
                    let want = text
                        .match_indices(&format!(r#""k{first}""#))
                        .nth(1)
                        .unwrap()
                        .0;
                    assert_eq!(e.offset, want, "{text}");
                    let v = parse_json(&arena, text.as_bytes(), &lenient).unwrap();
                    let o = v.get("o").and_then(|o| o.as_object()).unwrap();
                    assert_eq!(o.len(), n - 1, "{text}");
                    assert_eq!(o.members()[first].key, ks[first]);
                    assert_eq!(
                        o.members()[first].value.as_number().map(|x| x.literal()),
                        Some(second.to_string().as_str()),
                        "{text}"
                    );
                }
            }
        }
    }

    /// The compact-input steps (`,"` straight to the next key, `:` right
    /// after a key) and their whitespace fallbacks: same values, and the
    /// same errors (kind, offset, pointer) where the input breaks off or
    /// goes wrong at those places.
    #[test]
    fn member_separators_with_and_without_whitespace() {
        let arena = Arena::new();
        let opts = ParseOptions::default();
        for doc in [
            r#"{"a":1,"b":"x"}"#,
            r#"{"a":1 ,"b":"x"}"#,
            r#"{"a":1, "b":"x"}"#,
            r#"{"a" :1,"b"	:"x"}"#,
            "{\"a\":1,\n\"b\"\r\n: \"x\" }",
        ] {
            let v = parse_json(&arena, doc.as_bytes(), &opts).expect(doc);
            assert_eq!(crate::to_json_string(&v), r#"{"a":1,"b":"x"}"#, "{doc:?}");
        }
        // (input, kind, offset, pointer)
        let cases: &[(&str, ParseErrorKind, usize, &str)] = &[
            (r#"{"a":1,"b"}"#, ParseErrorKind::Syntax, 10, ""),
            (r#"{"a":1,"b" }"#, ParseErrorKind::Syntax, 11, ""),
            (r#"{"a":1,"b""#, ParseErrorKind::Syntax, 10, ""),
            (r#"{"a":1,""#, ParseErrorKind::Syntax, 8, ""),
            (r#"{"a":1,"#, ParseErrorKind::Syntax, 7, ""),
            (r#"{"a":1,}"#, ParseErrorKind::Syntax, 7, ""),
            (r#"{"a":1,"b":}"#, ParseErrorKind::Syntax, 11, "/b"),
            (r#"{"a":1,"a":2}"#, ParseErrorKind::DuplicateKey, 7, "/a"),
            (r#"[{"a":1},"b":2]"#, ParseErrorKind::Syntax, 12, "/2"),
            (
                "{\"a\":1,\"\u{1}\":2}",
                ParseErrorKind::ControlCharacter,
                8,
                "",
            ),
        ];
        for &(input, kind, offset, path) in cases {
            let e = parse_json(&arena, input.as_bytes(), &opts).unwrap_err();
            assert_eq!(
                (e.kind, e.offset, e.path.as_str()),
                (kind, offset, path),
                "{input:?}: {e}"
            );
        }
    }

    #[test]
    fn swar_stop_mask_flags_exactly_the_lowest_stop_byte() {
        // Words mixing stop bytes, their neighbours (0x1f/0x20/0x21/0x23,
        // 0x5b/0x5d), 0x7f/0x80/0xff and UTF-8 lead bytes at every
        // position: the lowest flag is the first stop byte, and no stop
        // byte means no flag at all.
        let palette = [
            0x00u8, 0x01, 0x1f, 0x20, 0x21, b'"', 0x23, 0x02, 0x5b, b'\\', 0x5d, b'a', 0x7f, 0x80,
            0xa2, 0xdc, 0xc3, 0xe2, 0xff,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let bytes: [u8; 8] =
                std::array::from_fn(|k| palette[((state >> (k * 8)) as usize) % palette.len()]);
            let first = bytes.iter().position(|&c| STOP[c as usize]);
            let m = stop_mask(u64::from_le_bytes(bytes));
            match first {
                None => assert_eq!(m, 0, "{bytes:x?}"),
                Some(k) => assert_eq!(m.trailing_zeros() / 8, k as u32, "{bytes:x?}"),
            }
            assert_eq!(find_stop(&bytes, 0), first.unwrap_or(8), "{bytes:x?}");
        }
    }

    #[test]
    fn find_stop_locates_the_first_stop_byte() {
        // Every stop byte at every offset of a 20-byte run (SWAR words and
        // the byte tail), with a second stop byte after it that must not
        // win, and runs without any stop byte.
        let stops: Vec<u8> = (0u8..=255).filter(|&c| STOP[c as usize]).collect();
        for len in 0..20 {
            let plain: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert_eq!(find_stop(&plain, 0), len);
            for at in 0..len {
                for &c in &stops {
                    for &after in &[b'"', 0x1f, 0x80, 0xff] {
                        let mut v = plain.clone();
                        v[at] = c;
                        if at + 1 < len {
                            v[at + 1] = after;
                        }
                        assert_eq!(find_stop(&v, 0), at, "{v:?}");
                        assert_eq!(find_stop(&v, at), at);
                    }
                }
            }
        }
        // Non-ASCII bytes are never stops.
        let s = "héllo wörld, ünïcode\"";
        assert_eq!(find_stop(s.as_bytes(), 0), s.len() - 1);
    }

    /// Whitespace runs of every length from 0 to 40: all spaces, a newline
    /// and indentation, CR LF and indentation, tabs, and mixes of all four
    /// with spaces between them (so the eight-byte steps over spaces stop
    /// and restart at every alignment).
    fn ws_runs() -> Vec<String> {
        const MIX: [char; 8] = [' ', ' ', ' ', '\n', ' ', '\t', ' ', '\r'];
        let mut out = Vec::new();
        for len in 0..=40usize {
            let sp = " ".repeat(len);
            out.push(sp.clone());
            out.push(format!("\n{sp}"));
            out.push(format!("\r\n{sp}"));
            out.push(format!("{sp}\t"));
            out.push("\t".repeat(len));
            out.push((0..len).map(|i| MIX[(i * 5 + len) % 8]).collect());
            out.push(format!("{sp}\n{sp}"));
        }
        out
    }

    /// Every place JSON allows whitespace, filled with every run of
    /// [`ws_runs`] after a string of 0 to 7 bytes (all alignments): the value
    /// is serde_json's, and the same as the compact text's.
    #[test]
    fn whitespace_runs_everywhere_read_as_serde_json_reads_them() {
        let arena = Arena::new();
        let opts = ParseOptions::default();
        let template =
            r#"W{W"p"W:W"PAD"W,W"a"W:W[W1W,W"s"W,W{W}W,W[W]W,WtrueW,W-2.50e1W]W,W"b"W:WnullW}W"#;
        for pad in 0..8 {
            let compact = template.replace('W', "").replace("PAD", &"x".repeat(pad));
            let want =
                crate::to_json_string(&parse_json(&arena, compact.as_bytes(), &opts).unwrap());
            for ws in ws_runs() {
                let doc = template.replace('W', &ws).replace("PAD", &"x".repeat(pad));
                let v = parse_json(&arena, doc.as_bytes(), &opts).expect(&doc);
                let theirs: serde_json::Value = serde_json::from_str(&doc).expect(&doc);
                let back: serde_json::Value =
                    serde_json::from_str(&crate::to_json_string(&v)).unwrap();
                assert_eq!(back, theirs, "{doc:?}");
                assert_eq!(crate::to_json_string(&v), want, "{doc:?}");
            }
        }
    }

    /// Errors right after a whitespace run (every run of [`ws_runs`], after
    /// a string of 0 to 7 bytes): the kind, the offset of the offending
    /// byte (or the end of the input), the pointer, and the line and column
    /// counted over the whitespace; serde_json refuses the same text.
    #[test]
    fn errors_after_whitespace_runs_keep_kind_offset_path_and_line_column() {
        use ParseErrorKind::{DuplicateKey, Empty, InvalidUtf8, Syntax, TrailingCharacters};
        let arena = Arena::new();
        let opts = ParseOptions::default();
        // (text before the run, text after it, kind, pointer, error at the
        // end of the input instead of right after the run)
        let cases: &[(&str, &[u8], ParseErrorKind, &str, bool)] = &[
            (r#"{"p":"PAD","a":1,"#, b"}", Syntax, "", false),
            (r#"{"p":"PAD","a""#, b"1}", Syntax, "", false),
            (r#"{"p":"PAD","a":"#, b"}", Syntax, "/a", false),
            (r#"["PAD",1"#, br#""s"]"#, Syntax, "/2", false),
            (r#"["PAD","#, b"]", Syntax, "/1", false),
            (r#"["PAD"]"#, b"x", TrailingCharacters, "", false),
            (r#"["PAD","#, b"\x01]", Syntax, "/1", false),
            (r#"{"p":"PAD","a":"#, b"\xFF}", InvalidUtf8, "/a", false),
            (r#"{"a":"PAD","#, br#""a":2}"#, DuplicateKey, "/a", false),
            (r#"{"p":"PAD","a":1"#, b"", Syntax, "", true),
            (r#"["PAD","#, b"", Syntax, "/1", true),
            (r#"{"p":"PAD","a":"#, b"", Syntax, "/a", true),
        ];
        let mut checked = 0;
        for pad in 0..8 {
            let padding = "x".repeat(pad);
            for &(before, after, kind, path, at_end) in cases {
                let before = before.replace("PAD", &padding);
                for ws in ws_runs() {
                    let mut doc = format!("{before}{ws}").into_bytes();
                    let at = if at_end {
                        doc.len() + after.len()
                    } else {
                        doc.len()
                    };
                    doc.extend_from_slice(after);
                    let e = parse_json(&arena, &doc, &opts).unwrap_err();
                    let shown = String::from_utf8_lossy(&doc);
                    assert_eq!(
                        (e.kind, e.offset, e.path.as_str()),
                        (kind, at, path),
                        "{shown:?}: {e}"
                    );
                    let text = &doc[..at];
                    let line = text.iter().filter(|&&c| c == b'\n').count() + 1;
                    let col = at - text.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1) + 1;
                    assert_eq!((e.line, e.column), (line, col), "{shown:?}: {e}");
                    if kind != DuplicateKey {
                        assert!(serde_json::from_slice::<serde_json::Value>(&doc).is_err());
                    }
                    checked += 1;
                }
            }
            // Whitespace alone, and nothing at all.
            for ws in ws_runs() {
                let e = parse_json(&arena, ws.as_bytes(), &opts).unwrap_err();
                assert_eq!((e.kind, e.offset), (Empty, ws.len()), "{ws:?}");
            }
        }
        assert!(checked > 20_000, "{checked}");
    }

    /// Line and column after indentation, written out by hand.
    #[test]
    fn line_and_column_count_indentation() {
        let arena = Arena::new();
        let opts = ParseOptions::default();
        let deep = format!("[\n{}tru", " ".repeat(37));
        // (input, line, column)
        let cases: &[(&str, usize, usize)] = &[
            ("{\n    \"a\": 1,\n    \"b\": x\n}", 3, 10),
            ("{\n\t\"a\": [\r\n\t\t1,\r\n\t\t]\n}", 4, 3),
            (&deep, 2, 41),
            ("{\n        \"a\": 1\n        \n    ,}", 4, 6),
            ("[1,\n                \"\u{1}\"]", 2, 18),
        ];
        for &(input, line, column) in cases {
            let e = parse_json(&arena, input.as_bytes(), &opts).unwrap_err();
            assert_eq!((e.line, e.column), (line, column), "{input:?}: {e}");
        }
    }

    /// A document as `kubectl get -o json` writes it (four spaces per
    /// level), with tabs, and with CR LF line ends reads as its compact
    /// text does, and keeps no compact source of the pretty text.
    #[test]
    fn pretty_printed_documents_read_as_their_compact_text() {
        let arena = Arena::new();
        let opts = ParseOptions::default();
        let compact = doc_of(6000);
        let want = crate::to_json_string(&parse_json(&arena, compact.as_bytes(), &opts).unwrap());
        // Indentation `unit` per level, `eol` line ends, `": "` after keys
        // (the compact text holds no raw newline inside its strings).
        let pretty = |unit: &str, eol: &str| -> String {
            let (mut out, mut depth, mut in_str, mut esc) = (String::new(), 0usize, false, false);
            for c in compact.chars() {
                if in_str {
                    out.push(c);
                    (in_str, esc) = (esc || c != '"', !esc && c == '\\');
                    continue;
                }
                match c {
                    '{' | '[' => {
                        depth += 1;
                        out.push(c);
                        out.push_str(&format!("{eol}{}", unit.repeat(depth)));
                    }
                    '}' | ']' => {
                        depth -= 1;
                        out.push_str(&format!("{eol}{}", unit.repeat(depth)));
                        out.push(c);
                    }
                    ',' => out.push_str(&format!(",{eol}{}", unit.repeat(depth))),
                    ':' => out.push_str(": "),
                    '"' => {
                        in_str = true;
                        out.push(c);
                    }
                    _ => out.push(c),
                }
            }
            out
        };
        let two = pretty("  ", "\n");
        assert!(two.len() > compact.len() + 1000);
        for doc in [
            two.clone(),
            pretty("    ", "\n"),
            pretty("\t", "\n"),
            pretty("    ", "\r\n"),
            format!("\n\n{}\n   \n", pretty("        ", "\n")),
        ] {
            let v = parse_json(&arena, doc.as_bytes(), &opts).unwrap();
            assert_eq!(crate::to_json_string(&v), want);
        }
    }

    #[test]
    fn skip_spaces_and_runs_stop_at_the_first_other_byte() {
        for len in 0..30 {
            for at in 0..=len {
                for &c in &[
                    b'\n', b'\t', b'\r', b'"', b'x', 0x00, 0x80, 0xff, 0x21, 0x1f,
                ] {
                    let mut v = vec![b' '; len];
                    if at < len {
                        v[at] = c;
                    }
                    let first = v.iter().position(|&x| x != b' ').unwrap_or(len);
                    assert_eq!(skip_spaces(&v, 0), first, "{v:?}");
                    let run = v
                        .iter()
                        .position(|&x| !matches!(x, b' ' | b'\n' | b'\r' | b'\t'))
                        .unwrap_or(len);
                    assert_eq!(skip_ws_run(&v, 0), run, "{v:?}");
                }
            }
        }
    }
}
