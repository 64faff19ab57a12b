//! Survey of the Kubernetes shapes of `benches/shared/shapes.rs`: thread
//! CPU ns per element of every operation at several sizes, beside the
//! serde_json baseline on the same bytes, for spotting superlinear paths
//! (the criterion bench `shapes` keeps the representative ones).
//!
//! ```sh
//! cargo build --profile bench -p smpatch-benches --example shapes
//! target/release/examples/shapes [SHAPE|all] [OP|all] [SIZES,...] [BUDGET_MS]
//! valgrind --tool=callgrind --toggle-collect='*shapes*measured*' \
//!     target/release/examples/shapes labels apply 10000 0
//! ```
//!
//! Each line: shape, op, n, ns/element (median thread CPU), its ratio to
//! the first size, the baseline's ns/element and our ratio to it. A budget
//! of 0 runs each operation once (for callgrind) and no baseline.

#![allow(missing_docs, clippy::unwrap_used)]

#[path = "../shared/shapes.rs"]
mod shapes;
use shapes::{Case, OPS, SHAPES};

#[inline(never)]
fn measured<R>(f: impl FnOnce() -> R) -> R {
    f()
}

fn cpu_now() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}

/// The process's minor page faults so far (Linux; 0 elsewhere).
fn minor_faults() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis; minflt is the 10th
    // field of the line, the 8th after it.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    rest.split_whitespace()
        .nth(7)
        .and_then(|f| f.parse().ok())
        .unwrap_or(0.0)
}

/// Median thread CPU ns of `f`, repeated for about `budget_ms`, and the
/// mean minor page faults per call.
fn time(budget_ms: f64, mut f: impl FnMut()) -> (f64, f64) {
    let mut t = Vec::new();
    let start = cpu_now();
    let faults = minor_faults();
    while t.len() < 3 || (cpu_now() - start < budget_ms * 1e6 && t.len() < 1000) {
        let c = cpu_now();
        f();
        t.push(cpu_now() - c);
    }
    let faults = (minor_faults() - faults) / t.len() as f64;
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], faults)
}

/// The sizes surveyed for `shape` by default.
fn sizes(shape: &str) -> Vec<usize> {
    match shape {
        // KiB of one string.
        "configmap-long" => vec![10, 100, 1000, 10_000],
        // Nesting levels (serde_json stops at 128).
        "deep" => vec![25, 50, 100, 120],
        _ => vec![100, 1000, 10_000, 50_000],
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pick = |i: usize| args.get(i).map_or("all", String::as_str).to_owned();
    let (shape_arg, op_arg) = (pick(1), pick(2));
    let sizes_arg: Option<Vec<usize>> = args
        .get(3)
        .filter(|s| s.as_str() != "all")
        .map(|s| s.split(',').map(|n| n.parse().unwrap()).collect());
    let budget: f64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(300.0);
    for shape in SHAPES {
        if shape_arg != "all" && !shape_arg.split(',').any(|s| s == shape) {
            continue;
        }
        let ns = sizes_arg.clone().unwrap_or_else(|| sizes(shape));
        let cases: Vec<Case> = ns.iter().map(|&n| Case::new(shape, n)).collect();
        for op in OPS {
            if op_arg != "all" && !op_arg.split(',').any(|o| o == op) {
                continue;
            }
            let mut first = None;
            for case in &cases {
                if !case.has(op) {
                    continue;
                }
                let n = case.n as f64;
                if budget == 0.0 {
                    measured(|| std::hint::black_box(case.run(op).len()));
                    println!("{shape} {op} n={} ran once", case.n);
                    continue;
                }
                let (ours, faults) = time(budget, || {
                    std::hint::black_box(case.run(op).len());
                });
                let ours = ours / n;
                let expected = case.expected(op);
                let (base, base_faults) = time(budget, || {
                    std::hint::black_box(case.serde(op, &expected));
                });
                let base = base / n;
                let f = *first.get_or_insert(ours);
                let bytes: usize = case.inputs(op).iter().map(|d| d.len()).sum();
                println!(
                    "{shape:20} {op:9} n={:6} {ours:10.0} ns/el  x{:5.2} of first  serde {base:9.0}  ratio {:5.2}  ({} KB in; page faults/call {faults:.0}, serde {base_faults:.0})",
                    case.n,
                    ours / f,
                    ours / base,
                    bytes / 1024
                );
            }
        }
    }
}
