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
        return format_exponent(sign, digits.as_str(), exp);
    }
    plain(sign, digits.as_str(), exp)
}

pub(crate) fn plain(sign: &str, digits: &str, exp: i32) -> String {
    // The longest plain text: 17 digits past `-0.000`, or 21 integer digits.
    let mut out = String::with_capacity(24);
    out.push_str(sign);
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
    out.push_str(itoa::Buffer::new().format(e));
    out
}

/// `sign d[.ddd]e±`: scientific notation up to the exponent's digits, which
/// callers write in their own width.
pub(crate) fn mantissa_and_exp_sign(sign: &str, digits: &str, exp: i32) -> String {
    // Sign, 17 digits, the point, `e±` and three exponent digits.
    let mut out = String::with_capacity(24);
    out.push_str(sign);
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    out
}

/// The shortest round-trip decimal digits of a float, without leading or
/// trailing zeros, held inline (at most 17 significant digits).
pub(crate) struct Digits {
    buf: [u8; 24],
    len: usize,
}

impl Digits {
    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII digits are ever stored.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("0")
    }
}

/// Shortest round-trip decimal digits of a finite non-zero `f64`:
/// `(negative, digits without leading/trailing zeros, exponent of first digit)`.
///
/// The digits come from `zmij` (Schubfach: the shortest digits that read
/// back as `f`, the closest to it among those), the same digits as Go's
/// `strconv` shortest formatting; its text (`123.45`, `1.5e-7`, `1e+16`) is
/// taken apart here, without allocating.
pub(crate) fn shortest_digits(f: f64) -> (bool, Digits, i32) {
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(f.abs()).as_bytes();
    let (mant, e10) = match text.iter().position(|&c| c == b'e') {
        Some(i) => (&text[..i], parse_exponent(&text[i + 1..])),
        None => (text, 0),
    };
    let mut d = Digits {
        buf: [0; 24],
        len: 0,
    };
    // Digits before the decimal point, counted while copying.
    let mut point: i32 = 0;
    let mut seen_point = false;
    for &c in mant {
        match c {
            b'.' => seen_point = true,
            b'0' if d.len == 0 => {
                // A leading zero moves the first digit one place right.
                if seen_point {
                    point -= 1;
                }
            }
            c if c.is_ascii_digit() && d.len < d.buf.len() => {
                d.buf[d.len] = c;
                d.len += 1;
                if !seen_point {
                    point += 1;
                }
            }
            _ => {
                if !seen_point {
                    point += 1;
                }
            }
        }
    }
    while d.len > 1 && d.buf[d.len - 1] == b'0' {
        d.len -= 1;
    }
    if d.len == 0 {
        d.buf[0] = b'0';
        d.len = 1;
    }
    (f.is_sign_negative(), d, point + e10 - 1)
}

/// The exponent of `zmij`'s text after its `e` (`+16`, `-7`).
fn parse_exponent(b: &[u8]) -> i32 {
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let mut e: i32 = 0;
    for &c in digits {
        e = e
            .saturating_mul(10)
            .saturating_add(i32::from(c.wrapping_sub(b'0')));
    }
    if neg {
        -e
    } else {
        e
    }
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
            // An exact tie between two 17-digit candidates: Go (like
            // Python's repr) takes the even one.
            (2f64.powi(-25), "2.9802322387695312e-08"),
        ];
        for (f, want) in cases {
            assert_eq!(go_format_g(f), want, "{f}");
        }
    }

    /// The digits as the renderer took them from Rust's own shortest
    /// formatting (`{:e}`) before `zmij`: the reference for the tests below.
    fn shortest_digits_std(f: f64) -> (bool, String, i32) {
        let s = format!("{:e}", f.abs());
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let digits: String = mant.chars().filter(|c| *c != '.').collect();
        let digits = digits.trim_end_matches('0');
        let digits = if digits.is_empty() { "0" } else { digits };
        (f.is_sign_negative(), digits.to_string(), exp)
    }

    /// The same digits as before, except at exact ties: a float exactly
    /// halfway between two shortest candidates (`2^-25` =
    /// 2.98023223876953125e-8) took the upper one from Rust's formatting
    /// and takes the even one now, as Go's `strconv` does (its
    /// `shouldRoundUp` rounds half to even). Returns whether it was a tie.
    fn assert_same_digits(f: f64) -> bool {
        if !f.is_finite() || f == 0.0 {
            return false;
        }
        let (neg, digits, exp) = shortest_digits(f);
        let new = (neg, digits.as_str().to_owned(), exp);
        let old = shortest_digits_std(f);
        if new == old {
            return false;
        }
        let (n, o) = (new.1.as_bytes(), old.1.as_bytes());
        let reads_back = |d: &str| {
            let t = format!("{}.{}e{exp}", &d[..1], &d[1..]);
            t.parse::<f64>().ok() == Some(f.abs())
        };
        let tie = new.0 == old.0
            && new.2 == old.2
            && n.len() == o.len()
            && n[..n.len() - 1] == o[..o.len() - 1]
            && o[o.len() - 1] == n[n.len() - 1] + 1
            && (n[n.len() - 1] - b'0') % 2 == 0
            && reads_back(&new.1)
            && reads_back(&old.1);
        assert!(tie, "{f:e} (bits {:#x}): {new:?} vs {old:?}", f.to_bits());
        true
    }

    /// Edge cases: every power of two (the uneven neighbour gaps at the
    /// binade boundaries), both neighbours of every power of ten and of
    /// integers near 2^53, the subnormal range's ends and the first and
    /// last 20,000 bit patterns of each sign, and each binade's first and
    /// last 64 significands.
    #[test]
    fn shortest_digits_match_rusts_shortest_formatting_on_edge_cases() {
        let mut cases: Vec<f64> = Vec::new();
        for e in -1074..=1023 {
            cases.push(2f64.powi(e));
        }
        for e in -323..=308 {
            let p: f64 = format!("1e{e}").parse().unwrap_or(1.0);
            cases.extend([
                p,
                f64::from_bits(p.to_bits() + 1),
                f64::from_bits(p.to_bits() - 1),
            ]);
        }
        for d in 0..2000u64 {
            let i = (1u64 << 53) - 1000 + d;
            cases.push(i as f64);
            cases.push(f64::from_bits((i as f64).to_bits() + 1));
        }
        for b in 1..20_000u64 {
            cases.push(f64::from_bits(b));
            cases.push(f64::from_bits(f64::MAX.to_bits() - b));
            cases.push(f64::from_bits(0x000f_ffff_ffff_ffff - b));
        }
        for exp in 1..2047u64 {
            for sig in (0..64u64).chain((1u64 << 52) - 64..1u64 << 52) {
                cases.push(f64::from_bits(exp << 52 | sig));
            }
        }
        cases.extend([
            0.1,
            0.2,
            0.3,
            1.0 / 3.0,
            2.0 / 3.0,
            123456.789,
            5e-324,
            f64::MIN_POSITIVE,
        ]);
        let mut ties = 0;
        for f in cases {
            if assert_same_digits(f) {
                ties += 1;
                if std::env::var_os("SMPATCH_PRINT_TIES").is_some() {
                    println!("tie {:#x} {}", f.to_bits(), go_format_g(f));
                }
            }
            assert_same_digits(-f);
        }
        // Ties are rare: a few powers of two and their neighbours.
        assert!(ties < 200, "{ties} ties");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// Random bit patterns (every sign, exponent and significand):
        /// the same digits, and the same Go texts, as before.
        #[test]
        fn shortest_digits_match_on_random_bit_patterns(bits in proptest::prelude::any::<u64>()) {
            let f = f64::from_bits(bits);
            let tie = assert_same_digits(f);
            if !tie && f.is_finite() && f != 0.0 {
                let (neg, digits, exp) = shortest_digits_std(f);
                let sign = if neg { "-" } else { "" };
                let want = if (-4..6).contains(&exp) {
                    plain(sign, &digits, exp)
                } else {
                    let mut out = mantissa_and_exp_sign(sign, &digits, exp);
                    let e = exp.unsigned_abs();
                    if e < 10 {
                        out.push('0');
                    }
                    out.push_str(&e.to_string());
                    out
                };
                proptest::prop_assert_eq!(go_format_g(f), want);
            }
        }

        /// Floats with few digits (what documents hold: `0.5`, `1.25e-7`).
        #[test]
        fn shortest_digits_match_on_short_decimals(m in 1u64..100_000, e in -330i32..310) {
            if let Ok(f) = format!("{m}e{e}").parse::<f64>() {
                assert_same_digits(f);
            }
        }
    }
}
