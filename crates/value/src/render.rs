//! Go's `%v` rendering of scalars (spec Appendix A.1), used for sorting and for
//! matching merge keys the way the reference does.

use crate::{NumberKind, Value};
use std::borrow::Cow;

/// Renders a scalar as Go's `fmt` `%v` verb would (strings raw, ints in
/// decimal, floats in `%g`-like shortest form, `true`/`false`, `<nil>`).
/// Containers render as a compact JSON-ish text; the reference never sorts by
/// them.
///
/// ```
/// use smpatch_value::{render, Number, Value};
/// let f = |t| Value::Number(Number::from_literal_unchecked(t));
/// assert_eq!(render(&f("1e6")), "1e+06");
/// assert_eq!(render(&f("0.0001")), "0.0001");
/// assert_eq!(render(&f("1.0")), "1");
/// assert_eq!(render(&Value::String("x")), "x");
/// ```
pub fn render<'v>(v: &Value<'v>) -> Cow<'v, str> {
    match v {
        Value::Null => Cow::Borrowed("<nil>"),
        Value::Bool(true) => Cow::Borrowed("true"),
        Value::Bool(false) => Cow::Borrowed("false"),
        Value::String(s) => Cow::Borrowed(s),
        Value::Number(n) => match n.kind() {
            NumberKind::Int => Cow::Borrowed(n.literal()),
            NumberKind::Float => match n.as_f64() {
                f if f.is_finite() => Cow::Owned(go_format_g(f)),
                // Beyond `f64` (only from `Number::from_literal_unchecked`):
                // the literal, so that different values render apart.
                _ => Cow::Borrowed(n.literal()),
            },
        },
        Value::Array(_) | Value::Object(_) => Cow::Owned(render_container(v)),
    }
}

/// `%v` of a container, iteratively: `[a b]`, `map[k:v]` (keys sorted).
fn render_container(v: &Value<'_>) -> String {
    enum Item<'a> {
        Value(Value<'a>),
        Text(&'static str),
        Key(&'a str),
    }
    let mut out = String::new();
    let mut stack = vec![Item::Value(*v)];
    while let Some(item) = stack.pop() {
        match item {
            Item::Text(t) => out.push_str(t),
            Item::Key(k) => {
                out.push_str(k);
                out.push(':');
            }
            Item::Value(Value::Array(items)) => {
                out.push('[');
                stack.push(Item::Text("]"));
                for (i, it) in items.iter().enumerate().rev() {
                    stack.push(Item::Value(*it));
                    if i > 0 {
                        stack.push(Item::Text(" "));
                    }
                }
            }
            Item::Value(Value::Object(o)) => {
                out.push_str("map[");
                stack.push(Item::Text("]"));
                let mut ms: Vec<_> = o.members().iter().collect();
                ms.sort_by(|a, b| a.key.cmp(b.key));
                for (i, m) in ms.iter().enumerate().rev() {
                    stack.push(Item::Value(m.value));
                    stack.push(Item::Key(m.key));
                    if i > 0 {
                        stack.push(Item::Text(" "));
                    }
                }
            }
            Item::Value(scalar) => out.push_str(&render(&scalar)),
        }
    }
    out
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` as `%v` prints a float64.
pub fn go_format_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let (neg, digits, exp) = shortest_digits(f);
    let sign = if neg { "-" } else { "" };
    // exp is the decimal exponent of the first digit: value = d.ddd × 10^exp.
    // With shortest precision Go switches to exponent form when
    // exp < -4 || exp >= 6 (strconv's `eprec = 6` rule).
    if !(-4..6).contains(&exp) {
        return format_exponent(sign, &digits, exp);
    }
    plain(sign, &digits, exp)
}

pub(crate) fn plain(sign: &str, digits: &str, exp: i32) -> String {
    let mut out = String::from(sign);
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

pub(crate) fn format_exponent(sign: &str, digits: &str, exp: i32) -> String {
    let mut out = mantissa_and_exp_sign(sign, digits, exp);
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push('0');
    }
    out.push_str(&e.to_string());
    out
}

/// `sign d[.ddd]e±`: scientific notation up to the exponent's digits, which
/// callers write in their own width.
pub(crate) fn mantissa_and_exp_sign(sign: &str, digits: &str, exp: i32) -> String {
    let mut out = String::from(sign);
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    out
}

/// Shortest round-trip decimal digits of a finite non-zero `f64`:
/// `(negative, digits without leading/trailing zeros, exponent of first digit)`.
pub(crate) fn shortest_digits(f: f64) -> (bool, String, i32) {
    // `{:e}` prints the shortest round-trip digits as `d.ddde±x`.
    let s = format!("{:e}", f.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    (f.is_sign_negative(), digits.to_string(), exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_render_like_go() {
        let arena = crate::Arena::new();
        let v = crate::parse_json(
            &arena,
            br#"{"b":[1,"x",null],"a":{"d":true,"c":1.5}}"#,
            &crate::ParseOptions::default(),
        )
        .unwrap();
        assert_eq!(render(&v), "map[a:map[c:1.5 d:true] b:[1 x <nil>]]");
    }

    #[test]
    fn go_g_format() {
        let cases = [
            (1.0, "1"),
            (0.5, "0.5"),
            (999999.0, "999999"),
            (1e6, "1e+06"),
            (1234567.8, "1.2345678e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1e100, "1e+100"),
            (1e20, "1e+20"),
            (123456.0, "123456"),
            (3.4028234663852886e38, "3.4028234663852886e+38"),
        ];
        for (f, want) in cases {
            assert_eq!(go_format_g(f), want, "{f}");
        }
    }
}
