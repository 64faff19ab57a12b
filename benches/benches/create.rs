//! Two-way and three-way patch creation against a `serde_json` baseline.
//!
//! Same inputs as the apply bench (`smpatch_benches::patch_cases`): create2
//! diffs `original` → `modified`; create3 diffs last-applied `original`, new
//! `modified` and live `current` (`original` plus server-side fields), with
//! `overwrite = false`, so the conflict check runs too.
//!
//! Each group holds two functions on the same input:
//! - `serde_json_baseline`: `from_slice::<serde_json::Value>` of every input
//!   document and `to_string` of the (precomputed) patch;
//! - `smpatch`: `parse_json` of every input into an arena (created outside the
//!   loop, `reset()` per iteration), the diff with the embedded
//!   `apps/v1/Deployment` cursor, and `to_json_string` of the patch.

// `criterion_group!` generates an undocumented public function; a bench
// panics on bad data.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use smpatch_patch_apply::{apply, ApplyOptions};
use smpatch_patch_create::{create_three_way, create_two_way, CreateOptions, OnConflict, ThreeWay};
use smpatch_schema::Cursor;
use smpatch_value::{parse_json, to_json_string, to_serde, Arena, ParseOptions, Value};
use std::hint::black_box;

/// Which diff a group measures.
#[derive(Clone, Copy)]
enum Op {
    Create2,
    Create3,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Create2 => "create2",
            Op::Create3 => "create3",
        }
    }

    fn run<'a>(
        self,
        arena: &'a Arena,
        docs: &[&'a [u8]],
        cursor: Cursor<'_>,
        opts: &CreateOptions,
    ) -> Value<'a> {
        let popts = ParseOptions::default();
        let o = parse_json(arena, docs[0], &popts).unwrap();
        let m = parse_json(arena, docs[1], &popts).unwrap();
        match self {
            Op::Create2 => create_two_way(arena, o, m, cursor, opts, &[]).unwrap(),
            Op::Create3 => {
                let c = parse_json(arena, docs[2], &popts).unwrap();
                {
                    let docs = ThreeWay {
                        original: o,
                        modified: m,
                        current: c,
                    };
                    create_three_way(arena, docs, cursor, OnConflict::Fail, opts, &[]).unwrap()
                }
            }
        }
    }
}

fn create_cases(c: &mut Criterion) {
    let schema = smpatch_schema::embedded();
    let cursor = schema.cursor("apps/v1/Deployment").unwrap();
    let copts = CreateOptions::default();
    let cases = smpatch_benches::patch_cases();
    for op in [Op::Create2, Op::Create3] {
        for case in &cases {
            let docs: Vec<&[u8]> = match op {
                Op::Create2 => vec![case.original.as_bytes(), case.modified.as_bytes()],
                Op::Create3 => vec![
                    case.original.as_bytes(),
                    case.modified.as_bytes(),
                    case.current.as_bytes(),
                ],
            };
            let mut arena = Arena::new();

            // Check once, outside timing: the patch takes the base document
            // (original, or current for create3) to one holding `modified`.
            let patch: serde_json::Value = {
                let patch = op.run(&arena, &docs, cursor, &copts);
                let base = match op {
                    Op::Create2 => docs[0],
                    Op::Create3 => docs[2],
                };
                let base = parse_json(&arena, base, &ParseOptions::default()).unwrap();
                let out = apply(&arena, base, patch, cursor, &ApplyOptions::default()).unwrap();
                let out = to_serde(&out).unwrap();
                let expected = match op {
                    Op::Create2 => serde_json::from_str(&case.modified).unwrap(),
                    Op::Create3 => {
                        let mut e: serde_json::Value = serde_json::from_str(&case.current).unwrap();
                        let m: serde_json::Value = serde_json::from_str(&case.modified).unwrap();
                        e["spec"]["template"]["spec"]["containers"] =
                            m["spec"]["template"]["spec"]["containers"].clone();
                        e
                    }
                };
                assert_eq!(out, expected, "{} of {}", op.name(), case.label);
                to_serde(&patch).unwrap()
            };
            arena.reset();

            let mut g = c.benchmark_group(format!("{}/{}", op.name(), case.label));
            g.throughput(Throughput::Elements(case.elements as u64));
            g.bench_function(BenchmarkId::new("serde_json_baseline", &case.label), |b| {
                b.iter(|| {
                    for d in &docs {
                        let v: serde_json::Value = serde_json::from_slice(d).unwrap();
                        black_box(&v);
                    }
                    serde_json::to_string(&patch).unwrap()
                })
            });
            g.bench_function(BenchmarkId::new("smpatch", &case.label), |b| {
                b.iter(|| {
                    arena.reset();
                    let p = op.run(&arena, &docs, cursor, &copts);
                    to_json_string(&p)
                })
            });
            g.finish();
        }
    }
}

criterion_group!(benches, create_cases);
criterion_main!(benches);
