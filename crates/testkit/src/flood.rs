//! Keys made to collide under the unseeded FxHash of `rustc-hash` 2 (the
//! hash smpatch used before it keyed its tables): the HashDoS tests' and the
//! `flood` bench's input.
//!
//! For 16-byte input FxHash folds the product of two words `a = S1 ^ x`
//! and `b = S2 ^ y` (`x`, `y` the key's two halves, `S1`, `S2` its fixed
//! constants) into `lo(a·b) ^ hi(a·b)`, which is `0` whenever `a·b` is a
//! multiple of `2^64 + 1 = 274177 · 67280421310721`. So every key whose
//! first word makes `a` a multiple of 274177 and whose second word makes `b`
//! a multiple of 67280421310721 hashes alike: [`fx_colliding_keys`] keeps
//! one such second word and enumerates first words, keeping the printable
//! ones.

const S1: u64 = 0x243f_6a88_85a3_08d3;
const S2: u64 = 0x1319_8a2e_0370_7344;
const P1: u64 = 274_177;
const P2: u64 = 67_280_421_310_721;

/// Printable ASCII that needs no escaping in JSON (not even Go's HTML-safe
/// `\u003c`, `\u003e`, `\u0026`) and no `~1`/`~0` in a JSON pointer.
fn plain(b: u8) -> bool {
    (0x21..0x7f).contains(&b) && !matches!(b, b'"' | b'\\' | b'/' | b'~' | b'<' | b'>' | b'&')
}

fn plain_word(w: u64) -> bool {
    w.to_le_bytes().into_iter().all(plain)
}

/// `n` distinct 16-byte printable keys with one and the same FxHash (as
/// `rustc_hash::FxHasher::write` of their bytes, hence also as `&str` keys
/// of an `FxHashMap`).
///
/// ```
/// let keys = smpatch_testkit::fx_colliding_keys(100);
/// assert_eq!(keys.len(), 100);
/// assert!(keys.iter().all(|k| k.len() == 16));
/// ```
pub fn fx_colliding_keys(n: usize) -> Vec<String> {
    // The second word: the first multiple of P2 that reads as plain text.
    let y = (1..P1)
        .map(|k| S2 ^ k.wrapping_mul(P2))
        .find(|&y| plain_word(y))
        .unwrap_or(0);
    let tail = y.to_le_bytes();
    let mut out = Vec::with_capacity(n);
    // First words: the five high bytes count through plain text; the low
    // three bytes are solved so that `S1 ^ x` is a multiple of P1.
    let alphabet: Vec<u8> = (0u8..=255).filter(|&b| plain(b)).collect();
    let mut counter: u64 = 0;
    while out.len() < n {
        let mut c = counter;
        let mut hi = 0u64;
        for i in 0..5 {
            let d = alphabet[(c % alphabet.len() as u64) as usize];
            c /= alphabet.len() as u64;
            hi |= u64::from(d) << (24 + 8 * i);
        }
        counter += 1;
        let a_hi = (S1 ^ hi) & !0xff_ffff;
        let mut a_lo = (P1 - a_hi % P1) % P1;
        while a_lo < 1 << 24 && out.len() < n {
            let x = hi | ((S1 ^ a_lo) & 0xff_ffff);
            if plain_word(x) {
                let mut key = x.to_le_bytes().to_vec();
                key.extend_from_slice(&tail);
                out.push(String::from_utf8(key).unwrap_or_default());
            }
            a_lo += P1;
        }
    }
    out
}

/// `n` distinct ordinary 16-byte keys in no sorted order, like the flood
/// keys (the flood keys' control: a sorted control would flatter every
/// sort): `i · 7777777777 mod 10^12` is a bijection of the 12 digits.
pub fn ordinary_keys(n: usize) -> Vec<String> {
    (0..n as u64)
        .map(|i| {
            format!(
                "key-{:012}",
                i.wrapping_mul(7_777_777_777) % 1_000_000_000_000
            )
        })
        .collect()
}

/// The JSON list of `f(key)` for every key (keys need no escaping: both
/// key sets are plain ASCII).
pub fn json_list(keys: &[String], f: impl Fn(&str) -> String) -> String {
    let items: Vec<String> = keys.iter().map(|k| f(k)).collect();
    format!("[{}]", items.join(","))
}

/// The JSON object with a member `key: v` (`v` is JSON text) per key.
pub fn json_object(keys: &[String], v: &str) -> String {
    let members: Vec<String> = keys.iter().map(|k| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", members.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FxHash's 16-byte case, written out: the generator's claim.
    fn fx16(k: &[u8]) -> u64 {
        let x = u64::from_le_bytes(k[0..8].try_into().unwrap_or_default());
        let y = u64::from_le_bytes(k[8..16].try_into().unwrap_or_default());
        let p = u128::from(S1 ^ x) * u128::from(S2 ^ y);
        (p as u64) ^ ((p >> 64) as u64) ^ 16
    }

    #[test]
    fn keys_are_distinct_plain_and_collide() {
        let keys = fx_colliding_keys(3000);
        let set: std::collections::HashSet<&String> = keys.iter().collect();
        assert_eq!(set.len(), 3000);
        assert!(keys.iter().all(|k| k.len() == 16 && k.bytes().all(plain)));
        let h = fx16(keys[0].as_bytes());
        assert!(keys.iter().all(|k| fx16(k.as_bytes()) == h));
        let o = ordinary_keys(3000);
        assert_eq!(
            o.iter().collect::<std::collections::HashSet<_>>().len(),
            3000
        );
        assert!(o.iter().all(|k| k.len() == 16));
        assert_ne!(fx16(o[0].as_bytes()), fx16(o[1].as_bytes()));
    }
}
