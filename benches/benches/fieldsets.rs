//! Field sets (KEP-2155) on the ~120 KB Deployment of `case_deployment_50`,
//! against baselines measured in the same group:
//! - `serde_json_roundtrip`: `from_slice::<serde_json::Value>` + `to_string`;
//! - `parse`: `parse_json` into a reused arena (what every op below pays);
//! - `parse+fields_of`: the Apply-shape field set, written as FieldsV1;
//! - `parse+extract`: the apply configuration of a manager owning the whole
//!   object (its entry is the object's own set), written as JSON.
//!
//! Report the ratios against `serde_json_roundtrip` and `parse`.

#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use smpatch_fieldsets::{extract, fields_of, ExtractOptions, FieldsOptions};
use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
use std::hint::black_box;

fn fieldsets(c: &mut Criterion) {
    let schema = smpatch_schema::embedded();
    let cursor = schema.cursor("apps/v1/Deployment").unwrap();
    let popts = ParseOptions::default();
    let case = smpatch_benches::case_deployment_50();
    let fopts = FieldsOptions::default();

    // The live object: the Deployment with one Apply entry owning all of it.
    let mut live: serde_json::Value = serde_json::from_str(&case.original).unwrap();
    let set = {
        let arena = Arena::new();
        let v = parse_json(&arena, case.original.as_bytes(), &popts).unwrap();
        fields_of(&v, cursor, &fopts).unwrap().to_json()
    };
    let entry = serde_json::json!({"manager": "bench", "operation": "Apply",
        "apiVersion": "apps/v1", "fieldsType": "FieldsV1",
        "fieldsV1": serde_json::from_str::<serde_json::Value>(&set).unwrap()});
    live["metadata"]["managedFields"] = serde_json::Value::Array(vec![entry]);
    let live = serde_json::to_string(&live).unwrap();
    let object = case.original.as_bytes();
    let eopts = ExtractOptions::default();
    let mut arena = Arena::new();

    let mut g = c.benchmark_group("fieldsets/120KB-deployment");
    g.throughput(Throughput::Bytes(object.len() as u64));
    g.bench_function(BenchmarkId::new("serde_json_roundtrip", "object"), |b| {
        b.iter(|| {
            let v: serde_json::Value = serde_json::from_slice(object).unwrap();
            serde_json::to_string(&v).unwrap()
        })
    });
    g.bench_function(BenchmarkId::new("parse", "object"), |b| {
        b.iter(|| {
            arena.reset();
            black_box(parse_json(&arena, object, &popts).unwrap());
        })
    });
    g.bench_function(BenchmarkId::new("parse+fields_of", "object"), |b| {
        b.iter(|| {
            arena.reset();
            let v = parse_json(&arena, object, &popts).unwrap();
            fields_of(&v, cursor, &fopts).unwrap().to_json()
        })
    });
    g.bench_function(BenchmarkId::new("serde_json_roundtrip", "live"), |b| {
        b.iter(|| {
            let v: serde_json::Value = serde_json::from_slice(live.as_bytes()).unwrap();
            serde_json::to_string(&v).unwrap()
        })
    });
    g.bench_function(BenchmarkId::new("parse+extract", "live"), |b| {
        b.iter(|| {
            arena.reset();
            let v = parse_json(&arena, live.as_bytes(), &popts).unwrap();
            to_json_string(&extract(&arena, &v, cursor, "bench", &eopts).unwrap())
        })
    });
    g.finish();
}

/// Linearity: the Apply set of Deployments of 5, 50 and 500 containers
/// (27 env vars each, unique container names), per byte.
fn scaling(c: &mut Criterion) {
    let cursor = smpatch_schema::embedded()
        .cursor("apps/v1/Deployment")
        .unwrap();
    let popts = ParseOptions::default();
    let fopts = FieldsOptions::default();
    let mut arena = Arena::new();
    let mut g = c.benchmark_group("fieldsets/scaling");
    for n in [5usize, 50, 500] {
        let mut d: serde_json::Value =
            serde_json::from_str(&smpatch_benches::deployment(n, 27)).unwrap();
        let cs = d["spec"]["template"]["spec"]["containers"]
            .as_array_mut()
            .unwrap();
        for (i, c) in cs.iter_mut().enumerate() {
            c["name"] = format!("c{i}").into();
        }
        let text = serde_json::to_string(&d).unwrap();
        let bytes = text.as_bytes();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(BenchmarkId::new("parse", n), |b| {
            b.iter(|| {
                arena.reset();
                black_box(parse_json(&arena, bytes, &popts).unwrap());
            })
        });
        g.bench_function(BenchmarkId::new("parse+fields_of", n), |b| {
            b.iter(|| {
                arena.reset();
                let v = parse_json(&arena, bytes, &popts).unwrap();
                fields_of(&v, cursor, &fopts).unwrap().to_json()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, fieldsets, scaling);
criterion_main!(benches);
