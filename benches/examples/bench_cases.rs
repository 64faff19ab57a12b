//! Prints the small and the large Deployment patch cases of the benches as
//! JSON lines (`label`, `original`, `patch`, `modified`, `current`, each a
//! JSON document), for benchmarks outside Rust
//! (bindings/python/bench/bench.py) to time the same inputs.

fn main() {
    for case in [
        smpatch_benches::case_image_bump(),
        smpatch_benches::case_deployment_50(),
    ] {
        let line = serde_json::json!({
            "label": case.label,
            "original": case.original,
            "patch": case.patch,
            "modified": case.modified,
            "current": case.current,
        });
        println!("{line}");
    }
}
