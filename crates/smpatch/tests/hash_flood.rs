//! HashDoS: keys crafted to collide under an unkeyed hash (FxHash) give
//! the same results as ordinary keys, and no output depends on the
//! process's hash secret (see docs/RELIABILITY.md, "Hash flooding").
//!
//! The time side (colliding keys cost what ordinary keys cost) is the
//! `flood` criterion group in `benches/benches/scaling.rs`; tests are not
//! timed.

use smpatch::{
    apply_bytes, compose_bytes, create_three_way_bytes, create_two_way_bytes, fields_bytes,
    ApplyOptions, CreateOptions, OnConflict, ThreeWayDocs, TypeRef,
};
use smpatch_testkit::{fx_colliding_keys, json_list, json_object, ordinary_keys};
use std::process::Command;

const N: usize = 1500;

fn deployment(keys: &[String], val: &str) -> String {
    format!(
        r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"d","labels":{labels},"finalizers":{fin}}},"spec":{{"template":{{"spec":{{"containers":[{{"name":"c","image":"i","env":{env}}}]}}}}}}}}"#,
        labels = json_object(keys, &format!("\"{val}\"")),
        fin = json_list(keys, |k| format!("\"{k}\"")),
        env = json_list(keys, |k| format!(r#"{{"name":"{k}","value":"{val}"}}"#)),
    )
}

fn env_patch(extra: &str) -> String {
    format!(r#"{{"spec":{{"template":{{"spec":{{"containers":[{{"name":"c",{extra}}}]}}}}}}}}"#)
}

/// Every operation that indexes the keys, one output per line.
fn outputs(keys: &[String]) -> Vec<String> {
    let schema = smpatch::embedded_schema().expect("schema");
    let ty = TypeRef::Gvk("apps/v1/Deployment".into());
    let (ao, co) = (ApplyOptions::default(), CreateOptions::default());
    let orig = deployment(keys, "a");
    let modified = deployment(keys, "b");
    let half = &keys[..keys.len() / 2];
    let mut rev = keys.to_vec();
    rev.reverse();
    let apply = |p: String| apply_bytes(orig.as_bytes(), p.as_bytes(), schema, &ty, &ao);
    let results = vec![
        apply(env_patch(&format!(
            "\"env\":{}",
            json_list(half, |k| format!(r#"{{"name":"{k}","value":"b"}}"#))
        ))),
        apply(env_patch(&format!(
            "\"$setElementOrder/env\":{}",
            json_list(&rev, |k| format!(r#"{{"name":"{k}"}}"#))
        ))),
        apply(format!(
            r#"{{"metadata":{{"labels":{}}}}}"#,
            json_object(half, "null")
        )),
        apply(format!(
            r#"{{"metadata":{{"$deleteFromPrimitiveList/finalizers":{}}}}}"#,
            json_list(half, |k| format!("\"{k}\""))
        )),
        apply_bytes(
            format!(r#"{{"spec":{{"strategy":{}}}}}"#, json_object(keys, "1")).as_bytes(),
            format!(
                r#"{{"spec":{{"strategy":{{"$retainKeys":{}}}}}}}"#,
                json_list(half, |k| format!("\"{k}\""))
            )
            .as_bytes(),
            schema,
            &ty,
            &ao,
        ),
        create_two_way_bytes(orig.as_bytes(), modified.as_bytes(), schema, &ty, &co),
        create_three_way_bytes(
            ThreeWayDocs::new(
                orig.as_bytes(),
                modified.as_bytes(),
                deployment(half, "c").as_bytes(),
            ),
            schema,
            &ty,
            OnConflict::Overwrite,
            &co,
        ),
        compose_bytes(
            env_patch(&format!(
                "\"env\":{}",
                json_list(keys, |k| format!(r#"{{"name":"{k}","value":"x"}}"#))
            ))
            .as_bytes(),
            env_patch(&format!(
                "\"env\":{}",
                json_list(&rev, |k| format!(r#"{{"name":"{k}","$patch":"delete"}}"#))
            ))
            .as_bytes(),
            schema,
            &ty,
            &co,
        ),
        fields_bytes(orig.as_bytes(), schema, &ty, &Default::default()),
    ];
    results
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            String::from_utf8(r.unwrap_or_else(|e| panic!("case {i}: {e}"))).expect("utf8")
        })
        .collect()
}

/// Both key sets sorted, so that a sort by key ranks them alike and the
/// renaming below maps one output onto the other.
fn key_sets() -> (Vec<String>, Vec<String>) {
    let mut flood = fx_colliding_keys(N);
    let mut plain = ordinary_keys(N);
    flood.sort();
    plain.sort();
    (flood, plain)
}

#[test]
fn colliding_keys_give_the_results_of_ordinary_keys() {
    let (flood, plain) = key_sets();
    let f = outputs(&flood);
    let p = outputs(&plain);
    for (i, (f, p)) in f.iter().zip(&p).enumerate() {
        let mut renamed = f.clone();
        for (a, b) in flood.iter().zip(&plain) {
            renamed = renamed.replace(a.as_str(), b);
        }
        assert!(
            renamed == *p,
            "case {i} differs: {} vs {}",
            &renamed[..200.min(renamed.len())],
            &p[..200.min(p.len())]
        );
        assert!(f.len() > 100, "case {i}: {f}");
    }
}

const CHILD: &str = "SMPATCH_TEST_HASH_SEED";

/// Run by [`outputs_do_not_depend_on_the_hash_secret`] in a child process
/// under a fixed secret; does nothing otherwise.
#[test]
fn child_outputs_under_a_fixed_secret() {
    let Ok(seed) = std::env::var(CHILD) else {
        return;
    };
    let seed: u64 = seed.parse().expect("seed");
    assert!(
        smpatch_value::hashing::set_seed_for_tests(seed),
        "a hash was taken before"
    );
    let (flood, plain) = key_sets();
    // The harness wrote "test NAME ... " on this line.
    println!();
    for text in KEYLESS_VALUES {
        let arena = smpatch_value::Arena::new();
        let opts = smpatch_value::ParseOptions::default();
        let v = smpatch_value::parse_json(&arena, text.as_bytes(), &opts).expect("json");
        println!("HASH {:016x}", v.deep_hash());
    }
    for out in outputs(&flood).into_iter().chain(outputs(&plain)) {
        println!("OUT {out}");
    }
}

/// Values with no string or number in them: their deep hashes must still
/// depend on the secret (a review found `[null,true,false]`-style merge
/// keys hashing alike in every process, a flood needing no secret).
const KEYLESS_VALUES: [&str; 6] = [
    "null",
    "true",
    "[true,false,null]",
    "[[],[null]]",
    "{}",
    "[{},{}]",
];

#[test]
fn outputs_do_not_depend_on_the_hash_secret() {
    let run = |seed: u64| {
        let out = Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "child_outputs_under_a_fixed_secret",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, seed.to_string())
            .output()
            .expect("run the child");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("utf8");
        let lines = |prefix: &str| -> Vec<String> {
            text.lines()
                .filter(|l| l.starts_with(prefix))
                .map(str::to_owned)
                .collect()
        };
        let (outs, hashes) = (lines("OUT "), lines("HASH "));
        assert_eq!(outs.len(), 18, "{} bytes of output", text.len());
        assert_eq!(hashes.len(), KEYLESS_VALUES.len());
        (outs, hashes)
    };
    let (a, hash_a) = run(1);
    let (b, hash_b) = run(0xdead_beef_0bad_cafe);
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(x == y, "output {i} depends on the hash secret");
    }
    for ((x, y), text) in hash_a.iter().zip(&hash_b).zip(KEYLESS_VALUES) {
        assert!(
            x != y,
            "the deep hash of {text} is the same under two secrets"
        );
    }
    // And this process's random secret.
    let (flood, plain) = key_sets();
    let here: Vec<String> = outputs(&flood)
        .into_iter()
        .chain(outputs(&plain))
        .map(|o| format!("OUT {o}"))
        .collect();
    assert!(here == a, "outputs under the random secret differ");
}
