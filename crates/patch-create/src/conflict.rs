//! Conflict detection of spec §4.7 (`MergingMapsHaveConflicts`).

use crate::diff::{element_kind, lookup_error, lookup_list, lookup_object, too_deep, Index};
use crate::gosort::go_sort;
use crate::keys::{element_key, list_plan, value_text, KeyText, Keys, ListPlan};
use crate::path::Seg;
use rustc_hash::FxHashMap;
use smpatch_patch_apply::{Error, ErrorKind};
use smpatch_schema::{Cursor, Strategy};
use smpatch_value::{render, Arena, Kind, Member, Value};
use std::borrow::Cow;

/// How the parent describes the value being compared.
#[derive(Clone, Copy, Debug)]
enum Meta<'s> {
    /// No strategy (roots, list elements, scalars).
    Plain,
    /// An object with strategy `replace`.
    Replace,
    /// A merge list.
    Merge(Keys<'s>),
}

/// Walks two change sets looking for paths both touch differently.
pub(crate) struct Checker {
    pub(crate) fix_quirks: bool,
    pub(crate) compound_keys: bool,
    pub(crate) max_depth: usize,
    /// Keep looking after the first conflict (to name every location).
    pub(crate) collect_all: bool,
    /// Conflicting locations (JSON pointers into the left side).
    pub(crate) found: Vec<String>,
    /// Left-side atomic scalar lists as the reference leaves them after the
    /// check (unless `fix_quirks`): its `deduplicateAndSortScalars` works in
    /// place on the patch's own list, so a three-way patch without conflicts
    /// is sent with those lists de-duplicated and sorted (tail elements left
    /// over). Each entry: the list's location and, per slot, the index of
    /// the original element now there.
    pub(crate) rewrites: Vec<Rewrite>,
}

/// One step of a location inside the left document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// A left-side list to replace: location, then source index per slot.
pub(crate) type Rewrite = (Vec<Step>, Vec<usize>);

fn steps(path: &Seg<'_>) -> Vec<Step> {
    let mut out = Vec::new();
    let mut cur = path;
    loop {
        match cur {
            Seg::Root => break,
            Seg::Key(parent, k) => {
                out.push(Step::Key((*k).to_owned()));
                cur = parent;
            }
            Seg::Index(parent, i) => {
                out.push(Step::Index(*i));
                cur = parent;
            }
        }
    }
    out.reverse();
    out
}

/// `v` with the lists named by `rewrites` rearranged (see
/// [`Checker::rewrites`]).
pub(crate) fn apply_rewrites<'a>(
    arena: &'a Arena,
    v: Value<'a>,
    rewrites: &[Rewrite],
) -> Value<'a> {
    rewrites
        .iter()
        .fold(v, |v, (at, idx)| replace_at(arena, v, at, idx))
}

fn replace_at<'a>(arena: &'a Arena, v: Value<'a>, at: &[Step], idx: &[usize]) -> Value<'a> {
    match (at.split_first(), v) {
        (None, Value::Array(items)) => {
            let out: Vec<Value<'a>> = idx.iter().filter_map(|&i| items.get(i).copied()).collect();
            Value::array_from(arena, &out)
        }
        (Some((Step::Key(k), rest)), Value::Object(o)) => {
            let members: Vec<Member<'a>> = o
                .members()
                .iter()
                .map(|m| {
                    if m.key == k {
                        Member {
                            key: m.key,
                            value: replace_at(arena, m.value, rest, idx),
                        }
                    } else {
                        *m
                    }
                })
                .collect();
            Value::object_from_members(arena, &members)
        }
        (Some((Step::Index(i), rest)), Value::Array(items)) if *i < items.len() => {
            let mut out = items.to_vec();
            out[*i] = replace_at(arena, items[*i], rest, idx);
            Value::array_from(arena, &out)
        }
        _ => v,
    }
}

/// At most this many locations are collected for a message.
const MAX_REPORTED: usize = 20;

impl Checker {
    /// True when `l` and `r` conflict.
    pub(crate) fn check(
        &mut self,
        l: Value<'_>,
        r: Value<'_>,
        cur: Cursor<'_>,
    ) -> Result<bool, Error> {
        self.value(l, r, cur, Meta::Plain, &Seg::Root, 0)
    }

    fn conflict(&mut self, path: &Seg<'_>) -> bool {
        if self.found.len() < MAX_REPORTED {
            self.found.push(path.pointer());
        }
        true
    }

    /// Continue after a conflict only when collecting, and only while the
    /// report has room.
    fn stop_after_conflict(&self) -> bool {
        !self.collect_all || self.found.len() >= MAX_REPORTED
    }

    /// Folds one child's answer into `any`. `Some(answer)` ends the walk: a
    /// conflict when the caller stops at the first one, and an error unless a
    /// conflict is already known (the reference stops at the first conflict or
    /// error in map order; once a conflict is known it is what gets reported).
    fn settle(&self, any: &mut bool, res: Result<bool, Error>) -> Option<Result<bool, Error>> {
        match res {
            Ok(true) => {
                *any = true;
                self.stop_after_conflict().then_some(Ok(true))
            }
            Ok(false) => None,
            Err(_) if *any => Some(Ok(true)),
            Err(e) => Some(Err(e)),
        }
    }

    fn value(
        &mut self,
        l: Value<'_>,
        r: Value<'_>,
        cur: Cursor<'_>,
        meta: Meta<'_>,
        path: &Seg<'_>,
        depth: usize,
    ) -> Result<bool, Error> {
        if depth > self.max_depth {
            return Err(too_deep(path, self.max_depth));
        }
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            self.value_inner(l, r, cur, meta, path, depth)
        })
    }

    fn value_inner(
        &mut self,
        l: Value<'_>,
        r: Value<'_>,
        cur: Cursor<'_>,
        meta: Meta<'_>,
        path: &Seg<'_>,
        depth: usize,
    ) -> Result<bool, Error> {
        match l {
            Value::Object(lo) => {
                let Value::Object(ro) = r else {
                    return Ok(self.conflict(path));
                };
                let lm = lo.get("$patch");
                let rm = ro.get("$patch");
                match (lm, rm) {
                    (None, None) => {}
                    (Some(a), Some(b)) if a.deep_eq(&b) => {}
                    _ => return Ok(self.conflict(path)),
                }
                // Q19: replace objects never conflict in the reference.
                if matches!(meta, Meta::Replace) && !self.fix_quirks {
                    return Ok(false);
                }
                let r_index = Index::new(ro);
                let mut any = false;
                for m in lo.members() {
                    let k = m.key;
                    if k == "$patch" || k == "$retainKeys" {
                        continue;
                    }
                    // Q18: the reference looks these up as fields (and fails).
                    if self.fix_quirks
                        && (k.starts_with("$setElementOrder")
                            || k.starts_with("$deleteFromPrimitiveList"))
                    {
                        continue;
                    }
                    let Some(rv) = r_index.get(k) else { continue };
                    let here = Seg::Key(path, k);
                    let res = self.member(k, m.value, rv, cur, &here, depth);
                    if let Some(answer) = self.settle(&mut any, res) {
                        return answer;
                    }
                }
                Ok(any)
            }
            Value::Array(ll) => {
                let Value::Array(rl) = r else {
                    return Ok(self.conflict(path));
                };
                self.lists(ll, rl, cur, meta, path, depth)
            }
            _ => {
                if l.deep_eq(&r) {
                    Ok(false)
                } else {
                    Ok(self.conflict(path))
                }
            }
        }
    }

    fn member(
        &mut self,
        k: &str,
        lv: Value<'_>,
        rv: Value<'_>,
        cur: Cursor<'_>,
        here: &Seg<'_>,
        depth: usize,
    ) -> Result<bool, Error> {
        match lv {
            Value::Array(_) => {
                let field =
                    lookup_list(&cur, k, self.fix_quirks).map_err(|e| lookup_error(here, &e))?;
                let meta = match list_plan(field.meta, self.compound_keys) {
                    ListPlan::Merge(keys) => Meta::Merge(keys),
                    ListPlan::Atomic => Meta::Plain,
                };
                self.value(lv, rv, field.cursor, meta, here, depth + 1)
            }
            Value::Object(_) => {
                let field =
                    lookup_object(&cur, k, self.fix_quirks).map_err(|e| lookup_error(here, &e))?;
                let meta = if field.meta.strategy == Strategy::Replace {
                    Meta::Replace
                } else {
                    Meta::Plain
                };
                self.value(lv, rv, field.cursor, meta, here, depth + 1)
            }
            _ => self.value(lv, rv, Cursor::UNKNOWN, Meta::Plain, here, depth + 1),
        }
    }

    fn lists(
        &mut self,
        l: &[Value<'_>],
        r: &[Value<'_>],
        elem: Cursor<'_>,
        meta: Meta<'_>,
        path: &Seg<'_>,
        depth: usize,
    ) -> Result<bool, Error> {
        let kind = match element_kind(l, r, path)? {
            Some(k) => k,
            None => {
                // Q18: two empty lists make the reference fail.
                if self.fix_quirks {
                    return Ok(false);
                }
                return Err(Error::new(
                    ErrorKind::NoElements,
                    path.pointer(),
                    "no elements in any of the given slices",
                ));
            }
        };
        if let Meta::Merge(keys) = meta {
            if kind != Kind::Object {
                return Ok(false);
            }
            if let Keys::One(key) = keys {
                if let (Some(lk), Some(rk)) = (str_keys(l, key), str_keys(r, key)) {
                    return self.keyed_by_str(l, r, &lk, &rk, elem, path, depth);
                }
            }
            let l_map = by_key(l, keys, path)?;
            let r_map = by_key(r, keys, path)?;
            let mut any = false;
            for (i, e) in l.iter().enumerate() {
                let Value::Object(o) = e else { continue };
                let Ok(id) = element_key(o, keys, true) else {
                    continue;
                };
                // A later duplicate replaces an earlier one: only the last counts.
                if l_map.get(&id) != Some(&i) {
                    continue;
                }
                let Some(&ri) = r_map.get(&id) else { continue };
                let here = Seg::Index(path, i);
                let res = self.value(*e, r[ri], elem, Meta::Plain, &here, depth + 1);
                if let Some(answer) = self.settle(&mut any, res) {
                    return answer;
                }
            }
            return Ok(any);
        }
        if l.len() != r.len() {
            return Ok(self.conflict(path));
        }
        if kind != Kind::Object {
            let differs = if self.fix_quirks {
                // Compared as sets.
                let ld = dedup_sorted(l);
                let rd = dedup_sorted(r);
                ld.len() != rd.len() || ld.iter().zip(&rd).any(|(a, b)| !a.deep_eq(b))
            } else {
                let (lb, lk) = go_dedup_sort(l);
                let (rb, rk) = go_dedup_sort(r);
                // The reference works on the patch's own list.
                self.rewrites.push((steps(path), lb.clone()));
                // Q18: compared over the left length only; a shorter right
                // side crashes the reference, and means the sets differ.
                rk < lk
                    || lb[..lk]
                        .iter()
                        .zip(&rb[..rk])
                        .any(|(&a, &b)| !l[a].deep_eq(&r[b]))
            };
            return Ok(if differs { self.conflict(path) } else { false });
        }
        let mut any = false;
        for (i, (a, b)) in l.iter().zip(r).enumerate() {
            let here = Seg::Index(path, i);
            let res = self.value(*a, *b, elem, Meta::Plain, &here, depth + 1);
            if let Some(answer) = self.settle(&mut any, res) {
                return answer;
            }
        }
        Ok(any)
    }
}

/// The string value of `key` in every element, when every element is an
/// object holding a string there (the last member of that name, as
/// `element_key` reads it).
fn str_keys<'a>(list: &[Value<'a>], key: &str) -> Option<Vec<&'a str>> {
    list.iter()
        .map(|e| e.as_object()?.get(key)?.as_str())
        .collect()
}

impl Checker {
    /// The merge-list comparison of `lists` when every key is a string:
    /// kind-tagged key texts are then equal exactly when the strings are, so
    /// the strings index the elements (the last element per key counts).
    #[allow(clippy::too_many_arguments)]
    fn keyed_by_str(
        &mut self,
        l: &[Value<'_>],
        r: &[Value<'_>],
        lk: &[&str],
        rk: &[&str],
        elem: Cursor<'_>,
        path: &Seg<'_>,
        depth: usize,
    ) -> Result<bool, Error> {
        let l_map = last_by_str(lk);
        let r_map = last_by_str(rk);
        let mut any = false;
        for (i, e) in l.iter().enumerate() {
            // A later duplicate replaces an earlier one: only the last counts.
            if l_map.get(lk[i]) != Some(&i) {
                continue;
            }
            let Some(&ri) = r_map.get(lk[i]) else {
                continue;
            };
            let here = Seg::Index(path, i);
            let res = self.value(*e, r[ri], elem, Meta::Plain, &here, depth + 1);
            if let Some(answer) = self.settle(&mut any, res) {
                return answer;
            }
        }
        Ok(any)
    }
}

/// Index of the last element per key string.
fn last_by_str<'k>(keys: &[&'k str]) -> FxHashMap<&'k str, usize> {
    let mut m = FxHashMap::with_capacity_and_hasher(keys.len(), Default::default());
    for (i, k) in keys.iter().enumerate() {
        m.insert(*k, i);
    }
    m
}

/// Index of the last element per key (Go `%s` key text: kind-tagged).
fn by_key<'a>(
    list: &[Value<'a>],
    keys: Keys<'_>,
    path: &Seg<'_>,
) -> Result<FxHashMap<KeyText<'a>, usize>, Error> {
    let mut out = FxHashMap::default();
    for (i, e) in list.iter().enumerate() {
        let here = Seg::Index(path, i);
        let Value::Object(o) = e else {
            return Err(Error::new(
                ErrorKind::ExpectedObject,
                here.pointer(),
                "invalid element type in merging list: expected an object",
            ));
        };
        match element_key(o, keys, true) {
            Ok(id) => {
                out.insert(id, i);
            }
            Err(k) => return Err(crate::diff::missing_key(&here, e, k)),
        }
    }
    Ok(out)
}

/// The reference's in-place `deduplicateAndSortScalars` on `l`: returns the
/// whole backing array afterwards (as indices into `l`) and the length of
/// its de-duplicated, sorted prefix. `deduplicateScalars` moves the last
/// element into each duplicate's slot (Go `==`: same kind and value, so `1`,
/// `1.0` and `"1"` are distinct), then `sort.Sort` orders the prefix by `%v`
/// rendering with the `<=` comparator.
///
/// The reference's loop is quadratic; it runs only on lists with duplicates
/// of up to [`GO_DEDUP_MAX`] elements. Lists without duplicates are left as
/// they are (what the loop does to them), longer lists with duplicates keep
/// first occurrences in order (docs/DIVERGENCES.md).
fn go_dedup_sort(l: &[Value<'_>]) -> (Vec<usize>, usize) {
    let mut s: Vec<usize> = (0..l.len()).collect();
    let mut len = l.len();
    let mut seen: rustc_hash::FxHashSet<Value<'_>> = rustc_hash::FxHashSet::default();
    if !l.iter().all(|v| seen.insert(*v)) && l.len() > GO_DEDUP_MAX {
        seen.clear();
        let mut kept: Vec<usize> = (0..l.len()).filter(|&i| seen.insert(l[i])).collect();
        len = kept.len();
        kept.extend(len..l.len());
        s = kept;
    } else if len > seen.len() {
        go_dedup(l, &mut s, &mut len);
    }
    let texts: Vec<Cow<'_, str>> = l.iter().map(render).collect();
    go_sort(&mut s[..len], |&a, &b| texts[a] <= texts[b]);
    (s, len)
}

/// The longest list whose duplicates [`go_dedup_sort`] removes with the
/// reference's own (quadratic) algorithm.
const GO_DEDUP_MAX: usize = 4096;

/// `deduplicateScalars` of the reference, on the index array `s`.
fn go_dedup(l: &[Value<'_>], s: &mut [usize], len: &mut usize) {
    let mut i = 0;
    while i + 1 < *len {
        let mut j = i + 1;
        while j < *len {
            if l[s[i]].deep_eq(&l[s[j]]) {
                s[j] = s[*len - 1];
                *len -= 1;
            } else {
                j += 1;
            }
        }
        i += 1;
    }
}

/// De-duplicated and sorted by rendering (set comparison with `fix_quirks`).
fn dedup_sorted<'a>(l: &[Value<'a>]) -> Vec<Value<'a>> {
    let mut t: Vec<(Cow<'a, str>, Value<'a>)> = l.iter().map(|v| (render(v), *v)).collect();
    t.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<Value<'a>> = Vec::with_capacity(t.len());
    let mut seen = rustc_hash::FxHashSet::default();
    for (_, v) in t {
        if seen.insert(vec![value_text(&v, true)]) {
            out.push(v);
        }
    }
    out
}
