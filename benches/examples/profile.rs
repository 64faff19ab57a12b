//! One scaling-bench operation, for profilers (callgrind, cachegrind, perf).
//!
//! ```sh
//! cargo build --profile bench -p smpatch-benches --example profile
//! valgrind --tool=callgrind --toggle-collect='*profile*measured*' \
//!     target/release/examples/profile apply-all 16000
//! ```
//!
//! Arguments: the operation (`apply-all`, `apply-one`, `create2`, `create3`,
//! `parse` (the 121 KB Deployment of the apply bench), `parse-serde` (the
//! same with serde_json's `from_slice` into `serde_json::Value`),
//! `parse-doc` / `parse-doc-serde` (the compact 120 KB `k8s_doc` of the
//! `value` bench), `parse-pretty` (the 121 KB Deployment as `kubectl get -o
//! json` writes it: newlines, four spaces per level, `": "` after keys),
//! `deploy-apply-bytes` (`deploy-apply` through the facade's `apply_bytes`,
//! which adds its per-call work: arena, type look-up, output buffer), or
//! `op-only` variants
//! `apply-all-op`, `create2-op`, … that exclude parsing and writing from
//! `measured` (their printed time is parse + operation), `-parse` variants
//! `apply-all-parse`, … that only parse the operation's documents, or
//! `-serde` variants `apply-all-serde`, `apply-one-serde`, …:
//! the scaling bench's baseline, serde_json parsing the same documents and
//! writing the expected result), or `-floor` variants `apply-all-floor`, …
//! (the streaming floor of the scaling bench: copy every input document
//! into a reused buffer and the operation's output text into a new one,
//! no parsing: what this machine charges any linear pass over the same
//! bytes), the element count, and the repetitions
//! (default 1). Writing the result can also be varied (issue 13's write
//! phase): `-presize` writes into a `String` reserved at the input size,
//! `-reuse` into one `String` kept across repetitions (cleared, not freed),
//! and `-bytes` runs the whole call through the facade's `*_bytes`
//! function (`apply_bytes`, `create_two_way_bytes`,
//! `create_three_way_bytes`: a fresh arena and output buffer each call). The
//! input is generated outside `measured`, so a tool collecting only inside
//! it sees the operation alone.

#![allow(missing_docs, clippy::unwrap_used)]

use smpatch_benches::{case_deployment_50, case_env_all, case_env_one};
#[path = "../shared/ops.rs"]
mod ops;
use smpatch_schema::Cursor;
use smpatch_value::{parse_json, to_json_string, write_json, Arena, ParseOptions, Value};
use std::hint::black_box;

/// The shared operation `base` names (`None` for the parse-only ones).
fn kind(base: &str) -> Option<ops::Kind> {
    Some(match base {
        "apply-all" | "apply-one" | "deploy-apply" | "deploy-apply-bytes" => ops::Kind::Apply,
        "create2" | "deploy-create2" => ops::Kind::Create2,
        "create3" | "deploy-create3" => ops::Kind::Create3,
        _ => return None,
    })
}

/// The operation `base` names on the parsed documents `v` (`None` for the
/// parse-only operations).
fn operate<'a>(
    arena: &'a Arena,
    base: &str,
    v: &[Value<'a>],
    cursor: Cursor<'_>,
    opts: &ops::Opts,
) -> Option<Value<'a>> {
    Some(ops::engine(arena, kind(base)?, v, cursor, opts))
}

#[inline(never)]
fn measured<R>(f: impl FnOnce() -> R) -> R {
    f()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map_or("apply-all", String::as_str);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(16_000);
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let (op0, parse_only) = match op.strip_suffix("-parse") {
        Some(b) => (b, true),
        None => (op, false),
    };
    let (base, op_only) = match op0.strip_suffix("-op") {
        Some(b) => (b, true),
        None => (op0, false),
    };
    let (base, serde_baseline) = match base.strip_suffix("-serde") {
        Some(b) => (b, true),
        None => (base, false),
    };
    let (base, floor) = match base.strip_suffix("-floor") {
        Some(b) => (b, true),
        None => (base, false),
    };
    let (base, presize) = match base.strip_suffix("-presize") {
        Some(b) => (b, true),
        None => (base, false),
    };
    let (base, reuse) = match base.strip_suffix("-reuse") {
        Some(b) => (b, true),
        None => (base, false),
    };
    let (base, facade) = match base.strip_suffix("-bytes") {
        Some(b) if b != "deploy-apply" => (b, true),
        _ => (base, false),
    };
    let case = match base {
        "apply-one" => case_env_one(n),
        "deploy-apply" | "deploy-apply-bytes" | "deploy-create2" | "deploy-create3" | "parse"
        | "parse-serde" | "parse-doc" | "parse-doc-serde" | "parse-pretty" => case_deployment_50(),
        _ => case_env_all(n),
    };
    let schema = smpatch_schema::embedded();
    let cursor = schema.cursor("apps/v1/Deployment").unwrap();
    let popts = ParseOptions::default();
    let opts = ops::Opts::default();
    // The compact 120 KB document of the `value` bench (`value_parse/120KB`).
    let doc120 = smpatch_benches::k8s_doc(120_000);
    let pretty = if base == "parse-pretty" {
        smpatch_benches::kubectl_pretty(&case.original)
    } else {
        String::new()
    };
    let docs: Vec<&[u8]> = match base {
        "apply-all" | "apply-one" | "deploy-apply" | "deploy-apply-bytes" => {
            vec![case.original.as_bytes(), case.patch.as_bytes()]
        }
        "create2" | "deploy-create2" => vec![case.original.as_bytes(), case.modified.as_bytes()],
        "parse" | "parse-serde" => vec![case.original.as_bytes()],
        "parse-doc" | "parse-doc-serde" => vec![doc120.as_bytes()],
        "parse-pretty" => vec![pretty.as_bytes()],
        _ => vec![
            case.original.as_bytes(),
            case.modified.as_bytes(),
            case.current.as_bytes(),
        ],
    };
    let expected: serde_json::Value = serde_json::from_str(&case.modified).unwrap();
    let mut arena = Arena::new();
    // The streaming floor's output: the operation's result text, made once.
    let out_text = if floor {
        let v: Vec<Value<'_>> = docs
            .iter()
            .map(|d| parse_json(&arena, d, &popts).unwrap())
            .collect();
        let out = operate(&arena, base, &v, cursor, &opts).unwrap_or(v[0]);
        to_json_string(&out)
    } else {
        String::new()
    };
    arena.reset();
    let mut floor_buf: Vec<u8> = Vec::new();
    let mut reused = String::new();
    let input_len: usize = docs.iter().map(|d| d.len()).sum();
    let mut times = Vec::with_capacity(reps);
    // Thread CPU time as well: on a loaded machine it leaves out the time
    // the thread waited for a core (not the caches other processes evict).
    let mut cpu_times = Vec::with_capacity(reps);
    let cpu_now = || {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
    };
    for _ in 0..reps {
        let t = std::time::Instant::now();
        let c = cpu_now();
        if serde_baseline {
            black_box(measured(|| {
                let parsed: Vec<serde_json::Value> = docs
                    .iter()
                    .map(|d| serde_json::from_slice(d).unwrap())
                    .collect();
                (parsed, serde_json::to_string(&expected).unwrap())
            }));
            times.push(t.elapsed().as_nanos() as f64);
            cpu_times.push(cpu_now() - c);
            continue;
        }
        if floor {
            black_box(measured(|| {
                floor_buf.clear();
                for d in &docs {
                    floor_buf.extend_from_slice(d);
                }
                black_box(&floor_buf);
                out_text.as_bytes().to_vec()
            }));
            times.push(t.elapsed().as_nanos() as f64);
            cpu_times.push(cpu_now() - c);
            continue;
        }
        if base == "parse-serde" || base == "parse-doc-serde" {
            // The baseline: serde_json's own tree.
            black_box(measured(|| {
                serde_json::from_slice::<serde_json::Value>(docs[0])
                    .unwrap()
                    .is_object()
            }));
            times.push(t.elapsed().as_nanos() as f64);
            cpu_times.push(cpu_now() - c);
            continue;
        }
        if base == "deploy-apply-bytes" {
            let ty = smpatch::TypeRef::Gvk("apps/v1/Deployment".into());
            black_box(measured(|| {
                ops::facade(ops::Kind::Apply, &docs, schema, &ty, &opts).len()
            }));
            times.push(t.elapsed().as_nanos() as f64);
            cpu_times.push(cpu_now() - c);
            continue;
        }
        if facade {
            let ty = smpatch::TypeRef::Gvk("apps/v1/Deployment".into());
            let kind = kind(base).unwrap_or(ops::Kind::Create3);
            black_box(measured(|| {
                ops::facade(kind, &docs, schema, &ty, &opts).len()
            }));
            times.push(t.elapsed().as_nanos() as f64);
            cpu_times.push(cpu_now() - c);
            continue;
        }
        arena.reset();
        let mut run = |v: &[Value<'_>]| -> Option<usize> {
            let arena = &arena;
            if parse_only {
                return None;
            }
            let out = operate(arena, base, v, cursor, &opts)?;
            if op_only {
                None
            } else if reuse {
                reused.clear();
                write_json(&mut reused, &out);
                Some(reused.len())
            } else if presize {
                let mut s = String::with_capacity(input_len);
                write_json(&mut s, &out);
                Some(black_box(s).len())
            } else {
                Some(black_box(to_json_string(&out)).len())
            }
        };
        if op_only {
            let v: Vec<Value<'_>> = docs
                .iter()
                .map(|d| parse_json(&arena, d, &popts).unwrap())
                .collect();
            black_box(measured(|| run(&v)));
        } else {
            black_box(measured(|| {
                let v: Vec<Value<'_>> = docs
                    .iter()
                    .map(|d| parse_json(&arena, d, &popts).unwrap())
                    .collect();
                run(&v)
            }));
        }
        times.push(t.elapsed().as_nanos() as f64);
        cpu_times.push(cpu_now() - c);
    }
    times.sort_by(f64::total_cmp);
    cpu_times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let cpu_median = cpu_times[cpu_times.len() / 2];
    let bytes: usize = docs.iter().map(|d| d.len()).sum();
    eprintln!(
        "{op} n={n}: median {:.3} ms, {:.0} ns/element, {:.0} MB/s of input ({bytes} bytes, {reps} reps); thread CPU median {:.0} ns/element",
        median / 1e6,
        median / n as f64,
        bytes as f64 / median * 1e3,
        cpu_median / n as f64
    );
}
