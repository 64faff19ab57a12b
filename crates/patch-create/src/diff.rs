//! `diff_objects` and `diff_lists`: the reference's `diffMaps` and
//! `diffLists` (with `$retainKeys`).
//!
//! Architecture Invariant: the diff never mutates its inputs; the reference's
//! in-place sort of the original primitive list (Q1) is reproduced by
//! comparing against a sorted copy.

use crate::gosort::go_sort;
use crate::keys::{
    element_key, pair_by_key_sort, pair_unique_keys, pairs_by_sort, value_text, KeyText, SortItems,
    Tagging, UniquePairing, UNPAIRED,
};
use crate::shared::{
    element_kind, go_dedup, key_member, lookup_error, missing_key, too_deep, Index,
};
use smpatch_patch_apply::directives::{self, PatchDirective, PATCH};
use smpatch_patch_apply::{Error, ErrorKind};
use smpatch_schema::{grow_stack, FieldShape, KeySpec, ListPlan, PatchMeta, Rules, Strategy, Walk};
use smpatch_value::hashing::{HashMap, HashSet};
use smpatch_value::{render, Arena, Kind, Member, Object, Path, Value};
use std::borrow::Cow;
use std::cell::RefCell;

/// Flags of one `diff_objects` run (the reference's `DiffOptions`; `build_retain_keys` is passed
/// separately because it is decided per object).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DiffFlags {
    /// Emit `$setElementOrder/<f>`.
    pub(crate) set_element_order: bool,
    /// Emit only deletions.
    pub(crate) ignore_changes_and_additions: bool,
    /// Emit only additions and changes.
    pub(crate) ignore_deletions: bool,
}

/// Whether `diff_objects` builds a `$retainKeys` list: the
/// field's `x-kubernetes-retain-keys`; never at a document root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RetainKeys {
    /// List the fields the modified object keeps.
    Build,
    /// No list.
    Skip,
}

impl RetainKeys {
    /// The choice of a field's metadata.
    pub(crate) fn of(meta: &PatchMeta) -> Self {
        if meta.retain_keys {
            RetainKeys::Build
        } else {
            RetainKeys::Skip
        }
    }
}

/// The three outputs of `diff_lists`.
#[derive(Clone, Copy, Default)]
pub(crate) struct ListDiff<'a> {
    pub(crate) add: Option<Value<'a>>,
    pub(crate) del: Option<Value<'a>>,
    pub(crate) order: Option<Value<'a>>,
}

/// The diff engine: the arena and the quirk switches.
pub(crate) struct Differ<'a> {
    pub(crate) arena: &'a Arena,
    /// The quirk and compound-key settings of list plans and lookups.
    pub(crate) rules: Rules,
    pub(crate) max_depth: usize,
    /// Reused member buffers (one per nesting level in use), so building an
    /// object costs no heap allocation once the pool is warm.
    pub(crate) scratch: RefCell<Vec<Vec<Member<'a>>>>,
}

/// Equality of two values (`Value::deep_eq`), without its heap-allocated
/// work stack when both are scalars.
pub(crate) fn same_value(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => x.same_value(y),
        (Value::Array(_), Value::Array(_)) | (Value::Object(_), Value::Object(_)) => a.deep_eq(b),
        _ => false,
    }
}

/// True when a list entry of a patch is a `$patch: delete` element.
fn is_delete(v: &Value<'_>) -> bool {
    directives::is_delete(v)
}

impl<'a> Differ<'a> {
    fn alloc_object(&self, members: &[Member<'a>]) -> Object<'a> {
        Object::from_members(self.arena.alloc_slice_copy(members))
    }

    /// An empty member buffer from the pool.
    pub(crate) fn take_scratch(&self) -> Vec<Member<'a>> {
        self.scratch.borrow_mut().pop().unwrap_or_default()
    }

    /// The members as an arena object; the buffer goes back to the pool.
    pub(crate) fn finish_object(&self, mut members: Vec<Member<'a>>) -> Object<'a> {
        let o = self.alloc_object(&members);
        members.clear();
        self.scratch.borrow_mut().push(members);
        o
    }

    /// The walk context of a document root (depth 1).
    pub(crate) fn root<'p, 's>(
        &self,
        root: &'p Path<'p>,
        cursor: smpatch_schema::Cursor<'s>,
    ) -> Walk<'p, 's> {
        Walk::new(root, cursor, self.max_depth)
    }

    /// `diff_objects(a, b)` (the reference's `diffMaps`) at `w` (the objects' path and
    /// schema). `build_retain_keys` is the field's `x-kubernetes-retain-keys`
    /// (KEP-1027's `$retainKeys`).
    pub(crate) fn diff_objects(
        &self,
        a: Object<'a>,
        b: Object<'a>,
        w: Walk<'_, '_>,
        flags: DiffFlags,
        build_retain_keys: RetainKeys,
    ) -> Result<Object<'a>, Error> {
        w.check().map_err(too_deep)?;
        grow_stack(|| self.diff_objects_inner(a, b, w, flags, build_retain_keys))
    }

    fn diff_objects_inner(
        &self,
        a: Object<'a>,
        b: Object<'a>,
        w: Walk<'_, '_>,
        flags: DiffFlags,
        build_retain_keys: RetainKeys,
    ) -> Result<Object<'a>, Error> {
        let patch = self.diff_object_members(a, b, w, flags, build_retain_keys)?;
        Ok(self.finish_object(patch))
    }

    /// `diff_objects(a, b)` for an element of a keyed list with one merge
    /// key: the patch with its `key` members replaced by `key_member` (as
    /// [`Differ::with_key_member`] makes it), built in one allocation;
    /// `None` when the patch is empty.
    fn diff_element(
        &self,
        a: Object<'a>,
        b: Object<'a>,
        w: Walk<'_, '_>,
        flags: DiffFlags,
        build_retain_keys: RetainKeys,
        key_member: Member<'a>,
    ) -> Result<Option<Value<'a>>, Error> {
        w.check().map_err(too_deep)?;
        grow_stack(|| {
            let mut patch = self.diff_object_members(a, b, w, flags, build_retain_keys)?;
            if patch.is_empty() {
                self.scratch.borrow_mut().push(patch);
                return Ok(None);
            }
            patch.retain(|m| m.key != key_member.key);
            patch.push(key_member);
            Ok(Some(Value::Object(self.finish_object(patch))))
        })
    }

    /// The members of `diff_objects(a, b)`'s patch, in a buffer of the pool.
    fn diff_object_members(
        &self,
        a: Object<'a>,
        b: Object<'a>,
        w: Walk<'_, '_>,
        flags: DiffFlags,
        build_retain_keys: RetainKeys,
    ) -> Result<Vec<Member<'a>>, Error> {
        let a_index = Index::new(a);
        let mut patch = self.take_scratch();
        let mut retain: Vec<&'a str> = Vec::new();
        for m in b.members() {
            let (k, bv) = (m.key, m.value);
            if build_retain_keys == RetainKeys::Build && !bv.is_null() {
                retain.push(k);
            }
            self.diff_member(a_index.get(k), k, bv, w, flags, &mut patch)?;
        }
        let b_index = Index::new(b);
        self.finish_diff_members(a, &b_index, &mut patch, retain, flags);
        Ok(patch)
    }

    /// The end of `diff_objects` once `b`'s members are done: the deletions
    /// of `a`'s members `b` lacks, then `$retainKeys` (`retain` lists `b`'s
    /// non-null keys when the field builds one).
    #[inline(always)]
    pub(crate) fn finish_diff(
        &self,
        a: Object<'a>,
        b_index: &Index<'a>,
        mut patch: Vec<Member<'a>>,
        retain: Vec<&'a str>,
        flags: DiffFlags,
    ) -> Object<'a> {
        self.finish_diff_members(a, b_index, &mut patch, retain, flags);
        self.finish_object(patch)
    }

    /// [`Differ::finish_diff`] up to the members (not yet an object).
    #[inline(always)]
    fn finish_diff_members(
        &self,
        a: Object<'a>,
        b_index: &Index<'a>,
        patch: &mut Vec<Member<'a>>,
        mut retain: Vec<&'a str>,
        flags: DiffFlags,
    ) {
        if !flags.ignore_deletions {
            for m in a.members() {
                if !b_index.contains(m.key) {
                    patch.push(Member {
                        key: m.key,
                        value: Value::Null,
                    });
                }
            }
        }
        // §4.5 (with Q28: null-valued keys count neither in the list nor as
        // "original has extra keys").
        if !retain.is_empty()
            && (!patch.is_empty()
                || a.members()
                    .iter()
                    .any(|m| !m.value.is_null() && !b_index.contains(m.key)))
        {
            retain.sort_unstable();
            let list: Vec<Value<'a>> = retain.into_iter().map(Value::String).collect();
            crate::shared::set_retain_keys(self.arena, patch, &list);
        }
    }

    /// One member `k: bv` of the new object against the old object's value
    /// `av` (the body of `diff_objects`' loop): pushes what the patch holds
    /// for it.
    #[inline(always)]
    pub(crate) fn diff_member(
        &self,
        av: Option<Value<'a>>,
        k: &'a str,
        bv: Value<'a>,
        w: Walk<'_, '_>,
        flags: DiffFlags,
        patch: &mut Vec<Member<'a>>,
    ) -> Result<(), Error> {
        let (cur, path) = (w.cursor(), w.path());
        let ica = flags.ignore_changes_and_additions;
        let Some(av) = av else {
            if !ica {
                patch.push(Member { key: k, value: bv });
            }
            return Ok(());
        };
        let here = Path::Key(path, k);
        if k == PATCH {
            match (av, bv) {
                (Value::String(x), Value::String(y)) => {
                    if x != y {
                        patch.push(Member { key: k, value: bv });
                    }
                }
                _ => {
                    return Err(Error::new(
                        ErrorKind::UnknownPatchType,
                        here.pointer(),
                        "invalid value for special key: $patch (expected a string on both sides)",
                    ))
                }
            }
            return Ok(());
        }
        if av.kind() != bv.kind() {
            if !ica {
                patch.push(Member { key: k, value: bv });
            }
            return Ok(());
        }
        match (av, bv) {
            (Value::Object(ao), Value::Object(bo)) => {
                let field = match self.rules.field(cur, k, FieldShape::Object) {
                    Ok(f) => f,
                    Err(e) => {
                        if av.deep_eq(&bv) {
                            return Ok(());
                        }
                        return Err(lookup_error(&here, &e));
                    }
                };
                if field.meta.strategy == Strategy::Replace {
                    // Q17: the reference emits replace objects even unchanged.
                    let unchanged_fixed = self.rules.fix_quirks && av.deep_eq(&bv);
                    if !ica && !unchanged_fixed {
                        patch.push(Member { key: k, value: bv });
                    }
                } else {
                    let sub = self.diff_objects(
                        ao,
                        bo,
                        w.step(&here, field.cursor),
                        flags,
                        RetainKeys::of(field.meta),
                    )?;
                    if !sub.is_empty() {
                        patch.push(Member {
                            key: k,
                            value: Value::Object(sub),
                        });
                    }
                }
            }
            (Value::Array(al), Value::Array(bl)) => {
                let field = match self.rules.field(cur, k, FieldShape::List) {
                    Ok(f) => f,
                    Err(e) => {
                        if av.deep_eq(&bv) {
                            return Ok(());
                        }
                        return Err(lookup_error(&here, &e));
                    }
                };
                match self.rules.list_plan(field.meta) {
                    ListPlan::Atomic => {
                        if !ica && !av.deep_eq(&bv) {
                            patch.push(Member { key: k, value: bv });
                        }
                    }
                    ListPlan::Merge(keys) => {
                        let d = self.diff_lists(
                            al,
                            bl,
                            w.step(&here, field.cursor),
                            keys,
                            flags,
                            RetainKeys::of(field.meta),
                        )?;
                        self.push_list_diff(patch, k, d);
                    }
                }
            }
            _ => {
                if !ica && !same_value(&av, &bv) {
                    patch.push(Member { key: k, value: bv });
                }
            }
        }
        Ok(())
    }

    /// The members a merge list's diff adds to its object's patch.
    #[inline]
    pub(crate) fn push_list_diff(&self, patch: &mut Vec<Member<'a>>, k: &'a str, d: ListDiff<'a>) {
        if let Some(add) = d.add {
            patch.push(Member { key: k, value: add });
        }
        if let Some(del) = d.del {
            let key = directives::delete_from_primitive_list_key(self.arena, k);
            patch.push(Member { key, value: del });
        }
        if let Some(order) = d.order {
            let key = directives::set_element_order_key(self.arena, k);
            patch.push(Member { key, value: order });
        }
    }

    /// `diff_lists(o, m)` (the reference's `diffLists`) for a merge list at `w` (the list's
    /// path, its ELEMENT schema).
    pub(crate) fn diff_lists(
        &self,
        o: &'a [Value<'a>],
        m: &'a [Value<'a>],
        w: Walk<'_, '_>,
        keys: KeySpec<'_>,
        flags: DiffFlags,
        retain: RetainKeys,
    ) -> Result<ListDiff<'a>, Error> {
        let path = w.path();
        if o.is_empty() {
            if m.is_empty() || flags.ignore_changes_and_additions {
                return Ok(ListDiff::default());
            }
            return Ok(ListDiff {
                add: Some(Value::Array(m)),
                ..ListDiff::default()
            });
        }
        // The common keyed case first: it reads every element of both lists
        // and answers only when all are objects, when `element_kind` (a
        // pass of its own over both lists) would say so without an error.
        if let (KeySpec::Single(key), Some(Value::Object(_))) = (keys, o.first()) {
            if let Some(d) = self.diff_keyed_unique(o, m, w, key, flags, retain) {
                return d;
            }
        }
        match element_kind(o, m, path)? {
            Some(Kind::Object) => self.diff_keyed(o, m, w, keys, flags, retain),
            _ => self.diff_primitive(o, m, flags, path),
        }
    }

    /// The key text of every element (all must be objects with the keys).
    fn key_texts(
        &self,
        list: &'a [Value<'a>],
        keys: KeySpec<'_>,
        tagging: Tagging,
        path: &Path<'_>,
    ) -> Result<Vec<KeyText<'a>>, Error> {
        let mut out = Vec::with_capacity(list.len());
        for (i, e) in list.iter().enumerate() {
            let here = Path::Index(path, i);
            let Some(obj) = e.as_object() else {
                return Err(Error::new(
                    ErrorKind::ExpectedObject,
                    here.pointer(),
                    format!(
                        "expected a map[string]interface {{}}, but received a {}",
                        e.kind().name()
                    ),
                ));
            };
            match element_key(&obj, keys, tagging) {
                Ok(t) => out.push(t),
                Err(k) => return Err(missing_key(&here, e, k)),
            }
        }
        Ok(out)
    }

    /// A fresh object `{k: elem[k] for each key}` (plus `$patch: <directive>`).
    pub(crate) fn key_object(
        &self,
        elem: Object<'a>,
        keys: KeySpec<'_>,
        directive: Option<PatchDirective>,
    ) -> Value<'a> {
        let mut members = self.take_scratch();
        for k in keys.names() {
            // The element's own (arena) key string, last occurrence wins.
            if let Some(mem) = elem.members().iter().rev().find(|m| m.key == k) {
                members.push(*mem);
            }
        }
        if let Some(d) = directive {
            members.push(d.member());
        }
        Value::Object(self.finish_object(members))
    }

    /// Keyed lists (the reference's `diffListsOfMaps`), when
    /// [`Differ::diff_keyed_unique`] does not apply.
    fn diff_keyed(
        &self,
        o: &'a [Value<'a>],
        m: &'a [Value<'a>],
        w: Walk<'_, '_>,
        keys: KeySpec<'_>,
        flags: DiffFlags,
        retain: RetainKeys,
    ) -> Result<ListDiff<'a>, Error> {
        let path = w.path();
        let ica = flags.ignore_changes_and_additions;
        // Strict identities (kind-tagged) for ordering and same-order checks.
        let o_ids = self.key_texts(o, keys, Tagging::ByKind, path)?;
        let m_ids = self.key_texts(m, keys, Tagging::ByKind, path)?;
        // Pairing texts: renderings (Q5) unless quirks are fixed.
        let (o_sort, m_sort) = if self.rules.fix_quirks {
            (o_ids.clone(), m_ids.clone())
        } else {
            (
                self.key_texts(o, keys, Tagging::Plain, path)?,
                self.key_texts(m, keys, Tagging::Plain, path)?,
            )
        };
        // Both lists in key order. Which of several equal keys pairs with
        // which follows the reference's `sort.Sort` by default (Q4); with
        // `fix_quirks` the sort is stable (first duplicates pair first).
        let mut o_order: Vec<usize> = (0..o.len()).collect();
        let mut m_order: Vec<usize> = (0..m.len()).collect();
        if self.rules.fix_quirks {
            o_order.sort_by(|&x, &y| o_sort[x].cmp(&o_sort[y]));
            m_order.sort_by(|&x, &y| m_sort[x].cmp(&m_sort[y]));
        } else {
            go_sort(&mut o_order, |&x, &y| o_sort[x] <= o_sort[y]);
            go_sort(&mut m_order, |&x, &y| m_sort[x] <= m_sort[y]);
        }
        let mut first_in_m: HashMap<&KeyText<'a>, usize> = HashMap::default();
        for (i, id) in m_ids.iter().enumerate() {
            first_in_m.entry(id).or_insert(i);
        }

        // The walk (§4.4.1 step 2). Like the reference, changes and generated
        // deletions go into one list in walk order; step 3 then moves every
        // delete element to the end.
        let mut walk: Vec<(Value<'a>, usize)> = Vec::new();
        let (mut i, mut j) = (0, 0);
        loop {
            let o_in = i < o_order.len();
            let m_in = j < m_order.len();
            if !o_in && !m_in {
                break;
            }
            let cmp = if o_in && m_in {
                Some(o_sort[o_order[i]].cmp(&m_sort[m_order[j]]))
            } else {
                None
            };
            match cmp {
                Some(std::cmp::Ordering::Equal) => {
                    let (oi, mi) = (o_order[i], m_order[j]);
                    // Both are objects: `key_texts` checked every element.
                    let oe = o[oi].as_object().unwrap_or_default();
                    let me = m[mi].as_object().unwrap_or_default();
                    let here = Path::Index(path, mi);
                    let sub =
                        self.diff_objects(oe, me, w.step(&here, w.cursor()), flags, retain)?;
                    if !sub.is_empty() {
                        let sub = self.with_keys(sub, me, keys);
                        let pos = first_in_m.get(&m_ids[mi]).copied().unwrap_or(mi);
                        walk.push((sub, pos));
                    }
                    i += 1;
                    j += 1;
                }
                None if !o_in => {
                    self.push_addition(&mut walk, m, &m_ids, &first_in_m, m_order[j], ica);
                    j += 1;
                }
                Some(std::cmp::Ordering::Greater) => {
                    self.push_addition(&mut walk, m, &m_ids, &first_in_m, m_order[j], ica);
                    j += 1;
                }
                _ => {
                    if !flags.ignore_deletions {
                        if let Some(oe) = o[o_order[i]].as_object() {
                            walk.push((
                                self.key_object(oe, keys, Some(PatchDirective::Delete)),
                                usize::MAX,
                            ));
                        }
                    }
                    i += 1;
                }
            }
        }

        // §4.4.1 step 3: order by position in m, delete elements last.
        let (mut keep, deletes): (Vec<_>, Vec<_>) =
            walk.into_iter().partition(|(v, _)| !is_delete(v));
        keep.sort_by_key(|&(_, pos)| pos);
        let add: Vec<Value<'a>> = keep.into_iter().chain(deletes).map(|(v, _)| v).collect();

        let same_order = o.len() == m.len() && o_ids.iter().zip(&m_ids).all(|(x, y)| x == y);
        let emit_order = flags.set_element_order
            && ((!ica && (!add.is_empty() || !same_order))
                || (!flags.ignore_deletions && !add.is_empty()));
        let order = if emit_order && !m.is_empty() {
            let items: Vec<Value<'a>> = m
                .iter()
                .filter_map(|e| e.as_object().map(|obj| self.key_object(obj, keys, None)))
                .collect();
            Some(Value::Array(self.arena.alloc_slice_copy(&items)))
        } else {
            None
        };
        Ok(ListDiff {
            add: (!add.is_empty()).then(|| Value::Array(self.arena.alloc_slice_copy(&add))),
            del: None,
            order,
        })
    }

    /// Keyed lists for the common case: one merge key, a string in every element,
    /// no key twice in a list. `None` (decided before any element is diffed)
    /// when the lists are outside that case: the general path then answers.
    /// Long lists are paired by key hash (`keys::pair_unique_keys`); a pair
    /// whose keys differ (a hash collision, found when the loop reaches it)
    /// sends the lists to `keys::pair_by_key_sort` and the loop starts again,
    /// leaving the element patches made so far unused in the arena.
    ///
    /// With unique keys the general walk pairs equal keys whatever the sort
    /// order of equal elements, so no sort is needed: changes and additions
    /// come out in `m` order (their positions are distinct), `$patch: delete`
    /// entries in key order (the walk's order), as the general path has them.
    /// A failing element diff gives the error of the first failing pair in
    /// key order, as the walk does.
    fn diff_keyed_unique(
        &self,
        o: &'a [Value<'a>],
        m: &'a [Value<'a>],
        w: Walk<'_, '_>,
        key: &str,
        flags: DiffFlags,
        retain: RetainKeys,
    ) -> Option<Result<ListDiff<'a>, Error>> {
        let ica = flags.ignore_changes_and_additions;
        // The element's key member (the last of that name, as `Object::get`
        // reads it) and its key string.
        let str_key = |v: &Value<'a>| -> Option<(&'a Member<'a>, &'a str)> {
            let mem = key_member(&v.as_object()?, key)?;
            Some((mem, mem.value.as_str()?))
        };
        // Long lists' sort items are made while each key is at hand.
        let sorting = pairs_by_sort(o.len(), m.len());
        let mut o_keys: Vec<&'a str> = Vec::with_capacity(o.len());
        let mut o_items = sorting.then(|| SortItems::with_capacity(o.len()));
        for e in o {
            let k = str_key(e)?.1;
            o_keys.push(k);
            if let Some(s) = &mut o_items {
                s.push(k);
            }
        }
        // Per element of m: its key member (a reference: the
        // `$setElementOrder` list points at it) and its key.
        let mut m_mems: Vec<&'a Member<'a>> = Vec::with_capacity(m.len());
        let mut m_keys: Vec<&'a str> = Vec::with_capacity(m.len());
        let mut m_items = sorting.then(|| SortItems::with_capacity(m.len()));
        for e in m {
            let (mem, k) = str_key(e)?;
            m_mems.push(mem);
            m_keys.push(k);
            if let Some(s) = &mut m_items {
                s.push(k);
            }
        }
        let mut pairing = pair_unique_keys(&o_keys, &m_keys, o_items.zip(m_items))?;
        let add = loop {
            match self.diff_unique_pairs(
                o, m, w, key, flags, retain, &o_keys, &m_keys, &m_mems, &pairing,
            ) {
                Some(Ok(add)) => break add,
                Some(Err(e)) => return Some(Err(e)),
                // Equal hashes, different keys: pair by the keys themselves.
                None => pairing = pair_by_key_sort(&o_keys, &m_keys)?,
            }
        };
        let n_add = add.len();

        // Every pair's keys are equal now (a finished loop checked each), so
        // the lists are in the same order when each element pairs with the
        // one at its own position: no key text is read again.
        let same_order = o.len() == m.len()
            && (pairing.pair.iter().enumerate()).all(|(i, &oi)| oi as usize == i);
        let emit_order = flags.set_element_order
            && ((!ica && (n_add != 0 || !same_order)) || (!flags.ignore_deletions && n_add != 0));
        let order = if emit_order && !m.is_empty() {
            // One object `{key: value}` per element: its key member itself.
            Some(crate::shared::order_list_of_members(
                self.arena,
                m_mems.iter().copied(),
            ))
        } else {
            None
        };
        Some(Ok(ListDiff {
            add: (!add.is_empty()).then(|| Value::Array(self.arena.alloc_slice_copy(&add))),
            del: None,
            order,
        }))
    }

    /// The loop of [`Differ::diff_keyed_unique`] over its paired lists: the
    /// patch's list (changes and additions in `m` order, then `$patch:
    /// delete` entries in key order). `None` when `pairing` is unverified
    /// and a pair's keys differ.
    #[allow(clippy::too_many_arguments)]
    fn diff_unique_pairs(
        &self,
        o: &'a [Value<'a>],
        m: &'a [Value<'a>],
        w: Walk<'_, '_>,
        key: &str,
        flags: DiffFlags,
        retain: RetainKeys,
        o_keys: &[&'a str],
        m_keys: &[&'a str],
        m_mems: &[&'a Member<'a>],
        pairing: &UniquePairing,
    ) -> Option<Result<Vec<Value<'a>>, Error>> {
        let path = w.path();
        let ica = flags.ignore_changes_and_additions;
        let mut keep: Vec<Value<'a>> = Vec::with_capacity(m.len());
        let mut deletes: Vec<(&'a str, Value<'a>)> = Vec::new();
        // The error of the failing pair with the smallest key, if any.
        let mut failed: Option<(&'a str, Error)> = None;
        for (mi, (&k, &oi)) in m_keys.iter().zip(&pairing.pair).enumerate() {
            if let Some((fk, _)) = &failed {
                if oi == UNPAIRED || k >= *fk {
                    continue;
                }
            }
            if oi == UNPAIRED {
                if !ica {
                    if is_delete(&m[mi]) {
                        deletes.push((k, m[mi]));
                    } else {
                        keep.push(m[mi]);
                    }
                }
                continue;
            }
            if !pairing.verified && o_keys[oi as usize] != k {
                return None;
            }
            let oe = o[oi as usize].as_object().unwrap_or_default();
            let me = m[mi].as_object().unwrap_or_default();
            let here = Path::Index(path, mi);
            let ww = w.step(&here, w.cursor());
            match self.diff_element(oe, me, ww, flags, retain, *m_mems[mi]) {
                Ok(Some(sub)) => {
                    if is_delete(&sub) {
                        deletes.push((k, sub));
                    } else {
                        keep.push(sub);
                    }
                }
                Ok(None) => {}
                Err(e) => failed = Some((k, e)),
            }
        }
        if let Some((_, e)) = failed {
            return Some(Err(e));
        }
        if !flags.ignore_deletions {
            for (oi, &was_matched) in pairing.matched.iter().enumerate() {
                if !was_matched {
                    if let Some(oe) = o[oi].as_object() {
                        deletes.push((
                            o_keys[oi],
                            self.key_object(oe, KeySpec::Single(key), Some(PatchDirective::Delete)),
                        ));
                    }
                }
            }
        }
        deletes.sort_unstable_by(|x, y| x.0.cmp(y.0));
        keep.extend(deletes.into_iter().map(|(_, v)| v));
        Some(Ok(keep))
    }

    fn push_addition(
        &self,
        walk: &mut Vec<(Value<'a>, usize)>,
        m: &'a [Value<'a>],
        m_ids: &[KeyText<'a>],
        first_in_m: &HashMap<&KeyText<'a>, usize>,
        mi: usize,
        ica: bool,
    ) {
        if !ica {
            let pos = first_in_m.get(&m_ids[mi]).copied().unwrap_or(mi);
            walk.push((m[mi], pos));
        }
    }

    /// `sub` with the key members of `me` set (replacing any already there).
    fn with_keys(&self, sub: Object<'a>, me: Object<'a>, keys: KeySpec<'_>) -> Value<'a> {
        let mut members = self.take_scratch();
        members.extend(
            sub.members()
                .iter()
                .filter(|mem| !keys.names().any(|k| k == mem.key)),
        );
        for k in keys.names() {
            // The element's own (arena) key string, last occurrence wins.
            if let Some(mem) = me.members().iter().rev().find(|m| m.key == k) {
                members.push(*mem);
            }
        }
        Value::Object(self.finish_object(members))
    }

    /// `sub` with its `key` members replaced by `key_member` (one key).
    pub(crate) fn with_key_member(&self, sub: Object<'a>, key_member: Member<'a>) -> Value<'a> {
        let mut members = self.take_scratch();
        members.extend(sub.members().iter().filter(|m| m.key != key_member.key));
        members.push(key_member);
        Value::Object(self.finish_object(members))
    }

    /// Primitive lists (the reference's `diffListsOfScalars`).
    fn diff_primitive(
        &self,
        o: &'a [Value<'a>],
        m: &'a [Value<'a>],
        flags: DiffFlags,
        _path: &Path<'_>,
    ) -> Result<ListDiff<'a>, Error> {
        let ica = flags.ignore_changes_and_additions;
        let texts = |l: &'a [Value<'a>]| -> Vec<(Cow<'a, str>, usize)> {
            let mut t: Vec<(Cow<'a, str>, usize)> =
                l.iter().enumerate().map(|(i, v)| (render(v), i)).collect();
            // Equal renderings (`1`, `1.0`, `"1"`) keep the reference's order.
            if self.rules.fix_quirks {
                t.sort_by(|x, y| x.0.cmp(&y.0));
            } else {
                go_sort(&mut t, |x, y| x.0 <= y.0);
            }
            t
        };
        let os = texts(o);
        let ms = texts(m);
        let mut add: Vec<(Value<'a>, usize)> = Vec::new();
        let mut del: Vec<Value<'a>> = Vec::new();
        let (mut i, mut j) = (0, 0);
        loop {
            let o_in = i < os.len();
            let m_in = j < ms.len();
            if !o_in && !m_in {
                break;
            }
            let cmp = if o_in && m_in {
                Some(os[i].0.cmp(&ms[j].0))
            } else {
                None
            };
            match cmp {
                Some(std::cmp::Ordering::Equal) => {
                    i += 1;
                    j += 1;
                }
                Some(std::cmp::Ordering::Greater) => {
                    if !ica {
                        add.push((m[ms[j].1], ms[j].1));
                    }
                    j += 1;
                }
                None if !o_in => {
                    if !ica {
                        add.push((m[ms[j].1], ms[j].1));
                    }
                    j += 1;
                }
                _ => {
                    if !flags.ignore_deletions {
                        del.push(o[os[i].1]);
                    }
                    i += 1;
                }
            }
        }
        // `add` ordered by the first position of the value in m.
        if !add.is_empty() {
            let mut first: HashMap<KeyText<'a>, usize> = HashMap::default();
            for (idx, v) in m.iter().enumerate() {
                first
                    .entry(vec![value_text(v, Tagging::ByKind)])
                    .or_insert(idx);
            }
            for entry in add.iter_mut() {
                if let Some(p) = first.get(&vec![value_text(&entry.0, Tagging::ByKind)]) {
                    entry.1 = *p;
                }
            }
            add.sort_by_key(|&(_, p)| p);
        }
        let del = self.dedup_deletions(del);
        // Q1: the reference compares the original *after* sorting it in place.
        let differs = if self.rules.fix_quirks {
            !(o.len() == m.len() && o.iter().zip(m).all(|(x, y)| x.deep_eq(y)))
        } else {
            !(os.len() == m.len() && os.iter().zip(m).all(|(x, y)| o[x.1].deep_eq(y)))
        };
        let emit_order = flags.set_element_order
            && ((!flags.ignore_deletions && !del.is_empty()) || (!ica && differs));
        let add: Vec<Value<'a>> = add.into_iter().map(|(v, _)| v).collect();
        Ok(ListDiff {
            add: (!add.is_empty()).then(|| Value::Array(self.arena.alloc_slice_copy(&add))),
            del: (!del.is_empty()).then(|| Value::Array(self.arena.alloc_slice_copy(&del))),
            order: (emit_order && !m.is_empty()).then_some(Value::Array(m)),
        })
    }

    /// De-duplicates the deletion list. Without duplicates it is unchanged.
    /// With duplicates the reference's in-place algorithm (which moves the
    /// last element into each hole) is reproduced exactly, in O(n log n)
    /// ([`go_dedup`]); `fix_quirks` keeps first occurrences in order.
    fn dedup_deletions(&self, del: Vec<Value<'a>>) -> Vec<Value<'a>> {
        if self.rules.fix_quirks {
            let mut seen: HashSet<KeyText<'a>> = HashSet::default();
            return del
                .into_iter()
                .filter(|v| seen.insert(vec![value_text(v, Tagging::ByKind)]))
                .collect();
        }
        let mut s = del;
        let len = go_dedup(&mut s, |v| v);
        s.truncate(len);
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::keys::SORT_PAIRING_MIN_FOR_TESTS;
    use crate::{create_two_way, CreateOptions};
    use proptest::prelude::*;
    use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};

    /// An env list: distinct names from a shared pool in any order, values
    /// from a few, and sometimes an odd element (a repeated name, no name, a
    /// number for a name) inserted somewhere.
    fn env_list() -> impl Strategy<Value = Vec<String>> {
        let names =
            proptest::sample::subsequence((0..40).collect::<Vec<u32>>(), 0..24).prop_shuffle();
        (
            names,
            proptest::collection::vec(0u8..3, 24),
            proptest::option::weighted(0.3, (0u8..3, any::<prop::sample::Index>())),
        )
            .prop_map(|(names, values, odd)| {
                let mut l: Vec<String> = names
                    .iter()
                    .zip(&values)
                    .map(|(k, v)| format!(r#"{{"name":"E{k}","value":"v{v}"}}"#))
                    .collect();
                if let Some((kind, at)) = odd {
                    let e = match kind {
                        0 if !l.is_empty() => l[at.index(l.len())].clone(),
                        1 => r#"{"value":"x"}"#.to_string(),
                        _ => r#"{"name":7,"value":"x"}"#.to_string(),
                    };
                    let i = at.index(l.len() + 1);
                    l.insert(i, e);
                }
                l
            })
    }

    fn deployment(env: &[String]) -> String {
        format!(
            r#"{{"spec":{{"template":{{"spec":{{"containers":[{{"name":"c","env":[{}]}}]}}}}}}}}"#,
            env.join(",")
        )
    }

    /// `create_two_way`'s patch (or error) with lists paired by sorting
    /// from `sort_min` elements on.
    fn create2(o: &str, m: &str, sort_min: usize, opts: &CreateOptions) -> String {
        SORT_PAIRING_MIN_FOR_TESTS.with(|c| c.set(sort_min));
        let arena = Arena::new();
        let p = ParseOptions::default();
        let o = parse_json(&arena, o.as_bytes(), &p).unwrap();
        let m = parse_json(&arena, m.as_bytes(), &p).unwrap();
        let cursor = smpatch_schema::embedded()
            .cursor("apps/v1/Deployment")
            .unwrap();
        let out = match create_two_way(&arena, o, m, cursor, opts, &[]) {
            Ok(v) => to_json_string(&v),
            Err(e) => format!("error: {e}"),
        };
        SORT_PAIRING_MIN_FOR_TESTS.with(|c| c.set(crate::keys::SORT_PAIRING_MIN));
        out
    }

    /// Keys of the two lists that the sort pairs by hash alone must be
    /// compared before their elements are diffed: with [`key_hash`] folded
    /// into a few values, an unequal pair with equal hashes is a deletion
    /// plus an addition, as the hash map pairs it.
    ///
    /// [`key_hash`]: crate::keys::key_hash
    #[test]
    fn sort_pairing_checks_keys_of_equal_hashes() {
        use crate::keys::{key_hash, KEY_HASH_BUCKETS_FOR_TESTS};
        KEY_HASH_BUCKETS_FOR_TESTS.with(|c| c.set(64));
        let other = (0..10_000)
            .map(|i| format!("E{i}"))
            .find(|k| k != "A" && key_hash(k) == key_hash("A"))
            .unwrap();
        let o = deployment(&[r#"{"name":"A","value":"1"}"#.to_string()]);
        let m = deployment(&[format!(r#"{{"name":"{other}","value":"2"}}"#)]);
        let opts = CreateOptions::default();
        let sorted = create2(&o, &m, 0, &opts);
        let mapped = create2(&o, &m, usize::MAX, &opts);
        KEY_HASH_BUCKETS_FOR_TESTS.with(|c| c.set(0));
        assert_eq!(sorted, mapped);
        assert!(sorted.contains(r#""$patch":"delete""#), "{sorted}");
    }

    /// The unique-key path's same-order test (from the pairing): a list
    /// only reordered gets `$setElementOrder` and nothing else, an
    /// unchanged one gets nothing, with either pairing.
    #[test]
    fn reordering_alone_is_an_order_list() {
        let e = |k: u32| format!(r#"{{"name":"E{k}","value":"v"}}"#);
        let ab = deployment(&[e(1), e(2), e(3)]);
        let ba = deployment(&[e(2), e(1), e(3)]);
        let opts = CreateOptions::default();
        for sort_min in [0, usize::MAX] {
            assert_eq!(create2(&ab, &ab, sort_min, &opts), "{}");
            assert_eq!(
                create2(&ab, &ba, sort_min, &opts),
                r#"{"spec":{"template":{"spec":{"containers":[{"$setElementOrder/env":[{"name":"E2"},{"name":"E1"},{"name":"E3"}],"name":"c"}],"$setElementOrder/containers":[{"name":"c"}]}}}}"#
            );
        }
    }

    proptest! {
        /// With [`key_hash`](crate::keys::key_hash) folded into few values
        /// (unequal keys collide across and within the lists), sorting and
        /// the hash map still give the same patch.
        #[test]
        fn sort_pairing_with_colliding_hashes_gives_the_map_pairings_patch(
            o in env_list(),
            m in env_list(),
            buckets in 16u64..2048,
        ) {
            use crate::keys::KEY_HASH_BUCKETS_FOR_TESTS;
            let (o, m) = (deployment(&o), deployment(&m));
            let opts = CreateOptions::default();
            KEY_HASH_BUCKETS_FOR_TESTS.with(|c| c.set(buckets));
            let sorted = create2(&o, &m, 0, &opts);
            let mapped = create2(&o, &m, usize::MAX, &opts);
            KEY_HASH_BUCKETS_FOR_TESTS.with(|c| c.set(0));
            prop_assert_eq!(sorted, mapped);
        }

        /// The two-way patch is the same whether keyed lists are paired by
        /// sorting or by the hash map: lists with repeated, missing and
        /// non-string keys, additions, deletions and reordering, under each
        /// option.
        #[test]
        fn sort_pairing_gives_the_map_pairings_patch(
            o in env_list(),
            m in env_list(),
            ignore in 0u8..3,
            fix_quirks: bool,
        ) {
            let (o, m) = (deployment(&o), deployment(&m));
            let opts = CreateOptions {
                ignore_deletions: ignore == 1,
                ignore_changes_and_additions: ignore == 2,
                fix_quirks,
                ..CreateOptions::default()
            };
            prop_assert_eq!(create2(&o, &m, 0, &opts), create2(&o, &m, usize::MAX, &opts));
        }
    }
}
