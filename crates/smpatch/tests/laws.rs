//! Algebraic laws (each stated at its test) through the facade, with proptest over the
//! generators of smpatch-testkit (shared with the fuzz targets):
//! parse/serialize round trips of the value crate, and the apply/create
//! laws I1, I3, I5, I6 on well-formed documents of the conformance
//! `mergeItem` schema with `fix_quirks`. (crates/patch-create/tests/laws.rs
//! states I1 and I4 on the widget schema.) Fixed case count: 256 each.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

mod common;

use proptest::prelude::*;
use serde_json::json;
use smpatch::{ApplyOptions, CreateOptions, OnConflict, ThreeWayDocs};
use smpatch_value::{
    from_serde, parse_json, parse_yaml, to_json_pretty, to_json_string, to_serde, to_yaml_string,
    Arena, ParseOptions, Value,
};

fn fixed() -> (ApplyOptions, CreateOptions) {
    (
        ApplyOptions::default().with_fix_quirks(true),
        CreateOptions::default().with_fix_quirks(true),
    )
}

/// Equality where numbers compare by their `f64` value (the YAML writer's
/// documented change, as in kubectl: `1.0` reads back as `1`, and a float
/// such as `-9.223372036854776e18` reads back as the integer literal
/// `-9223372036854776000`, which no serde_json number holds, so the
/// comparison stays on arena values). Inputs are shallow.
fn same_up_to_number_kind(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(x, y)| same_up_to_number_kind(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_up_to_number_kind(&v, &w)))
        }
        _ => a.deep_eq(b),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// What parses serializes and re-parses to an equal value; the compact
    /// writer is a fixed point; serde_json conversion round-trips.
    #[test]
    fn json_round_trip(v in common::json()) {
        let arena = Arena::new();
        let opts = ParseOptions::default();
        let value = from_serde(&arena, &v, 256).unwrap();
        let compact = to_json_string(&value);
        let back = parse_json(&arena, arena.alloc_str(&compact).as_bytes(), &opts).unwrap();
        prop_assert!(value.deep_eq(&back), "{}", compact);
        prop_assert_eq!(to_json_string(&back), compact.clone());
        let pretty = to_json_pretty(&value);
        let back = parse_json(&arena, arena.alloc_str(&pretty).as_bytes(), &opts).unwrap();
        prop_assert!(value.deep_eq(&back));
        prop_assert_eq!(to_serde(&back).unwrap(), v);
    }

    /// The YAML writer's output reads back as the same value (floats with an
    /// integral value come back as integers, as documented).
    #[test]
    fn yaml_round_trip(v in common::json()) {
        prop_assume!(!v.is_null()); // `null` is no document
        let arena = Arena::new();
        let value = from_serde(&arena, &v, 256).unwrap();
        let yaml = to_yaml_string(&value);
        let docs = parse_yaml(&arena, arena.alloc_str(&yaml), &ParseOptions::default())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))?;
        prop_assert_eq!(docs.len(), 1);
        prop_assert!(
            same_up_to_number_kind(&docs[0], &value),
            "{}\nread back as {}",
            yaml,
            to_json_string(&docs[0])
        );
    }

    /// Parsing arbitrary bytes never panics and gives a value or an error.
    #[test]
    fn parse_never_panics(b in prop::collection::vec(any::<u8>(), 0..256)) {
        let arena = Arena::new();
        let _ = parse_json(&arena, &b, &ParseOptions::default());
        if let Ok(s) = std::str::from_utf8(&b) {
            let _ = parse_yaml(&arena, s, &ParseOptions::default());
        }
    }

    /// I1: `apply(a, two_way(a, b)) == b`, and I3: applying the patch again
    /// changes nothing.
    #[test]
    fn two_way_round_trip_and_idempotence(a in common::doc(), b in common::doc()) {
        let Some(schema) = common::merge_item() else { return Ok(()) };
        let (aopts, copts) = fixed();
        let p = smpatch::create_two_way_json(&a, &b, schema, &common::ty(), &copts).unwrap();
        let r = smpatch::apply_json(&a, &p, schema, &common::ty(), &aopts)
            .map_err(|e| TestCaseError::fail(format!("{e}; patch {p}")))?;
        prop_assert_eq!(&r, &b, "patch {}", p);
        let again = smpatch::apply_json(&r, &p, schema, &common::ty(), &aopts).unwrap();
        prop_assert_eq!(again, r, "patch {}", p);
    }

    /// I5: `three_way(o, m, o)` applied to `o` equals `two_way(o, m)` applied
    /// to `o`, and never reports a conflict.
    #[test]
    fn three_way_on_unchanged_current(o in common::doc(), m in common::doc()) {
        let Some(schema) = common::merge_item() else { return Ok(()) };
        let (aopts, copts) = fixed();
        let ty = common::ty();
        let p3 = smpatch::create_three_way_json(ThreeWayDocs::new(&o, &m, &o), schema, &ty, OnConflict::Fail, &copts)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let p2 = smpatch::create_two_way_json(&o, &m, schema, &ty, &copts).unwrap();
        let r3 = smpatch::apply_json(&o, &p3, schema, &ty, &aopts).unwrap();
        let r2 = smpatch::apply_json(&o, &p2, schema, &ty, &aopts).unwrap();
        prop_assert_eq!(r3, r2, "three-way {} two-way {}", p3, p2);
    }

    /// I6 (with fixes): `conflicts(p, {}) == false` and `conflicts(p, p) == false`.
    #[test]
    fn patches_do_not_conflict_with_themselves(a in common::doc(), b in common::doc()) {
        let Some(schema) = common::merge_item() else { return Ok(()) };
        let (_, copts) = fixed();
        let ty = common::ty();
        let p = smpatch::create_two_way_json(&a, &b, schema, &ty, &copts).unwrap();
        let empty = json!({});
        let with_empty = smpatch::conflicts_json(&p, &empty, schema, &ty, &copts).unwrap();
        prop_assert!(!with_empty, "patch {}", p);
        let c = smpatch::conflicts_json(&p, &p, schema, &ty, &copts)
            .map_err(|e| TestCaseError::fail(format!("{e}; patch {p}")))?;
        prop_assert!(!c, "patch {}", p);
    }
}

/// The case proptest found: a float whose Go JSON form is an integer literal
/// beyond `i64` must still read back (as that literal) from the YAML writer.
#[test]
fn yaml_round_trip_of_a_float_beyond_i64() {
    let arena = Arena::new();
    let v = from_serde(&arena, &json!([-9.223372036854776e18, 1.0e300, 1.5]), 256).unwrap();
    let yaml = to_yaml_string(&v);
    let docs = parse_yaml(&arena, arena.alloc_str(&yaml), &ParseOptions::default()).unwrap();
    assert!(same_up_to_number_kind(&docs[0], &v), "{yaml}");
}
