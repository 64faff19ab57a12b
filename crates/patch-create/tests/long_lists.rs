//! The creation laws on long keyed lists (issue 13's rewrites engage only
//! there: apply's hint pairing and merge paths from 17 patch elements,
//! create3's aligned walk up to 16 elements and its own composition past
//! 24, the sort pairing from 8,192 elements). The law tests of `laws.rs`
//! and the fuzz targets generate lists of at most four elements, so these
//! documents are made by editing a long widget: elements dropped, changed,
//! inserted, moved, whole lists reversed or shuffled, at two levels
//! (`items`/`mounts` and their `sub` lists, `tags` and `vals`).
//!
//! Laws (well-formed documents, `fix_quirks` unless said):
//! I1 `apply(o, create2(o, m)) == m` (by default up to quirk Q1, the order
//! of primitive merge lists); three-way with `current == original` gives
//! `m`; a three-way patch with overwrite applies to `current`, and without
//! overwrite is the same patch or a `conflict`; `compose` of two created
//! patches applies as the two in turn do.
#![allow(clippy::unwrap_used)] // test helpers: a failure is a test failure

use proptest::prelude::*;
use serde_json::{json, Map, Value as J};
use smpatch_patch_apply::{apply, ApplyOptions};
use smpatch_patch_create::{
    compose, create_three_way, create_two_way, CreateOptions, OnConflict, ThreeWay,
};
use smpatch_schema::Schema;
use smpatch_value::{from_serde, to_serde, Arena};
use std::path::Path;

fn schema() -> Schema {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/schemas/widget.v2.json");
    Schema::load_path(p).unwrap()
}

/// splitmix64: the documents follow from one seed, so a failing case is
/// its seed and length.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True with probability `pct` percent.
    fn pct(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }

    fn shuffle<T>(&mut self, l: &mut [T]) {
        for i in (1..l.len()).rev() {
            l.swap(i, self.below(i + 1));
        }
    }
}

fn scalars(r: &mut Rng, prefix: &str, n: usize) -> J {
    let mut l: Vec<J> = (0..n).map(|i| json!(format!("{prefix}{i}"))).collect();
    r.shuffle(&mut l);
    l.truncate(r.below(n + 1));
    J::Array(l)
}

fn element(r: &mut Rng, id: String, nested: usize) -> J {
    let mut m = Map::new();
    m.insert("id".into(), json!(id));
    if r.pct(60) {
        m.insert("v".into(), json!(["a", "b", "c"][r.below(3)]));
    }
    if r.pct(30) {
        m.insert("w".into(), json!(["x", "y"][r.below(2)]));
    }
    if nested > 0 && r.pct(40) {
        let n = r.below(nested + 1);
        let sub = (0..n).map(|i| element(r, format!("s{i}"), 0)).collect();
        m.insert("sub".into(), J::Array(sub));
    }
    if r.pct(30) {
        let n = r.below(24);
        m.insert("vals".into(), scalars(r, "p", n));
    }
    J::Object(m)
}

fn widget(r: &mut Rng, n: usize) -> J {
    let mut w = Map::new();
    w.insert("name".into(), json!("w"));
    let items = (0..n).map(|i| element(r, format!("k{i}"), 30)).collect();
    w.insert("items".into(), J::Array(items));
    if r.pct(50) {
        let m = r.below(n + 1);
        let mounts = (0..m).map(|i| element(r, format!("m{i}"), 0)).collect();
        w.insert("mounts".into(), J::Array(mounts));
    }
    if r.pct(50) {
        w.insert("tags".into(), scalars(r, "t", n));
    }
    J::Object(w)
}

/// Edits a keyed list: drops, changes, inserts (fresh ids from `fresh`),
/// moves, and now and then reverses or shuffles it.
fn edit_keyed(r: &mut Rng, l: &[J], fresh: &mut usize, prefix: &str, nested: usize) -> J {
    let rate = [0, 2, 10, 40][r.below(4)];
    let mut out = Vec::with_capacity(l.len() + 4);
    for e in l {
        if r.pct(rate / 2 + 1) {
            continue;
        }
        if r.pct(rate / 2) {
            *fresh += 1;
            out.push(element(r, format!("{prefix}n{fresh}"), nested));
        }
        out.push(if r.pct(rate) {
            edit_element(r, e, nested)
        } else {
            e.clone()
        });
    }
    if r.pct(20) {
        *fresh += 1;
        out.push(element(r, format!("{prefix}n{fresh}"), nested));
    }
    for _ in 0..r.below(3) {
        if out.len() > 1 {
            let (a, b) = (r.below(out.len()), r.below(out.len()));
            out.swap(a, b);
        }
    }
    match r.below(20) {
        0 => out.reverse(),
        1 => r.shuffle(&mut out),
        _ => {}
    }
    J::Array(out)
}

fn edit_element(r: &mut Rng, e: &J, nested: usize) -> J {
    let mut e = e.as_object().unwrap().clone();
    match r.below(5) {
        0 => {
            e.insert("v".into(), json!(["a", "b", "c", "d"][r.below(4)]));
        }
        1 => {
            e.remove("v");
            e.remove("w");
        }
        2 if nested > 0 => {
            let sub = e
                .get("sub")
                .and_then(J::as_array)
                .cloned()
                .unwrap_or_default();
            // Fresh ids unique across edits (a later edit of the same
            // element must not reuse one).
            let mut fresh = r.below(1 << 30) << 8;
            e.insert("sub".into(), edit_keyed(r, &sub, &mut fresh, "s", 0));
        }
        3 => {
            let vals = e
                .get("vals")
                .and_then(J::as_array)
                .cloned()
                .unwrap_or_default();
            e.insert("vals".into(), edit_scalars(r, &vals, "p"));
        }
        _ => {
            e.insert("w".into(), json!(["x", "y", "z"][r.below(3)]));
        }
    }
    J::Object(e)
}

fn edit_scalars(r: &mut Rng, l: &[J], prefix: &str) -> J {
    let mut out: Vec<J> = l.iter().filter(|_| !r.pct(10)).cloned().collect();
    if r.pct(30) {
        out.push(json!(format!("{prefix}x{}", r.below(1000))));
        out.dedup();
    }
    if r.pct(10) {
        r.shuffle(&mut out);
    }
    // Distinct values (well-formed primitive merge lists).
    let mut seen = std::collections::HashSet::new();
    out.retain(|v| seen.insert(v.to_string()));
    J::Array(out)
}

fn edit(r: &mut Rng, w: &J, fresh: &mut usize) -> J {
    let mut w = w.as_object().unwrap().clone();
    for (list, prefix, nested) in [("items", "k", 30), ("mounts", "m", 0)] {
        match w.get(list).and_then(J::as_array).cloned() {
            Some(l) if !r.pct(3) => {
                w.insert(list.into(), edit_keyed(r, &l, fresh, prefix, nested));
            }
            Some(_) => {
                w.remove(list);
            }
            None => {}
        }
    }
    if let Some(t) = w.get("tags").and_then(J::as_array).cloned() {
        w.insert("tags".into(), edit_scalars(r, &t, "t"));
    }
    J::Object(w)
}

/// Sorts every list of scalars and of objects by JSON text (the compose law
/// holds up to list order, as in the compose fuzz target).
fn canonical(v: &J) -> J {
    match v {
        J::Object(m) => J::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), canonical(v)))
                .collect::<std::collections::BTreeMap<_, _>>()
                .into_iter()
                .collect(),
        ),
        J::Array(l) => {
            let mut l: Vec<J> = l.iter().map(canonical).collect();
            l.sort_by_cached_key(J::to_string);
            J::Array(l)
        }
        v => v.clone(),
    }
}

/// Sorts the primitive merge lists (`tags`, `vals`): quirk Q1.
fn sort_primitive_merge_lists(v: &J) -> J {
    match v {
        J::Object(m) => J::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("tags" | "vals", J::Array(l)) => {
                            let mut l = l.clone();
                            l.sort_by_key(J::to_string);
                            J::Array(l)
                        }
                        _ => sort_primitive_merge_lists(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        J::Array(l) => J::Array(l.iter().map(sort_primitive_merge_lists).collect()),
        v => v.clone(),
    }
}

fn check_laws(seed: u64, n: usize) -> Result<(), TestCaseError> {
    let schema = schema();
    let cursor = schema.cursor("Widget").unwrap();
    let mut r = Rng(seed);
    let mut fresh = 0;
    let o = widget(&mut r, n);
    let m = edit(&mut r, &o, &mut fresh);
    let c = edit(&mut r, &o, &mut fresh);
    let d2 = edit(&mut r, &m, &mut fresh);
    let arena = Arena::new();
    let [ov, mv, cv, d2v] = [&o, &m, &c, &d2].map(|v| from_serde(&arena, v, 256).unwrap());
    let show = |v| to_serde(&v).unwrap();
    let ctx0 = format!("seed {seed} n {n}");
    for fix in [true, false] {
        let copts = CreateOptions::default().with_fix_quirks(fix);
        let aopts = ApplyOptions::default().with_fix_quirks(fix);
        let ctx = format!("{ctx0} fix_quirks {fix}");
        // I1.
        let p = create_two_way(&arena, ov, mv, cursor, &copts, &[]).unwrap();
        let got = show(apply(&arena, ov, p, cursor, &aopts).unwrap());
        if fix {
            prop_assert_eq!(&got, &m, "I1 {}: patch {}", ctx, show(p));
        } else {
            prop_assert_eq!(
                sort_primitive_merge_lists(&got),
                sort_primitive_merge_lists(&m),
                "I1 by default {}: patch {}",
                ctx,
                show(p)
            );
        }
        // Three-way, current == original.
        let p3 = create_three_way(
            &arena,
            ThreeWay {
                original: ov,
                modified: mv,
                current: ov,
            },
            cursor,
            OnConflict::Overwrite,
            &copts,
            &[],
        )
        .unwrap();
        if fix {
            let got = show(apply(&arena, ov, p3, cursor, &aopts).unwrap());
            prop_assert_eq!(&got, &m, "create3 c == o {}: patch {}", ctx, show(p3));
        }
        // Three-way against an edited current.
        let p3 = create_three_way(
            &arena,
            ThreeWay {
                original: ov,
                modified: mv,
                current: cv,
            },
            cursor,
            OnConflict::Overwrite,
            &copts,
            &[],
        )
        .unwrap();
        let applied = apply(&arena, cv, p3, cursor, &aopts);
        prop_assert!(
            applied.is_ok(),
            "create3 apply {}: {:?}",
            ctx,
            applied.err()
        );
        match create_three_way(
            &arena,
            ThreeWay {
                original: ov,
                modified: mv,
                current: cv,
            },
            cursor,
            OnConflict::Fail,
            &copts,
            &[],
        ) {
            Ok(p) => prop_assert_eq!(show(p), show(p3), "overwrite changed the patch {}", ctx),
            // Without fix_quirks the conflict check keeps quirk Q18
            // (directive keys on both sides are looked up as fields; two
            // empty lists fail), as the create3 fuzz target allows.
            Err(e) if !fix && matches!(e.kind().name(), "schema_lookup" | "no_elements") => {}
            Err(e) => prop_assert_eq!(e.kind().name(), "conflict", "{}: {}", ctx, e),
        }
        // Compose of o -> m -> d2.
        let p1 = create_two_way(&arena, ov, mv, cursor, &copts, &[]).unwrap();
        let p2 = create_two_way(&arena, mv, d2v, cursor, &copts, &[]).unwrap();
        let composed = compose(&arena, p1, p2, cursor, &copts);
        match composed {
            Ok(pc) => {
                let once = apply(&arena, ov, pc, cursor, &aopts).unwrap();
                let s1 = apply(&arena, ov, p1, cursor, &aopts).unwrap();
                let s2 = apply(&arena, s1, p2, cursor, &aopts).unwrap();
                prop_assert_eq!(
                    canonical(&show(once)),
                    canonical(&show(s2)),
                    "compose {} fix {}: p1 {} p2 {} composed {}",
                    ctx,
                    fix,
                    show(p1),
                    show(p2),
                    show(pc)
                );
            }
            Err(e) => prop_assert_eq!(e.kind().name(), "unsupported", "compose {}: {}", ctx, e),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("LONG_LIST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn laws_hold_on_long_lists(seed in any::<u64>(), n in 0usize..120) {
        check_laws(seed, n)?;
    }
}

/// Lists past `keys::SORT_PAIRING_MIN` (8,192 elements): the sort pairing.
#[test]
fn laws_hold_on_lists_past_the_sort_pairing() {
    let seeds = std::env::var("LONG_LIST_BIG_SEEDS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(1);
    for seed in 0..seeds {
        check_laws(seed, 8300).unwrap();
    }
}
