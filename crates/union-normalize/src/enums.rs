//! A schema's `enum` and the test "is this value one of it", by kind and
//! value, with the equality smpatch uses for every value: the string `"1"`
//! is not the number `1`, `true` is not `"true"`, and an integer literal is
//! not a float one (`1` is not `1.0`, as the Go reference decodes them);
//! within a kind numbers compare by value (`-0` is `0`, `1.5` is `1.50`).

use smpatch_schema::Cursor;
use smpatch_value::{to_json_string, Number, Value};

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
            Value::Number(n) => self.entries().any(|(_, j)| number_eq(n, j)),
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

/// A number value and a number entry (any JSON text: a non-number entry
/// never matches) are the same value: the same kind (an integer literal is
/// not a float one: `1` is not `1.0`) and the same number within it, as
/// smpatch compares values everywhere ([`Number::same_value`]).
fn number_eq(value: Number<'_>, entry: &str) -> bool {
    Number::parse_literal(entry).is_some_and(|e| e.same_value(&value))
}

#[cfg(test)]
mod tests {
    use super::number_eq;
    use smpatch_value::Number;

    fn eq(a: &str, b: &str) -> bool {
        number_eq(Number::parse_literal(a).expect("a number"), b)
    }

    #[test]
    fn numbers_compare_by_kind_and_value() {
        for (a, b) in [
            ("1", "1"),
            ("-0", "0"),
            ("1.0", "1.00"),
            ("1e8", "100000000.0"),
            ("1.5", "15e-1"),
            ("18446744073709551617", "18446744073709551617"),
        ] {
            assert!(eq(a, b), "{a} == {b}");
        }
        for (a, b) in [
            ("1", "1.0"),
            ("1.0", "1"),
            ("100000000", "1e8"),
            ("1", "\"1\""),
            ("1", "true"),
            ("1", "null"),
            ("1", "2"),
            ("-1", "1"),
            ("1.5", "1"),
            ("18446744073709551617", "18446744073709551616"),
        ] {
            assert!(!eq(a, b), "{a} != {b}");
        }
    }
}
