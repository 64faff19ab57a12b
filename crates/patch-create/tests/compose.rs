//! The public `compose` carries `$patch` directives through (Q32 fix), and
//! `apply(apply(x, p1), p2) == apply(x, compose(p1, p2))` on those cases.
#![allow(clippy::unwrap_used)] // test helpers: a failure is a test failure

use serde_json::{json, Value as J};
use smpatch_patch_apply::{apply, ApplyOptions};
use smpatch_patch_create::{compose, CreateOptions};
use smpatch_schema::Schema;
use smpatch_value::{from_serde, to_serde, Arena};
use std::path::Path;

fn check(x: J, p1: J, p2: J, want: J) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/schemas/widget.v2.json");
    let schema = Schema::load_path(p).unwrap();
    let cursor = schema.cursor("Widget").unwrap();
    let arena = Arena::new();
    let (x, p1, p2) = (
        from_serde(&arena, &x, 256).unwrap(),
        from_serde(&arena, &p1, 256).unwrap(),
        from_serde(&arena, &p2, 256).unwrap(),
    );
    let c = compose(&arena, p1, p2, cursor, &CreateOptions::default()).unwrap();
    assert_eq!(to_serde(&c).unwrap(), want);
    let o = ApplyOptions::default();
    let seq = apply(
        &arena,
        apply(&arena, x, p1, cursor, &o).unwrap(),
        p2,
        cursor,
        &o,
    )
    .unwrap();
    let once = apply(&arena, x, c, cursor, &o).unwrap();
    assert_eq!(to_serde(&once).unwrap(), to_serde(&seq).unwrap());
}

#[test]
fn list_delete_in_second_patch_survives() {
    check(
        json!({"items": [{"id": "a", "v": "0"}, {"id": "b"}]}),
        json!({"items": [{"id": "a", "v": "1"}]}),
        json!({"items": [{"id": "a", "$patch": "delete"}]}),
        json!({"items": [{"id": "a", "$patch": "delete"}]}),
    );
}

#[test]
fn object_replace_in_second_patch_survives() {
    check(
        json!({"labels": {"x": "1", "y": "2"}}),
        json!({"labels": {"z": "3"}}),
        json!({"labels": {"$patch": "replace", "w": "4"}}),
        json!({"labels": {"$patch": "replace", "w": "4"}}),
    );
}

#[test]
fn first_patch_directives_survive() {
    check(
        json!({"items": [{"id": "a"}, {"id": "b"}]}),
        json!({"items": [{"id": "a", "$patch": "delete"}]}),
        json!({"name": "n"}),
        json!({"items": [{"id": "a", "$patch": "delete"}], "name": "n"}),
    );
}

#[test]
fn plain_patches_compose_as_reference() {
    check(
        json!({"size": 1}),
        json!({"size": null, "items": [{"id": "x", "v": "1"}]}),
        json!({"name": "n", "items": [{"id": "x", "w": "2"}]}),
        json!({"size": null, "items": [{"id": "x", "v": "1", "w": "2"}], "name": "n"}),
    );
}
