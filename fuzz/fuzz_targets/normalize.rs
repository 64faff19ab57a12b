//! Union normalization and validation (KEP-1027, through the facade's
//! `normalize_json` / `validate_json` and the batch `normalize` op) on
//! arbitrary old/new objects of the `testdata/unions/` schemas: unions of
//! both declaration formats, directly, in a keyed list, a map and a
//! positional list (smpatch-testkit's `union_host`). Byte 0 picks the
//! schema and options; then old (or none, a create) and new.
//!
//! Laws checked: never a panic; normalization is idempotent (a second pass
//! clears nothing); after a discriminator change the top-level `src` union
//! holds at most the selected member and validation reports no V3/V5 for
//! it; the batch op answers `ok` with the same object or a `validation`
//! error with the same violations as the facade.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value as J};
use smpatch::batch::{handle_line, BatchState};
use smpatch::{normalize_json, validate_json, Rule, Schema, TypeRef, UnionOptions};
use smpatch_testkit::{union_host, Unstructured};
use std::sync::OnceLock;

const FILES: [(&str, bool, &str); 4] = [
    ("fieldMembers.v2.json", false, include_str!("../../testdata/unions/fieldMembers.v2.json")),
    ("fieldMembers.v3.json", false, include_str!("../../testdata/unions/fieldMembers.v3.json")),
    ("struct-level.v2.json", true, include_str!("../../testdata/unions/struct-level.v2.json")),
    ("struct-level.v3.json", true, include_str!("../../testdata/unions/struct-level.v3.json")),
];

fn schemas() -> &'static [Schema] {
    static S: OnceLock<Vec<Schema>> = OnceLock::new();
    S.get_or_init(|| {
        FILES
            .iter()
            .map(|(name, _, text)| Schema::from_bytes(text.as_bytes(), name).expect("test schema loads"))
            .collect()
    })
}

fn disc(v: Option<&J>) -> Option<&str> {
    v.and_then(|v| v.get("type")).and_then(J::as_str)
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(flags) = u.arbitrary::<u8>() else {
        return;
    };
    let which = usize::from(flags & 3);
    let (file, struct_level, _) = FILES[which];
    let schema = &schemas()[which];
    let opts = UnionOptions {
        non_discriminated_update: flags & 4 != 0,
        ratcheting: flags & 8 != 0,
        check_enums: flags & 16 == 0,
        ..UnionOptions::default()
    };
    let old = if flags & 32 != 0 { union_host(&mut u).ok() } else { None };
    let Ok(new) = union_host(&mut u) else {
        return;
    };
    let ty = TypeRef::Definition("com.example.Host".into());
    let once = normalize_json(old.as_ref(), &new, schema, &ty, &opts).expect("normalize never fails here");
    let twice = normalize_json(old.as_ref(), &once.object, schema, &ty, &opts).expect("normalize");
    assert_eq!(twice.object, once.object, "idempotent");
    assert!(twice.cleared.is_empty(), "a second pass cleared {:?}", twice.cleared);
    let found = validate_json(old.as_ref(), &once.object, schema, &ty, &opts).expect("validate");

    // The top-level union after a discriminator change.
    let (o, n) = (disc(old.as_ref().and_then(|o| o.get("src"))), disc(new.get("src")));
    let acted = if struct_level {
        o != n && matches!(n, Some("Git" | "Http"))
    } else {
        new.get("src").is_some() && o.unwrap_or("") != n.unwrap_or("")
    };
    if acted {
        let src = &once.object["src"];
        let selected = match n { Some("Git") => "git", Some("Http") => "http", _ => "" };
        for m in ["git", "http"] {
            assert!(m == selected || src.get(m).is_none_or(J::is_null), "{m} left after type {n:?}");
        }
        for v in &found {
            let mine = v.path == "/src" || v.path.starts_with("/src/");
            assert!(!(mine && matches!(v.rule, Rule::V3 | Rule::V5)), "{v}");
        }
    }

    // The batch op agrees with the facade.
    let path = format!("{}/../testdata/unions/{file}", env!("CARGO_MANIFEST_DIR"));
    let mut request = json!({"id": 1, "op": "normalize", "new": new,
        "schema": {"file": path, "definition": "com.example.Host"},
        "options": {"non_discriminated_update": opts.non_discriminated_update,
                    "ratcheting": opts.ratcheting, "check_enums": opts.check_enums}});
    if let Some(o) = &old {
        request["old"] = o.clone();
    }
    let mut state = BatchState::new();
    let answer: J = serde_json::from_str(&handle_line(&mut state, &request.to_string())).expect("JSON answer");
    if found.is_empty() {
        assert_eq!(answer["ok"], once.object);
        assert_eq!(answer["cleared"], json!(once.cleared));
    } else {
        assert_eq!(answer["error"]["kind"], "validation");
        assert_eq!(answer["error"]["violations"].as_array().map(Vec::len), Some(found.len()));
    }
});
