//! Strategic merge apply against a `serde_json` baseline, per input.
//!
//! Each group holds two functions on the same input:
//! - `serde_json_baseline`: `from_slice::<serde_json::Value>` of original and
//!   patch, and `to_string` of the (precomputed) result;
//! - `smpatch`: `parse_json` of both into an arena (created outside the loop,
//!   `reset()` per iteration), `apply` with the embedded `apps/v1/Deployment`
//!   cursor, and `to_json_string` of the result.
//!
//! Report the ratio `smpatch / serde_json_baseline` of each group (the
//! machine noise mostly cancels out), and time per element of the env cases.

// `criterion_group!` generates an undocumented public function; a bench
// panics on bad data.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use smpatch_patch_apply::{apply, ApplyOptions};
use smpatch_value::{parse_json, to_json_string, to_serde, Arena, ParseOptions};
use std::hint::black_box;

fn apply_cases(c: &mut Criterion) {
    let schema = smpatch_schema::embedded();
    let cursor = schema.cursor("apps/v1/Deployment").unwrap();
    let popts = ParseOptions::default();
    let aopts = ApplyOptions::default();
    for case in smpatch_benches::patch_cases() {
        let original = case.original.as_bytes();
        let patch = case.patch.as_bytes();
        let mut arena = Arena::new();

        // Check the result once, outside timing, and keep it for the baseline.
        let result: serde_json::Value = {
            let o = parse_json(&arena, original, &popts).unwrap();
            let p = parse_json(&arena, patch, &popts).unwrap();
            let out = apply(&arena, o, p, cursor, &aopts).unwrap();
            to_serde(&out).unwrap()
        };
        let expected: serde_json::Value = serde_json::from_str(&case.modified).unwrap();
        assert_eq!(result, expected, "apply result of {}", case.label);
        arena.reset();

        let mut g = c.benchmark_group(format!("apply/{}", case.label));
        g.throughput(Throughput::Elements(case.elements as u64));
        g.bench_function(BenchmarkId::new("serde_json_baseline", &case.label), |b| {
            b.iter(|| {
                let o: serde_json::Value = serde_json::from_slice(original).unwrap();
                let p: serde_json::Value = serde_json::from_slice(patch).unwrap();
                black_box((&o, &p));
                serde_json::to_string(&result).unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("smpatch", &case.label), |b| {
            b.iter(|| {
                arena.reset();
                let o = parse_json(&arena, original, &popts).unwrap();
                let p = parse_json(&arena, patch, &popts).unwrap();
                let out = apply(&arena, o, p, cursor, &aopts).unwrap();
                to_json_string(&out)
            })
        });
        g.finish();
    }
}

criterion_group!(benches, apply_cases);
criterion_main!(benches);
