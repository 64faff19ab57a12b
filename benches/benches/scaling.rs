//! Per-element cost of the list operations from 1k to 256k elements.
//!
//! Inputs: `case_env_all(n)` (every env var changed, order reversed with
//! `$setElementOrder/env`) and `case_env_one(n)` (the middle one changed) for
//! `n` in [`smpatch_benches::SCALING_SIZES`]. Groups:
//! `scaling/apply-all/<n>`, `scaling/apply-one/<n>`, `scaling/create2/<n>`,
//! `scaling/create3/<n>` (create3 with `overwrite = false`), each with the
//! `serde_json_baseline` (parse of every input document + serialize of the
//! result) and `smpatch` (arena parse + operation + serialize), as in the apply
//! and create benches, and the `streaming_floor`: every input document
//! copied into a reused buffer and the result's compact text copied into a
//! new one, with no parsing. The `facade` row runs the same operation
//! through `smpatch::apply_bytes` / `create_two_way_bytes` /
//! `create_three_way_bytes`: a fresh arena sized from the input and a fresh
//! output buffer every call, as a server calling the library would pay. The floor is context, not a target: it shows
//! how much per-element growth this machine imposes on any linear pass over
//! the same bytes once they outgrow the caches. Throughput is `Elements(n)`, so criterion reports
//! time per element directly; the target is per-element time at 16k, 64k
//! and 256k within 1.2x of 1k (`python3 benches/scripts/scaling.py`).
//!
//! Large inputs run with few flat samples so that the default run stays short:
//! `cargo bench -p smpatch-benches --bench scaling -- --warm-up-time 1`.

// `criterion_group!` generates an undocumented public function; a bench
// panics on bad data.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use smpatch_benches::{case_env_all, case_env_one, PatchCase, SCALING_SIZES};
#[path = "../shared/ops.rs"]
mod ops;
use smpatch_schema::Cursor;
use smpatch_value::{parse_json, to_json_string, to_serde, Arena, ParseOptions, Value};
use std::hint::black_box;
use std::time::Duration;

/// One measured operation.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    ApplyAll,
    ApplyOne,
    Create2,
    Create3,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::ApplyAll => "apply-all",
            Op::ApplyOne => "apply-one",
            Op::Create2 => "create2",
            Op::Create3 => "create3",
        }
    }

    /// The documents the operation parses, in order.
    fn docs(self, case: &PatchCase) -> Vec<&[u8]> {
        match self {
            Op::ApplyAll | Op::ApplyOne => vec![case.original.as_bytes(), case.patch.as_bytes()],
            Op::Create2 => vec![case.original.as_bytes(), case.modified.as_bytes()],
            Op::Create3 => vec![
                case.original.as_bytes(),
                case.modified.as_bytes(),
                case.current.as_bytes(),
            ],
        }
    }

    /// The operation kind of the shared bench operations.
    fn kind(self) -> ops::Kind {
        match self {
            Op::ApplyAll | Op::ApplyOne => ops::Kind::Apply,
            Op::Create2 => ops::Kind::Create2,
            Op::Create3 => ops::Kind::Create3,
        }
    }

    /// The operation through the facade's bytes API (parse, operation and
    /// write, with the facade's own arena and output buffer).
    fn facade(
        self,
        schema: &smpatch_schema::Schema,
        ty: &smpatch::TypeRef,
        docs: &[&[u8]],
    ) -> Vec<u8> {
        ops::facade(self.kind(), docs, schema, ty, &ops::Opts::default())
    }

    fn run<'a>(self, arena: &'a Arena, docs: &[&'a [u8]], cursor: Cursor<'_>) -> Value<'a> {
        let popts = ParseOptions::default();
        let v: Vec<Value<'a>> = docs
            .iter()
            .map(|d| parse_json(arena, d, &popts).unwrap())
            .collect();
        ops::engine(arena, self.kind(), &v, cursor, &ops::Opts::default())
    }
}

fn scaling(c: &mut Criterion) {
    let schema = smpatch_schema::embedded();
    let cursor = schema.cursor("apps/v1/Deployment").unwrap();
    // `cargo bench` passes `--bench`; `cargo test --benches` runs each
    // bench once in an unoptimized build: keep that to the 1k inputs.
    let quick = !std::env::args().any(|a| a == "--bench");
    let sizes = if quick {
        &SCALING_SIZES[..1]
    } else {
        &SCALING_SIZES[..]
    };
    for &n in sizes {
        let all = case_env_all(n);
        let one = case_env_one(n);
        for op in [Op::ApplyAll, Op::ApplyOne, Op::Create2, Op::Create3] {
            let case = if op == Op::ApplyOne { &one } else { &all };
            let docs = op.docs(case);
            let mut arena = Arena::new();
            // The output once, outside timing: for the baseline's serialize
            // step, and checked for apply (the create benches check patches).
            let result = op.run(&arena, &docs, cursor);
            let out_text = to_json_string(&result);
            let out: serde_json::Value = to_serde(&result).unwrap();
            if matches!(op, Op::ApplyAll | Op::ApplyOne) {
                let expected: serde_json::Value = serde_json::from_str(&case.modified).unwrap();
                assert_eq!(out, expected, "{} of {}", op.name(), case.label);
            }
            arena.reset();

            let mut g = c.benchmark_group(format!("scaling/{}", op.name()));
            g.throughput(Throughput::Elements(n as u64));
            if n >= 64_000 {
                g.sampling_mode(SamplingMode::Flat)
                    .sample_size(10)
                    .measurement_time(Duration::from_secs(2));
            } else {
                g.sample_size(20).measurement_time(Duration::from_secs(2));
            }
            g.bench_function(BenchmarkId::new("serde_json_baseline", n), |b| {
                b.iter(|| {
                    for d in &docs {
                        let v: serde_json::Value = serde_json::from_slice(d).unwrap();
                        black_box(&v);
                    }
                    serde_json::to_string(&out).unwrap()
                })
            });
            let mut floor_buf: Vec<u8> = Vec::new();
            g.bench_function(BenchmarkId::new("streaming_floor", n), |b| {
                b.iter(|| {
                    floor_buf.clear();
                    for d in &docs {
                        floor_buf.extend_from_slice(d);
                    }
                    black_box(&floor_buf);
                    out_text.as_bytes().to_vec()
                })
            });
            g.bench_function(BenchmarkId::new("smpatch", n), |b| {
                b.iter(|| {
                    arena.reset();
                    to_json_string(&op.run(&arena, &docs, cursor))
                })
            });
            let ty = smpatch::TypeRef::Gvk("apps/v1/Deployment".into());
            g.bench_function(BenchmarkId::new("facade", n), |b| {
                b.iter(|| op.facade(schema, &ty, &docs))
            });
            g.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = scaling
}
criterion_main!(benches);
