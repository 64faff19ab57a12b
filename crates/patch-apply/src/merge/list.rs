//! Lists (the reference's `mergeSlice`): the element-kind check, primitive sets
//! and keyed merges with their special elements.

use super::clean::{Cleaned, Place};
use super::object::FieldOp;
use super::order::Elements;
use super::scalars::ScalarMerge;
use super::{Merger, Mode};
use crate::directives::{self, PatchDirective};
use crate::identity::{
    all_distinct, id_hash, identity, render_id, FlatId, HashSeen, Id, KeySpec, PosIndex,
};
use crate::rules::{self, KindRule};
use crate::{Error, ErrorKind};
use smpatch_schema::{grow_stack, Walk};
use smpatch_value::hashing::HashSet;
use smpatch_value::{Kind, Member, Step, Value};
use std::borrow::Cow;

/// Result of a list merge: the ordered content and the effective server
/// order `R'` (the live order the reference's `$setElementOrder` pass
/// sorts against; docs/QUIRKS.md#q2).
pub(super) struct ListMerge<'a> {
    /// Borrowed: already the list's final content, in the arena.
    pub(super) items: Cow<'a, [Value<'a>]>,
    pub(super) r_prime: Cow<'a, [Value<'a>]>,
    /// Set when the caller asked to defer the ordering of a keyed merge:
    /// `items` is then the merged content in merge order (live, then
    /// appended), not yet put in the reference's merged-list order.
    pub(super) deferred: Option<Deferred<'a>>,
    /// Set when the caller asked to defer the ordering of a primitive
    /// list's merge: `items` is then its content in merge order
    /// ([`ScalarMerge`]).
    pub(super) scalars: Option<ScalarMerge<'a>>,
}

/// What the ordering of a keyed merge (the reference's merged-list order) needs, kept so that a following
/// `$setElementOrder` pass can skip it when it cannot change the outcome.
pub(super) struct Deferred<'a> {
    /// `pos(P, ·)` over the non-special patch elements (empty when
    /// [`Deferred::carried`] is set: its `ppos` answers instead).
    pub(super) p_index: PosIndex<'a>,
    /// The merge index: first position of each identity in live-after-deletes
    /// followed by the appended patch elements (their identities as sent).
    /// Unset after a merge paired without it ([`Pairing`]) whose identities
    /// are carried: [`Deferred::index`] builds it from the merged list if an
    /// ordering asks.
    index: std::cell::OnceCell<PosIndex<'a>>,
    /// Length of the live list after deletions: `pos(R, ·)` is `index`
    /// restricted to positions below it.
    pub(super) live_len: usize,
    /// True when every appended element kept its identity through cleaning,
    /// so `index` also gives `pos(L' ++ A, ·)` (and hence `pos(R', ·)`).
    pub(super) exact: bool,
    /// The identities the merge already computed, when they are still
    /// exact ([`Carried`]); `None` sends the ordering passes back to
    /// recomputing every element's identity.
    pub(super) carried: Option<Carried<'a>>,
}

impl<'a> ListMerge<'a> {
    /// The merged list as a value in `arena` (copied unless it already is).
    pub(super) fn into_array(self, arena: &'a smpatch_value::Arena) -> Value<'a> {
        match self.items {
            Cow::Borrowed(items) => Value::Array(items),
            Cow::Owned(items) => Value::array_from(arena, &items),
        }
    }
}

/// A keyed merge's result over the live list, for the scan pairing
/// without deletions: the merged values of the live elements the patch
/// touched, by live position, instead of a copy of the live list. On a
/// one-element patch over a 256k-element list, that copy and the copy of
/// it into the arena were most of the merge's memory traffic
/// (docs/BENCHMARKS.md); [`Overlay::apply`] writes the result once.
/// A scan pairs at most [`SCAN_PATCH`] patch elements, so the linear
/// searches here stay short.
#[derive(Default)]
struct Overlay<'a> {
    /// (live position, merged value), one per position, in the order first changed.
    changed: Vec<(usize, Value<'a>)>,
    /// (live position, [`Carried::ppos`] entry) of the live positions that
    /// have one.
    ppos: Vec<(usize, u32)>,
}

impl<'a> Overlay<'a> {
    fn get(&self, i: usize) -> Option<Value<'a>> {
        self.changed.iter().find(|c| c.0 == i).map(|c| c.1)
    }

    fn set(&mut self, i: usize, v: Value<'a>) {
        match self.changed.iter_mut().find(|c| c.0 == i) {
            Some(c) => c.1 = v,
            None => self.changed.push((i, v)),
        }
    }

    /// Records `k` as live position `i`'s `ppos` unless it has one.
    fn first_ppos(&mut self, i: usize, k: u32) {
        if !self.ppos.iter().any(|p| p.0 == i) {
            self.ppos.push((i, k));
        }
    }

    /// `keeps_merge_order` (order.rs) of the dense `ppos` (nothing
    /// appended): the entries ascend with their live positions. The same
    /// rule on the overlay's sparse entries; a change to one is a change to
    /// both.
    fn keeps_live_order(&self) -> bool {
        let mut by_pos = self.ppos.clone();
        by_pos.sort_unstable_by_key(|p| p.0);
        by_pos.windows(2).all(|w| w[0].1 <= w[1].1)
    }

    /// `live` with the changed elements in place, in `arena`.
    fn apply(self, arena: &'a smpatch_value::Arena, live: &[Value<'a>]) -> &'a [Value<'a>] {
        let out = arena.alloc_slice_copy_mut(live);
        for (i, v) in self.changed {
            if let Some(slot) = out.get_mut(i) {
                *slot = v;
            }
        }
        out
    }
}

impl<'a> Deferred<'a> {
    /// The merge index. `merged` is the merged content (in merge order):
    /// when the index was not built, the identities were carried, so each
    /// merged element has the identity of the live or appended element it
    /// came from, and the index of `merged` is the merge index.
    pub(super) fn index(&self, merged: &[Value<'a>], keys: KeySpec<'_>) -> &PosIndex<'a> {
        self.index.get_or_init(|| {
            debug_assert!(self.carried.is_some());
            let mut index = PosIndex::with_capacity(merged.len());
            build_live_index(merged, keys, &mut index);
            index
        })
    }
}

/// Patch lists of up to this many elements are paired by scanning
/// ([`Pairing::Scan`]).
const SCAN_PATCH: usize = 16;

/// Live lists of at least this many elements are paired by hint
/// ([`Pairing::Hint`]) when the patch is longer than [`SCAN_PATCH`]: below
/// it the merge index fits in the L2 cache.
const HINT_LIVE: usize = 2048;

/// Linear searches of the live hashes a [`Hint`] makes before it gives up.
const HINT_SCANS: u32 = 4;

/// How a keyed merge finds the live element each patch element merges into
/// (the first live element with its identity, else the first appended one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pairing {
    /// Through the merge index ([`PosIndex`]) over the whole live list.
    Index,
    /// By one scan of the live list against every patch identity: for a
    /// short patch, the index would cost an entry and a random slot write
    /// per live element to answer a handful of look-ups.
    Scan,
    /// By guessing the live neighbour of the last match ([`Hint`]): a
    /// patch usually lists its elements in the live order or reversed.
    Hint,
}

fn pairing(patch: usize, live: usize) -> Pairing {
    #[cfg(test)]
    if let Some(forced) = crate::identity::FORCE_PAIRING.with(std::cell::Cell::get) {
        return match forced {
            1 => Pairing::Scan,
            2 => Pairing::Hint,
            _ => Pairing::Index,
        };
    }
    if patch <= SCAN_PATCH && live > patch {
        Pairing::Scan
    } else if live >= HINT_LIVE {
        Pairing::Hint
    } else {
        Pairing::Index
    }
}

/// The hint pairing: every live identity's hash, in live order (read
/// sequentially, 8 bytes an element), a [`HashSeen`] of them, and the
/// identities of the appended elements. Only built when every live element
/// has an identity, none holds `$patch: delete` and the hashes are
/// distinct, so a live element with a patch element's identity is its
/// only live match. A patch element is first compared with the live
/// neighbours of the last match; one whose hash was never seen is not in
/// the live list; the rest are searched for in the hashes, at most
/// [`HINT_SCANS`] times before [`Hint::find`] gives up.
///
/// The appended elements' hashes go into a second [`HashSeen`]: a patch
/// element not in the live list whose hash it never saw repeats no
/// appended element, and is appended without any index (a composed
/// three-way patch appends most of a long list: an index entry and a
/// random slot write per element were most of compose's cache misses on
/// 64k+ lists). A hash it may have seen makes [`Hint::find`] give up, and
/// the caller builds the merge index.
struct Hint {
    hashes: Vec<u64>,
    seen: HashSeen,
    last: usize,
    scans: u32,
    appended: HashSeen,
}

impl Hint {
    /// `None` when the live list does not qualify (see [`Hint`]).
    fn new<'a>(live: &[Value<'a>], keys: KeySpec<'_>, patch: usize) -> Option<Self> {
        let mut hashes = Vec::with_capacity(live.len());
        for v in live {
            if directives::is_delete(v) {
                return None;
            }
            let id = identity(*v, keys).ok()?;
            hashes.push(id_hash(&id));
        }
        let mut seen = HashSeen::with_capacity(live.len());
        if !seen.insert_all(&hashes) {
            return None;
        }
        Some(Hint {
            hashes,
            seen,
            last: usize::MAX,
            scans: 0,
            appended: HashSeen::with_capacity(patch),
        })
    }

    /// The merge target of identity `id` (hash `h`): `Some(Some(i))` the
    /// live position, `Some(None)` none (append it, and record its hash
    /// with [`Hint::appended`]), `None` given up.
    fn find<'a>(
        &mut self,
        live: &[Value<'a>],
        keys: KeySpec<'_>,
        h: u64,
        id: &Id<'a>,
    ) -> Option<Option<usize>> {
        let is = |g: usize| {
            self.hashes.get(g) == Some(&h) && identity(live[g], keys).is_ok_and(|x| x == *id)
        };
        let near = [self.last.wrapping_add(1), self.last.wrapping_sub(1)]
            .into_iter()
            .find(|&g| is(g));
        let at = match near {
            Some(g) => Some(g),
            None if !self.seen.contains(h) => None,
            None if self.scans < HINT_SCANS => {
                self.scans += 1;
                (0..self.hashes.len()).find(|&g| is(g))
            }
            None => return None,
        };
        match at {
            Some(g) => {
                self.last = g;
                Some(Some(g))
            }
            // Not in the live list, nor (certainly) appended before.
            None if !self.appended.contains(h) => Some(None),
            // Perhaps appended before: only an index answers that.
            None => None,
        }
    }
}

/// Fills `batch` with the identities, hashes and positions (from `start`)
/// of `chunk`'s elements; clears `exact` when an element has no identity
/// or holds `$patch: delete`.
fn identity_batch<'a>(
    chunk: &[Value<'a>],
    start: usize,
    keys: KeySpec<'_>,
    batch: &mut Vec<(Id<'a>, u64, usize)>,
    exact: &mut bool,
) {
    batch.clear();
    for (k, v) in chunk.iter().enumerate() {
        match identity(*v, keys) {
            Ok(id) => {
                let h = id_hash(&id);
                batch.push((id, h, start + k));
            }
            Err(_) => *exact = false,
        }
        if *exact && directives::is_delete(v) {
            *exact = false;
        }
    }
}

/// Inserts the identities of `list` (position = index) into `index`, first
/// position kept; true when every element has an identity, none holds
/// `$patch: delete` and no two share one (the live part of [`Carried`]).
fn build_live_index<'a>(list: &[Value<'a>], keys: KeySpec<'_>, index: &mut PosIndex<'a>) -> bool {
    let mut exact = true;
    // In batches: the identities and hashes of a batch first, then the
    // slots they land in are read together (independent loads the CPU
    // overlaps), then inserted; on lists larger than the cache each
    // insertion otherwise waits for its own random slot read.
    let mut batch: Vec<(Id<'a>, u64, usize)> = Vec::with_capacity(BATCH);
    for (c, chunk) in list.chunks(BATCH).enumerate() {
        identity_batch(chunk, c * BATCH, keys, &mut batch, &mut exact);
        index.touch(batch.iter().map(|x| x.1));
        for (id, h, i) in batch.drain(..) {
            if index.insert_first_hashed(h, id, i).is_some() {
                exact = false;
            }
        }
    }
    exact
}

/// The scan pairing: `first[r]` becomes the first position in `live` whose
/// identity equals that of `rest[r]` (`usize::MAX`: none), read in one pass
/// over `live`. True when every live element has an identity, none holds
/// `$patch: delete` and no two share one (`identity::all_distinct`, on
/// 64-bit hashes); false sends the orderings down their exact path.
///
/// With `distinct` false (identities will not be carried anyway) the
/// distinctness set is not built and the pass ends once every patch
/// identity has its match.
fn scan_live<'a>(
    live: &[Value<'a>],
    rest: &[(usize, Value<'a>)],
    keys: KeySpec<'_>,
    first: &mut Vec<usize>,
    distinct: bool,
) -> bool {
    // The patch side: identities that fail are reported by the merge loop.
    let wanted: Vec<Option<(Id<'a>, u64)>> = rest
        .iter()
        .map(|(_, e)| {
            identity(*e, keys).ok().map(|id| {
                let h = id_hash(&id);
                (id, h)
            })
        })
        .collect();
    first.clear();
    first.resize(rest.len(), usize::MAX);
    let mut open = wanted.iter().filter(|w| w.is_some()).count();
    // The live hashes, checked distinct after the pass ([`all_distinct`]).
    let mut hashes: Vec<u64> = Vec::with_capacity(if distinct { live.len() } else { 0 });
    let mut exact = distinct;
    let mut batch: Vec<(Id<'a>, u64, usize)> = Vec::with_capacity(BATCH);
    for (c, chunk) in live.chunks(BATCH).enumerate() {
        if !distinct && open == 0 {
            break;
        }
        identity_batch(chunk, c * BATCH, keys, &mut batch, &mut exact);
        for (id, h, i) in batch.drain(..) {
            if exact {
                hashes.push(h);
            }
            if open == 0 {
                continue;
            }
            for (r, want) in wanted.iter().enumerate() {
                if let Some((wid, wh)) = want {
                    if *wh == h && first[r] == usize::MAX && *wid == id {
                        first[r] = i;
                        open -= 1;
                    }
                }
            }
        }
    }
    exact && all_distinct(&hashes)
}

/// Elements whose slots the live index build reads together.
const BATCH: usize = 32;

/// Marks "no position" in [`Carried::ppos`].
pub(super) const NO_POS: u32 = u32::MAX;

/// What a keyed merge learned about its elements' identities, so that the
/// orderings after it ([`Merger::order_merge`], [`Merger::order_set_fast`])
/// need not read every element again (on lists of 16k+ elements those reads
/// were most of the cache misses of apply, docs/BENCHMARKS.md).
///
/// Kept only when all of this holds: every live element (after deletions)
/// has an identity and no two share one; none of them, no merged and no
/// appended element holds `$patch: delete`; and every merged or appended
/// element still has, after merging or cleaning, the identity of the patch
/// element it came from (`$retainKeys` dropping the merge key, or a key set
/// to `null`, clears it). Then merged position `i` holds the only element
/// with its identity, `pos(L', x) = i` below `live_len` and
/// `pos(R', x) = i` below `|R|`.
pub(super) struct Carried<'a> {
    /// Per merged position: the first position among the non-special patch
    /// elements with the same identity, or [`NO_POS`].
    pub(super) ppos: Vec<u32>,
    /// Per non-special patch element, in patch order: its identity, the
    /// identity's hash and the merged position it went to.
    pub(super) patch: Vec<(FlatId<'a>, u64, u32)>,
}

/// Whether a keyed list merge orders its result now or hands the ordering
/// to its caller ([`ListMerge::deferred`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Order {
    Now,
    Defer,
}

impl<'a> Merger<'a, '_> {
    // ----- lists ----------------------------------------------------------------

    /// `sliceElementType` ([`rules::element_kind`]) as apply reads it.
    pub(super) fn element_kind(
        &self,
        lists: &[&[Value<'a>]],
        w: Walk<'_, '_>,
    ) -> Result<Option<Kind>, Error> {
        let rule = KindRule {
            null_anywhere: true,
            numbers_one_kind: self.opts.fix_quirks,
        };
        rules::element_kind_problem(lists, rule).map_err(|p| self.problem(w, p))
    }

    /// `merge_list(L, P)` (merge-key lists, their special elements and
    /// primitive lists) with the reference's merged-list ordering.
    ///
    /// With [`Order::Defer`], a keyed merge returns its content unordered together with
    /// what ordering it needs ([`ListMerge::deferred`]); the caller must order
    /// it with [`Merger::order_merge`] or prove that unnecessary.
    ///
    /// `w` is the list's walk (one level below its object's, its cursor the
    /// element schema), checked here.
    pub(super) fn merge_list(
        &self,
        live: &'a [Value<'a>],
        patch: &'a [Value<'a>],
        keys: KeySpec<'_>,
        op: FieldOp,
        order: Order,
        w: Walk<'_, '_>,
    ) -> Result<ListMerge<'a>, Error> {
        if live.is_empty() && patch.is_empty() {
            return Ok(ListMerge {
                items: Cow::Owned(Vec::new()),
                r_prime: Cow::Borrowed(&[]),
                deferred: None,
                scalars: None,
            });
        }
        self.check_depth(w)?;
        grow_stack(|| self.merge_list_inner(live, patch, keys, op, order, w))
    }

    pub(super) fn merge_list_inner(
        &self,
        live: &'a [Value<'a>],
        patch: &'a [Value<'a>],
        keys: KeySpec<'_>,
        op: FieldOp,
        order: Order,
        w: Walk<'_, '_>,
    ) -> Result<ListMerge<'a>, Error> {
        let elem = w.cursor();
        let del = op == FieldOp::DeleteFrom;
        let kind = self.element_kind(&[live, patch], w)?;
        if kind != Some(Kind::Object) {
            // Scalars: a set.
            if del && self.mode == Mode::Apply {
                if let Some(items) = self.delete_kept(live, patch) {
                    return Ok(ListMerge {
                        items: Cow::Owned(items),
                        r_prime: Cow::Borrowed(live),
                        deferred: None,
                        scalars: None,
                    });
                }
                // Each value hashed once ([`PosIndex`]), sized up front.
                let mut set = PosIndex::with_capacity(patch.len());
                for (j, v) in patch.iter().enumerate() {
                    if let Ok(id) = identity(*v, KeySpec::Value) {
                        set.insert_first_hashed(id_hash(&id), id, j);
                    }
                }
                let items = live
                    .iter()
                    .filter(|v| match identity(**v, KeySpec::Value) {
                        Ok(id) => set.get_hashed(id_hash(&id), &id).is_none(),
                        Err(_) => true,
                    })
                    .copied()
                    .collect();
                return Ok(ListMerge {
                    items: Cow::Owned(items),
                    r_prime: Cow::Borrowed(live),
                    deferred: None,
                    scalars: None,
                });
            }
            return self.merge_scalars(live, patch, keys, kind, order, w);
        }
        // Objects: a keyed list.
        if del && self.opts.fix_quirks {
            return Err(self.problem(w, rules::delete_objects()));
        }
        if !keys.is_keyed() {
            let name = elem.type_name().unwrap_or("<unknown>");
            return Err(self.problem(w, rules::no_merge_key(name)));
        }
        if self.opts.reject_duplicate_keys {
            self.check_duplicates(live, keys, w)?;
        }
        // Special elements first (`$patch: delete` / `replace` / `merge`).
        let mut rest: Vec<(usize, Value<'a>)> = Vec::with_capacity(patch.len());
        let mut deletes: HashSet<Id<'a>> = Default::default();
        let mut replace = false;
        for (j, e) in patch.iter().enumerate() {
            let d =
                rules::list_element_patch(e).map_err(|p| self.problem_at(w, Step::Index(j), p))?;
            match d {
                None => rest.push((j, *e)),
                Some(PatchDirective::Delete) => match identity(*e, keys) {
                    Ok(id) => {
                        deletes.insert(id);
                    }
                    Err(err) => {
                        return Err(self.id_error(
                            w,
                            Some(Step::Index(j)),
                            err,
                            e,
                            "a $patch: delete element",
                        ))
                    }
                },
                Some(PatchDirective::Replace) => replace = true,
                // `list_element_patch` refuses `merge`.
                Some(PatchDirective::Merge) => rest.push((j, *e)),
            }
        }
        let live_after: Cow<'a, [Value<'a>]> = if deletes.is_empty() {
            Cow::Borrowed(live)
        } else {
            Cow::Owned(
                live.iter()
                    .filter(|v| match identity(**v, keys) {
                        Ok(id) => !deletes.contains(&id),
                        Err(_) => true,
                    })
                    .copied()
                    .collect(),
            )
        };
        if replace {
            let mut content = Vec::with_capacity(rest.len());
            for (j, e) in &rest {
                if self.mode == Mode::Apply {
                    let here = w.path().index(*j);
                    if let Some(v) =
                        self.clean_value(*e, Place::ListElement, w.step(&here, elem))?
                    {
                        content.push(self.keep_null_keys(v, *e, keys));
                    }
                } else {
                    content.push(*e);
                }
            }
            let items = self.order(content.clone(), &[], &content, keys, Elements::Objects, w)?;
            return Ok(ListMerge {
                items: Cow::Owned(items),
                r_prime: live_after,
                deferred: None,
                scalars: None,
            });
        }
        // Then merge the rest in patch order.
        let n = live.len();
        let live_len = live_after.len();
        // Whether the identities computed here stay exact ([`Carried`]).
        let mut carry = u32::try_from(live_len + rest.len()).is_ok_and(|t| t < NO_POS);
        #[cfg(test)]
        if crate::identity::NO_CARRY.with(std::cell::Cell::get) {
            carry = false;
        }
        let pairing = pairing(rest.len(), live_len);
        let scan = pairing == Pairing::Scan;
        // A short patch without deletions is merged over the live list
        // ([`Overlay`]) instead of into a copy of it: `merged` then holds only
        // the appended elements, at merged positions from `live_len`.
        let mut overlay = (scan && deletes.is_empty()).then(Overlay::default);
        let mut merged =
            Vec::with_capacity(rest.len() + if overlay.is_none() { live_len } else { 0 });
        if overlay.is_none() {
            merged.extend_from_slice(&live_after);
        }
        let off = if overlay.is_some() { live_len } else { 0 };
        // Index pairing: the merge index over the live list, grown with the
        // appended elements. Scan: each patch element's first live match,
        // found in one pass over the live list. Hint: the live identities'
        // hashes, checked distinct, and a guess next to the last match.
        let mut index = PosIndex::with_capacity(0);
        let mut first_live: Vec<usize> = Vec::new();
        let mut hint: Option<Hint> = None;
        match pairing {
            Pairing::Scan => carry &= scan_live(&live_after, &rest, keys, &mut first_live, carry),
            Pairing::Hint => hint = Hint::new(&live_after, keys, rest.len()),
            Pairing::Index => {}
        }
        if pairing != Pairing::Scan && hint.is_none() {
            index = PosIndex::with_capacity(live_len + rest.len());
            carry &= build_live_index(&live_after, keys, &mut index);
        }
        // With an overlay, `ppos` holds the appended part only (the live
        // part is `Overlay::ppos`).
        let mut ppos: Vec<u32> = if carry && overlay.is_none() {
            let mut p = Vec::with_capacity(live_len + rest.len());
            p.resize(live_len, NO_POS);
            p
        } else {
            Vec::new()
        };
        // Identity, hash and merged position of each non-special patch
        // element; `pos(P, ·)` is built from it only when the identities
        // cannot be carried.
        let mut patch_ids: Vec<(FlatId<'a>, u64, u32)> = Vec::with_capacity(rest.len());
        let mut appended: Vec<Value<'a>> = Vec::new();
        let mut exact = true;
        for (r, (j, e)) in rest.iter().enumerate() {
            let id = match identity(*e, keys) {
                Ok(id) => id,
                Err(err) => {
                    return Err(self.id_error(w, Some(Step::Index(*j)), err, e, "patch element"))
                }
            };
            let h = id_hash(&id);
            let k = patch_ids.len();
            // `e` is an object here: non-objects failed the identity check.
            let Some(eo) = e.as_object() else { continue };
            let found = if scan {
                // The first live match, else the first appended element
                // with this identity (the merge index's answer).
                first_live
                    .get(r)
                    .copied()
                    .filter(|&i| i != usize::MAX)
                    .or_else(|| {
                        patch_ids
                            .iter()
                            .find(|(pid, ph, at)| {
                                *at as usize >= live_len && *ph == h && pid.is(&id)
                            })
                            .map(|x| x.2 as usize)
                    })
            } else {
                let answer = hint.as_mut().map(|hn| hn.find(&live_after, keys, h, &id));
                match answer {
                    Some(Some(found)) => found,
                    Some(None) => {
                        // The hint gave up: build the merge index as the
                        // index pairing has it at this point (the live
                        // identities, then those appended so far).
                        hint = None;
                        index = PosIndex::with_capacity(live_len + rest.len());
                        build_live_index(&live_after, keys, &mut index);
                        for (pid, ph, at) in &patch_ids {
                            if *at as usize >= live_len {
                                index.insert_first_hashed(*ph, pid.to_id(), *at as usize);
                            }
                        }
                        index.get_hashed_refresh(h, &id)
                    }
                    None => index.get_hashed_refresh(h, &id),
                }
            };
            match found {
                Some(i) => {
                    let here = w.path().index(*j);
                    let current = match &overlay {
                        Some(o) if i < live_len => o.get(i).unwrap_or(live_after[i]),
                        _ => merged[i - off],
                    };
                    let r = self.merge_object(current, eo, w.step(&here, elem))?;
                    match &mut overlay {
                        Some(o) if i < live_len => o.set(i, r),
                        _ => merged[i - off] = r,
                    }
                    if carry {
                        // The merged element is hot here: checking that it
                        // kept its identity costs no cache miss.
                        carry = !directives::is_delete(&r)
                            && identity(r, keys).is_ok_and(|rid| rid == id);
                        match &mut overlay {
                            // `k < NO_POS`: checked with `carry` above.
                            Some(o) if i < live_len => o.first_ppos(i, k as u32),
                            _ => {
                                if ppos[i - off] == NO_POS {
                                    ppos[i - off] = k as u32;
                                }
                            }
                        }
                    }
                    patch_ids.push((
                        FlatId::new(&id, self.arena),
                        h,
                        u32::try_from(i).unwrap_or(NO_POS),
                    ));
                }
                None => {
                    let (v, same) = if self.mode == Mode::Apply {
                        // Q6 (always fixed): new elements are cleaned.
                        let here = w.path().index(*j);
                        match self.clean(*e, Place::Field, w.step(&here, elem))? {
                            Cleaned::Same => (*e, true),
                            Cleaned::New(c) => (self.keep_null_keys(c, *e, keys), false),
                            Cleaned::Drop => (Value::empty_object(), false),
                        }
                    } else {
                        (*e, true)
                    };
                    if exact && !same {
                        exact = identity(v, keys).is_ok_and(|cid| cid == id);
                    }
                    let i = off + merged.len();
                    if carry {
                        carry = exact && !directives::is_delete(&v);
                        ppos.push(k as u32);
                    }
                    match &mut hint {
                        _ if scan => {}
                        Some(hn) => {
                            hn.appended.insert(h);
                        }
                        None => {
                            index.insert_first_hashed(h, id.clone(), i);
                        }
                    }
                    patch_ids.push((
                        FlatId::new(&id, self.arena),
                        h,
                        u32::try_from(i).unwrap_or(NO_POS),
                    ));
                    merged.push(v);
                    appended.push(v);
                }
            }
        }
        if let Some(o) = overlay.take() {
            if order == Order::Now && carry && merged.is_empty() && o.keeps_live_order() {
                // The ordering is the merge order (`keeps_merge_order`):
                // the result is the live list with the merged elements in
                // place, copied once, into the arena.
                return Ok(ListMerge {
                    items: Cow::Borrowed(o.apply(self.arena, &live_after)),
                    r_prime: live_after,
                    deferred: None,
                    scalars: None,
                });
            }
            // Materialize the merged list and `ppos` as the other pairings
            // have them.
            let appended_part = std::mem::take(&mut merged);
            merged.reserve(live_len + appended_part.len());
            merged.extend_from_slice(&live_after);
            for &(i, v) in &o.changed {
                merged[i] = v;
            }
            merged.extend(appended_part);
            if carry {
                let tail = std::mem::take(&mut ppos);
                ppos.resize(live_len, NO_POS);
                for &(i, k) in &o.ppos {
                    ppos[i] = k;
                }
                ppos.extend(tail);
            }
        }
        // `R'` is the first `|L|` elements of live-after-deletes ++ appended:
        // without deletions, the live list itself.
        let r_prime = if live_len == n {
            live_after
        } else {
            let mut r = live_after.into_owned();
            r.extend(appended);
            r.truncate(n);
            Cow::Owned(r)
        };
        let index_cell = std::cell::OnceCell::new();
        if !scan && hint.is_none() {
            let _ = index_cell.set(index);
        } else if !carry {
            // The orderings without carried identities need the merge
            // index: built as the index path builds it (live identities,
            // then the appended elements' identities as sent).
            let mut index = PosIndex::with_capacity(merged.len());
            build_live_index(&r_prime[..live_len], keys, &mut index);
            for (id, h, at) in &patch_ids {
                if *at as usize >= live_len {
                    index.insert_first_hashed(*h, id.to_id(), *at as usize);
                }
            }
            let _ = index_cell.set(index);
        }
        let (p_index, carried) = if carry {
            let c = Carried {
                ppos,
                patch: patch_ids,
            };
            (PosIndex::with_capacity(0), Some(c))
        } else {
            let mut p_index = PosIndex::with_capacity(patch_ids.len());
            for (k, (id, h, _)) in patch_ids.into_iter().enumerate() {
                p_index.insert_first_hashed(h, id.to_id(), k);
            }
            (p_index, None)
        };
        let d = Deferred {
            p_index,
            index: index_cell,
            live_len,
            exact,
            carried,
        };
        if order == Order::Defer {
            return Ok(ListMerge {
                items: Cow::Owned(merged),
                r_prime,
                deferred: Some(d),
                scalars: None,
            });
        }
        let items = self.order_merge(merged, &d, keys, w)?;
        Ok(ListMerge {
            items: Cow::Owned(items),
            r_prime,
            deferred: None,
            scalars: None,
        })
    }

    /// [`Merger::strip_list`] of a keyed list that has no live counterpart,
    /// its elements' `null` merge keys kept (see [`Merger::keep_null_keys`]):
    /// `$setElementOrder` then orders the elements by those identities, as
    /// the reference does with the list it stores as sent.
    pub(super) fn strip_keyed_list(
        &self,
        items: &'a [Value<'a>],
        keys: KeySpec<'_>,
        w: Walk<'_, '_>,
    ) -> Result<Vec<Value<'a>>, Error> {
        if self.mode != Mode::Apply {
            return self.strip_list(items, w);
        }
        self.strip_list_with(items, w, |v, e| self.keep_null_keys(v, e, keys))
    }

    /// `cleaned` (the cleaned `sent` element of a keyed list) with the merge
    /// keys `sent` sets to `null` put back: the reference stores new and
    /// replacing elements as sent, so a `null` merge key is the element's
    /// identity, which its ordering and later patch elements pair by.
    /// Cleaning it away (Q6/Q9 are fixed) left an element without identity
    /// and a `missing_merge_key` error the reference does not give.
    fn keep_null_keys(&self, cleaned: Value<'a>, sent: Value<'a>, keys: KeySpec<'_>) -> Value<'a> {
        let (Some(c), Some(s)) = (cleaned.as_object(), sent.as_object()) else {
            return cleaned;
        };
        let is_null_key = |m: &Member<'a>| m.value.is_null() && keys.names().any(|k| k == m.key);
        if !s.members().iter().any(is_null_key) {
            return cleaned;
        }
        let members: Vec<Member<'a>> = s
            .members()
            .iter()
            .filter_map(|m| match c.get(m.key) {
                Some(v) => Some(Member {
                    key: m.key,
                    value: v,
                }),
                None if is_null_key(m) => Some(*m),
                None => None,
            })
            .collect();
        Value::object_from_members(self.arena, &members)
    }

    pub(super) fn check_duplicates(
        &self,
        live: &'a [Value<'a>],
        keys: KeySpec<'_>,
        w: Walk<'_, '_>,
    ) -> Result<(), Error> {
        let mut index = PosIndex::with_capacity(live.len());
        for (i, v) in live.iter().enumerate() {
            if let Ok(id) = identity(*v, keys) {
                let h = id_hash(&id);
                if let Some(first) = index.get_hashed(h, &id) {
                    return Err(self.err(
                        w,
                        ErrorKind::DuplicateMergeKey,
                        format!(
                            "the live list has two elements with merge key {} = {} (positions {first} and {i}); make the keys unique",
                            keys.describe(),
                            render_id(&id)
                        ),
                    ));
                }
                index.insert_first_hashed(h, id, i);
            }
        }
        Ok(())
    }
}
