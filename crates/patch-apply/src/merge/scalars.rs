//! Primitive merge lists (the reference's `mergeSlice` of scalars: the
//! deduplicated `original ++ patch`, put in order against the patch and the
//! live list) and their `$setElementOrder` ordering, on one identity index.
//!
//! The general way ([`Merger::order`]) hashes every element once per index
//! it builds or probes: the merge's distinctness set, the merged list, the
//! patch and the live list for the merge's ordering, and again the merged,
//! order and live lists for `$setElementOrder` (about eight hashed passes
//! per element, docs/BENCHMARKS.md). Here the live and patch values are
//! hashed once, into an index from value to merged position built while
//! deduplicating; the merge's ordering reads positions only, and
//! `$setElementOrder` hashes only the order list.

use super::list::{ListMerge, Order, NO_POS};
use super::order::Elements;
use super::{Merger, Mode};
use crate::identity::{id_hash, identity, KeySpec, PosIndex};
use crate::{Error, ErrorKind};
use smpatch_schema::Walk;
use smpatch_value::hashing::HashSet;
use smpatch_value::{Kind, Value};
use std::borrow::Cow;

#[cfg(test)]
thread_local! {
    /// Set by tests to merge and order every primitive list the general
    /// way, so both ways can be compared on the same inputs.
    pub(crate) static SCALARS_GENERAL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn general() -> bool {
    #[cfg(test)]
    if SCALARS_GENERAL.with(std::cell::Cell::get) {
        return true;
    }
    false
}

/// A primitive list merge, its content in merge order (the distinct live
/// values by first live position, then the patch values the live list does
/// not hold, by first patch position), with what its orderings need.
///
/// A merged position below `live_len` orders like the value's first live
/// position (the reference's `index(original, ·)`): positions were given in
/// that order. So the merge's ordering is [`Merger::arrange_by_position`]
/// of the first patch positions, with no look-up at all.
pub(super) struct ScalarMerge<'a> {
    /// Value to merged position.
    index: PosIndex<'a>,
    /// Per merged position: the first patch position holding the value, or
    /// [`NO_POS`].
    ppos: Vec<u32>,
    /// Merged positions that come from the live list.
    live_len: usize,
    /// The element kind of the live and patch lists (`element_kind`'s
    /// answer, which the `$setElementOrder` pass asks again of the same
    /// lists).
    pub(super) kind: Option<Kind>,
}

/// A primitive list as a `$setElementOrder` pass stored it (`list`, in
/// the arena), with its merge's identity index and each element's merged
/// position, kept when the patch also deletes from that field: the
/// deletion (which follows the merge, docs/QUIRKS.md#q13) then hashes only
/// the values it deletes, instead of those and every element of the list
/// again. A deletion from any other list (another address or length)
/// leaves it unused.
pub(super) struct Ordered<'a> {
    list: &'a [Value<'a>],
    index: PosIndex<'a>,
    /// Per element of `list`: its merged position (an index position).
    at: Vec<u32>,
    /// Merged positions (entries of `index`).
    merged_len: usize,
}

impl<'a> ScalarMerge<'a> {
    /// The merge of `live ++ patch` ([`ScalarMerge`]) and its content;
    /// `None` when a position would not fit a `u32` below [`NO_POS`] (the
    /// general way then runs).
    fn build(
        live: &[Value<'a>],
        patch: &[Value<'a>],
        kind: Option<Kind>,
    ) -> Option<(Vec<Value<'a>>, Self)> {
        let total = live.len().checked_add(patch.len())?;
        if u32::try_from(total).map_or(true, |t| t == NO_POS) {
            return None;
        }
        let mut index = PosIndex::with_capacity(total);
        let mut merged = Vec::with_capacity(total);
        for v in live {
            // A value is its own identity: this never fails.
            let id = identity(*v, KeySpec::Value).ok()?;
            if index
                .insert_first_hashed(id_hash(&id), id, merged.len())
                .is_none()
            {
                merged.push(*v);
            }
        }
        let live_len = merged.len();
        let mut ppos = vec![NO_POS; live_len];
        for (j, v) in patch.iter().enumerate() {
            let id = identity(*v, KeySpec::Value).ok()?;
            // `j < total < NO_POS`.
            let j = j as u32;
            match index.insert_first_hashed(id_hash(&id), id, merged.len()) {
                Some(at) => {
                    if ppos[at] == NO_POS {
                        ppos[at] = j;
                    }
                }
                None => {
                    merged.push(*v);
                    ppos.push(j);
                }
            }
        }
        let s = ScalarMerge {
            index,
            ppos,
            live_len,
            kind,
        };
        Some((merged, s))
    }
}

impl<'a> Merger<'a, '_> {
    /// `merge_list` of two primitive lists (not a deletion list): their
    /// deduplicated union in the reference's merged-list order, or with
    /// [`Order::Defer`], in merge order with the [`ScalarMerge`] that
    /// [`Merger::order_scalars`] orders it by.
    pub(super) fn merge_scalars(
        &self,
        live: &'a [Value<'a>],
        patch: &'a [Value<'a>],
        keys: KeySpec<'_>,
        kind: Option<Kind>,
        order: Order,
        w: Walk<'_, '_>,
    ) -> Result<ListMerge<'a>, Error> {
        let built = if general() {
            None
        } else {
            ScalarMerge::build(live, patch, kind)
        };
        let Some((merged, s)) = built else {
            return self.merge_scalars_general(live, patch, keys, w);
        };
        if let Some(first) = merged.first() {
            self.scalars_unkeyed(keys, *first, w)?;
        }
        let (items, scalars) = match order {
            Order::Now => (self.arrange_by_position(&merged, &s.ppos, s.live_len), None),
            Order::Defer => (merged, Some(s)),
        };
        Ok(ListMerge {
            items: Cow::Owned(items),
            r_prime: Cow::Borrowed(live),
            deferred: None,
            scalars,
        })
    }

    /// The general way: a distinctness set, then [`Merger::order`].
    fn merge_scalars_general(
        &self,
        live: &'a [Value<'a>],
        patch: &'a [Value<'a>],
        keys: KeySpec<'_>,
        w: Walk<'_, '_>,
    ) -> Result<ListMerge<'a>, Error> {
        let mut seen: HashSet<crate::identity::Id<'a>> = Default::default();
        let mut merged = Vec::with_capacity(live.len() + patch.len());
        for v in live.iter().chain(patch.iter()) {
            if let Ok(id) = identity(*v, KeySpec::Value) {
                if seen.insert(id) {
                    merged.push(*v);
                }
            }
        }
        let items = self.order(merged, patch, live, keys, Elements::Scalars, w)?;
        Ok(ListMerge {
            items: Cow::Owned(items),
            r_prime: Cow::Borrowed(live),
            deferred: None,
            scalars: None,
        })
    }

    /// The error of ordering a scalar list (whose first element is `first`)
    /// by a merge key.
    pub(super) fn scalars_unkeyed(
        &self,
        keys: KeySpec<'_>,
        first: Value<'a>,
        w: Walk<'_, '_>,
    ) -> Result<(), Error> {
        if !keys.is_keyed() {
            return Ok(());
        }
        Err(self.err(
            w,
            ErrorKind::ExpectedObject,
            format!(
                "this list declares merge key {:?} but holds scalars: expected a map[string]interface {{}}, but received a {}",
                keys.describe(),
                first.kind().name()
            ),
        ))
    }

    /// The `$setElementOrder` ordering (order list `order`, server order
    /// the live list) of `merged`, the content of `s` in merge order,
    /// without first putting it in the merge's own order, when that cannot
    /// change the outcome: every merged value the order list does not name
    /// is a live value. Then both sorts of `normalizeElementOrder` have
    /// strict keys (distinct values have distinct first positions), so the
    /// outcome does not depend on the order of their input. `None` when
    /// that does not hold (an appended value the order list leaves out,
    /// possible only with an empty order list: docs/QUIRKS.md#q3); the
    /// caller then orders the merge's ordering the general way.
    pub(super) fn order_scalars(
        &self,
        merged: &[Value<'a>],
        s: &ScalarMerge<'a>,
        order: &[Value<'a>],
    ) -> Option<Vec<Value<'a>>> {
        let pos = self.order_positions(merged.len(), s, order)?;
        Some(self.arrange_by_position(merged, &pos, s.live_len))
    }

    /// Per merged position (of `len`), the first position in `order`
    /// holding the value, or [`NO_POS`]; `None` when an appended value has
    /// none (see [`Merger::order_scalars`]).
    fn order_positions(
        &self,
        len: usize,
        s: &ScalarMerge<'a>,
        order: &[Value<'a>],
    ) -> Option<Vec<u32>> {
        if u32::try_from(order.len()).map_or(true, |n| n == NO_POS) {
            return None;
        }
        let mut pos = vec![NO_POS; len];
        for (k, v) in order.iter().enumerate() {
            let id = identity(*v, KeySpec::Value).ok()?;
            if let Some(at) = s.index.get_hashed(id_hash(&id), &id) {
                if pos[at] == NO_POS {
                    // `k < NO_POS`, checked above.
                    pos[at] = k as u32;
                }
            }
        }
        if pos[s.live_len..].contains(&NO_POS) {
            return None;
        }
        Some(pos)
    }

    /// [`Merger::order_scalars`] of a merge whose list the patch also
    /// deletes from, as the list to store: it is kept with `s`'s index
    /// (moved out of `s`, [`Ordered`]) for that deletion.
    pub(super) fn order_scalars_kept(
        &self,
        merged: &[Value<'a>],
        s: &mut ScalarMerge<'a>,
        order: &[Value<'a>],
    ) -> Option<Value<'a>> {
        if self.mode != Mode::Apply || general() {
            return self
                .order_scalars(merged, s, order)
                .map(|o| Value::array_from(self.arena, &o));
        }
        let pos = self.order_positions(merged.len(), s, order)?;
        // Merged positions fit a `u32` ([`ScalarMerge::build`]).
        let iota: Vec<u32> = (0..merged.len() as u32).collect();
        let at = self.arrange_by_position(&iota, &pos, s.live_len);
        let ordered: Vec<Value<'a>> = at.iter().map(|&i| merged[i as usize]).collect();
        let v = Value::array_from(self.arena, &ordered);
        if let Value::Array(list) = v {
            *self.ordered.borrow_mut() = Some(Ordered {
                list,
                index: std::mem::replace(&mut s.index, PosIndex::with_capacity(0)),
                at,
                merged_len: merged.len(),
            });
        }
        Some(v)
    }

    /// A deletion from a primitive list (values `patch`) answered with the
    /// index kept by [`Merger::order_scalars_kept`] when `live` is the list
    /// it kept; `None` otherwise.
    pub(super) fn delete_kept(
        &self,
        live: &'a [Value<'a>],
        patch: &[Value<'a>],
    ) -> Option<Vec<Value<'a>>> {
        let mut kept = self.ordered.borrow_mut();
        let o = kept.as_ref()?;
        if live.is_empty() || !std::ptr::eq(o.list, live) {
            return None;
        }
        let o = kept.take()?;
        let mut gone = vec![false; o.merged_len];
        for v in patch {
            let id = identity(*v, KeySpec::Value).ok()?;
            if let Some(at) = o.index.get_hashed(id_hash(&id), &id) {
                gone[at] = true;
            }
        }
        Some(
            live.iter()
                .zip(&o.at)
                .filter(|(_, &at)| !gone[at as usize])
                .map(|(v, _)| *v)
                .collect(),
        )
    }

    /// The merge's own ordering of `merged` (the content of `s`).
    pub(super) fn order_scalar_merge(
        &self,
        merged: &[Value<'a>],
        s: &ScalarMerge<'a>,
    ) -> Vec<Value<'a>> {
        self.arrange_by_position(merged, &s.ppos, s.live_len)
    }
}
