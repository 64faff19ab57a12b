//! The text forms of merge-key values used to sort, pair and index elements
//! (which keys a list has is decided once, by `smpatch_schema::Rules`), and
//! the pairing of two lists by unique string keys (a hash map for short
//! lists, a sort-merge join of key hashes for long ones, a comparison sort of
//! the keys themselves when those hashes collide).

use smpatch_schema::KeySpec;
use smpatch_value::hashing::{HashMap, HashSet, KeyedHasher};
use smpatch_value::{render, Kind, Object, Value};
use std::borrow::Cow;
use std::hash::Hasher;

/// One component of a key text: the rendering and a kind tag (0 when kinds are
/// not distinguished).
pub(crate) type KeyPart<'a> = (Cow<'a, str>, u8);

/// Text form of an element's key values: compared lexicographically.
pub(crate) type KeyText<'a> = Vec<KeyPart<'a>>;

/// How key texts compare values of different kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tagging {
    /// Kinds distinguished: texts are equal exactly when the values are
    /// strictly equal (`1`, `1.0` and `"1"` differ).
    ByKind,
    /// Go `%v` text only, as the reference sorts by.
    Plain,
}

/// A tag per kind, so that `1`, `1.0` and `"1"` differ with [`Tagging::ByKind`].
pub(crate) fn kind_tag(v: &Value<'_>) -> u8 {
    match v.kind() {
        Kind::Null => 1,
        Kind::Bool => 2,
        Kind::Int => 3,
        Kind::Float => 4,
        Kind::String => 5,
        Kind::Array => 6,
        Kind::Object => 7,
    }
}

/// The key text of one value: its rendering (Go `%v`) and, with [`Tagging::ByKind`],
/// its kind. Tagged texts are equal exactly when the values are strictly
/// equal (same kind, same value).
pub(crate) fn value_text<'a>(v: &Value<'a>, tagging: Tagging) -> KeyPart<'a> {
    let tag = match tagging {
        Tagging::ByKind => kind_tag(v),
        Tagging::Plain => 0,
    };
    (render(v), tag)
}

/// The key text of an object element; `Err(name)` names the first missing key.
pub(crate) fn element_key<'a, 's>(
    obj: &Object<'a>,
    keys: KeySpec<'s>,
    tagging: Tagging,
) -> Result<KeyText<'a>, &'s str> {
    match keys {
        KeySpec::Value => Err(""),
        KeySpec::Single(k) => match obj.get(k) {
            Some(v) => Ok(vec![value_text(&v, tagging)]),
            None => Err(k),
        },
        KeySpec::Compound(ks) => {
            let mut out = Vec::with_capacity(ks.len());
            for k in ks {
                match obj.get(k) {
                    Some(v) => out.push(value_text(&v, tagging)),
                    None => return Err(k),
                }
            }
            Ok(out)
        }
    }
}

/// No pair in the other list (in [`UniquePairing::pair`] and in diff3's
/// three-list pairing).
pub(crate) const UNPAIRED: u32 = u32::MAX;

/// Which element of the old list each element of the new list pairs with,
/// by equal string key, when no key repeats within either list.
pub(crate) struct UniquePairing {
    /// Per element of the new list: the position of the element of the old
    /// list with the same key, or [`UNPAIRED`].
    pub(crate) pair: Vec<u32>,
    /// Per element of the old list: whether an element of the new list has
    /// its key.
    pub(crate) matched: Vec<bool>,
    /// False when the pairs were made by equal key hashes: the caller checks
    /// each pair's keys before using it ([`UniquePairing::verified`]) and
    /// pairs by [`pair_by_key_sort`] instead on a difference (a hash collision).
    pub(crate) verified: bool,
}

impl UniquePairing {
    /// The pairing once every pair's keys are checked equal; `None` when a
    /// pair's keys differ.
    #[cfg(test)]
    pub(crate) fn verified(self, o: &[&str], m: &[&str]) -> Option<Self> {
        let all_equal = m
            .iter()
            .zip(&self.pair)
            .all(|(k, &oi)| oi == UNPAIRED || o[oi as usize] == *k);
        all_equal.then_some(UniquePairing {
            verified: true,
            ..self
        })
    }
}

/// Lists at least this long are paired by sorting. Measured on the
/// env-N-all inputs (`profile create2-op`): the hash map is 2-3 % faster at
/// 2k-4k elements (its index still fits the caches), even at 8k, and the sort
/// 5 % faster at 16k and 15 % at 256k.
pub(crate) const SORT_PAIRING_MIN: usize = 8192;

/// Bits of a sort item holding the element's position (the rest hold the
/// top bits of the key's hash); longer lists are paired by the hash map.
const POS_BITS: u32 = 24;
const POS_MASK: u64 = (1 << POS_BITS) - 1;

/// True when lists of these lengths are paired by sorting: the caller then
/// collects each list's keys in [`SortItems`] for [`pair_unique_keys`].
pub(crate) fn pairs_by_sort(o_len: usize, m_len: usize) -> bool {
    o_len >= sort_pairing_min() && o_len.max(m_len) < (1 << POS_BITS)
}

#[cfg(not(test))]
fn sort_pairing_min() -> usize {
    SORT_PAIRING_MIN
}

#[cfg(test)]
thread_local! {
    /// The unit tests' override of [`SORT_PAIRING_MIN`], to run both
    /// pairings on the same small lists.
    pub(crate) static SORT_PAIRING_MIN_FOR_TESTS: std::cell::Cell<usize> =
        const { std::cell::Cell::new(SORT_PAIRING_MIN) };
}

#[cfg(test)]
fn sort_pairing_min() -> usize {
    SORT_PAIRING_MIN_FOR_TESTS.with(|c| c.get())
}

/// The hash of a key that [`pair_unique_keys`] sorts by.
#[inline]
pub(crate) fn key_hash(k: &str) -> u64 {
    let mut h = KeyedHasher::default();
    h.write(k.as_bytes());
    #[cfg(test)]
    {
        let buckets = KEY_HASH_BUCKETS_FOR_TESTS.with(|c| c.get());
        if buckets != 0 {
            // Few distinct hashes, spread over the bits the sort reads, so
            // unequal keys collide on purpose.
            return (h.finish() % buckets + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    h.finish()
}

#[cfg(test)]
thread_local! {
    /// The unit tests' switch that folds [`key_hash`] into this many
    /// values (0: off), to force collisions between unequal keys.
    pub(crate) static KEY_HASH_BUCKETS_FOR_TESTS: std::cell::Cell<u64> =
        const { std::cell::Cell::new(0) };
}

/// The sort items of one list for [`pair_by_sort`]: `(hash bits, position)`
/// packed in a `u64` per key, and the radix sort's digit counts, both made
/// while the keys are read (so the sort needs no pass of its own to build
/// or count them).
pub(crate) struct SortItems {
    items: Vec<u64>,
    counts: Vec<[u32; BUCKETS]>,
}

/// Bits of a radix sort digit.
const DIGIT: u32 = 10;
const BUCKETS: usize = 1 << DIGIT;
/// Radix passes over the hash bits (bits `POS_BITS..64`).
const PASSES: usize = ((64 - POS_BITS) / DIGIT) as usize;

#[inline]
fn digit(x: u64, pass: usize) -> usize {
    ((x >> (POS_BITS + DIGIT * pass as u32)) as usize) & (BUCKETS - 1)
}

impl SortItems {
    /// Room for `n` keys.
    pub(crate) fn with_capacity(n: usize) -> Self {
        SortItems {
            items: Vec::with_capacity(n),
            counts: vec![[0; BUCKETS]; PASSES],
        }
    }

    /// The next key of the list (its position is the number pushed so far;
    /// [`pairs_by_sort`] bounds the lengths).
    #[inline]
    pub(crate) fn push(&mut self, key: &str) {
        self.push_hash(key_hash(key));
    }

    /// [`SortItems::push`] of a key whose [`key_hash`] is `hash`.
    #[inline]
    pub(crate) fn push_hash(&mut self, hash: u64) {
        let x = (hash & !POS_MASK) | self.items.len() as u64;
        for (pass, c) in self.counts.iter_mut().enumerate() {
            c[digit(x, pass)] += 1;
        }
        self.items.push(x);
    }

    /// The items sorted by hash bits (least significant digit radix sort:
    /// stable passes of ten bits over bits 24..64); `tmp` is scratch.
    fn sorted(mut self, tmp: &mut Vec<u64>) -> Vec<u64> {
        let n = self.items.len();
        tmp.clear();
        tmp.resize(n, 0);
        for (pass, c) in self.counts.iter_mut().enumerate() {
            if c.iter().any(|&k| k as usize == n) {
                continue; // one bucket holds every item: the pass changes nothing
            }
            let mut start = 0;
            for k in c.iter_mut() {
                let count = *k;
                *k = start;
                start += count;
            }
            for &x in self.items.iter() {
                let b = &mut c[digit(x, pass)];
                tmp[*b as usize] = x;
                *b += 1;
            }
            std::mem::swap(&mut self.items, tmp);
        }
        self.items
    }
}

/// Pairs the keys of `m` with equal keys of `o`; `None` when a key appears
/// twice in `o` or twice in `m`. `o_items` and `m_items` hold the keys'
/// [`SortItems`] when [`pairs_by_sort`] says so (otherwise `None`).
///
/// Long lists are paired by sorting (hash, position) items of both lists and
/// merging the two sorted runs, so every access is sequential or lands in
/// arrays of a few bytes per element, where a hash map over hundreds of
/// thousands of keys misses the caches on every insert and probe. The pairs
/// are then unverified (see [`UniquePairing::verified`]): the diff compares
/// each pair's keys when it visits the pair, next to the elements it reads
/// anyway, and asks [`pair_by_key_sort`] on a difference. Equal hashes within
/// a list (chance, or keys made to collide) hand the lists to
/// [`pair_by_key_sort`], which compares the keys themselves: no choice of
/// keys makes this pairing slower than a comparison sort. (diff3's pairing of
/// three lists still falls back to hash maps on a collision.)
pub(crate) fn pair_unique_keys<'k>(
    o: &[&'k str],
    m: &[&'k str],
    items: Option<(SortItems, SortItems)>,
) -> Option<UniquePairing> {
    match items {
        Some((oi, mi)) => match pair_by_sort(oi, mi) {
            Some(p) => Some(p),
            None => pair_by_key_sort(o, m),
        },
        None => pair_by_map(o, m.iter().map(|k| Some(*k))),
    }
}

/// [`pair_unique_keys`] with a hash map from the keys of `o` to their
/// positions. The keys of `m` come one by one; a `None` among them ends the
/// pairing with `None` (the caller's element is outside the unique case).
pub(crate) fn pair_by_map<'k>(
    o: &[&'k str],
    m: impl ExactSizeIterator<Item = Option<&'k str>>,
) -> Option<UniquePairing> {
    pair_by_index(&key_index(o.iter().copied())?, m)
}

/// [`pair_unique_keys`] by a sort-merge join of the hashes (top 40 bits);
/// `None` when two keys of one list share those bits (the caller then
/// compares keys). The pairs are unverified.
pub(crate) fn pair_by_sort(o: SortItems, m: SortItems) -> Option<UniquePairing> {
    let (o_len, m_len) = (o.items.len(), m.items.len());
    let mut tmp = Vec::new();
    let os = o.sorted(&mut tmp);
    let ms = m.sorted(&mut tmp);
    drop(tmp);
    let hash = |x: u64| x >> POS_BITS;
    let repeats = |s: &[u64]| s.windows(2).any(|w| hash(w[0]) == hash(w[1]));
    if repeats(&os) || repeats(&ms) {
        return None;
    }
    let mut pair = vec![UNPAIRED; m_len];
    let mut matched = vec![false; o_len];
    let (mut i, mut j) = (0, 0);
    while i < os.len() && j < ms.len() {
        let (x, y) = (os[i], ms[j]);
        match hash(x).cmp(&hash(y)) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                let oi = (x & POS_MASK) as usize;
                pair[(y & POS_MASK) as usize] = oi as u32;
                matched[oi] = true;
                i += 1;
                j += 1;
            }
        }
    }
    Some(UniquePairing {
        pair,
        matched,
        verified: false,
    })
}

/// [`pair_unique_keys`] by sorting each list's `(key, position)` pairs by
/// key and merging them: exact (the keys themselves are compared) and
/// O(n log n) whatever the keys, for lists whose key hashes collide.
pub(crate) fn pair_by_key_sort(o: &[&str], m: &[&str]) -> Option<UniquePairing> {
    let sorted = |l: &[&str]| -> Option<Vec<u32>> {
        let mut s: Vec<u32> = (0..l.len() as u32).collect();
        s.sort_unstable_by(|&x, &y| l[x as usize].cmp(l[y as usize]));
        let repeats = s.windows(2).any(|w| l[w[0] as usize] == l[w[1] as usize]);
        (!repeats).then_some(s)
    };
    let os = sorted(o)?;
    let ms = sorted(m)?;
    let mut pair = vec![UNPAIRED; m.len()];
    let mut matched = vec![false; o.len()];
    let (mut i, mut j) = (0, 0);
    while i < os.len() && j < ms.len() {
        let (x, y) = (os[i] as usize, ms[j] as usize);
        match o[x].cmp(m[y]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                pair[y] = x as u32;
                matched[x] = true;
                i += 1;
                j += 1;
            }
        }
    }
    Some(UniquePairing {
        pair,
        matched,
        verified: true,
    })
}

/// The index [`pair_by_index`] looks keys up in: each key of a list to its
/// position; `None` when a key repeats. (diff3 pairs modified and current
/// with one index of original.)
pub(crate) fn key_index<'k>(keys: impl ExactSizeIterator<Item = &'k str>) -> Option<KeyIndex<'k>> {
    let mut index: HashMap<&'k str, u32> =
        HashMap::with_capacity_and_hasher(keys.len(), Default::default());
    let mut len = 0;
    for (i, k) in keys.enumerate() {
        if index.insert(k, i as u32).is_some() {
            return None;
        }
        len = i + 1;
    }
    Some(KeyIndex { index, len })
}

/// The keys of a list by position, none twice ([`key_index`]).
pub(crate) struct KeyIndex<'k> {
    index: HashMap<&'k str, u32>,
    len: usize,
}

/// [`pair_by_map`] with the index of `o` built beforehand.
pub(crate) fn pair_by_index<'k>(
    o: &KeyIndex<'k>,
    m: impl ExactSizeIterator<Item = Option<&'k str>>,
) -> Option<UniquePairing> {
    let mut matched = vec![false; o.len];
    let mut added: HashSet<&'k str> = HashSet::default();
    let mut pair = Vec::with_capacity(m.len());
    for k in m {
        let k = k?;
        let oi = match o.index.get(k) {
            Some(&oi) => {
                if std::mem::replace(&mut matched[oi as usize], true) {
                    return None;
                }
                oi
            }
            None => {
                if !added.insert(k) {
                    return None;
                }
                UNPAIRED
            }
        };
        pair.push(oi);
    }
    Some(UniquePairing {
        pair,
        matched,
        verified: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The pairing by definition: each key of `m` with the position of the
    /// equal key of `o`, `None` when a key repeats within a list.
    fn reference(o: &[&str], m: &[&str]) -> Option<(Vec<u32>, Vec<bool>)> {
        let repeats = |l: &[&str]| (0..l.len()).any(|i| l[..i].contains(&l[i]));
        if repeats(o) || repeats(m) {
            return None;
        }
        let pair: Vec<u32> = m
            .iter()
            .map(|k| o.iter().position(|x| x == k).map_or(UNPAIRED, |p| p as u32))
            .collect();
        let matched = (0..o.len()).map(|i| m.contains(&o[i])).collect();
        Some((pair, matched))
    }

    /// Keys from a small pool (so lists share and repeat keys).
    fn keys(pool: usize, max: usize) -> impl Strategy<Value = Vec<String>> {
        proptest::collection::vec((0..pool).prop_map(|k| format!("k{k}")), 0..max)
    }

    fn strs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }

    fn items(v: &[&str]) -> SortItems {
        let mut s = SortItems::with_capacity(v.len());
        for k in v {
            s.push(k);
        }
        s
    }

    /// The sort pairing's answer after the checks its caller makes: `None`
    /// from the sort (equal hashes in a list) or a failed check means the
    /// caller compares the keys themselves.
    fn by_sort_checked(
        o: &[&str],
        oi: SortItems,
        m: &[&str],
        mi: SortItems,
    ) -> Option<UniquePairing> {
        match pair_by_sort(oi, mi).and_then(|p| p.verified(o, m)) {
            Some(p) => Some(p),
            None => pair_by_key_sort(o, m),
        }
    }

    proptest! {
        /// Map and sort pairings agree with the definition, on lists with
        /// shared, missing and repeated keys.
        #[test]
        fn pairings_match_the_reference(o in keys(40, 60), m in keys(40, 60)) {
            let (o, m) = (strs(&o), strs(&m));
            let want = reference(&o, &m);
            let map = pair_by_map(&o, m.iter().map(|k| Some(*k))).map(|p| (p.pair, p.matched));
            prop_assert_eq!(&map, &want);
            let sort = by_sort_checked(&o, items(&o), &m, items(&m))
                .map(|p| (p.pair, p.matched));
            prop_assert_eq!(&sort, &want);
            let exact = pair_by_key_sort(&o, &m).map(|p| (p.pair, p.matched));
            prop_assert_eq!(&exact, &want);
        }

        /// With hashes that collide on purpose (a few values for many
        /// keys), the sort pairing's equal-hash and wrong-pair checks still
        /// lead to the reference answer.
        #[test]
        fn colliding_hashes_fall_back_to_the_exact_pairing(
            o in keys(12, 20),
            m in keys(12, 20),
            spread in 1u64..6,
        ) {
            let (o, m) = (strs(&o), strs(&m));
            let fake = |l: &[&str]| -> SortItems {
                let mut s = SortItems::with_capacity(l.len());
                for k in l {
                    s.push_hash((key_hash(k) % spread) << 40);
                }
                s
            };
            let sort = by_sort_checked(&o, fake(&o), &m, fake(&m))
                .map(|p| (p.pair, p.matched));
            prop_assert_eq!(&sort, &reference(&o, &m));
        }
    }

    /// Large unique lists go through the radix sort's four passes and pair
    /// as the map does (a reversed list with additions and deletions).
    #[test]
    fn long_lists_pair_as_the_map_does() {
        let o: Vec<String> = (0..40_000).map(|i| format!("ENV_{i}")).collect();
        let m: Vec<String> = (0..40_000)
            .rev()
            .filter(|i| i % 7 != 0)
            .map(|i| format!("ENV_{}", i + 3))
            .collect();
        let (o, m) = (strs(&o), strs(&m));
        assert!(pairs_by_sort(o.len(), m.len()));
        let sort = pair_by_sort(items(&o), items(&m))
            .and_then(|p| p.verified(&o, &m))
            .map(|p| (p.pair, p.matched));
        let map = pair_by_map(&o, m.iter().map(|k| Some(*k))).map(|p| (p.pair, p.matched));
        assert!(sort.is_some());
        assert_eq!(sort, map);
    }

    /// Keys whose hashes all collide (a hash-flooding input) are paired by
    /// comparing the keys: the same pairs as the map, verified, from lists
    /// long enough to be sorted.
    #[test]
    fn colliding_hashes_of_long_lists_pair_by_comparing_keys() {
        let o: Vec<String> = (0..20_000).map(|i| format!("ENV_{i}")).collect();
        let m: Vec<String> = (0..20_000)
            .rev()
            .filter(|i| i % 5 != 0)
            .map(|i| format!("ENV_{}", i + 7))
            .collect();
        let (o, m) = (strs(&o), strs(&m));
        assert!(pairs_by_sort(o.len(), m.len()));
        KEY_HASH_BUCKETS_FOR_TESTS.with(|c| c.set(1));
        let (oi, mi) = (items(&o), items(&m));
        KEY_HASH_BUCKETS_FOR_TESTS.with(|c| c.set(0));
        assert!(pair_by_sort(items(&o), items(&m)).is_some());
        let flooded = pair_unique_keys(&o, &m, Some((oi, mi))).unwrap();
        assert!(flooded.verified);
        let map = pair_by_map(&o, m.iter().map(|k| Some(*k))).unwrap();
        assert_eq!((flooded.pair, flooded.matched), (map.pair, map.matched));
        // A repeated key is still refused.
        let mut m2 = m.clone();
        m2.push(m[3]);
        assert!(pair_by_key_sort(&o, &m2).is_none());
        assert!(pair_by_key_sort(&m2, &o).is_none());
    }
}
