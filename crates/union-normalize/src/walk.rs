//! The walker: visits, in one pass, the objects of a merged result whose
//! schema declares a union and the strings whose schema declares an `enum`,
//! each with its counterpart in the old object, and rebuilds only the spine
//! above objects a visitor changed.
//!
//! It stands on the engines' shared parts: the position is a
//! `smpatch_value::Path` on the call stack (rendered as a JSON pointer only
//! when something is reported), the depth guard is `smpatch_schema::Walk`
//! (its `TooDeep` becomes this crate's `too_deep` error), each level runs in
//! `grow_stack`, a list element finds its old counterpart by
//! `KeySpec::pairing` (merge key, else list-map keys, else position; the
//! property's metadata, else the list's own `Cursor::list_meta` for lists
//! that are map values or list items), and
//! keys compare with `Value`'s own `Eq`/`Hash`.
//!
//! Architecture Invariant: subtrees whose schema reaches no union and no
//! enum ([`Cursor::reaches_checks`]) are never entered, and no subtree is
//! entered twice.

use std::cell::OnceCell;

use smpatch_schema::{grow_stack, Cursor, KeySpec, NodeKind, PatchMeta, TooDeep, Walk};
use smpatch_value::hashing::HashMap;
use smpatch_value::{Arena, Member, Object, Path, Value};

use crate::enums::EnumList;

/// What the walker calls back.
pub(crate) trait Visitor<'a, 'o> {
    /// An object whose struct schema declares unions. Returns the object's
    /// new members when it changed them (allocated by the visitor).
    fn unions(
        &mut self,
        old: Option<Object<'o>>,
        new: Object<'a>,
        cursor: Cursor<'_>,
        path: &Path<'_>,
    ) -> Option<&'a [Member<'a>]>;

    /// How an element of a list without keys (positional: atomic lists,
    /// sets) finds its old counterpart: an old element equal to it (it is
    /// unchanged, wherever it moved), else, unless `equal_only`, the old
    /// element at its index. Ratcheting asks for `equal_only`: such an
    /// element has no identity but its content, so a changed element at
    /// the index of another invalid one is new.
    fn positional_equal_only(&self) -> bool {
        false
    }

    /// A value whose schema declares an `enum` and that is not a union
    /// discriminator (those are checked with their union).
    fn enum_value(
        &mut self,
        old: Option<Value<'o>>,
        new: Value<'a>,
        allowed: EnumList<'_>,
        path: &Path<'_>,
    );
}

static EMPTY: PatchMeta = PatchMeta::EMPTY;

/// Walks `new` (with `old` as its counterpart) below `cursor`. Returns the
/// changed value when a visitor changed anything; `arena` is used only to
/// rebuild the spine above changed objects. Containers nested deeper than
/// `max_depth` (the root is depth 1) are refused.
pub(crate) fn walk<'a, 'o, V: Visitor<'a, 'o>>(
    arena: &'a Arena,
    old: Option<Value<'o>>,
    new: Value<'a>,
    cursor: Cursor<'_>,
    max_depth: usize,
    visitor: &mut V,
) -> Result<Option<Value<'a>>, TooDeep> {
    let root = Path::Root;
    let mut w = Walker { arena, visitor };
    w.visit(new, old, &EMPTY, false, Walk::new(&root, cursor, max_depth))
}

struct Walker<'a, 'v, V> {
    arena: &'a Arena,
    visitor: &'v mut V,
}

/// A copy of a container's children, made when the first one changes.
fn replace<T: Copy>(copy: &mut Option<Vec<T>>, items: &[T], i: usize, set: impl FnOnce(&mut T)) {
    let copy = copy.get_or_insert_with(|| items.to_vec());
    if let Some(x) = copy.get_mut(i) {
        set(x);
    }
}

impl<'a, 'o, V: Visitor<'a, 'o>> Walker<'a, '_, V> {
    fn visit(
        &mut self,
        new: Value<'a>,
        old: Option<Value<'o>>,
        meta: &PatchMeta,
        is_discriminator: bool,
        w: Walk<'_, '_>,
    ) -> Result<Option<Value<'a>>, TooDeep> {
        let cursor = w.cursor();
        if !cursor.reaches_checks() {
            return Ok(None);
        }
        match (cursor.kind(), new) {
            (Some(NodeKind::Struct { unions, .. }), Value::Object(obj)) => {
                w.check()?;
                let old = old.filter(Value::is_object);
                let mut members = obj.members();
                let mut replaced = false;
                if !unions.is_empty() {
                    if let Some(ms) =
                        self.visitor
                            .unions(old.and_then(|o| o.as_object()), obj, cursor, w.path())
                    {
                        members = ms;
                        replaced = true;
                    }
                }
                let rebuilt = grow_stack(|| self.struct_members(members, old, w))?;
                Ok(match rebuilt {
                    Some(ms) => Some(Value::object_from_members(self.arena, &ms)),
                    None if replaced => Some(Value::Object(Object::from_members(members))),
                    None => None,
                })
            }
            (Some(NodeKind::Map { .. }), Value::Object(obj)) => {
                w.check()?;
                let Some(c) = cursor.map_value() else {
                    return Ok(None);
                };
                if !c.reaches_checks() {
                    return Ok(None);
                }
                let old = old.filter(Value::is_object);
                let members = obj.members();
                let mut copy = None;
                for (i, m) in members.iter().enumerate() {
                    let here = w.path().key(m.key);
                    let old_child = old.and_then(|o| o.get(m.key));
                    let child = w.step(&here, c);
                    if let Some(v) =
                        grow_stack(|| self.visit(m.value, old_child, &EMPTY, false, child))?
                    {
                        replace(&mut copy, members, i, |x| x.value = v);
                    }
                }
                Ok(copy.map(|ms| Value::object_from_members(self.arena, &ms)))
            }
            (Some(NodeKind::List { .. }), Value::Array(elems)) => {
                w.check()?;
                let Some(c) = cursor.list_items() else {
                    return Ok(None);
                };
                let pairs_by = cursor.list_meta_or(meta);
                let old_elems = OldElems::new(
                    old.and_then(|o| o.as_array()),
                    KeySpec::pairing(pairs_by),
                    self.visitor.positional_equal_only(),
                );
                let mut copy = None;
                for (i, &e) in elems.iter().enumerate() {
                    let here = w.path().index(i);
                    let old_child = old_elems.find(i, e);
                    let child = w.step(&here, c);
                    if let Some(v) = grow_stack(|| self.visit(e, old_child, &EMPTY, false, child))?
                    {
                        replace(&mut copy, elems, i, |x| *x = v);
                    }
                }
                Ok(copy.map(|es| Value::array_from(self.arena, &es)))
            }
            (Some(NodeKind::Scalar { .. }), v) => {
                if let Some(allowed) = EnumList::of(cursor) {
                    if !is_discriminator && !v.is_null() {
                        self.visitor.enum_value(old, v, allowed, w.path());
                    }
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// The members of a struct worth entering: only fields whose schema
    /// reaches a union or an enum are looked up at all. Returns the changed
    /// members, if any changed.
    fn struct_members(
        &mut self,
        members: &'a [Member<'a>],
        old: Option<Value<'o>>,
        w: Walk<'_, '_>,
    ) -> Result<Option<Vec<Member<'a>>>, TooDeep> {
        let cursor = w.cursor();
        let checked = cursor.checked_fields();
        // The struct's union discriminators, sorted (built when first needed).
        let mut discs: Option<Vec<&str>> = None;
        let mut copy = None;
        for (i, m) in members.iter().enumerate() {
            if checked.binary_search_by(|f| (**f).cmp(m.key)).is_err() {
                continue;
            }
            let Ok(f) = cursor.lookup_object(m.key) else {
                continue;
            };
            if !f.cursor.reaches_checks() {
                continue;
            }
            // Only enum fields need to know whether they are a discriminator.
            let is_disc = f.cursor.enum_values().is_some() && {
                let discs = discs.get_or_insert_with(|| {
                    let mut d: Vec<&str> = cursor
                        .unions()
                        .iter()
                        .filter_map(|u| u.discriminator.as_deref())
                        .collect();
                    d.sort_unstable();
                    d
                });
                discs.binary_search(&m.key).is_ok()
            };
            let here = w.path().key(m.key);
            let old_child = old.and_then(|o| o.get(m.key));
            let child = w.step(&here, f.cursor);
            if let Some(v) = self.visit(m.value, old_child, f.meta, is_disc, child)? {
                replace(&mut copy, members, i, |x| x.value = v);
            }
        }
        Ok(copy)
    }
}

/// How a list's elements find their old counterparts: positional lists by
/// equal value, else position; keyed lists by the values of the pairing
/// keys (absent keys compare as `None`).
enum OldElems<'o, 'm> {
    None,
    /// Positional: an equal old element, else (unless `equal_only`) the
    /// one at the same index. The index of equal elements is built only
    /// when an element differs from the old one at its index.
    Positional {
        old: &'o [Value<'o>],
        equal: OnceCell<HashMap<Value<'o>, Value<'o>>>,
        equal_only: bool,
    },
    ByKey(&'m str, HashMap<Option<Value<'o>>, Value<'o>>),
    ByKeys(&'m [Box<str>], HashMap<Vec<Option<Value<'o>>>, Value<'o>>),
}

impl<'o, 'm> OldElems<'o, 'm> {
    fn new(old: Option<&'o [Value<'o>]>, keys: KeySpec<'m>, equal_only: bool) -> Self {
        let Some(old) = old else {
            return OldElems::None;
        };
        // The first old element with a key (or equal) wins.
        match keys {
            KeySpec::Value => OldElems::Positional {
                old,
                equal: OnceCell::new(),
                equal_only,
            },
            KeySpec::Single(k) => {
                let mut map = HashMap::default();
                map.reserve(old.len());
                for e in old {
                    map.entry(e.get(k)).or_insert(*e);
                }
                OldElems::ByKey(k, map)
            }
            KeySpec::Compound(ks) => {
                let mut map = HashMap::default();
                map.reserve(old.len());
                for e in old {
                    map.entry(ks.iter().map(|k| e.get(k)).collect())
                        .or_insert(*e);
                }
                OldElems::ByKeys(ks, map)
            }
        }
    }

    fn find(&self, i: usize, e: Value<'_>) -> Option<Value<'o>> {
        match self {
            OldElems::None => None,
            OldElems::Positional {
                old,
                equal,
                equal_only,
            } => {
                let here = old.get(i).copied();
                if here.is_some_and(|o| o == e) {
                    return here;
                }
                let equal = equal.get_or_init(|| {
                    let mut map = HashMap::default();
                    map.reserve(old.len());
                    for o in *old {
                        map.entry(*o).or_insert(*o);
                    }
                    map
                });
                lookup(equal, &e).or(if *equal_only { None } else { here })
            }
            OldElems::ByKey(k, map) => lookup(map, &e.get(k)),
            OldElems::ByKeys(ks, map) => {
                let parts: Vec<Option<Value<'_>>> = ks.iter().map(|k| e.get(k)).collect();
                lookup(map, &parts)
            }
        }
    }
}

/// Looks a new element's key up among the old elements (the key's
/// lifetime is shortened to the map's, which `HashMap` allows).
fn lookup<'o, K: Eq + std::hash::Hash>(map: &HashMap<K, Value<'o>>, key: &K) -> Option<Value<'o>> {
    map.get(key).copied()
}
