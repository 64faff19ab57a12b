//! Shared generators for smpatch's fuzz targets and property tests.
//!
//! Owns: byte-driven generators of documents and patches for the conformance
//! `mergeItem` schema (`../shared/conformance/schemas/merge-item.v2.json`)
//! and of arbitrary JSON values. Every generator reads its choices from an
//! [`arbitrary::Unstructured`], so the same code serves `cargo fuzz` (bytes
//! from libFuzzer) and proptest (bytes from a `Vec<u8>` strategy, see
//! [`from_bytes`]).
//!
//! The proptest strategies of `crates/patch-create/tests/laws.rs` (the
//! widget schema) are the other generator family; new shared generators
//! belong here.
//!
//! Also owns [`shared_dir`]: where the optional shared reference suite is
//! (`$SMPATCH_SHARED`, else `../shared` beside the repository), with the
//! skip notice every test prints when it is absent.
//!
//! Must not: depend on the smpatch crates (fuzz and every crate's tests can
//! use it without cycles), or read files (it only checks whether the shared
//! folder exists).
//!
//! ```
//! use smpatch_testkit::{from_bytes, merge_item_doc};
//! let doc = from_bytes(&[7, 1, 2, 3, 200, 9], |u| merge_item_doc(u, 3));
//! assert!(doc.is_object());
//! ```
#![deny(missing_docs)]

mod flood;
mod shared;
mod unions;

pub use arbitrary::{Arbitrary, Result, Unstructured};
pub use flood::{fx_colliding_keys, json_list, json_object, ordinary_keys};
use serde_json::{Map, Value as J};
pub use shared::{shared_dir, shared_location, shared_path, skip_notice, REQUIRE_ENV, SHARED_ENV};
pub use unions::{union_host, union_nondisc, union_src, union_strict};

/// Runs a generator on `bytes`; when the bytes run out, choices default to
/// their first option, so every byte string gives a value.
pub fn from_bytes<T>(bytes: &[u8], f: impl FnOnce(&mut Unstructured<'_>) -> Result<T>) -> T
where
    T: Default,
{
    let mut u = Unstructured::new(bytes);
    f(&mut u).unwrap_or_default()
}

const STRINGS: &[&str] = &["a", "b", "c", "1", "x", "", "name", "$patch"];
const NAMES: &[&str] = &["a", "b", "c", "d", "e"];

fn pick<'s>(u: &mut Unstructured<'_>, from: &[&'s str]) -> Result<&'s str> {
    Ok(*u.choose(from)?)
}

fn string(u: &mut Unstructured<'_>) -> Result<J> {
    Ok(J::String(pick(u, STRINGS)?.to_owned()))
}

/// Up to `max` distinct entries of `pool` in an arbitrary order.
fn distinct<'s>(u: &mut Unstructured<'_>, pool: &[&'s str], max: usize) -> Result<Vec<&'s str>> {
    let mut left: Vec<&str> = pool.to_vec();
    let n = u.int_in_range(0..=max.min(pool.len()))?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let i = u.choose_index(left.len())?;
        out.push(left.remove(i));
    }
    Ok(out)
}

fn distinct_ints(u: &mut Unstructured<'_>, max: usize) -> Result<J> {
    let pool = ["1", "2", "3", "4", "5"];
    let picked = distinct(u, &pool, max)?;
    Ok(J::Array(
        picked
            .iter()
            .filter_map(|s| s.parse::<i64>().ok())
            .map(J::from)
            .collect(),
    ))
}

fn string_map(u: &mut Unstructured<'_>) -> Result<J> {
    let keys = distinct(u, &["k1", "k2", "k3"], 3)?;
    let mut m = Map::new();
    for k in keys {
        m.insert(k.to_owned(), string(u)?);
    }
    Ok(J::Object(m))
}

/// A well-formed `mergeItem` document (the inputs for which the create laws
/// hold): keyed lists hold objects with unique string `name`s, primitive
/// merge lists hold distinct integers, no `null`s and no directive keys.
/// `depth` bounds the nesting of items.
pub fn merge_item_doc(u: &mut Unstructured<'_>, depth: u32) -> Result<J> {
    item(u, depth, false, None)
}

/// Fields of `mergeItem` (and of `retainKeysMergeItem` when `retain`).
fn item(u: &mut Unstructured<'_>, depth: u32, retain: bool, name: Option<&str>) -> Result<J> {
    let mut m = Map::new();
    if let Some(n) = name {
        m.insert("name".into(), J::String(n.to_owned()));
    }
    let fields: &[&str] = if retain {
        &[
            "name",
            "value",
            "other",
            "mergingList",
            "nonMergingList",
            "mergingIntList",
        ]
    } else {
        &[
            "name",
            "value",
            "other",
            "mergingList",
            "nonMergingList",
            "mergingIntList",
            "nonMergingIntList",
            "mergeItemPtr",
            "simpleMap",
            "replacingItem",
            "retainKeysMap",
            "retainKeysMergingList",
        ]
    };
    for f in distinct(u, fields, 5)? {
        if f == "name" && name.is_some() {
            continue;
        }
        let deeper = depth > 0;
        let v = match f {
            "name" | "value" | "other" => string(u)?,
            "mergingList" | "retainKeysMergingList" if deeper => keyed_list(u, depth - 1)?,
            "nonMergingList" if deeper => {
                let n = u.int_in_range(0..=2)?;
                let mut l = Vec::with_capacity(n);
                for _ in 0..n {
                    l.push(item(u, depth - 1, false, None)?);
                }
                J::Array(l)
            }
            "mergingIntList" => distinct_ints(u, 4)?,
            "nonMergingIntList" => {
                let n = u.int_in_range(0..=3)?;
                J::Array((0..n).map(|i| J::from(i % 2)).collect())
            }
            "mergeItemPtr" if deeper => item(u, depth - 1, false, None)?,
            "simpleMap" => string_map(u)?,
            "replacingItem" => {
                let mut r = Map::new();
                r.insert("Raw".into(), string(u)?);
                if u.arbitrary()? {
                    r.insert("extra".into(), string(u)?);
                }
                J::Object(r)
            }
            "retainKeysMap" if deeper => item(u, depth - 1, true, None)?,
            _ => continue,
        };
        m.insert(f.to_owned(), v);
    }
    Ok(J::Object(m))
}

fn keyed_list(u: &mut Unstructured<'_>, depth: u32) -> Result<J> {
    let names = distinct(u, NAMES, 3)?;
    let mut l = Vec::with_capacity(names.len());
    for n in names {
        l.push(item(u, depth, false, Some(n))?);
    }
    Ok(J::Array(l))
}

/// Field names of `mergeItem`, for patches.
const FIELDS: &[&str] = &[
    "name",
    "value",
    "other",
    "mergingList",
    "nonMergingList",
    "mergingIntList",
    "nonMergingIntList",
    "mergeItemPtr",
    "simpleMap",
    "replacingItem",
    "retainKeysMap",
    "retainKeysMergingList",
    "unknownField",
];

/// Directive keys and odd keys a patch may carry.
const DIRECTIVE_KEYS: &[&str] = &[
    "$patch",
    "$retainKeys",
    "$setElementOrder/mergingList",
    "$setElementOrder/mergingIntList",
    "$setElementOrder/retainKeysMergingList",
    "$setElementOrder/nonMergingList",
    "$setElementOrder/simpleMap",
    "$deleteFromPrimitiveList/mergingIntList",
    "$deleteFromPrimitiveList/nonMergingIntList",
    "$deleteFromPrimitiveList/mergingList",
    "$deleteFromPrimitiveList/",
    "$setElementOrder/",
    "$unknownDirective",
];

/// Any JSON value, small: the fallback for "wrong type" cases.
fn junk(u: &mut Unstructured<'_>, depth: u32) -> Result<J> {
    Ok(match u.int_in_range(0..=8)? {
        0 => J::Null,
        1 => J::Bool(u.arbitrary()?),
        2 => J::from(u.int_in_range(-2i64..=5)?),
        3 => serde_json::Number::from_f64(f64::from(u.int_in_range(-4i32..=4)?) / 2.0)
            .map_or(J::Null, J::Number),
        4 | 5 => J::String(pick(u, &["replace", "merge", "delete", "a", "name", ""])?.into()),
        6 if depth > 0 => {
            let n = u.int_in_range(0..=3)?;
            let mut l = Vec::with_capacity(n);
            for _ in 0..n {
                l.push(junk(u, depth - 1)?);
            }
            J::Array(l)
        }
        7 if depth > 0 => patch_object(u, depth - 1)?,
        _ => string(u)?,
    })
}

/// A patch for `mergeItem` rich in directives: `$patch` (valid and invalid
/// values, in objects and list elements), `$retainKeys`, `$setElementOrder`,
/// `$deleteFromPrimitiveList`, `null` deletions, elements without merge keys,
/// duplicate merge keys and wrongly typed values.
pub fn merge_item_patch(u: &mut Unstructured<'_>, depth: u32) -> Result<J> {
    patch_object(u, depth)
}

fn patch_object(u: &mut Unstructured<'_>, depth: u32) -> Result<J> {
    let mut m = Map::new();
    let n = u.int_in_range(0..=5)?;
    for _ in 0..n {
        if u.ratio(1, 3)? {
            let k = pick(u, DIRECTIVE_KEYS)?;
            let v = directive_value(u, k, depth)?;
            m.insert(k.to_owned(), v);
        } else {
            let k = pick(u, FIELDS)?;
            let v = field_value(u, k, depth)?;
            m.insert(k.to_owned(), v);
        }
    }
    Ok(J::Object(m))
}

fn directive_value(u: &mut Unstructured<'_>, key: &str, depth: u32) -> Result<J> {
    if u.ratio(1, 5)? {
        return junk(u, depth.min(1));
    }
    Ok(match key {
        "$patch" => J::String(pick(u, &["replace", "merge", "delete", "deleteAll"])?.into()),
        "$retainKeys" => J::Array(
            distinct(u, FIELDS, 4)?
                .into_iter()
                .map(|s| J::String(s.into()))
                .collect(),
        ),
        k if k.ends_with("mergingList") || k.ends_with("MergingList") => J::Array(
            distinct(u, NAMES, 4)?
                .into_iter()
                .map(|n| {
                    let mut e = Map::new();
                    e.insert("name".into(), J::String(n.into()));
                    J::Object(e)
                })
                .collect(),
        ),
        _ => distinct_ints(u, 5)?,
    })
}

fn field_value(u: &mut Unstructured<'_>, key: &str, depth: u32) -> Result<J> {
    if u.ratio(1, 6)? {
        return Ok(J::Null);
    }
    if u.ratio(1, 8)? || depth == 0 {
        return junk(u, depth.min(1));
    }
    Ok(match key {
        "mergingList" | "retainKeysMergingList" | "nonMergingList" => {
            let n = u.int_in_range(0..=3)?;
            let mut l = Vec::with_capacity(n);
            for _ in 0..n {
                let mut e = match patch_object(u, depth - 1)? {
                    J::Object(e) => e,
                    _ => Map::new(),
                };
                if u.ratio(3, 4)? {
                    e.insert("name".into(), J::String(pick(u, NAMES)?.into()));
                }
                l.push(J::Object(e));
            }
            J::Array(l)
        }
        "mergingIntList" | "nonMergingIntList" => distinct_ints(u, 4)?,
        "mergeItemPtr" | "retainKeysMap" | "replacingItem" => patch_object(u, depth - 1)?,
        "simpleMap" => string_map(u)?,
        _ => string(u)?,
    })
}

/// An arbitrary JSON value for round-trip tests: every kind, escapes,
/// non-ASCII and control characters in strings and keys, integers and
/// floats of every size. `depth` bounds nesting.
pub fn json_value(u: &mut Unstructured<'_>, depth: u32) -> Result<J> {
    Ok(match u.int_in_range(0..=7)? {
        0 => J::Null,
        1 => J::Bool(u.arbitrary()?),
        2 => J::from(u.arbitrary::<i64>()?),
        3 => J::from(u.arbitrary::<u64>()?),
        4 => serde_json::Number::from_f64(u.arbitrary::<f64>()?).map_or(J::Null, J::Number),
        5 if depth > 0 => {
            let n = u.int_in_range(0..=4)?;
            let mut l = Vec::with_capacity(n);
            for _ in 0..n {
                l.push(json_value(u, depth - 1)?);
            }
            J::Array(l)
        }
        6 if depth > 0 => {
            let n = u.int_in_range(0..=4)?;
            let mut m = Map::new();
            for _ in 0..n {
                let k: String = u.arbitrary()?;
                m.insert(k, json_value(u, depth - 1)?);
            }
            J::Object(m)
        }
        _ => J::String(u.arbitrary()?),
    })
}
