//! HashDoS demonstration: wall time of the operations on `N` keys that
//! collide under FxHash (`smpatch_testkit::fx_colliding_keys`) against `N`
//! ordinary keys of the same length.
//!
//! ```sh
//! cargo build --profile bench -p smpatch-benches --example flood
//! target/release/examples/flood 20000
//! ```
//!
//! Each case puts the keys where a table indexes them: an env-style list
//! (`name` merge key) patched in place, its `$setElementOrder`, a wide
//! object's member names (`metadata.labels`), `$deleteFromPrimitiveList`
//! of `metadata.finalizers`, `$retainKeys` of a wide `spec.strategy`, the
//! two- and three-way diffs of the same, and parsing a wide object.

#![allow(missing_docs, clippy::unwrap_used)]

use smpatch_testkit::{fx_colliding_keys, json_list, json_object, ordinary_keys};
use smpatch_value::{parse_json, Arena, ParseOptions};
use std::time::Instant;

// The measured operations shared with the profile example (its facade
// call is not used here).
#[path = "../shared/ops.rs"]
#[allow(dead_code)]
mod ops;

fn deployment(keys: &[String], val: &str) -> String {
    format!(
        r#"{{"metadata":{{"name":"d","labels":{labels},"finalizers":{fin}}},"spec":{{"template":{{"spec":{{"containers":[{{"name":"c","image":"i","env":{env}}}]}}}}}}}}"#,
        labels = json_object(keys, &format!("\"{val}\"")),
        fin = json_list(keys, |k| format!("\"{k}\"")),
        env = json_list(keys, |k| format!(r#"{{"name":"{k}","value":"{val}"}}"#)),
    )
}

/// The cases: name and (original, patch-or-modified, current) documents.
fn cases(keys: &[String]) -> Vec<(&'static str, Vec<String>)> {
    let orig = deployment(keys, "a");
    let env_patch = |extra: &str| {
        format!(r#"{{"spec":{{"template":{{"spec":{{"containers":[{{"name":"c",{extra}}}]}}}}}}}}"#)
    };
    let mut rev: Vec<String> = keys.to_vec();
    rev.reverse();
    let strategy_orig = format!(r#"{{"spec":{{"strategy":{}}}}}"#, json_object(keys, "1"));
    let strategy_patch = format!(
        r#"{{"spec":{{"strategy":{{"$retainKeys":{}}}}}}}"#,
        json_list(&keys[..keys.len() / 2], |k| format!("\"{k}\""))
    );
    vec![
        (
            "apply env",
            vec![
                orig.clone(),
                env_patch(&format!(
                    "\"env\":{}",
                    json_list(keys, |k| format!(r#"{{"name":"{k}","value":"b"}}"#))
                )),
            ],
        ),
        (
            "apply $setElementOrder",
            vec![
                orig.clone(),
                env_patch(&format!(
                    "\"$setElementOrder/env\":{}",
                    json_list(&rev, |k| format!(r#"{{"name":"{k}"}}"#))
                )),
            ],
        ),
        (
            "apply labels",
            vec![
                orig.clone(),
                format!(
                    r#"{{"metadata":{{"labels":{}}}}}"#,
                    json_object(keys, "\"b\"")
                ),
            ],
        ),
        (
            "apply $deleteFromPrimitiveList",
            vec![
                orig.clone(),
                format!(
                    r#"{{"metadata":{{"$deleteFromPrimitiveList/finalizers":{}}}}}"#,
                    json_list(&rev, |k| format!("\"{k}\""))
                ),
            ],
        ),
        ("apply $retainKeys", vec![strategy_orig, strategy_patch]),
        ("create2", vec![orig.clone(), deployment(keys, "b")]),
        (
            "create3",
            vec![orig.clone(), deployment(keys, "b"), orig.clone()],
        ),
        ("parse wide object", vec![json_object(keys, "1")]),
    ]
}

fn run(name: &str, docs: &[String]) -> f64 {
    let schema = smpatch_schema::embedded();
    let cursor = schema.cursor("apps/v1/Deployment").unwrap();
    let arena = Arena::new();
    let opts = ParseOptions::default();
    let t = Instant::now();
    let v: Vec<_> = docs
        .iter()
        .map(|d| parse_json(&arena, d.as_bytes(), &opts).unwrap())
        .collect();
    let parsed = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let kind = match (name, v.len()) {
        ("create2", _) => ops::Kind::Create2,
        ("create3", _) => ops::Kind::Create3,
        (_, 1) => return parsed,
        _ => ops::Kind::Apply,
    };
    let out = ops::engine(&arena, kind, &v, cursor, &ops::Opts::default());
    let took = t.elapsed().as_secs_f64();
    std::hint::black_box(out);
    took
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let flood = fx_colliding_keys(n);
    let plain = ordinary_keys(n);
    println!("n = {n}: seconds (colliding keys / ordinary keys = ratio)");
    for ((name, f), (_, p)) in cases(&flood).into_iter().zip(cases(&plain)) {
        // The best of three runs each (the first pays page faults).
        let best = |docs: &[String]| (0..3).map(|_| run(name, docs)).fold(f64::MAX, f64::min);
        let tf = best(&f);
        let tp = best(&p);
        println!("{name:32} {tf:9.4} / {tp:9.4} = {:7.1}x", tf / tp);
    }
}
