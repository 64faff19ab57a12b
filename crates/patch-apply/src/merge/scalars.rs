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
use super::Merger;
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
        if u32::try_from(total).map_or(true, |t| t >= NO_POS) {
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
        if u32::try_from(order.len()).map_or(true, |n| n >= NO_POS) {
            return None;
        }
        let mut pos = vec![NO_POS; merged.len()];
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
        Some(self.arrange_by_position(merged, &pos, s.live_len))
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
