//! JSON writers: compact, kubectl-style pretty, and Go-compatible.
//!
//! Architecture Invariant: every writer walks the tree with an explicit
//! stack, so output never recurses whatever the depth.

use crate::parse_json::{find_stop, stop_mask};
use crate::render::{plain, shortest_digits};
use crate::{Member, Number, NumberKind, Value};

#[derive(Clone, Copy)]
struct Style {
    /// Go's `encoding/json`: keys sorted by bytes, HTML-safe escaping, Go
    /// number formatting.
    go: bool,
    /// Spaces per level, or `None` for compact output.
    indent: Option<usize>,
}

/// Compact JSON: no whitespace, keys in insertion order, numbers exactly as
/// their literal text, standard escaping.
///
/// ```
/// use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
/// let arena = Arena::new();
/// let v = parse_json(&arena, br#"{ "b": 1.50, "a": ["<x>"] }"#, &ParseOptions::default()).unwrap();
/// assert_eq!(to_json_string(&v), r#"{"b":1.50,"a":["<x>"]}"#);
/// ```
pub fn to_json_string(v: &Value<'_>) -> String {
    let mut out = String::new();
    write_json(&mut out, v);
    out
}

/// Appends the compact JSON of `v` (as [`to_json_string`]) to `out`.
///
/// Reserve room in `out` first when the output size is roughly known (for
/// a merge result, the size of its input documents): the writer then never
/// moves what it wrote.
///
/// A caller that writes many documents (a server, a batch) can keep one
/// buffer: clear it between documents and its capacity stays, so no call
/// after the first grows it. The buffer then holds as much memory as the
/// largest document written into it until it is dropped or shrunk
/// (`shrink_to`). On a long-running loop this saved no measurable time
/// (docs/BENCHMARKS.md, "write scaling (round 5)": the allocator already
/// hands back the freed block), so it is a choice about allocation churn,
/// not speed.
///
/// ```
/// use smpatch_value::{parse_json, write_json, Arena, ParseOptions};
/// let mut arena = Arena::new();
/// let mut out = String::new();
/// for doc in [&br#"{"a": [1, 2]}"#[..], br#"{"b": "x"}"#] {
///     arena.reset();
///     let v = parse_json(&arena, doc, &ParseOptions::default()).unwrap();
///     out.clear();
///     write_json(&mut out, &v);
///     // ... hand `out` on ...
/// }
/// assert_eq!(out, r#"{"b":"x"}"#);
/// ```
pub fn write_json(out: &mut String, v: &Value<'_>) {
    write_compact(out, v);
}

/// JSON in the layout of `kubectl -o json`: 4-space indent, `"key": value`,
/// `{}` and `[]` for empty containers, a final newline. Keys keep insertion
/// order and numbers their literal text (see [`to_go_json_pretty`] for
/// kubectl's exact bytes).
pub fn to_json_pretty(v: &Value<'_>) -> String {
    let mut out = String::new();
    write(
        &mut out,
        v,
        Style {
            go: false,
            indent: Some(4),
        },
    );
    out.push('\n');
    out
}

/// Compact JSON as Go's `encoding/json` writes it (spec Appendix A.2): keys
/// sorted by bytes at every level; `<`, `>`, `&`, U+2028, U+2029 escaped as
/// `\u003c`…; integers that fit `i64` in decimal, other numbers as Go prints
/// a `float64` (`1e-7`, `1e+21`, `100000000000000000000`, `1` for `1.0`,
/// `-0`). A literal too large for `f64` (only possible from our own
/// parser, never from Go) is written as its literal text.
///
/// ```
/// use smpatch_value::{parse_json, to_go_json, Arena, ParseOptions};
/// let arena = Arena::new();
/// let v = parse_json(&arena, br#"{"b": 1.0, "a": "<&>", "c": 1e-7}"#, &ParseOptions::default()).unwrap();
/// assert_eq!(to_go_json(&v), r#"{"a":"\u003c\u0026\u003e","b":1,"c":1e-7}"#);
/// ```
pub fn to_go_json(v: &Value<'_>) -> String {
    let mut out = String::new();
    write_go_json(&mut out, v);
    out
}

/// Appends the Go-compatible JSON of `v` (as [`to_go_json`]) to `out`.
pub fn write_go_json(out: &mut String, v: &Value<'_>) {
    write(
        out,
        v,
        Style {
            go: true,
            indent: None,
        },
    );
}

/// Go-compatible JSON (as [`to_go_json`]) in the layout of `kubectl -o json`:
/// byte-for-byte what kubectl prints for the same object.
pub fn to_go_json_pretty(v: &Value<'_>) -> String {
    let mut out = String::new();
    write(
        &mut out,
        v,
        Style {
            go: true,
            indent: Some(4),
        },
    );
    out.push('\n');
    out
}

/// Compact JSON (as [`to_json_string`]) written to `w` in chunks of about
/// 64 KiB, so a large document is never held twice in memory.
///
/// ```
/// use smpatch_value::{parse_json, write_json_to, Arena, ParseOptions};
/// let arena = Arena::new();
/// let v = parse_json(&arena, br#"{"a": [1, 2.50]}"#, &ParseOptions::default()).unwrap();
/// let mut out = Vec::new();
/// write_json_to(&mut out, &v).unwrap();
/// assert_eq!(out, br#"{"a":[1,2.50]}"#);
/// ```
pub fn write_json_to(w: &mut impl std::io::Write, v: &Value<'_>) -> std::io::Result<()> {
    let style = Style {
        go: false,
        indent: None,
    };
    stream(w, |out, drain| write_draining(out, v, style, drain))
}

/// kubectl-layout JSON (as [`to_json_pretty`], final newline included)
/// written to `w` in chunks, like [`write_json_to`].
pub fn write_json_pretty_to(w: &mut impl std::io::Write, v: &Value<'_>) -> std::io::Result<()> {
    let style = Style {
        go: false,
        indent: Some(4),
    };
    stream(w, |out, drain| {
        write_draining(out, v, style, drain);
        out.push('\n');
    })
}

/// Runs a writer with a [`Drain`] into `w`; answers the first write error.
pub(crate) fn stream(
    w: &mut impl std::io::Write,
    write: impl FnOnce(&mut String, &mut Drain<'_>),
) -> std::io::Result<()> {
    let mut out = String::with_capacity(CHUNK + 1024);
    let mut drain = Drain {
        to: Some(w),
        error: None,
    };
    write(&mut out, &mut drain);
    drain.flush(&mut out);
    match drain.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Bytes a streaming writer gathers before handing them on.
const CHUNK: usize = 64 << 10;

/// Where a writer hands finished text: nowhere (the `String` API keeps it
/// all) or an `io::Write` once a chunk is full.
pub(crate) struct Drain<'w> {
    to: Option<&'w mut dyn std::io::Write>,
    error: Option<std::io::Error>,
}

impl Drain<'_> {
    /// Keeps everything in the string.
    pub(crate) fn none() -> Self {
        Drain {
            to: None,
            error: None,
        }
    }

    /// Hands `out` on when a chunk is full; false once writing failed (the
    /// writer then stops).
    pub(crate) fn spill(&mut self, out: &mut String) -> bool {
        if self.to.is_some() && out.len() >= CHUNK {
            self.flush(out);
        }
        self.error.is_none()
    }

    fn flush(&mut self, out: &mut String) {
        if let (Some(w), None) = (self.to.as_mut(), &self.error) {
            if let Err(e) = w.write_all(out.as_bytes()) {
                self.error = Some(e);
            }
            out.clear();
        }
    }
}

enum Frame<'a> {
    Array(std::slice::Iter<'a, Value<'a>>),
    Object(std::slice::Iter<'a, Member<'a>>),
    Sorted(std::vec::IntoIter<&'a Member<'a>>),
}

fn newline(out: &mut String, style: Style, depth: usize) {
    if let Some(n) = style.indent {
        out.push('\n');
        for _ in 0..n * depth {
            out.push(' ');
        }
    }
}

/// The compact writer (the hot path of every merge): one loop without the
/// styles' and the drain's checks. A container's first item is written when
/// it opens, so every later item is `,` then the item. Its output is the
/// general writer's with `Style { go: false, indent: None }`, byte for byte
/// (the round-trip proptests compare the two).
fn write_compact(out: &mut String, v: &Value<'_>) {
    enum Open<'a> {
        Array(std::slice::Iter<'a, Value<'a>>),
        Object(std::slice::Iter<'a, Member<'a>>),
    }
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut cur = *v;
    loop {
        match cur {
            Value::Null => out.push_str("null"),
            Value::Bool(true) => out.push_str("true"),
            Value::Bool(false) => out.push_str("false"),
            Value::Number(n) => out.push_str(n.literal()),
            Value::String(s) => write_plain_str(out, s),
            Value::Array(items) => match items.split_first() {
                None => out.push_str("[]"),
                Some((first, rest)) => {
                    out.push('[');
                    stack.push(Open::Array(rest.iter()));
                    cur = *first;
                    continue;
                }
            },
            Value::Object(o) => {
                if let Some(text) = o.compact_source() {
                    // Read from compact text and unchanged since: that text
                    // is what the members would be written as.
                    out.push_str(text);
                } else if let Some((first, rest)) = o.members().split_first() {
                    out.push('{');
                    write_key(out, first.key);
                    stack.push(Open::Object(rest.iter()));
                    cur = first.value;
                    continue;
                } else {
                    out.push_str("{}");
                }
            }
        }
        // `cur` is written: find the next item, closing finished containers.
        loop {
            match stack.last_mut() {
                None => return,
                Some(Open::Array(it)) => {
                    if let Some(v) = it.next() {
                        out.push(',');
                        cur = *v;
                        break;
                    }
                    out.push(']');
                }
                Some(Open::Object(it)) => {
                    if let Some(m) = it.next() {
                        out.push(',');
                        write_key(out, m.key);
                        cur = m.value;
                        break;
                    }
                    out.push('}');
                }
            }
            stack.pop();
        }
    }
}

/// `"key":` with standard escaping.
#[inline]
fn write_key(out: &mut String, k: &str) {
    if needs_escape(k.as_bytes()) {
        write_str(out, k, false);
        out.push(':');
    } else {
        out.reserve(k.len() + 3);
        out.push('"');
        out.push_str(k);
        out.push_str("\":");
    }
}

/// A string with standard escaping: one reserve and one copy when nothing
/// needs escaping (almost every string).
#[inline]
fn write_plain_str(out: &mut String, s: &str) {
    if needs_escape(s.as_bytes()) {
        write_str(out, s, false);
    } else {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
}

/// True when `b` holds a `"`, `\` or control byte (the bytes standard
/// escaping changes). Eight bytes per step with no early exit (strings
/// that need escaping are rare); short strings are read as overlapping
/// words, so no byte-by-byte tail.
#[inline]
fn needs_escape(b: &[u8]) -> bool {
    /// Filler for the unused bytes of a short string's word: never a stop.
    const PAD: u64 = 0x4141_4141_4141_4141;
    let n = b.len();
    let word = |i: usize| {
        b.get(i..i + 8)
            .and_then(|w| w.first_chunk::<8>())
            .map_or(0, |w| u64::from_le_bytes(*w))
    };
    let half = |i: usize| {
        b.get(i..i + 4)
            .and_then(|w| w.first_chunk::<4>())
            .map_or(0, |w| u64::from(u32::from_le_bytes(*w)))
    };
    let mask = if n >= 8 {
        let mut acc = 0;
        let chunks = b.chunks_exact(8);
        for c in chunks {
            if let Some(w) = c.first_chunk::<8>() {
                acc |= stop_mask(u64::from_le_bytes(*w));
            }
        }
        acc | stop_mask(word(n - 8))
    } else if n >= 4 {
        stop_mask(half(0) | (half(n - 4) << 32))
    } else if n > 0 {
        let at = |i: usize| u64::from(b.get(i).copied().unwrap_or(b'A'));
        stop_mask((PAD << 24) | at(0) | (at(n / 2) << 8) | (at(n - 1) << 16))
    } else {
        0
    };
    mask != 0
}

fn write(out: &mut String, v: &Value<'_>, style: Style) {
    write_draining(out, v, style, &mut Drain::none());
}

fn write_draining(out: &mut String, v: &Value<'_>, style: Style, drain: &mut Drain<'_>) {
    let mut stack: Vec<(Frame<'_>, bool)> = Vec::new();
    let mut next = Some(*v);
    loop {
        if !drain.spill(out) {
            return;
        }
        if let Some(v) = next.take() {
            match v {
                Value::Null => out.push_str("null"),
                Value::Bool(true) => out.push_str("true"),
                Value::Bool(false) => out.push_str("false"),
                Value::Number(n) => {
                    if style.go {
                        write_go_number(out, &n);
                    } else {
                        out.push_str(n.literal());
                    }
                }
                Value::String(s) => write_str(out, s, style.go),
                Value::Array([]) => out.push_str("[]"),
                Value::Object(o) if o.is_empty() => out.push_str("{}"),
                Value::Array(items) => {
                    out.push('[');
                    stack.push((Frame::Array(items.iter()), true));
                }
                Value::Object(o) => {
                    out.push('{');
                    let frame = if style.go {
                        let mut ms: Vec<&Member<'_>> = o.members().iter().collect();
                        ms.sort_unstable_by(|a, b| a.key.cmp(b.key));
                        Frame::Sorted(ms.into_iter())
                    } else {
                        Frame::Object(o.members().iter())
                    };
                    stack.push((frame, true));
                }
            }
        }
        let depth = stack.len();
        let Some((frame, first)) = stack.last_mut() else {
            return;
        };
        let item = match frame {
            Frame::Array(it) => it.next().map(|v| (None, *v)),
            Frame::Object(it) => it.next().map(|m| (Some(m.key), m.value)),
            Frame::Sorted(it) => it.next().map(|m| (Some(m.key), m.value)),
        };
        match item {
            Some((key, value)) => {
                if !*first {
                    out.push(',');
                }
                *first = false;
                newline(out, style, depth);
                if let Some(k) = key {
                    write_str(out, k, style.go);
                    out.push(':');
                    if style.indent.is_some() {
                        out.push(' ');
                    }
                }
                next = Some(value);
            }
            None => {
                let close = if matches!(frame, Frame::Array(_)) {
                    ']'
                } else {
                    '}'
                };
                stack.pop();
                newline(out, style, depth - 1);
                out.push(close);
            }
        }
    }
}

/// 0: no escape; 1: `\u00XX`; other: the escape letter.
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = 1;
        i += 1;
    }
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[0x08] = b'b';
    t[0x0c] = b'f';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    // Go-only escapes are marked 2 and handled when `go` is set.
    t[b'<' as usize] = 2;
    t[b'>' as usize] = 2;
    t[b'&' as usize] = 2;
    t[0xE2] = 2;
    t
};

const HEX: &[u8; 16] = b"0123456789abcdef";

fn push_u_escape(out: &mut String, c: u32) {
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[((c >> shift) & 0xF) as usize] as char);
    }
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that Go's escaping changes or must look
/// at: `"`, `\`, control bytes, `<`, `>`, `&` and 0xE2 (the first byte of
/// U+2028 / U+2029). Exact in the lowest flagged byte (only that one is
/// used): a borrow can flag a byte only above a byte that matches.
#[inline(always)]
fn go_stop_mask(w: u64) -> u64 {
    let eq = |c: u8| {
        let x = w ^ (LO * u64::from(c));
        x.wrapping_sub(LO) & !x
    };
    let ctrl = w.wrapping_sub(LO * 0x20) & !w;
    (eq(b'"') | eq(b'\\') | eq(b'<') | eq(b'>') | eq(b'&') | eq(0xE2) | ctrl) & HI
}

/// Index of the first byte at or after `i` that escaping (standard, or
/// Go's when `go`) has to look at, or `b.len()`: eight bytes per step.
#[inline(always)]
fn next_stop(b: &[u8], mut i: usize, go: bool) -> usize {
    if !go {
        return find_stop(b, i);
    }
    while let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
        let m = go_stop_mask(u64::from_le_bytes(*chunk));
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if ESCAPE[c as usize] != 0 {
            break;
        }
        i += 1;
    }
    i
}

fn write_str(out: &mut String, s: &str, go: bool) {
    out.reserve(s.len() + 2);
    out.push('"');
    let b = s.as_bytes();
    // Skip to the first byte that needs escaping (or, for Go, a look), and
    // from each escape to the next, eight bytes at a time: text with an
    // escape every few words (embedded JSON or YAML, such as kubectl's
    // last-applied annotation) is copied in runs, not byte by byte.
    let mut i = next_stop(b, 0, go);
    if i == b.len() {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut run = 0;
    while i < b.len() {
        let c = b[i];
        let e = ESCAPE[c as usize];
        if e == 0 {
            i = next_stop(b, i + 1, go);
            continue;
        }
        if e == 2 {
            if !go {
                i = next_stop(b, i + 1, go);
                continue;
            }
            if c == 0xE2 {
                // U+2028 / U+2029 are E2 80 A8 / E2 80 A9.
                if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xA8 | 0xA9)) {
                    out.push_str(&s[run..i]);
                    push_u_escape(out, if b[i + 2] == 0xA8 { 0x2028 } else { 0x2029 });
                    i += 3;
                    run = i;
                    i = next_stop(b, i, go);
                } else {
                    i = next_stop(b, i + 1, go);
                }
                continue;
            }
        }
        out.push_str(&s[run..i]);
        if e == 1 || e == 2 || (go && (e == b'b' || e == b'f')) {
            push_u_escape(out, u32::from(c));
        } else {
            out.push('\\');
            out.push(e as char);
        }
        i += 1;
        run = i;
        i = next_stop(b, i, go);
    }
    out.push_str(&s[run..]);
    out.push('"');
}

fn write_go_number(out: &mut String, n: &Number<'_>) {
    if n.kind() == NumberKind::Int {
        if let Some(i) = n.as_i64() {
            if i == 0 {
                out.push('0'); // "-0" is the integer 0
            } else {
                out.push_str(n.literal());
            }
            return;
        }
    }
    let f = n.as_f64();
    if !f.is_finite() {
        out.push_str(n.literal());
        return;
    }
    out.push_str(&go_format_float(f));
}

/// Go's `encoding/json` text for a finite `float64` (spec Appendix A.2).
pub(crate) fn go_format_float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let (neg, digits, exp) = shortest_digits(f);
    let sign = if neg { "-" } else { "" };
    let abs = f.abs();
    if !(1e-6..1e21).contains(&abs) {
        let mut out = crate::render::mantissa_and_exp_sign(sign, digits.as_str(), exp);
        out.push_str(itoa::Buffer::new().format(exp.unsigned_abs()));
        out
    } else {
        plain(sign, digits.as_str(), exp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_floats() {
        for (f, want) in [
            (1.0, "1"),
            (-0.0, "-0"),
            (1e-7, "1e-7"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (0.000001, "0.000001"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (1.5e-7, "1.5e-7"),
            (-9223372036854775808.0, "-9223372036854776000"),
            (5e-324, "5e-324"),
            (0.1, "0.1"),
        ] {
            assert_eq!(go_format_float(f), want, "{f}");
        }
    }

    /// The escaping of one string, a character at a time (what
    /// `write_str` must write, whatever runs it skips).
    fn escaped_slowly(s: &str, go: bool) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' if !go => out.push_str("\\b"),
                '\u{c}' if !go => out.push_str("\\f"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' if go => {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    /// Strings with escapes and Go's special characters at every offset of
    /// the eight-byte words, in runs of every length up to 20, with plain
    /// and multi-byte text between them: the word-at-a-time skips write
    /// exactly what escaping one character at a time writes, in both modes.
    #[test]
    fn write_str_skips_runs_and_escapes_like_one_character_at_a_time() {
        let specials = [
            "\"", "\\", "\n", "\t", "\u{1}", "\u{8}", "\u{c}", "\u{1f}", "<", ">", "&", "\u{2028}",
            "\u{2029}", "\u{2027}", "\u{20ac}", "é", "\u{7f}",
        ];
        for len in 0..20 {
            let plain: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            for at in 0..=len {
                for a in specials {
                    for b in specials {
                        let t = format!("{}{a}{}{b}{}", &plain[..at], &plain[at..], &plain[..at]);
                        for go in [false, true] {
                            let mut out = String::new();
                            write_str(&mut out, &t, go);
                            assert_eq!(out, escaped_slowly(&t, go), "{t:?} go={go}");
                        }
                    }
                }
            }
        }
    }

    /// `write_json` appends: what the buffer held stays, and a buffer
    /// cleared and reused (a long document first, then a short one) holds
    /// exactly the short document's text, as a fresh buffer would.
    #[test]
    fn write_json_appends_and_a_reused_buffer_keeps_nothing_of_the_last_call() {
        let arena = crate::Arena::new();
        let opts = crate::ParseOptions::default();
        let long = crate::parse_json(
            &arena,
            br#"{"items": [{"name": "a\"b", "value": 1.50}, {"name": "c", "value": null}], "x": "\u0001"}"#,
            &opts,
        )
        .unwrap();
        let short = crate::parse_json(&arena, br#"{"b": [true]}"#, &opts).unwrap();
        let mut out = String::from("prefix:");
        write_json(&mut out, &short);
        assert_eq!(out, r#"prefix:{"b":[true]}"#);
        out.clear();
        write_json(&mut out, &long);
        assert_eq!(out, to_json_string(&long));
        let cap = out.capacity();
        out.clear();
        write_json(&mut out, &short);
        assert_eq!(out, to_json_string(&short));
        assert_eq!(out.capacity(), cap, "a cleared buffer keeps its capacity");
    }
}
