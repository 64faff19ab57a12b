//! The patch directives: their keys, the typed `$patch` value, and the
//! builders of directive keys. The one home of every directive string in the
//! engine crates (apply, create, compose).
//!
//! ```
//! use smpatch_patch_apply::directives::{self, KeyRole, PatchDirective};
//! use smpatch_value::{Arena, Value};
//!
//! assert_eq!(PatchDirective::parse(&Value::String("delete")), Some(PatchDirective::Delete));
//! assert_eq!(directives::key_role("$setElementOrder/ports"), KeyRole::SetElementOrder(Some("ports")));
//! let arena = Arena::new();
//! assert_eq!(directives::set_element_order_key(&arena, "ports"), "$setElementOrder/ports");
//! ```

use smpatch_value::{Arena, Member, Value};

/// `$patch`: `replace`, `delete` or `merge` (see [`PatchDirective`]).
pub const PATCH: &str = "$patch";
/// `$retainKeys`: the fields an object keeps.
pub const RETAIN_KEYS: &str = "$retainKeys";
/// The prefix of `$setElementOrder/<field>` (without the `/`).
pub const SET_ELEMENT_ORDER: &str = "$setElementOrder";
/// The prefix of `$deleteFromPrimitiveList/<field>` (without the `/`).
pub const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";

/// The value of a `$patch` directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchDirective {
    /// `"merge"` (the default; rejected in lists).
    Merge,
    /// `"replace"`: the object or list is replaced by the rest of the patch.
    Replace,
    /// `"delete"`: the object (or the list element with this key) is removed.
    Delete,
}

impl PatchDirective {
    /// The directive a `$patch` value names; `None` for any other value.
    #[inline]
    pub fn parse(v: &Value<'_>) -> Option<PatchDirective> {
        match v.as_str()? {
            "merge" => Some(PatchDirective::Merge),
            "replace" => Some(PatchDirective::Replace),
            "delete" => Some(PatchDirective::Delete),
            _ => None,
        }
    }

    /// The directive's text.
    #[inline]
    pub fn as_str(self) -> &'static str {
        match self {
            PatchDirective::Merge => "merge",
            PatchDirective::Replace => "replace",
            PatchDirective::Delete => "delete",
        }
    }

    /// The `$patch: <self>` member.
    #[inline]
    pub fn member(self) -> Member<'static> {
        Member {
            key: PATCH,
            value: Value::String(self.as_str()),
        }
    }
}

/// The raw `$patch` value of `v`, when `v` is an object holding one.
#[inline]
pub fn patch_value<'a>(v: &Value<'a>) -> Option<Value<'a>> {
    v.get(PATCH)
}

/// The `$patch` directive of `v`, when `v` is an object holding a valid one.
#[inline]
pub fn patch_directive(v: &Value<'_>) -> Option<PatchDirective> {
    patch_value(v).and_then(|d| PatchDirective::parse(&d))
}

/// True when `v` is an object holding `$patch: delete`.
#[inline]
pub fn is_delete(v: &Value<'_>) -> bool {
    patch_directive(v) == Some(PatchDirective::Delete)
}

/// What a key of a patch object is. Apply's reading: a key that starts with
/// a directive prefix is that directive, and its field is the text after the
/// first `/` (`None` when the prefix is not followed by `/`: malformed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRole<'k> {
    /// `$patch`.
    Patch,
    /// `$retainKeys`.
    RetainKeys,
    /// `$setElementOrder/<field>`.
    SetElementOrder(Option<&'k str>),
    /// `$deleteFromPrimitiveList/<field>`.
    DeleteFromPrimitiveList(Option<&'k str>),
    /// Any other key: a field (including unknown `$` keys, which apply sets
    /// like fields).
    Field(&'k str),
}

/// The role of a patch object key.
#[inline]
pub fn key_role(key: &str) -> KeyRole<'_> {
    if !key.starts_with('$') {
        return KeyRole::Field(key);
    }
    if key == PATCH {
        KeyRole::Patch
    } else if key == RETAIN_KEYS {
        KeyRole::RetainKeys
    } else if key.starts_with(SET_ELEMENT_ORDER) {
        KeyRole::SetElementOrder(field_of(key, SET_ELEMENT_ORDER))
    } else if key.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
        KeyRole::DeleteFromPrimitiveList(field_of(key, DELETE_FROM_PRIMITIVE_LIST))
    } else {
        KeyRole::Field(key)
    }
}

/// True for the keys of the four directives (apply drops them from values
/// it stores).
#[inline]
pub fn is_directive_key(key: &str) -> bool {
    !matches!(key_role(key), KeyRole::Field(_))
}

/// `<prefix>/<f>` → `f` (split at the first `/`, prefix exact).
fn field_of<'k>(key: &'k str, prefix: &str) -> Option<&'k str> {
    let (head, tail) = key.split_once('/')?;
    (head == prefix).then_some(tail)
}

/// The field a `$setElementOrder/<f>` key orders.
#[inline]
pub fn ordered_field(key: &str) -> Option<&str> {
    field_of(key, SET_ELEMENT_ORDER)
}

/// The field a `$deleteFromPrimitiveList/<f>` key deletes from.
#[inline]
pub fn deleted_field(key: &str) -> Option<&str> {
    field_of(key, DELETE_FROM_PRIMITIVE_LIST)
}

/// The field a patch key is about: its own name, or the field of a
/// `$setElementOrder/<f>` or `$deleteFromPrimitiveList/<f>` key.
#[inline]
pub fn field_name(key: &str) -> &str {
    ordered_field(key)
        .or_else(|| deleted_field(key))
        .unwrap_or(key)
}

/// `$setElementOrder/<field>`, in the arena.
pub fn set_element_order_key<'a>(arena: &'a Arena, field: &str) -> &'a str {
    arena.alloc_str(&format!("{SET_ELEMENT_ORDER}/{field}"))
}

/// `$deleteFromPrimitiveList/<field>`, in the arena.
pub fn delete_from_primitive_list_key<'a>(arena: &'a Arena, field: &str) -> &'a str {
    arena.alloc_str(&format!("{DELETE_FROM_PRIMITIVE_LIST}/{field}"))
}

/// The `$retainKeys: [fields…]` member.
pub fn retain_keys_member<'a>(arena: &'a Arena, fields: &[Value<'a>]) -> Member<'a> {
    Member {
        key: RETAIN_KEYS,
        value: Value::array_from(arena, fields),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_roles() {
        assert_eq!(key_role("a"), KeyRole::Field("a"));
        assert_eq!(key_role("$patch"), KeyRole::Patch);
        assert_eq!(key_role("$retainKeys"), KeyRole::RetainKeys);
        assert_eq!(
            key_role("$setElementOrder/a/b"),
            KeyRole::SetElementOrder(Some("a/b"))
        );
        assert_eq!(
            key_role("$setElementOrderX/a"),
            KeyRole::SetElementOrder(None)
        );
        assert_eq!(
            key_role("$deleteFromPrimitiveList/x"),
            KeyRole::DeleteFromPrimitiveList(Some("x"))
        );
        assert_eq!(key_role("$other"), KeyRole::Field("$other"));
        assert_eq!(field_name("$deleteFromPrimitiveList/x"), "x");
        assert_eq!(field_name("$setElementOrder/y"), "y");
        assert_eq!(field_name("z"), "z");
    }

    #[test]
    fn patch_values() {
        for d in [
            PatchDirective::Merge,
            PatchDirective::Replace,
            PatchDirective::Delete,
        ] {
            assert_eq!(PatchDirective::parse(&Value::String(d.as_str())), Some(d));
        }
        assert_eq!(PatchDirective::parse(&Value::Null), None);
        assert_eq!(PatchDirective::parse(&Value::String("Delete")), None);
    }
}
