//! Heap use of the arena engine against a `serde_json` baseline, per input.
//!
//! Not a criterion bench (criterion measures time only): each measurement
//! runs once under dhat's counting global allocator and reports the peak
//! heap (`max_bytes`, what a server must provision per request) and the
//! number of allocations (`total_blocks`, what the allocator pays for).
//!
//! - `value/<size>`: parse + serialize of a Kubernetes-shaped document:
//!   `serde_json::Value` (with `preserve_order`, as the workspace builds it)
//!   against `parse_json` into a fresh [`Arena`] + `to_json_string`.
//! - `apply/<case>`: the apply bench inputs; baseline = serde_json parse of
//!   original and patch and serialize of the result; smpatch = arena parse of
//!   both, `apply`, serialize.
//! - `create2/<case>`, `create3/<case>`: the create bench inputs; baseline =
//!   serde_json parse of the documents and serialize of the patch.
//!
//! - `facade-apply/<case>`, `facade-create2/<case>`, `facade-create3/<case>`:
//!   the same through the facade's bytes API (`smpatch::apply_bytes`, …),
//!   whose arena is sized from the input lengths, against the same
//!   baselines.
//!
//! - `scaling/<op>/<n>`: peak heap per list element of `apply` (every
//!   element patched), `create2` and `create3` on the env lists of the scaling
//!   bench, 1k to 256k elements, with the facade's peak per element beside
//!   it; target: per-element peak at every size within [`SCALING_TARGET`]
//!   of the 1k figure (linear memory).
//!
//! Target: peak heap within 1.5x of the baseline on every input. Run with
//! `cargo bench -p smpatch-benches --bench memory`; the table goes to
//! stdout and the process fails when a ratio misses the target.

#![allow(missing_docs, clippy::unwrap_used)]

#[path = "../shared/ops.rs"]
mod ops;
use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
use std::hint::black_box;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Peak heap (bytes) and allocation count of one run of `f`.
#[derive(Clone, Copy)]
struct Usage {
    peak: u64,
    blocks: u64,
}

fn measure<R>(f: impl FnOnce() -> R) -> Usage {
    let profiler = dhat::Profiler::builder().testing().build();
    let r = f();
    let stats = dhat::HeapStats::get();
    drop(r);
    drop(profiler);
    Usage {
        peak: stats.max_bytes as u64,
        blocks: stats.total_blocks,
    }
}

const TARGET: f64 = 1.5;

/// Largest allowed per-element peak at any size, relative to 1k elements.
const SCALING_TARGET: f64 = 1.2;

struct Row {
    name: String,
    input_bytes: usize,
    baseline: Usage,
    smpatch: Usage,
}

impl Row {
    fn ratio(&self) -> f64 {
        self.smpatch.peak as f64 / self.baseline.peak as f64
    }
}

fn serde_docs(docs: &[&[u8]]) -> Vec<serde_json::Value> {
    docs.iter()
        .map(|d| serde_json::from_slice(d).unwrap())
        .collect()
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs the
    // target too: keep that quick (one small input of each kind).
    let quick = !std::env::args().any(|a| a == "--bench");
    let mut rows: Vec<Row> = Vec::new();
    let popts = ParseOptions::default();

    let sizes: &[(&str, usize)] = if quick {
        &[("1KB", 1_000)]
    } else {
        &[("1KB", 1_000), ("120KB", 120_000), ("1.5MB", 1_500_000)]
    };
    for &(label, size) in sizes {
        let doc = smpatch_benches::k8s_doc(size);
        let bytes = doc.as_bytes();
        let baseline = measure(|| {
            let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            let out = serde_json::to_string(&v).unwrap();
            black_box(&v);
            out
        });
        let smpatch = measure(|| {
            let arena = Arena::new();
            let v = parse_json(&arena, bytes, &popts).unwrap();
            to_json_string(&v)
        });
        rows.push(Row {
            name: format!("value/{label}"),
            input_bytes: bytes.len(),
            baseline,
            smpatch,
        });
    }

    let schema = smpatch_schema::embedded();
    let cursor = schema.cursor("apps/v1/Deployment").unwrap();
    let ops_opts = ops::Opts::default();
    let mut cases = smpatch_benches::patch_cases();
    if quick {
        cases.truncate(1);
    }
    for case in &cases {
        let (o, p) = (case.original.as_bytes(), case.patch.as_bytes());
        // The result, computed once outside measurement, for the baseline's
        // serialize step.
        let result: serde_json::Value = serde_json::from_str(&case.modified).unwrap();
        let baseline = measure(|| {
            let docs = serde_docs(&[o, p]);
            black_box(&docs);
            serde_json::to_string(&result).unwrap()
        });
        let smpatch = measure(|| {
            let arena = Arena::new();
            let v = [
                parse_json(&arena, o, &popts).unwrap(),
                parse_json(&arena, p, &popts).unwrap(),
            ];
            to_json_string(&ops::engine(
                &arena,
                ops::Kind::Apply,
                &v,
                cursor,
                &ops_opts,
            ))
        });
        rows.push(Row {
            name: format!("apply/{}", case.label),
            input_bytes: o.len() + p.len(),
            baseline,
            smpatch,
        });
        let facade = measure(|| facade_op(0, &[o, p]));
        rows.push(Row {
            name: format!("facade-apply/{}", case.label),
            input_bytes: o.len() + p.len(),
            baseline,
            smpatch: facade,
        });

        for three in [false, true] {
            let docs: Vec<&[u8]> = if three {
                vec![o, case.modified.as_bytes(), case.current.as_bytes()]
            } else {
                vec![o, case.modified.as_bytes()]
            };
            // Parse the documents into `arena` and diff them.
            let create = |arena: &Arena| -> String {
                let v: Vec<_> = docs
                    .iter()
                    .map(|d| parse_json(arena, d, &popts).unwrap())
                    .collect();
                let kind = if three {
                    ops::Kind::Create3
                } else {
                    ops::Kind::Create2
                };
                to_json_string(&ops::engine(arena, kind, &v, cursor, &ops_opts))
            };
            // The patch, once, for the baseline's serialize step.
            let patch: serde_json::Value = serde_json::from_str(&create(&Arena::new())).unwrap();
            let baseline = measure(|| {
                let parsed = serde_docs(&docs);
                black_box(&parsed);
                serde_json::to_string(&patch).unwrap()
            });
            let smpatch = measure(|| create(&Arena::new()));
            rows.push(Row {
                name: format!(
                    "{}/{}",
                    if three { "create3" } else { "create2" },
                    case.label
                ),
                input_bytes: docs.iter().map(|d| d.len()).sum(),
                baseline,
                smpatch,
            });
            let facade = measure(|| facade_op(if three { 2 } else { 1 }, &docs));
            rows.push(Row {
                name: format!(
                    "facade-{}/{}",
                    if three { "create3" } else { "create2" },
                    case.label
                ),
                input_bytes: docs.iter().map(|d| d.len()).sum(),
                baseline,
                smpatch: facade,
            });
        }
    }

    println!(
        "| input | input bytes | serde_json peak | smpatch peak | peak ratio | serde_json allocs | smpatch allocs |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let mut missed = Vec::new();
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {:.2} | {} | {} |",
            r.name,
            r.input_bytes,
            r.baseline.peak,
            r.smpatch.peak,
            r.ratio(),
            r.baseline.blocks,
            r.smpatch.blocks
        );
        if r.ratio() > TARGET {
            missed.push(r.name.clone());
        }
    }
    if !missed.is_empty() {
        eprintln!("memory: peak heap above {TARGET}x the baseline on: {missed:?}");
    }
    let sizes: &[usize] = if quick {
        &smpatch_benches::SCALING_SIZES[..1]
    } else {
        &smpatch_benches::SCALING_SIZES
    };
    let scaling_missed = scaling(sizes, cursor);
    if !scaling_missed.is_empty() {
        eprintln!(
            "memory: peak per element above {SCALING_TARGET}x the 1k figure on: {scaling_missed:?}"
        );
    }
    if !missed.is_empty() || !scaling_missed.is_empty() {
        std::process::exit(1);
    }
}

/// Peak heap per element of apply (all elements), create2 and create3 on the
/// env lists of `sizes` (the first is the reference): prints a table and
/// returns the rows above [`SCALING_TARGET`].
fn scaling(sizes: &[usize], cursor: smpatch_schema::Cursor<'_>) -> Vec<String> {
    let popts = ParseOptions::default();
    let ops = ["apply", "create2", "create3"];
    let mut per_1k = [0f64; 3];
    let mut missed = Vec::new();
    println!();
    println!(
        "| op | elements | smpatch peak | peak per element | vs 1k | facade peak per element | serde_json peak per element |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (si, &n) in sizes.iter().enumerate() {
        let case = smpatch_benches::case_env_all(n);
        let (o, p, m, c) = (
            case.original.as_bytes(),
            case.patch.as_bytes(),
            case.modified.as_bytes(),
            case.current.as_bytes(),
        );
        for (k, op) in ops.iter().enumerate() {
            let docs: Vec<&[u8]> = match k {
                0 => vec![o, p],
                1 => vec![o, m],
                _ => vec![o, m, c],
            };
            let usage = measure(|| {
                let arena = Arena::new();
                let v: Vec<_> = docs
                    .iter()
                    .map(|d| parse_json(&arena, d, &popts).unwrap())
                    .collect();
                to_json_string(&ops::engine(
                    &arena,
                    KINDS[k],
                    &v,
                    cursor,
                    &ops::Opts::default(),
                ))
            });
            let facade = measure(|| facade_op(k, &docs));
            let baseline = measure(|| {
                let parsed = serde_docs(&docs);
                black_box(&parsed);
            });
            let per = usage.peak as f64 / n as f64;
            if si == 0 {
                per_1k[k] = per;
            }
            let vs = per / per_1k[k];
            println!(
                "| {op} | {n} | {} | {per:.0} | {vs:.2} | {:.0} | {:.0} |",
                usage.peak,
                facade.peak as f64 / n as f64,
                baseline.peak as f64 / n as f64
            );
            if vs > SCALING_TARGET {
                missed.push(format!("{op}/{n}"));
            }
        }
    }
    missed
}

/// The shared operations by index (0 apply, 1 create2, 2 create3).
const KINDS: [ops::Kind; 3] = [ops::Kind::Apply, ops::Kind::Create2, ops::Kind::Create3];

/// Operation `k` (0 apply, 1 create2, 2 create3) of a Deployment through the
/// facade's bytes API (its own arena, sized from the inputs): the patched
/// document or the patch, as bytes.
fn facade_op(k: usize, docs: &[&[u8]]) -> Vec<u8> {
    let ty = smpatch::TypeRef::Gvk("apps/v1/Deployment".into());
    ops::facade(
        KINDS[k],
        docs,
        smpatch_schema::embedded(),
        &ty,
        &ops::Opts::default(),
    )
}
