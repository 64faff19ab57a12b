//! Union normalization + validation against the apply it follows, per input
//! (the patch cases of `smpatch_benches::patch_cases`: the small and the
//! 120 KB Deployment, env lists of 1k/4k/16k entries).
//!
//! Each group holds three functions on the same input:
//! - `apply_request`: what `benches/apply.rs` measures for smpatch: parse of
//!   original and patch, the merge, and writing the result;
//! - `apply`: the strategic merge alone (`smpatch_patch_apply::apply` of the
//!   pre-parsed original and patch into an arena reset per iteration);
//! - `normalize_validate`: `smpatch_union_normalize::normalize` of the
//!   merged result against the original, then `validate`, with the embedded
//!   `apps/v1/Deployment` cursor (what `--normalize-unions` adds to apply).
//!
//! Report the ratios `normalize_validate / apply_request` and
//! `normalize_validate / apply` of each group (target: under 5 %), and time
//! per element across the env sizes (linear).

// `criterion_group!` generates an undocumented public function; a bench
// panics on bad data.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use smpatch_patch_apply::{apply, ApplyOptions};
use smpatch_union_normalize::{normalize, validate, Options};
use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
use std::hint::black_box;

fn union_cases(c: &mut Criterion) {
    let schema = smpatch_schema::embedded();
    let cursor = schema.cursor("apps/v1/Deployment").unwrap();
    let popts = ParseOptions::default();
    let aopts = ApplyOptions::default();
    let uopts = Options::default();
    for case in smpatch_benches::patch_cases() {
        let inputs = Arena::new();
        let o = parse_json(&inputs, case.original.as_bytes(), &popts).unwrap();
        let p = parse_json(&inputs, case.patch.as_bytes(), &popts).unwrap();
        let merged = apply(&inputs, o, p, cursor, &aopts).unwrap();
        // The cases hold no union violation and nothing to clear.
        let n = normalize(&inputs, Some(o), merged, cursor, &uopts).unwrap();
        assert!(n.cleared.is_empty(), "{}", case.label);
        assert!(validate(Some(o), merged, cursor, &uopts)
            .unwrap()
            .is_empty());

        let mut g = c.benchmark_group(format!("unions/{}", case.label));
        g.throughput(Throughput::Elements(case.elements as u64));
        let (original, patch) = (case.original.as_bytes(), case.patch.as_bytes());
        let mut arena = Arena::new();
        g.bench_function(BenchmarkId::new("apply_request", &case.label), |b| {
            b.iter(|| {
                arena.reset();
                let o = parse_json(&arena, original, &popts).unwrap();
                let p = parse_json(&arena, patch, &popts).unwrap();
                let out = apply(&arena, o, p, cursor, &aopts).unwrap();
                to_json_string(&out)
            })
        });
        let mut arena = Arena::new();
        g.bench_function(BenchmarkId::new("apply", &case.label), |b| {
            b.iter(|| {
                arena.reset();
                black_box(apply(&arena, o, p, cursor, &aopts).unwrap());
            })
        });
        let mut arena = Arena::new();
        g.bench_function(BenchmarkId::new("normalize_validate", &case.label), |b| {
            b.iter(|| {
                arena.reset();
                let n = normalize(&arena, Some(o), merged, cursor, &uopts).unwrap();
                black_box(validate(Some(o), n.value, cursor, &uopts).unwrap())
            })
        });
        g.finish();
    }
}

criterion_group!(benches, union_cases);
criterion_main!(benches);
