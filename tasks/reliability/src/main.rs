//! Runs the hostile-input table of issue 5 and writes `docs/RELIABILITY.md`.
//!
//! ```text
//! cargo run --release -p smpatch-reliability -- [--write docs/RELIABILITY.md]
//! cargo run --release -p smpatch-reliability -- --scale apply one list 16000
//! ```
//!
//! Each case runs in a child process of this program (`--case NAME`), so its
//! time and peak memory (`VmHWM` of `/proc/self/status`) are its own; a
//! crash of the child is reported as such instead of ending the run.

#[path = "table.rs"]
mod table;

use std::process::Command;
use std::time::Instant;

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// User + system CPU time of this process in milliseconds, from
/// `/proc/self/stat` (fields 14 and 15, in clock ticks of 1/100 s).
fn cpu_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses.
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some((utime + stime) * 10)
}

fn run_one(name: &str) -> i32 {
    let Some(case) = table::cases().into_iter().find(|c| c.name == name) else {
        eprintln!("no case named {name:?}");
        return 2;
    };
    let start = Instant::now();
    let cpu0 = cpu_ms().unwrap_or(0);
    let outcome = (case.run)();
    let wall = start.elapsed().as_secs_f64() * 1000.0;
    let ms = match cpu_ms() {
        Some(c) => format!("{wall:.0} / {}", c.saturating_sub(cpu0)),
        None => format!("{wall:.0} / ?"),
    };
    let peak = peak_rss_kib().map_or("?".to_owned(), |k| format!("{:.0}", k as f64 / 1024.0));
    let pass = case.expect.matches(&outcome);
    // One tab-separated line for the parent.
    println!(
        "{}\t{ms}\t{peak}\t{}",
        if pass { "pass" } else { "FAIL" },
        outcome.describe().replace(['\t', '\n'], " ")
    );
    i32::from(!pass)
}

/// `--scale OP SHAPE KIND N`: times one issue 8 list shape at size `N`
/// (for measuring growth, e.g. N = 8000, 16000, 100000).
fn run_scale(args: &[String]) -> i32 {
    let [op, shape, kind, n] = args else {
        eprintln!("usage: --scale apply|create2|create3|conflicts|compose one|many|all|order|delete|delete-primitive|set|compound string|int|float|bool|list|object|object21 N");
        return 2;
    };
    let Ok(n) = n.parse::<usize>() else {
        eprintln!("N must be a number");
        return 2;
    };
    let s = table::shape(shape, kind, n);
    let start = Instant::now();
    let r = table::run_shape(op, &s);
    let wall = start.elapsed().as_secs_f64();
    let peak = peak_rss_kib().map_or("?".to_owned(), |k| format!("{:.0}", k as f64 / 1024.0));
    match r {
        Ok(summary) => println!("{op} {shape} {kind} {n}: {wall:.3} s, {peak} MiB peak: {summary}"),
        Err(e) => println!(
            "{op} {shape} {kind} {n}: {wall:.3} s, {peak} MiB peak: error {}",
            e.name()
        ),
    }
    0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--scale") {
        std::process::exit(run_scale(&args[i + 1..]));
    }
    if let Some(i) = args.iter().position(|a| a == "--case") {
        let name = args.get(i + 1).cloned().unwrap_or_default();
        std::process::exit(run_one(&name));
    }
    let write = args
        .iter()
        .position(|a| a == "--write")
        .and_then(|i| args.get(i + 1).cloned());
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cannot find this program: {e}");
            std::process::exit(2);
        }
    };
    let mut rows = Vec::new();
    let mut failed = 0;
    for case in table::cases() {
        let start = Instant::now();
        let out = Command::new(&exe).args(["--case", case.name]).output();
        let wall = start.elapsed().as_secs_f64() * 1000.0;
        let (status, ms, peak, outcome) = match out {
            Ok(o) if !o.stdout.is_empty() => {
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                let f: Vec<&str> = text.trim_end().splitn(4, '\t').collect();
                match f.as_slice() {
                    [s, ms, peak, outcome] => (
                        s.to_string(),
                        ms.to_string(),
                        peak.to_string(),
                        outcome.to_string(),
                    ),
                    _ => ("FAIL".into(), format!("{wall:.0}"), "?".into(), text),
                }
            }
            Ok(o) => (
                "FAIL".into(),
                format!("{wall:.0}"),
                "?".into(),
                format!(
                    "crashed ({}): {}",
                    o.status,
                    String::from_utf8_lossy(&o.stderr)
                        .lines()
                        .last()
                        .unwrap_or("")
                ),
            ),
            Err(e) => (
                "FAIL".into(),
                "?".into(),
                "?".into(),
                format!("could not run: {e}"),
            ),
        };
        if status != "pass" {
            failed += 1;
        }
        eprintln!(
            "{status:4} {ms:>7} ms {peak:>6} MiB  {}: {outcome}",
            case.name
        );
        rows.push((case.name, case.expect.describe(), outcome, ms, peak, status));
    }
    if let Some(path) = write {
        let mut md = String::from(
            "# Reliability: hostile inputs\n\n\
             Written by `cargo run --release -p smpatch-reliability -- --write docs/RELIABILITY.md`\n\
             (tasks/reliability); the same table runs as the test `crates/smpatch/tests/hostile.rs`.\n\
             Every case goes through the public facade or the batch path and must end in a\n\
             structured error of the expected kind or a correct result. Each case runs in its own\n\
             child process: time is the case's wall time / CPU time (user + system) in\n\
             milliseconds, peak memory the child's `VmHWM`\n\
             (resident set high-water mark, including the ~10 MiB of the program itself).\n\n\
             | Input | Expected | Outcome | Wall / CPU (ms) | Peak RSS (MiB) | |\n\
             |---|---|---|---:|---:|---|\n",
        );
        for (name, expect, outcome, ms, peak, status) in &rows {
            let esc = |s: &str| s.replace('|', "\\|");
            md.push_str(&format!(
                "| {} | {} | {} | {ms} | {peak} | {status} |\n",
                esc(name),
                esc(expect),
                esc(outcome)
            ));
        }
        md.push_str(&format!(
            "\n{} cases, {failed} failed. Machine: {} CPUs; release build.\n",
            rows.len(),
            std::thread::available_parallelism().map_or(0, |n| n.get())
        ));
        md.push_str(HASH_FLOODING);
        if let Err(e) = std::fs::write(&path, md) {
            eprintln!("cannot write {path}: {e}");
            std::process::exit(2);
        }
    }
    std::process::exit(i32::from(failed > 0));
}

/// The prose after the table: the HashDoS guarantee (no table row: its
/// test compares flood and ordinary keys, `crates/smpatch/tests/hash_flood.rs`).
const HASH_FLOODING: &str = "
## Hash flooding (HashDoS)

No choice of keys makes a hash table quadratic. Every table over input-derived data
(object member names, merge keys, set elements, schema names) hashes under a key drawn
per process from the operating system's randomness: aHash (`smpatch_value::hashing`;
`clippy.toml` refuses the unkeyed `rustc_hash` types), or std's SipHash `RandomState`
in a few cold paths, so keys cannot be precomputed to collide. Where a structure sorts or probes by hash bits
(create's radix sort pairing, apply's position index and seen-set), equal hashes only
send it to its exact path (a comparison sort of the keys, or a key comparison). No
output depends on the key or on a table's iteration order.
Tests: `crates/smpatch/tests/hash_flood.rs` (keys colliding under FxHash give the
results of ordinary keys; outputs are byte-identical under two fixed keys and a random
one), `crates/value/src/hashing.rs` (those keys hash apart). Time: the `flood` bench
(`benches/benches/flood.rs`) and `benches/examples/flood.rs` (before the keyed hash,
20,000 colliding keys took 2 to 11 s per operation, 230 to 2,900 times ordinary keys;
see docs/BENCHMARKS.md, \"hash-flood\").
The deep hash of values keys its leaves (`null` and booleans included) and every
container's start, so even merge keys made only of `null`s and booleans hash apart per
process. A machine with no randomness source fails the first hash (as std's `HashMap`
does); no input can cause that.
";
