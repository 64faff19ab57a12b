//! Identity of list elements: the value itself (primitive sets), one merge key,
//! or a compound key (`x-kubernetes-list-map-keys`), plus a hash index from
//! identity to first position.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use smpatch_value::{NumberKind, Value};
use std::hash::{Hash, Hasher};

/// How the elements of a list are identified.
#[derive(Clone, Copy, Debug)]
pub(crate) enum KeySpec<'m> {
    /// Scalars: the element is its own identity (strict equality, §1.6).
    Value,
    /// Objects identified by one merge key.
    Single(&'m str),
    /// Objects identified by the tuple of several keys (list-map keys).
    Compound(&'m [Box<str>]),
}

impl<'m> KeySpec<'m> {
    /// True for object lists.
    pub(crate) fn is_keyed(&self) -> bool {
        !matches!(self, KeySpec::Value)
    }

    /// The key names as text for messages (`name`, or `[port protocol]`).
    pub(crate) fn describe(&self) -> String {
        match self {
            KeySpec::Value => String::new(),
            KeySpec::Single(k) => (*k).to_owned(),
            KeySpec::Compound(ks) => {
                let parts: Vec<&str> = ks.iter().map(|k| &**k).collect();
                if parts.len() == 1 {
                    parts[0].to_owned()
                } else {
                    format!("[{}]", parts.join(" "))
                }
            }
        }
    }
}

/// Why an element has no identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdError<'m> {
    /// A keyed list element that is not an object.
    NotObject,
    /// An object without (one of) the merge key(s).
    Missing(&'m str),
}

/// The identity of one element: one value per key (or the element itself).
#[derive(Clone, Debug)]
pub(crate) struct Id<'a>(SmallVec<[Value<'a>; 1]>);

impl PartialEq for Id<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(other.0.iter()).all(|(a, b)| a.deep_eq(b))
    }
}

impl Eq for Id<'_> {}

impl Hash for Id<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for v in &self.0 {
            hash_value(v, state);
        }
    }
}

/// A hash consistent with [`Value::deep_eq`]: equal values hash equally.
fn hash_value<H: Hasher>(v: &Value<'_>, state: &mut H) {
    match v {
        Value::Null => 0u8.hash(state),
        Value::Bool(b) => {
            1u8.hash(state);
            b.hash(state);
        }
        Value::Number(n) => match n.kind() {
            NumberKind::Int => {
                2u8.hash(state);
                let t = n.literal();
                if t == "-0" { "0" } else { t }.hash(state);
            }
            NumberKind::Float => {
                3u8.hash(state);
                let f = n.as_f64();
                let f = if f == 0.0 { 0.0 } else { f };
                f.to_bits().hash(state);
            }
        },
        Value::String(s) => {
            4u8.hash(state);
            s.hash(state);
        }
        Value::Array(a) => {
            5u8.hash(state);
            a.len().hash(state);
        }
        Value::Object(o) => {
            6u8.hash(state);
            o.len().hash(state);
        }
    }
}

/// The identity of `v` under `spec`.
pub(crate) fn identity<'a, 'm>(v: Value<'a>, spec: KeySpec<'m>) -> Result<Id<'a>, IdError<'m>> {
    match spec {
        KeySpec::Value => Ok(Id(smallvec::smallvec![v])),
        KeySpec::Single(k) => {
            let o = v.as_object().ok_or(IdError::NotObject)?;
            let kv = o.get(k).ok_or(IdError::Missing(k))?;
            Ok(Id(smallvec::smallvec![kv]))
        }
        KeySpec::Compound(ks) => {
            let o = v.as_object().ok_or(IdError::NotObject)?;
            let mut out = SmallVec::with_capacity(ks.len());
            for k in ks {
                out.push(o.get(k).ok_or(IdError::Missing(k))?);
            }
            Ok(Id(out))
        }
    }
}

/// Map from identity to the FIRST position holding it.
pub(crate) type PosIndex<'a> = FxHashMap<Id<'a>, usize>;

/// Renders an identity for messages (`a`, or `[80 TCP]`).
pub(crate) fn render_id(id: &Id<'_>) -> String {
    if id.0.len() == 1 {
        smpatch_value::render(&id.0[0]).into_owned()
    } else {
        let parts: Vec<String> =
            id.0.iter()
                .map(|v| smpatch_value::render(v).into_owned())
                .collect();
        format!("[{}]", parts.join(" "))
    }
}
