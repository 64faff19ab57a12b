//! The text forms of merge-key values used to sort, pair and index elements
//! (which keys a list has is decided once, by `smpatch_schema::Rules`).

use smpatch_schema::KeySpec;
use smpatch_value::{render, Kind, Object, Value};
use std::borrow::Cow;

/// One component of a key text: the rendering and a kind tag (0 when kinds are
/// not distinguished).
pub(crate) type KeyPart<'a> = (Cow<'a, str>, u8);

/// Text form of an element's key values: compared lexicographically.
pub(crate) type KeyText<'a> = Vec<KeyPart<'a>>;

/// How key texts compare values of different kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tagging {
    /// Kinds distinguished: texts are equal exactly when the values are
    /// strictly equal (`1`, `1.0` and `"1"` differ).
    ByKind,
    /// Go `%v` text only, as the reference sorts by.
    Plain,
}

/// A tag per kind, so that `1`, `1.0` and `"1"` differ with [`Tagging::ByKind`].
pub(crate) fn kind_tag(v: &Value<'_>) -> u8 {
    match v.kind() {
        Kind::Null => 1,
        Kind::Bool => 2,
        Kind::Int => 3,
        Kind::Float => 4,
        Kind::String => 5,
        Kind::Array => 6,
        Kind::Object => 7,
    }
}

/// The key text of one value: its rendering (Go `%v`) and, with [`Tagging::ByKind`],
/// its kind. Tagged texts are equal exactly when the values are strictly
/// equal (same kind, same value).
pub(crate) fn value_text<'a>(v: &Value<'a>, tagging: Tagging) -> KeyPart<'a> {
    let tag = match tagging {
        Tagging::ByKind => kind_tag(v),
        Tagging::Plain => 0,
    };
    (render(v), tag)
}

/// The key text of an object element; `Err(name)` names the first missing key.
pub(crate) fn element_key<'a, 's>(
    obj: &Object<'a>,
    keys: KeySpec<'s>,
    tagging: Tagging,
) -> Result<KeyText<'a>, &'s str> {
    match keys {
        KeySpec::Value => Err(""),
        KeySpec::Single(k) => match obj.get(k) {
            Some(v) => Ok(vec![value_text(&v, tagging)]),
            None => Err(k),
        },
        KeySpec::Compound(ks) => {
            let mut out = Vec::with_capacity(ks.len());
            for k in ks {
                match obj.get(k) {
                    Some(v) => out.push(value_text(&v, tagging)),
                    None => return Err(k),
                }
            }
            Ok(out)
        }
    }
}
