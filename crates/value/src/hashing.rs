//! Keyed hashing for everything derived from input: the one place that
//! defines the hash maps, sets and hasher the smpatch crates use.
//!
//! smpatch is linked by servers that merge untrusted patches, so no choice
//! of keys may make a hash table quadratic (HashDoS). An unkeyed hash such
//! as FxHash lets anyone precompute thousands of keys with one hash; every
//! table over input-derived data therefore hashes with a secret drawn once
//! per process from the operating system's randomness (through
//! [`std::collections::hash_map::RandomState`]), and the hash itself is
//! foldhash's fast variant ([`foldhash`], "minimally DoS-resistant": no list
//! of inputs collides for every seed). No output of smpatch depends on hash
//! values or on the iteration order of these tables, so the seed is never
//! observable in a result (see docs/RELIABILITY.md).
//!
//! Use [`HashMap`], [`HashSet`] and [`KeyedState`] (with `default()` /
//! `with_capacity_and_hasher(n, Default::default())`), and
//! [`hash_bytes`] / [`hash_u64`] / [`KeyedHasher`] where a structure keeps
//! raw hash bits; never an unkeyed hasher (`clippy.toml` refuses
//! `rustc_hash`'s types).
//!
//! ```
//! use smpatch_value::hashing::{hash_bytes, HashMap};
//! let mut m: HashMap<&str, u32> = HashMap::default();
//! m.insert("a", 1);
//! assert_eq!(m["a"], 1);
//! assert_eq!(hash_bytes(b"key"), hash_bytes(b"key"));
//! ```

use foldhash::fast::FoldHasher;
use foldhash::SharedSeed;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// The process's secret: foldhash's expanded shared seed and the initial
/// accumulator of every hasher.
struct Seeds {
    shared: SharedSeed,
    first: u64,
}

impl Seeds {
    fn from_u64(seed: u64) -> Seeds {
        Seeds {
            shared: SharedSeed::from_u64(seed),
            first: seed.rotate_left(32) ^ 0x9e37_79b9_7f4a_7c15,
        }
    }
}

static SEEDS: OnceLock<Seeds> = OnceLock::new();

/// 64 bits of operating-system randomness: std's `RandomState` keys its
/// SipHash from the OS once per thread, so its hash of a constant is as
/// unpredictable as the keys.
fn os_random() -> u64 {
    std::collections::hash_map::RandomState::new().hash_one(0x736d_7061_7463_68u64)
}

#[inline]
fn seeds() -> &'static Seeds {
    SEEDS.get_or_init(|| Seeds::from_u64(os_random()))
}

/// Fixes the process's hash secret to `seed` if no hash has been taken
/// yet; `false` (and no change) otherwise. For tests that run the same
/// operations under two seeds (in two processes) and compare the bytes:
/// a fixed secret gives up the HashDoS resistance, so never call this in
/// a program that reads untrusted input.
#[doc(hidden)]
pub fn set_seed_for_tests(seed: u64) -> bool {
    SEEDS.set(Seeds::from_u64(seed)).is_ok()
}

/// The [`BuildHasher`] of every smpatch hash table: [`KeyedHasher`]s under
/// the process's secret (zero-sized; `Default` is free).
#[derive(Clone, Copy, Debug, Default)]
pub struct KeyedState;

impl BuildHasher for KeyedState {
    type Hasher = KeyedHasher;

    #[inline]
    fn build_hasher(&self) -> KeyedHasher {
        KeyedHasher::new()
    }
}

/// A hasher keyed with the process's secret (foldhash's fast variant).
#[derive(Clone)]
pub struct KeyedHasher(FoldHasher<'static>);

impl KeyedHasher {
    /// A fresh hasher under the process's secret.
    #[inline]
    pub fn new() -> KeyedHasher {
        let s = seeds();
        KeyedHasher(FoldHasher::with_seed(s.first, &s.shared))
    }
}

impl Default for KeyedHasher {
    #[inline]
    fn default() -> KeyedHasher {
        KeyedHasher::new()
    }
}

impl Hasher for KeyedHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0.write_u8(i);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.0.write_u32(i);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0.write_u64(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.0.write_usize(i);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// A hash map keyed against HashDoS (see the module docs).
pub type HashMap<K, V> = std::collections::HashMap<K, V, KeyedState>;

/// A hash set keyed against HashDoS (see the module docs).
pub type HashSet<T> = std::collections::HashSet<T, KeyedState>;

/// The keyed hash of `bytes` (for structures that keep raw hash bits).
#[inline]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = KeyedHasher::new();
    h.write(bytes);
    h.finish()
}

/// The keyed hash of `x`.
#[inline]
pub fn hash_u64(x: u64) -> u64 {
    let mut h = KeyedHasher::new();
    h.write_u64(x);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_and_hash_apart() {
        let (a, b) = (Seeds::from_u64(1), Seeds::from_u64(2));
        let h = |s: &Seeds, k: &[u8]| {
            let mut h = FoldHasher::with_seed(s.first, &s.shared);
            h.write(k);
            h.finish()
        };
        assert_ne!(h(&a, b"name"), h(&b, b"name"));
        assert_ne!(os_random(), os_random());
    }
}
