//! One call of the `objects` bench, for profilers (callgrind):
//!
//! ```sh
//! cargo build --profile bench -p smpatch-benches --example objects_profile
//! valgrind --tool=callgrind --toggle-collect='*objects_profile*measured*' \
//!     target/release/examples/objects_profile apply configmap bytes 10
//! ```
//!
//! Arguments: the operation (`apply`, `create2`, `create3`, `client_apply`,
//! `server_apply`, `fields`, or `compile` for compiling the embedded
//! schema), the case label (`service`, `pod`, `statefulset`, `crd-rollout`,
//! `node-status`, `secret`, `configmap`), the form (`bytes`, `json`, or
//! `serde` for the serde_json baseline) and the repetitions (default 1).
//! Prints the median wall time per call.

#![allow(missing_docs, clippy::unwrap_used)]

#[path = "../shared/objects.rs"]
mod shared;
use shared::{prepare, run, Form, Opts};
use std::time::Instant;

#[inline(never)]
fn measured<R>(f: impl FnOnce() -> R) -> R {
    f()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map_or("apply", String::as_str);
    let label = args.get(2).map_or("pod", String::as_str);
    let form = match args.get(3).map_or("bytes", String::as_str) {
        "json" => Form::Json,
        "serde" => Form::Serde,
        _ => Form::Bytes,
    };
    let reps: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut times = Vec::with_capacity(reps);
    if op == "compile" {
        for _ in 0..reps {
            let t = Instant::now();
            let s = measured(|| smpatch_schema::compile_embedded().unwrap());
            times.push(t.elapsed());
            drop(s);
        }
    } else {
        let case = smpatch_benches::objects::object_cases()
            .into_iter()
            .find(|c| c.label == label)
            .unwrap_or_else(|| panic!("no case {label}"));
        let p = prepare(&case);
        assert_eq!(p.label, label);
        let opts = Opts::default();
        for _ in 0..reps {
            let t = Instant::now();
            let r = measured(|| run(&p, op, form, &opts));
            times.push(t.elapsed());
            drop(r);
        }
    }
    times.sort();
    println!(
        "{op} {label} {form:?}: median {:?} over {reps}",
        times[reps / 2]
    );
}
