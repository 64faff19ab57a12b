//! Keyed hashing for everything derived from input: the one place that
//! defines the hash maps, sets and hasher the smpatch crates use.
//!
//! smpatch is linked by servers that merge untrusted patches, so no choice
//! of keys may make a hash table quadratic (HashDoS). An unkeyed hash such
//! as FxHash lets anyone precompute thousands of keys with one hash; every
//! table over input-derived data therefore hashes with aHash ([`ahash`],
//! whose documentation claims DoS resistance for in-memory hash maps: its
//! hashes cannot be predicted without the key) under one key drawn per
//! process from the operating system's randomness (a few cold paths, such
//! as the parsers' duplicate-key checks of wide objects, use std's
//! `HashMap`, whose SipHash is keyed per process the same way). No output of smpatch
//! depends on hash values or on the iteration order of these tables, so the
//! key is never observable in a result (see docs/RELIABILITY.md).
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

use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// The process's secret: aHash keys drawn once from the operating system's
/// randomness (aHash's `runtime-rng`, through `getrandom`).
static STATE: OnceLock<ahash::RandomState> = OnceLock::new();

#[inline]
fn state() -> &'static ahash::RandomState {
    STATE.get_or_init(ahash::RandomState::new)
}

/// Fixes the process's hash secret (derived from `seed`) if no hash has
/// been taken yet; `false` (and no change) otherwise. For tests that run
/// the same operations under two seeds (in two processes) and compare the
/// bytes: a fixed secret gives up the HashDoS resistance, so never call
/// this in a program that reads untrusted input.
#[doc(hidden)]
pub fn set_seed_for_tests(seed: u64) -> bool {
    let k = |i: u64| seed.rotate_left(16 * i as u32) ^ 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i + 1);
    STATE
        .set(ahash::RandomState::with_seeds(k(0), k(1), k(2), k(3)))
        .is_ok()
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

/// A hasher keyed with the process's secret (aHash).
#[derive(Clone)]
pub struct KeyedHasher(ahash::AHasher);

impl KeyedHasher {
    /// A fresh hasher under the process's secret.
    #[inline]
    pub fn new() -> KeyedHasher {
        KeyedHasher(state().build_hasher())
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
    fn one_secret_per_process() {
        assert_eq!(hash_bytes(b"name"), hash_bytes(b"name"));
        assert_ne!(hash_bytes(b"name"), hash_bytes(b"namf"));
        assert_eq!(hash_u64(7), hash_u64(7));
        // Two fresh keys hash apart (what makes precomputed floods fail).
        let (a, b) = (ahash::RandomState::new(), ahash::RandomState::new());
        assert_ne!(a.hash_one("name"), b.hash_one("name"));
        // Too late: hashes were taken.
        assert!(!set_seed_for_tests(1));
    }

    /// Keys crafted to share one FxHash (the unkeyed hash smpatch used
    /// before) hash apart under the keyed hashes: as raw bits, as `&str`
    /// map keys, and as the deep hash of string values.
    #[test]
    #[allow(clippy::disallowed_types)]
    fn keys_crafted_for_fxhash_do_not_collide() {
        let keys = smpatch_testkit::fx_colliding_keys(2000);
        let fx = |k: &str| rustc_hash::FxBuildHasher.hash_one(k);
        assert!(
            keys.iter().all(|k| fx(k) == fx(&keys[0])),
            "the flood keys collide under FxHash"
        );
        let distinct = |hs: Vec<u64>| {
            hs.into_iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        };
        assert_eq!(
            distinct(keys.iter().map(|k| hash_bytes(k.as_bytes())).collect()),
            keys.len()
        );
        assert_eq!(
            distinct(
                keys.iter()
                    .map(|k| KeyedState.hash_one(k.as_str()))
                    .collect()
            ),
            keys.len()
        );
        let deep = keys
            .iter()
            .map(|k| crate::Value::String(k).deep_hash())
            .collect();
        assert_eq!(distinct(deep), keys.len());
    }
}
