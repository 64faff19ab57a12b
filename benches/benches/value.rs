//! Parse + write round trip: the arena value crate against serde_json.
//!
//! `arena`: `parse_json` + `to_json_string`, with the arena created outside
//! the timed loop and `reset()` each iteration. `serde_json`:
//! `from_slice::<serde_json::Value>` + `to_string` (the baseline).

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use smpatch_value::{parse_json, parse_yaml, to_json_string, to_yaml_string, Arena, ParseOptions};

fn round_trip(c: &mut Criterion) {
    let opts = ParseOptions::default();
    for (label, size) in [("1KB", 1_000), ("120KB", 120_000), ("1.5MB", 1_500_000)] {
        let doc = smpatch_benches::k8s_doc(size);
        let bytes = doc.as_bytes();
        let mut group = c.benchmark_group(format!("value_round_trip/{label}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        let mut arena = Arena::new();
        group.bench_with_input(BenchmarkId::new("arena", label), bytes, |b, bytes| {
            b.iter(|| {
                arena.reset();
                let v = parse_json(&arena, bytes, &opts).expect("valid JSON");
                to_json_string(&v)
            })
        });
        group.bench_with_input(BenchmarkId::new("serde_json", label), bytes, |b, bytes| {
            b.iter(|| {
                let v: serde_json::Value = serde_json::from_slice(bytes).expect("valid JSON");
                serde_json::to_string(&v).expect("serializable")
            })
        });
        group.finish();
    }
}

fn parse_only(c: &mut Criterion) {
    let opts = ParseOptions::default();
    let doc = smpatch_benches::k8s_doc(120_000);
    let bytes = doc.as_bytes();
    let mut group = c.benchmark_group("value_parse/120KB");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    let mut arena = Arena::new();
    group.bench_function(BenchmarkId::new("arena", "120KB"), |b| {
        b.iter(|| {
            arena.reset();
            parse_json(&arena, bytes, &opts).map(|v| v.is_object())
        })
    });
    group.bench_function(BenchmarkId::new("serde_json", "120KB"), |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(bytes).map(|v| v.is_object()))
    });
    group.finish();

    // The Deployment of the apply and create benches (50 containers of 27
    // env vars, 142,957 bytes; issue 13's "121 KB Deployment"): the everyday
    // object the 1 GB/s parse target is about.
    let case = smpatch_benches::case_deployment_50();
    let bytes = case.original.as_bytes();
    let mut group = c.benchmark_group("value_parse/deployment-143KB");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(BenchmarkId::new("arena", "deployment-143KB"), |b| {
        b.iter(|| {
            arena.reset();
            parse_json(&arena, bytes, &opts).map(|v| v.is_object())
        })
    });
    group.bench_function(BenchmarkId::new("serde_json", "deployment-143KB"), |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(bytes).map(|v| v.is_object()))
    });
    group.finish();

    // The same Deployment as `kubectl get -o json` writes it (newlines, four
    // spaces per level, `": "`): about three times the bytes, two thirds of
    // them whitespace.
    let pretty = smpatch_benches::kubectl_pretty(&case.original);
    let bytes = pretty.as_bytes();
    let mut group = c.benchmark_group("value_parse/deployment-pretty");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(BenchmarkId::new("arena", "deployment-pretty"), |b| {
        b.iter(|| {
            arena.reset();
            parse_json(&arena, bytes, &opts).map(|v| v.is_object())
        })
    });
    group.bench_function(BenchmarkId::new("serde_json", "deployment-pretty"), |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(bytes).map(|v| v.is_object()))
    });
    group.finish();
}

fn yaml(c: &mut Criterion) {
    let opts = ParseOptions::default();
    let doc = smpatch_benches::k8s_doc(120_000);
    let arena = Arena::new();
    let v = parse_json(&arena, doc.as_bytes(), &opts).expect("valid JSON");
    let text = to_yaml_string(&v);
    let mut group = c.benchmark_group("value_yaml/120KB");
    group.throughput(Throughput::Bytes(text.len() as u64));
    let mut parse_arena = Arena::new();
    group.bench_function(BenchmarkId::new("parse_yaml", "120KB"), |b| {
        b.iter(|| {
            parse_arena.reset();
            parse_yaml(&parse_arena, &text, &opts).map(|d| d.len())
        })
    });
    group.bench_function(BenchmarkId::new("to_yaml_string", "120KB"), |b| {
        b.iter(|| to_yaml_string(&v).len())
    });
    group.finish();
}

/// `<<` merge keys over wide mappings: an anchor of `n` keys merged into a
/// mapping that then sets every key again explicitly. Time per key should
/// stay flat from 2k to 20k keys (a per-key scan of the mapping made it
/// grow tenfold).
fn yaml_merge(c: &mut Criterion) {
    let opts = ParseOptions::default();
    for n in [2_000, 20_000] {
        let mut text = String::from("b: &b\n");
        for i in 0..n {
            text.push_str(&format!("  k{i}: {i}\n"));
        }
        text.push_str("m:\n  <<: *b\n");
        for i in 0..n {
            text.push_str(&format!("  k{i}: x\n"));
        }
        let mut group = c.benchmark_group(format!("value_yaml_merge/{}k", n / 1_000));
        group.throughput(Throughput::Elements(n as u64));
        let mut arena = Arena::new();
        group.bench_function(BenchmarkId::new("parse_yaml", n), |b| {
            b.iter(|| {
                arena.reset();
                parse_yaml(&arena, &text, &opts).map(|d| d.len())
            })
        });
        group.finish();
    }
}

criterion_group!(benches, round_trip, parse_only, yaml, yaml_merge);
criterion_main!(benches);
