//! Ordering of merged lists (the reference's `normalizeElementOrder`) and
//! `$setElementOrder`.

use super::list::{Carried, Deferred, ListMerge, Order, NO_POS};
use super::object::{FieldOp, WorkObject};
use super::{Merger, Mode};
use crate::directives::{self, key_role, KeyRole};
use crate::gosort::go_stable_sort;
use crate::identity::{id_hash, identity, Id, KeySpec, PosIndex};
use crate::rules::{self, brief};
use crate::{Error, ErrorKind};
use smpatch_schema::{FieldShape, ListPlan, Walk};
use smpatch_value::{Kind, Object, Value};
use std::borrow::Cow;

#[cfg(test)]
thread_local! {
    /// Set by tests to run the `$setElementOrder` pass's "patch follows
    /// the order" check before the merge, as the reference does, so the
    /// deferred check can be compared with it.
    pub(crate) static EAGER_FOLLOWS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// One element of a list being ordered: its position in the order list and
/// in the reference order (the reference's `normalizeElementOrder` sort), and whether it holds `$patch: delete`.
/// `T` is the element (a value, or its position in a list of them).
pub(super) struct Placed<T> {
    pub(super) value: T,
    pub(super) ppos: Option<usize>,
    pub(super) rpos: Option<usize>,
    pub(super) delete: bool,
}

/// What a list being ordered holds: scalars are their own identity and
/// never `$patch: delete` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Elements {
    Scalars,
    Objects,
}

/// Looks every element up in the order list (`p`) and the reference order
/// (`rpos`), with the identities (and hashes) computed once.
pub(super) fn place<'a>(
    merged: &[Value<'a>],
    ids: Vec<(Id<'a>, u64, bool)>,
    p: &PosIndex<'a>,
    rpos: impl Fn(u64, &Id<'a>) -> Option<usize>,
) -> Vec<Placed<Value<'a>>> {
    merged
        .iter()
        .zip(ids)
        .map(|(v, (id, h, delete))| Placed {
            value: *v,
            ppos: p.get_hashed(h, &id),
            rpos: rpos(h, &id),
            delete,
        })
        .collect()
}

impl<'a> Merger<'a, '_> {
    // ----- ordering of merged lists --------------------------------------------------

    /// Orders `merged`: items whose identity is in `porder` keep its order;
    /// the rest keep the order of `reference`; the two are interleaved by
    /// `reference` positions.
    pub(super) fn order(
        &self,
        merged: Vec<Value<'a>>,
        porder: &[Value<'a>],
        reference: &[Value<'a>],
        keys: KeySpec<'_>,
        elements: Elements,
        w: Walk<'_, '_>,
    ) -> Result<Vec<Value<'a>>, Error> {
        // Identity rule for this pass: scalars are their own identity.
        let scalars = elements == Elements::Scalars;
        let spec = if scalars { KeySpec::Value } else { keys };
        if let (true, Some(first)) = (scalars, merged.first()) {
            // A scalar list whose schema declares a merge key.
            self.scalars_unkeyed(keys, *first, w)?;
        }
        let ids = self.merged_ids(&merged, spec, elements, w)?;
        let p_index = self.position_index(porder, spec, "order element", w)?;
        let r_index = self.position_index(reference, spec, "live element", w)?;
        let placed = place(&merged, ids, &p_index, |h, id| r_index.get_hashed(h, id));
        Ok(self.arrange(placed.into_iter()))
    }

    /// The ordering of a keyed merge: `order(merged, P, L', keys)`
    /// with the indexes the merge built. The identities of `P` and `L'` were
    /// checked while merging (an `L'` element without one is still in
    /// `merged` and fails there first), and `pos(L', ·)` is the merge index
    /// below `live_len`.
    pub(super) fn order_merge(
        &self,
        merged: Vec<Value<'a>>,
        d: &Deferred<'a>,
        keys: KeySpec<'_>,
        w: Walk<'_, '_>,
    ) -> Result<Vec<Value<'a>>, Error> {
        if let Some(c) = &d.carried {
            // Identities carried from the merge: no element is read again.
            debug_assert_eq!(merged.len(), c.ppos.len());
            if keeps_merge_order(&c.ppos, d.live_len) {
                // A patch that changes live elements in live order (one
                // element, say): the ordering is the merge order, and the
                // merged list is not copied again.
                return Ok(merged);
            }
            return Ok(self.arrange_by_position(&merged, &c.ppos, d.live_len));
        }
        let ids = self.merged_ids(&merged, keys, Elements::Objects, w)?;
        let index = d.index(&merged, keys);
        let placed = place(&merged, ids, &d.p_index, |h, id| {
            index.get_hashed(h, id).filter(|&p| p < d.live_len)
        });
        Ok(self.arrange(placed.into_iter()))
    }

    /// The `$setElementOrder` ordering of a keyed merge whose own ordering
    /// was deferred, without that first ordering, when this provably gives
    /// the same list: every element has an identity (so the first pass could
    /// not fail), none is a `$patch: delete` object, the elements found in
    /// the order list have distinct positions there, and the others have
    /// distinct positions in `R'`. Then both sorts of `normalizeElementOrder` have strict
    /// keys and the outcome does not depend on the order of `merged`.
    /// `None` when that cannot be shown (the caller then runs both passes).
    ///
    /// With the ordered list comes whether the walk proved that the patch
    /// list follows the order list ([`rules::follows_order`] would accept
    /// it); false says nothing either way.
    pub(super) fn order_set_fast(
        &self,
        merged: &[Value<'a>],
        order: &[Value<'a>],
        d: &Deferred<'a>,
        n: usize,
        keys: KeySpec<'_>,
        w: Walk<'_, '_>,
    ) -> Option<(Vec<Value<'a>>, bool)> {
        if !d.exact {
            return None;
        }
        if let Some(c) = &d.carried {
            return self.order_set_carried(merged, order, d, c, n, keys);
        }
        let ids = self.merged_ids(merged, keys, Elements::Objects, w).ok()?;
        let mut s_index = PosIndex::with_capacity(order.len());
        for (i, v) in order.iter().enumerate() {
            s_index.insert_first(identity(*v, keys).ok()?, i);
        }
        // `R'` is the first `n` elements of live-after-deletes ++ appended.
        let index = d.index(merged, keys);
        let placed = place(merged, ids, &s_index, |h, id| {
            index.get_hashed(h, id).filter(|&p| p < n)
        });
        let mut seen_p = vec![false; order.len()];
        let mut seen_r = vec![false; n];
        for x in &placed {
            if x.delete {
                return None;
            }
            let slot = match (x.ppos, x.rpos) {
                (Some(p), _) => seen_p.get_mut(p)?,
                (None, Some(r)) => seen_r.get_mut(r)?,
                (None, None) => return None,
            };
            if *slot {
                return None;
            }
            *slot = true;
        }
        Some((self.arrange(placed.into_iter()), false))
    }

    /// [`Merger::order_set_fast`] with the identities the merge carried:
    /// merged position `i` holds the only element with its identity, so its
    /// position in `R'` is `i` below `n`, and its position in the order list
    /// is that of the first order element naming it. The order list is read
    /// once, in order; an order element is first compared with the next
    /// patch element (the patch usually lists its elements in the order's
    /// order: `$setElementOrder` requires it of the elements it names), and
    /// only on a mismatch looked up in the merge index.
    ///
    /// That walk is the one [`rules::follows_order`] makes: the carried
    /// patch identities are those of the patch elements without `$patch`
    /// (a merge that carries them had no `replace` element, and the
    /// `delete` elements are the ones that check skips), in patch order,
    /// each compared with the next order element's identity until all are
    /// found. So the second answer is whether all were found (every order
    /// element had an identity, or the walk would have given up).
    fn order_set_carried(
        &self,
        merged: &[Value<'a>],
        order: &[Value<'a>],
        d: &Deferred<'a>,
        c: &Carried<'a>,
        n: usize,
        keys: KeySpec<'_>,
    ) -> Option<(Vec<Value<'a>>, bool)> {
        debug_assert_eq!(merged.len(), c.ppos.len());
        let mut spos = vec![NO_POS; merged.len()];
        let mut next = 0;
        for (k, v) in order.iter().enumerate() {
            let id = identity(*v, keys).ok()?;
            // Equal identities have equal hashes: hash only on a mismatch.
            let at = match c.patch.get(next) {
                Some((pid, _, at)) if pid.is(&id) => {
                    next += 1;
                    Some(*at as usize)
                }
                _ => d.index(merged, keys).get_hashed(id_hash(&id), &id),
            };
            if let Some(slot) = at.and_then(|i| spos.get_mut(i)) {
                if *slot == NO_POS {
                    *slot = u32::try_from(k).ok().filter(|&k| k != NO_POS)?;
                }
            }
        }
        // An element neither in the order list nor in `R'`: the two sorts
        // may not be strict, run both passes.
        if spos.iter().skip(n).any(|&sp| sp == NO_POS) {
            return None;
        }
        let follows = next == c.patch.len();
        Some((self.arrange_by_position(merged, &spos, n), follows))
    }

    /// Identity, its hash and "holds `$patch: delete`" of every element.
    pub(super) fn merged_ids(
        &self,
        merged: &[Value<'a>],
        spec: KeySpec<'_>,
        elements: Elements,
        w: Walk<'_, '_>,
    ) -> Result<Vec<(Id<'a>, u64, bool)>, Error> {
        let mut ids = Vec::with_capacity(merged.len());
        for v in merged {
            match identity(*v, spec) {
                Ok(id) => {
                    let h = id_hash(&id);
                    let delete = elements == Elements::Objects && directives::is_delete(v);
                    ids.push((id, h, delete));
                }
                Err(e) => return Err(self.id_error(w, None, e, v, "merged list element")),
            }
        }
        Ok(ids)
    }

    /// [`Merger::arrange`] of [`placed_by_position`]`(merged, pos, live)`
    /// without materialising the placed elements: when every element
    /// without an order position stands in `R'` (`i < live`), those
    /// elements are already in `R'` order, so only the ones with an order
    /// position are collected and sorted, and the rest are read once, in
    /// place. (On a one-element patch over a 256k list, `arrange` built and
    /// re-read a 32-byte record per element.)
    pub(super) fn arrange_by_position<T: Copy>(
        &self,
        merged: &[T],
        pos: &[u32],
        live: usize,
    ) -> Vec<T> {
        debug_assert_eq!(merged.len(), pos.len());
        let unplaced_past_live = pos.get(live..).is_some_and(|p| p.contains(&NO_POS));
        if unplaced_past_live || u32::try_from(merged.len()).is_err() {
            return self.arrange(placed_by_position(merged, pos, live));
        }
        // (order position, merged position) of the elements in the order.
        let mut items: Vec<(u32, u32)> = pos
            .iter()
            .enumerate()
            .filter(|(_, &p)| p != NO_POS)
            .map(|(i, &p)| (p, i as u32))
            .collect();
        if !items.is_sorted_by_key(|x| x.0) {
            // Stable, as `arrange`'s sort.
            items.sort_by_key(|x| x.0);
        }
        let mut out = Vec::with_capacity(merged.len());
        let mut next = items.iter().map(|&(_, i)| i as usize).peekable();
        for (i, (v, &p)) in merged.iter().zip(pos).enumerate() {
            if p != NO_POS {
                continue;
            }
            // Element `i` of `R'`: the ordered elements not placed after it
            // in `R'` (no `R'` position, or one not above `i`) go first.
            while let Some(&at) = next.peek() {
                if at < live && i < at {
                    break;
                }
                out.push(merged[at]);
                next.next();
            }
            out.push(*v);
        }
        out.extend(next.map(|at| merged[at]));
        out
    }

    /// The reference's `normalizeElementOrder` sorts (steps 1–3) on placed
    /// elements.
    pub(super) fn arrange<T: Copy>(
        &self,
        placed: impl ExactSizeIterator<Item = Placed<T>>,
    ) -> Vec<T> {
        // (ppos, rpos, value). Sized for the whole list: the unused part of
        // either vector is never touched.
        let len = placed.len();
        let mut patch_items: Vec<(usize, Option<usize>, T)> = Vec::with_capacity(len);
        let mut server: Vec<(Option<usize>, T)> = Vec::with_capacity(len);
        let mut patch_deletes = Vec::new();
        let mut server_deletes = Vec::new();
        for x in placed {
            match x.ppos {
                Some(pp) => {
                    if x.delete {
                        patch_deletes.push((pp, x.rpos, x.value));
                    } else {
                        patch_items.push((pp, x.rpos, x.value));
                    }
                }
                None => {
                    if x.delete {
                        server_deletes.push((x.rpos, x.value));
                    } else {
                        server.push((x.rpos, x.value));
                    }
                }
            }
        }
        // A stable sort leaves a sorted list as it is: skip it (and its
        // buffer) when the list is already in order, as after most merges.
        if !patch_items.is_sorted_by_key(|x| x.0) {
            patch_items.sort_by_key(|x| x.0);
        }
        patch_items.extend(patch_deletes);
        if server.iter().all(|x| x.0.is_some()) {
            if !server.is_sorted_by_key(|x| x.0) {
                server.sort_by_key(|x| x.0);
            }
        } else if self.opts.fix_quirks {
            // Q3 fix: elements missing from the order list go last, stable.
            server.sort_by_key(|x| (x.0.is_none(), x.0));
        } else {
            go_stable_sort(&mut server, &|a, b| match (a.0, b.0) {
                (Some(x), Some(y)) => x < y,
                _ => true,
            });
        }
        server.extend(server_deletes);
        // Two-pointer interleave.
        let mut out = Vec::with_capacity(patch_items.len() + server.len());
        let (mut i, mut j) = (0, 0);
        while i < server.len() && j < patch_items.len() {
            match (server[i].0, patch_items[j].1) {
                (Some(s), Some(p)) if s < p => {
                    out.push(server[i].1);
                    i += 1;
                }
                _ => {
                    out.push(patch_items[j].2);
                    j += 1;
                }
            }
        }
        out.extend(server[i..].iter().map(|x| x.1));
        out.extend(patch_items[j..].iter().map(|x| x.2));
        out
    }

    pub(super) fn position_index(
        &self,
        list: &[Value<'a>],
        spec: KeySpec<'_>,
        what: &str,
        w: Walk<'_, '_>,
    ) -> Result<PosIndex<'a>, Error> {
        let mut index = PosIndex::with_capacity(list.len());
        for (i, v) in list.iter().enumerate() {
            match identity(*v, spec) {
                Ok(id) => {
                    index.insert_first(id, i);
                }
                Err(e) => return Err(self.id_error(w, None, e, v, what)),
            }
        }
        Ok(index)
    }

    // ----- $setElementOrder ---------------------------------------------------------

    /// `$setElementOrder/<f>` (member `key` holding `sv`) of the object at
    /// `w`. Errors about the order list name the directive key; errors
    /// about the ordered field (live or patch side) name the field.
    pub(super) fn set_element_order(
        &self,
        t: &mut WorkObject<'a>,
        key: &'a str,
        sv: Value<'a>,
        patch: Object<'a>,
        w: Walk<'_, '_>,
    ) -> Result<Option<&'a str>, Error> {
        let key_path = w.path().key(key);
        let wk = w.at(&key_path);
        if self.mode == Mode::Compose {
            match t.get(key) {
                Some(existing) => {
                    if !same_order_list(existing, sv) {
                        return Err(self.err(
                            wk,
                            ErrorKind::InvalidSetElementOrder,
                            format!(
                                "invalid patch format of setElementOrder list: the two patches carry different lists {} and {}",
                                brief(&existing),
                                brief(&sv)
                            ),
                        ));
                    }
                }
                None => t.set(key, sv),
            }
        }
        let order = rules::order_list(&sv).map_err(|p| self.problem(wk, p))?;
        let Some(f) = directives::ordered_field(key) else {
            return Err(self.problem(wk, rules::bad_order_key()));
        };
        let field_path = w.path().key(f);
        let wf = w.at(&field_path);
        let live = t.get(f);
        let plist = patch.get(f);
        let as_list =
            |v: Option<Value<'a>>| rules::ordered_list(v).map_err(|p| self.problem(wf, p));
        let live = as_list(live)?;
        let plist = as_list(plist)?;
        let field = self.lookup(wf, f, FieldShape::List)?;
        let keys = self.rules.order_keys(field.meta);
        let merge_plan = self.rules.list_plan(field.meta);
        // The last step of the `$setElementOrder` pass: the patch list must
        // follow the order list. Before a keyed merge of two lists it is
        // deferred (`follows` below): the carried ordering walks the same
        // two lists and proves it on the way, and otherwise it runs after
        // the merge, before anything else can fail. The merge changes
        // nothing it reads, so the first error reported stays the same.
        #[allow(unused_mut)]
        let mut deferred_follows = matches!(
            (live, plist, merge_plan),
            (Some(_), Some(_), ListPlan::Merge(_))
        );
        #[cfg(test)]
        if EAGER_FOLLOWS.with(std::cell::Cell::get) {
            deferred_follows = false;
        }
        let follows = |proven: bool| -> Result<(), Error> {
            match plist {
                Some(p) if !proven => {
                    rules::follows_order(p, order, keys).map_err(|p| self.problem(wk, p))
                }
                _ => Ok(()),
            }
        };
        if !deferred_follows {
            follows(false)?;
        }
        let (merged, r_prime, deferred, scalars) = match (live, plist) {
            (None, None) => return Ok(None),
            (Some(l), None) => (l.to_vec(), Cow::Borrowed(l), None, None),
            (None, Some(p)) => {
                // Q30 (always fixed in APPLY): cleaned like any insertion,
                // but for a `null` merge key, the identity the order pairs by.
                let items = match merge_plan {
                    ListPlan::Merge(_) => self.strip_keyed_list(p, keys, wk)?,
                    _ => self.strip_list(p, wk)?,
                };
                (items, Cow::Borrowed(&[][..]), None, None)
            }
            (Some(l), Some(p)) => {
                let r = match merge_plan {
                    // The merge's own ordering is deferred: the ordering by
                    // `order` below often makes it unnecessary.
                    ListPlan::Merge(k) => {
                        let wl = wf.step(wf.path(), field.cursor);
                        self.merge_list(l, p, k, FieldOp::Merge, Order::Defer, wl)
                    }
                    ListPlan::Atomic => {
                        if self.mode == Mode::Apply {
                            self.strip_list(p, wf).map(|items| ListMerge {
                                items: Cow::Owned(items),
                                r_prime: Cow::Borrowed(l),
                                deferred: None,
                                scalars: None,
                            })
                        } else {
                            Ok(ListMerge {
                                items: Cow::Owned(p.to_vec()),
                                r_prime: Cow::Borrowed(l),
                                deferred: None,
                                scalars: None,
                            })
                        }
                    }
                };
                let r = match r {
                    Ok(r) => r,
                    Err(e) => {
                        if deferred_follows {
                            follows(false)?;
                        }
                        return Err(e);
                    }
                };
                (r.items.into_owned(), r.r_prime, r.deferred, r.scalars)
            }
        };
        // A keyed merge whose own ordering was deferred: skip that ordering
        // when it cannot matter. (Neither the element-kind nor the merge-key
        // check below can fail after such a merge, so this may run first.)
        let fast = match &deferred {
            Some(d) => {
                let n = live.map_or(0, <[Value<'a>]>::len);
                self.order_set_fast(&merged, order, d, n, keys, wk)
            }
            None => None,
        };
        if deferred_follows {
            // The deferred check runs here unless the fast ordering proved it.
            follows(fast.as_ref().is_some_and(|x| x.1))?;
        }
        if let Some((ordered, _)) = fast {
            t.set(f, Value::array_from(self.arena, &ordered));
            return Ok(Some(f));
        }
        let kind = if deferred.is_some() {
            // A deferred keyed merge already found these two lists to hold
            // objects (`element_kind` of the same lists): skip the re-read.
            Some(Kind::Object)
        } else if let Some(s) = &scalars {
            // And a deferred primitive merge kept its answer.
            s.kind
        } else {
            self.element_kind(&[live.unwrap_or(&[]), plist.unwrap_or(&[])], wk)?
        };
        let Some(kind) = kind else {
            if self.opts.fix_quirks {
                // Q20 fix: nothing to order.
                t.set(f, Value::array_from(self.arena, &merged));
                return Ok(Some(f));
            }
            return Err(self.err(
                wk,
                ErrorKind::NoElements,
                "no elements in any of the given slices: $setElementOrder names a list that is empty on both sides",
            ));
        };
        let elements = if kind == Kind::Object {
            Elements::Objects
        } else {
            Elements::Scalars
        };
        if elements == Elements::Objects && !keys.is_keyed() {
            // The reference fails only on elements to partition (its merged
            // list, the order list, the live list): `[{"$patch": "replace"}]`
            // with an empty order list over no live list is `[]`. Over a live
            // atomic list its merged list is the patch list as sent (a panic).
            let live_empty = match merge_plan {
                ListPlan::Atomic => live.is_none(),
                ListPlan::Merge(_) => live.is_none_or(<[Value<'a>]>::is_empty),
            };
            if merged.is_empty() && order.is_empty() && live_empty {
                t.set(f, Value::array_from(self.arena, &[]));
                return Ok(Some(f));
            }
            return Err(self.err(
                wk,
                ErrorKind::NoMergeKey,
                "cannot order a list of objects without a merge key; the schema declares no x-kubernetes-patch-merge-key for this list",
            ));
        }
        let merged = match (deferred, scalars) {
            (Some(d), _) => {
                // A keyed merge (so objects, and `keys` is its merge key)
                // whose ordering could not be skipped: run it here, at the
                // field's path as inside `merge_list`.
                self.order_merge(merged, &d, keys, wf)?
            }
            (None, Some(s)) => {
                // A primitive merge (`keys` is its identity rule, already
                // checked not to be a merge key): its own ordering is
                // skipped when it cannot matter, else run here.
                let deletes_too = patch
                    .members()
                    .iter()
                    .any(|m| key_role(m.key) == KeyRole::DeleteFromPrimitiveList(Some(f)));
                let mut s = s;
                let ordered = if deletes_too {
                    self.order_scalars_kept(&merged, &mut s, order)
                } else {
                    self.order_scalars(&merged, &s, order)
                        .map(|o| Value::array_from(self.arena, &o))
                };
                if let Some(v) = ordered {
                    t.set(f, v);
                    return Ok(Some(f));
                }
                self.order_scalar_merge(&merged, &s)
            }
            (None, None) => merged,
        };
        let ordered = self.order(merged, order, &r_prime, keys, elements, wk)?;
        t.set(f, Value::array_from(self.arena, &ordered));
        Ok(Some(f))
    }
}

/// Whether [`Merger::arrange_by_position`]`(merged, pos, live)` is
/// `merged` itself: every element stands in `R'` (`i < live`: nothing
/// appended), and the order positions of those that have one ascend with their merged
/// positions (so the sort by order position keeps them where they are and
/// each comes out just before the first unplaced element after it).
fn keeps_merge_order(pos: &[u32], live: usize) -> bool {
    let mut last = 0;
    pos.len() <= live
        && pos.iter().all(|&p| {
            let ok = p == NO_POS || p >= last;
            if p != NO_POS {
                last = p;
            }
            ok
        })
}

/// The placed elements of `merged` from known positions: `pos[i]` is the
/// i-th element's position in the order list (`NO_POS`: none), and the
/// first `live` elements stand in `R'` where they are.
fn placed_by_position<'m, T: Copy>(
    merged: &'m [T],
    pos: &'m [u32],
    live: usize,
) -> impl ExactSizeIterator<Item = Placed<T>> + 'm {
    merged
        .iter()
        .zip(pos)
        .enumerate()
        .map(move |(i, (v, &p))| Placed {
            value: *v,
            ppos: (p != NO_POS).then_some(p as usize),
            rpos: (i < live).then_some(i),
            delete: false,
        })
}

/// `a.deep_eq(&b)` for two `$setElementOrder` lists, without reading the
/// text of a string both hold at the same address. A three-way patch's two
/// halves name the same elements through the same key strings, so compose
/// compares two long lists of one-member objects whose values share their
/// text: this reads only the lists and their member records. Any other
/// pair of elements is compared by [`Value::deep_eq`].
fn same_order_list(a: Value<'_>, b: Value<'_>) -> bool {
    let (Some(xs), Some(ys)) = (a.as_array(), b.as_array()) else {
        return a.deep_eq(&b);
    };
    let same_text = |x: &str, y: &str| x.len() == y.len() && std::ptr::eq(x.as_ptr(), y.as_ptr());
    let shared = |x: &Value<'_>, y: &Value<'_>| {
        match (x, y) {
        (Value::Object(ox), Value::Object(oy)) if ox.len() == oy.len() => {
            ox.iter().zip(oy.iter()).all(|((kx, vx), (ky, vy))| {
                (same_text(kx, ky) || kx == ky)
                    && matches!((vx, vy), (Value::String(sx), Value::String(sy)) if same_text(sx, sy))
            })
        }
        _ => false,
    }
    };
    xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| shared(x, y) || x.deep_eq(y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ApplyOptions;

    #[test]
    fn keeps_merge_order_only_when_the_arrangement_is_the_merge_order() {
        // Every position vector of up to 5 elements over order positions
        // 0..4 (or none) and every live length: where `keeps_merge_order`
        // says so, `arrange_by_position` must give `merged` back.
        let arena = smpatch_value::Arena::new();
        let opts = ApplyOptions::default();
        let m = Merger::new(&arena, &opts, Mode::Apply);
        let names: Vec<String> = (0..5).map(|i| format!("e{i}")).collect();
        let (mut kept, mut moved) = (0, 0);
        for len in 0..=5usize {
            let merged: Vec<Value<'_>> = names[..len].iter().map(|s| Value::String(s)).collect();
            for code in 0..6usize.pow(len as u32) {
                let pos: Vec<u32> = (0..len)
                    .map(|k| match (code / 6usize.pow(k as u32)) % 6 {
                        5 => NO_POS,
                        p => p as u32,
                    })
                    .collect();
                for live in 0..=len {
                    let arranged = m.arrange_by_position(&merged, &pos, live);
                    let same = arranged.iter().zip(&merged).all(|(a, b)| a.deep_eq(b));
                    if keeps_merge_order(&pos, live) {
                        assert!(same, "pos {pos:?} live {live}");
                        kept += 1;
                    } else if !same {
                        moved += 1;
                    }
                }
            }
        }
        assert!(kept > 1000 && moved > 1000, "{kept} {moved}");
    }
}
