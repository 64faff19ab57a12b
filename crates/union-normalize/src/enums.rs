//! A schema's `enum` and the test "is this value one of it", by kind and
//! value: the string `"1"` is not the number `1`, `true` is not `"true"`,
//! and numbers compare by their decimal value (`1`, `1.0` and `1e0` are
//! one number, as JSON Schema's `enum` compares them), exactly, without
//! going through `f64`.

use smpatch_schema::Cursor;
use smpatch_value::{to_json_string, Value};

/// The `enum` of a scalar schema: each entry as text (strings unquoted,
/// for messages and string comparison) and as compact JSON (for its kind).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EnumList<'s> {
    text: &'s [Box<str>],
    json: &'s [Box<str>],
}

impl<'s> EnumList<'s> {
    /// The enum the cursor's scalar schema declares, if any.
    pub(crate) fn of(cursor: Cursor<'s>) -> Option<Self> {
        Some(EnumList {
            text: cursor.enum_values()?,
            json: cursor.enum_json()?,
        })
    }

    fn entries(&self) -> impl Iterator<Item = (&'s str, &'s str)> + 's {
        self.text.iter().zip(self.json).map(|(t, j)| (&**t, &**j))
    }

    /// True when the string `s` is an entry (string entries only,
    /// compared exactly: case-sensitive, `""` only if listed).
    pub(crate) fn contains_str(&self, s: &str) -> bool {
        self.entries().any(|(t, j)| j.starts_with('"') && t == s)
    }

    /// True when `v` is an entry, by kind and value.
    pub(crate) fn contains(&self, v: Value<'_>) -> bool {
        match v {
            Value::String(s) => self.contains_str(s),
            Value::Number(n) => self.entries().any(|(_, j)| number_eq(n.literal(), j)),
            Value::Bool(b) => {
                let want = if b { "true" } else { "false" };
                self.entries().any(|(_, j)| j == want)
            }
            Value::Null => self.entries().any(|(_, j)| j == "null"),
            // A list or object is one of an enum of scalars only if the
            // enum lists containers at all; those are not compared (an
            // enum is a closed set of strings, KEP-2887).
            Value::Array(_) | Value::Object(_) => {
                self.entries().any(|(_, j)| j.starts_with(['{', '[']))
            }
        }
    }

    /// The entries' string texts (for a discriminator's allowed values).
    pub(crate) fn strings(&self) -> impl Iterator<Item = &'s str> + 's {
        self.entries()
            .filter(|(_, j)| j.starts_with('"'))
            .map(|(t, _)| t)
    }

    /// The entries as JSON text, each cut, for a message.
    pub(crate) fn shown(&self) -> String {
        self.json
            .iter()
            .map(|j| cut(j))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A value as JSON text for a message, cut after 64 characters.
pub(crate) fn shown_json(v: Value<'_>) -> String {
    cut(&to_json_string(&v))
}

fn cut(text: &str) -> String {
    const MAX: usize = 64;
    match text.char_indices().nth(MAX) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}… ({} bytes)", &text[..end], text.len()),
    }
}

/// A JSON number literal as (negative, significant digits, exponent):
/// `-1.50e2` is (true, "15", 1). Zero is (false, "", 0). `None` when the
/// text is not a number literal or its exponent does not fit an `i64`.
fn decimal(text: &str) -> Option<(bool, String, i64)> {
    let (neg, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits: String = int.chars().chain(frac.chars()).collect();
    let exp = exp.checked_sub(i64::try_from(frac.len()).ok()?)?;
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Some((false, String::new(), 0));
    }
    let trimmed = digits.trim_end_matches('0');
    let zeros = i64::try_from(digits.len() - trimmed.len()).ok()?;
    Some((neg, trimmed.to_owned(), exp.checked_add(zeros)?))
}

/// Two JSON number literals denote the same number (`entry` may be any
/// JSON text: a non-number entry never matches).
fn number_eq(literal: &str, entry: &str) -> bool {
    match (decimal(literal), decimal(entry)) {
        (Some(a), Some(b)) => a == b,
        _ => literal == entry,
    }
}

#[cfg(test)]
mod tests {
    use super::number_eq;

    #[test]
    fn numbers_compare_by_decimal_value() {
        for (a, b) in [
            ("1", "1.0"),
            ("1", "1e0"),
            ("100000000", "1e8"),
            ("1.50", "1.5"),
            ("-0", "0"),
            ("0.0", "0"),
            ("12300", "1.23E4"),
            ("18446744073709551617", "18446744073709551617.0"),
        ] {
            assert!(number_eq(a, b), "{a} == {b}");
        }
        for (a, b) in [
            ("1", "\"1\""),
            ("1", "true"),
            ("1", "2"),
            ("-1", "1"),
            ("1.5", "1"),
            ("18446744073709551617", "18446744073709551616"),
            ("1", "10"),
            ("1e9999999999999999999", "1"),
        ] {
            assert!(!number_eq(a, b), "{a} != {b}");
        }
    }
}
