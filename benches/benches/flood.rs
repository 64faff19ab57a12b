//! HashDoS (group `flood`): the operations on keys crafted to collide
//! under FxHash (`smpatch_testkit::fx_colliding_keys`) against ordinary
//! keys of the same length, in the same run; report the ratio. Before the
//! tables were keyed (smpatch_value::hashing) the colliding keys were
//! quadratic (seconds at 20,000 keys, hundreds of times the ordinary
//! keys); now the ratio stays near 1. `examples/flood.rs` prints the same
//! comparison for more cases and any `N`.
//!
//! ```text
//! cargo bench -p smpatch-benches --bench flood -- --warm-up-time 1 --measurement-time 3
//! ```

// `criterion_group!` generates an undocumented public function; a bench
// panics on bad data.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use smpatch_patch_apply::{apply, ApplyOptions};
use smpatch_patch_create::{create_two_way, CreateOptions};
use smpatch_testkit::{fx_colliding_keys, json_list, json_object, ordinary_keys};
use smpatch_value::{parse_json, Arena, ParseOptions};
use std::hint::black_box;

const N: usize = 5_000;

/// A Deployment whose labels and first container's env carry `keys`.
fn deployment(keys: &[String], val: &str) -> String {
    format!(
        r#"{{"metadata":{{"name":"d","labels":{labels}}},"spec":{{"template":{{"spec":{{"containers":[{{"name":"c","env":{env}}}]}}}}}}}}"#,
        labels = json_object(keys, &format!("\"{val}\"")),
        env = json_list(keys, |k| format!(r#"{{"name":"{k}","value":"{val}"}}"#)),
    )
}

fn flood(c: &mut Criterion) {
    let schema = smpatch_schema::embedded();
    let cursor = schema.cursor("apps/v1/Deployment").unwrap();
    let mut g = c.benchmark_group("flood");
    g.throughput(Throughput::Elements(N as u64));
    for (name, keys) in [
        ("colliding", fx_colliding_keys(N)),
        ("ordinary", ordinary_keys(N)),
    ] {
        let (orig, modified) = (deployment(&keys, "a"), deployment(&keys, "b"));
        g.bench_with_input(BenchmarkId::new("apply", name), &keys, |b, _| {
            b.iter(|| {
                let arena = Arena::new();
                let o = parse_json(&arena, orig.as_bytes(), &ParseOptions::default()).unwrap();
                let p = parse_json(&arena, modified.as_bytes(), &ParseOptions::default()).unwrap();
                black_box(apply(&arena, o, p, cursor, &ApplyOptions::default()).unwrap());
            })
        });
        g.bench_with_input(BenchmarkId::new("create2", name), &keys, |b, _| {
            b.iter(|| {
                let arena = Arena::new();
                let o = parse_json(&arena, orig.as_bytes(), &ParseOptions::default()).unwrap();
                let m = parse_json(&arena, modified.as_bytes(), &ParseOptions::default()).unwrap();
                black_box(
                    create_two_way(&arena, o, m, cursor, &CreateOptions::default(), &[]).unwrap(),
                );
            })
        });
    }
    g.finish();
}

criterion_group!(benches, flood);
criterion_main!(benches);
