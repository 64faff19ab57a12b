//! The three diffs of the three-way patch in one descent (issue 13):
//! `delta` (current to modified, no deletions), `deletions` (original to
//! modified, deletions only) and `changed` (original to current, for the
//! conflict check), each exactly as [`Differ::diff_objects`] builds it.
//!
//! Where the three documents line up (objects under one key, keyed lists
//! whose elements all carry unique string merge keys, at any length and in
//! any order) one step serves the three diffs: one schema lookup, one
//! pairing of the three lists. Everywhere else (a failed schema lookup
//! included) each diff takes its own step (`Differ::diff_member`,
//! `diff_objects`), so the outputs are those of the separate diffs by
//! construction. Without a conflict check `changed` is not built.
//!
//! Architecture Invariant: any error gives up (`None`); the caller then
//! runs the three diffs one after the other, which report the error (and
//! the first of several) exactly as before.

use crate::compose3::{list_id, FastCompose, Precomposed};
use crate::diff::{same_value, DiffFlags, Differ, ListDiff, RetainKeys};
use crate::keys::{
    key_hash, key_index, pair_by_index, pair_by_sort, pairs_by_sort, SortItems, UNPAIRED,
};
use crate::shared::{key_member, order_list_of_members, Index};
use smpatch_patch_apply::directives::{self, PatchDirective, PATCH};
use smpatch_schema::{grow_stack, FieldShape, KeySpec, ListPlan, Strategy, Walk};
use smpatch_value::hashing::{HashMap, HashSet};
use smpatch_value::{Member, Object, Path, Value};

/// The flags of `delta`: current to modified, additions and changes.
pub(crate) const DELTA: DiffFlags = DiffFlags {
    set_element_order: true,
    ignore_changes_and_additions: false,
    ignore_deletions: true,
};

/// The flags of `deletions`: original to modified, deletions only.
pub(crate) const DELETIONS: DiffFlags = DiffFlags {
    set_element_order: true,
    ignore_changes_and_additions: true,
    ignore_deletions: false,
};

/// The flags of `changed`: original to current, everything.
pub(crate) const CHANGED: DiffFlags = DiffFlags {
    set_element_order: false,
    ignore_changes_and_additions: false,
    ignore_deletions: false,
};

/// What one fused walk builds besides `delta` and `deletions`: `changed`
/// (`ch`, for the conflict check) and, with `fast`, the composition of
/// long keyed lists (`compose3.rs`).
#[derive(Clone, Copy)]
pub(crate) struct Run<'a, 't> {
    pub(crate) ch: bool,
    pub(crate) fast: Option<&'t FastCompose<'a, 't>>,
}

/// The three diffs of one position.
pub(crate) struct Three<'a> {
    pub(crate) delta: Object<'a>,
    pub(crate) deletions: Object<'a>,
    pub(crate) changed: Object<'a>,
}

/// What `changed` holds for one key of current, worked out in the step
/// that served the other two diffs.
#[derive(Clone, Copy)]
enum Done<'a> {
    Object(Object<'a>),
    List(ListDiff<'a>),
    /// The field's value, or nothing.
    Member(Option<Value<'a>>),
}

/// The identity of an arena container: two values with one identity are
/// the same value (so their diffs are the same).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ident {
    Object(usize, usize),
    Array(usize, usize),
    None,
}

/// String equality without a `memcmp` call for short strings (most keys
/// and values of a manifest): overlapping word loads.
#[inline]
fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word8 = |s: &[u8], at: usize| -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_ne_bytes(w)
    };
    let word4 = |s: &[u8], at: usize| -> u32 {
        let mut w = [0u8; 4];
        w.copy_from_slice(&s[at..at + 4]);
        u32::from_ne_bytes(w)
    };
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

/// `Value::deep_eq` of two lists, without its work stack when they hold
/// scalars only.
fn same_list(a: &[Value<'_>], b: &[Value<'_>]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    for (x, y) in a.iter().zip(b) {
        match (x, y) {
            (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {
                return Value::Array(a).deep_eq(&Value::Array(b));
            }
            _ => {
                if !same_value(x, y) {
                    return false;
                }
            }
        }
    }
    true
}

/// The most members [`aligned_objects`] admits (larger objects are indexed).
const ALIGNED_MAX: usize = 16;

/// True when the three objects have the same keys in the same order and
/// no key twice.
fn aligned_objects(o: Object<'_>, m: Object<'_>, c: Object<'_>) -> bool {
    let (om, mm, cm) = (o.members(), m.members(), c.members());
    if om.len() != mm.len() || cm.len() != mm.len() || mm.len() > ALIGNED_MAX {
        return false;
    }
    // A cheap fingerprint per key; only equal fingerprints compare text.
    let print = |k: &str| -> u32 {
        let b = k.as_bytes();
        let (first, last) = (b.first().copied(), b.last().copied());
        (b.len() as u32) | u32::from(first.unwrap_or(0)) << 16 | u32::from(last.unwrap_or(0)) << 24
    };
    let mut prints = [0u32; ALIGNED_MAX];
    for i in 0..mm.len() {
        let k = mm[i].key;
        if !same_str(om[i].key, k) || !same_str(cm[i].key, k) {
            return false;
        }
        let p = print(k);
        if (0..i).any(|j| prints[j] == p && same_str(mm[j].key, k)) {
            return false;
        }
        prints[i] = p;
    }
    true
}

/// True when the three objects were read from one compact text (so they
/// are equal member by member, see `Object::compact_source`).
#[inline]
fn same_source(o: Object<'_>, m: Object<'_>, c: Object<'_>) -> bool {
    match (o.compact_source(), m.compact_source(), c.compact_source()) {
        (Some(x), Some(y), Some(z)) => x == y && (std::ptr::eq(z, x) || y == z),
        _ => false,
    }
}

/// True when the two objects were read from one compact text.
#[inline]
fn same_text(a: Object<'_>, b: Object<'_>) -> bool {
    match (a.compact_source(), b.compact_source()) {
        (Some(x), Some(y)) => std::ptr::eq(x, y) || x == y,
        _ => false,
    }
}

fn ident(v: &Value<'_>) -> Ident {
    match v {
        Value::Object(o) => Ident::Object(o.members().as_ptr() as usize, o.len()),
        Value::Array(a) => Ident::Array(a.as_ptr() as usize, a.len()),
        _ => Ident::None,
    }
}

/// One element of a keyed list: the object and its merge-key member (the
/// last of that name, as `Object::get` reads it), whose value is the key
/// string ([`text`]). 24 bytes: with the key string beside them (40 bytes,
/// before) the vectors of three long lists cost more to write and read
/// again than reading the key through the member, which every use of an
/// element reads anyway.
type Elem<'a> = (Object<'a>, &'a Member<'a>);

/// The key string of an element ([`keyed_elems`] checked it is one).
#[inline]
fn text<'a>(e: &Elem<'a>) -> &'a str {
    e.1.value.as_str().unwrap_or("")
}

/// The elements of `list`, when every element is an object with a string
/// merge key (repeats are found by [`Pairing::new`]), and with `hashes`
/// each key's [`key_hash`] (taken while the key is at hand: a pass of
/// its own read every key again, past the caches on long lists).
fn keyed_elems<'a>(
    list: &'a [Value<'a>],
    key: &str,
    mut hashes: Option<&mut Vec<u64>>,
) -> Option<Vec<Elem<'a>>> {
    let mut elems = Vec::with_capacity(list.len());
    if let Some(h) = hashes.as_deref_mut() {
        h.reserve(list.len());
    }
    for v in list {
        let obj = v.as_object()?;
        let mem = key_member(&obj, key)?;
        let text = mem.value.as_str()?;
        if let Some(h) = hashes.as_deref_mut() {
            h.push(key_hash(text));
        }
        elems.push((obj, mem));
    }
    Some(elems)
}

/// After a hash collision: the lists paired again by the maps (see
/// [`Pairing::by_maps`]), with every element patch of `changed` made so
/// far dropped (they, and those of `delta` and `deletions`, stay unused in
/// the arena); `None` when the maps cannot pair them.
fn repair<'a>(
    o_e: &[Elem<'a>],
    m_e: &[Elem<'a>],
    c_e: &[Elem<'a>],
    c_sub: &mut [Option<Sub<'a>>],
) -> Option<Pairing> {
    let c_aligned = std::ptr::eq(c_e, o_e);
    let pairs = Pairing::by_maps(o_e, m_e, c_e, c_aligned)?;
    c_sub.fill(None);
    Some(pairs)
}

/// Which elements of the three keyed lists carry one key, worked out once
/// for the three diffs (each diff of `diff_keyed_unique` pairs its two
/// lists itself): per element of modified its partner in original and in
/// current, per element of current its partner in original ([`UNPAIRED`]:
/// none).
///
/// One hash index of original serves every look-up when current holds
/// original's keys in original's order (the live object of `kubectl apply`
/// keeps the order of the last applied one): current then pairs by
/// position. Otherwise current is indexed too. Either way each element is
/// looked up at most twice, where the three separate diffs build three
/// indexes and the assembly of each diff looks every element up again.
struct Pairing {
    m_o: Vec<u32>,
    m_c: Vec<u32>,
    c_o: Vec<u32>,
    /// False when paired by equal key hashes only: the caller compares
    /// each pair's keys before it diffs the pair (while the elements are
    /// at hand, instead of a pass of its own that read every key again)
    /// and, on a difference, pairs again with [`Pairing::by_maps`].
    verified: bool,
}

impl Pairing {
    /// `None` when a key repeats within a list. Long lists (from
    /// `keys::SORT_PAIRING_MIN` elements) are paired by sorting their key
    /// hashes (`keys::pair_by_sort`: sequential passes instead of a hash
    /// probe per element that misses the caches) from `hashes` (the key
    /// hashes of `o`, `m`, `c`); a repeated hash sends them to the hash
    /// maps, and so does a pair of unequal keys, which the caller finds
    /// (see [`Pairing::verified`]).
    fn new<'a>(
        o: &[Elem<'a>],
        m: &[Elem<'a>],
        c: &[Elem<'a>],
        hashes: Option<[&[u64]; 3]>,
    ) -> Option<Pairing> {
        // (One list for both: current's object stands for original's.)
        let c_aligned = std::ptr::eq(c, o)
            || c.len() == o.len() && c.iter().zip(o).all(|(x, y)| same_str(text(x), text(y)));
        if let Some(h) = hashes {
            if let Some(p) = Self::by_sort(c_aligned, h) {
                return Some(p);
            }
        }
        Self::by_maps(o, m, c, c_aligned)
    }

    /// [`Pairing::new`] by hash maps of the keys (checked pairs).
    fn by_maps<'a>(
        o: &[Elem<'a>],
        m: &[Elem<'a>],
        c: &[Elem<'a>],
        c_aligned: bool,
    ) -> Option<Pairing> {
        let keys = |l: &[Elem<'a>]| l.iter().map(text).collect::<Vec<&'a str>>();
        let o_ix = key_index(o.iter().map(text))?;
        let m_o = pair_by_index(&o_ix, m.iter().map(|e| Some(text(e))))?.pair;
        if c_aligned {
            // Original's keys are unique, so current's are.
            let c_o = (0..c.len() as u32).collect();
            return Some(Pairing {
                m_c: m_o.clone(),
                m_o,
                c_o,
                verified: true,
            });
        }
        let c_keys = keys(c);
        let c_ix = key_index(c_keys.iter().copied())?;
        let m_c = pair_by_index(&c_ix, m.iter().map(|e| Some(text(e))))?.pair;
        let c_o = pair_by_index(&o_ix, c_keys.into_iter().map(Some))?.pair;
        Some(Pairing {
            m_o,
            m_c,
            c_o,
            verified: true,
        })
    }

    /// [`Pairing::new`] by sorting the key hashes (`[oh, mh, ch]`, one per
    /// element of original, modified and current), unchecked; `None`: use
    /// the maps.
    fn by_sort(c_aligned: bool, [oh, mh, ch]: [&[u64]; 3]) -> Option<Pairing> {
        let items = |h: &[u64]| {
            let mut s = SortItems::with_capacity(h.len());
            for &x in h {
                s.push_hash(x);
            }
            s
        };
        // The pairs of `b` with `a` by hash (no hash repeats within a
        // list, so equal keys pair); the caller compares their keys.
        let pair = |ah: &[u64], bh: &[u64]| -> Option<Vec<u32>> {
            Some(pair_by_sort(items(ah), items(bh))?.pair)
        };
        let m_o = pair(oh, mh)?;
        if c_aligned {
            let c_o = (0..ch.len() as u32).collect();
            return Some(Pairing {
                m_c: m_o.clone(),
                m_o,
                c_o,
                verified: false,
            });
        }
        let m_c = pair(ch, mh)?;
        let c_o = pair(oh, ch)?;
        Some(Pairing {
            m_o,
            m_c,
            c_o,
            verified: false,
        })
    }
}

/// The value of an element patch, if any.
fn sub_value(s: Option<Sub<'_>>) -> Option<Value<'_>> {
    match s? {
        Sub::Empty => None,
        Sub::Delete(v) | Sub::Keep(v) => Some(v),
    }
}

/// True when every one of the `n` elements of original is some element of
/// modified's partner (`m_o`: modified's partners; keys are unique).
fn covers(m_o: &[u32], n: usize) -> bool {
    m_o.iter().filter(|&&i| i != UNPAIRED).count() == n
}

/// `Differ::precompose`'s composition of a keyed list's `delta` and
/// `deletions`, built by `keyed_three` one element of modified at a time
/// (the element's two patches, if any, just made).
struct HotCompose<'a, 't> {
    fast: &'t FastCompose<'a, 't>,
    out: Vec<Value<'a>>,
    /// How many elements of `delta` and of `deletions` were taken.
    counts: [usize; 2],
}

impl<'a> HotCompose<'a, '_> {
    /// Takes the next element of modified: its `delta` part `d` and
    /// `deletions` part `x`. False: the list is not composed here (a part
    /// holds `$patch`, or a merge gave up). Each part is modified's element
    /// itself or its patch with its key member (`Differ::element_patch`):
    /// either way an object whose key member is modified's, so the key
    /// checks `precompose` makes on lists it did not build hold here.
    #[inline]
    fn push(&mut self, d: Option<Value<'a>>, x: Option<Value<'a>>, w: Walk<'_, '_>) -> bool {
        let plain = |v: Value<'a>| -> Option<Object<'a>> {
            let o = v.as_object()?;
            (!o.contains_key(PATCH)).then_some(o)
        };
        let (d, x) = match (d.map(plain), x.map(plain)) {
            (Some(None), _) | (_, Some(None)) => return false,
            (d, x) => (d.flatten(), x.flatten()),
        };
        match (x, d) {
            (Some(xo), Some(po)) => {
                let Some(v) = self.fast.object(xo, po, w.cursor(), w.depth() + 1) else {
                    return false;
                };
                self.out.push(v);
            }
            (Some(xo), None) => self.out.push(Value::Object(xo)),
            (None, Some(po)) => self.out.push(Value::Object(po)),
            (None, None) => {}
        }
        self.counts[0] += usize::from(d.is_some());
        self.counts[1] += usize::from(x.is_some());
        true
    }
}

/// One element's patch in a keyed list's diff (`Differ::element_patch`).
#[derive(Clone, Copy)]
enum Sub<'a> {
    /// The elements do not differ.
    Empty,
    /// The patch (with the key member), a `$patch: delete` one.
    Delete(Value<'a>),
    /// Any other patch (with the key member).
    Keep(Value<'a>),
}

/// One keyed-list diff's elements as `Differ::assemble` gathers them, one
/// element of the new list at a time: the patches kept (in the new list's
/// order) and the `$patch: delete` entries with their keys (sorted by key
/// when the diff is finished).
struct Gather<'a> {
    keep: Vec<Value<'a>>,
    deletes: Vec<(&'a str, Value<'a>)>,
}

impl<'a> Gather<'a> {
    /// Room for `n` kept patches (a long list's vector then never grows:
    /// each growth copied every patch gathered so far).
    fn with_capacity(n: usize) -> Self {
        Gather {
            keep: Vec::with_capacity(n),
            deletes: Vec::new(),
        }
    }

    /// Takes the element `e` (key text `k()`, read only for a `$patch:
    /// delete` entry) of the new list: with a
    /// partner in the old list, its patch `sub` (`None`: none was made, an
    /// error of the caller's); without one, the element itself unless
    /// `ica` (the diff ignores changes and additions).
    #[inline]
    fn take(
        &mut self,
        k: impl FnOnce() -> &'a str,
        e: Value<'a>,
        paired: bool,
        sub: Option<Sub<'a>>,
        ica: bool,
    ) -> Option<()> {
        if !paired {
            if !ica {
                if directives::is_delete(&e) {
                    self.deletes.push((k(), e));
                } else {
                    self.keep.push(e);
                }
            }
            return Some(());
        }
        match sub? {
            Sub::Empty => {}
            Sub::Delete(sub) => self.deletes.push((k(), sub)),
            Sub::Keep(sub) => self.keep.push(sub),
        }
        Some(())
    }
}

/// The outcome of [`Differ::keyed_three`].
// Returned once per list and consumed at once: boxing would allocate.
#[allow(clippy::large_enum_variant)]
enum Keyed<'a> {
    /// The lists are outside the shared case: each diff takes its own step.
    Apart,
    /// An error: give up.
    Bail,
    /// `delta`, `deletions`, `changed`.
    Done([ListDiff<'a>; 3]),
}

/// One side pair of a keyed list: the old and the new list, and the
/// partner in the old list of each element of the new one.
struct Pair<'x, 'a> {
    a: &'x [Elem<'a>],
    b_list: &'a [Value<'a>],
    b: &'x [Elem<'a>],
    b_to_a: &'x [u32],
}

impl<'a> Differ<'a> {
    /// `delta`, `deletions` and `changed` of the objects `o` (original),
    /// `m` (modified) and `c` (current) at `w`; `None` on any error.
    /// Without `run.ch` (`create_three_way` with `OnConflict::Overwrite`, which
    /// checks no conflict) `changed` is left empty and its errors unseen.
    pub(crate) fn diff_three(
        &self,
        o: Object<'a>,
        m: Object<'a>,
        c: Object<'a>,
        w: Walk<'_, '_>,
        rk: RetainKeys,
        run: Run<'a, '_>,
    ) -> Option<Three<'a>> {
        w.check().ok()?;
        grow_stack(|| self.diff_three_inner(o, m, c, w, rk, run))
    }

    fn diff_three_inner(
        &self,
        o: Object<'a>,
        m: Object<'a>,
        c: Object<'a>,
        w: Walk<'_, '_>,
        rk: RetainKeys,
        run: Run<'a, '_>,
    ) -> Option<Three<'a>> {
        // Current read from original's text stands for it: the same
        // value (so the same diffs), one tree fewer to read.
        let c = if same_text(o, c) { o } else { c };
        if same_source(o, m, c) && self.unchanged(m, w) {
            #[cfg(test)]
            tests::SKIPPED.with(|n| n.set(n.get() + 1));
            return Some(Three {
                delta: Object::default(),
                deletions: Object::default(),
                changed: Object::default(),
            });
        }
        if aligned_objects(o, m, c) {
            return self.diff_three_aligned(o, m, c, w, rk, run);
        }
        let o_index = Index::new(o);
        let c_index = Index::new(c);
        let mut delta = self.take_scratch();
        let mut dels = self.take_scratch();
        let mut retain: Vec<&'a str> = Vec::new();
        let mut done: Vec<(&'a str, Ident, Done<'a>)> = Vec::new();
        for mem in m.members() {
            let (k, mv) = (mem.key, mem.value);
            if rk == RetainKeys::Build && !mv.is_null() {
                retain.push(k);
            }
            let cv = c_index.get(k);
            let ov = o_index.get(k);
            if let Some(d) = self.member_three(k, ov, mv, cv, w, run, &mut delta, &mut dels)? {
                // Scalars have no identity: `changed` diffs them itself.
                if let Some(id) = cv.map(|v| ident(&v)).filter(|&id| id != Ident::None) {
                    done.push((k, id, d));
                }
            }
        }
        let m_index = Index::new(m);
        let delta = self.finish_diff(c, &m_index, delta, retain.clone(), DELTA);
        let deletions = self.finish_diff(o, &m_index, dels, retain, DELETIONS);
        if !run.ch {
            return Some(Three {
                delta,
                deletions,
                changed: Object::default(),
            });
        }

        // `changed`, in current's order, reusing the shared steps.
        let done_index: Option<HashMap<&'a str, usize>> =
            (done.len() > 8).then(|| done.iter().enumerate().map(|(i, d)| (d.0, i)).collect());
        let mut changed = self.take_scratch();
        let mut c_retain: Vec<&'a str> = Vec::new();
        for mem in c.members() {
            let (k, cv) = (mem.key, mem.value);
            if rk == RetainKeys::Build && !cv.is_null() {
                c_retain.push(k);
            }
            let found = match &done_index {
                Some(ix) => ix.get(k).map(|&i| done[i]),
                None => done.iter().find(|d| d.0 == k).copied(),
            };
            // Only the value the shared step saw (a repeated key of current
            // holds another).
            match found.filter(|d| d.1 == ident(&cv)) {
                Some((_, _, d)) => self.push_done(&mut changed, k, d),
                None => {
                    self.diff_member(o_index.get(k), k, cv, w, CHANGED, &mut changed)
                        .ok()?;
                }
            }
        }
        let changed = self.finish_diff(o, &c_index, changed, c_retain, CHANGED);
        Some(Three {
            delta,
            deletions,
            changed,
        })
    }

    /// True when every diff of the object `x` (at `w`, already checked
    /// for depth) with an equal copy of itself is empty and without error,
    /// as `diff_objects` works it out: no `$patch` member other than a
    /// string, no `replace` object (Q17 sends those unchanged unless
    /// quirks are fixed), no primitive merge list (Q1 can order those),
    /// keyed lists of objects holding their keys (so both pairing paths
    /// pair each element with itself), nothing deeper than the limit.
    /// `false` only means "not shown": the caller then walks as usual.
    fn unchanged(&self, x: Object<'a>, w: Walk<'_, '_>) -> bool {
        let (cur, path) = (w.cursor(), w.path());
        for mem in x.members() {
            let k = mem.key;
            match mem.value {
                Value::Object(_) | Value::Array(_) if k == PATCH => return false,
                Value::Object(sub) => {
                    // A failed lookup: equal values diff to nothing.
                    let Ok(field) = self.rules.field(cur, k, FieldShape::Object) else {
                        continue;
                    };
                    if field.meta.strategy == Strategy::Replace {
                        if self.rules.fix_quirks {
                            continue;
                        }
                        return false;
                    }
                    let here = Path::Key(path, k);
                    let ww = w.step(&here, field.cursor);
                    if ww.check().is_err() || !grow_stack(|| self.unchanged(sub, ww)) {
                        return false;
                    }
                }
                Value::Array(list) => {
                    let Ok(field) = self.rules.field(cur, k, FieldShape::List) else {
                        continue;
                    };
                    let keys = match self.rules.list_plan(field.meta) {
                        ListPlan::Atomic => continue,
                        _ if list.is_empty() => continue,
                        ListPlan::Merge(KeySpec::Value) => return false,
                        ListPlan::Merge(keys) => keys,
                    };
                    let here = Path::Key(path, k);
                    let lw = w.step(&here, field.cursor);
                    for (i, e) in list.iter().enumerate() {
                        let Value::Object(eo) = *e else {
                            return false;
                        };
                        if !keys.names().all(|n| eo.contains_key(n)) {
                            return false;
                        }
                        let ih = Path::Index(lw.path(), i);
                        let ew = lw.step(&ih, lw.cursor());
                        if ew.check().is_err() || !grow_stack(|| self.unchanged(eo, ew)) {
                            return false;
                        }
                    }
                }
                Value::String(_) => {}
                _ if k == PATCH => return false,
                _ => {}
            }
        }
        true
    }

    /// [`Self::diff_three_inner`] for three objects with the same keys in
    /// the same order, none twice: members pair by position, and no member
    /// is deleted (so `$retainKeys` follows the patch alone).
    fn diff_three_aligned(
        &self,
        o: Object<'a>,
        m: Object<'a>,
        c: Object<'a>,
        w: Walk<'_, '_>,
        rk: RetainKeys,
        run: Run<'a, '_>,
    ) -> Option<Three<'a>> {
        let (om, mm, cm) = (o.members(), m.members(), c.members());
        // Most positions differ nowhere: buffers allocate on first use.
        let mut delta = Vec::new();
        let mut dels = Vec::new();
        let mut changed = Vec::new();
        // Current's members stand where modified's do, so `changed` is built
        // in the same loop, in current's order.
        for i in 0..mm.len() {
            let (k, ov, mv, cv) = (mm[i].key, om[i].value, mm[i].value, cm[i].value);
            match self.member_three(k, Some(ov), mv, Some(cv), w, run, &mut delta, &mut dels)? {
                _ if !run.ch => {}
                Some(d) => self.push_done(&mut changed, cm[i].key, d),
                None => self
                    .diff_member(Some(ov), cm[i].key, cv, w, CHANGED, &mut changed)
                    .ok()?,
            }
        }
        let retained = |obj: Object<'a>| -> Vec<&'a str> {
            if rk == RetainKeys::Build {
                obj.members()
                    .iter()
                    .filter(|mem| !mem.value.is_null())
                    .map(|mem| mem.key)
                    .collect()
            } else {
                Vec::new()
            }
        };
        let m_retain = retained(m);
        Some(Three {
            delta: self.finish_aligned(delta, m_retain.clone()),
            deletions: self.finish_aligned(dels, m_retain),
            changed: self.finish_aligned(changed, retained(c)),
        })
    }

    /// `finish_diff` when the old object has no key the new one lacks.
    fn finish_aligned(&self, mut patch: Vec<Member<'a>>, mut retain: Vec<&'a str>) -> Object<'a> {
        if patch.is_empty() {
            return Object::default();
        }
        if !retain.is_empty() {
            retain.sort_unstable();
            let list: Vec<Value<'a>> = retain.into_iter().map(Value::String).collect();
            crate::shared::set_retain_keys(self.arena, &mut patch, &list);
        }
        Object::from_members(self.arena.alloc_slice_copy(&patch))
    }

    /// What `changed` holds for a key worked out by [`Self::member_three`].
    fn push_done(&self, changed: &mut Vec<Member<'a>>, k: &'a str, d: Done<'a>) {
        match d {
            Done::Object(sub) => {
                if !sub.is_empty() {
                    changed.push(Member {
                        key: k,
                        value: Value::Object(sub),
                    });
                }
            }
            Done::List(d) => self.push_list_diff(changed, k, d),
            Done::Member(v) => {
                if let Some(value) = v {
                    changed.push(Member { key: k, value });
                }
            }
        }
    }

    /// One member `k` of modified (`mv`) with original's and current's
    /// values: pushes what `delta` and `deletions` hold for it, and returns
    /// what `changed` holds when the step was shared (`None` inside: the
    /// caller diffs original and current itself). `None`: an error.
    ///
    /// Inlined into its two callers: returned through memory, the `Done`
    /// was read back before its stores had landed (a store-forwarding
    /// stall; measured 5 % of create3 on the 121 KB Deployment).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn member_three(
        &self,
        k: &'a str,
        ov: Option<Value<'a>>,
        mv: Value<'a>,
        cv: Option<Value<'a>>,
        w: Walk<'_, '_>,
        run: Run<'a, '_>,
        delta: &mut Vec<Member<'a>>,
        dels: &mut Vec<Member<'a>>,
    ) -> Option<Option<Done<'a>>> {
        let (cur, path) = (w.cursor(), w.path());
        // A failed schema lookup leaves this member to the separate steps
        // below (`break 'shared`), which report it unless the values are
        // equal; the rest of the walk stays shared.
        'shared: {
            let (Some(cv), Some(ov), false) = (cv, ov, k == PATCH) else {
                break 'shared;
            };
            let here = Path::Key(path, k);
            match (ov, mv, cv) {
                (Value::Object(oo), Value::Object(mo), Value::Object(co)) => {
                    let Ok(field) = self.rules.field(cur, k, FieldShape::Object) else {
                        break 'shared;
                    };
                    if field.meta.strategy != Strategy::Replace {
                        let sub = self.diff_three(
                            oo,
                            mo,
                            co,
                            w.step(&here, field.cursor),
                            RetainKeys::of(field.meta),
                            run,
                        )?;
                        if !sub.delta.is_empty() {
                            delta.push(Member {
                                key: k,
                                value: Value::Object(sub.delta),
                            });
                        }
                        if !sub.deletions.is_empty() {
                            dels.push(Member {
                                key: k,
                                value: Value::Object(sub.deletions),
                            });
                        }
                        return Some(Some(Done::Object(sub.changed)));
                    }
                }
                (Value::Array(ol), Value::Array(ml), Value::Array(cl)) => {
                    let Ok(field) = self.rules.field(cur, k, FieldShape::List) else {
                        break 'shared;
                    };
                    let plan = self.rules.list_plan(field.meta);
                    if let ListPlan::Atomic = plan {
                        // `delta` sets the list when current's differs,
                        // `changed` when original's does.
                        if !same_list(cl, ml) {
                            delta.push(Member { key: k, value: mv });
                        }
                        let changed = (run.ch && !same_list(ol, cl)).then_some(cv);
                        return Some(Some(Done::Member(changed)));
                    }
                    if let ListPlan::Merge(keys) = plan {
                        match self.keyed_three(
                            (ol, ml, cl),
                            w.step(&here, field.cursor),
                            keys,
                            RetainKeys::of(field.meta),
                            run,
                        ) {
                            Keyed::Apart => {}
                            Keyed::Bail => return None,
                            Keyed::Done([d, x, c]) => {
                                self.push_list_diff(delta, k, d);
                                self.push_list_diff(dels, k, x);
                                return Some(Some(Done::List(c)));
                            }
                        }
                    }
                }
                (Value::String(_) | Value::Number(_) | Value::Bool(_), _, _)
                    if ov.kind() == mv.kind()
                        && mv.kind() == cv.kind()
                        && same_value(&ov, &mv)
                        && same_value(&mv, &cv) =>
                {
                    // Equal scalars: no diff holds anything.
                    return Some(Some(Done::Object(Object::default())));
                }
                _ => {}
            }
        }
        self.diff_member(cv, k, mv, w, DELTA, delta).ok()?;
        self.diff_member(ov, k, mv, w, DELETIONS, dels).ok()?;
        Some(None)
    }

    /// The three diffs of a merge list keyed by `key` (`w`: the list's path
    /// and ELEMENT schema), when all three lists are in the case
    /// `diff_keyed_unique` answers.
    fn keyed_three(
        &self,
        (o, m, c): (&'a [Value<'a>], &'a [Value<'a>], &'a [Value<'a>]),
        w: Walk<'_, '_>,
        keys: KeySpec<'_>,
        retain: RetainKeys,
        run: Run<'a, '_>,
    ) -> Keyed<'a> {
        let path = w.path();
        // `diff_lists`' own answers for an empty old list, and its kind
        // check, stay with the separate diffs.
        if o.is_empty() || c.is_empty() {
            return Keyed::Apart;
        }
        // Objects only, in three non-empty lists: every kind check answers
        // "objects".
        if let Some(r) = self.keyed_aligned((o, m, c), w, keys, retain, run) {
            return r;
        }
        let KeySpec::Single(key) = keys else {
            return Keyed::Apart;
        };
        // Objects with string keys in three lists, one non-empty: the kind
        // checks of the separate diffs answer "objects".
        // Long lists pair by sorting key hashes (see `Pairing::new`).
        let sorting = pairs_by_sort(o.len(), m.len()) && pairs_by_sort(c.len(), m.len());
        let (mut oh, mut mh, mut ch) = (Vec::new(), Vec::new(), Vec::new());
        let (Some(o_e), Some(m_e)) = (
            keyed_elems(o, key, sorting.then_some(&mut oh)),
            keyed_elems(m, key, sorting.then_some(&mut mh)),
        ) else {
            return Keyed::Apart;
        };
        let c_own = if std::ptr::eq(c, o) {
            None
        } else {
            let Some(c_e) = keyed_elems(c, key, sorting.then_some(&mut ch)) else {
                return Keyed::Apart;
            };
            Some(c_e)
        };
        let (c_e, ch) = match &c_own {
            Some(c_e) => (&c_e[..], &ch[..]),
            None => (&o_e[..], &oh[..]),
        };
        let hashes = sorting.then_some([&oh[..], &mh[..], ch]);
        let Some(mut pairs) = Pairing::new(&o_e, &m_e, c_e, hashes) else {
            return Keyed::Apart;
        };
        // Per element of m: its diff against current's and original's
        // element of that key; per element of current: against original's.
        // Each element patch is built (with its key member) while the
        // element diff is hot, and `delta`'s and `deletions`' (modified's
        // side of both) are gathered at once (`Gather`): no vector of
        // them is kept and read again; `changed`'s (current's order) are
        // kept for `assemble`.
        let mut c_sub: Vec<Option<Sub<'a>>> = vec![None; c.len()];
        let (mut d_gather, mut x_gather);
        // Pairs by hash are checked before their diff; unequal keys (a
        // hash collision) pair the lists again by the maps and start over
        // (the element patches made so far stay unused in the arena).
        // The composition of `delta` and `deletions` (see `precompose`),
        // built element by element while each element's patches are hot,
        // when every element of original pairs with one of modified (else
        // `deletions` holds `$patch: delete` entries and none is recorded).
        let mut hot: Option<HotCompose<'a, '_>>;
        'pairs: loop {
            d_gather = Gather::with_capacity(m.len());
            x_gather = Gather::with_capacity(m.len());
            hot = run
                .fast
                .filter(|_| covers(&pairs.m_o, o.len()))
                .map(|fast| HotCompose {
                    fast,
                    out: Vec::with_capacity(m.len()),
                    counts: [0, 0],
                });
            let differs = |a: &Elem<'a>, b: &Elem<'a>| !same_str(text(a), text(b));
            for (mi, &(me, m_key)) in m_e.iter().enumerate() {
                let m_text = || text(&m_e[mi]);
                let (oi, ci) = (pairs.m_o[mi], pairs.m_c[mi]);
                if !pairs.verified
                    && (oi != UNPAIRED && differs(&o_e[oi as usize], &m_e[mi])
                        || ci != UNPAIRED && differs(&c_e[ci as usize], &m_e[mi]))
                {
                    let Some(p) = repair(&o_e, &m_e, c_e, &mut c_sub) else {
                        return Keyed::Apart;
                    };
                    pairs = p;
                    continue 'pairs;
                }
                let here = Path::Index(path, mi);
                let ww = w.step(&here, w.cursor());
                let (mut d_sub, mut x_sub) = (None, None);
                match (oi != UNPAIRED, ci != UNPAIRED) {
                    (true, true) => {
                        let (oi, ci) = (oi as usize, ci as usize);
                        let Some(t) = self.diff_three(o_e[oi].0, me, c_e[ci].0, ww, retain, run)
                        else {
                            return Keyed::Bail;
                        };
                        d_sub = Some(self.element_patch(t.delta, m_key));
                        x_sub = Some(self.element_patch(t.deletions, m_key));
                        c_sub[ci] = Some(self.element_patch(t.changed, c_e[ci].1));
                    }
                    (false, true) => {
                        match self.diff_objects(c_e[ci as usize].0, me, ww, DELTA, retain) {
                            Ok(s) => d_sub = Some(self.element_patch(s, m_key)),
                            Err(_) => return Keyed::Bail,
                        }
                    }
                    (true, false) => {
                        match self.diff_objects(o_e[oi as usize].0, me, ww, DELETIONS, retain) {
                            Ok(s) => x_sub = Some(self.element_patch(s, m_key)),
                            Err(_) => return Keyed::Bail,
                        }
                    }
                    (false, false) => {}
                }
                let e = m[mi];
                let d_take = d_gather.take(m_text, e, ci != UNPAIRED, d_sub, false);
                let x_take = x_gather.take(m_text, e, oi != UNPAIRED, x_sub, true);
                if d_take.is_none() || x_take.is_none() {
                    return Keyed::Bail;
                }
                if let Some(h) = &mut hot {
                    // `delta` holds modified's unpaired elements as they
                    // are (`DELTA` keeps additions); `deletions` does not.
                    let d = if ci == UNPAIRED {
                        Some(e)
                    } else {
                        sub_value(d_sub)
                    };
                    if !h.push(d, sub_value(x_sub), w) {
                        hot = None;
                    }
                }
            }
            for (ci, &(ce, c_key)) in c_e.iter().enumerate() {
                let oi = pairs.c_o[ci];
                if !run.ch || c_sub[ci].is_some() || oi == UNPAIRED {
                    continue;
                }
                if !pairs.verified && differs(&o_e[oi as usize], &c_e[ci]) {
                    let Some(p) = repair(&o_e, &m_e, c_e, &mut c_sub) else {
                        return Keyed::Apart;
                    };
                    pairs = p;
                    continue 'pairs;
                }
                let here = Path::Index(path, ci);
                match self.diff_objects(
                    o_e[oi as usize].0,
                    ce,
                    w.step(&here, w.cursor()),
                    CHANGED,
                    retain,
                ) {
                    Ok(s) => c_sub[ci] = Some(self.element_patch(s, c_key)),
                    Err(_) => return Keyed::Bail,
                }
            }
            break;
        }
        let pair = |a, b_list, b, b_to_a| Pair {
            a,
            b_list,
            b,
            b_to_a,
        };
        // One `$setElementOrder` list (modified's keys) serves both.
        let mut m_order = None;
        let d = self.finish_gather(
            d_gather,
            pair(c_e, m, &m_e, &pairs.m_c),
            key,
            DELTA,
            &mut m_order,
        );
        let x = self.finish_gather(
            x_gather,
            pair(&o_e, m, &m_e, &pairs.m_o),
            key,
            DELETIONS,
            &mut m_order,
        );
        let c = if run.ch {
            self.assemble(
                pair(&o_e, c, c_e, &pairs.c_o),
                &c_sub,
                key,
                CHANGED,
                &mut None,
            )
        } else {
            Some(ListDiff::default())
        };
        match c {
            Some(c) => {
                if let Some(h) = hot {
                    self.record(h, &d, &x);
                }
                Keyed::Done([d, x, c])
            }
            _ => Keyed::Bail,
        }
    }

    /// The three diffs of keyed lists (one merge key) whose elements carry
    /// the same keys in the same order in all three lists, all strings or
    /// all integers, none twice: every diff then pairs elements by position
    /// (the unique-key path and the sorting path alike). `None`: the lists
    /// are not in that case.
    fn keyed_aligned(
        &self,
        (o, m, c): (&'a [Value<'a>], &'a [Value<'a>], &'a [Value<'a>]),
        w: Walk<'_, '_>,
        keys: KeySpec<'_>,
        retain: RetainKeys,
        run: Run<'a, '_>,
    ) -> Option<Keyed<'a>> {
        let KeySpec::Single(key) = keys else {
            return None;
        };
        if o.len() != m.len() || c.len() != m.len() || m.is_empty() {
            return None;
        }
        let key_member = |v: &Value<'a>| -> Option<(Object<'a>, &'a Member<'a>)> {
            let obj = v.as_object()?;
            let mem = key_member(&obj, key)?;
            Some((obj, mem))
        };
        // The key's text: a string, or an integer's literal (one kind for
        // the whole list).
        let text = |v: Value<'a>, strings: bool| -> Option<&'a str> {
            match v {
                Value::String(s) if strings => Some(s),
                Value::Number(n) if !strings && n.is_int() => Some(n.literal()),
                _ => None,
            }
        };
        let mut strings = None;
        let mut elems: Vec<[(Object<'a>, &'a Member<'a>); 3]> = Vec::with_capacity(m.len());
        let mut texts: Vec<&'a str> = Vec::with_capacity(m.len());
        for i in 0..m.len() {
            let (oe, me, ce) = (key_member(&o[i])?, key_member(&m[i])?, key_member(&c[i])?);
            let s = *strings.get_or_insert(matches!(me.1.value, Value::String(_)));
            let t = text(me.1.value, s)?;
            if !same_str(text(oe.1.value, s)?, t) || !same_str(text(ce.1.value, s)?, t) {
                return None;
            }
            elems.push([oe, me, ce]);
            texts.push(t);
        }
        let unique = if texts.len() <= 8 {
            (1..texts.len()).all(|i| !texts[..i].contains(&texts[i]))
        } else {
            let mut seen: HashSet<&str> =
                HashSet::with_capacity_and_hasher(texts.len(), Default::default());
            texts.iter().all(|t| seen.insert(t))
        };
        if !unique {
            return None;
        }
        let path = w.path();
        let mut subs: Vec<[Object<'a>; 3]> = Vec::with_capacity(m.len());
        for (i, [oe, me, ce]) in elems.iter().enumerate() {
            let here = Path::Index(path, i);
            let Some(t) = self.diff_three(oe.0, me.0, ce.0, w.step(&here, w.cursor()), retain, run)
            else {
                return Some(Keyed::Bail);
            };
            subs.push([t.delta, t.deletions, t.changed]);
        }
        // Per diff: which sub, the new list's side, the flags.
        let mut out = [ListDiff::default(); 3];
        // One `$setElementOrder` list (modified's keys) serves `delta` and
        // `deletions`.
        let mut m_order = None;
        let slots = if run.ch { 3 } else { 2 };
        for (slot, (which, b, flags)) in [(0, 1, DELTA), (1, 1, DELETIONS), (2, 2, CHANGED)]
            .into_iter()
            .take(slots)
            .enumerate()
        {
            let mut add: Vec<Value<'a>> = Vec::new();
            for (i, sub) in subs.iter().enumerate() {
                let sub = sub[which];
                if !sub.is_empty() {
                    let v = self.with_key_member(sub, *elems[i][b].1);
                    if directives::is_delete(&v) {
                        // The paths order delete entries differently.
                        return Some(Keyed::Apart);
                    }
                    add.push(v);
                }
            }
            let ica = flags.ignore_changes_and_additions;
            let emit_order =
                flags.set_element_order && !add.is_empty() && (!ica || !flags.ignore_deletions);
            let order = if emit_order && !m.is_empty() {
                let list = || order_list_of_members(self.arena, elems.iter().map(|e| e[b].1));
                Some(if b == 1 {
                    *m_order.get_or_insert_with(list)
                } else {
                    list()
                })
            } else {
                None
            };
            out[slot] = ListDiff {
                add: (!add.is_empty()).then(|| Value::Array(self.arena.alloc_slice_copy(&add))),
                del: None,
                order,
            };
        }
        self.precompose(run, texts.iter().copied(), &out[0], &out[1], keys, w);
        Some(Keyed::Done(out))
    }

    /// Records the composition of a keyed list's `delta` (`d`) and
    /// `deletions` (`x`) when the fused walk can build it without any
    /// look-up (see `compose3.rs`): both lists present with their
    /// `$setElementOrder` lists (built from modified's keys, so equal), in
    /// modified's order (`m_keys`, the key texts of modified's elements,
    /// none twice), no element holding `$patch`. COMPOSE mode then pairs
    /// the elements by key (all distinct), merges each pair, keeps the
    /// others as they are and sorts the result by the order list, which
    /// names every element: modified's order, as built here.
    fn precompose(
        &self,
        run: Run<'a, '_>,
        m_keys: impl Iterator<Item = &'a str>,
        d: &ListDiff<'a>,
        x: &ListDiff<'a>,
        keys: KeySpec<'_>,
        w: Walk<'_, '_>,
    ) {
        let Some(fast) = run.fast else {
            return;
        };
        let KeySpec::Single(key) = keys else {
            return;
        };
        let (Some(Value::Array(pl)), Some(Value::Array(xl)), Some(po), Some(xo), None, None) =
            (d.add, x.add, d.order, x.order, d.del, x.del)
        else {
            return;
        };
        // A plain element and its key text (a string, or an integer's
        // literal).
        let plain_elem = |v: Option<&Value<'a>>| -> Option<(Object<'a>, &'a str)> {
            let o = v?.as_object()?;
            if o.contains_key(PATCH) {
                return None;
            }
            let text = match key_member(&o, key)?.value {
                Value::String(s) => s,
                Value::Number(n) if n.is_int() => n.literal(),
                _ => return None,
            };
            Some((o, text))
        };
        let depth = w.depth() + 1;
        let mut out: Vec<Value<'a>> = Vec::with_capacity(pl.len().max(xl.len()));
        let (mut jp, mut jx) = (0, 0);
        for k in m_keys {
            let pe = plain_elem(pl.get(jp)).filter(|e| same_str(e.1, k));
            let xe = plain_elem(xl.get(jx)).filter(|e| same_str(e.1, k));
            match (xe, pe) {
                (Some((xo, _)), Some((po, _))) => {
                    let Some(v) = fast.object(xo, po, w.cursor(), depth) else {
                        return;
                    };
                    out.push(v);
                }
                (Some((xo, _)), None) => out.push(Value::Object(xo)),
                (None, Some((po, _))) => out.push(Value::Object(po)),
                (None, None) => continue,
            }
            jp += usize::from(pe.is_some());
            jx += usize::from(xe.is_some());
        }
        if jp != pl.len() || jx != xl.len() {
            // An element with `$patch` (or out of modified's order).
            return;
        }
        let (Some(dels), Some(dels_order), Some(delta), Some(delta_order)) = (
            list_id(&Value::Array(xl)),
            list_id(&xo),
            list_id(&Value::Array(pl)),
            list_id(&po),
        ) else {
            return;
        };
        fast.table.insert(
            dels,
            Precomposed {
                dels_order,
                delta,
                delta_order,
                list: Value::Array(self.arena.alloc_slice_copy(&out)),
            },
        );
    }

    /// Records `h`'s composition of `d` and `x` (a keyed list's `delta`
    /// and `deletions`) when it is `precompose`'s: both lists present with
    /// their order lists, and `h` took every element of both (`h` took
    /// plain elements only, in modified's order, so `delta` then holds no
    /// `$patch: delete` entry after them, nor does `deletions`).
    fn record(&self, h: HotCompose<'a, '_>, d: &ListDiff<'a>, x: &ListDiff<'a>) {
        let (Some(Value::Array(pl)), Some(Value::Array(xl)), Some(po), Some(xo), None, None) =
            (d.add, x.add, d.order, x.order, d.del, x.del)
        else {
            return;
        };
        if h.counts != [pl.len(), xl.len()] {
            return;
        }
        let (Some(dels), Some(dels_order), Some(delta), Some(delta_order)) = (
            list_id(&Value::Array(xl)),
            list_id(&xo),
            list_id(&Value::Array(pl)),
            list_id(&po),
        ) else {
            return;
        };
        h.fast.table.insert(
            dels,
            Precomposed {
                dels_order,
                delta,
                delta_order,
                list: Value::Array(self.arena.alloc_slice_copy(&h.out)),
            },
        );
    }

    /// The patch of one list element from its diff `sub`: with the
    /// element's key member (as `diff_keyed_unique` adds it).
    fn element_patch(&self, sub: Object<'a>, key_member: &Member<'a>) -> Sub<'a> {
        if sub.is_empty() {
            return Sub::Empty;
        }
        let v = self.with_key_member(sub, *key_member);
        if directives::is_delete(&v) {
            Sub::Delete(v)
        } else {
            Sub::Keep(v)
        }
    }

    /// `diff_keyed_unique`'s result from the element diffs `subs` (one per
    /// element of the new list that has a partner in the old one).
    fn assemble(
        &self,
        p: Pair<'_, 'a>,
        subs: &[Option<Sub<'a>>],
        key: &str,
        flags: DiffFlags,
        order: &mut Option<Value<'a>>,
    ) -> Option<ListDiff<'a>> {
        let ica = flags.ignore_changes_and_additions;
        let mut g = Gather::with_capacity(0);
        for (bi, e) in p.b.iter().enumerate() {
            let paired = p.b_to_a[bi] != UNPAIRED;
            g.take(|| text(e), p.b_list[bi], paired, subs[bi], ica)?;
        }
        Some(self.finish_gather(g, p, key, flags, order))
    }

    /// `diff_keyed_unique`'s result from `g`, every element of the new
    /// list gathered: the old list's elements without a partner (unless
    /// the diff ignores deletions), the delete entries sorted by key, the
    /// `$setElementOrder` list (`order`: built once, shared).
    fn finish_gather(
        &self,
        g: Gather<'a>,
        p: Pair<'_, 'a>,
        key: &str,
        flags: DiffFlags,
        order: &mut Option<Value<'a>>,
    ) -> ListDiff<'a> {
        let ica = flags.ignore_changes_and_additions;
        let Gather {
            mut keep,
            mut deletes,
        } = g;
        if !flags.ignore_deletions {
            let mut matched = vec![false; p.a.len()];
            for &ai in p.b_to_a {
                if ai != UNPAIRED {
                    matched[ai as usize] = true;
                }
            }
            for (ai, &was_matched) in matched.iter().enumerate() {
                if !was_matched {
                    let (ae, _) = p.a[ai];
                    deletes.push((
                        text(&p.a[ai]),
                        self.key_object(ae, KeySpec::Single(key), Some(PatchDirective::Delete)),
                    ));
                }
            }
        }
        deletes.sort_unstable_by(|x, y| x.0.cmp(y.0));
        let n_add = keep.len() + deletes.len();
        keep.extend(deletes.into_iter().map(|(_, v)| v));
        // Keys are unique in `a`: the lists hold the same keys in the same
        // order exactly when each element of `b` pairs with the element at
        // its own position (no key text read again).
        let same_order =
            p.a.len() == p.b.len() && p.b_to_a.iter().enumerate().all(|(i, &ai)| ai as usize == i);
        let emit_order = flags.set_element_order
            && ((!ica && (n_add != 0 || !same_order)) || (!flags.ignore_deletions && n_add != 0));
        let order = if emit_order && !p.b.is_empty() {
            // The elements' own key members (one `Value` per element).
            Some(*order.get_or_insert_with(|| {
                order_list_of_members(self.arena, p.b.iter().map(|&(_, mem)| mem))
            }))
        } else {
            None
        };
        ListDiff {
            add: (!keep.is_empty()).then(|| Value::Array(self.arena.alloc_slice_copy(&keep))),
            del: None,
            order,
        }
    }
}

#[cfg(test)]
mod tests {
    //! The oracle: the three diffs run one after the other.
    #![allow(clippy::unwrap_used)] // test helpers: a failure is a test failure

    use super::{Run, CHANGED, DELETIONS, DELTA};
    use crate::compose3::{FastCompose, Table};
    use crate::diff::RetainKeys;
    use crate::CreateOptions;
    use proptest::prelude::*;
    use serde_json::Value as J;
    use smpatch_patch_apply::compose_patches;
    use smpatch_schema::{Cursor, Schema};
    use smpatch_testkit::{from_bytes, merge_item_doc, merge_item_patch, Unstructured};
    use smpatch_value::{from_serde, to_json_string, Arena, Object, Path, Value};

    /// Keyed lists of any length paired by sorting (`sort`), or from the
    /// usual length on.
    fn sort_pairing(sort: bool) {
        let min = if sort {
            1
        } else {
            crate::keys::SORT_PAIRING_MIN
        };
        crate::keys::SORT_PAIRING_MIN_FOR_TESTS.with(|c| c.set(min));
    }

    /// The walk without the composition's records.
    fn run<'a, 't>(ch: bool) -> Run<'a, 't> {
        Run { ch, fast: None }
    }

    /// The schema and type a proptest runs on: the shared `mergeItem` when
    /// asked for and present, else our `Widget` (testdata).
    fn proptest_schema(merge_item: bool) -> (Schema, &'static str) {
        match merge_item_schema() {
            Some(s) if merge_item => (s, "mergeItem"),
            _ => {
                let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../../testdata/schemas/widget.v2.json");
                (Schema::load_path(p).unwrap(), "Widget")
            }
        }
    }

    fn merge_item_schema() -> Option<Schema> {
        let p = smpatch_testkit::shared_path("conformance/schemas/merge-item.v2.json")?;
        Some(Schema::load_path(p).unwrap())
    }

    /// What the fused walk gave: `None` when it gave up.
    #[derive(Debug, PartialEq, Eq)]
    enum Outcome {
        Fused,
        GaveUp,
    }

    /// Runs both ways; panics when the fused walk answers and differs from
    /// the separate diffs (or answers where one of them fails).
    fn compare(o: &J, m: &J, c: &J, cursor: Cursor<'_>, opts: &CreateOptions) -> Outcome {
        let arena = Arena::new();
        let doc = |v: &J| {
            if PARSED.with(std::cell::Cell::get) {
                // From compact text: large objects keep it (and one text
                // in all three documents is skipped).
                let text = arena.alloc_str(&serde_json::to_string(v).unwrap());
                let popts = smpatch_value::ParseOptions::default();
                smpatch_value::parse_json(&arena, text.as_bytes(), &popts)
                    .unwrap()
                    .as_object()
            } else {
                from_serde(&arena, v, 256).unwrap().as_object()
            }
        };
        let (Some(ov), Some(mv), Some(cv)) = (doc(o), doc(m), doc(c)) else {
            return Outcome::GaveUp;
        };
        let differ = opts.differ(&arena);
        let root = Path::Root;
        let fused = |ch| {
            differ.diff_three(
                ov,
                mv,
                cv,
                differ.root(&root, cursor),
                RetainKeys::Skip,
                run(ch),
            )
        };
        let apart = |a, b, flags| {
            differ
                .diff_objects(a, b, differ.root(&root, cursor), flags, RetainKeys::Skip)
                .map(|p| to_json_string(&smpatch_value::Value::Object(p)))
        };
        let show = |p| to_json_string(&smpatch_value::Value::Object(p));
        let ctx = format!("o={o} m={m} c={c} opts={opts:?}");
        // Without `changed` (no conflict check): the other two the same,
        // `changed` empty; it answers wherever the full walk does.
        let without = fused(false);
        if let Some(t) = &without {
            assert_eq!(Ok(show(t.delta)), apart(cv, mv, DELTA), "delta: {ctx}");
            assert_eq!(
                Ok(show(t.deletions)),
                apart(ov, mv, DELETIONS),
                "deletions: {ctx}"
            );
            assert!(t.changed.is_empty(), "changed: {ctx}");
        }
        let Some(t) = fused(true) else {
            return Outcome::GaveUp;
        };
        assert!(without.is_some(), "gave up without `changed`: {ctx}");
        assert_eq!(Ok(show(t.delta)), apart(cv, mv, DELTA), "delta: {ctx}");
        assert_eq!(
            Ok(show(t.deletions)),
            apart(ov, mv, DELETIONS),
            "deletions: {ctx}"
        );
        assert_eq!(
            Ok(show(t.changed)),
            apart(ov, cv, CHANGED),
            "changed: {ctx}"
        );
        if compare_compose(&arena, (ov, mv, cv), cursor, opts, &ctx) {
            FAST_COMPOSED.with(|n| n.set(n.get() + 1));
        }
        Outcome::Fused
    }

    thread_local! {
        /// How many [`compare`] calls the fast composition answered.
        static FAST_COMPOSED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        /// How many objects the walk skipped as one text in all three
        /// documents.
        pub(super) static SKIPPED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        /// [`compare`] reads its documents from compact text (else from
        /// serde values, which keep no text).
        static PARSED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    fn skipped() -> u32 {
        SKIPPED.with(std::cell::Cell::get)
    }

    /// `v` with every string value (outside `$` directives and their
    /// lists) lengthened, so that most objects holding strings reach the
    /// size from which the parser keeps their text.
    fn lengthen(v: &J) -> J {
        match v {
            J::String(s) => J::String(format!("{s}-{}", "p".repeat(90))),
            J::Array(a) => J::Array(a.iter().map(lengthen).collect()),
            J::Object(o) => J::Object(
                o.iter()
                    .map(|(k, v)| {
                        let v = if k.starts_with('$') {
                            v.clone()
                        } else {
                            lengthen(v)
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            _ => v.clone(),
        }
    }

    /// [`compare`] on documents read from compact text, strings
    /// lengthened when `long` (so subtrees shared by the three documents
    /// are skipped as one text).
    fn compare_parsed(
        o: &J,
        m: &J,
        c: &J,
        cursor: Cursor<'_>,
        opts: &CreateOptions,
        long: bool,
    ) -> Outcome {
        let fix = |v: &J| if long { lengthen(v) } else { v.clone() };
        PARSED.with(|p| p.set(true));
        let out = compare(&fix(o), &fix(m), &fix(c), cursor, opts);
        PARSED.with(|p| p.set(false));
        out
    }

    fn fast_composed() -> u32 {
        FAST_COMPOSED.with(std::cell::Cell::get)
    }

    /// The walk with the composition's records: the same `delta` and
    /// `deletions`, and where the fast composition answers, the answer of
    /// `compose_patches` (which must not fail there). True when the fast
    /// composition answered.
    fn compare_compose<'a>(
        arena: &'a Arena,
        (ov, mv, cv): (Object<'a>, Object<'a>, Object<'a>),
        cursor: Cursor<'_>,
        opts: &CreateOptions,
        ctx: &str,
    ) -> bool {
        let differ = opts.differ(arena);
        let root = Path::Root;
        let table = Table::default();
        let fast = FastCompose::new(arena, opts, &table);
        for ch in [false, true] {
            table.clear();
            let run = Run {
                ch,
                fast: Some(&fast),
            };
            let w = differ.root(&root, cursor);
            let Some(t) = differ.diff_three(ov, mv, cv, w, RetainKeys::Skip, run) else {
                continue;
            };
            let show = |p| to_json_string(&smpatch_value::Value::Object(p));
            let apart = |a, b, flags| {
                differ
                    .diff_objects(a, b, differ.root(&root, cursor), flags, RetainKeys::Skip)
                    .map(|p| to_json_string(&smpatch_value::Value::Object(p)))
            };
            assert_eq!(Ok(show(t.delta)), apart(cv, mv, DELTA), "delta: {ctx}");
            assert_eq!(
                Ok(show(t.deletions)),
                apart(ov, mv, DELETIONS),
                "deletions: {ctx}"
            );
            if table.is_empty() {
                continue;
            }
            let Some(got) = fast.object(t.deletions, t.delta, cursor, 1) else {
                continue;
            };
            let want = compose_patches(
                arena,
                Value::Object(t.deletions),
                Value::Object(t.delta),
                cursor,
                &crate::compose::apply_options(opts),
            )
            .unwrap_or_else(|e| {
                panic!("compose_patches failed ({e}) where the fast one answered: {ctx}")
            });
            assert_eq!(
                to_json_string(&got),
                to_json_string(&want),
                "compose: {ctx}"
            );
            assert!(got.deep_eq(&want), "compose: {ctx}");
            if ch {
                return true;
            }
        }
        false
    }

    /// One document of a triple: well-formed, rich in directives and
    /// malformed parts, or a copy of an earlier one.
    fn doc(bytes: &[u8], kind: u8, earlier: &[J]) -> J {
        let fresh = |well_formed: bool| {
            if well_formed {
                from_bytes(bytes, |u| merge_item_doc(u, 3))
            } else {
                from_bytes(bytes, |u| merge_item_patch(u, 3))
            }
        };
        pick_doc(fresh, kind, earlier)
    }

    /// A fresh document (`fresh(well_formed)`), a copy of the last earlier
    /// one, or a mix of both, as `kind` says.
    fn pick_doc(fresh: impl Fn(bool) -> J, kind: u8, earlier: &[J]) -> J {
        let Some(last) = earlier.last() else {
            return fresh(kind % 3 != 0);
        };
        match kind % 8 {
            0 | 1 => fresh(true),
            2 => fresh(false),
            3 => last.clone(),
            // An earlier document with some parts taken from a fresh one
            // (the three then share most of their shape).
            k => mix(last, &fresh(k != 7), kind / 8),
        }
    }

    /// `base` with some members (and some elements of equally long lists)
    /// taken from `other`, chosen by the bits of `pick`.
    fn mix(base: &J, other: &J, pick: u8) -> J {
        match (base, other) {
            (J::Object(b), J::Object(o)) => {
                let mut out = b.clone();
                for (i, (k, ov)) in o.iter().enumerate() {
                    let bit = pick.rotate_left(i as u32);
                    match (out.get(k), bit % 4) {
                        (Some(bv), 0 | 1) => {
                            let mixed = mix(bv, ov, pick.wrapping_mul(31).wrapping_add(i as u8));
                            out.insert(k.clone(), mixed);
                        }
                        (_, 2) => {
                            out.insert(k.clone(), ov.clone());
                        }
                        _ => {}
                    }
                }
                J::Object(out)
            }
            (J::Array(b), J::Array(o)) if b.len() == o.len() => J::Array(
                b.iter()
                    .zip(o)
                    .enumerate()
                    .map(|(i, (x, y))| {
                        if (pick >> (i % 8)) & 1 == 1 {
                            mix(x, y, pick.wrapping_add(i as u8))
                        } else {
                            x.clone()
                        }
                    })
                    .collect(),
            ),
            _ if pick % 3 == 0 => other.clone(),
            _ => base.clone(),
        }
    }

    fn options(fix_quirks: bool, compound_keys: bool) -> CreateOptions {
        CreateOptions::default()
            .with_fix_quirks(fix_quirks)
            .with_compound_keys(compound_keys)
    }

    /// A `Widget` of `testdata/schemas/widget.v2.json`: keyed lists by
    /// string `id` (nested, one with `retainKeys`) and by integer `port`
    /// (with list-map keys `port`, `protocol`), primitive merge lists, a
    /// `retainKeys` object, a `replace` object, atomic lists. Unless
    /// `well_formed`: repeated and missing keys, keys of the wrong kind,
    /// `$patch` members.
    fn widget(u: &mut Unstructured<'_>, well_formed: bool) -> smpatch_testkit::Result<J> {
        use serde_json::json;
        let junk = |u: &mut Unstructured<'_>| -> smpatch_testkit::Result<bool> {
            Ok(!well_formed && u.ratio(1, 6)?)
        };
        let word = |u: &mut Unstructured<'_>| -> smpatch_testkit::Result<J> {
            Ok(json!(*u.choose(&["a", "b", "c", "d"])?))
        };
        let mut w = serde_json::Map::new();
        if u.arbitrary()? {
            w.insert("name".into(), word(u)?);
        }
        if u.arbitrary()? {
            w.insert("size".into(), json!(u.int_in_range(0..=2)?));
        }
        if u.arbitrary()? {
            let mut labels = serde_json::Map::new();
            for _ in 0..u.int_in_range(0..=2)? {
                labels.insert((*u.choose(&["x", "y", "z"])?).into(), word(u)?);
            }
            w.insert("labels".into(), J::Object(labels));
        }
        for list in ["items", "mounts"] {
            if u.arbitrary()? {
                let mut items = Vec::new();
                let mut ids = vec!["a", "b", "c", "d"];
                for _ in 0..u.int_in_range(0..=3)? {
                    let mut it = serde_json::Map::new();
                    if junk(u)? {
                        it.insert("id".into(), json!(1));
                    } else if !ids.is_empty() {
                        let i = u.choose_index(ids.len())?;
                        let id = if junk(u)? { ids[i] } else { ids.remove(i) };
                        it.insert("id".into(), json!(id));
                    }
                    if u.arbitrary()? {
                        it.insert("v".into(), word(u)?);
                    }
                    if u.arbitrary()? {
                        it.insert("w".into(), word(u)?);
                    }
                    if u.arbitrary()? {
                        let n = u.int_in_range(0..=2)?;
                        let sub: Vec<J> = ["s1", "s2"][..n]
                            .iter()
                            .map(|id| json!({"id": id, "v": "1"}))
                            .collect();
                        it.insert("sub".into(), J::Array(sub));
                    }
                    if u.arbitrary()? {
                        it.insert("vals".into(), json!(["p", "q"][..u.int_in_range(0..=2)?]));
                    }
                    if junk(u)? {
                        it.insert(
                            "$patch".into(),
                            json!(*u.choose(&["delete", "replace", "x"])?),
                        );
                    }
                    items.push(J::Object(it));
                }
                w.insert(list.into(), J::Array(items));
            }
        }
        if u.arbitrary()? {
            let mut ports = Vec::new();
            let mut left = vec![80, 443, 8080];
            for _ in 0..u.int_in_range(0..=3)? {
                if left.is_empty() {
                    break;
                }
                let i = u.choose_index(left.len())?;
                let port = if junk(u)? { left[i] } else { left.remove(i) };
                let port = if junk(u)? {
                    json!(port.to_string())
                } else {
                    json!(port)
                };
                let mut p = json!({"port": port, "protocol": *u.choose(&["TCP", "UDP"])?});
                if u.arbitrary()? {
                    p["name"] = word(u)?;
                }
                ports.push(p);
            }
            w.insert("ports".into(), J::Array(ports));
        }
        if u.arbitrary()? {
            let n = u.int_in_range(0..=3)?;
            w.insert("tags".into(), json!(["t1", "t3", "t2"][..n]));
        }
        if u.arbitrary()? {
            w.insert(
                "args".into(),
                json!(["--a", "--b"][..u.int_in_range(0..=2)?]),
            );
        }
        if u.arbitrary()? {
            let mut src = serde_json::Map::new();
            if u.arbitrary()? {
                src.insert("type".into(), json!(*u.choose(&["Git", "Http"])?));
            }
            if u.arbitrary()? {
                src.insert("git".into(), json!({"url": word(u)?}));
            }
            if u.arbitrary()? {
                src.insert("note".into(), word(u)?);
            }
            w.insert("source".into(), J::Object(src));
        }
        if u.arbitrary()? {
            w.insert("blob".into(), json!({"k": word(u)?}));
        }
        Ok(J::Object(w))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn fused_equals_separate_diffs_widget(
            bytes in prop::array::uniform3(prop::collection::vec(any::<u8>(), 0..200)),
            kinds in prop::array::uniform3(any::<u8>()),
            fix_quirks in any::<bool>(),
            compound_keys in any::<bool>(),
            sort in any::<bool>(),
        ) {
            sort_pairing(sort);
            let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../testdata/schemas/widget.v2.json");
            let schema = Schema::load_path(p).unwrap();
            let cursor = schema.cursor("Widget").unwrap();
            let mut docs: Vec<J> = Vec::new();
            for i in 0..3 {
                let fresh = |wf: bool| {
                    from_bytes(&bytes[i], |u| widget(u, wf).map(Some)).unwrap_or_default()
                };
                let d = pick_doc(fresh, kinds[i], &docs);
                docs.push(d);
            }
            compare(&docs[0], &docs[1], &docs[2], cursor, &options(fix_quirks, compound_keys));
        }

        /// The widget triples read from compact text, strings lengthened
        /// or not: subtrees shared by the three documents are skipped.
        #[test]
        fn fused_equals_separate_diffs_parsed(
            bytes in prop::array::uniform3(prop::collection::vec(any::<u8>(), 0..200)),
            kinds in prop::array::uniform3(any::<u8>()),
            fix_quirks in any::<bool>(),
            compound_keys in any::<bool>(),
            long in any::<bool>(),
            merge_item in any::<bool>(),
            share in any::<bool>(),
        ) {
            let (schema, ty) = proptest_schema(merge_item);
            let cursor = schema.cursor(ty).unwrap();
            let mut docs: Vec<J> = Vec::new();
            for i in 0..3 {
                // Mostly copies and mixes of the document before (many
                // subtrees shared by all three).
                let kind = if share { (kinds[i] & !7) | (3 + kinds[i] % 5) } else { kinds[i] };
                let d = if ty == "Widget" {
                    let fresh = |wf: bool| {
                        from_bytes(&bytes[i], |u| widget(u, wf).map(Some)).unwrap_or_default()
                    };
                    pick_doc(fresh, kind, &docs)
                } else {
                    doc(&bytes[i], kind, &docs)
                };
                docs.push(d);
            }
            let opts = options(fix_quirks, compound_keys);
            compare_parsed(&docs[0], &docs[1], &docs[2], cursor, &opts, long);
        }

        /// Where the walk skips an object (one text in all three
        /// documents), every diff of that object with itself is empty and
        /// without error: checked on single documents of every shape, at
        /// low depth limits too.
        #[test]
        fn unchanged_objects_diff_to_nothing(
            bytes in prop::collection::vec(any::<u8>(), 0..300),
            well_formed in any::<bool>(),
            fix_quirks in any::<bool>(),
            compound_keys in any::<bool>(),
            merge_item in any::<bool>(),
            limit in 1usize..8,
        ) {
            let (schema, ty) = proptest_schema(merge_item);
            let cursor = schema.cursor(ty).unwrap();
            let x = if ty == "Widget" {
                from_bytes(&bytes, |u| widget(u, well_formed).map(Some)).unwrap_or_default()
            } else if well_formed {
                from_bytes(&bytes, |u| merge_item_doc(u, 3))
            } else {
                from_bytes(&bytes, |u| merge_item_patch(u, 3))
            };
            let limit = if limit == 7 { 256 } else { limit };
            let opts = options(fix_quirks, compound_keys).with_max_depth(limit);
            let arena = Arena::new();
            let obj = |v: &J| from_serde(&arena, v, 512).unwrap().as_object();
            let (Some(a), Some(b)) = (obj(&x), obj(&x)) else { return Ok(()) };
            let differ = opts.differ(&arena);
            let root = Path::Root;
            if differ.unchanged(b, differ.root(&root, cursor)) {
                // With and without a `$retainKeys` list at the top (a
                // retainKeys field's object is diffed with `Build`).
                for build in [false, true] {
                    for flags in [DELTA, DELETIONS, CHANGED] {
                        let retain = if build { RetainKeys::Build } else { RetainKeys::Skip };
                        let d = differ.diff_objects(a, b, differ.root(&root, cursor), flags, retain);
                        prop_assert!(
                            matches!(&d, Ok(p) if p.is_empty()),
                            "x={} opts={:?} flags={:?} build={}: {:?}",
                            x, opts, flags, build, d.map(|p| to_json_string(&Value::Object(p)))
                        );
                    }
                }
            }
        }

        #[test]
        fn fused_equals_separate_diffs(
            bytes in prop::array::uniform3(prop::collection::vec(any::<u8>(), 0..200)),
            kinds in prop::array::uniform3(any::<u8>()),
            fix_quirks in any::<bool>(),
            compound_keys in any::<bool>(),
            sort in any::<bool>(),
        ) {
            sort_pairing(sort);
            let Some(schema) = merge_item_schema() else { return Ok(()) };
            let cursor = schema.cursor("mergeItem").unwrap();
            let mut docs: Vec<J> = Vec::new();
            for i in 0..3 {
                let d = doc(&bytes[i], kinds[i], &docs);
                docs.push(d);
            }
            compare(&docs[0], &docs[1], &docs[2], cursor, &options(fix_quirks, compound_keys));
        }
    }

    /// How many objects one fused walk over the documents (read from
    /// compact text) skips as one text in all three.
    fn skips(o: &J, m: &J, c: &J, cursor: Cursor<'_>, opts: &CreateOptions) -> u32 {
        let arena = Arena::new();
        let doc = |v: &J| {
            let text = arena.alloc_str(&serde_json::to_string(v).unwrap());
            let popts = smpatch_value::ParseOptions::default();
            smpatch_value::parse_json(&arena, text.as_bytes(), &popts)
                .unwrap()
                .as_object()
                .unwrap()
        };
        let differ = opts.differ(&arena);
        let root = Path::Root;
        let before = skipped();
        let w = differ.root(&root, cursor);
        let _ = differ.diff_three(doc(o), doc(m), doc(c), w, RetainKeys::Skip, run(true));
        skipped() - before
    }

    /// Containers the three documents hold as one text are skipped, with
    /// the separate diffs' answer: keyed lists by string and integer keys
    /// inside, `$patch` strings, unknown fields; not skipped (walked, same
    /// answer) where a self-diff is not empty or fails: a primitive merge
    /// list (Q1), a keyed-list element without its key, a non-string
    /// `$patch`, a subtree deeper than the limit.
    #[test]
    fn skips_subtrees_one_text_in_all_three() {
        use serde_json::json;
        let schema = smpatch_schema::embedded();
        let cursor = schema.cursor("apps/v1/Deployment").unwrap();
        let container = |i: usize, image: &str, extra: Option<(&str, J)>| {
            let env: Vec<J> = (0..6)
                .map(|j| {
                    if j % 3 == 0 {
                        json!({"name": format!("SECRET_{j}"), "valueFrom": {"secretKeyRef": {"name": format!("s{i}"), "key": "password"}}})
                    } else {
                        json!({"name": format!("VAR_{j}"), "value": format!("http://svc-{i}.example:{j}/v1")})
                    }
                })
                .collect();
            let mut c = json!({
                "name": format!("c{i}"), "image": image, "args": ["--a", "--b"],
                "ports": [{"name": "http", "containerPort": 8080 + i, "protocol": "TCP"}],
                "env": env,
                "resources": {"limits": {"cpu": "100m"}},
                "volumeMounts": [{"name": "config", "mountPath": format!("/etc/c{i}")}],
            });
            if let Some((k, v)) = extra {
                c[k] = v;
            }
            c
        };
        // Under 256 bytes each (no text kept), over it together.
        let labels: serde_json::Map<String, J> = (0..4)
            .map(|i| {
                (
                    format!("example.com/label-{i}"),
                    json!(format!("value-{i}-{}", "v".repeat(20))),
                )
            })
            .collect();
        let deploy = |cs: Vec<J>, replicas: u32, finalizers: &J| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "d", "labels": labels, "annotations": labels, "finalizers": finalizers},
                "spec": {"replicas": replicas, "template": {"spec": {"containers": cs}}}})
        };
        let with = |extra: Option<(&str, J)>, finalizers: J| {
            let cs = || {
                (0..4)
                    .map(|i| container(i, "a:1", extra.clone()))
                    .collect::<Vec<J>>()
            };
            let mut mc = cs();
            mc[1] = container(1, "a:2", extra.clone());
            (
                deploy(cs(), 1, &finalizers),
                deploy(mc, 2, &finalizers),
                deploy(cs(), 3, &finalizers),
            )
        };
        // (With compound keys the containers' list, keyed by its list-map
        // keys, takes the separate diffs: checked for the answer only.)
        for (fq, ck) in [(false, false), (true, false), (true, true)] {
            let opts = options(fq, ck);
            let cases = [
                // Three containers and the metadata (with an empty merge
                // list) skipped.
                (None, json!([]), 4),
                (
                    Some(("x-unknown", json!({"$patch": "delete", "k": [1]}))),
                    json!([]),
                    4,
                ),
                // A primitive merge list (Q1 orders an unsorted one even
                // unchanged): the metadata is walked.
                (None, json!(["z", "a"]), 3),
                (None, json!(["a", "z"]), 3),
                // The containers are walked.
                (Some(("ports", json!([{"protocol": "TCP"}]))), json!([]), 1),
                (Some(("$patch", json!(1))), json!([]), 1),
            ];
            for (extra, finalizers, want) in cases {
                let (o, m, c) = with(extra.clone(), finalizers.clone());
                let ctx = format!("{extra:?} {finalizers} {fq} {ck}");
                if !ck {
                    assert_eq!(skips(&o, &m, &c, cursor, &opts), want, "{ctx}");
                }
                compare_parsed(&o, &m, &c, cursor, &opts, false);
            }
        }
        // Deeper than the limit inside a shared container (an env
        // element's `valueFrom` at depth 8): the walk gives up (the
        // separate diffs report it); only the metadata was skipped.
        let (o, m, c) = with(None, json!([]));
        let shallow = options(false, false).with_max_depth(7);
        assert_eq!(skips(&o, &m, &c, cursor, &shallow), 1);
        assert_eq!(
            compare_parsed(&o, &m, &c, cursor, &shallow, false),
            Outcome::GaveUp
        );
    }

    /// The fused walk answers for most well-formed triples (the oracle test
    /// above cannot pass by giving up everywhere).
    #[test]
    fn fused_answers_well_formed_triples() {
        let Some(schema) = merge_item_schema() else {
            return;
        };
        let cursor = schema.cursor("mergeItem").unwrap();
        let mut fused = 0;
        let total = 300u32;
        for seed in 0..total {
            let bytes = |salt: u32| -> Vec<u8> {
                (0..160u32)
                    .map(|i| {
                        (seed.wrapping_mul(2_654_435_761) ^ (i + salt).wrapping_mul(40_503)) as u8
                    })
                    .collect()
            };
            let o = from_bytes(&bytes(1), |u| merge_item_doc(u, 3));
            let m = from_bytes(&bytes(7), |u| merge_item_doc(u, 3));
            let c = from_bytes(&bytes(13), |u| merge_item_doc(u, 3));
            if compare(&o, &m, &c, cursor, &options(seed % 2 == 0, seed % 3 == 0)) == Outcome::Fused
            {
                fused += 1;
            }
        }
        assert!(fused * 10 >= total * 9, "fused {fused} of {total}");
    }

    /// Keyed lists whose elements change fields (so both `delta` and
    /// `deletions` hold the list) in other orders, nested keyed lists, new
    /// elements, nulls, `$patch` members and repeated keys, compared with
    /// `compose_patches`; the fast composition must answer for most.
    #[test]
    fn fast_composition_equals_compose_patches() {
        use serde_json::json;
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/schemas/widget.v2.json");
        let schema = Schema::load_path(p).unwrap();
        let cursor = schema.cursor("Widget").unwrap();
        let before = fast_composed();
        let total = 400u32;
        for seed in 0..total {
            let mut r = seed.wrapping_mul(2_654_435_761) | 1;
            let mut next = move |n: u32| {
                r ^= r << 13;
                r ^= r >> 17;
                r ^= r << 5;
                r % n
            };
            let ids = ["a", "b", "c", "d", "e"];
            let elem = |id: &str, next: &mut dyn FnMut(u32) -> u32| {
                let mut e = serde_json::Map::new();
                e.insert("id".into(), json!(id));
                for f in ["v", "w"] {
                    match next(4) {
                        0 => {}
                        1 => {
                            e.insert(f.into(), json!(null));
                        }
                        _ => {
                            e.insert(f.into(), json!(format!("{}", next(3))));
                        }
                    }
                }
                if next(3) == 0 {
                    let n = next(3) as usize;
                    let sub: Vec<J> = ["s1", "s2"][..n.min(2)]
                        .iter()
                        .map(|s| json!({"id": s, "v": format!("{}", next(2))}))
                        .collect();
                    e.insert("sub".into(), J::Array(sub));
                }
                if next(40) == 0 {
                    e.insert("$patch".into(), json!("replace"));
                }
                J::Object(e)
            };
            let n = 1 + next(5) as usize;
            let o_ids: Vec<&str> = ids[..n].to_vec();
            // Modified: original's keys in another order, one more
            // sometimes, one repeated rarely.
            let mut m_ids = o_ids.clone();
            for i in (1..m_ids.len()).rev() {
                m_ids.swap(i, next(i as u32 + 1) as usize);
            }
            if n < ids.len() && next(3) == 0 {
                m_ids.push(ids[n]);
            }
            if next(30) == 0 {
                m_ids.push(m_ids[0]);
            }
            let o: Vec<J> = o_ids.iter().map(|id| elem(id, &mut next)).collect();
            let m: Vec<J> = m_ids.iter().map(|id| elem(id, &mut next)).collect();
            let c: Vec<J> = match next(3) {
                0 => o.clone(),
                1 => o_ids.iter().map(|id| elem(id, &mut next)).collect(),
                _ => o.iter().rev().cloned().collect(),
            };
            let doc = |l: &Vec<J>| json!({"items": l, "name": "x"});
            let opts = options(seed % 2 == 0, seed % 3 == 0);
            sort_pairing(seed % 5 < 2);
            compare(&doc(&o), &doc(&m), &doc(&c), cursor, &opts);
        }
        sort_pairing(false);
        let composed = fast_composed() - before;
        assert!(
            composed * 2 >= total,
            "fast composition answered {composed} of {total}"
        );
    }

    /// Integer merge keys `0` and `-0` in one list (a reviewer's worry: the
    /// walk's key texts differ while the numbers are equal): the fast
    /// composition answers as `compose_patches` does.
    #[test]
    fn negative_zero_integer_keys_compose_as_the_reference() {
        use serde_json::json;
        let schema = smpatch_schema::embedded();
        let cursor = schema.cursor("v1/Pod").unwrap();
        let ports = |a: &str, b: &str| -> J {
            serde_json::from_str(&format!(
                r#"[{{"containerPort": 0, "name": "{a}", "protocol": "TCP"}},
                    {{"containerPort": -0, "name": "{b}", "protocol": "UDP"}}]"#
            ))
            .unwrap()
        };
        let doc = |p: J| json!({"spec": {"containers": [{"name": "c", "image": "i", "ports": p}]}});
        let mut m = ports("x", "y");
        for e in m.as_array_mut().unwrap() {
            e.as_object_mut().unwrap().remove("protocol");
        }
        let before = fast_composed();
        for (fq, ck) in [(false, false), (true, true)] {
            compare(
                &doc(ports("a", "b")),
                &doc(m.clone()),
                &doc(ports("a", "b")),
                cursor,
                &options(fq, ck),
            );
        }
        // The fast composition answered (and `compare_compose` found
        // `compose_patches` agreeing).
        assert!(fast_composed() > before);
    }

    /// A long keyed list reversed, every element changed and some losing a
    /// field (the scaling benches' shape), with current in original's
    /// order or its own: the fast composition answers, as
    /// `compose_patches` does, and `create_three_way` returns that patch.
    #[test]
    fn fast_composition_of_long_lists() {
        use crate::{create_three_way, OnConflict, ThreeWay};
        use serde_json::json;
        let Some(schema) = merge_item_schema() else {
            return;
        };
        let cursor = schema.cursor("mergeItem").unwrap();
        let n = 6000;
        let o: Vec<J> = (0..n)
            .map(|i| {
                if i % 7 == 0 {
                    json!({"name": format!("n{i}"), "other": "x"})
                } else {
                    json!({"name": format!("n{i}"), "value": "v"})
                }
            })
            .collect();
        let m: Vec<J> = (0..n)
            .rev()
            .map(|i| json!({"name": format!("n{i}"), "value": format!("c{i}")}))
            .collect();
        let c_own: Vec<J> = o
            .iter()
            .skip(100)
            .chain(o.iter().take(100))
            .cloned()
            .collect();
        let doc = |l: &Vec<J>| json!({"mergingList": l, "value": "s"});
        for (fq, ck) in [(false, false), (true, true)] {
            // The sort pairing with `fix_quirks`.
            sort_pairing(fq);
            for c in [&o, &c_own] {
                let opts = options(fq, ck);
                let arena = Arena::new();
                let obj = |v: &J| from_serde(&arena, v, 256).unwrap().as_object().unwrap();
                let (ov, mv, cv) = (obj(&doc(&o)), obj(&doc(&m)), obj(&doc(c)));
                assert!(compare_compose(&arena, (ov, mv, cv), cursor, &opts, "long"));
                let docs = ThreeWay {
                    original: Value::Object(ov),
                    modified: Value::Object(mv),
                    current: Value::Object(cv),
                };
                let p = create_three_way(&arena, docs, cursor, OnConflict::Overwrite, &opts, &[])
                    .unwrap();
                let differ = opts.differ(&arena);
                let root = Path::Root;
                let diff = |a, b, flags| {
                    differ
                        .diff_objects(a, b, differ.root(&root, cursor), flags, RetainKeys::Skip)
                        .unwrap()
                };
                let want = compose_patches(
                    &arena,
                    Value::Object(diff(ov, mv, DELETIONS)),
                    Value::Object(diff(cv, mv, DELTA)),
                    cursor,
                    &crate::compose::apply_options(&opts),
                )
                .unwrap();
                assert_eq!(to_json_string(&p), to_json_string(&want));
            }
        }
        sort_pairing(false);
    }

    /// `keyed_three` gathers `delta`'s and `deletions`' element patches in
    /// its element loop (and composes them there): long reordered lists
    /// with elements added in modified (one of them a `$patch: delete`
    /// entry), dropped from it, missing from or added to current, each
    /// equal to the separate diffs, and the composition, when recorded, to
    /// `compose_patches`; by the maps and by the sort pairing.
    #[test]
    fn gathered_long_lists_equal_separate_diffs() {
        use serde_json::json;
        let Some(schema) = merge_item_schema() else {
            return;
        };
        let cursor = schema.cursor("mergeItem").unwrap();
        let n = 5000;
        let elem = |i: usize, v: &str| {
            if i % 5 == 0 {
                json!({"name": format!("n{i}"), "other": v})
            } else {
                json!({"name": format!("n{i}"), "value": v})
            }
        };
        let o: Vec<J> = (0..n).map(|i| elem(i, "v")).collect();
        // Modified: reversed, every third element changed, every tenth
        // without its `other`, 30 new ones; unless `covered`, the last 50
        // of original dropped and one new `$patch: delete` entry.
        let modified = |covered: bool| -> Vec<J> {
            let keep = if covered { n } else { n - 50 };
            let mut m: Vec<J> = (0..keep)
                .rev()
                .map(|i| match i {
                    // `other` dropped: a `deletions` entry.
                    _ if i % 10 == 0 => json!({"name": format!("n{i}"), "value": "c"}),
                    _ => elem(i, if i % 3 == 0 { "c" } else { "v" }),
                })
                .collect();
            m.extend((n..n + 30).map(|i| json!({"name": format!("n{i}"), "value": "new"})));
            if !covered {
                m.insert(7, json!({"name": "gone", "$patch": "delete"}));
            }
            m
        };
        // Current: original without its first 20 elements, 10 of its own,
        // or original itself.
        let mut c_own: Vec<J> = o.iter().skip(20).cloned().collect();
        c_own.extend((0..10).map(|i| json!({"name": format!("live{i}"), "value": "l"})));
        let doc = |l: &Vec<J>| json!({"mergingList": l, "value": "s"});
        for sort in [false, true] {
            sort_pairing(sort);
            for covered in [false, true] {
                let m = modified(covered);
                for c in [&o, &c_own] {
                    let opts = options(sort, false);
                    let arena = Arena::new();
                    let obj = |v: &J| from_serde(&arena, v, 256).unwrap().as_object().unwrap();
                    let (ov, mv, cv) = (obj(&doc(&o)), obj(&doc(&m)), obj(&doc(c)));
                    let ctx = format!("sort {sort}, covered {covered}");
                    // Recorded exactly when every element of original
                    // pairs and none holds `$patch` (else `deletions` or
                    // `delta` holds delete entries).
                    let recorded = compare_compose(&arena, (ov, mv, cv), cursor, &opts, &ctx);
                    assert_eq!(recorded, covered, "{ctx}");
                    let t = compare(&doc(&o), &doc(&m), &doc(c), cursor, &opts);
                    assert!(matches!(t, Outcome::Fused), "{ctx}");
                }
            }
        }
        sort_pairing(false);
    }

    /// `$patch: delete` entries on every side of long reordered lists: in
    /// current, unpaired and paired with original's element; in modified,
    /// unpaired and paired with current's; by the maps and by the sort
    /// pairing, each equal to the separate diffs.
    #[test]
    fn delete_entries_of_long_lists_equal_separate_diffs() {
        use serde_json::json;
        let Some(schema) = merge_item_schema() else {
            return;
        };
        let cursor = schema.cursor("mergeItem").unwrap();
        let n = 3000;
        let elem = |i: usize, v: &str| json!({"name": format!("n{i}"), "value": v});
        let del = |k: String| json!({"name": k, "$patch": "delete"});
        let o: Vec<J> = (0..n).map(|i| elem(i, "v")).collect();
        // Delete entries whose keys sort opposite to their positions.
        let mut m: Vec<J> = (0..n)
            .rev()
            .map(|i| match i {
                40 => del("n40".into()),
                _ => elem(i, if i % 3 == 0 { "c" } else { "v" }),
            })
            .collect();
        m.insert(5, del("zz-gone".into()));
        let mut c: Vec<J> = (0..n)
            .map(|i| (i + 77) % n)
            .map(|i| match i {
                177 => del("n177".into()),
                _ => elem(i, "v"),
            })
            .collect();
        c.insert(9, del("zz-live-gone".into()));
        let doc = |l: &Vec<J>| json!({"mergingList": l});
        for sort in [false, true] {
            sort_pairing(sort);
            for (fq, ck) in [(false, false), (true, true)] {
                let got = compare(&doc(&o), &doc(&m), &doc(&c), cursor, &options(fq, ck));
                assert_eq!(got, Outcome::Fused, "sort {sort}, fix_quirks {fq}");
            }
        }
        sort_pairing(false);
    }

    /// Long keyed lists in different orders take the fused walk too (one
    /// pairing for the three diffs), with current in original's order or
    /// in its own, keys added and removed, and outside the shared case
    /// (a repeated key) the separate steps inside the fused walk.
    #[test]
    fn fused_answers_long_reordered_lists() {
        use serde_json::json;
        let Some(schema) = merge_item_schema() else {
            return;
        };
        let cursor = schema.cursor("mergeItem").unwrap();
        let n = 6000;
        let elem = |i: usize, v: &str| {
            if i % 7 == 0 {
                json!({"name": format!("n{i}"), "value": v, "other": "x"})
            } else {
                json!({"name": format!("n{i}"), "value": v})
            }
        };
        let o: Vec<J> = (0..n).map(|i| elem(i, "v")).collect();
        // Modified: reversed, every third changed, every 11th dropped, new
        // keys added.
        let mut m: Vec<J> = (0..n)
            .rev()
            .filter(|i| i % 11 != 5)
            .map(|i| elem(i, if i % 3 == 0 { "changed" } else { "v" }))
            .collect();
        m.extend((n..n + 50).map(|i| elem(i, "new")));
        // Current: original's order with some values changed, or rotated
        // with one key dropped and one added.
        let c_aligned: Vec<J> = (0..n)
            .map(|i| elem(i, if i % 5 == 0 { "live" } else { "v" }))
            .collect();
        let mut c_own: Vec<J> = (0..n)
            .map(|i| (i + 1234) % n)
            .filter(|&i| i != 17)
            .map(|i| elem(i, if i % 4 == 0 { "live" } else { "v" }))
            .collect();
        c_own.push(elem(n + 7, "live"));
        let mut m_repeat = m.clone();
        m_repeat.push(elem(3, "again"));
        let doc = |l: &Vec<J>| json!({"mergingList": l});
        for sort in [false, true] {
            sort_pairing(sort);
            for (fq, ck) in [(false, false), (true, true)] {
                for (mm, c) in [(&m, &c_aligned), (&m, &c_own), (&m_repeat, &c_aligned)] {
                    assert_eq!(
                        compare(&doc(&o), &doc(mm), &doc(c), cursor, &options(fq, ck)),
                        Outcome::Fused
                    );
                }
            }
        }
        sort_pairing(false);
    }

    /// The sort pairing pairs by hash: unequal keys whose hashes agree are
    /// found by comparing the keys and sent to the hash maps (keys hashed
    /// into two values here, so that two of the three keys collide).
    #[test]
    fn sort_pairing_checks_keys() {
        use crate::keys::KEY_HASH_BUCKETS_FOR_TESTS;
        use serde_json::json;
        let Some(schema) = merge_item_schema() else {
            return;
        };
        let cursor = schema.cursor("mergeItem").unwrap();
        sort_pairing(true);
        KEY_HASH_BUCKETS_FOR_TESTS.with(|c| c.set(2));
        let e = |k: &str, v: &str| json!({"name": k, "value": v});
        let doc = |l: Vec<J>| json!({"mergingList": l});
        for (a, b) in [("a", "b"), ("a", "c"), ("b", "c")] {
            // Original and current hold `a`, modified `b`: with colliding
            // hashes the sort pairs them unless the keys are compared.
            let o = doc(vec![e(a, "1")]);
            let m = doc(vec![e(b, "2")]);
            let c = doc(vec![e(a, "3")]);
            let c_own = doc(vec![e(b, "4"), e(a, "5")]);
            for c in [&c, &c_own] {
                assert_eq!(
                    compare(&o, &m, c, cursor, &options(false, false)),
                    Outcome::Fused
                );
            }
        }
        KEY_HASH_BUCKETS_FOR_TESTS.with(|c| c.set(0));
        sort_pairing(false);
    }

    /// A failed schema lookup leaves that field to the separate steps:
    /// the walk still answers when the three values are equal there (the
    /// separate diffs ignore the field), and gives up when they differ (an
    /// error the separate diffs report).
    #[test]
    fn failed_lookup_falls_back_for_that_field() {
        use serde_json::json;
        let Some(schema) = merge_item_schema() else {
            return;
        };
        let cursor = schema.cursor("mergeItem").unwrap();
        let o = json!({"mergingList": [{"name": "a"}], "simpleMap": {"k": "1"}, "value": "x"});
        let m = json!({"mergingList": [{"name": "b"}], "simpleMap": {"k": "2"}, "value": "y"});
        let c = json!({"mergingList": [{"name": "a"}], "simpleMap": {"k": "3"}, "value": "z"});
        // An object below a map: the reference looks no field up there.
        let bad = |mut d: J, v: J| {
            d["simpleMap"]["nested"] = v;
            d
        };
        let opts = options(false, false);
        let same = json!({"x": {"y": 1}});
        assert_eq!(
            compare(
                &bad(o.clone(), same.clone()),
                &bad(m.clone(), same.clone()),
                &bad(c.clone(), same),
                cursor,
                &opts
            ),
            Outcome::Fused
        );
        assert_eq!(
            compare(
                &bad(o, json!({"x": 1})),
                &bad(m, json!({"x": 2})),
                &bad(c, json!({"x": 1})),
                cursor,
                &opts
            ),
            Outcome::GaveUp
        );
    }

    /// Without `changed` (`OnConflict::Overwrite`) an error only the
    /// original-to-current diff meets no longer sends the walk back: it
    /// answers, with the separate diffs' `delta` and `deletions`, and
    /// `create_three_way` returns the same patch either way it is built.
    #[test]
    fn overwrite_walk_ignores_errors_of_changed() {
        use crate::{create_three_way, OnConflict, ThreeWay};
        use serde_json::json;
        let Some(schema) = merge_item_schema() else {
            return;
        };
        let cursor = schema.cursor("mergeItem").unwrap();
        // `changed` compares two objects below a map (no field to look up).
        let o = json!({"simpleMap": {"nested": {"x": 1}}, "value": "a"});
        let m = json!({"simpleMap": {}, "value": "b"});
        let c = json!({"simpleMap": {"nested": {"x": 2}}, "value": "a"});
        let arena = Arena::new();
        let doc = |v: &J| from_serde(&arena, v, 256).unwrap();
        let (ov, mv, cv) = (doc(&o), doc(&m), doc(&c));
        let (oo, mo, co) = (
            ov.as_object().unwrap(),
            mv.as_object().unwrap(),
            cv.as_object().unwrap(),
        );
        let opts = options(false, false);
        let differ = opts.differ(&arena);
        let root = Path::Root;
        let walk = |ch| {
            differ.diff_three(
                oo,
                mo,
                co,
                differ.root(&root, cursor),
                RetainKeys::Skip,
                run(ch),
            )
        };
        assert!(walk(true).is_none());
        let t = walk(false).unwrap();
        let show = |p| to_json_string(&smpatch_value::Value::Object(p));
        assert_eq!(show(t.delta), r#"{"value":"b"}"#);
        assert_eq!(show(t.deletions), r#"{"simpleMap":{"nested":null}}"#);
        let docs = ThreeWay {
            original: ov,
            modified: mv,
            current: cv,
        };
        let p = create_three_way(&arena, docs, cursor, OnConflict::Overwrite, &opts, &[]).unwrap();
        assert_eq!(
            to_json_string(&p),
            r#"{"simpleMap":{"nested":null},"value":"b"}"#
        );
        let e = create_three_way(&arena, docs, cursor, OnConflict::Fail, &opts, &[]).unwrap_err();
        assert_eq!(e.kind(), smpatch_patch_apply::ErrorKind::SchemaLookup);
    }

    #[test]
    fn fused_shares_keyed_lists_and_objects() {
        let Some(schema) = merge_item_schema() else {
            return;
        };
        let cursor = schema.cursor("mergeItem").unwrap();
        let o = serde_json::json!({"mergingList": [{"name": "a", "value": "1", "other": "x"}, {"name": "b"}],
            "mergeItemPtr": {"value": "v", "mergingIntList": [1, 2]}, "simpleMap": {"k1": "a"}});
        let m = serde_json::json!({"mergingList": [{"name": "c"}, {"name": "a", "value": "2"}],
            "mergeItemPtr": {"value": "w", "mergingIntList": [2, 3]}});
        let c = serde_json::json!({"mergingList": [{"name": "a", "value": "1", "other": "y"}, {"name": "b"}, {"name": "d"}],
            "mergeItemPtr": {"value": "v", "mergingIntList": [1, 2], "other": "o"}, "simpleMap": {"k1": "b"}});
        for (fq, ck) in [(false, false), (true, false), (false, true), (true, true)] {
            assert_eq!(
                compare(&o, &m, &c, cursor, &options(fq, ck)),
                Outcome::Fused
            );
        }
    }

    /// Aligned lists outside the shared case (repeated keys, a string and
    /// an integer key of one text) give the separate diffs' answer.
    #[test]
    fn aligned_lists_outside_the_case() {
        use serde_json::json;
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/schemas/widget.v2.json");
        let schema = Schema::load_path(p).unwrap();
        let cursor = schema.cursor("Widget").unwrap();
        let triples = [
            (
                json!({"ports": [{"port": 80, "name": "a"}, {"port": "80", "name": "b"}]}),
                json!({"ports": [{"port": 80, "name": "c"}, {"port": "80", "name": "d"}]}),
                json!({"ports": [{"port": 80, "name": "e"}, {"port": "80", "name": "f"}]}),
            ),
            (
                json!({"items": [{"id": "b", "v": "1"}, {"id": "a", "v": "1"}, {"id": "b", "v": "2"}]}),
                json!({"items": [{"id": "b", "v": "3"}, {"id": "a", "v": "2"}, {"id": "b", "v": "4"}]}),
                json!({"items": [{"id": "b", "v": "1"}, {"id": "a", "v": "3"}, {"id": "b", "v": "5"}]}),
            ),
            (
                json!({"ports": [{"port": 443, "name": "a"}, {"port": 80}, {"port": 443}]}),
                json!({"ports": [{"port": 443, "name": "b"}, {"port": 80, "name": "x"}, {"port": 443, "name": "c"}]}),
                json!({"ports": [{"port": 443}, {"port": 80}, {"port": 443, "name": "d"}]}),
            ),
        ];
        for (o, m, c) in &triples {
            for (fq, ck) in [(false, false), (true, false), (false, true), (true, true)] {
                compare(o, m, c, cursor, &options(fq, ck));
            }
        }
    }
}
