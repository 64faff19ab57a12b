//! Compiling the embedded Kubernetes schema, against a plain `serde_json`
//! parse of the same bytes as the baseline.
#![allow(missing_docs, clippy::unwrap_used)] // criterion macros; a bench panics on bad data

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;

fn embedded_schema(c: &mut Criterion) {
    let bytes = smpatch_schema::EMBEDDED_JSON;
    let mut g = c.benchmark_group("schema_load");
    g.throughput(criterion::Throughput::Bytes(bytes.len() as u64));
    g.bench_with_input(
        BenchmarkId::new("serde_json_parse_baseline", "k8s-v1.37.0"),
        bytes,
        |b, bytes| {
            b.iter(|| black_box(serde_json::from_slice::<serde_json::Value>(bytes).unwrap()))
        },
    );
    g.bench_with_input(
        BenchmarkId::new("compile_embedded", "k8s-v1.37.0"),
        bytes,
        |b, bytes| {
            b.iter(|| black_box(smpatch_schema::Schema::from_bytes(bytes, "embedded").unwrap()))
        },
    );
    g.finish();
}

criterion_group!(benches, embedded_schema);
criterion_main!(benches);
