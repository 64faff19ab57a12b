//! Apply and create never change their inputs (STYLE.md rule 11): every
//! facade call — apply, create2, create3 (with and without overwrite),
//! conflicts, on serde_json values and on bytes — and the compose
//! functions of the engine crates are run on fingerprinted inputs, which
//! must be byte-for-byte the same afterwards, on success and on error.
//! Inputs: generated documents and directive-rich patches (many of them
//! errors) plus a fixed list of error cases.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

mod common;

use proptest::prelude::*;
use serde_json::{json, Value as J};
use smpatch::{ApplyOptions, CreateOptions, OnConflict, Schema, ThreeWayDocs, TypeRef};
use smpatch_value::{from_serde, to_json_string, Arena};

/// The serialized form, key order included.
fn fingerprint(v: &J) -> String {
    serde_json::to_string(v).unwrap()
}

/// Runs every call on the three documents and checks none changed. Returns
/// how many calls failed (to show error paths were exercised).
fn check_all(schema: &Schema, ty: &TypeRef, a: &J, b: &J, c: &J) -> usize {
    let before = [fingerprint(a), fingerprint(b), fingerprint(c)];
    let (ab, bb, cb) = (
        a.to_string().into_bytes(),
        b.to_string().into_bytes(),
        c.to_string().into_bytes(),
    );
    let bytes_before = [ab.clone(), bb.clone(), cb.clone()];
    let mut errors = 0;
    let mut count = |ok: bool| errors += usize::from(!ok);
    for fix_quirks in [false, true] {
        let aopts = ApplyOptions::default().with_fix_quirks(fix_quirks);
        let copts = CreateOptions::default().with_fix_quirks(fix_quirks);
        count(smpatch::apply_json(a, b, schema, ty, &aopts).is_ok());
        count(smpatch::apply_bytes(&ab, &bb, schema, ty, &aopts).is_ok());
        count(smpatch::create_two_way_json(a, b, schema, ty, &copts).is_ok());
        count(smpatch::create_two_way_bytes(&ab, &bb, schema, ty, &copts).is_ok());
        for overwrite in [OnConflict::Fail, OnConflict::Overwrite] {
            count(
                smpatch::create_three_way_json(
                    ThreeWayDocs::new(a, b, c),
                    schema,
                    ty,
                    overwrite,
                    &copts,
                )
                .is_ok(),
            );
            count(
                smpatch::create_three_way_bytes(
                    ThreeWayDocs::new(&ab, &bb, &cb),
                    schema,
                    ty,
                    overwrite,
                    &copts,
                )
                .is_ok(),
            );
        }
        count(smpatch::conflicts_json(a, b, schema, ty, &copts).is_ok());
        count(smpatch::conflicts_bytes(&ab, &bb, schema, ty, &copts).is_ok());
        // Composition lives in the engine crates (no facade entry yet): run it
        // on arena values built from the same documents.
        let arena = Arena::new();
        if let (Ok(x), Ok(y)) = (from_serde(&arena, a, 256), from_serde(&arena, b, 256)) {
            let (xs, ys) = (to_json_string(&x), to_json_string(&y));
            let cursor = schema
                .cursor("mergeItem")
                .unwrap_or(smpatch::Cursor::UNKNOWN);
            count(smpatch_patch_create::compose(&arena, x, y, cursor, &copts).is_ok());
            count(smpatch_patch_apply::compose_patches(&arena, x, y, cursor, &aopts).is_ok());
            assert_eq!(
                (to_json_string(&x), to_json_string(&y)),
                (xs, ys),
                "compose changed its input"
            );
        }
    }
    assert_eq!(
        [fingerprint(a), fingerprint(b), fingerprint(c)],
        before,
        "a call changed its serde_json input"
    );
    assert_eq!([ab, bb, cb], bytes_before, "a call changed its byte input");
    errors
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    /// Documents with directive-rich patches (often errors).
    #[test]
    fn inputs_unchanged_with_patches(a in common::doc(), p in common::patch(), c in common::patch()) {
        let Some(schema) = common::merge_item() else { return Ok(()) };
        check_all(schema, &common::ty(), &a, &p, &c);
    }

    /// Well-formed documents (mostly successes, three-way conflicts).
    #[test]
    fn inputs_unchanged_with_documents(a in common::doc(), b in common::doc(), c in common::doc()) {
        let Some(schema) = common::merge_item() else { return Ok(()) };
        check_all(schema, &common::ty(), &a, &b, &c);
    }
}

/// Fixed error paths: every call fails, and still nothing changes.
#[test]
fn inputs_unchanged_on_errors() {
    let Some(schema) = common::merge_item() else {
        return;
    };
    let ty = common::ty();
    let original = json!({"mergingList": [{"name": "a", "value": "1"}], "simpleMap": {"k": "v"}});
    let bad: Vec<J> = vec![
        json!({"mergingList": [{"value": "no merge key"}]}),
        json!({"$patch": "frobnicate"}),
        json!({"retainKeysMap": {"$retainKeys": "name"}}),
        json!({"$setElementOrder/mergingList": [{"name": "x"}], "mergingList": [{"name": "y"}]}),
        json!({"mergingIntList": [1, {"a": 1}]}),
        json!([1, 2, 3]),
        json!("not an object"),
    ];
    let mut errors = 0;
    for p in &bad {
        errors += check_all(schema, &ty, &original, p, p);
        errors += check_all(schema, &ty, p, &original, &original);
    }
    // An unknown type fails every facade call.
    let unknown = TypeRef::Definition("NoSuchType".into());
    errors += check_all(schema, &unknown, &original, &original, &original);
    assert!(
        errors > 100,
        "the error paths were not exercised ({errors} errors)"
    );
}
