//! Conflict detection (the reference's `MergingMapsHaveConflicts`).

use crate::gosort::go_sort;
use crate::keys::{element_key, value_text, KeyText, Tagging};
use crate::shared::{element_kind, go_dedup, lookup_error, too_deep, Index};
use smpatch_patch_apply::directives::{key_role, KeyRole, PATCH};
use smpatch_patch_apply::{Error, ErrorKind};
use smpatch_schema::{grow_stack, Cursor, FieldShape, KeySpec, ListPlan, Rules, Strategy, Walk};
use smpatch_value::hashing::{HashMap, HashSet};
use smpatch_value::{render, Arena, Kind, Member, Path, Value};
use std::borrow::Cow;

/// How the parent describes the value being compared.
#[derive(Clone, Copy, Debug)]
enum Meta<'s> {
    /// No strategy (roots, list elements, scalars).
    Plain,
    /// An object with strategy `replace`.
    Replace,
    /// A merge list.
    Merge(KeySpec<'s>),
}

/// Walks two change sets looking for paths both touch differently.
pub(crate) struct Checker {
    /// The quirk and compound-key settings of list plans and lookups.
    pub(crate) rules: Rules,
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

/// The owned steps of `path` (rewrites outlive the walk).
fn steps(path: &Path<'_>) -> Vec<Step> {
    path.steps()
        .into_iter()
        .map(|s| match s {
            smpatch_value::Step::Key(k) => Step::Key(k.to_owned()),
            smpatch_value::Step::Index(i) => Step::Index(i),
        })
        .collect()
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
        // The conflict check counts the root as depth 0 (one level more than
        // the diff, which counts it as 1).
        let root = Path::Root;
        let w = Walk::new(&root, cur, self.max_depth.saturating_add(1));
        self.value(l, r, w, Meta::Plain)
    }

    fn conflict(&mut self, path: &Path<'_>) -> bool {
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
        w: Walk<'_, '_>,
        meta: Meta<'_>,
    ) -> Result<bool, Error> {
        w.check().map_err(|e| {
            too_deep(smpatch_schema::TooDeep {
                limit: self.max_depth,
                ..e
            })
        })?;
        grow_stack(|| self.value_inner(l, r, w, meta))
    }

    fn value_inner(
        &mut self,
        l: Value<'_>,
        r: Value<'_>,
        w: Walk<'_, '_>,
        meta: Meta<'_>,
    ) -> Result<bool, Error> {
        let path = w.path();
        match l {
            Value::Object(lo) => {
                let Value::Object(ro) = r else {
                    return Ok(self.conflict(path));
                };
                let lm = lo.get(PATCH);
                let rm = ro.get(PATCH);
                match (lm, rm) {
                    (None, None) => {}
                    (Some(a), Some(b)) if a.deep_eq(&b) => {}
                    _ => return Ok(self.conflict(path)),
                }
                // Q19: replace objects never conflict in the reference.
                if matches!(meta, Meta::Replace) && !self.rules.fix_quirks {
                    return Ok(false);
                }
                let r_index = Index::new(ro);
                let mut any = false;
                for m in lo.members() {
                    let k = m.key;
                    match key_role(k) {
                        KeyRole::Patch | KeyRole::RetainKeys => continue,
                        // Q18: the reference looks these up as fields (and fails).
                        KeyRole::SetElementOrder(_) | KeyRole::DeleteFromPrimitiveList(_)
                            if self.rules.fix_quirks =>
                        {
                            continue
                        }
                        _ => {}
                    }
                    let Some(rv) = r_index.get(k) else { continue };
                    let here = Path::Key(path, k);
                    let res = self.member(m.value, rv, w, &here);
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
                self.lists(ll, rl, w, meta)
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

    /// The member at `here` (a key below `w`'s object).
    fn member(
        &mut self,
        lv: Value<'_>,
        rv: Value<'_>,
        w: Walk<'_, '_>,
        here: &Path<'_>,
    ) -> Result<bool, Error> {
        let Path::Key(_, k) = *here else {
            return Ok(false);
        };
        let cur = w.cursor();
        match lv {
            Value::Array(_) => {
                let field = self
                    .rules
                    .field(cur, k, FieldShape::List)
                    .map_err(|e| lookup_error(here, &e))?;
                let meta = match self.rules.list_plan(field.meta) {
                    ListPlan::Merge(keys) => Meta::Merge(keys),
                    ListPlan::Atomic => Meta::Plain,
                };
                self.value(lv, rv, w.step(here, field.cursor), meta)
            }
            Value::Object(_) => {
                let field = self
                    .rules
                    .field(cur, k, FieldShape::Object)
                    .map_err(|e| lookup_error(here, &e))?;
                let meta = if field.meta.strategy == Strategy::Replace {
                    Meta::Replace
                } else {
                    Meta::Plain
                };
                self.value(lv, rv, w.step(here, field.cursor), meta)
            }
            _ => self.value(lv, rv, w.step(here, Cursor::UNKNOWN), Meta::Plain),
        }
    }

    /// Two lists at `w` (its cursor is the ELEMENT schema).
    fn lists(
        &mut self,
        l: &[Value<'_>],
        r: &[Value<'_>],
        w: Walk<'_, '_>,
        meta: Meta<'_>,
    ) -> Result<bool, Error> {
        let path = w.path();
        let kind = match element_kind(l, r, path)? {
            Some(k) => k,
            None => {
                // Q18: two empty lists make the reference fail.
                if self.rules.fix_quirks {
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
            if let KeySpec::Single(key) = keys {
                if let (Some(lk), Some(rk)) = (str_keys(l, key), str_keys(r, key)) {
                    return self.keyed_by_str((l, &lk), (r, &rk), w);
                }
            }
            let l_map = by_key(l, keys, path)?;
            let r_map = by_key(r, keys, path)?;
            let mut any = false;
            for (i, e) in l.iter().enumerate() {
                let Value::Object(o) = e else { continue };
                let Ok(id) = element_key(o, keys, Tagging::ByKind) else {
                    continue;
                };
                // A later duplicate replaces an earlier one: only the last counts.
                if l_map.get(&id) != Some(&i) {
                    continue;
                }
                let Some(&ri) = r_map.get(&id) else { continue };
                let here = Path::Index(path, i);
                let res = self.value(*e, r[ri], w.step(&here, w.cursor()), Meta::Plain);
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
            let differs = if self.rules.fix_quirks {
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
            let here = Path::Index(path, i);
            let res = self.value(*a, *b, w.step(&here, w.cursor()), Meta::Plain);
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
    /// Each side is the list and its key strings.
    fn keyed_by_str(
        &mut self,
        (l, lk): (&[Value<'_>], &[&str]),
        (r, rk): (&[Value<'_>], &[&str]),
        w: Walk<'_, '_>,
    ) -> Result<bool, Error> {
        let path = w.path();
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
            let here = Path::Index(path, i);
            let res = self.value(*e, r[ri], w.step(&here, w.cursor()), Meta::Plain);
            if let Some(answer) = self.settle(&mut any, res) {
                return answer;
            }
        }
        Ok(any)
    }
}

/// Index of the last element per key string.
fn last_by_str<'k>(keys: &[&'k str]) -> HashMap<&'k str, usize> {
    let mut m = HashMap::with_capacity_and_hasher(keys.len(), Default::default());
    for (i, k) in keys.iter().enumerate() {
        m.insert(*k, i);
    }
    m
}

/// Index of the last element per key (Go `%s` key text: kind-tagged).
fn by_key<'a>(
    list: &[Value<'a>],
    keys: KeySpec<'_>,
    path: &Path<'_>,
) -> Result<HashMap<KeyText<'a>, usize>, Error> {
    let mut out = HashMap::default();
    for (i, e) in list.iter().enumerate() {
        let here = Path::Index(path, i);
        let Value::Object(o) = e else {
            return Err(Error::new(
                ErrorKind::ExpectedObject,
                here.pointer(),
                "invalid element type in merging list: expected an object",
            ));
        };
        match element_key(o, keys, Tagging::ByKind) {
            Ok(id) => {
                out.insert(id, i);
            }
            Err(k) => return Err(crate::shared::missing_key(&here, e, k)),
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
/// The de-duplication is [`go_dedup`]: exact, without the reference's
/// quadratic scan.
fn go_dedup_sort(l: &[Value<'_>]) -> (Vec<usize>, usize) {
    let mut s: Vec<usize> = (0..l.len()).collect();
    let len = go_dedup(&mut s, |k| l[k]);
    let texts: Vec<Cow<'_, str>> = l.iter().map(render).collect();
    go_sort(&mut s[..len], |&a, &b| texts[a] <= texts[b]);
    (s, len)
}

/// De-duplicated and sorted by rendering (set comparison with `fix_quirks`).
fn dedup_sorted<'a>(l: &[Value<'a>]) -> Vec<Value<'a>> {
    let mut t: Vec<(Cow<'a, str>, Value<'a>)> = l.iter().map(|v| (render(v), *v)).collect();
    t.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<Value<'a>> = Vec::with_capacity(t.len());
    let mut seen = HashSet::default();
    for (_, v) in t {
        if seen.insert(vec![value_text(&v, Tagging::ByKind)]) {
            out.push(v);
        }
    }
    out
}
