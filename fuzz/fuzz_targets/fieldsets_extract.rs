//! Field sets of objects and extraction (smpatch-fieldsets, KEP-2155) on
//! arbitrary JSON: byte 0 picks the embedded type (ConfigMap, Service,
//! Deployment, Pod); the rest is the live object, whose managedFields may be
//! anything.
//!
//! Laws checked: never a panic; every error carries a JSON pointer (into the
//! object or its managedFields); `fields_of` in both shapes, `owners`, and
//! `extract` for every manager named in the object (and one that is not) in
//! the default and the reference modes; an extracted configuration is an
//! object with an object `metadata` and the live apiVersion and kind.
#![no_main]
use libfuzzer_sys::fuzz_target;
use smpatch_fieldsets::{
    extract, fields_of, managed_fields, owners, ExtractOptions, FieldsOptions,
};
use smpatch_value::{parse_json, Arena, ParseOptions};

const TYPES: [&str; 4] = ["v1/ConfigMap", "v1/Service", "apps/v1/Deployment", "v1/Pod"];

fn pointer_ok(p: &str) -> bool {
    p.is_empty() || p.starts_with('/')
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let schema = smpatch_schema::embedded();
    let Some(cursor) = schema.cursor(TYPES[usize::from(pick) % TYPES.len()]) else {
        return;
    };
    let arena = Arena::new();
    let Ok(obj) = parse_json(&arena, rest, &ParseOptions::default()) else {
        return;
    };
    for opts in [FieldsOptions::default(), FieldsOptions::update_on_create()] {
        if let Err(e) = fields_of(&obj, cursor, &opts) {
            assert!(pointer_ok(e.path()), "{e:?}");
        }
    }
    let _ = owners(&obj);
    let Ok(entries) = managed_fields(&obj) else {
        return;
    };
    let mut managers: Vec<&str> = entries.iter().map(|e| e.manager).collect();
    managers.push("nobody");
    for m in managers {
        for opts in [ExtractOptions::default(), ExtractOptions::reference()] {
            match extract(&arena, &obj, cursor, m, &opts) {
                Err(e) => assert!(pointer_ok(e.path()), "{e:?}"),
                Ok(cfg) => {
                    let top = cfg.as_object().expect("an extracted configuration is an object");
                    for k in ["apiVersion", "kind"] {
                        if let Some(smpatch_value::Value::String(s)) = obj.get(k) {
                            assert_eq!(top.get(k).and_then(|v| v.as_str()), Some(s));
                        }
                    }
                    assert!(top.get("metadata").is_some_and(|v| v.as_object().is_some()));
                }
            }
        }
    }
});
