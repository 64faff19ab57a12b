//! What a user does with real-shaped Kubernetes objects, through the facade:
//! the corpus of `smpatch_benches::objects` (Service with ports keyed by
//! port and protocol, Pod, StatefulSet with volumeClaimTemplates, a custom
//! resource whose type comes from a CRD's `openAPIV3Schema`, Node status,
//! Secret, a 260 KB ConfigMap).
//!
//! Groups `objects/OP/KIND`, OP one of:
//! - `apply`: `apply_bytes` / `apply_json` of the change as a strategic
//!   merge patch (what `create2` answers) onto the live object;
//! - `create2`: `create_two_way_bytes` / `_json`, manifest → edited manifest;
//! - `create3`: `create_three_way_bytes` / `_json` (last applied, edited
//!   manifest, live object; `OnConflict::Fail`, so the conflict check runs);
//! - `client_apply`: the whole `kubectl apply` flow
//!   (`apply_flow::client_apply_bytes` / `_json`: last-applied annotation
//!   read and written, three-way patch, merge into the live object);
//! - `server_apply`: the API server's merge + union normalization +
//!   validation (`server_apply_json`, KEP-1027);
//! - `fields`: the live object's field set (`fields_bytes` / `_json`,
//!   KEP-2155).
//!
//! Each group holds, on the same input: `serde_json_baseline`
//! (`from_slice::<serde_json::Value>` of every input document and
//! `to_string` of the precomputed result), `bytes` (the facade's bytes
//! call) and `json` (the `serde_json::Value` call, inputs already parsed as
//! a user holding values has them). Every result is checked once before
//! timing.
//!
//! Group `objects/first_use`: what a short-lived process (one CLI invocation)
//! pays before and around its one operation: compiling the embedded schema
//! (`compile_embedded`), the schema set of a `--schema` CRD file
//! (`schema_set_crd`: embedded schema + CRD compiled and merged), and one
//! Pod apply with (`first_apply_pod`) and without (`apply_pod`) the schema
//! compile, against the serde_json parse + write of the embedded schema
//! document (`serde_json_schema_baseline`).

// `criterion_group!` generates an undocumented public function; a bench
// panics on bad data.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::Value as Json;
use smpatch::{ApplyOptions, Schema};
use smpatch_benches::objects::object_cases;
use std::hint::black_box;

#[path = "../shared/objects.rs"]
mod shared;
use shared::{prepare, run, Form, Opts, OPS};

fn objects(c: &mut Criterion) {
    let opts = Opts::default();
    for case in object_cases() {
        let p = prepare(&case);
        for op in OPS {
            let mut g = c.benchmark_group(format!("objects/{op}/{}", p.label));
            let size: usize = p.inputs(op).iter().map(|d| d.len()).sum();
            g.throughput(Throughput::Bytes(size as u64));
            for (name, form) in [
                ("serde_json_baseline", Form::Serde),
                ("bytes", Form::Bytes),
                ("json", Form::Json),
            ] {
                g.bench_function(BenchmarkId::new(name, p.label), |b| {
                    b.iter(|| run(&p, op, form, &opts).0)
                });
            }
            g.finish();
        }
    }
}

/// What one CLI invocation pays around its operation.
fn first_use(c: &mut Criterion) {
    let p = prepare(&smpatch_benches::objects::pod());
    let crd = smpatch_benches::objects::rollout_crd();
    let aopts = ApplyOptions::default();
    let opts = Opts::default();
    let inputs = p.inputs("apply");
    let (cur, patch) = (inputs[0], inputs[1]);
    let bytes = smpatch_schema::EMBEDDED_JSON;
    let mut g = c.benchmark_group("objects/first_use");
    g.bench_function(BenchmarkId::new("serde_json_schema_baseline", "k8s"), |b| {
        b.iter(|| {
            let v: Json = serde_json::from_slice(bytes).unwrap();
            serde_json::to_string(&v).unwrap().len()
        })
    });
    g.bench_function(BenchmarkId::new("compile_embedded", "k8s"), |b| {
        b.iter(|| black_box(smpatch_schema::compile_embedded().unwrap()))
    });
    g.bench_function(BenchmarkId::new("schema_set_crd", "k8s+crd"), |b| {
        b.iter(|| {
            let e = smpatch_schema::compile_embedded().unwrap();
            let c = Schema::from_bytes(crd.as_bytes(), "crd.json").unwrap();
            black_box(e.merge(c)).node_count()
        })
    });
    g.bench_function(BenchmarkId::new("first_apply_pod", "pod"), |b| {
        b.iter(|| {
            let s = smpatch_schema::compile_embedded().unwrap();
            smpatch::apply_bytes(cur, patch, &s, &p.ty, &aopts)
                .unwrap()
                .len()
        })
    });
    g.bench_function(BenchmarkId::new("apply_pod", "pod"), |b| {
        b.iter(|| run(&p, "apply", Form::Bytes, &opts).0)
    });
    g.bench_function(BenchmarkId::new("serde_json_baseline", "pod"), |b| {
        b.iter(|| run(&p, "apply", Form::Serde, &opts).0)
    });
    g.finish();
}

criterion_group!(benches, first_use, objects);
criterion_main!(benches);
