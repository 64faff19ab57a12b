//! A hash of values consistent with [`Value::deep_eq`]: the canonical key
//! form behind every hash index of the patch crates.
//!
//! Equal values hash equally: numbers hash by their value within their kind
//! (`-0` = `0`, `1.0` = `1.00`, never `1` = `1.0`), lists in order, objects
//! as key sets (member order does not matter). Containers are hashed with an
//! explicit stack, so depth cannot overflow the call stack.
//!
//! Keyed: every leaf (strings, numbers, the floats' bits, `null`, `true`,
//! `false`) and every container's starting value go through
//! [`crate::hashing`]'s per-process secret, so no choice of input collides
//! for every process (HashDoS), not even lists made only of `null`s and
//! booleans; the combining rounds on top of the keyed values need no key of
//! their own.

use crate::hashing::{hash_bytes, hash_u64};
use crate::{Number, NumberKind, Object, Value};
use std::hash::{Hash, Hasher};

/// Kind tags, so that e.g. `"1"`, `1` and `1.0` hash apart.
const NULL: u64 = 0x6e75_6c6c;
const BOOL: u64 = 0x626f_6f6c;
const INT: u64 = 0x696e_7400;
const FLOAT: u64 = 0x666c_6f61;
const FLOAT_TEXT: u64 = 0x666c_7478;
const STRING: u64 = 0x7374_7200;
const ARRAY: u64 = 0x6172_7200;
const OBJECT: u64 = 0x6f62_6a00;

/// A 64-bit finalizer (xor-shift / multiply rounds): every input bit reaches
/// every output bit, so tables indexed by the high bits (or tagged by the
/// low ones) see well-spread hashes even for inputs such as `f64` bit
/// patterns whose low bits are all zero.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The keyed hash is already well spread: the tag needs no further round.
fn bytes_hash(tag: u64, b: &[u8]) -> u64 {
    hash_bytes(b) ^ tag
}

/// The hash of a number, consistent with [`Number::same_value`].
pub(crate) fn number_hash(n: &Number<'_>) -> u64 {
    match n.kind() {
        NumberKind::Int => {
            let t = n.literal();
            bytes_hash(INT, if t == "-0" { "0" } else { t }.as_bytes())
        }
        NumberKind::Float => {
            let f = n.as_f64();
            if f.is_finite() {
                // `-0.0 == 0.0`.
                let f = if f == 0.0 { 0.0 } else { f };
                hash_u64(f.to_bits()) ^ FLOAT
            } else {
                // Beyond `f64` (the parsers refuse such literals; only
                // `Number::from_literal_unchecked` makes them): by text.
                bytes_hash(FLOAT_TEXT, n.literal().as_bytes())
            }
        }
    }
}

fn scalar_hash(v: &Value<'_>) -> Option<u64> {
    Some(match v {
        Value::Null => hash_u64(NULL),
        Value::Bool(b) => hash_u64(BOOL + u64::from(*b)),
        Value::Number(n) => number_hash(n),
        Value::String(s) => bytes_hash(STRING, s.as_bytes()),
        Value::Array(_) | Value::Object(_) => return None,
    })
}

/// Folds the in-order hashes of a list's items.
fn array_hash(len: usize, items: impl Iterator<Item = u64>) -> u64 {
    let mut h = hash_u64(ARRAY ^ len as u64);
    for x in items {
        h = mix(h.rotate_left(23) ^ x);
    }
    h
}

/// Folds the hashes of an object's member values, order-independently.
fn object_hash<'a>(o: &Object<'a>, values: impl Iterator<Item = u64>) -> u64 {
    let mut sum = 0u64;
    for (m, x) in o.members().iter().zip(values) {
        let k = bytes_hash(STRING, m.key.as_bytes());
        sum = sum.wrapping_add(mix(k ^ x.rotate_left(32)));
    }
    mix(sum ^ hash_u64(OBJECT ^ (o.len() as u64).rotate_left(48)))
}

/// The deep hash of `v` (see [`Value::deep_hash`]).
pub(crate) fn deep_hash(v: &Value<'_>) -> u64 {
    if let Some(h) = scalar_hash(v) {
        return h;
    }
    // Flat containers (the usual composite key) need no stack.
    match v {
        Value::Array(items) if items.iter().all(|i| scalar_hash(i).is_some()) => {
            return array_hash(items.len(), items.iter().filter_map(scalar_hash));
        }
        Value::Object(o) if o.members().iter().all(|m| scalar_hash(&m.value).is_some()) => {
            return object_hash(o, o.members().iter().filter_map(|m| scalar_hash(&m.value)));
        }
        _ => {}
    }
    enum Task<'a> {
        Visit(Value<'a>),
        Array(usize),
        Object(Object<'a>),
    }
    let mut tasks = vec![Task::Visit(*v)];
    // Finished hashes; a container's children are its last entries.
    let mut done: Vec<u64> = Vec::new();
    while let Some(t) = tasks.pop() {
        match t {
            Task::Visit(Value::Array(items)) => {
                tasks.push(Task::Array(items.len()));
                tasks.extend(items.iter().rev().map(|i| Task::Visit(*i)));
            }
            Task::Visit(Value::Object(o)) => {
                tasks.push(Task::Object(o));
                tasks.extend(o.members().iter().rev().map(|m| Task::Visit(m.value)));
            }
            Task::Visit(s) => done.push(scalar_hash(&s).unwrap_or(0)),
            Task::Array(n) => {
                let start = done.len().saturating_sub(n);
                let h = array_hash(n, done.drain(start..));
                done.push(h);
            }
            Task::Object(o) => {
                let start = done.len().saturating_sub(o.len());
                let h = object_hash(&o, done.drain(start..));
                done.push(h);
            }
        }
    }
    done.pop().unwrap_or(0)
}

impl Eq for Value<'_> {}

impl Hash for Value<'_> {
    /// Writes [`Value::deep_hash`]: consistent with `==` ([`Value::deep_eq`]).
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(deep_hash(self));
    }
}

#[cfg(test)]
mod tests {
    use crate::{parse_json, Arena, Number, ParseOptions, Value};

    fn v<'a>(arena: &'a Arena, s: &'a str) -> Value<'a> {
        parse_json(arena, s.as_bytes(), &ParseOptions::default()).expect("json")
    }

    #[test]
    fn equal_values_hash_equally() {
        let arena = Arena::new();
        let same = [
            ("0", "-0"),
            ("1.0", "1.00"),
            ("1e2", "100.0"),
            ("-0.0", "0.0"),
            (
                r#"{"a":1,"b":[1,{"c":null}]}"#,
                r#"{"b":[1,{"c":null}],"a":1}"#,
            ),
            (r#"[{"x":1.5,"y":"s"}]"#, r#"[{"y":"s","x":1.50}]"#),
        ];
        for (a, b) in same {
            let (a, b) = (v(&arena, a), v(&arena, b));
            assert!(a == b, "{a:?} {b:?}");
            assert_eq!(a.deep_hash(), b.deep_hash(), "{a:?} {b:?}");
        }
    }

    #[test]
    fn kinds_and_values_hash_apart() {
        let arena = Arena::new();
        let all = [
            "1",
            "1.0",
            "\"1\"",
            "true",
            "false",
            "null",
            "[]",
            "{}",
            "[1]",
            "[1.0]",
            "[[1]]",
            r#"{"a":1}"#,
            r#"{"a":1.0}"#,
            r#"{"b":1}"#,
            r#"{"a":{"a":1}}"#,
            "[1,2]",
            "[2,1]",
            r#"{"a":1,"b":2}"#,
            r#"{"a":2,"b":1}"#,
        ];
        let hashes: Vec<u64> = all.iter().map(|s| v(&arena, s).deep_hash()).collect();
        for i in 0..all.len() {
            for j in 0..i {
                assert_ne!(hashes[i], hashes[j], "{} vs {}", all[i], all[j]);
            }
        }
    }

    #[test]
    fn literals_beyond_f64_hash_and_compare_by_text() {
        let n = |t| Value::Number(Number::from_literal_unchecked(t));
        assert!(n("1e400") != n("2e400"));
        assert!(n("1e400") == n("1e400"));
        assert_ne!(n("1e400").deep_hash(), n("2e400").deep_hash());
        assert!(n("1e400") != n("1.7976931348623157e308"));
    }

    #[test]
    fn deep_containers_hash_without_recursion() {
        let arena = Arena::new();
        let mut x = Value::Null;
        for _ in 0..200_000 {
            x = Value::array_from(&arena, &[x]);
        }
        let _ = x.deep_hash();
    }
}
