//! How a list field is diffed (atomic or merge, and by which keys), and the
//! text forms of merge-key values used to sort, pair and index elements.

use smpatch_schema::{ListType, PatchMeta, Strategy};
use smpatch_value::{render, Kind, Object, Value};
use std::borrow::Cow;

/// The merge keys of a merge list.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Keys<'s> {
    /// No merge key: fine for scalar elements, an error for objects.
    None,
    /// One merge key (`x-kubernetes-patch-merge-key`).
    One(&'s str),
    /// Several keys (`x-kubernetes-list-map-keys`), compared as a tuple.
    Many(&'s [Box<str>]),
}

impl<'s> Keys<'s> {
    /// The key names, in order.
    pub(crate) fn names(&self) -> KeyNames<'s> {
        match *self {
            Keys::None => KeyNames::Slice([].iter()),
            Keys::One(k) => KeyNames::One(Some(k)),
            Keys::Many(ks) => KeyNames::Slice(ks.iter()),
        }
    }
}

/// Iterator over key names.
pub(crate) enum KeyNames<'s> {
    One(Option<&'s str>),
    Slice(std::slice::Iter<'s, Box<str>>),
}

impl<'s> Iterator for KeyNames<'s> {
    type Item = &'s str;
    fn next(&mut self) -> Option<&'s str> {
        match self {
            KeyNames::One(k) => k.take(),
            KeyNames::Slice(it) => it.next().map(|b| &**b),
        }
    }
}

/// What to do with a list field.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ListPlan<'s> {
    /// Replaced as a whole when different.
    Atomic,
    /// Merge list; the element kind picks keyed or primitive processing.
    Merge(Keys<'s>),
}

/// The plan for a list field from its metadata — the same decision the apply
/// crate makes (`Merger::plan`), so create and apply agree on every schema:
///
/// * strategy `merge`: a merge list keyed by the merge key — or by the
///   `x-kubernetes-list-map-keys` of a `list-type: map` list when
///   `compound_keys` is on or there is no merge key; scalars without keys;
/// * no strategy, `list-type: map` with map keys and no merge key: a merge
///   list keyed by every map key;
/// * no strategy and `list-type: set`: a primitive merge list;
/// * (the two list-type rules, and list-map keys without `compound_keys`,
///   apply only to non-built-in types: `PatchMeta::native` fields follow
///   their struct tags like the reference);
/// * anything else: atomic.
pub(crate) fn list_plan(meta: &PatchMeta, compound_keys: bool) -> ListPlan<'_> {
    // List-type metadata is used only for non-built-in types (see
    // `PatchMeta::native`); built-ins follow their struct tags, as the
    // reference does.
    let derived = !meta.native;
    let map_keys = (meta.list_type == Some(ListType::Map) && !meta.list_map_keys.is_empty())
        .then_some(&meta.list_map_keys[..]);
    match meta.strategy {
        Strategy::Merge => match (meta.merge_key(), map_keys) {
            (k, Some(ks)) if compound_keys && (derived || k.is_some()) => {
                ListPlan::Merge(Keys::Many(ks))
            }
            (Some(k), _) => ListPlan::Merge(Keys::One(k)),
            (None, Some(ks)) if derived => ListPlan::Merge(Keys::Many(ks)),
            (None, _) => ListPlan::Merge(Keys::None),
        },
        Strategy::Replace => ListPlan::Atomic,
        Strategy::None if !derived => ListPlan::Atomic,
        Strategy::None => match (meta.list_type, meta.merge_key(), map_keys) {
            (Some(ListType::Map), None, Some(ks)) => ListPlan::Merge(Keys::Many(ks)),
            (Some(ListType::Set), _, _) => ListPlan::Merge(Keys::None),
            _ => ListPlan::Atomic,
        },
    }
}

/// One component of a key text: the rendering and a kind tag (0 when kinds are
/// not distinguished).
pub(crate) type KeyPart<'a> = (Cow<'a, str>, u8);

/// Text form of an element's key values: compared lexicographically.
pub(crate) type KeyText<'a> = Vec<KeyPart<'a>>;

/// A tag per kind, so that `1`, `1.0` and `"1"` differ when `tagged`.
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

/// The key text of one value: its rendering (Go `%v`) and, when `tagged`,
/// its kind. Tagged texts are equal exactly when the values are strictly
/// equal (same kind, same value).
pub(crate) fn value_text<'a>(v: &Value<'a>, tagged: bool) -> KeyPart<'a> {
    let tag = if tagged { kind_tag(v) } else { 0 };
    (render(v), tag)
}

/// The key text of an object element; `Err(name)` names the first missing key.
pub(crate) fn element_key<'a, 's>(
    obj: &Object<'a>,
    keys: Keys<'s>,
    tagged: bool,
) -> Result<KeyText<'a>, &'s str> {
    match keys {
        Keys::None => Err(""),
        Keys::One(k) => match obj.get(k) {
            Some(v) => Ok(vec![value_text(&v, tagged)]),
            None => Err(k),
        },
        Keys::Many(ks) => {
            let mut out = Vec::with_capacity(ks.len());
            for k in ks {
                match obj.get(k) {
                    Some(v) => out.push(value_text(&v, tagged)),
                    None => return Err(k),
                }
            }
            Ok(out)
        }
    }
}
