//! The options of the union pass through the binary: the cases of
//! `testdata/unions/options.json` (shared with the facade, batch and Python
//! tests) through `patch --normalize-unions` and `validate` with the flags
//! `--ratcheting`, `--check-enums[=BOOL]` / `--no-enums`,
//! `--non-discriminated-update` and `--max-depth`; the flags' errors; and
//! depth: too deep is `too_deep` naming the pointer and the limit, a deep
//! document within a raised limit walks without overflowing the stack.

#![allow(clippy::unwrap_used)] // tests may unwrap (clippy.toml: allow-unwrap-in-tests)

mod common;

use common::{root, run as smpatch};
use serde_json::{json, Value as J};
use std::path::PathBuf;

const SCHEMA: &str = "testdata/unions/fieldMembers.v2.json";

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("smpatch-cli-union-options-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The flags for a case's options; `no_enums` spells `check_enums: false`
/// as `--no-enums` instead of `--check-enums=false`.
fn flags(o: &J, no_enums: bool) -> Vec<String> {
    let mut out = Vec::new();
    if o["ratcheting"] == json!(true) {
        out.push("--ratcheting".to_owned());
    }
    match o["check_enums"].as_bool() {
        Some(false) if no_enums => out.push("--no-enums".to_owned()),
        Some(b) => out.push(format!("--check-enums={b}")),
        None => {}
    }
    if o["non_discriminated_update"] == json!(true) {
        out.push("--non-discriminated-update".to_owned());
    }
    if let Some(d) = o["max_depth"].as_u64() {
        out.extend(["--max-depth".to_owned(), d.to_string()]);
    }
    out
}

fn cases() -> Vec<J> {
    let text = std::fs::read_to_string(root().join("testdata/unions/options.json")).unwrap();
    let doc: J = serde_json::from_str(&text).unwrap();
    doc["cases"].as_array().unwrap().clone()
}

#[test]
fn every_case_through_patch_normalize_unions_and_validate() {
    for (i, c) in cases().iter().enumerate() {
        let name = c["name"].as_str().unwrap();
        let expect = &c["expect"];
        let live = scratch(&format!("live-{i}.json"));
        std::fs::write(&live, c["live"].to_string()).unwrap();
        let live = live.to_str().unwrap().to_owned();
        let patch = c["patch"].to_string();
        let base = [
            "patch",
            "-f",
            &live,
            "--schema",
            SCHEMA,
            "--type-name",
            "com.example.Host",
            "-p",
            &patch,
        ];
        for no_enums in [false, true] {
            let extra = flags(&c["options"], no_enums);
            let mut args: Vec<&str> = base.to_vec();
            args.push("--normalize-unions");
            args.extend(extra.iter().map(String::as_str));
            let (code, out, err) = smpatch(&args);
            if let Some(ok) = expect.get("ok") {
                assert_eq!(code, 0, "{name}: {err}");
                assert_eq!(&serde_json::from_str::<J>(&out).unwrap(), ok, "{name}");
                continue;
            }
            assert_eq!(code, 1, "{name}: {out}");
            assert!(
                err.contains(&format!("[{}]", expect["error"].as_str().unwrap())),
                "{name}: {err}"
            );
            for v in expect["violations"].as_array().into_iter().flatten() {
                let line = format!("\n  {}: ", v[0].as_str().unwrap());
                let rule = format!("({})\n", v[1].as_str().unwrap());
                assert!(err.contains(&line) && err.contains(&rule), "{name}: {err}");
            }
            if expect["error"] == "too_deep" {
                // The CLI reads documents with --max-depth too: the parser
                // stops first, at a line and column.
                let limit = c["options"]["max_depth"].as_u64().unwrap();
                assert!(err.contains(&format!("limit of {limit} ")), "{name}: {err}");
            }
        }
        // validate judges the merged object as written: where the pass
        // clears nothing, it answers what the pipeline does.
        let cleared_none = expect["cleared"].as_array().is_some_and(Vec::is_empty);
        if !(cleared_none || expect["error"] == "validation") {
            continue;
        }
        let (code, merged, err) = smpatch(&base);
        assert_eq!(code, 0, "{name}: {err}");
        let new = scratch(&format!("new-{i}.json"));
        std::fs::write(&new, merged).unwrap();
        let new = new.to_str().unwrap().to_owned();
        let extra = flags(&c["options"], false);
        let mut args = vec![
            "validate",
            "-f",
            &new,
            "--old",
            &live,
            "--schema",
            SCHEMA,
            "--type-name",
            "com.example.Host",
            "-o",
            "json",
        ];
        args.extend(extra.iter().map(String::as_str));
        let (code, out, err) = smpatch(&args);
        let v: J = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{name}: {err}"));
        let found: Vec<J> = v["documents"][0]["violations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| json!([v["path"], v["rule"]]))
            .collect();
        match expect.get("violations") {
            Some(want) => {
                assert_eq!(code, 1, "{name}");
                assert_eq!(&J::from(found), want, "validate: {name}");
            }
            None => assert_eq!((code, found.len()), (0, 0), "validate: {name}"),
        }
    }
}

#[test]
fn union_flags_need_the_union_pass_and_agree() {
    let base = [
        "patch",
        "-f",
        "testdata/unions/k8s/plc-limited.yaml",
        "-p",
        r#"{"spec":{}}"#,
    ];
    for flag in [
        "--ratcheting",
        "--no-enums",
        "--check-enums=false",
        "--non-discriminated-update",
    ] {
        let mut args = base.to_vec();
        args.push(flag);
        let (code, _, err) = smpatch(&args);
        let name = flag.split('=').next().unwrap();
        assert_eq!(code, 1, "{flag}");
        assert!(
            err.contains(&format!("{name}: is an option of the union pass")),
            "{flag}: {err}"
        );
        args.push("--normalize-unions");
        let (code, _, err) = smpatch(&args);
        assert_eq!(code, 0, "{flag}: {err}");
    }
    // --no-enums and --check-enums say the same thing two ways: not both.
    let (code, _, err) = smpatch(&[
        "validate",
        "-f",
        "testdata/unions/k8s/plc-limited.yaml",
        "--no-enums",
        "--check-enums",
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = smpatch(&[
        "validate",
        "-f",
        "testdata/unions/k8s/plc-limited.yaml",
        "--check-enums=maybe",
    ]);
    assert_eq!(code, 2, "{err}");
}

/// `depth` levels of a union that nests in itself, as JSON text.
fn chain(depth: usize) -> String {
    format!(
        "{}{{\"type\":\"B\",\"b\":{{}}}}{}",
        "{\"type\":\"A\",\"a\":".repeat(depth - 1),
        "}".repeat(depth - 1)
    )
}

#[test]
fn depth_is_too_deep_with_pointer_and_limit_and_never_a_crash() {
    let schema = scratch("recursive.json");
    let doc = json!({"swagger": "2.0", "definitions": {"Node": {"type": "object", "properties": {
        "type": {"type": "string", "enum": ["A", "B", ""],
            "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a", "optional": true},
                "B": {"name": "b", "optional": true}, "": null}}},
        "a": {"$ref": "#/definitions/Node"}, "b": {"$ref": "#/definitions/Node"}}}}});
    std::fs::write(&schema, doc.to_string()).unwrap();
    let schema = schema.to_str().unwrap().to_owned();
    let write = |name: &str, depth: usize| {
        let p = scratch(name);
        std::fs::write(&p, chain(depth)).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let (deep, deeper) = (write("deep.json", 300), write("deeper.json", 20_000));
    // patch prints the object indented: 20,000 levels would be 800 MB.
    let patched = write("patched.json", 2_000);
    let ty = ["--schema", &schema, "--type-name", "Node"];
    let validate = |file: &str, more: &[&str]| {
        let mut args = vec!["validate", "-f", file];
        args.extend(ty);
        args.extend(more);
        smpatch(&args)
    };
    let patch = |file: &str, more: &[&str]| {
        let mut args = vec![
            "patch",
            "-f",
            file,
            "-p",
            r#"{"type":"A"}"#,
            "--normalize-unions",
        ];
        args.extend(ty);
        args.extend(more);
        smpatch(&args)
    };
    // The default limit (256): the parser's too_deep, line and column.
    let (code, _, err) = validate(&deep, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("256") && err.contains("[too_deep]"), "{err}");
    let (code, _, err) = patch(&deep, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("256") && err.contains("[too_deep]"), "{err}");
    // Lowered: the documents are read with --max-depth too.
    let (code, _, err) = validate(&deep, &["--max-depth", "5"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("deep.json:1:81: ") && err.contains("limit of 5 "),
        "{err}"
    );
    // Raised: walked all the way, even 20,000 levels deep.
    let (code, _, err) = validate(&deep, &["--max-depth", "1000"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = validate(&deeper, &["--max-depth", "30000"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = patch(&patched, &["--max-depth", "30000"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("\"type\": \"A\"").count(), 1_999);
}
