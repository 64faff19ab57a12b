//! Reading one request line: the parse (deep enough for the request's own
//! `options.max_depth`) and, for a line that is not a valid request, a scan
//! of its raw members that salvages the `"id"` without building the rest.

use smpatch_value::{parse_json, Arena, ParseError, ParseErrorKind, ParseOptions, Value};

/// Parses a request line. Documents sit one level below the request, so the
/// parser allows two levels more than the request's `options.max_depth`
/// (default: the session's `limit`, else [`crate::DEFAULT_MAX_DEPTH`], and
/// never less than that default, so that a document too deep for a lower
/// limit is the engine's `too_deep` error at the document's path); that
/// option is read on its own first only when the line is deeper than the
/// default allows, and is not followed beyond the session's `limit`.
pub(super) fn parse_request<'a>(
    arena: &'a Arena,
    line: &'a [u8],
    limit: Option<usize>,
) -> Result<Value<'a>, ParseError> {
    let base = limit.map_or(crate::DEFAULT_MAX_DEPTH, |l| {
        l.max(crate::DEFAULT_MAX_DEPTH)
    });
    let mut opts = ParseOptions::default()
        .with_max_depth(base.saturating_add(2))
        .with_max_input_bytes(usize::MAX);
    match parse_json(arena, line, &opts) {
        Err(e) if e.kind == ParseErrorKind::TooDeep => {
            let wanted = member(line, b"options")
                .and_then(|o| member(o, b"max_depth"))
                .and_then(|d| std::str::from_utf8(d).ok()?.parse::<usize>().ok())
                .filter(|d| limit.is_none_or(|l| *d <= l))
                .map(|d| d.saturating_add(2));
            match wanted {
                Some(depth) if depth > opts.max_depth => {
                    opts.max_depth = depth;
                    parse_json(arena, line, &opts)
                }
                _ => Err(e),
            }
        }
        other => other,
    }
}

/// The request's `"id"` when it can be read on its own (for lines that are
/// not a valid request), else `null`.
pub(super) fn salvage_id<'a>(arena: &'a Arena, line: &'a [u8]) -> Value<'a> {
    member(line, b"id")
        .and_then(|raw| parse_json(arena, raw, &ParseOptions::default()).ok())
        .unwrap_or(Value::Null)
}

/// The raw text of member `key` of the JSON object `text`, found by walking
/// the object's members without building them (no recursion, no
/// allocation): later members may be malformed, too deep or cut off. Keys
/// are compared as written (an escaped key does not match).
fn member<'t>(text: &'t [u8], key: &[u8]) -> Option<&'t [u8]> {
    let mut i = skip_ws(text, 0);
    if text.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(text, i);
        if text.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(text, i)?;
        let name = &text[i + 1..key_end - 1];
        i = skip_ws(text, key_end);
        if text.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(text, i + 1);
        let end = skip_value(text, i)?;
        if name == key {
            return Some(&text[i..end]);
        }
        i = skip_ws(text, end);
        match text.get(i) {
            Some(b',') => i += 1,
            _ => return None,
        }
    }
}

fn skip_ws(text: &[u8], mut i: usize) -> usize {
    while matches!(text.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// `text[i]` opens a string: the index just past its closing quote.
fn skip_string(text: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match text.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// The index just past the value starting at `text[i]`: containers are
/// skipped by counting brackets, not by recursion.
fn skip_value(text: &[u8], mut i: usize) -> Option<usize> {
    match text.get(i)? {
        b'"' => skip_string(text, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                match text.get(i)? {
                    b'"' => {
                        i = skip_string(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let start = i;
            while !matches!(
                text.get(i),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                i += 1;
            }
            (i > start && i < text.len()).then_some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::member;

    fn id(text: &str) -> Option<&str> {
        member(text.as_bytes(), b"id").and_then(|raw| std::str::from_utf8(raw).ok())
    }

    #[test]
    fn member_skips_earlier_values_without_building_them() {
        assert_eq!(id(r#"{"id": 7}"#), Some("7"));
        assert_eq!(id(r#" { "op" : "x" , "id" : "a\"}" } "#), Some(r#""a\"}""#));
        let nested = r#"{"patch": {"a": ["]", "}", {"b": [1, [2]]}]}, "id": [1, {"x": 2}]}"#;
        assert_eq!(id(nested), Some(r#"[1, {"x": 2}]"#));
        assert_eq!(
            id(r#"{"i\u0064": 1, "id": 2}"#),
            Some("2"),
            "escaped keys do not match"
        );
    }

    #[test]
    fn member_stops_where_the_line_stops_being_readable() {
        // Members after `id` may be broken: `id` is still found.
        assert_eq!(id(r#"{"id": 3, "patch": {"#), Some("3"));
        assert_eq!(id("{\"id\": 4, \"x\": \"\u{0}"), Some("4"));
        // `id` itself cut off, or behind a broken member: not found.
        assert_eq!(id(r#"{"id": 12"#), None);
        assert_eq!(id(r#"{"id": "abc"#), None);
        assert_eq!(id(r#"{"patch": {"a": 1, "id": 5"#), None);
        assert_eq!(id(r#"{"patch" 1, "id": 5}"#), None);
        assert_eq!(id(r#"[{"id": 5}]"#), None);
        assert_eq!(id(""), None);
    }
}
