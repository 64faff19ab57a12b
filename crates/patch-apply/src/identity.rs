//! Identity of list elements: the value itself (primitive sets), one merge key,
//! or a compound key (`x-kubernetes-list-map-keys`), plus a hash index from
//! identity to first position.

use rustc_hash::{FxHashMap, FxHasher};
use smallvec::SmallVec;
use smpatch_value::Value;
use std::hash::{Hash, Hasher};

/// How the elements of a list are identified.
#[derive(Clone, Copy, Debug)]
pub(crate) enum KeySpec<'m> {
    /// Scalars: the element is its own identity (strict equality, §1.6).
    Value,
    /// Objects identified by one merge key.
    Single(&'m str),
    /// Objects identified by the tuple of several keys (list-map keys).
    Compound(&'m [Box<str>]),
}

impl<'m> KeySpec<'m> {
    /// True for object lists.
    pub(crate) fn is_keyed(&self) -> bool {
        !matches!(self, KeySpec::Value)
    }

    /// The key names as text for messages (`name`, or `[port protocol]`).
    pub(crate) fn describe(&self) -> String {
        match self {
            KeySpec::Value => String::new(),
            KeySpec::Single(k) => (*k).to_owned(),
            KeySpec::Compound(ks) => {
                let parts: Vec<&str> = ks.iter().map(|k| &**k).collect();
                if parts.len() == 1 {
                    parts[0].to_owned()
                } else {
                    format!("[{}]", parts.join(" "))
                }
            }
        }
    }
}

/// Why an element has no identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdError<'m> {
    /// A keyed list element that is not an object.
    NotObject,
    /// An object without (one of) the merge key(s).
    Missing(&'m str),
}

/// The identity of one element: one value per key (or the element itself).
#[derive(Clone, Debug)]
pub(crate) struct Id<'a>(SmallVec<[Value<'a>; 1]>);

impl PartialEq for Id<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(other.0.iter()).all(|(a, b)| a.deep_eq(b))
    }
}

impl Eq for Id<'_> {}

impl Hash for Id<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(id_hash(self));
    }
}

/// The identity of `v` under `spec`.
pub(crate) fn identity<'a, 'm>(v: Value<'a>, spec: KeySpec<'m>) -> Result<Id<'a>, IdError<'m>> {
    match spec {
        KeySpec::Value => Ok(Id(smallvec::smallvec![v])),
        KeySpec::Single(k) => {
            let o = v.as_object().ok_or(IdError::NotObject)?;
            let kv = o.get(k).ok_or(IdError::Missing(k))?;
            Ok(Id(smallvec::smallvec![kv]))
        }
        KeySpec::Compound(ks) => {
            let o = v.as_object().ok_or(IdError::NotObject)?;
            let mut out = SmallVec::with_capacity(ks.len());
            for k in ks {
                out.push(o.get(k).ok_or(IdError::Missing(k))?);
            }
            Ok(Id(out))
        }
    }
}

/// The hash of an identity, computed once per element and passed to
/// [`PosIndex`]: [`Value::deep_hash`] of each key value (the canonical key
/// form of every kind, lists and objects included, consistent with `Id`'s
/// `Eq`), so no key kind degrades the index to a pairwise scan.
pub(crate) fn id_hash(id: &Id<'_>) -> u64 {
    match &id.0[..] {
        [one] => one.deep_hash(),
        many => {
            let mut h = FxHasher::default();
            for v in many {
                h.write_u64(v.deep_hash());
            }
            h.finish()
        }
    }
}

/// One slot of [`PosIndex`]: the low 32 bits of the key's hash and the
/// entry number plus one (0 = empty).
#[derive(Clone, Copy, Default)]
struct Slot {
    tag: u32,
    entry: u32,
}

/// Map from identity to the FIRST position holding it.
///
/// Open addressing with linear probing over 8-byte slots (hash tag, entry
/// number); the entries `(identity, position)` are kept in insertion order.
/// A 16k-element list needs 256 KB of slots, so the table stays in a 1 MB
/// cache while it is probed in random order, a probe reads an entry (and its
/// key) only when the 32-bit tag matches, and callers hash each identity once
/// ([`id_hash`]) however many tables they probe with it. A generic hash map
/// with `(Id, usize)` buckets took 1.3 MB per 16k list and was the main source
/// of cache misses of large merges (docs/BENCHMARKS.md).
pub(crate) struct PosIndex<'a> {
    slots: Vec<Slot>,
    /// `64 - log2(slots.len())`: the slot of hash `h` is `h >> shift`.
    shift: u32,
    entries: Vec<(Id<'a>, usize)>,
    /// Entries past `u32::MAX - 1` (lists of billions of elements), searched
    /// after `slots`; they are later positions, so "first" still holds.
    overflow: FxHashMap<Id<'a>, usize>,
}

impl<'a> PosIndex<'a> {
    /// An index sized for `n` entries without growing.
    pub(crate) fn with_capacity(n: usize) -> Self {
        let slots = n.saturating_mul(2).max(16).next_power_of_two();
        PosIndex {
            slots: vec![Slot::default(); slots],
            shift: 64 - slots.trailing_zeros(),
            entries: Vec::with_capacity(n),
            overflow: FxHashMap::default(),
        }
    }

    /// The first position of `id` (`h = id_hash(id)`).
    pub(crate) fn get_hashed(&self, h: u64, id: &Id<'a>) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let tag = h as u32;
        let mut i = (h >> self.shift) as usize;
        loop {
            let s = self.slots[i];
            if s.entry == 0 {
                break;
            }
            if s.tag == tag {
                let (k, pos) = &self.entries[(s.entry - 1) as usize];
                if k == id {
                    return Some(*pos);
                }
            }
            i = (i + 1) & mask;
        }
        if self.overflow.is_empty() {
            None
        } else {
            self.overflow.get(id).copied()
        }
    }

    /// Records `pos` for `id` unless `id` is already present; returns the
    /// position already recorded, if any.
    pub(crate) fn insert_first_hashed(&mut self, h: u64, id: Id<'a>, pos: usize) -> Option<usize> {
        if let Some(p) = self.get_hashed(h, &id) {
            return Some(p);
        }
        let Ok(entry) = u32::try_from(self.entries.len() + 1) else {
            self.overflow.insert(id, pos);
            return None;
        };
        if entry == u32::MAX {
            self.overflow.insert(id, pos);
            return None;
        }
        if (self.entries.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.entries.push((id, pos));
        self.place(h, entry);
        None
    }

    /// [`PosIndex::insert_first_hashed`] hashing `id` itself.
    pub(crate) fn insert_first(&mut self, id: Id<'a>, pos: usize) -> Option<usize> {
        self.insert_first_hashed(id_hash(&id), id, pos)
    }

    fn place(&mut self, h: u64, entry: u32) {
        let mask = self.slots.len() - 1;
        let mut i = (h >> self.shift) as usize;
        while self.slots[i].entry != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = Slot {
            tag: h as u32,
            entry,
        };
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        self.slots = vec![Slot::default(); n];
        self.shift = 64 - n.trailing_zeros();
        for e in 0..self.entries.len() {
            let h = id_hash(&self.entries[e].0);
            // `e + 1 < u32::MAX`: longer tables spill into `overflow`.
            self.place(h, (e + 1) as u32);
        }
    }
}

/// Renders an identity for messages (`a`, or `[80 TCP]`).
pub(crate) fn render_id(id: &Id<'_>) -> String {
    if id.0.len() == 1 {
        smpatch_value::render(&id.0[0]).into_owned()
    } else {
        let parts: Vec<String> =
            id.0.iter()
                .map(|v| smpatch_value::render(v).into_owned())
                .collect();
        format!("[{}]", parts.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[Value<'static>]) -> Vec<Id<'static>> {
        list.iter()
            .map(|v| identity(*v, KeySpec::Value).unwrap())
            .collect()
    }

    #[test]
    fn pos_index_keeps_first_positions_across_growth() {
        let strings: Vec<String> = (0..1000).map(|i| format!("k{}", i % 300)).collect();
        let values: Vec<Value<'static>> = strings
            .iter()
            .map(|s| Value::String(Box::leak(s.clone().into_boxed_str())))
            .collect();
        let ids = ids(&values);
        // Capacity 1: the table grows many times.
        let mut index = PosIndex::with_capacity(1);
        for (i, id) in ids.iter().enumerate() {
            let prev = index.insert_first(id.clone(), i);
            assert_eq!(prev, (i >= 300).then_some(i % 300), "insert {i}");
        }
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(index.get_hashed(id_hash(id), id), Some(i % 300));
        }
        let absent = identity(Value::String("absent"), KeySpec::Value).unwrap();
        assert_eq!(index.get_hashed(id_hash(&absent), &absent), None);
    }
}
