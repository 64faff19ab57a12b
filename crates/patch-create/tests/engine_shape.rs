//! Issue 9 (one engine shape): compose refuses a malformed patch with the
//! error apply gives where the document holds the field (one patch check,
//! `smpatch_patch_apply::check_patch`, over the same rules as the merge), and
//! every engine honours `max_depth` above the default.
#![allow(clippy::unwrap_used)] // test helpers: a failure is a test failure

use serde_json::{json, Value as J};
use smpatch_patch_apply::{apply, check_composable, check_patch, ApplyOptions, Error, ErrorKind};
use smpatch_patch_create::{
    compose, conflicts, create_three_way, create_two_way, CreateOptions, OnConflict, ThreeWay,
};
use smpatch_schema::{Cursor, Schema};
use smpatch_value::{from_serde, Arena};

/// The shared conformance `mergeItem` schema; `None` when the shared suite
/// is absent (the tests using it skip, after testkit's notice).
fn merge_item_schema() -> Option<Schema> {
    let p = smpatch_testkit::shared_path("conformance/schemas/merge-item.v2.json")?;
    Some(Schema::load_path(p).unwrap())
}

/// `(doc, patch, same_message)`: apply fails on `doc`; compose must fail on
/// the patch (either side) with apply's kind and path, and its message when
/// the message does not depend on the document.
fn cases() -> Vec<(J, J, bool)> {
    vec![
        (
            json!({"mergingList": [{"name": "a"}]}),
            json!({"mergingList": [{"name": "a", "$patch": "merge"}]}),
            true,
        ),
        (
            json!({"mergeItemPtr": {"value": "x"}}),
            json!({"mergeItemPtr": {"$patch": null, "value": "a"}}),
            true,
        ),
        (
            json!({"mergingList": [{"name": "a"}]}),
            json!({"mergingList": [{"value": "x"}]}),
            true,
        ),
        (
            json!({"mergingList": [{"name": "a"}]}),
            json!({"mergingList": [{"name": "a"}, {"name": "b"}],
                   "$setElementOrder/mergingList": [{"name": "b"}, {"name": "a"}]}),
            true,
        ),
        (
            json!({}),
            json!({"$retainKeys": ["value"], "other": "x"}),
            true,
        ),
        (json!({}), json!({"$retainKeys": "value"}), true),
        (
            json!({"mergingList": [{"name": "a"}]}),
            json!({"$setElementOrder/mergingList": ["a"]}),
            true,
        ),
        (
            json!({"mergingIntList": [2]}),
            json!({"mergingIntList": [1, "a"]}),
            false,
        ),
    ]
}

#[test]
fn compose_refuses_with_apply_error() {
    let Some(schema) = merge_item_schema() else {
        return;
    };
    let cursor = schema.cursor("mergeItem").unwrap();
    let arena = Arena::new();
    for (doc, patch, same_message) in cases() {
        let d = from_serde(&arena, &doc, 256).unwrap();
        let p = from_serde(&arena, &patch, 256).unwrap();
        let empty = from_serde(&arena, &json!({}), 256).unwrap();
        let want: Error = apply(&arena, d, p, cursor, &ApplyOptions::default()).unwrap_err();
        let checked = check_patch(p, cursor, &ApplyOptions::default()).unwrap_err();
        for got in [
            checked,
            compose(&arena, p, empty, cursor, &CreateOptions::default()).unwrap_err(),
            compose(&arena, empty, p, cursor, &CreateOptions::default()).unwrap_err(),
        ] {
            assert_eq!(
                (got.kind(), got.path()),
                (want.kind(), want.path()),
                "{patch}"
            );
            if same_message {
                assert_eq!(got.message(), want.message(), "{patch}");
            }
        }
    }
}

/// `{"a": {"a": … {"a": 1}}}`, `depth` objects deep.
fn nested(depth: usize) -> J {
    let mut v = json!(1);
    for _ in 0..depth {
        v = json!({ "a": v });
    }
    v
}

#[test]
fn every_engine_honours_a_raised_max_depth() {
    let arena = Arena::new();
    let (x, y) = (nested(500), nested(501));
    let (x, y) = (
        from_serde(&arena, &x, 1000).unwrap(),
        from_serde(&arena, &y, 1000).unwrap(),
    );
    let cursor = Cursor::UNKNOWN;
    let deep = CreateOptions::default().with_max_depth(1000);
    let apply_deep = ApplyOptions::default().with_max_depth(1000);
    let docs = ThreeWay {
        original: x,
        modified: y,
        current: x,
    };
    let p = create_two_way(&arena, x, y, cursor, &deep, &[]).unwrap();
    create_three_way(&arena, docs, cursor, OnConflict::Fail, &deep, &[]).unwrap();
    conflicts(p, p, cursor, &deep).unwrap();
    compose(&arena, p, p, cursor, &deep).unwrap();
    apply(&arena, x, p, cursor, &apply_deep).unwrap();
    // The default limit (256) refuses the same documents.
    let default = CreateOptions::default();
    let too_deep = smpatch_patch_apply::ErrorKind::TooDeep;
    assert_eq!(
        create_two_way(&arena, x, y, cursor, &default, &[])
            .unwrap_err()
            .kind(),
        too_deep
    );
    assert_eq!(
        compose(&arena, p, p, cursor, &default).unwrap_err().kind(),
        too_deep
    );
    assert_eq!(
        conflicts(p, p, cursor, &default).unwrap_err().kind(),
        too_deep
    );
    let e = apply(&arena, x, p, cursor, &ApplyOptions::default()).unwrap_err();
    assert_eq!(e.kind(), too_deep);
}

/// `(doc, patch, kind)`: apply merges `patch` into `doc`, so `check_patch`
/// (apply's rules) passes it, but no composed patch can stand for it:
/// `check_composable` and `compose` refuse it with `kind`.
fn compose_only_refusals() -> Vec<(J, J, ErrorKind)> {
    use ErrorKind::*;
    vec![
        (
            json!({"mergingList": [{"name": "a"}]}),
            json!({"mergingList": [{"name": "a", "value": "x"}, {"name": "a"}]}),
            DuplicateMergeKey,
        ),
        (
            json!({"mergingList": [{"name": "a"}]}),
            json!({"$setElementOrder/mergingList": [{"name": null}]}),
            MissingMergeKey,
        ),
        // Apply appends the element with its `null` key, as the reference
        // does (kubectl: `[{"name": null, "value": "x"}]`).
        (
            json!({"mergingList": []}),
            json!({"mergingList": [{"name": null, "value": "x"}]}),
            MissingMergeKey,
        ),
        (
            json!({"mergingList": [{"name": "a"}]}),
            json!({"$retainKeys": ["mergingList", 1], "mergingList": []}),
            InvalidRetainKeys,
        ),
        (
            json!({"nonMergingIntList": [1, 2]}),
            json!({"$deleteFromPrimitiveList/nonMergingIntList": [1]}),
            InvalidDeleteFromPrimitiveList,
        ),
        (
            json!({"mergingIntList": [1, 2]}),
            json!({"$deleteFromPrimitiveList/mergingIntList": null}),
            InvalidDeleteFromPrimitiveList,
        ),
        (
            json!({"mergingList": [{"name": "a"}]}),
            json!({"$deleteFromPrimitiveList/mergingList": [{"name": "a"}]}),
            InvalidDeleteFromPrimitiveList,
        ),
        (
            json!({"nonMergingIntList": [1, 2]}),
            json!({"$setElementOrder/nonMergingIntList": [2, 1]}),
            InvalidSetElementOrder,
        ),
        (
            json!({"mergingIntList": [1, 2]}),
            json!({"$setElementOrder/mergingIntList": [{"a": 1}]}),
            MixedElementTypes,
        ),
        (json!({}), json!({"$unknownDirective": [1]}), Unsupported),
    ]
}

#[test]
fn check_patch_is_apply_and_compose_adds_its_own_refusals() {
    let Some(schema) = merge_item_schema() else {
        return;
    };
    let cursor = schema.cursor("mergeItem").unwrap();
    let arena = Arena::new();
    let empty = from_serde(&arena, &json!({}), 256).unwrap();
    for (doc, patch, kind) in compose_only_refusals() {
        let d = from_serde(&arena, &doc, 256).unwrap();
        let p = from_serde(&arena, &patch, 256).unwrap();
        let opts = ApplyOptions::default();
        assert!(apply(&arena, d, p, cursor, &opts).is_ok(), "{patch}");
        assert!(check_patch(p, cursor, &opts).is_ok(), "{patch}");
        let e = check_composable(p, cursor, &opts).unwrap_err();
        assert_eq!(e.kind(), kind, "{patch}");
        let c = compose(&arena, empty, p, cursor, &CreateOptions::default()).unwrap_err();
        assert_eq!((c.kind(), c.path()), (e.kind(), e.path()), "{patch}");
    }
    // Where apply refuses, `check_patch` does too, with apply's kind: a
    // patch element without its merge key and, without `fix_quirks`, a
    // deletion list of objects for a list without a merge key (apply merges
    // it as a keyed list).
    for (doc, patch) in [
        (
            json!({"mergingList": []}),
            json!({"mergingList": [{"value": "x"}]}),
        ),
        (
            json!({"mergingIntList": []}),
            json!({"$deleteFromPrimitiveList/mergingIntList": [{"a": 1}]}),
        ),
    ] {
        let d = from_serde(&arena, &doc, 256).unwrap();
        let p = from_serde(&arena, &patch, 256).unwrap();
        let opts = ApplyOptions::default();
        let want = apply(&arena, d, p, cursor, &opts).unwrap_err();
        let got = check_patch(p, cursor, &opts).unwrap_err();
        assert_eq!(got.kind(), want.kind(), "{patch}");
    }
}
