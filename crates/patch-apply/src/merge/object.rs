//! Objects (the reference's `mergeMap`): `$patch`, `$retainKeys`, fields and
//! `$deleteFromPrimitiveList`, on a working copy of the target object.

use super::clean::{Cleaned, Place};
use super::list::Order;
use super::{Merger, Mode};
use crate::directives::{self, key_role, KeyRole, PatchDirective, PATCH, RETAIN_KEYS};
use crate::rules::{self, brief};
use crate::{Error, ErrorKind};
use smallvec::SmallVec;
use smpatch_schema::{grow_stack, FieldShape, ListPlan, Strategy, Walk};
use smpatch_value::hashing::{HashMap, HashSet};
use smpatch_value::{Arena, Member, Object, Step, Value};

/// Objects larger than this get a hash index for key lookups.
pub(super) const SMALL_OBJECT: usize = 12;

/// What a field of the patch does: merge into the live value, or (from
/// `$deleteFromPrimitiveList/<f>`) delete values from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FieldOp {
    Merge,
    DeleteFrom,
}

/// A mutable working copy of an object: members in order, tombstones for
/// deletions, and a hash index once it is large.
pub(super) struct WorkObject<'a> {
    pub(super) members: Vec<(&'a str, Option<Value<'a>>)>,
    pub(super) index: Option<HashMap<&'a str, usize>>,
}

impl<'a> WorkObject<'a> {
    pub(super) fn new() -> Self {
        WorkObject {
            members: Vec::new(),
            index: None,
        }
    }

    pub(super) fn from_object(o: Object<'a>) -> Self {
        let mut w = WorkObject {
            members: Vec::with_capacity(o.len() + 2),
            index: None,
        };
        if o.len() > SMALL_OBJECT {
            w.index = Some(HashMap::default());
        }
        for m in o.members() {
            // Duplicate keys: the last occurrence wins (as Go's decoder).
            w.set(m.key, m.value);
        }
        w
    }

    pub(super) fn find(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(ix) => ix.get(key).copied(),
            None => self.members.iter().position(|m| m.0 == key),
        }
    }

    pub(super) fn get(&self, key: &str) -> Option<Value<'a>> {
        self.find(key).and_then(|i| self.members[i].1)
    }

    pub(super) fn set(&mut self, key: &'a str, v: Value<'a>) {
        if let Some(i) = self.find(key) {
            // The key too (equal text): a merged member then holds the key
            // of the patch member that set it, whose text lies next to the
            // value's, so writing the result reads one place instead of two
            // (on long lists, the live key texts were a cache miss each).
            self.members[i] = (key, Some(v));
            return;
        }
        let pos = self.members.len();
        self.members.push((key, Some(v)));
        match &mut self.index {
            Some(ix) => {
                ix.insert(key, pos);
            }
            None if self.members.len() > SMALL_OBJECT => {
                self.index = Some(
                    self.members
                        .iter()
                        .enumerate()
                        .map(|(i, m)| (m.0, i))
                        .collect(),
                );
            }
            None => {}
        }
    }

    pub(super) fn remove(&mut self, key: &str) {
        if let Some(i) = self.find(key) {
            self.members[i].1 = None;
        }
    }

    pub(super) fn finish(self, arena: &'a Arena) -> Value<'a> {
        let members: Vec<Member<'a>> = self
            .members
            .into_iter()
            .filter_map(|(key, v)| v.map(|value| Member { key, value }))
            .collect();
        Value::object_from_members(arena, &members)
    }
}

impl<'a> Merger<'a, '_> {
    // ----- objects ----------------------------------------------------------

    /// `merge_object(target, patch)`. `target` is an object or null; `w` is
    /// the object's walk (its cursor the object's schema), checked here.
    pub(crate) fn merge_object(
        &self,
        target: Value<'a>,
        patch: Object<'a>,
        w: Walk<'_, '_>,
    ) -> Result<Value<'a>, Error> {
        self.check_depth(w)?;
        grow_stack(|| self.merge_object_inner(target, patch, w))
    }

    pub(super) fn merge_object_inner(
        &self,
        target: Value<'a>,
        patch: Object<'a>,
        w: Walk<'_, '_>,
    ) -> Result<Value<'a>, Error> {
        // Step 1: `$patch`.
        if let Some(d) = patch.get(PATCH) {
            return self.object_directive(d, patch, w);
        }
        // Step 2.
        let mut t = match target {
            Value::Object(o) => WorkObject::from_object(o),
            _ => WorkObject::new(),
        };
        // Step 3.
        if let Some(rk) = patch.get(RETAIN_KEYS) {
            self.retain_keys(&mut t, rk, patch, w)?;
        }
        // Step 4.
        let mut consumed: SmallVec<[&'a str; 4]> = SmallVec::new();
        for m in patch.members() {
            if let KeyRole::SetElementOrder(_) = key_role(m.key) {
                if let Some(f) = self.set_element_order(&mut t, m.key, m.value, patch, w)? {
                    consumed.push(f);
                }
            }
        }
        // Step 5, first the fields, then the deletion lists (Q13: merge first,
        // delete second).
        for m in patch.members() {
            if matches!(
                key_role(m.key),
                KeyRole::RetainKeys
                    | KeyRole::SetElementOrder(_)
                    | KeyRole::DeleteFromPrimitiveList(_)
            ) || consumed.contains(&m.key)
            {
                continue;
            }
            let here = w.path().key(m.key);
            self.merge_field(&mut t, m.key, m.value, FieldOp::Merge, w.at(&here))?;
        }
        for m in patch.members() {
            let KeyRole::DeleteFromPrimitiveList(_) = key_role(m.key) else {
                continue;
            };
            let here = w.path().key(m.key);
            self.delete_list_key(&mut t, m.key, m.value, w.at(&here))?;
        }
        Ok(t.finish(self.arena))
    }

    /// `$patch` in an object; `w` is the object's walk.
    pub(super) fn object_directive(
        &self,
        d: Value<'a>,
        patch: Object<'a>,
        w: Walk<'_, '_>,
    ) -> Result<Value<'a>, Error> {
        let directive = rules::object_patch(&d, &Value::Object(patch))
            .map_err(|p| self.problem_at(w, Step::Key(PATCH), p))?;
        match directive {
            PatchDirective::Replace => {
                let rest = self.without_patch(patch);
                if self.mode == Mode::Compose {
                    return Ok(rest);
                }
                // Q7 (always fixed): the remainder is cleaned.
                Ok(
                    match self.clean(rest, Place::Field, w.step(w.path(), w.cursor()))? {
                        Cleaned::Same => rest,
                        Cleaned::New(v) => v,
                        Cleaned::Drop => Value::empty_object(),
                    },
                )
            }
            PatchDirective::Delete => Ok(Value::empty_object()),
            PatchDirective::Merge => Err(self.problem_at(
                w,
                Step::Key(PATCH),
                rules::unknown_object_patch(&d, &Value::Object(patch)),
            )),
        }
    }

    /// `$retainKeys` of the object at `w`.
    pub(super) fn retain_keys(
        &self,
        t: &mut WorkObject<'a>,
        rk: Value<'a>,
        patch: Object<'a>,
        w: Walk<'_, '_>,
    ) -> Result<(), Error> {
        if self.mode == Mode::Compose {
            match t.get(RETAIN_KEYS) {
                Some(existing) => {
                    if !existing.deep_eq(&rk) {
                        return Err(self.err_at(
                            w,
                            Step::Key(RETAIN_KEYS),
                            ErrorKind::ComposeMismatch,
                            format!(
                                "{} and {} are not deep equal: this may happen when calculating the 3-way diff patch",
                                brief(&existing),
                                brief(&rk)
                            ),
                        ));
                    }
                }
                None => t.set(RETAIN_KEYS, rk),
            }
            return Ok(());
        }
        let list = rules::retain_keys_list(&rk)
            .map_err(|p| self.problem_at(w, Step::Key(RETAIN_KEYS), p))?;
        let listed = |k: &str| list.iter().any(|v| v.as_str() == Some(k));
        let big: Option<HashSet<&str>> =
            (list.len() > 16).then(|| list.iter().filter_map(|v| v.as_str()).collect());
        let contains = |k: &str| match &big {
            Some(s) => s.contains(k),
            None => listed(k),
        };
        for m in patch.members() {
            if rules::retain_exempt(m) {
                continue;
            }
            if !contains(m.key) {
                return Err(self.problem_at(w, Step::Key(m.key), rules::not_retained(m.key)));
            }
        }
        for m in t.members.iter_mut() {
            if m.1.is_some() && !contains(m.0) {
                m.1 = None;
            }
        }
        Ok(())
    }

    /// One field `k` (already stripped of any directive prefix); `w` is the
    /// object's walk moved to the patch member (its cursor still the
    /// object's schema).
    pub(super) fn merge_field(
        &self,
        t: &mut WorkObject<'a>,
        k: &'a str,
        pv: Value<'a>,
        op: FieldOp,
        w: Walk<'_, '_>,
    ) -> Result<(), Error> {
        let del = op == FieldOp::DeleteFrom;
        if pv.is_null() {
            t.remove(k);
            if self.mode == Mode::Apply {
                return Ok(());
            }
        }
        let Some(tv) = t.get(k) else {
            if !del {
                self.insert_clean(t, k, pv, w)?;
            }
            return Ok(());
        };
        if tv.kind() != pv.kind() {
            if !del {
                self.insert_clean(t, k, pv, w)?;
            }
            return Ok(());
        }
        match (tv, pv) {
            (Value::Object(_), Value::Object(po)) => {
                let field = self.lookup(w, k, FieldShape::Object)?;
                if field.meta.strategy == Strategy::Replace {
                    self.store_as_sent(t, k, pv, w)?;
                } else {
                    let v = self.merge_object(tv, po, w.step(w.path(), field.cursor))?;
                    t.set(k, v);
                }
            }
            (Value::Array(tl), Value::Array(pl)) => {
                let field = self.lookup(w, k, FieldShape::List)?;
                let wl = w.step(w.path(), field.cursor);
                match self.rules.list_plan(field.meta) {
                    ListPlan::Merge(keys) => {
                        let r = self.merge_list(tl, pl, keys, op, Order::Now, wl)?;
                        t.set(k, r.into_array(self.arena));
                    }
                    ListPlan::Atomic if del => {
                        let keys = self.rules.order_keys(field.meta);
                        let r = self.merge_list(tl, pl, keys, op, Order::Now, wl)?;
                        t.set(k, r.into_array(self.arena));
                    }
                    ListPlan::Atomic => self.store_as_sent(t, k, pv, w)?,
                }
            }
            _ => t.set(k, pv),
        }
        Ok(())
    }

    /// Replace objects and atomic lists: as sent in COMPOSE, cleaned in APPLY
    /// (Q9, always fixed).
    pub(super) fn store_as_sent(
        &self,
        t: &mut WorkObject<'a>,
        k: &'a str,
        pv: Value<'a>,
        w: Walk<'_, '_>,
    ) -> Result<(), Error> {
        if self.mode == Mode::Compose {
            t.set(k, pv);
            return Ok(());
        }
        self.insert_clean(t, k, pv, w)
    }

    /// Stores `pv` at `k`, cleaned; `w` is the object's walk at the member.
    pub(super) fn insert_clean(
        &self,
        t: &mut WorkObject<'a>,
        k: &'a str,
        pv: Value<'a>,
        w: Walk<'_, '_>,
    ) -> Result<(), Error> {
        match self.clean(pv, Place::Field, w.step(w.path(), w.cursor()))? {
            Cleaned::Same => t.set(k, pv),
            Cleaned::New(v) => t.set(k, v),
            Cleaned::Drop => t.remove(k),
        }
        Ok(())
    }

    /// `$deleteFromPrimitiveList/<f>`; `w` is the object's walk at the
    /// directive key (errors about the list name the directive).
    pub(super) fn delete_list_key(
        &self,
        t: &mut WorkObject<'a>,
        key: &'a str,
        pv: Value<'a>,
        w: Walk<'_, '_>,
    ) -> Result<(), Error> {
        if self.mode == Mode::Compose {
            // Q22: a later list overwrites; with fix_quirks the lists are united.
            if self.opts.fix_quirks {
                if let (Some(Value::Array(a)), Value::Array(b)) = (t.get(key), pv) {
                    let mut out: Vec<Value<'a>> = a.to_vec();
                    let mut seen: HashSet<Value<'a>> = a.iter().copied().collect();
                    out.extend(b.iter().filter(|v| seen.insert(**v)));
                    t.set(key, Value::array_from(self.arena, &out));
                    return Ok(());
                }
            }
            t.set(key, pv);
            return Ok(());
        }
        let Some(f) = directives::deleted_field(key) else {
            return Err(self.problem(w, rules::bad_delete_key()));
        };
        if self.opts.fix_quirks {
            // Q11 fix.
            rules::delete_list(&pv).map_err(|p| self.problem(w, p))?;
        }
        self.merge_field(t, f, pv, FieldOp::DeleteFrom, w)
    }
}
