//! `create_three_way`'s composition of `deletions` and `delta` without
//! re-pairing the long keyed lists the fused walk (`diff3.rs`) already
//! paired (issue 13: on lists past the caches the composition's pairing
//! and ordering were the largest part of create3).
//!
//! The fused walk emits each keyed list's deletions and delta elements in
//! modified's order; when the two lists hold only plain elements (no
//! `$patch`), every element is named by the `$setElementOrder` list both
//! carry and no key repeats, COMPOSE mode's result for that field is known
//! without any look-up: in modified's order, each element merged from its
//! deletions and delta parts (or the one part there is). The walk records
//! that list ([`Precomposed`]); [`FastCompose`] then merges the two patches
//! as `smpatch_patch_apply::compose_patches` does, taking recorded lists as
//! they are, and hands every object it does not cover (`$patch`,
//! `$retainKeys`, `$deleteFromPrimitiveList`, merge lists it has no record
//! of, inserted containers holding `$patch`, repeated keys) to
//! `compose_patches` itself, at the object's schema and remaining depth.
//!
//! Architecture Invariant: any error, or anything outside those cases that
//! cannot be handed over object by object, gives up (`None`); the caller
//! then composes the two whole patches with `compose_patches`, which
//! reports the error exactly as before.

use crate::compose::apply_options;
use crate::CreateOptions;
use smpatch_patch_apply::directives::{key_role, KeyRole, PATCH};
use smpatch_schema::{grow_stack, Cursor, FieldShape, ListPlan, Rules, Strategy};
use smpatch_value::hashing::HashMap;
use smpatch_value::{Arena, Member, Object, Value};
use std::cell::RefCell;

/// The identity of a non-empty arena list: its address and length.
pub(crate) type ListId = (usize, usize);

/// The identity of `v` when it is a non-empty list.
pub(crate) fn list_id(v: &Value<'_>) -> Option<ListId> {
    match v {
        Value::Array(a) if !a.is_empty() => Some((a.as_ptr() as usize, a.len())),
        _ => None,
    }
}

/// One keyed list the fused walk composed: the deletions list's
/// `$setElementOrder` list, the delta list and its `$setElementOrder`
/// list, and the composed list.
#[derive(Clone, Copy)]
pub(crate) struct Precomposed<'a> {
    pub(crate) dels_order: ListId,
    pub(crate) delta: ListId,
    pub(crate) delta_order: ListId,
    pub(crate) list: Value<'a>,
}

/// The lists composed during one fused walk, by the deletions list's
/// identity.
#[derive(Default)]
pub(crate) struct Table<'a> {
    lists: RefCell<HashMap<ListId, Precomposed<'a>>>,
}

impl<'a> Table<'a> {
    pub(crate) fn insert(&self, dels: ListId, p: Precomposed<'a>) {
        self.lists.borrow_mut().insert(dels, p);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lists.borrow().is_empty()
    }

    /// Forgets every record (a test runs several walks with one table).
    #[cfg(test)]
    pub(crate) fn clear(&self) {
        self.lists.borrow_mut().clear();
    }

    /// The composed list of field `f`: `dels` and `dels_order` from the
    /// first patch, `delta` and `delta_order` from the second.
    fn get(
        &self,
        dels: Option<Value<'a>>,
        dels_order: Option<Value<'a>>,
        delta: Option<Value<'a>>,
        delta_order: Value<'a>,
    ) -> Option<Value<'a>> {
        let p = *self.lists.borrow().get(&list_id(&dels?)?)?;
        let same = Some(p.dels_order) == list_id(&dels_order?)
            && Some(p.delta) == list_id(&delta?)
            && Some(p.delta_order) == list_id(&delta_order);
        same.then_some(p.list)
    }
}

/// The COMPOSE-mode merge of two patches from one fused walk (see the
/// module header).
pub(crate) struct FastCompose<'a, 't> {
    arena: &'a Arena,
    rules: Rules,
    limit: usize,
    opts: &'t CreateOptions,
    pub(crate) table: &'t Table<'a>,
    /// Working copies of objects, reused (one per nesting level in use):
    /// most composed objects are list elements, one after the other.
    scratch: RefCell<Vec<Work<'a>>>,
}

/// A working copy of an object, keys unique (COMPOSE mode removes no
/// member: a `null` is stored).
type Work<'a> = Vec<Member<'a>>;

impl<'a, 't> FastCompose<'a, 't> {
    pub(crate) fn new(arena: &'a Arena, opts: &'t CreateOptions, table: &'t Table<'a>) -> Self {
        FastCompose {
            arena,
            rules: opts.rules(),
            limit: opts.depth_limit(),
            opts,
            table,
            scratch: RefCell::new(Vec::new()),
        }
    }
}

/// Objects of at most this many members are checked for repeated keys
/// pair by pair; larger ones are handed over.
const SMALL: usize = 24;

/// True when no key repeats in `members` (which has at most [`SMALL`]).
fn unique_keys(members: &[Member<'_>]) -> bool {
    (1..members.len()).all(|i| !members[..i].iter().any(|m| m.key == members[i].key))
}

impl<'a> FastCompose<'a, '_> {
    /// `compose_patches(acc, patch)` restricted to the object at `cursor`
    /// and nesting `depth` (1 at the root): `merge_object(acc, patch)` in
    /// COMPOSE mode. `None`: give up.
    pub(crate) fn object(
        &self,
        acc: Object<'a>,
        patch: Object<'a>,
        cursor: Cursor<'_>,
        depth: usize,
    ) -> Option<Value<'a>> {
        if depth > self.limit {
            return None;
        }
        grow_stack(|| self.object_inner(acc, patch, cursor, depth))
    }

    /// The same object composed by `compose_patches` itself.
    fn hand_over(
        &self,
        acc: Object<'a>,
        patch: Object<'a>,
        cursor: Cursor<'_>,
        depth: usize,
    ) -> Option<Value<'a>> {
        // `compose_patches` starts at depth 1: the same limit relative to
        // this object.
        let opts = apply_options(self.opts).with_max_depth(self.limit - (depth - 1));
        smpatch_patch_apply::compose_patches(
            self.arena,
            Value::Object(acc),
            Value::Object(patch),
            cursor,
            &opts,
        )
        .ok()
    }

    fn object_inner(
        &self,
        acc: Object<'a>,
        patch: Object<'a>,
        cursor: Cursor<'_>,
        depth: usize,
    ) -> Option<Value<'a>> {
        let (am, pm) = (acc.members(), patch.members());
        if am.len() > SMALL || pm.len() > SMALL || !unique_keys(am) || !unique_keys(pm) {
            return self.hand_over(acc, patch, cursor, depth);
        }
        for m in pm {
            match key_role(m.key) {
                KeyRole::Field(_) | KeyRole::SetElementOrder(Some(_)) => {}
                _ => return self.hand_over(acc, patch, cursor, depth),
            }
        }
        let mut t = self.scratch.borrow_mut().pop().unwrap_or_default();
        t.extend_from_slice(am);
        let out = self.compose_into(&mut t, acc, patch, cursor, depth);
        t.clear();
        self.scratch.borrow_mut().push(t);
        out
    }

    /// [`Self::object_inner`] on the working copy `t` of `acc`.
    fn compose_into(
        &self,
        t: &mut Work<'a>,
        acc: Object<'a>,
        patch: Object<'a>,
        cursor: Cursor<'_>,
        depth: usize,
    ) -> Option<Value<'a>> {
        let pm = patch.members();
        let find = |t: &[Member<'a>], k: &str| t.iter().position(|x| x.key == k);
        let set = |t: &mut Work<'a>, key: &'a str, value: Value<'a>| match find(t, key) {
            Some(i) => t[i].value = value,
            None => t.push(Member { key, value }),
        };
        // `$setElementOrder/<f>`: only lists the walk composed.
        let mut consumed: Vec<&'a str> = Vec::new();
        for m in pm {
            let KeyRole::SetElementOrder(Some(f)) = key_role(m.key) else {
                continue;
            };
            let get = |k: &str| find(t, k).map(|i| t[i].value);
            let Some(list) = self.table.get(get(f), get(m.key), patch.get(f), m.value) else {
                return self.hand_over(acc, patch, cursor, depth);
            };
            // Both order lists were built from modified's keys: equal.
            set(t, f, list);
            consumed.push(f);
        }
        for m in pm {
            let (k, pv) = (m.key, m.value);
            if !matches!(key_role(k), KeyRole::Field(_)) || consumed.contains(&k) {
                continue;
            }
            let tv = find(t, k).map(|i| t[i].value);
            let v = match (tv, pv) {
                // A null is kept (COMPOSE); a scalar is set.
                (_, Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_)) => pv,
                (Some(Value::Object(to)), Value::Object(po)) => {
                    let field = self.rules.field(cursor, k, FieldShape::Object).ok()?;
                    if field.meta.strategy == Strategy::Replace {
                        pv
                    } else {
                        self.object(to, po, field.cursor, depth + 1)?
                    }
                }
                (Some(Value::Array(_)), Value::Array(_)) => {
                    let field = self.rules.field(cursor, k, FieldShape::List).ok()?;
                    match self.rules.list_plan(field.meta) {
                        ListPlan::Atomic => pv,
                        ListPlan::Merge(_) => return self.hand_over(acc, patch, cursor, depth),
                    }
                }
                // Inserted as sent unless it holds a `$patch` object
                // (COMPOSE's cleaning drops those).
                _ => {
                    if !plain(pv, depth + 1, self.limit)? {
                        return self.hand_over(acc, patch, cursor, depth);
                    }
                    pv
                }
            };
            set(t, k, v);
        }
        Some(Value::object_from_members(self.arena, t))
    }
}

/// `Some(true)` when no object inside `v` (at nesting `depth`) holds a
/// `$patch` member, `Some(false)` when one does, `None` when `v` is
/// deeper than `limit` (the cleaning would fail).
fn plain(v: Value<'_>, depth: usize, limit: usize) -> Option<bool> {
    // An explicit stack: `limit` can be raised far past what recursion on
    // the thread's stack would survive.
    // Pre-order, as a recursive walk would go: the first `$patch` or
    // too-deep value met answers.
    let mut stack = vec![(v, depth)];
    while let Some((v, depth)) = stack.pop() {
        match v {
            Value::Object(o) => {
                if depth > limit {
                    return None;
                }
                if o.contains_key(PATCH) {
                    return Some(false);
                }
                stack.extend(o.members().iter().rev().map(|m| (m.value, depth + 1)));
            }
            Value::Array(a) => {
                if depth > limit {
                    return None;
                }
                stack.extend(a.iter().rev().map(|item| (*item, depth + 1)));
            }
            _ => {}
        }
    }
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::plain;
    use smpatch_value::{Arena, Member, Value};

    /// `inner` inside `n` levels of lists and objects, alternating.
    fn deep<'a>(arena: &'a Arena, inner: Value<'a>, n: usize) -> Value<'a> {
        let mut v = inner;
        for i in 0..n {
            v = if i % 2 == 0 {
                Value::array_from(arena, &[v])
            } else {
                Value::object_from_members(arena, &[Member { key: "a", value: v }])
            };
        }
        v
    }

    /// `plain` walks with its own stack: a raised limit over a value nested
    /// far deeper than the thread's stack would allow answers instead of
    /// overflowing; `$patch` anywhere answers `false`, past the limit `None`.
    #[test]
    fn plain_answers_on_very_deep_values() {
        let arena = Arena::new();
        let n = 300_000;
        assert_eq!(plain(deep(&arena, Value::Null, n), 1, 2 * n), Some(true));
        let patch = Value::object_from_members(
            &arena,
            &[Member {
                key: "$patch",
                value: Value::String("delete"),
            }],
        );
        assert_eq!(plain(deep(&arena, patch, n), 1, 2 * n), Some(false));
        assert_eq!(plain(deep(&arena, Value::Null, n), 1, n / 2), None);
    }
}
