//! Conversion between [`Value`] and `serde_json::Value`, the friendly boundary.
//!
//! Key order: arena objects keep their members in document order. A
//! `serde_json::Map` keeps insertion order only when the final build turns on
//! serde_json's `preserve_order` feature; otherwise it is a `BTreeMap` with
//! sorted keys. This crate does not turn the feature on (that would change
//! every `serde_json` map of its users' build), so at this boundary the order
//! is the map's: [`from_serde`] reads members in the map's iteration order
//! and [`to_serde`] yields insertion order with the feature, sorted keys
//! without it. The merge and diff results are the same either way (the
//! strategic merge patch rules do not depend on member order); only the order
//! of members differs. The bytes APIs ([`crate::parse_json`],
//! [`crate::to_json_string`]) keep document order in every build.

use crate::path::{pointer_of, Step};
use crate::{Arena, Member, Number, NumberKind, Object, Value};

/// Why a conversion from or to `serde_json::Value` failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvertError {
    /// RFC 6901 pointer of the offending value.
    pub path: String,
    /// What was wrong.
    pub message: String,
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ConvertError {}

/// Copies a `serde_json::Value` into the arena. Fails when the tree is deeper
/// than `max_depth` (checked without recursion).
///
/// ```
/// use smpatch_value::{from_serde, Arena};
/// let arena = Arena::new();
/// let v = from_serde(&arena, &serde_json::json!({"a": [1, 2.5, "x"]}), 256).unwrap();
/// assert_eq!(v.get("a").unwrap().as_array().unwrap().len(), 3);
/// ```
pub fn from_serde<'a>(
    arena: &'a Arena,
    v: &serde_json::Value,
    max_depth: usize,
) -> Result<Value<'a>, ConvertError> {
    // Post-order construction with an explicit stack so depth never recurses.
    enum Frame<'s> {
        Enter(&'s serde_json::Value, usize),
        BuildArray(usize),
        BuildObject(&'s serde_json::Map<String, serde_json::Value>),
    }
    let root = v;
    let mut work = vec![Frame::Enter(v, 0)];
    let mut out: Vec<Value<'a>> = Vec::new();
    while let Some(frame) = work.pop() {
        match frame {
            Frame::Enter(v, depth) => match v {
                serde_json::Value::Null => out.push(Value::Null),
                serde_json::Value::Bool(b) => out.push(Value::Bool(*b)),
                serde_json::Value::Number(n) => {
                    out.push(Value::Number(number_from_serde(arena, n)))
                }
                serde_json::Value::String(s) => out.push(Value::String(arena.alloc_str(s))),
                serde_json::Value::Array(items) => {
                    if depth >= max_depth {
                        return Err(too_deep(root, max_depth));
                    }
                    work.push(Frame::BuildArray(items.len()));
                    for item in items.iter().rev() {
                        work.push(Frame::Enter(item, depth + 1));
                    }
                }
                serde_json::Value::Object(map) => {
                    if depth >= max_depth {
                        return Err(too_deep(root, max_depth));
                    }
                    work.push(Frame::BuildObject(map));
                    for item in map.values().rev() {
                        work.push(Frame::Enter(item, depth + 1));
                    }
                }
            },
            Frame::BuildArray(n) => {
                let start = out.len() - n;
                let items = arena.alloc_slice_copy(&out[start..]);
                out.truncate(start);
                out.push(Value::Array(items));
            }
            Frame::BuildObject(map) => {
                let start = out.len() - map.len();
                let members = arena.alloc_slice_fill_iter(map.keys().zip(out[start..].iter()).map(
                    |(k, v)| Member {
                        key: arena.alloc_str(k),
                        value: *v,
                    },
                ));
                out.truncate(start);
                out.push(Value::Object(Object::from_members(members)));
            }
        }
    }
    out.pop().ok_or_else(|| ConvertError {
        path: String::new(),
        message: "empty conversion".into(),
    })
}

/// The `too_deep` error of `root`: its path is the first container (in
/// document order) nested `max_depth` levels deep, where [`from_serde`]
/// stopped, found again without recursion.
fn too_deep(root: &serde_json::Value, max_depth: usize) -> ConvertError {
    let mut tokens: Vec<String> = Vec::new();
    let mut work: Vec<(&serde_json::Value, usize, String)> = vec![(root, 0, String::new())];
    let mut path = String::new();
    while let Some((v, depth, token)) = work.pop() {
        if depth > 0 {
            tokens.truncate(depth - 1);
            tokens.push(token);
        }
        let container = v.is_array() || v.is_object();
        if container && depth >= max_depth {
            for t in &tokens {
                crate::push_pointer_token(&mut path, t);
            }
            break;
        }
        match v {
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    work.push((item, depth + 1, i.to_string()));
                }
            }
            serde_json::Value::Object(map) => {
                let members: Vec<_> = map.iter().collect();
                for (k, item) in members.into_iter().rev() {
                    work.push((item, depth + 1, k.clone()));
                }
            }
            _ => {}
        }
    }
    ConvertError {
        path,
        message: format!("document nests deeper than the limit of {max_depth}"),
    }
}

fn number_from_serde<'a>(arena: &'a Arena, n: &serde_json::Number) -> Number<'a> {
    if let Some(i) = n.as_i64() {
        Number::from_i64(arena, i)
    } else if let Some(u) = n.as_u64() {
        Number::from_literal_unchecked(arena.alloc_str(&u.to_string()))
    } else {
        // serde_json (without arbitrary_precision) only holds finite f64 here.
        let f = n.as_f64().unwrap_or(0.0);
        Number::from_f64(arena, f).unwrap_or_else(|| Number::from_literal_unchecked("0.0"))
    }
}

/// Converts to `serde_json::Value`. Integers outside `i64`/`u64` and floats
/// that overflow `f64` are errors (serde_json cannot hold them without
/// `arbitrary_precision`). Iterative.
pub fn to_serde(v: &Value<'_>) -> Result<serde_json::Value, ConvertError> {
    // No path is kept per node (that was an allocation per value): a number
    // serde_json cannot hold is located again by `unrepresentable`.
    enum Frame<'v, 'a> {
        Enter(Value<'a>),
        BuildArray(usize),
        BuildObject(&'v [Member<'a>]),
    }
    let root = *v;
    let mut work: Vec<Frame<'_, '_>> = vec![Frame::Enter(root)];
    let mut out: Vec<serde_json::Value> = Vec::new();
    while let Some(frame) = work.pop() {
        match frame {
            Frame::Enter(v) => match v {
                Value::Null => out.push(serde_json::Value::Null),
                Value::Bool(b) => out.push(serde_json::Value::Bool(b)),
                Value::String(s) => out.push(serde_json::Value::String(s.to_owned())),
                Value::Number(n) => match serde_number(&n) {
                    Some(num) => out.push(serde_json::Value::Number(num)),
                    None => return Err(unrepresentable(root)),
                },
                Value::Array(items) => {
                    work.push(Frame::BuildArray(items.len()));
                    work.extend(items.iter().rev().map(|item| Frame::Enter(*item)));
                }
                Value::Object(o) => {
                    let members = o.members();
                    work.push(Frame::BuildObject(members));
                    work.extend(members.iter().rev().map(|m| Frame::Enter(m.value)));
                }
            },
            Frame::BuildArray(n) => {
                let start = out.len() - n;
                let items: Vec<_> = out.drain(start..).collect();
                out.push(serde_json::Value::Array(items));
            }
            Frame::BuildObject(members) => {
                let start = out.len() - members.len();
                let values: Vec<_> = out.drain(start..).collect();
                let map: serde_json::Map<String, serde_json::Value> = members
                    .iter()
                    .map(|m| m.key.to_owned())
                    .zip(values)
                    .collect();
                out.push(serde_json::Value::Object(map));
            }
        }
    }
    out.pop().ok_or_else(|| ConvertError {
        path: String::new(),
        message: "empty conversion".into(),
    })
}

/// The number as serde_json holds it, if it can.
fn serde_number(n: &Number<'_>) -> Option<serde_json::Number> {
    match n.kind() {
        NumberKind::Int => n
            .as_i64()
            .map(serde_json::Number::from)
            .or_else(|| n.as_u64().map(serde_json::Number::from)),
        NumberKind::Float => serde_json::Number::from_f64(n.as_f64()),
    }
}

/// The error of [`to_serde`]: the first number of `root` in document
/// order that serde_json cannot hold (the one the conversion stopped at),
/// with its pointer.
fn unrepresentable(root: Value<'_>) -> ConvertError {
    let mut work: Vec<(Value<'_>, Vec<Step<'_>>)> = vec![(root, Vec::new())];
    while let Some((v, path)) = work.pop() {
        match v {
            Value::Number(n) if serde_number(&n).is_none() => {
                return ConvertError {
                    path: pointer_of(path.iter().copied()),
                    message: format!(
                        "number {} does not fit serde_json's number types",
                        n.literal()
                    ),
                };
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    let mut p = path.clone();
                    p.push(Step::Index(i));
                    work.push((*item, p));
                }
            }
            Value::Object(o) => {
                for m in o.members().iter().rev() {
                    let mut p = path.clone();
                    p.push(Step::Key(m.key));
                    work.push((m.value, p));
                }
            }
            _ => {}
        }
    }
    ConvertError {
        path: String::new(),
        message: "a number does not fit serde_json's number types".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number serde_json cannot hold is an error naming its pointer: the
    /// first such number in document order, however deep, with later ones
    /// and representable neighbours around it; documents without one
    /// convert.
    #[test]
    fn to_serde_names_the_first_unrepresentable_number() {
        let arena = Arena::new();
        let opts = crate::ParseOptions::default();
        let doc = br#"{"a": [1, {"x": 2.5}, {"b~/c": [0, 123456789012345678901234567890]}],
            "z": -99999999999999999999, "ok": 18446744073709551615}"#;
        let v = crate::parse_json(&arena, doc, &opts).unwrap();
        let e = to_serde(&v).unwrap_err();
        assert_eq!(e.path, "/a/2/b~0~1c/1");
        assert_eq!(
            e.message,
            "number 123456789012345678901234567890 does not fit serde_json's number types"
        );
        let second = crate::parse_json(
            &arena,
            br#"{"a": {"b": [1, -99999999999999999999]}}"#,
            &opts,
        )
        .unwrap();
        assert_eq!(to_serde(&second).unwrap_err().path, "/a/b/1");
        let fine = crate::parse_json(
            &arena,
            br#"{"a": [1, -2, 18446744073709551615, 0.5]}"#,
            &opts,
        )
        .unwrap();
        assert_eq!(
            to_serde(&fine).unwrap(),
            serde_json::json!({"a": [1, -2, 18446744073709551615u64, 0.5]})
        );
    }
}
