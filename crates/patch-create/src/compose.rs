//! Patch composition: the reference's COMPOSE mode (used by the three-way
//! diff, Q21 pinned) and the public composition that keeps directives (Q32
//! fixed).

use crate::keys::{element_key, KeyText, Tagging};
use crate::shared::{lookup_error, too_deep};
use crate::CreateOptions;
use rustc_hash::{FxHashMap, FxHashSet};
use smpatch_patch_apply::directives::{self, field_name, PatchDirective, RETAIN_KEYS};
use smpatch_patch_apply::{check_composable, ApplyOptions, Error, ErrorKind, KindRule};
use smpatch_schema::{grow_stack, Cursor, Field, FieldShape, KeySpec, ListPlan, Strategy, Walk};
use smpatch_value::{Arena, Member, Object, Path, Value};

/// `merge_object(acc, patch, COMPOSE)` exactly as the reference composes the
/// three-way `deletions` and `delta` maps.
pub(crate) fn compose_reference<'a>(
    arena: &'a Arena,
    acc: Value<'a>,
    patch: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    smpatch_patch_apply::compose_patches(arena, acc, patch, cursor, &apply_options(opts))
}

/// The apply options matching create options.
pub(crate) fn apply_options(opts: &CreateOptions) -> ApplyOptions {
    ApplyOptions::default()
        .with_fix_quirks(opts.fix_quirks)
        .with_compound_keys(opts.compound_keys)
        .with_max_depth(opts.depth_limit())
}

/// The `$patch` directive of `v` (every patch passed [`check_composable`], so a
/// `$patch` value is one of the three).
fn directive_of(v: &Value<'_>) -> Option<PatchDirective> {
    directives::patch_directive(v)
}

/// The public composition (Q32 fixed): one patch `c` with
/// `apply(x, c) == apply(apply(x, p1), p2)`, built field by field.
///
/// Each field is transformed by what each patch holds for it (its value,
/// `$setElementOrder/<f>`, `$deleteFromPrimitiveList/<f>`, and whether the
/// object's `$retainKeys` drops it):
///
/// * `p2` alone, or `p2` setting a value that ignores the old one (a scalar,
///   `null`, an atomic list, a `replace` object, `$patch: replace`): `p2`'s
///   entries;
/// * `p1` alone: `p1`'s entries;
/// * `p1` setting a value that ignores the old one (or dropping the field via
///   `$retainKeys` or `$patch: delete`) and `p2` merging into it: the value
///   both produce, written so that it replaces whatever the document has
///   (objects with `$retainKeys` listing their keys, keyed lists with a
///   `$patch: replace` element);
/// * both merging: objects recurse, keyed lists pair elements by merge key
///   and compose paired elements the same way (a `p2` delete wins, a `p1`
///   delete followed by a `p2` element keeps both: the delete, then the
///   element appended anew), primitive merge lists compose their additions
///   and deletion lists (without `fix_quirks`, an order list over a composed
///   list left empty is dropped, Q20);
/// * `$retainKeys`: the composed list keeps the fields both patches keep,
///   plus the fields `p2` sets.
///
/// A primitive merge list that `p1` sets absolutely (null, or dropped by
/// `$retainKeys`) and `p2` then fills cannot be written as one patch (a
/// merge list cannot be replaced): [`ErrorKind::Unsupported`].
pub(crate) fn compose_public<'a>(
    arena: &'a Arena,
    p1: Value<'a>,
    p2: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    let c = Composer { arena, opts };
    let ao = apply_options(opts);
    check_composable(p1, cursor, &ao)?;
    check_composable(p2, cursor, &ao)?;
    let root = Path::Root;
    c.object(p1, p2, Walk::new(&root, cursor, opts.depth_limit()))
}

/// The kind shared by the scalars of `lists` (apply's check of a merge
/// list, [`smpatch_patch_apply::element_kind`]), for lists the two patches
/// hold for field `f`: each patch's lists passed the check alone, but the two
/// may differ.
fn one_kind(f: &str, lists: &[&[Value<'_>]], fix_quirks: bool) -> Result<(), Error> {
    let rule = KindRule {
        null_anywhere: true,
        numbers_one_kind: fix_quirks,
    };
    smpatch_patch_apply::element_kind(lists, rule).map_err(|e| {
        let message = format!("cannot compose: {}", e.message());
        Error::new(e.kind(), Path::Root.key(f).pointer(), message)
    })?;
    Ok(())
}

/// What one patch does to one field of an object.
#[derive(Clone, Copy, Default)]
struct Side<'a> {
    val: Option<Value<'a>>,
    val_key: Option<&'a str>,
    order: Option<Member<'a>>,
    del: Option<Member<'a>>,
}

impl<'a> Side<'a> {
    fn is_empty(&self) -> bool {
        self.val.is_none() && self.order.is_none() && self.del.is_none()
    }
    fn push(&self, out: &mut Vec<Member<'a>>, key: &'a str) {
        // An order list beside `null` (the field dropped, by `$retainKeys`
        // too) orders nothing, and apply rejects it (`expected_list`).
        if let Some(o) = self
            .order
            .filter(|_| !self.val.is_some_and(|v| v.is_null()))
        {
            out.push(o);
        }
        if let Some(v) = self.val {
            out.push(Member {
                key: self.val_key.unwrap_or(key),
                value: v,
            });
        }
        if let Some(d) = self.del {
            out.push(d);
        }
    }
}

/// The path of every composed position: the composition has no single place
/// in one document, so its errors name the root (or the field, in lookups).
static ROOT: Path<'static> = Path::Root;

struct Composer<'a, 'o> {
    arena: &'a Arena,
    opts: &'o CreateOptions,
}

fn unsupported(what: String) -> Error {
    Error::new(ErrorKind::Unsupported, "", what)
}

impl<'a> Composer<'a, '_> {
    fn object(&self, p1: Value<'a>, p2: Value<'a>, w: Walk<'_, '_>) -> Result<Value<'a>, Error> {
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
        let mut mentioned: FxHashSet<&'a str> = FxHashSet::default();
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
        ) -> FxHashMap<&'k KeyText<'v>, Vec<usize>> {
            let mut m: FxHashMap<&KeyText<'v>, Vec<usize>> = FxHashMap::default();
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
                let mut listed: FxHashSet<Option<KeyText<'a>>> = items.iter().map(id).collect();
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
            let mut first: FxHashMap<Option<KeyText<'a>>, usize> = FxHashMap::default();
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
        let set = |l: &[Value<'a>]| -> FxHashSet<Value<'a>> { l.iter().copied().collect() };
        let (in_d2, in_b) = (set(d2), set(b));
        let mut v: Vec<Value<'a>> = Vec::new();
        let mut in_v: FxHashSet<Value<'a>> = FxHashSet::default();
        // Insertion drops the deletion list: leave out what p2 deletes. p1's
        // own deletions stay in `d` (they hold when p1 merged, not when it
        // inserted the list).
        for x in b.iter().chain(a) {
            if !in_d2.contains(x) && in_v.insert(*x) {
                v.push(*x);
            }
        }
        let mut d: Vec<Value<'a>> = Vec::new();
        let mut in_d: FxHashSet<Value<'a>> = FxHashSet::default();
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
            let mut first: FxHashMap<Value<'a>, usize> = FxHashMap::default();
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

    fn lookup_object<'s>(&self, cursor: &Cursor<'s>, f: &str) -> Result<Field<'s>, Error> {
        self.lookup(*cursor, f, FieldShape::Object)
    }

    fn lookup_list<'s>(&self, cursor: &Cursor<'s>, f: &str) -> Result<Field<'s>, Error> {
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

    /// The value of `f` after applying `s` to `{f: start}`.
    fn apply_field(
        &self,
        f: &'a str,
        start: Option<Value<'a>>,
        s: &Side<'a>,
        cursor: Cursor<'_>,
    ) -> Result<Option<Value<'a>>, Error> {
        let doc: Vec<Member<'a>> = start
            .map(|v| Member { key: f, value: v })
            .into_iter()
            .collect();
        let doc = Value::object_from_members(self.arena, &doc);
        let mut patch = Vec::new();
        s.push(&mut patch, f);
        let patch = Value::object_from_members(self.arena, &patch);
        let r = self.apply_on(doc, patch, cursor)?;
        Ok(r.get(f))
    }

    fn apply_obj(&self, p: Value<'a>, cursor: Cursor<'_>) -> Result<Value<'a>, Error> {
        self.apply_on(Value::empty_object(), p, cursor)
    }

    fn apply_on(
        &self,
        doc: Value<'a>,
        p: Value<'a>,
        cursor: Cursor<'_>,
    ) -> Result<Value<'a>, Error> {
        smpatch_patch_apply::apply(self.arena, doc, p, cursor, &apply_options(self.opts))
    }

    /// A patch value setting field `f` to `v` (absent: null) whatever it was.
    fn encode(
        &self,
        f: &'a str,
        v: Option<Value<'a>>,
        w: Walk<'_, '_>,
    ) -> Result<Value<'a>, Error> {
        let cursor = w.cursor();
        match v {
            None => Ok(Value::Null),
            Some(Value::Object(_)) => {
                let field = self.lookup_object(&cursor, f)?;
                if field.meta.strategy == Strategy::Replace {
                    return Ok(v.unwrap_or(Value::Null));
                }
                self.encode_object(v.unwrap_or(Value::Null), w.step(&ROOT, field.cursor))
            }
            Some(Value::Array(items)) => {
                let field = self.lookup_list(&cursor, f)?;
                match self.opts.rules().list_plan(field.meta) {
                    ListPlan::Atomic => Ok(Value::Array(items)),
                    ListPlan::Merge(keys)
                        if !matches!(keys, KeySpec::Value) && items.iter().all(Value::is_object) =>
                    {
                        let mut l = items.to_vec();
                        let marker = PatchDirective::Replace.member();
                        l.push(Value::object_from_members(self.arena, &[marker]));
                        Ok(Value::array_from(self.arena, &l))
                    }
                    ListPlan::Merge(_) => Err(unsupported(format!(
                        "cannot compose: the first patch sets the primitive merge list {f:?} (to null or by $retainKeys) and the second adds to it; no single patch replaces a merge list of scalars"
                    ))),
                }
            }
            Some(v) => Ok(v),
        }
    }

    /// An object patch turning any object into `v`: `$retainKeys` lists its
    /// keys, and every value is written absolutely.
    fn encode_object(&self, v: Value<'a>, w: Walk<'_, '_>) -> Result<Value<'a>, Error> {
        w.check().map_err(too_deep)?;
        let Value::Object(o) = v else { return Ok(v) };
        let keys: Vec<Value<'a>> = o.members().iter().map(|m| Value::String(m.key)).collect();
        let mut out = vec![Member {
            key: RETAIN_KEYS,
            value: Value::array_from(self.arena, &keys),
        }];
        for m in o.members() {
            let value = self.encode(m.key, Some(m.value), w)?;
            out.push(Member { key: m.key, value });
        }
        Ok(Value::object_from_members(self.arena, &out))
    }
}

fn retain_list<'a>(o: Object<'a>) -> Option<&'a [Value<'a>]> {
    o.get(RETAIN_KEYS).and_then(|v| v.as_array())
}

/// The field names of a `$retainKeys` list, as a set.
struct Names<'a>(FxHashSet<&'a str>);

impl<'a> Names<'a> {
    fn of(list: &'a [Value<'a>]) -> Self {
        Names(list.iter().filter_map(|v| v.as_str()).collect())
    }

    fn contains(&self, f: &str) -> bool {
        self.0.contains(f)
    }
}

/// What object `o` does to each field it mentions (its value, order list
/// and deletion list), in one pass over its members.
fn sides<'a>(o: Object<'a>) -> FxHashMap<&'a str, Side<'a>> {
    let mut out: FxHashMap<&'a str, Side<'a>> = FxHashMap::default();
    for m in o.members() {
        if let Some(f) = directives::ordered_field(m.key) {
            out.entry(f).or_default().order = Some(*m);
        } else if let Some(f) = directives::deleted_field(m.key) {
            out.entry(f).or_default().del = Some(*m);
        } else {
            let s = out.entry(m.key).or_default();
            s.val = Some(m.value);
            s.val_key = Some(m.key);
        }
    }
    out
}

/// What an object (what it mentions of `f`: `s`, from [`sides`]; with
/// retain list `r`) does to field `f`.
fn side<'a>(mut s: Side<'a>, f: &'a str, r: Option<&Names<'_>>) -> Side<'a> {
    if r.is_some_and(|r| !r.contains(f)) && s.val.is_none() {
        // Dropped by `$retainKeys`.
        s.val = Some(Value::Null);
        s.val_key = Some(f);
    }
    s
}

/// What a patch list does to the elements with one key, folded: merge one
/// element, delete them all, or delete them all and append one.
enum Group<'a> {
    Merge(Value<'a>),
    Delete(Value<'a>),
    DeleteThen(Value<'a>, Value<'a>),
}

/// The elements of one key of a patch list in the order the list acts:
/// its delete elements first, then the others in list order.
fn steps<'a>(group: &[Value<'a>]) -> impl Iterator<Item = Value<'a>> {
    let (del, rest): (Vec<Value<'a>>, Vec<Value<'a>>) =
        group.iter().partition(|e| directive_of(e).is_some());
    del.into_iter().chain(rest)
}
