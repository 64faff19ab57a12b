//! Schema-driven decisions every patch engine shares: how a list field
//! merges ([`ListPlan`], keyed by one [`KeySpec`]) and how a field is looked
//! up with the reference's quirks ([`Rules::field`]).
//!
//! Apply, create, conflict detection and compose all call these, so a list
//! is keyed the same way and a field resolves to the same schema in every
//! engine.
//!
//! ```
//! use smpatch_schema::{embedded, FieldShape, KeySpec, ListPlan, Rules};
//! let rules = Rules::default();
//! let pod_spec = embedded().cursor("io.k8s.api.core.v1.PodSpec").unwrap();
//! let containers = rules.field(pod_spec, "containers", FieldShape::List).unwrap();
//! assert!(matches!(rules.list_plan(containers.meta), ListPlan::Merge(KeySpec::Single("name"))));
//! ```

use crate::model::{Cursor, Field, ListType, LookupError, PatchMeta, Strategy};

static EMPTY_META: PatchMeta = PatchMeta::EMPTY;

/// How the elements of a list are identified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeySpec<'m> {
    /// Scalars: the element is its own identity (strict equality).
    Value,
    /// Objects identified by one merge key (`x-kubernetes-patch-merge-key`).
    Single(&'m str),
    /// Objects identified by the tuple of several keys
    /// (`x-kubernetes-list-map-keys`).
    Compound(&'m [Box<str>]),
}

impl<'m> KeySpec<'m> {
    /// True for object lists (a merge key or list-map keys).
    #[inline]
    pub fn is_keyed(&self) -> bool {
        !matches!(self, KeySpec::Value)
    }

    /// The key names, in order (none for [`KeySpec::Value`]).
    pub fn names(&self) -> impl Iterator<Item = &'m str> + 'm {
        let (one, many): (Option<&'m str>, &'m [Box<str>]) = match *self {
            KeySpec::Value => (None, &[]),
            KeySpec::Single(k) => (Some(k), &[]),
            KeySpec::Compound(ks) => (None, ks),
        };
        one.into_iter().chain(many.iter().map(|k| &**k))
    }

    /// The key names as text for messages (`name`, or `[port protocol]`).
    pub fn describe(&self) -> String {
        let parts: Vec<&str> = self.names().collect();
        if parts.len() == 1 {
            parts[0].to_owned()
        } else if parts.is_empty() {
            String::new()
        } else {
            format!("[{}]", parts.join(" "))
        }
    }
}

/// What to do with a list field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListPlan<'m> {
    /// Replaced as a whole.
    Atomic,
    /// A merge list; the element kind picks keyed or primitive processing.
    Merge(KeySpec<'m>),
}

impl<'m> ListPlan<'m> {
    /// The list decision of server-side apply's field sets (KEP-2155), which
    /// differs from SMP's [`Rules::list_plan`]: `x-kubernetes-list-type`
    /// comes first and applies to built-in fields too (`atomic`: atomic;
    /// `set`: [`KeySpec::Value`]; `map`: keyed by all its list-map keys,
    /// atomic without any); only without a list type does the patch strategy
    /// decide (`merge` with a merge key: keyed by it; `merge` without: a
    /// set; else atomic). Quirk and compound-key settings do not apply.
    ///
    /// ```
    /// use smpatch_schema::{KeySpec, ListPlan, PatchMeta, Strategy};
    /// let meta = PatchMeta { strategy: Strategy::Merge, ..PatchMeta::EMPTY };
    /// assert_eq!(ListPlan::field_set(&meta), ListPlan::Merge(KeySpec::Value));
    /// ```
    pub fn field_set(meta: &'m PatchMeta) -> ListPlan<'m> {
        match meta.list_type {
            Some(ListType::Atomic) => ListPlan::Atomic,
            Some(ListType::Set) => ListPlan::Merge(KeySpec::Value),
            Some(ListType::Map) => match map_keys(meta) {
                Some(ks) => ListPlan::Merge(KeySpec::Compound(ks)),
                None => ListPlan::Atomic,
            },
            None if meta.strategy == Strategy::Merge => match meta.merge_key() {
                Some(k) => ListPlan::Merge(KeySpec::Single(k)),
                None => ListPlan::Merge(KeySpec::Value),
            },
            None => ListPlan::Atomic,
        }
    }
}

impl<'m> KeySpec<'m> {
    /// How an element of a list in a new object finds its counterpart in
    /// the old object, whatever the list's strategy (the union pass's
    /// ratcheting, KEP-1027/KEP-2887): the merge key, else the list-map
    /// keys of a `list-type: map` list (built-in or not); [`KeySpec::Value`]
    /// here means "by position".
    ///
    /// ```
    /// use smpatch_schema::{KeySpec, PatchMeta};
    /// let meta = PatchMeta { merge_key: Some("name".into()), ..PatchMeta::EMPTY };
    /// assert_eq!(KeySpec::pairing(&meta), KeySpec::Single("name"));
    /// assert_eq!(KeySpec::pairing(&PatchMeta::EMPTY), KeySpec::Value);
    /// ```
    pub fn pairing(meta: &'m PatchMeta) -> KeySpec<'m> {
        match (meta.merge_key(), map_keys(meta)) {
            (Some(k), _) => KeySpec::Single(k),
            (None, Some(ks)) => KeySpec::Compound(ks),
            (None, None) => KeySpec::Value,
        }
    }
}

/// Which sort of value a field holds, for [`Rules::field`]: a list lookup
/// answers the ELEMENT schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldShape {
    /// The field holds an object (or a scalar).
    Object,
    /// The field holds a list.
    List,
}

/// The two settings schema decisions depend on. The engines' option structs
/// (`ApplyOptions`, `CreateOptions`) hand theirs over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    /// Fix the reference's lookup quirk Q23, docs/QUIRKS.md#q23 (no
    /// case-folding lookup of built-in fields; a map's value schema applies to
    /// its members).
    pub fix_quirks: bool,
    /// Key lists that have both a merge key and `x-kubernetes-list-map-keys`
    /// by all the list-map keys.
    pub compound_keys: bool,
}

impl Rules {
    /// The plan for a list field from its metadata:
    ///
    /// * strategy `merge`: keyed by the merge key, or by the
    ///   `x-kubernetes-list-map-keys` of a `list-type: map` list when
    ///   `compound_keys` is on or there is no merge key; scalars without keys;
    /// * no strategy, `list-type: map` with map keys and no merge key: keyed
    ///   by every map key;
    /// * no strategy and `list-type: set`: a primitive merge list;
    /// * (the two list-type rules, and list-map keys without `compound_keys`,
    ///   apply only to non-built-in types: [`PatchMeta::native`] fields follow
    ///   their struct tags like the reference);
    /// * anything else: atomic.
    #[inline]
    pub fn list_plan<'m>(&self, meta: &'m PatchMeta) -> ListPlan<'m> {
        let derived = !meta.native;
        let map_keys = map_keys(meta);
        match meta.strategy {
            Strategy::Merge => match (meta.merge_key(), map_keys) {
                (k, Some(ks)) if self.compound_keys && (derived || k.is_some()) => {
                    ListPlan::Merge(KeySpec::Compound(ks))
                }
                (Some(k), _) => ListPlan::Merge(KeySpec::Single(k)),
                (None, Some(ks)) if derived => ListPlan::Merge(KeySpec::Compound(ks)),
                (None, _) => ListPlan::Merge(KeySpec::Value),
            },
            Strategy::Replace => ListPlan::Atomic,
            Strategy::None if !derived => ListPlan::Atomic,
            Strategy::None => match (meta.list_type, meta.merge_key(), map_keys) {
                (Some(ListType::Map), None, Some(ks)) => ListPlan::Merge(KeySpec::Compound(ks)),
                (Some(ListType::Set), _, _) => ListPlan::Merge(KeySpec::Value),
                _ => ListPlan::Atomic,
            },
        }
    }

    /// The identity rule used to order a list (`$setElementOrder`), also
    /// when the list is atomic: the plan's keys, else the merge key, else the
    /// list-map keys of a non-built-in map list, else the values.
    #[inline]
    pub fn order_keys<'m>(&self, meta: &'m PatchMeta) -> KeySpec<'m> {
        match self.list_plan(meta) {
            ListPlan::Merge(k) => k,
            ListPlan::Atomic => match (meta.merge_key(), map_keys(meta)) {
                (Some(k), _) => KeySpec::Single(k),
                (None, Some(ks)) if !meta.native => KeySpec::Compound(ks),
                (None, _) => KeySpec::Value,
            },
        }
    }

    /// Looks field `key` up below `cursor` (a list lookup answers the element
    /// schema), with quirk Q23 as the reference has it unless `fix_quirks`:
    /// a built-in's field also matches case-insensitively
    /// ([`Cursor::go_fold_field`]) and nothing resolves below a map; fixed, a
    /// map's value schema applies to its members (lists in maps are
    /// schema-less) and names match exactly.
    #[inline]
    pub fn field<'s>(
        &self,
        cursor: Cursor<'s>,
        key: &str,
        shape: FieldShape,
    ) -> Result<Field<'s>, LookupError> {
        let look = |name: &str| match shape {
            FieldShape::Object => cursor.lookup_object(name),
            FieldShape::List => cursor.lookup_list(name),
        };
        match look(key) {
            Err(LookupError::InMap { .. }) if self.fix_quirks => Ok(Field {
                cursor: match shape {
                    FieldShape::Object => cursor.map_value().unwrap_or(Cursor::UNKNOWN),
                    FieldShape::List => Cursor::UNKNOWN,
                },
                meta: &EMPTY_META,
            }),
            Err(e @ LookupError::NoSuchField { .. }) if !self.fix_quirks => {
                match cursor.go_fold_field(key) {
                    Some(name) => look(name),
                    None => Err(e),
                }
            }
            r => r,
        }
    }
}

/// The list-map keys of a `list-type: map` list that declares some.
fn map_keys(meta: &PatchMeta) -> Option<&[Box<str>]> {
    (meta.list_type == Some(ListType::Map) && !meta.list_map_keys.is_empty())
        .then_some(&meta.list_map_keys[..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(
        strategy: Strategy,
        key: Option<&str>,
        list: Option<ListType>,
        map_keys: &[&str],
    ) -> PatchMeta {
        PatchMeta {
            strategy,
            merge_key: key.map(Into::into),
            list_type: list,
            list_map_keys: map_keys.iter().map(|k| (*k).into()).collect(),
            ..PatchMeta::EMPTY
        }
    }

    #[test]
    fn list_plans() {
        let plain = Rules::default();
        let compound = Rules {
            compound_keys: true,
            ..Rules::default()
        };
        let ports = meta(
            Strategy::Merge,
            Some("containerPort"),
            Some(ListType::Map),
            &["containerPort", "protocol"],
        );
        assert_eq!(
            plain.list_plan(&ports),
            ListPlan::Merge(KeySpec::Single("containerPort"))
        );
        assert!(
            matches!(compound.list_plan(&ports), ListPlan::Merge(KeySpec::Compound(ks)) if ks.len() == 2)
        );
        let map = meta(Strategy::None, None, Some(ListType::Map), &["a", "b"]);
        assert!(matches!(
            plain.list_plan(&map),
            ListPlan::Merge(KeySpec::Compound(_))
        ));
        let set = meta(Strategy::None, None, Some(ListType::Set), &[]);
        assert_eq!(plain.list_plan(&set), ListPlan::Merge(KeySpec::Value));
        // Built-ins follow their struct tags: list-type alone keeps them atomic.
        let native_set = PatchMeta {
            native: true,
            ..set
        };
        assert_eq!(plain.list_plan(&native_set), ListPlan::Atomic);
        assert_eq!(plain.order_keys(&native_set), KeySpec::Value);
        let replace = meta(Strategy::Replace, Some("name"), None, &[]);
        assert_eq!(plain.list_plan(&replace), ListPlan::Atomic);
        assert_eq!(plain.order_keys(&replace), KeySpec::Single("name"));
        assert_eq!(
            KeySpec::Compound(&["a".into(), "b".into()]).describe(),
            "[a b]"
        );
        assert_eq!(
            KeySpec::Single("name").names().collect::<Vec<_>>(),
            ["name"]
        );
    }

    #[test]
    fn field_set_plans_and_pairing() {
        // Server-side apply: list-type first, also for built-ins and over a
        // `replace` strategy; `merge` without a list type falls back.
        let native_map = PatchMeta {
            native: true,
            ..meta(Strategy::Replace, None, Some(ListType::Map), &["a", "b"])
        };
        assert!(matches!(
            ListPlan::field_set(&native_map),
            ListPlan::Merge(KeySpec::Compound(ks)) if ks.len() == 2
        ));
        assert_eq!(Rules::default().list_plan(&native_map), ListPlan::Atomic);
        let keyless_map = meta(Strategy::Merge, Some("k"), Some(ListType::Map), &[]);
        assert_eq!(ListPlan::field_set(&keyless_map), ListPlan::Atomic);
        let merge = meta(Strategy::Merge, Some("name"), None, &[]);
        assert_eq!(
            ListPlan::field_set(&merge),
            ListPlan::Merge(KeySpec::Single("name"))
        );
        let merge_set = meta(Strategy::Merge, None, None, &[]);
        assert_eq!(
            ListPlan::field_set(&merge_set),
            ListPlan::Merge(KeySpec::Value)
        );
        let set = meta(Strategy::Merge, Some("name"), Some(ListType::Set), &[]);
        assert_eq!(ListPlan::field_set(&set), ListPlan::Merge(KeySpec::Value));
        assert_eq!(
            ListPlan::field_set(&meta(Strategy::None, None, None, &[])),
            ListPlan::Atomic
        );
        // Pairing: merge key, else list-map keys (built-in or not), else position.
        assert_eq!(KeySpec::pairing(&set), KeySpec::Single("name"));
        assert!(matches!(
            KeySpec::pairing(&native_map),
            KeySpec::Compound(_)
        ));
        assert_eq!(KeySpec::pairing(&merge_set), KeySpec::Value);
    }

    #[test]
    fn field_lookup_quirks() {
        let pod = crate::embedded()
            .cursor("io.k8s.api.core.v1.PodSpec")
            .unwrap();
        let quirky = Rules::default();
        let fixed = Rules {
            fix_quirks: true,
            ..Rules::default()
        };
        // Q23: a built-in's field also matches case-insensitively.
        assert!(quirky.field(pod, "Containers", FieldShape::List).is_ok());
        assert!(fixed.field(pod, "Containers", FieldShape::List).is_err());
        let meta = crate::embedded()
            .cursor("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
            .unwrap();
        let labels = quirky
            .field(meta, "labels", FieldShape::Object)
            .unwrap()
            .cursor;
        assert!(quirky.field(labels, "app", FieldShape::Object).is_err());
        assert!(fixed.field(labels, "app", FieldShape::Object).is_ok());
    }
}
