//! The fold: two checked patches merged into one, field by field (the
//! public composition, [`super::compose_public`]).

use super::check::{one_kind, unsupported};
use super::directive_of;
use super::side::{retain_list, side, sides, steps, Group, Names, Side};
use crate::keys::{element_key, KeyText, Tagging};
use crate::shared::{lookup_error, too_deep};
use crate::CreateOptions;
use smpatch_patch_apply::directives::{self, field_name, PatchDirective, RETAIN_KEYS};
use smpatch_patch_apply::Error;
use smpatch_schema::{grow_stack, Cursor, Field, FieldShape, KeySpec, ListPlan, Strategy, Walk};
use smpatch_value::hashing::{HashMap, HashSet};
use smpatch_value::{Arena, Member, Path, Value};

/// The path of every composed position: the composition has no single place
/// in one document, so its errors name the root (or the field, in lookups).
pub(super) static ROOT: Path<'static> = Path::Root;

/// The composition state: the arena results live in and the options.
pub(super) struct Composer<'a, 'o> {
    pub(super) arena: &'a Arena,
    pub(super) opts: &'o CreateOptions,
}

impl<'a> Composer<'a, '_> {
    pub(super) fn object(
        &self,
        p1: Value<'a>,
        p2: Value<'a>,
        w: Walk<'_, '_>,
    ) -> Result<Value<'a>, Error> {
        w.check().map_err(too_deep)?;
        grow_stack(|| self.object_inner(p1, p2, w))
    }

    fn object_inner(
        &self,
        p1: Value<'a>,
        p2: Value<'a>,
        w: Walk<'_, '_>,
    ) -> Result<Value<'a>, Error> {
        let cursor = w.cursor();
        let (Value::Object(o1), Value::Object(o2)) = (p1, p2) else {
            return Ok(p2);
        };
        if directive_of(&p2).is_some() {
            // apply(apply(x, p1), p2) at this object is p2's replace/delete alone.
            return Ok(p2);
        }
        if directive_of(&p1).is_some() {
            // p1 sets the object whatever it was; p2 merges into that.
            let c = self.apply_obj(p1, cursor)?;
            let c = self.apply_on(c, p2, cursor)?;
            return self.encode_object(c, w);
        }
        let r1 = retain_list(o1);
        let r2 = retain_list(o2);
        // Indexes built once per object: what each patch does to each field
        // and which names each retain list holds (no per-field scans).
        let (sides1, sides2) = (sides(o1), sides(o2));
        let (n1, n2) = (r1.map(Names::of), r2.map(Names::of));
        // Fields in order of first mention.
        let mut fields: Vec<&'a str> = Vec::new();
        let mut mentioned: HashSet<&'a str> = HashSet::default();
        let mut add = |f: &'a str| {
            if mentioned.insert(f) {
                fields.push(f);
            }
        };
        for o in [o1, o2] {
            for m in o.members() {
                if m.key == RETAIN_KEYS {
                    continue;
                }
                add(field_name(m.key));
            }
        }
        for v in r1.into_iter().chain(r2).flatten() {
            if let Some(f) = v.as_str() {
                add(f);
            }
        }
        let mut out: Vec<Member<'a>> = Vec::new();
        let mut keep: Vec<&'a str> = Vec::new();
        for &f in &fields {
            let raw1 = sides1.get(f).copied().unwrap_or_default();
            let raw2 = sides2.get(f).copied().unwrap_or_default();
            if f.starts_with('$') {
                // An unknown directive: p2's wins.
                // (A retain list may name a directive key itself.)
                let named = || o2.get(f).or_else(|| o1.get(f));
                let listed = directives::ordered_field(f).is_some()
                    || directives::deleted_field(f).is_some();
                if let Some(v) = raw2
                    .val
                    .or(raw1.val)
                    .or_else(|| listed.then(named).flatten())
                {
                    out.push(Member { key: f, value: v });
                }
                continue;
            }
            let s1 = side(raw1, f, n1.as_ref());
            let s2 = side(raw2, f, n2.as_ref());
            let r = self.field(f, s1, s2, w)?;
            let sets = r.val.is_some_and(|v| !v.is_null());
            let kept = (n1.as_ref().is_none_or(|r| r.contains(f))
                || raw2.val.is_some_and(|v| !v.is_null()))
                && n2.as_ref().is_none_or(|r| r.contains(f));
            if kept || sets {
                keep.push(f);
            }
            r.push(&mut out, f);
        }
        if r1.is_some() || r2.is_some() {
            let list: Vec<Value<'a>> = keep.iter().map(|f| Value::String(f)).collect();
            out.insert(
                0,
                Member {
                    key: RETAIN_KEYS,
                    value: Value::array_from(self.arena, &list),
                },
            );
        }
        Ok(Value::object_from_members(self.arena, &out))
    }

    /// Composes what the two patches do to field `f`.
    fn field(
        &self,
        f: &'a str,
        s1: Side<'a>,
        s2: Side<'a>,
        w: Walk<'_, '_>,
    ) -> Result<Side<'a>, Error> {
        let cursor = w.cursor();
        if s2.is_empty() {
            return Ok(s1);
        }
        if s1.is_empty() {
            if let (Some(Value::Array(b)), Some(_)) = (s2.val, s2.del) {
                // p2's deletion list also holds where p2 inserts the list
                // into an object p1 made; the composed list may be inserted
                // whole (which drops deletion lists).
                return self.primitive(f, &[], b, s1, s2);
            }
            return Ok(s2);
        }
        if s1.val.is_some_and(|v| v.is_null()) {
            // p1 removes the field; p2 acts on nothing (an inserted value
            // is cleaned, not merged).
            let r = self.apply_field(f, None, &s2, cursor)?;
            let val = self.encode(f, r, w)?;
            return Ok(Side {
                val: Some(val),
                val_key: Some(f),
                ..Side::default()
            });
        }
        let (v1, v2) = (s1.val, s2.val);
        let deletes = |v: Option<Value<'a>>| {
            v.is_some_and(|v| directive_of(&v) == Some(PatchDirective::Delete))
        };
        let replaces = |v: Option<Value<'a>>| {
            v.is_some_and(|v| v.is_object() && directive_of(&v) == Some(PatchDirective::Replace))
        };
        if deletes(v1) && deletes(v2) {
            return Ok(s2);
        }
        if !self.opts.fix_quirks && replaces(v1) {
            // Q8: p1's replace drops out where the document lacks the field.
            if self.is_absolute(f, &s2, cursor)? && !replaces(v2) {
                return Ok(s2);
            }
            return Err(unsupported(format!(
                "cannot compose: the first patch replaces object {f:?} and the second changes it; without fix_quirks (Q8) the result depends on whether the document has {f:?}"
            )));
        }
        if !self.opts.fix_quirks && replaces(v2) && v1.is_some_and(|v| v.is_object()) {
            // Q8: a `$patch: replace` object inserted where the field is
            // absent is dropped, so p2's replace is absolute only where p1
            // left an object.
            if deletes(v1) {
                return Err(unsupported(format!(
                    "cannot compose: the first patch deletes object {f:?} and the second replaces it; without fix_quirks (Q8) the result depends on whether the document has {f:?}"
                )));
            }
            let start = self.apply_field(f, None, &s1, cursor)?;
            let r = self.apply_field(f, start, &s2, cursor)?;
            let val = self.encode(f, r, w)?;
            return Ok(Side {
                val: Some(val),
                val_key: Some(f),
                ..Side::default()
            });
        }
        if self.is_absolute(f, &s2, cursor)? {
            return Ok(s2);
        }
        // p2 deletes an object that p1 merged into: it is now `{}`.
        if let (Some(Value::Object(_)), Some(b)) = (v1, v2) {
            if directive_of(&b) == Some(PatchDirective::Delete)
                && directive_of(&v1.unwrap_or(Value::Null)) != Some(PatchDirective::Delete)
            {
                let field = self.lookup_object(&cursor, f)?;
                let c = self.encode_object(Value::empty_object(), w.step(&ROOT, field.cursor))?;
                return Ok(Side {
                    val: Some(c),
                    val_key: Some(f),
                    ..Side::default()
                });
            }
        }
        let abs1 = self.is_absolute(f, &s1, cursor)?;
        if abs1 || v1.is_some_and(|v| directive_of(&v) == Some(PatchDirective::Delete)) {
            // p1 sets the field whatever it was; p2 changes that value.
            let start =
                if !abs1 && v1.is_some_and(|v| directive_of(&v) == Some(PatchDirective::Delete)) {
                    Some(Value::empty_object())
                } else {
                    self.apply_field(f, None, &s1, cursor)?
                };
            let r = self.apply_field(f, start, &s2, cursor)?;
            let val = self.encode(f, r, w)?;
            return Ok(Side {
                val: Some(val),
                val_key: Some(f),
                ..Side::default()
            });
        }
        match (v1, v2) {
            (Some(a @ Value::Object(_)), Some(b @ Value::Object(_))) => {
                let field = self.lookup_object(&cursor, f)?;
                let v = self.object(a, b, w.step(&ROOT, field.cursor))?;
                Ok(Side {
                    val: Some(v),
                    val_key: Some(f),
                    ..Side::default()
                })
            }
            (a, b) if a.is_none_or(|a| a.is_array()) && b.is_none_or(|b| b.is_array()) => {
                let field = self.lookup_list(&cursor, f)?;
                let a = a.and_then(|a| a.as_array()).unwrap_or(&[]);
                let b = b.and_then(|b| b.as_array()).unwrap_or(&[]);
                match self.opts.rules().list_plan(field.meta) {
                    ListPlan::Merge(keys) if a.iter().chain(b).any(Value::is_object) => {
                        self.keyed(f, (a, s1), (b, s2), keys, w, field.cursor)
                    }
                    ListPlan::Merge(keys) if keys.is_keyed() => {
                        let s = self.primitive(f, a, b, s1, s2)?;
                        let filled = |v: Option<Value<'a>>| {
                            v.and_then(|v| v.as_array()).is_some_and(|l| !l.is_empty())
                        };
                        // Apply refuses a keyed list's patch list of
                        // scalars next to a non-empty order list (the
                        // reference's `validatePatchWithSetOrderList`),
                        // although each patch alone may hold one of them.
                        if filled(s.order.map(|o| o.value)) && filled(s.val) {
                            return Err(unsupported(format!(
                                "cannot compose: {f:?} is a keyed list, and the composed patch would hold both a list of scalars for it and a non-empty $setElementOrder/{f}, which apply refuses"
                            )));
                        }
                        Ok(s)
                    }
                    _ => self.primitive(f, a, b, s1, s2),
                }
            }
            _ => {
                // Kinds differ: p2's value is inserted as sent.
                let start = self.apply_field(f, None, &s1, cursor)?;
                let r = self.apply_field(f, start, &s2, cursor)?;
                let val = self.encode(f, r, w)?;
                Ok(Side {
                    val: Some(val),
                    val_key: Some(f),
                    ..Side::default()
                })
            }
        }
    }

    /// True when what `s` does to `f` does not depend on the old value.
    fn is_absolute(&self, f: &str, s: &Side<'a>, cursor: Cursor<'_>) -> Result<bool, Error> {
        let Some(v) = s.val else { return Ok(false) };
        Ok(match v {
            Value::Object(_) => match directive_of(&v) {
                Some(PatchDirective::Replace) => true,
                // A replace-strategy field is set to the cleaned value
                // whatever its directive (`$patch: delete` removes it).
                Some(_) => self
                    .lookup_object(&cursor, f)
                    .is_ok_and(|x| x.meta.strategy == Strategy::Replace),
                None => self.lookup_object(&cursor, f)?.meta.strategy == Strategy::Replace,
            },
            Value::Array(items) => {
                let field = self.lookup_list(&cursor, f)?;
                match self.opts.rules().list_plan(field.meta) {
                    ListPlan::Atomic => true,
                    ListPlan::Merge(_) => items
                        .iter()
                        .any(|e| directive_of(e) == Some(PatchDirective::Replace)),
                }
            }
            _ => true,
        })
    }

    /// A keyed merge list `f` both patches merge: each side is the patch's
    /// list and what it does to `f`; `w` is the object's walk, `elem` the
    /// element schema.
    fn keyed(
        &self,
        f: &'a str,
        (a, s1): (&'a [Value<'a>], Side<'a>),
        (b, s2): (&'a [Value<'a>], Side<'a>),
        keys: KeySpec<'_>,
        w: Walk<'_, '_>,
        elem: Cursor<'_>,
    ) -> Result<Side<'a>, Error> {
        let id = |e: &Value<'a>| {
            e.as_object()
                .and_then(|o| element_key(&o, keys, Tagging::ByKind).ok())
        };
        let a_ids: Vec<_> = a.iter().map(id).collect();
        let b_ids: Vec<_> = b.iter().map(id).collect();
        // The positions of each key in each list, in list order: every
        // lookup below is a hash probe, never a scan of the other list.
        fn positions<'k, 'v>(
            ids: &'k [Option<KeyText<'v>>],
        ) -> HashMap<&'k KeyText<'v>, Vec<usize>> {
            let mut m: HashMap<&KeyText<'v>, Vec<usize>> = HashMap::default();
            for (i, k) in ids.iter().enumerate() {
                if let Some(k) = k {
                    m.entry(k).or_default().push(i);
                }
            }
            m
        }
        let (a_pos, b_pos) = (positions(&a_ids), positions(&b_ids));
        // A patch list does, for each key, its delete elements first (they
        // remove every element with that key), then its other elements of
        // that key in order (the first merges into the document's element
        // or is appended, cleaned; the others merge into that one). So the
        // two patches' elements of one key are a single sequence of steps,
        // folded into at most a delete and one element (`Group`); a key
        // only one patch names keeps that patch's elements as sent.
        // Merged lists put the patch's elements first, then the others in
        // their old order: p2's keys, then p1's other keys.
        let mut list: Vec<Value<'a>> = Vec::with_capacity(a.len() + b.len());
        for (j, e2) in b.iter().enumerate() {
            let Some(k) = &b_ids[j] else {
                list.push(*e2);
                continue;
            };
            let Some(in_a) = a_pos.get(k) else {
                list.push(*e2);
                continue;
            };
            let in_b = b_pos.get(k).map_or(&[][..], Vec::as_slice);
            if in_b.first().is_some_and(|&first| first < j) {
                // Folded into the group at the key's first element.
                continue;
            }
            let of =
                |l: &'a [Value<'a>], at: &[usize]| at.iter().map(|&i| l[i]).collect::<Vec<_>>();
            let mut g = None;
            for e in steps(&of(a, in_a)).chain(steps(&of(b, in_b))) {
                g = Some(self.step(f, g, e, w, elem)?);
            }
            match g {
                Some(Group::Merge(e) | Group::Delete(e)) => list.push(e),
                Some(Group::DeleteThen(d, e)) => {
                    list.push(d);
                    list.push(e);
                }
                None => {}
            }
        }
        for (i, e1) in a.iter().enumerate() {
            let named = a_ids[i].as_ref().is_some_and(|k| b_pos.contains_key(k));
            if !named {
                list.push(*e1);
            }
        }
        // The order list must name every element the composed list keeps:
        // p2's order (else p1's), then the missing ones.
        let order = match s2.order.or(s1.order) {
            Some(o) => {
                let mut items: Vec<Value<'a>> = o.value.as_array().unwrap_or(&[]).to_vec();
                let mut listed: HashSet<Option<KeyText<'a>>> = items.iter().map(id).collect();
                for e in &list {
                    if directive_of(e).is_some() {
                        continue;
                    }
                    let k = id(e);
                    if k.is_some() && !listed.contains(&k) {
                        if let Some(o) = e.as_object() {
                            let ks: Vec<Member<'a>> = keys
                                .names()
                                .filter_map(|n| o.members().iter().find(|m| m.key == n).copied())
                                .collect();
                            items.push(Value::object_from_members(self.arena, &ks));
                        }
                        listed.insert(k);
                    }
                }
                Some(Member {
                    key: o.key,
                    value: Value::array_from(self.arena, &items),
                })
            }
            None => None,
        };
        if let Some(o) = order.and_then(|o| o.value.as_array()) {
            // First position of each key (or of "no key") in the order list.
            let mut first: HashMap<Option<KeyText<'a>>, usize> = HashMap::default();
            for (i, y) in o.iter().enumerate() {
                first.entry(id(y)).or_insert(i);
            }
            list.sort_by_key(|x| first.get(&id(x)).copied().unwrap_or(usize::MAX));
        }
        let order = self.without_q20(order, list.is_empty());
        Ok(Side {
            val: Some(Value::array_from(self.arena, &list)),
            val_key: Some(f),
            order,
            del: s2.del.or(s1.del),
        })
    }

    /// One step of a keyed list's group of elements with one key: `e` (a
    /// delete element, or an element to merge) after what `g` does.
    fn step(
        &self,
        f: &'a str,
        g: Option<Group<'a>>,
        e: Value<'a>,
        w: Walk<'_, '_>,
        elem: Cursor<'_>,
    ) -> Result<Group<'a>, Error> {
        let cursor = w.cursor();
        if directive_of(&e).is_some() {
            // A delete removes every element with the key, whatever came
            // before.
            return Ok(Group::Delete(e));
        }
        Ok(match g {
            None => Group::Merge(e),
            Some(Group::Merge(m)) => Group::Merge(self.object(m, e, w.step(&ROOT, elem))?),
            // After the delete `e` finds no element with its key: it is
            // appended (cleaned, its directives not executed). The same list
            // does both: its delete elements run first, then `e` finds no
            // match and is appended the same way; inserted where the
            // document lacks the list, the delete is stripped and `e`
            // cleaned alike.
            Some(Group::Delete(d)) => Group::DeleteThen(d, e),
            // `x` was appended, cleaned; `e` merges into that. The element
            // they make, as stored, is appended as it is.
            Some(Group::DeleteThen(d, x)) => {
                let one = |v: Value<'a>| Side {
                    val: Some(Value::array_from(self.arena, &[v])),
                    val_key: Some(f),
                    ..Side::default()
                };
                let empty = Value::array_from(self.arena, &[]);
                let r = self.apply_field(f, Some(empty), &one(x), cursor)?;
                let r = self.apply_field(f, r, &one(e), cursor)?;
                match r.and_then(|r| r.as_array()) {
                    Some([v]) => Group::DeleteThen(d, *v),
                    _ => {
                        return Err(unsupported(format!(
                            "cannot compose: an element of {f:?} re-added after a delete and then changed does not stay one element"
                        )))
                    }
                }
            }
        })
    }

    /// Q20 (without `fix_quirks`): `$setElementOrder/<f>` with an empty
    /// patch list fails wherever the document's list is absent or empty,
    /// although the sequential applies may succeed there (the first patch
    /// filled the list, the second emptied it again). An order list only
    /// orders the surviving elements, so it is dropped when the composed
    /// list is empty: the content stays exact, only the order of elements the
    /// document already had may differ.
    fn without_q20(&self, order: Option<Member<'a>>, empty: bool) -> Option<Member<'a>> {
        order.filter(|_| self.opts.fix_quirks || !empty)
    }

    /// Primitive merge lists: `(L ∪ v1) ∖ d1`, then `∪ v2 ∖ d2`, is
    /// `(L ∪ v) ∖ d` with `v = (v1 ∪ v2) ∖ d2` (an inserted list ignores its
    /// deletion list) and `d = (d1 ∖ v2) ∪ d2`.
    fn primitive(
        &self,
        f: &'a str,
        a: &'a [Value<'a>],
        b: &'a [Value<'a>],
        s1: Side<'a>,
        s2: Side<'a>,
    ) -> Result<Side<'a>, Error> {
        let d1 = s1.del.and_then(|d| d.value.as_array()).unwrap_or(&[]);
        let d2 = s2.del.and_then(|d| d.value.as_array()).unwrap_or(&[]);
        // Membership through hash sets of `Value` (deep equality and its
        // hash), never pairwise scans: lists of any length stay linear.
        let set = |l: &[Value<'a>]| -> HashSet<Value<'a>> { l.iter().copied().collect() };
        let (in_d2, in_b) = (set(d2), set(b));
        let mut v: Vec<Value<'a>> = Vec::new();
        let mut in_v: HashSet<Value<'a>> = HashSet::default();
        // Insertion drops the deletion list: leave out what p2 deletes. p1's
        // own deletions stay in `d` (they hold when p1 merged, not when it
        // inserted the list).
        for x in b.iter().chain(a) {
            if !in_d2.contains(x) && in_v.insert(*x) {
                v.push(*x);
            }
        }
        let mut d: Vec<Value<'a>> = Vec::new();
        let mut in_d: HashSet<Value<'a>> = HashSet::default();
        for x in d1.iter().chain(d2) {
            if (in_d2.contains(x) || !in_b.contains(x)) && in_d.insert(*x) {
                d.push(*x);
            }
        }
        let order = s2.order.or(s1.order).map(|o| {
            let mut items: Vec<Value<'a>> = o.value.as_array().unwrap_or(&[]).to_vec();
            let mut listed = set(&items);
            for x in &v {
                if listed.insert(*x) {
                    items.push(*x);
                }
            }
            Member {
                key: o.key,
                value: Value::array_from(self.arena, &items),
            }
        });
        if let Some(o) = order.and_then(|o| o.value.as_array()) {
            // First position of each value in the order list.
            let mut first: HashMap<Value<'a>, usize> = HashMap::default();
            for (i, y) in o.iter().enumerate() {
                first.entry(*y).or_insert(i);
            }
            v.sort_by_key(|x| first.get(x).copied().unwrap_or(usize::MAX));
        }
        // Each patch's lists hold one kind, but the two patches' may differ
        // (values, deletions, and one patch's order list against the other's
        // values): no single patch holds both.
        let order_items = order.and_then(|o| o.value.as_array()).unwrap_or(&[]);
        one_kind(f, &[&v, &d, order_items], self.opts.fix_quirks)?;
        let del_key = s2.del.or(s1.del).map(|m| m.key);
        let val = (s1.val.is_some() || s2.val.is_some()).then(|| Value::array_from(self.arena, &v));
        let order = self.without_q20(order, val.is_some() && v.is_empty());
        Ok(Side {
            val,
            val_key: Some(f),
            order,
            del: del_key.filter(|_| !d.is_empty()).map(|key| Member {
                key,
                value: Value::array_from(self.arena, &d),
            }),
        })
    }

    pub(super) fn lookup_object<'s>(
        &self,
        cursor: &Cursor<'s>,
        f: &str,
    ) -> Result<Field<'s>, Error> {
        self.lookup(*cursor, f, FieldShape::Object)
    }

    pub(super) fn lookup_list<'s>(&self, cursor: &Cursor<'s>, f: &str) -> Result<Field<'s>, Error> {
        self.lookup(*cursor, f, FieldShape::List)
    }

    fn lookup<'s>(
        &self,
        cursor: Cursor<'s>,
        f: &str,
        shape: FieldShape,
    ) -> Result<Field<'s>, Error> {
        self.opts
            .rules()
            .field(cursor, f, shape)
            .map_err(|e| lookup_error(&Path::Key(&Path::Root, f), &e))
    }
}
