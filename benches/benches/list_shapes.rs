//! Large lists of every merge-key kind (issue 8): apply, `$setElementOrder`,
//! `$patch: delete`, create2 and compose on 100,000 elements.
//!
//! Each group compares one key kind (or directive) with the same shape
//! keyed by strings (`string_keys_baseline`) in the same run; report the
//! ratio. Before issue 8, list and object keys were quadratic (13.6 s for
//! 16,000 list keys) and float keys several times slower than strings; the
//! ratios here stay small constants. The time-linearity property test is
//! `crates/patch-create/tests/linear_time.rs`.
//!
//! ```text
//! cargo bench -p smpatch-benches --bench list_shapes -- --warm-up-time 1 --measurement-time 3
//! ```

// `criterion_group!` generates an undocumented public function; a bench
// panics on bad data.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use smpatch_patch_apply::{apply, ApplyOptions};
use smpatch_patch_create::{compose, create_two_way, CreateOptions};
use smpatch_schema::{Cursor, Schema};
use smpatch_value::{parse_json, Arena, ParseOptions};
use std::hint::black_box;
use std::path::Path;

const N: usize = 100_000;

fn key(kind: &str, i: usize) -> String {
    match kind {
        "int" => format!("{i}"),
        "float" => format!("{i}.5"),
        "list" => format!(r#"["k",{i}]"#),
        "object" => format!(r#"{{"k":{i},"s":"v"}}"#),
        "object12" => {
            let f: Vec<String> = (0..12).map(|f| format!(r#""f{f}":{i}"#)).collect();
            format!("{{{}}}", f.join(","))
        }
        _ => format!(r#""k{i}""#),
    }
}

fn list(n: usize, f: impl Fn(usize) -> String) -> String {
    let items: Vec<String> = (0..n).map(f).collect();
    format!("[{}]", items.join(","))
}

/// `(live, patch)` of a shape on the Widget's `items` (merge key `id`).
fn shape(name: &str, kind: &str) -> (String, String) {
    let el = |i: usize, extra: &str| format!(r#"{{"id":{}{extra}}}"#, key(kind, i));
    let live = format!(r#"{{"items":{}}}"#, list(N, |i| el(i, "")));
    let patch = match name {
        "order" => format!(
            r#"{{"$setElementOrder/items":{},"items":[{}]}}"#,
            list(N, |i| el(N - 1 - i, "")),
            el(0, r#","v":"x""#)
        ),
        "delete" => format!(
            r#"{{"items":{}}}"#,
            list(N, |i| el(i, r#","$patch":"delete""#))
        ),
        _ => format!(
            r#"{{"items":{}}}"#,
            list(N, |i| el(N - 1 - i, r#","v":"x""#))
        ),
    };
    (live, patch)
}

#[derive(Clone, Copy)]
enum Op {
    Apply,
    Create2,
    Compose,
}

fn run(arena: &Arena, cursor: Cursor<'_>, op: Op, live: &str, patch: &str, modified: &str) {
    let popts = ParseOptions::default();
    let l = parse_json(arena, live.as_bytes(), &popts).unwrap();
    let p = parse_json(arena, patch.as_bytes(), &popts).unwrap();
    match op {
        Op::Apply => {
            black_box(apply(arena, l, p, cursor, &ApplyOptions::default()).unwrap());
        }
        Op::Create2 => {
            let m = parse_json(arena, modified.as_bytes(), &popts).unwrap();
            black_box(create_two_way(arena, l, m, cursor, &CreateOptions::default(), &[]).unwrap());
        }
        Op::Compose => {
            black_box(compose(arena, l, p, cursor, &CreateOptions::default()).unwrap());
        }
    }
}

fn list_shapes(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/schemas/widget.v2.json");
    let schema = Schema::load_path(path).unwrap();
    let cursor = schema.cursor("Widget").unwrap();
    let groups: &[(&str, Op, &str)] = &[
        ("merge", Op::Apply, "int"),
        ("merge", Op::Apply, "float"),
        ("merge", Op::Apply, "list"),
        ("merge", Op::Apply, "object"),
        ("merge", Op::Apply, "object12"),
        ("order", Op::Apply, "list"),
        ("delete", Op::Apply, "object"),
        ("merge", Op::Create2, "list"),
        ("merge", Op::Compose, "object"),
    ];
    let mut arena = Arena::new();
    for &(name, op, kind) in groups {
        let op_name = match op {
            Op::Apply => "apply",
            Op::Create2 => "create2",
            Op::Compose => "compose",
        };
        let mut g = c.benchmark_group(format!("list_shapes/{op_name}-{name}-{kind}"));
        g.sample_size(10);
        g.throughput(Throughput::Elements(N as u64));
        for (label, k) in [("string_keys_baseline", "string"), ("smpatch", kind)] {
            let (live, patch) = shape(name, k);
            // create2's modified document: the applied patch, computed once.
            let modified = {
                let popts = ParseOptions::default();
                let a = Arena::new();
                let l = parse_json(&a, live.as_bytes(), &popts).unwrap();
                let p = parse_json(&a, patch.as_bytes(), &popts).unwrap();
                let m = apply(&a, l, p, cursor, &ApplyOptions::default()).unwrap();
                smpatch_value::to_json_string(&m)
            };
            g.bench_function(BenchmarkId::new(label, kind), |b| {
                b.iter(|| {
                    arena.reset();
                    run(&arena, cursor, op, &live, &patch, &modified);
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, list_shapes);
criterion_main!(benches);
