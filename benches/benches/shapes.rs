//! Kubernetes-shaped inputs at growing sizes (issue 13's scaling, beyond
//! one container's env list): the shapes of `benches/shared/shapes.rs`
//! (many containers, ports keyed by port and protocol, Node images and
//! conditions, wide and long ConfigMaps, 50k labels, a PodList, 120 levels
//! of nesting, long finalizer lists with `$setElementOrder` and
//! `$deleteFromPrimitiveList`, `$retainKeys` on a wide object, many field
//! managers, `$setElementOrder` over reordered containers), each through
//! the facade for one operation (apply, create2, create3, fields, extract,
//! normalize, YAML in and out, a batch line).
//!
//! Groups `shapes/SHAPE-OP`, throughput in elements (containers, ports,
//! keys, items, levels, KiB of the long string, managers): benchmarks
//! `smpatch/N` and `serde_json_baseline/N` (serde_json's parse of the same
//! input bytes and write of the expected result; for YAML, of the JSON
//! form of the same document). Report ns per element, the ratio to the
//! group's smallest size, and the ratio to the baseline of the same size.
//! `benches/examples/shapes.rs` surveys every shape and operation at more
//! sizes.
//!
//! ```text
//! cargo bench -p smpatch-benches --bench shapes -- --warm-up-time 1 --measurement-time 3
//! ```

// `criterion_group!` generates an undocumented public function; a bench
// panics on bad data.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

// The survey example reads the shape and operation lists; this bench
// picks its groups.
#[allow(dead_code)]
#[path = "../shared/shapes.rs"]
mod shapes;
use shapes::Case;

/// (shape, operation, sizes).
const GROUPS: &[(&str, &str, &[usize])] = &[
    ("pod-containers", "create3", &[100, 1000, 5000]),
    ("pod-containers", "fields", &[100, 1000, 5000]),
    ("pod-containers", "normalize", &[100, 1000, 5000]),
    ("service-ports", "create2", &[1000, 10_000]),
    ("node-status", "create3", &[1000, 10_000]),
    ("configmap-wide", "create3", &[1000, 50_000]),
    ("configmap-long", "apply", &[100, 1000]),
    ("labels", "apply", &[1000, 50_000]),
    ("pod-list", "apply", &[1000, 10_000]),
    ("deep", "create2", &[50, 120]),
    ("finalizers", "apply", &[1000, 50_000]),
    ("finalizers", "create3", &[1000, 50_000]),
    ("retainkeys-wide", "apply", &[1000, 50_000]),
    ("managers", "extract", &[1000, 10_000]),
    ("setorder-containers", "create2", &[1000, 10_000]),
    ("pod-volumes", "yaml", &[1000, 10_000]),
    ("service-ports", "batch", &[1000, 10_000]),
];

fn bench_shapes(c: &mut Criterion) {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs the
    // target too: keep that quick (each group's smallest size).
    let quick = !std::env::args().any(|a| a == "--bench");
    for &(shape, op, sizes) in GROUPS {
        let sizes = if quick { &sizes[..1] } else { sizes };
        let mut g = c.benchmark_group(format!("shapes/{shape}-{op}"));
        g.sample_size(10);
        for &n in sizes {
            let case = Case::new(shape, n);
            let expected = case.expected(op);
            g.throughput(Throughput::Elements(n as u64));
            g.bench_function(BenchmarkId::new("serde_json_baseline", n), |b| {
                b.iter(|| black_box(case.serde(op, &expected)))
            });
            g.bench_function(BenchmarkId::new("smpatch", n), |b| {
                b.iter(|| black_box(case.run(op).len()))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench_shapes);
criterion_main!(benches);
