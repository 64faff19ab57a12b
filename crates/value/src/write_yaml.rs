//! The block YAML writer, laid out like `kubectl -o yaml`.
//!
//! Architecture Invariant: iterative, like the JSON writers.

use crate::write_json::{stream, Drain};
use crate::yaml::{resolve_plain, Resolved};
use crate::{Member, Value};

/// Block YAML in the layout of `kubectl -o yaml`: 2-space indent, list items
/// at the same indent as their key, `{}`/`[]` for empty containers, keys in
/// insertion order, numbers as their literal text.
///
/// Strings are quoted when a plain scalar would read back as something else:
/// double quotes for text that would resolve to another type (`"yes"`,
/// `"123"`, `"null"`, `""`) or holds control characters (escaped), single
/// quotes for text starting with an indicator or holding `: ` or ` #`.
/// Multi-line strings use literal blocks (`|`, `|-`, `|+`). Checked against
/// `kubectl -o yaml` (testdata/value/json.json); the differences are on
/// purpose: strings of only newlines or whose first line starts with a space
/// are double-quoted (kubectl writes `|2+`), U+0085/U+2028/U+2029 are
/// escaped, `?x`-style indicators may be quoted where kubectl is not, and keys
/// keep insertion order (kubectl sorts them).
///
/// Round trip: `parse_yaml_single(to_yaml_string(v))` deep-equals `v` except
/// that, as in kubectl, floats with an integral value (`1.0`) read back as
/// integers and integers beyond `u64` as floats.
///
/// ```
/// use smpatch_value::{parse_json, to_yaml_string, Arena, ParseOptions};
/// let arena = Arena::new();
/// let v = parse_json(&arena, br#"{"a":{"b":[1,{"c":"yes"}]},"d":[],"e":"x\ny"}"#, &ParseOptions::default()).unwrap();
/// assert_eq!(to_yaml_string(&v), "a:\n  b:\n  - 1\n  - c: \"yes\"\nd: []\ne: |-\n  x\n  y\n");
/// ```
pub fn to_yaml_string(v: &Value<'_>) -> String {
    let mut out = String::new();
    write_yaml(&mut out, v);
    out
}

/// Appends the block YAML of `v` (as [`to_yaml_string`]) to `out`.
pub fn write_yaml(out: &mut String, v: &Value<'_>) {
    write_yaml_draining(out, v, &mut Drain::none());
}

/// Block YAML (as [`to_yaml_string`]) written to `w` in chunks of about
/// 64 KiB, so a large document is never held twice in memory.
///
/// ```
/// use smpatch_value::{parse_json, write_yaml_to, Arena, ParseOptions};
/// let arena = Arena::new();
/// let v = parse_json(&arena, br#"{"a": [1, "yes"]}"#, &ParseOptions::default()).unwrap();
/// let mut out = Vec::new();
/// write_yaml_to(&mut out, &v).unwrap();
/// assert_eq!(out, b"a:\n- 1\n- \"yes\"\n");
/// ```
pub fn write_yaml_to(w: &mut impl std::io::Write, v: &Value<'_>) -> std::io::Result<()> {
    stream(w, |out, drain| write_yaml_draining(out, v, drain))
}

fn write_yaml_draining(out: &mut String, v: &Value<'_>, drain: &mut Drain<'_>) {
    struct Frame<'a> {
        items: Items<'a>,
        indent: usize,
        /// The first entry continues the current line (after `- `).
        inline: bool,
        first: bool,
    }
    enum Items<'a> {
        Map(std::slice::Iter<'a, Member<'a>>),
        Seq(std::slice::Iter<'a, Value<'a>>),
    }
    let mut stack: Vec<Frame<'_>> = Vec::new();
    match *v {
        Value::Object(o) if !o.is_empty() => stack.push(Frame {
            items: Items::Map(o.members().iter()),
            indent: 0,
            inline: false,
            first: true,
        }),
        Value::Array(a) if !a.is_empty() => stack.push(Frame {
            items: Items::Seq(a.iter()),
            indent: 0,
            inline: false,
            first: true,
        }),
        other => {
            write_node_inline(out, &other, 0);
            return;
        }
    }
    while let Some(frame) = stack.last_mut() {
        if !drain.spill(out) {
            return;
        }
        let n = frame.indent;
        let (key, value) = match &mut frame.items {
            Items::Map(it) => match it.next() {
                Some(m) => (Some(m.key), m.value),
                None => {
                    stack.pop();
                    continue;
                }
            },
            Items::Seq(it) => match it.next() {
                Some(v) => (None, *v),
                None => {
                    stack.pop();
                    continue;
                }
            },
        };
        if !(frame.first && frame.inline) {
            push_spaces(out, n);
        }
        frame.first = false;
        match key {
            Some(k) => {
                let start = out.len();
                write_key(out, k);
                if out.len() - start > MAX_IMPLICIT_KEY {
                    // YAML limits implicit keys to 1024 characters: longer
                    // keys need the explicit `? key` / `: value` form.
                    out.insert_str(start, "? ");
                    out.push('\n');
                    push_spaces(out, n);
                }
                out.push(':');
                match value {
                    Value::Object(o) if !o.is_empty() => {
                        out.push('\n');
                        stack.push(Frame {
                            items: Items::Map(o.members().iter()),
                            indent: n + 2,
                            inline: false,
                            first: true,
                        });
                    }
                    Value::Array(a) if !a.is_empty() => {
                        out.push('\n');
                        stack.push(Frame {
                            items: Items::Seq(a.iter()),
                            indent: n,
                            inline: false,
                            first: true,
                        });
                    }
                    other => {
                        out.push(' ');
                        write_node_inline(out, &other, n + 2);
                    }
                }
            }
            None => {
                out.push_str("- ");
                match value {
                    Value::Object(o) if !o.is_empty() => stack.push(Frame {
                        items: Items::Map(o.members().iter()),
                        indent: n + 2,
                        inline: true,
                        first: true,
                    }),
                    Value::Array(a) if !a.is_empty() => stack.push(Frame {
                        items: Items::Seq(a.iter()),
                        indent: n + 2,
                        inline: true,
                        first: true,
                    }),
                    other => write_node_inline(out, &other, n + 2),
                }
            }
        }
    }
}

/// Longest key (in bytes, as written) that may be an implicit key; YAML
/// allows 1024 characters, and bytes never undercount characters.
const MAX_IMPLICIT_KEY: usize = 1024;

fn push_spaces(out: &mut String, mut n: usize) {
    const SPACES: &str = "                                                                ";
    while n > 0 {
        let k = n.min(SPACES.len());
        out.push_str(&SPACES[..k]);
        n -= k;
    }
}

/// A scalar or empty container, then a newline. Block scalar content goes at
/// `content_indent`.
fn write_node_inline(out: &mut String, v: &Value<'_>, content_indent: usize) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => out.push_str(n.literal()),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
        Value::String(s) => match string_style(s, Role::Value) {
            Style::Plain => out.push_str(s),
            Style::Single => write_single(out, s),
            Style::Double => write_double(out, s),
            // At the root a block line `---` or `...` would read as a
            // document marker (fuzz finding): quote instead.
            Style::Literal if content_indent == 0 && s.split('\n').any(is_document_marker) => {
                write_double(out, s)
            }
            Style::Literal => {
                write_literal(out, s, content_indent);
                return;
            }
        },
    }
    out.push('\n');
}

/// A line that YAML reads as a document marker when it starts a line at
/// column 0: `---` or `...` alone or followed by a space or tab.
fn is_document_marker(line: &str) -> bool {
    ["---", "..."].iter().any(|m| {
        line.strip_prefix(m)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
    })
}

fn write_key(out: &mut String, k: &str) {
    match string_style(k, Role::Key) {
        Style::Plain => out.push_str(k),
        Style::Single => write_single(out, k),
        Style::Double | Style::Literal => write_double(out, k),
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// Characters that must be escaped in double quotes.
fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
}

/// go-yaml's timestamp shapes (`2001-12-14`, `2001-12-14T21:59:43Z`, …):
/// plain they would read as timestamps in YAML 1.1, so kubectl quotes them.
fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |from: usize, min: usize, max: usize| {
        let n = b[from.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        (min..=max).contains(&n).then_some(from + n)
    };
    let Some(i) = digits(0, 4, 4) else {
        return false;
    };
    if b.get(i) != Some(&b'-') {
        return false;
    }
    let Some(i) = digits(i + 1, 1, 2) else {
        return false;
    };
    if b.get(i) != Some(&b'-') {
        return false;
    }
    let Some(i) = digits(i + 1, 1, 2) else {
        return false;
    };
    matches!(b.get(i), None | Some(b'T' | b't' | b' '))
}

/// Where a string is written: keys and values quote differently.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Key,
    Value,
}

/// What [`string_style`] asks of a string's text, found in one pass over
/// its bytes (the characters beyond ASCII are decoded only when present).
#[derive(Default)]
struct Scan {
    /// A character that must be escaped ([`needs_escape`]).
    escape: bool,
    newline: bool,
    /// `: ` somewhere.
    colon_space: bool,
    /// ` #` somewhere.
    space_hash: bool,
}

impl Scan {
    fn of(s: &str) -> Scan {
        let b = s.as_bytes();
        let mut scan = Scan::default();
        let mut non_ascii = false;
        for (i, &c) in b.iter().enumerate() {
            match c {
                b'\n' => scan.newline = true,
                // ASCII's control characters other than the newline.
                0..=0x1f | 0x7f => scan.escape = true,
                b':' => scan.colon_space |= b.get(i + 1) == Some(&b' '),
                b' ' => scan.space_hash |= b.get(i + 1) == Some(&b'#'),
                0x80.. => non_ascii = true,
                _ => {}
            }
        }
        if non_ascii && !scan.escape {
            scan.escape = s.chars().any(needs_escape);
        }
        scan
    }
}

fn string_style(s: &str, role: Role) -> Style {
    let is_key = role == Role::Key;
    let allow_block = !is_key;
    let scan = Scan::of(s);
    if s.is_empty() || scan.escape {
        return Style::Double;
    }
    if scan.newline {
        // Block scalars need an indentation indicator when the first
        // non-empty line starts with a space; use double quotes instead.
        let first_content = s.split('\n').find(|l| !l.is_empty());
        let indented = first_content.is_none_or(|l| l.starts_with(' '));
        return if allow_block && !indented {
            Style::Literal
        } else {
            Style::Double
        };
    }
    match resolve_plain(s) {
        Resolved::Str => {}
        // `<<` is only special as a key.
        Resolved::Merge if !is_key => {}
        _ => return Style::Double,
    }
    if looks_like_timestamp(s) {
        return Style::Double;
    }
    let b = s.as_bytes();
    let first = b[0];
    let last = b[b.len() - 1];
    // `-`, `?` and `:` may start a plain scalar when a non-space follows.
    let indicator_then_space =
        matches!(first, b'-' | b'?' | b':') && b.get(1).is_none_or(|c| *c == b' ');
    if indicator_then_space
        || matches!(
            first,
            b',' | b'['
                | b']'
                | b'{'
                | b'}'
                | b'#'
                | b'&'
                | b'*'
                | b'!'
                | b'|'
                | b'>'
                | b'\''
                | b'"'
                | b'%'
                | b'@'
                | b'`'
                | b' '
        )
        || last == b' '
        || last == b':'
        || scan.colon_space
        || scan.space_hash
        || s.starts_with("...")
        || s.starts_with("---")
    {
        return Style::Single;
    }
    Style::Plain
}

fn write_single(out: &mut String, s: &str) {
    out.push('\'');
    for (i, part) in s.split('\'').enumerate() {
        if i > 0 {
            out.push_str("''");
        }
        out.push_str(part);
    }
    out.push('\'');
}

fn write_double(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) => {
                let n = c as u32;
                if n <= 0xFF {
                    out.push_str(&format!("\\x{n:02X}"));
                } else if n <= 0xFFFF {
                    out.push_str(&format!("\\u{n:04X}"));
                } else {
                    out.push_str(&format!("\\U{n:08X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_literal(out: &mut String, s: &str, indent: usize) {
    let trailing = s.len() - s.trim_end_matches('\n').len();
    out.push_str(match trailing {
        0 => "|-",
        1 => "|",
        _ => "|+",
    });
    out.push('\n');
    let mut lines: Vec<&str> = s.split('\n').collect();
    if trailing > 0 {
        lines.pop(); // the empty piece after the final newline
    }
    for line in lines {
        if !line.is_empty() {
            push_spaces(out, indent);
            out.push_str(line);
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use crate::{parse_json, parse_yaml, to_yaml_string, Arena, ParseOptions};

    /// The one-pass scan finds what the separate searches found: pairs of
    /// ASCII, control and non-ASCII characters (C1 controls, U+2028, BOM)
    /// at every offset of short texts.
    #[test]
    fn scan_finds_what_separate_searches_find() {
        let pieces = [
            "a", " ", ":", "#", "\n", "\t", "\u{0}", "\u{7f}", "\u{80}", "\u{85}", "\u{9f}",
            "\u{a0}", "é", "\u{2028}", "\u{2029}", "\u{feff}", "\u{fffe}", "\u{ffff}", "日", "🚀",
        ];
        let mut texts = vec![String::new()];
        for a in pieces {
            for b in pieces {
                for c in ["", "x", ": ", " #", "a b"] {
                    texts.push(format!("{a}{b}{c}"));
                    texts.push(format!("{c}{a}{b}"));
                    texts.push(format!("{a}{c}{b}"));
                }
            }
        }
        for t in &texts {
            let scan = super::Scan::of(t);
            assert_eq!(scan.escape, t.chars().any(super::needs_escape), "{t:?}");
            assert_eq!(scan.newline, t.contains('\n'), "{t:?}");
            assert_eq!(scan.colon_space, t.contains(": "), "{t:?}");
            assert_eq!(scan.space_hash, t.contains(" #"), "{t:?}");
        }
    }

    /// Fuzz finding (yaml_parse): a root string whose literal-block line is
    /// `...` or `---` read back as a document marker.
    #[test]
    fn root_strings_with_document_marker_lines_round_trip() {
        let arena = Arena::new();
        for s in [
            "...\n",
            "...",
            "---",
            "--- x",
            "... x",
            "a\n...\nb",
            "a\n---\nb\n",
            "a\n--- x",
            "a\n...x\nb",
            "x\n----\n",
        ] {
            let v = crate::Value::String(s);
            let yaml = to_yaml_string(&v);
            let docs = parse_yaml(&arena, arena.alloc_str(&yaml), &ParseOptions::default())
                .unwrap_or_else(|e| panic!("{s:?} as {yaml:?}: {e}"));
            assert_eq!(docs.len(), 1, "{s:?} as {yaml:?}");
            assert!(
                docs[0].deep_eq(&v),
                "{s:?} as {yaml:?} read back as {:?}",
                docs[0]
            );
            // Nested, the block is indented and stays a block.
            let nested = crate::Value::object_from(&arena, &[("k", v)]);
            let yaml = to_yaml_string(&nested);
            let back =
                parse_yaml(&arena, arena.alloc_str(&yaml), &ParseOptions::default()).unwrap();
            assert!(back[0].deep_eq(&nested), "{yaml:?}");
        }
    }

    /// Indentation deeper than the writer's 64-space run (maps and lists
    /// 75 levels deep): read back as written.
    #[test]
    fn deep_indentation_round_trips() {
        let arena = Arena::new();
        let doc = format!("{}\"x\"{}", "{\"a\":[{\"b\":".repeat(25), "}]}".repeat(25));
        let v = parse_json(&arena, doc.as_bytes(), &ParseOptions::default()).unwrap();
        let yaml = to_yaml_string(&v);
        let widest = yaml.lines().map(|l| l.len() - l.trim_start().len()).max();
        assert!(widest > Some(64), "{yaml}");
        let back = parse_yaml(&arena, arena.alloc_str(&yaml), &ParseOptions::default()).unwrap();
        assert!(v.deep_eq(&back[0]), "{yaml}");
    }

    /// Fuzz finding (json_roundtrip): keys longer than YAML's 1024-character
    /// implicit-key limit were written as implicit keys and did not read back.
    #[test]
    fn long_keys_use_the_explicit_form() {
        let arena = Arena::new();
        let k = "k".repeat(1100);
        for value in [
            "null",
            "1",
            "{\"a\":[1,{\"b\":2}]}",
            "[1,[2],{\"c\":3}]",
            "\"x\\ny\"",
        ] {
            let doc = format!("{{\"{k}\":{value},\"b\":[{{\"{k}\":[true]}}]}}");
            let v = parse_json(
                &arena,
                arena.alloc_str(&doc).as_bytes(),
                &ParseOptions::default(),
            )
            .unwrap();
            let yaml = to_yaml_string(&v);
            let back = parse_yaml(&arena, arena.alloc_str(&yaml), &ParseOptions::default())
                .unwrap_or_else(|e| panic!("{e}\n{yaml}"));
            assert!(v.deep_eq(&back[0]), "{yaml}");
        }
    }
}
