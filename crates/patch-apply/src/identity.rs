//! Identity of list elements: the value itself (primitive sets), one merge key,
//! or a compound key (`x-kubernetes-list-map-keys`), plus a hash index from
//! identity to first position.

use smallvec::SmallVec;
pub(crate) use smpatch_schema::KeySpec;
use smpatch_value::hashing::{HashMap, KeyedHasher};
use smpatch_value::Value;
use std::hash::{Hash, Hasher};

#[cfg(test)]
thread_local! {
    /// Set by tests to run every ordering the way it runs without carried
    /// identities, so both ways can be compared on the same inputs.
    pub(crate) static NO_CARRY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set by tests to force one pairing of keyed merges whatever the list
    /// sizes: 0 the merge index, 1 the scan, 2 the hint (`merge::list`).
    pub(crate) static FORCE_PAIRING: std::cell::Cell<Option<u8>> = const { std::cell::Cell::new(None) };
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
            && self.0.iter().zip(other.0.iter()).all(|(a, b)| key_eq(a, b))
    }
}

/// [`Value::deep_eq`] for one key value, without its work stack for the
/// usual scalar keys; two strings at the same address (a merged element's
/// key and the patch key it came from) are equal without reading them.
pub(crate) fn key_eq(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => {
            x.len() == y.len() && (std::ptr::eq(x.as_ptr(), y.as_ptr()) || x == y)
        }
        (Value::Number(x), Value::Number(y)) => x.same_value(y),
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        _ => a.deep_eq(b),
    }
}

impl Eq for Id<'_> {}

impl Hash for Id<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(id_hash(self));
    }
}

/// An [`Id`] as a `Copy` record, for lists that hold one per element
/// (the patch identities a keyed merge carries to its orderings): dropping
/// such a list is one free, where a list of [`Id`]s is a pass over every
/// entry (about one cache miss per element of a 256k-element patch). A
/// compound identity's values are copied into the arena, where they stay
/// until it is reset (about 48 bytes per element for a two-key identity
/// such as `ports`' port and protocol; single-key identities copy nothing).
#[derive(Clone, Copy)]
pub(crate) enum FlatId<'a> {
    One(Value<'a>),
    Many(&'a [Value<'a>]),
}

impl<'a> FlatId<'a> {
    pub(crate) fn new(id: &Id<'a>, arena: &'a smpatch_value::Arena) -> Self {
        match &id.0[..] {
            [one] => FlatId::One(*one),
            many => FlatId::Many(arena.alloc_slice_copy(many)),
        }
    }

    fn values(&self) -> &[Value<'a>] {
        match self {
            FlatId::One(v) => std::slice::from_ref(v),
            FlatId::Many(vs) => vs,
        }
    }

    /// Whether this is `id` (`Id`'s equality).
    pub(crate) fn is(&self, id: &Id<'a>) -> bool {
        let vals = self.values();
        vals.len() == id.0.len() && vals.iter().zip(id.0.iter()).all(|(a, b)| key_eq(a, b))
    }

    pub(crate) fn to_id(self) -> Id<'a> {
        Id(SmallVec::from_slice(self.values()))
    }
}

/// An [`Id`] as [`PosIndex`] keeps it: `Copy`, so dropping an index is one
/// free and never a pass over its entries. A compound identity's values
/// live in the index's `extra` vector.
#[derive(Clone, Copy)]
enum StoredId<'a> {
    One(Value<'a>),
    Many { start: u32, len: u32 },
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
            let mut h = KeyedHasher::default();
            for v in many {
                h.write_u64(v.deep_hash());
            }
            h.finish()
        }
    }
}

/// Bytes of a string key an [`Entry`] keeps itself (the rest of its 64).
const INLINE: usize = 64 - 17 - std::mem::size_of::<StoredId<'static>>();

/// [`Entry::inline_len`] of a key not kept inline.
const NOT_INLINE: u8 = u8::MAX;

/// One entry of [`PosIndex`], one cache line: the identity, its hash, its
/// first position and, for a string key of up to [`INLINE`] bytes (most
/// merge keys: names, paths), a copy of its text. A probe that finds the
/// entry then compares against that copy instead of reading the key text
/// where the element holds it (a cache miss of its own on large lists).
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Entry<'a> {
    h: u64,
    pos: usize,
    key: StoredId<'a>,
    inline_len: u8,
    inline: [u8; INLINE],
}

const _: () = assert!(std::mem::size_of::<Entry<'static>>() == 64);

impl<'a> Entry<'a> {
    fn new(key: StoredId<'a>, h: u64, pos: usize) -> Self {
        let mut e = Entry {
            h,
            pos,
            key,
            inline_len: NOT_INLINE,
            inline: [0; INLINE],
        };
        if let StoredId::One(Value::String(s)) = key {
            if let Some(dst) = e.inline.get_mut(..s.len()) {
                dst.copy_from_slice(s.as_bytes());
                // `s.len() <= INLINE < NOT_INLINE`.
                e.inline_len = s.len() as u8;
            }
        }
        e
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
/// number); the entries ([`Entry`], one cache line each: identity, full
/// hash, position, short string keys inline) are kept in insertion order.
/// A 16k-element list needs 256 KB of slots, so the table stays in a 1 MB
/// cache while it is probed in random order; a probe reads an entry only
/// when the 32-bit tag matches, compares the full hash before any key, and
/// a short string key within the entry, so a hit costs two cache lines
/// (slot, entry) and not a third for the element's key text. Callers hash
/// each identity once ([`id_hash`]) however many tables they probe with it.
/// A generic hash map with `(Id, usize)` buckets took 1.3 MB per 16k list
/// and was the main source of cache misses of large merges
/// (docs/BENCHMARKS.md).
pub(crate) struct PosIndex<'a> {
    slots: Vec<Slot>,
    /// `64 - log2(slots.len())`: the slot of hash `h` is `h >> shift`.
    shift: u32,
    /// In insertion order.
    entries: Vec<Entry<'a>>,
    /// The values of compound identities ([`StoredId::Many`]).
    extra: Vec<Value<'a>>,
    /// Entries past `u32::MAX - 1` (lists of billions of elements), searched
    /// after `slots`; they are later positions, so "first" still holds.
    overflow: HashMap<Id<'a>, usize>,
    /// Entry number of the last hit of [`PosIndex::get_hashed_refresh`]
    /// (`usize::MAX`: none yet).
    last: usize,
    /// Look-ups of [`PosIndex::get_hashed_refresh`] left before it tries the
    /// last hit's neighbours again, after they missed.
    cool: u32,
}

/// Look-ups [`PosIndex::get_hashed_refresh`] skips the neighbour check for
/// after it missed: on a patch in random order it then costs one look-up in
/// nine two extra entry reads.
const COOL: u32 = 8;

impl<'a> PosIndex<'a> {
    /// An index sized for `n` entries without growing.
    pub(crate) fn with_capacity(n: usize) -> Self {
        let slots = n.saturating_mul(2).max(16).next_power_of_two();
        PosIndex {
            slots: vec![Slot::default(); slots],
            shift: 64 - slots.trailing_zeros(),
            entries: Vec::with_capacity(n),
            extra: Vec::new(),
            overflow: HashMap::default(),
            last: usize::MAX,
            cool: 0,
        }
    }

    /// The first position of `id` (`h = id_hash(id)`).
    pub(crate) fn get_hashed(&self, h: u64, id: &Id<'a>) -> Option<usize> {
        match self.find_entry(h, id) {
            Some(e) => Some(self.entries[e].pos),
            None if self.overflow.is_empty() => None,
            None => self.overflow.get(id).copied(),
        }
    }

    /// [`PosIndex::get_hashed`], and on a hit keeps `id`'s (equal) key
    /// value in place of the stored one: a merged element carries the patch
    /// element's key, so later look-ups of it compare one address instead of
    /// re-reading the live document's key text.
    ///
    /// It first tries the entries next to its last hit: a patch that lists
    /// its elements in the live list's order (or reversed, as a
    /// `$setElementOrder` reversal does) then reads adjacent entries instead
    /// of a random slot and entry per element. Each identity has one entry,
    /// so an entry that matches is the answer wherever it is found.
    pub(crate) fn get_hashed_refresh(&mut self, h: u64, id: &Id<'a>) -> Option<usize> {
        let found = if self.cool > 0 {
            self.cool -= 1;
            None
        } else {
            let near = [self.last.wrapping_add(1), self.last.wrapping_sub(1)]
                .into_iter()
                .find(|&e| {
                    self.entries
                        .get(e)
                        .is_some_and(|en| en.h == h && self.entry_eq(en, id))
                });
            if near.is_none() {
                self.cool = COOL;
            }
            near
        };
        let found = found.or_else(|| self.find_entry(h, id));
        let Some(e) = found else {
            return if self.overflow.is_empty() {
                None
            } else {
                self.overflow.get(id).copied()
            };
        };
        self.last = e;
        if let [one] = &id.0[..] {
            self.entries[e].key = StoredId::One(*one);
        }
        Some(self.entries[e].pos)
    }

    /// The entry number of `id` (`h = id_hash(id)`), from the slots.
    fn find_entry(&self, h: u64, id: &Id<'a>) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let tag = h as u32;
        let mut i = (h >> self.shift) as usize;
        loop {
            let s = self.slots[i];
            if s.entry == 0 {
                return None;
            }
            if s.tag == tag {
                let e = (s.entry - 1) as usize;
                if self.entries[e].h == h && self.entry_eq(&self.entries[e], id) {
                    return Some(e);
                }
            }
            i = (i + 1) & mask;
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
        let stored = match &id.0[..] {
            [one] => StoredId::One(*one),
            many => match (u32::try_from(self.extra.len()), u32::try_from(many.len())) {
                (Ok(start), Ok(len)) => {
                    self.extra.extend_from_slice(many);
                    StoredId::Many { start, len }
                }
                _ => {
                    self.overflow.insert(id, pos);
                    return None;
                }
            },
        };
        self.entries.push(Entry::new(stored, h, pos));
        self.place(h, entry);
        None
    }

    /// Reads the slots of `hashes` (a prefetch in safe code: the loads are
    /// independent, so the CPU overlaps their cache misses, and the
    /// insertions or look-ups that follow find the slots cached).
    pub(crate) fn touch(&self, hashes: impl Iterator<Item = u64>) {
        let mut acc = 0u32;
        for h in hashes {
            acc ^= self.slots[(h >> self.shift) as usize].entry;
        }
        std::hint::black_box(acc);
    }

    /// [`PosIndex::insert_first_hashed`] hashing `id` itself.
    pub(crate) fn insert_first(&mut self, id: Id<'a>, pos: usize) -> Option<usize> {
        self.insert_first_hashed(id_hash(&id), id, pos)
    }

    /// Whether an entry's identity equals `id` ([`key_eq`] on each value;
    /// an inline string compares its copy).
    fn entry_eq(&self, e: &Entry<'a>, id: &Id<'a>) -> bool {
        if e.inline_len == NOT_INLINE {
            return self.stored_eq(e.key, id);
        }
        match &id.0[..] {
            [Value::String(s)] => {
                s.len() == usize::from(e.inline_len)
                    && e.inline.get(..s.len()) == Some(s.as_bytes())
            }
            _ => false,
        }
    }

    /// Whether a stored identity equals `id`.
    fn stored_eq(&self, k: StoredId<'a>, id: &Id<'a>) -> bool {
        match k {
            StoredId::One(v) => id.0.len() == 1 && key_eq(&v, &id.0[0]),
            StoredId::Many { start, len } => {
                let vals = &self.extra[start as usize..start as usize + len as usize];
                vals.len() == id.0.len() && vals.iter().zip(id.0.iter()).all(|(a, b)| key_eq(a, b))
            }
        }
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
            let h = self.entries[e].h;
            // `e + 1 < u32::MAX`: longer tables spill into `overflow`.
            self.place(h, (e + 1) as u32);
        }
    }
}

/// A set of identity hashes that can only answer "maybe seen before": it
/// keeps 32 bits of each hash (the slot comes from the other 32), 4 bytes
/// a slot at most half full. A keyed merge whose patch is small uses it
/// instead of a [`PosIndex`] to learn whether the live list's identities
/// are distinct: a 256k-element list needs 2 MB of slots (which stay in a
/// 4 MB L2) and no entries, where the index takes 4 MB of slots and 16 MB
/// of entries. A false "maybe" (two hashes agreeing on 32 bits within one
/// probe run) only sends the caller down its exact path.
pub(crate) struct HashSeen {
    slots: Vec<u32>,
    shift: u32,
}

/// [`HashSeen::insert_all`] buckets by this many top bits of the slot
/// number: 256 buckets, whose write streams (one cache line each) stay in
/// the L1 cache while the hashes are scattered.
const PARTITION_BITS: u32 = 8;

/// Tables of fewer slots (128 KB) are filled in list order: they stay in
/// the L2 cache anyway, and bucketing first would only add two passes.
const PARTITION_MIN_SLOTS: usize = 1 << 15;

impl HashSeen {
    /// A set sized for `n` hashes.
    pub(crate) fn with_capacity(n: usize) -> Self {
        let slots = n.saturating_mul(2).max(16).next_power_of_two();
        HashSeen {
            slots: vec![0; slots],
            shift: 64 - slots.trailing_zeros(),
        }
    }

    /// Adds `h`; false when `h` may have been added before.
    pub(crate) fn insert(&mut self, h: u64) -> bool {
        let mask = self.slots.len() - 1;
        // Never 0 (the empty slot).
        let tag = (h as u32) | 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            match self.slots[i] {
                0 => {
                    self.slots[i] = tag;
                    return true;
                }
                t if t == tag => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// False when `h` was certainly never added.
    pub(crate) fn contains(&self, h: u64) -> bool {
        let mask = self.slots.len() - 1;
        let tag = (h as u32) | 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            match self.slots[i] {
                0 => return false,
                t if t == tag => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Adds every hash of `hashes`; false when one may have been added
    /// before (by this call or an earlier one).
    ///
    /// A table larger than the L1 cache is filled region by region: the
    /// hashes are first bucketed by the top bits of their slot number (one
    /// sequential pass, [`PARTITION_BITS`] write streams), then inserted
    /// bucket by bucket, so the inserts of one bucket land in a small slice of
    /// the table. Inserted in list order, each one was a random access to
    /// a table that outgrows the L2 cache at 256k elements (2 MB): the
    /// largest cache-miss source of a one-element patch there
    /// (docs/BENCHMARKS.md). The order of insertion changes only which rare
    /// false "maybe" answers come up.
    pub(crate) fn insert_all(&mut self, hashes: &[u64]) -> bool {
        let bits = self.slots.len().trailing_zeros();
        if self.slots.len() < PARTITION_MIN_SLOTS || bits < PARTITION_BITS {
            let mut fresh = true;
            for chunk in hashes.chunks(32) {
                self.touch(chunk.iter().copied());
                for &h in chunk {
                    fresh &= self.insert(h);
                }
            }
            return fresh;
        }
        // Bucket `b` holds the hashes whose home slot is in the b-th of
        // `1 << PARTITION_BITS` equal slices of the table.
        let shift = self.shift + (bits - PARTITION_BITS);
        let (sorted, _) = scatter_by_top_bits(hashes, shift);
        let mut fresh = true;
        for &h in &sorted {
            fresh &= self.insert(h);
        }
        fresh
    }

    /// Reads the slots of `hashes` ([`PosIndex::touch`]).
    pub(crate) fn touch(&self, hashes: impl Iterator<Item = u64>) {
        let mut acc = 0u32;
        for h in hashes {
            acc ^= self.slots[(h >> self.shift) as usize];
        }
        std::hint::black_box(acc);
    }
}

/// `hashes` grouped by their bits above `shift` (bucket `b` holds the
/// hashes whose `h >> shift` is `b`, in their order in `hashes`): one
/// counting pass and one scatter pass. Also answers where each bucket ends
/// in the result. [`HashSeen::insert_all`] and [`all_distinct`] bucket this
/// way so that each bucket's table work stays in a small, cache-resident
/// region.
fn scatter_by_top_bits(hashes: &[u64], shift: u32) -> (Vec<u64>, Vec<usize>) {
    let mut ends = vec![0usize; 1 << (64 - shift)];
    for &h in hashes {
        ends[(h >> shift) as usize] += 1;
    }
    let mut at = 0;
    for s in ends.iter_mut() {
        let count = *s;
        *s = at;
        at += count;
    }
    let mut sorted = vec![0u64; hashes.len()];
    for &h in hashes {
        let b = (h >> shift) as usize;
        sorted[ends[b]] = h;
        ends[b] += 1;
    }
    // `ends[b]` was bucket `b`'s start; each write moved it one on, so it is
    // now the bucket's end.
    (sorted, ends)
}

/// True when no two of `hashes` are equal: the distinctness check of a
/// list's identities when no set of them is kept for look-ups afterwards
/// (the scan pairing; the hint pairing keeps its [`HashSeen`]).
///
/// Long lists are bucketed by the top bits of each hash (one counting
/// pass, one scatter pass), then each bucket (about a thousand hashes) is
/// checked in a small table that stays in the L1 cache, cleared between
/// buckets. Equal hashes share a bucket, so the answer is exact on the
/// 64-bit hashes (where [`HashSeen`] compares 32-bit tags). Lists shorter
/// than `DISTINCT_BUCKETED_MIN` go through [`HashSeen`], whose rare false
/// "not distinct" only sends the caller down its exact path. What it saves
/// over [`HashSeen::insert_all`] is the table of two slots per hash
/// (2 MB at 256k elements, zeroed and then written across, past the L2
/// cache; docs/BENCHMARKS.md, "io-scale").
pub(crate) fn all_distinct(hashes: &[u64]) -> bool {
    let n = hashes.len();
    if n < DISTINCT_BUCKETED_MIN {
        return HashSeen::with_capacity(n).insert_all(hashes);
    }
    // About 1024 hashes a bucket, 4096 buckets at most.
    let bits = (usize::BITS - 1 - n.leading_zeros())
        .saturating_sub(10)
        .clamp(1, 12);
    let (sorted, ends) = scatter_by_top_bits(hashes, 64 - bits);
    let mut table: Vec<u64> = Vec::new();
    let mut zero = false;
    let mut from = 0;
    for &end in &ends {
        let bucket = &sorted[from..end];
        from = end;
        if bucket.len() < 2 {
            continue;
        }
        let slots = (bucket.len() * 2).next_power_of_two();
        let slot_bits = slots.trailing_zeros();
        let mask = slots - 1;
        table.clear();
        table.resize(slots, 0);
        for &h in bucket {
            if h == 0 {
                // 0 marks an empty slot: the hash 0 is tracked apart.
                if zero {
                    return false;
                }
                zero = true;
                continue;
            }
            // The bits below the bucket's: spread within the bucket.
            let mut i = ((h << bits) >> (64 - slot_bits)) as usize;
            loop {
                match table[i] {
                    0 => {
                        table[i] = h;
                        break;
                    }
                    t if t == h => return false,
                    _ => i = (i + 1) & mask,
                }
            }
        }
    }
    true
}

/// Lists shorter than this are checked by one [`HashSeen`] (whose table
/// of up to 128 KB stays in the L2 cache anyway).
const DISTINCT_BUCKETED_MIN: usize = PARTITION_MIN_SLOTS / 2;

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

    #[test]
    fn pos_index_compound_ids_and_refresh() {
        let arena = smpatch_value::Arena::new();
        let p = |s: &'static str| {
            smpatch_value::parse_json(&arena, s.as_bytes(), &Default::default()).unwrap()
        };
        let keys: Vec<Box<str>> = vec!["port".into(), "protocol".into()];
        let spec = KeySpec::Compound(&keys);
        let a = p(r#"{"port": 80, "protocol": "TCP"}"#);
        let b = p(r#"{"port": 80, "protocol": "UDP"}"#);
        let a2 = p(r#"{"protocol": "TCP", "port": 80.0, "x": 1}"#);
        let mut index = PosIndex::with_capacity(1);
        assert_eq!(index.insert_first(identity(a, spec).unwrap(), 0), None);
        assert_eq!(index.insert_first(identity(b, spec).unwrap(), 1), None);
        let id_a2 = identity(a2, spec).unwrap();
        // `80.0` is not `80` (integers and floats are different kinds).
        assert_eq!(index.get_hashed(id_hash(&id_a2), &id_a2), None);
        let a3 = p(r#"{"protocol": "TCP", "port": 80}"#);
        let id_a3 = identity(a3, spec).unwrap();
        assert_eq!(index.get_hashed(id_hash(&id_a3), &id_a3), Some(0));

        // Refreshing keeps the position and answers equal keys the same.
        let s1 = p(r#"{"name": "a"}"#);
        let s2 = p(r#"{"name": "a", "v": 2}"#);
        let single = KeySpec::Single("name");
        let mut index = PosIndex::with_capacity(4);
        index.insert_first(identity(s1, single).unwrap(), 3);
        let id2 = identity(s2, single).unwrap();
        assert_eq!(index.get_hashed_refresh(id_hash(&id2), &id2), Some(3));
        let id1 = identity(s1, single).unwrap();
        assert_eq!(index.get_hashed(id_hash(&id1), &id1), Some(3));
        assert_eq!(index.get_hashed(id_hash(&id2), &id2), Some(3));
        let other = identity(p(r#"{"name": "b"}"#), single).unwrap();
        assert_eq!(index.get_hashed_refresh(id_hash(&other), &other), None);
    }

    #[test]
    fn hash_seen_insert_all_finds_repeats_in_both_fills() {
        // Below and above the size where the table is filled bucket by
        // bucket: distinct hashes are all new, a repeat is found wherever it
        // stands, and every inserted hash is then contained.
        for n in [100usize, 40_000] {
            let hashes: Vec<u64> = (0..n as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 7))
                .collect();
            let mut seen = HashSeen::with_capacity(n);
            assert!(seen.insert_all(&hashes), "n {n}");
            assert!(hashes.iter().all(|&h| seen.contains(h)), "n {n}");
            assert!(!seen.insert_all(&hashes[n / 2..n / 2 + 1]), "n {n}");
            for at in [0, n / 3, n - 1] {
                let mut repeated = hashes.clone();
                repeated.push(hashes[at]);
                repeated.swap(n, n / 2);
                assert!(
                    !HashSeen::with_capacity(n + 1).insert_all(&repeated),
                    "n {n} at {at}"
                );
            }
        }
    }

    #[test]
    fn all_distinct_finds_every_repeat_and_no_other() {
        // Around the bucketed size and at several bucket counts; repeats
        // placed anywhere (same bucket by construction), the hash 0 (the
        // table's empty mark) alone and repeated, and hashes equal in
        // their low 32 bits only (a 32-bit tag table would call them
        // repeats; the 64-bit check must not).
        let mix = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 7);
        for n in [
            1usize,
            2,
            100,
            DISTINCT_BUCKETED_MIN - 1,
            DISTINCT_BUCKETED_MIN,
            40_000,
            300_000,
        ] {
            let hashes: Vec<u64> = (0..n as u64).map(mix).collect();
            assert!(all_distinct(&hashes), "n {n}");
            if n >= 2 {
                for at in [0, n / 3, n - 1] {
                    let mut repeated = hashes.clone();
                    repeated.push(hashes[at]);
                    repeated.swap(n, n / 2);
                    assert!(!all_distinct(&repeated), "n {n} at {at}");
                }
            }
            // `mix(0)` is 0: the distinct lists above hold it once.
            assert_eq!(hashes[0], 0);
            let mut with_zero = hashes.clone();
            with_zero.push(0);
            assert!(!all_distinct(&with_zero), "n {n}");
        }
        let n = 50_000u64;
        let low_alike: Vec<u64> = (0..n).map(|i| (mix(i) << 32) | 0x1234_5678).collect();
        assert!(all_distinct(&low_alike));
        let mut low_alike = low_alike;
        low_alike.push(low_alike[17]);
        assert!(!all_distinct(&low_alike));
    }

    #[test]
    fn inline_keys_compare_like_key_eq() {
        // Around the inline limit, the empty string, and a string and a
        // number with the same text (different kinds: never equal).
        let texts: Vec<String> = [0, 1, INLINE - 1, INLINE, INLINE + 1, 40]
            .iter()
            .flat_map(|&n| {
                [
                    "x".repeat(n),
                    format!("{}y", "x".repeat(n.saturating_sub(1))),
                ]
            })
            .collect();
        let strings: Vec<Value<'static>> = texts
            .iter()
            .map(|s| Value::String(Box::leak(s.clone().into_boxed_str())))
            .collect();
        let mut index = PosIndex::with_capacity(1);
        for (i, v) in strings.iter().enumerate() {
            let first = strings.iter().position(|w| key_eq(v, w));
            let prev = index.insert_first(identity(*v, KeySpec::Value).unwrap(), i);
            assert_eq!(prev, first.filter(|&f| f < i), "{:?}", texts[i]);
        }
        for text in &texts {
            // A copy at another address still matches.
            let copy = Value::String(Box::leak(text.clone().into_boxed_str()));
            let id = identity(copy, KeySpec::Value).unwrap();
            let first = strings.iter().position(|w| key_eq(&copy, w));
            assert_eq!(index.get_hashed(id_hash(&id), &id), first);
        }
        let arena = smpatch_value::Arena::new();
        let num = smpatch_value::parse_json(&arena, b"12", &Default::default()).unwrap();
        let mut index = PosIndex::with_capacity(2);
        index.insert_first(identity(Value::String("12"), KeySpec::Value).unwrap(), 0);
        let id = identity(num, KeySpec::Value).unwrap();
        assert_eq!(index.get_hashed(id_hash(&id), &id), None);
        assert_eq!(index.insert_first(id, 1), None);
    }
}
