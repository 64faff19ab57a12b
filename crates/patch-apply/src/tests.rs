//! Unit tests: one `check` per boundary, small inline JSON. The data-driven
//! cases live in `testdata/apply/*.json` (run by the conformance driver).

use crate::{apply, compose_patches, ApplyOptions, ErrorKind};
use serde_json::{json, Value as J};
use smpatch_schema::{Cursor, Schema};
use smpatch_value::{from_serde, to_serde, Arena, Value};
use std::sync::OnceLock;

fn widget() -> &'static Schema {
    static S: OnceLock<Schema> = OnceLock::new();
    S.get_or_init(|| {
        let doc: J =
            serde_json::from_str(include_str!("../../../testdata/schemas/widget.v2.json")).unwrap();
        Schema::from_json_value(&doc, "widget.v2.json").unwrap()
    })
}

fn cursor() -> Cursor<'static> {
    widget().cursor("Widget").unwrap()
}

fn run(original: J, patch: J, opts: &ApplyOptions) -> Result<J, crate::Error> {
    let arena = Arena::new();
    let o = from_serde(&arena, &original, 100_000).unwrap();
    let p = from_serde(&arena, &patch, 100_000).unwrap();
    apply(&arena, o, p, cursor(), opts).map(|v| to_serde(&v).unwrap())
}

#[track_caller]
fn check(original: J, patch: J, expected: J) {
    assert_eq!(
        run(original, patch, &ApplyOptions::default()).unwrap(),
        expected
    );
}

#[track_caller]
fn check_fixed(original: J, patch: J, expected: J) {
    let opts = ApplyOptions {
        fix_quirks: true,
        ..ApplyOptions::default()
    };
    assert_eq!(run(original, patch, &opts).unwrap(), expected);
}

#[track_caller]
fn check_err(original: J, patch: J, kind: ErrorKind, path: &str, phrase: &str) {
    let e = run(original, patch, &ApplyOptions::default()).unwrap_err();
    assert_eq!(e.kind(), kind, "{e}");
    assert_eq!(e.path(), path, "{e}");
    assert!(e.message().contains(phrase), "{e}");
}

#[test]
fn nulls_delete_and_are_not_stored() {
    check(
        json!({"name":"w","labels":{"a":"1","b":"2"},"note":null}),
        json!({"labels":{"b":null,"c":"3"},"gone":null}),
        json!({"name":"w","labels":{"a":"1","c":"3"},"note":null}),
    );
}

#[test]
fn top_level_null_and_invalid() {
    check(J::Null, J::Null, json!({}));
    check_err(
        json!({}),
        json!([1]),
        ErrorKind::InvalidDocument,
        "",
        "invalid JSON document",
    );
}

#[test]
fn cleaning_inserted_values() {
    check(
        json!({}),
        json!({"items":[{"id":"a","v":null},{"id":"b","$patch":"delete"}],"labels":{"x":null,"y":"1"}}),
        json!({"items":[{"id":"a"}],"labels":{"y":"1"}}),
    );
    // Q8 (reference): the object carrying $patch is dropped, the key removed.
    check(
        json!({"size":3}),
        json!({"size":{"$patch":"replace","a":1}}),
        json!({}),
    );
    check_fixed(
        json!({"size":3}),
        json!({"size":{"$patch":"replace","a":1}}),
        json!({"size":{"a":1}}),
    );
}

#[test]
fn object_patch_directive() {
    let live = json!({"labels":{"a":"1","b":"2"}});
    check(
        live.clone(),
        json!({"labels":{"$patch":"replace","c":"3"}}),
        json!({"labels":{"c":"3"}}),
    );
    check(
        live.clone(),
        json!({"labels":{"$patch":"delete"}}),
        json!({"labels":{}}),
    );
    check_err(
        live,
        json!({"labels":{"$patch":"merge"}}),
        ErrorKind::UnknownPatchType,
        "/labels/$patch",
        "unknown patch type",
    );
}

#[test]
fn retain_keys() {
    let live = json!({"source":{"type":"Git","git":{"url":"g"},"note":"n"}});
    check(
        live.clone(),
        json!({"source":{"$retainKeys":["type","http"],"type":"Http","http":{"url":"h"}}}),
        json!({"source":{"type":"Http","http":{"url":"h"}}}),
    );
    check(
        live.clone(),
        json!({"source":{"$retainKeys":["type"],"git":null}}),
        json!({"source":{"type":"Git"}}),
    );
    check_err(
        live,
        json!({"source":{"$retainKeys":["type"],"git":{"url":"x"}}}),
        ErrorKind::InvalidRetainKeys,
        "/source/git",
        "invalid patch format of retainKeys",
    );
}

#[test]
fn keyed_lists() {
    check(
        json!({"items":[{"id":"a","v":"1"},{"id":"b"}]}),
        json!({"items":[{"id":"a","w":"2"},{"id":"b","$patch":"delete"},{"id":"c"}]}),
        json!({"items":[{"id":"a","v":"1","w":"2"},{"id":"c"}]}),
    );
    check(
        json!({"items":[{"id":"a"}]}),
        json!({"items":[{"$patch":"replace"},{"id":"z"}]}),
        json!({"items":[{"id":"z"}]}),
    );
    check_err(
        json!({"items":[{"id":"a"}]}),
        json!({"items":[{"id":"a"},{"id":"b"},{"v":"x"}]}),
        ErrorKind::MissingMergeKey,
        "/items/2",
        "does not contain declared merge key",
    );
    check_err(
        json!({"items":[{"id":"a"}]}),
        json!({"items":[{"$patch":"merge"}]}),
        ErrorKind::MergeListDirective,
        "/items/0",
        "merging lists cannot yet be specified",
    );
}

#[test]
fn duplicate_live_keys() {
    let live = json!({"items":[{"id":"a","v":"1"},{"id":"b"},{"id":"a","v":"2"}]});
    check(
        live.clone(),
        json!({"items":[{"id":"a","$patch":"delete"}]}),
        json!({"items":[{"id":"b"}]}),
    );
    let opts = ApplyOptions {
        reject_duplicate_keys: true,
        ..ApplyOptions::default()
    };
    let e = run(live, json!({"items":[{"id":"b","v":"x"}]}), &opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DuplicateMergeKey);
    assert!(e.message().contains("positions 0 and 2"), "{e}");
}

#[test]
fn primitive_sets_and_deletion() {
    check(
        json!({"tags":["x","y"]}),
        json!({"tags":["z","x"]}),
        json!({"tags":["z","x","y"]}),
    );
    check(
        json!({"tags":["a","b","a"]}),
        json!({"$deleteFromPrimitiveList/tags":["a"]}),
        json!({"tags":["b"]}),
    );
    // Q13 (always fixed): merge first, then delete.
    check(
        json!({"tags":["a"]}),
        json!({"tags":["b"],"$deleteFromPrimitiveList/tags":["b"]}),
        json!({"tags":["a"]}),
    );
    check_err(
        json!({"tags":["a"]}),
        json!({"tags":[null]}),
        ErrorKind::NullElement,
        "/tags",
        "null",
    );
    check_err(
        json!({"tags":["a"]}),
        json!({"tags":[1]}),
        ErrorKind::MixedElementTypes,
        "/tags",
        "list element types are not identical",
    );
}

#[test]
fn ordering_interleave() {
    check(
        json!({"items":[{"id":"b"},{"id":"c"},{"id":"a"}]}),
        json!({"items":[{"id":"a","v":"1"},{"id":"b","v":"1"},{"id":"d"}]}),
        json!({"items":[{"id":"c"},{"id":"a","v":"1"},{"id":"b","v":"1"},{"id":"d"}]}),
    );
}

#[test]
fn set_element_order() {
    check(
        json!({"items":[{"id":"1"},{"id":"2"},{"id":"9"},{"id":"3"},{"id":"4"}]}),
        json!({"$setElementOrder/items":[{"id":"2"},{"id":"1"},{"id":"4"},{"id":"3"}]}),
        json!({"items":[{"id":"2"},{"id":"1"},{"id":"9"},{"id":"4"},{"id":"3"}]}),
    );
    // The effective live order R' (live after deletions, then the appended
    // elements, cut to the live length) places the elements the order list
    // leaves out.
    check(
        json!({"items":[{"id":"p"},{"id":"q"},{"id":"r"}]}),
        json!({"$setElementOrder/items":[{"id":"q"},{"id":"s"}],
               "items":[{"id":"s"},{"id":"p","$patch":"delete"}]}),
        json!({"items":[{"id":"q"},{"id":"r"},{"id":"s"}]}),
    );
    check_err(
        json!({"items":[{"id":"a"},{"id":"b"}]}),
        json!({"$setElementOrder/items":[{"id":"a"},{"id":"b"}],"items":[{"id":"b"},{"id":"a"}]}),
        ErrorKind::OrderMismatch,
        "/$setElementOrder~1items",
        "doesn't match",
    );
    check_err(
        json!({"tags":[]}),
        json!({"$setElementOrder/tags":[]}),
        ErrorKind::NoElements,
        "/$setElementOrder~1tags",
        "no elements",
    );
    check_fixed(
        json!({"tags":[]}),
        json!({"$setElementOrder/tags":[]}),
        json!({"tags":[]}),
    );
}

#[test]
fn schema_lookup_errors_and_map_fix() {
    check_err(
        json!({"bogus":{"a":1}}),
        json!({"bogus":{"b":1}}),
        ErrorKind::SchemaLookup,
        "/bogus",
        "unable to find api field",
    );
    let live = json!({"configs":{"c":{"id":"a","v":"1"}}});
    let patch = json!({"configs":{"c":{"w":"2"}}});
    check_err(
        live.clone(),
        patch.clone(),
        ErrorKind::SchemaLookup,
        "/configs/c",
        "unable to find api field",
    );
    check_fixed(
        live,
        patch,
        json!({"configs":{"c":{"id":"a","v":"1","w":"2"}}}),
    );
}

#[test]
fn compound_keys() {
    check(
        json!({"rules":[{"host":"a","path":"/","backend":"x"},{"host":"a","path":"/b"}]}),
        json!({"rules":[{"host":"a","path":"/","backend":"y"}]}),
        json!({"rules":[{"host":"a","path":"/","backend":"y"},{"host":"a","path":"/b"}]}),
    );
    let live = json!({"ports":[{"port":53,"protocol":"TCP"}]});
    let patch = json!({"ports":[{"port":53,"protocol":"UDP"}]});
    check(
        live.clone(),
        patch.clone(),
        json!({"ports":[{"port":53,"protocol":"UDP"}]}),
    );
    let opts = ApplyOptions {
        compound_keys: true,
        ..ApplyOptions::default()
    };
    assert_eq!(
        run(live, patch, &opts).unwrap(),
        json!({"ports":[{"port":53,"protocol":"UDP"},{"port":53,"protocol":"TCP"}]})
    );
}

#[test]
fn schemaless_mode() {
    let arena = Arena::new();
    let o = from_serde(&arena, &json!({"a":{"l":[1,2],"x":1}}), 256).unwrap();
    let p = from_serde(&arena, &json!({"a":{"l":[3]}}), 256).unwrap();
    let r = apply(&arena, o, p, Cursor::UNKNOWN, &ApplyOptions::default()).unwrap();
    assert_eq!(to_serde(&r).unwrap(), json!({"a":{"l":[3],"x":1}}));
}

#[test]
fn compose_mode() {
    let arena = Arena::new();
    let a = from_serde(
        &arena,
        &json!({"size":null,"items":[{"id":"x","v":"1"}],"$setElementOrder/items":[{"id":"x"}]}),
        256,
    )
    .unwrap();
    let b = from_serde(
        &arena,
        &json!({"name":"n","items":[{"id":"x","w":"2"}],"$setElementOrder/items":[{"id":"x"}],
                "$deleteFromPrimitiveList/tags":["q"]}),
        256,
    )
    .unwrap();
    let r = compose_patches(&arena, a, b, cursor(), &ApplyOptions::default()).unwrap();
    assert_eq!(
        to_serde(&r).unwrap(),
        json!({"$setElementOrder/items":[{"id":"x"}],"items":[{"id":"x","v":"1","w":"2"}],
               "name":"n","size":null,"$deleteFromPrimitiveList/tags":["q"]})
    );
    // Q32: inserting the first patch strips $patch objects.
    let empty = from_serde(&arena, &json!({}), 256).unwrap();
    let p = from_serde(
        &arena,
        &json!({"items":[{"id":"b","$patch":"delete"}]}),
        256,
    )
    .unwrap();
    let r = compose_patches(&arena, empty, p, cursor(), &ApplyOptions::default()).unwrap();
    assert_eq!(to_serde(&r).unwrap(), json!({"items":[]}));
    // $retainKeys must agree.
    let x = from_serde(&arena, &json!({"source":{"$retainKeys":["a"]}}), 256).unwrap();
    let y = from_serde(&arena, &json!({"source":{"$retainKeys":["b"]}}), 256).unwrap();
    let e = compose_patches(&arena, x, y, cursor(), &ApplyOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ComposeMismatch);
}

#[test]
fn deep_inputs_error_instead_of_overflowing() {
    let arena = Arena::new();
    let one = from_serde(&arena, &json!(1), 4).unwrap();
    let two = from_serde(&arena, &json!(2), 4).unwrap();
    let mut o = Value::object_from(&arena, &[("leaf", one)]);
    let mut p = Value::object_from(&arena, &[("leaf", two)]);
    for _ in 0..5000 {
        o = Value::object_from(&arena, &[("a", o)]);
        p = Value::object_from(&arena, &[("a", p)]);
    }
    let e = apply(&arena, o, p, Cursor::UNKNOWN, &ApplyOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooDeep);
    // With a raised limit stacker grows the stack instead of overflowing.
    let opts = ApplyOptions {
        max_depth: 10_000,
        ..ApplyOptions::default()
    };
    assert!(apply(&arena, o, p, Cursor::UNKNOWN, &opts).is_ok());
}

#[test]
fn large_env_list_with_set_element_order_is_linear() {
    let n = 16_000;
    let env: Vec<J> = (0..n)
        .map(|i| json!({"id": format!("E{i}"), "v": "x"}))
        .collect();
    let patch_items: Vec<J> = (0..n)
        .rev()
        .step_by(2)
        .map(|i| json!({"id": format!("E{i}"), "v": "y"}))
        .collect();
    let order: Vec<J> = (0..n)
        .rev()
        .map(|i| json!({"id": format!("E{i}")}))
        .collect();
    let start = std::time::Instant::now();
    let out = run(
        json!({ "items": env }),
        json!({ "$setElementOrder/items": order, "items": patch_items }),
        &ApplyOptions::default(),
    )
    .unwrap();
    let items = out["items"].as_array().unwrap();
    assert_eq!(items.len(), n);
    assert_eq!(items[0], json!({"id": format!("E{}", n - 1), "v": "y"}));
    assert_eq!(items[1], json!({"id": format!("E{}", n - 2), "v": "x"}));
    // Generous bound for debug builds; the quadratic reference takes minutes.
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
}

/// Every depth limit from 1 to 7 over patches that reach each recursive
/// step of the merge (objects, keyed lists, inserted values being cleaned,
/// `$setElementOrder`, `$deleteFromPrimitiveList`, `$patch: replace`): the
/// error (kind and pointer) or success at each limit.
fn depth_outcomes() -> Vec<String> {
    let cases = [
        (
            json!({"items": [{"id": "a", "sub": [{"id": "b", "vals": ["x"]}]}]}),
            json!({"items": [{"id": "a", "sub": [{"id": "b", "vals": ["y"], "w": "z"}]}]}),
        ),
        (
            json!({}),
            json!({"configs": {"k": {"id": "x", "sub": [{"id": "y", "v": null}]}}}),
        ),
        (
            json!({"items": [{"id": "a", "sub": [{"id": "b"}]}]}),
            json!({"$setElementOrder/items": [{"id": "a"}], "items": [{"id": "a", "sub": [{"id": "b", "v": "1"}]}]}),
        ),
        (
            json!({}),
            json!({"$setElementOrder/items": [{"id": "a"}], "items": [{"id": "a", "sub": [{"id": "c"}]}]}),
        ),
        (
            json!({"items": [{"id": "a", "vals": ["x", "y"]}]}),
            json!({"items": [{"id": "a", "$deleteFromPrimitiveList/vals": ["x"]}]}),
        ),
        (
            json!({"source": {"git": {"url": "a"}}}),
            json!({"source": {"git": {"$patch": "replace", "url": {"deep": {"x": [1]}}}}}),
        ),
        (
            json!({"items": [{"id": "a"}]}),
            json!({"items": [{"$patch": "replace"}, {"id": "a", "sub": [{"id": "b"}]}]}),
        ),
    ];
    let mut out = Vec::new();
    for (i, (o, p)) in cases.iter().enumerate() {
        for limit in 1..=7 {
            let opts = ApplyOptions::default().with_max_depth(limit);
            let r = match run(o.clone(), p.clone(), &opts) {
                Ok(_) => "ok".to_string(),
                Err(e) => format!("{} {}", e.kind().name(), e.path()),
            };
            out.push(format!("{i} {limit} {r}"));
        }
    }
    out
}

#[test]
fn depth_limit_points_where_each_step_went_too_deep() {
    // Recorded from the merge before it moved onto the shared `Walk`: the
    // depth counted and the pointers reported are unchanged. (Inside an
    // inserted value being cleaned, every level reports the value's path.)
    let expected = [
        "0 1 too_deep /items",
        "0 2 too_deep /items/0",
        "0 3 too_deep /items/0/sub",
        "0 4 too_deep /items/0/sub/0",
        "0 5 too_deep /items/0/sub/0/vals",
        "0 6 ok",
        "0 7 ok",
        "1 1 too_deep /configs",
        "1 2 too_deep /configs",
        "1 3 too_deep /configs",
        "1 4 too_deep /configs",
        "1 5 ok",
        "1 6 ok",
        "1 7 ok",
        "2 1 too_deep /items",
        "2 2 too_deep /items/0",
        "2 3 too_deep /items/0/sub",
        "2 4 too_deep /items/0/sub/0",
        "2 5 ok",
        "2 6 ok",
        "2 7 ok",
        "3 1 too_deep /$setElementOrder~1items/0",
        "3 2 too_deep /$setElementOrder~1items/0",
        "3 3 too_deep /$setElementOrder~1items/0",
        "3 4 ok",
        "3 5 ok",
        "3 6 ok",
        "3 7 ok",
        "4 1 too_deep /items",
        "4 2 too_deep /items/0",
        "4 3 too_deep /items/0/$deleteFromPrimitiveList~1vals",
        "4 4 ok",
        "4 5 ok",
        "4 6 ok",
        "4 7 ok",
        "5 1 too_deep /source",
        "5 2 too_deep /source/git",
        "5 3 too_deep /source/git",
        "5 4 too_deep /source/git",
        "5 5 too_deep /source/git",
        "5 6 too_deep /source/git",
        "5 7 ok",
        "6 1 too_deep /items",
        "6 2 too_deep /items/1",
        "6 3 too_deep /items/1",
        "6 4 too_deep /items/1",
        "6 5 ok",
        "6 6 ok",
        "6 7 ok",
    ];
    assert_eq!(depth_outcomes(), expected);
}

// ----- identities carried from a keyed merge into its orderings ---------------

mod carried {
    //! The orderings after a keyed merge reuse the identities the merge
    //! computed (`merge::list::Carried`) when they are provably unchanged.
    //! These tests run every input both ways (carried, and recomputed as
    //! without `Carried`) and require the same result or the same error.

    use super::*;
    use crate::identity::{FORCE_PAIRING, NO_CARRY};
    use crate::merge::EAGER_FOLLOWS;
    use proptest::prelude::*;

    /// How a run pairs and orders: whether identities are carried, and
    /// which pairing is forced (`Some(0)` the merge index, `Some(1)` the
    /// scan, `Some(2)` the hint) or chosen by size (`None`). The reference
    /// way is `(false, Some(0))`: the merge index, every identity
    /// recomputed.
    type Way = (bool, Option<u8>);

    const REFERENCE: Way = (false, Some(0));
    const WAYS: [Way; 7] = [
        (true, None),
        (true, Some(0)),
        (true, Some(1)),
        (true, Some(2)),
        (false, Some(1)),
        (false, Some(2)),
        (false, None),
    ];

    fn with_way<R>(way: Way, f: impl FnOnce() -> R) -> R {
        EAGER_FOLLOWS.with(|c| c.set(way == REFERENCE));
        NO_CARRY.with(|c| c.set(!way.0));
        FORCE_PAIRING.with(|c| c.set(way.1));
        let r = f();
        NO_CARRY.with(|c| c.set(false));
        FORCE_PAIRING.with(|c| c.set(None));
        EAGER_FOLLOWS.with(|c| c.set(false));
        r
    }

    /// Outcome of one run, comparable across the ways.
    fn outcome(original: &J, patch: &J, opts: &ApplyOptions, way: Way) -> Result<J, String> {
        with_way(way, || {
            run(original.clone(), patch.clone(), opts)
                .map_err(|e| format!("{:?} at {}: {}", e.kind(), e.path(), e.message()))
        })
    }

    fn compose(a: &J, b: &J, opts: &ApplyOptions, way: Way) -> Result<J, String> {
        with_way(way, || {
            let arena = Arena::new();
            let x = from_serde(&arena, a, 100_000).unwrap();
            let y = from_serde(&arena, b, 100_000).unwrap();
            compose_patches(&arena, x, y, cursor(), opts)
                .map(|v| to_serde(&v).unwrap())
                .map_err(|e| format!("{:?} at {}: {}", e.kind(), e.path(), e.message()))
        })
    }

    #[track_caller]
    fn same_both_ways(original: &J, patch: &J) {
        for fix_quirks in [false, true] {
            let opts = ApplyOptions {
                fix_quirks,
                ..ApplyOptions::default()
            };
            let reference = outcome(original, patch, &opts, REFERENCE);
            let first = original.as_object().map(|o| J::Object(o.clone()));
            // The original as a first patch: exercises COMPOSE.
            let composed = first.as_ref().map(|f| compose(f, patch, &opts, REFERENCE));
            for way in WAYS {
                let got = outcome(original, patch, &opts, way);
                assert_eq!(got, reference, "fix_quirks {fix_quirks}, way {way:?}");
                if let Some(f) = &first {
                    assert_eq!(
                        Some(compose(f, patch, &opts, way)),
                        composed,
                        "compose, fix_quirks {fix_quirks}, way {way:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn retain_keys_dropping_the_merge_key_is_not_carried() {
        // `$retainKeys` without `id` drops the merge key of the merged
        // element: the ordering must see the element without an identity.
        let original = json!({"mounts": [{"id": "a", "v": "1"}, {"id": "b", "v": "2"}]});
        let patch = json!({"mounts": [{"id": "b", "v": "3", "$retainKeys": ["v"]}]});
        same_both_ways(&original, &patch);
        let e = outcome(&original, &patch, &ApplyOptions::default(), (true, None)).unwrap_err();
        assert!(e.contains("id"), "{e}");
        let with_order = json!({
            "$setElementOrder/mounts": [{"id": "b"}, {"id": "a"}],
            "mounts": [{"id": "b", "v": "3", "$retainKeys": ["v"]}]
        });
        same_both_ways(&original, &with_order);
    }

    #[test]
    fn duplicate_live_keys_and_delete_elements_are_not_carried() {
        // Two live elements share `a`: the second sorts next to the first.
        let original = json!({"items": [{"id": "a"}, {"id": "b"}, {"id": "a", "v": "x"}]});
        for patch in [
            json!({"items": [{"id": "b", "v": "1"}]}),
            json!({"$setElementOrder/items": [{"id": "b"}, {"id": "a"}], "items": [{"id": "b", "v": "1"}]}),
            json!({"items": [{"id": "c", "$patch": "delete"}, {"id": "b", "v": "1"}]}),
        ] {
            same_both_ways(&original, &patch);
        }
        check(
            original,
            json!({"items": [{"id": "b", "v": "1"}]}),
            json!({"items": [{"id": "a"}, {"id": "a", "v": "x"}, {"id": "b", "v": "1"}]}),
        );
        // A live element holding `$patch: delete` keeps its place.
        same_both_ways(
            &json!({"items": [{"id": "a", "$patch": "delete"}, {"id": "b"}]}),
            &json!({"$setElementOrder/items": [{"id": "b"}, {"id": "a"}], "items": [{"id": "b", "v": "1"}]}),
        );
    }

    #[test]
    fn order_hint_falls_back_to_the_index() {
        // The order names live-only elements between the patch's ones: the
        // lock-step hint misses on them and the index answers.
        let original = json!({"items": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}]});
        let patch = json!({
            "$setElementOrder/items": [{"id": "d"}, {"id": "a"}, {"id": "e"}, {"id": "c"}, {"id": "b"}],
            "items": [{"id": "d", "v": "1"}, {"id": "e"}, {"id": "c", "v": "2"}]
        });
        same_both_ways(&original, &patch);
        check(
            original.clone(),
            patch,
            json!({"items": [{"id": "d", "v": "1"}, {"id": "a"}, {"id": "e"}, {"id": "c", "v": "2"}, {"id": "b"}]}),
        );
        // An identity twice in the order and in the patch: both patch
        // elements merge into one element, ordered by its first mention
        // (and interleaved with the unlisted `b` by live position).
        let patch = json!({
            "$setElementOrder/items": [{"id": "c"}, {"id": "a"}, {"id": "c"}],
            "items": [{"id": "c", "v": "2"}, {"id": "c", "w": "3"}]
        });
        same_both_ways(&original, &patch);
        check(
            original,
            patch,
            json!({"items": [{"id": "b"}, {"id": "c", "v": "2", "w": "3"}, {"id": "a"}, {"id": "d"}]}),
        );
    }

    fn key() -> impl Strategy<Value = J> {
        prop_oneof![
            8 => prop::sample::select(vec!["a", "b", "c", "d", "e", "f"]).prop_map(|s| json!(s)),
            1 => Just(J::Null),
            1 => Just(json!(1)),
        ]
    }

    /// A live element: usually `{"id": k, "v": …}`, sometimes without `id`,
    /// a non-object, or holding `$patch`.
    fn live_elem() -> impl Strategy<Value = J> {
        prop_oneof![
            12 => (key(), prop::option::of("[xy]")).prop_map(|(k, v)| match v {
                Some(v) => json!({"id": k, "v": v}),
                None => json!({"id": k}),
            }),
            1 => Just(json!({"v": "nokey"})),
            1 => Just(json!("scalar")),
            1 => key().prop_map(|k| json!({"id": k, "$patch": "delete"})),
        ]
    }

    /// A patch element: merges, deletions, replacements, `$retainKeys`
    /// (with or without the merge key), a key set to `null`.
    fn patch_elem() -> impl Strategy<Value = J> {
        prop_oneof![
            10 => (key(), prop::option::of("[pq]")).prop_map(|(k, v)| match v {
                Some(v) => json!({"id": k, "v": v}),
                None => json!({"id": k, "w": "z"}),
            }),
            2 => key().prop_map(|k| json!({"id": k, "$patch": "delete"})),
            1 => Just(json!({"$patch": "replace"})),
            2 => (key(), any::<bool>()).prop_map(|(k, keep)| {
                let rk = if keep { json!(["id", "v"]) } else { json!(["v"]) };
                json!({"id": k, "v": "r", "$retainKeys": rk})
            }),
            1 => key().prop_map(|k| json!({"id": k, "v": null})),
            1 => Just(json!({"v": "nokey"})),
        ]
    }

    fn case() -> impl Strategy<Value = (J, J)> {
        (
            prop::sample::select(vec!["items", "mounts"]),
            prop::collection::vec(live_elem(), 0..8),
            prop::collection::vec(patch_elem(), 0..8),
            prop::option::of(prop::collection::vec(key(), 0..9)),
            any::<bool>(),
        )
            .prop_map(|(field, live, patch, order, from_order)| {
                let original = json!({ field: live });
                let mut p = serde_json::Map::new();
                let patch = match &order {
                    // Often the patch follows the order list (else the
                    // `$setElementOrder` pass refuses it early).
                    Some(o) if from_order => o
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| i % 2 == 0)
                        .map(|(i, k)| json!({"id": k, "v": format!("o{i}")}))
                        .chain(patch.into_iter().filter(|e| e.get("$patch").is_some()))
                        .collect(),
                    _ => patch,
                };
                if let Some(o) = order {
                    let o: Vec<J> = o.into_iter().map(|k| json!({"id": k})).collect();
                    p.insert(format!("$setElementOrder/{field}"), J::Array(o));
                }
                p.insert(field.to_string(), J::Array(patch));
                (original, J::Object(p))
            })
    }

    /// Longer lists than [`case`]: `n` live elements named from a pool a
    /// little larger than `n` (so duplicates occur now and then), a patch
    /// of up to 24 elements (on both sides of the scan pairing's limit)
    /// that changes, appends, repeats and deletes, and sometimes an order.
    fn long_case() -> impl Strategy<Value = (J, J)> {
        (1usize..400)
            .prop_flat_map(|n| {
                let pool = n + n / 8 + 2;
                let name = (0..pool).prop_map(|i| json!(format!("k{i}")));
                (
                    prop::collection::vec((name.clone(), any::<bool>()), n..=n),
                    prop::collection::vec((name.clone(), 0u8..10), 0..24),
                    prop::option::of(prop::collection::vec(name, 0..30)),
                    any::<bool>(),
                    0u8..4,
                )
            })
            .prop_map(|(live, patch, order, mounts, shape)| {
                let field = if mounts { "mounts" } else { "items" };
                // Shapes 1-3: distinct live names (the case the hint
                // pairing takes); 2: the patch follows the live order, 3:
                // its reverse; and then the order list is the patch's own.
                let n = live.len();
                let live: Vec<(J, bool)> = if shape == 0 {
                    live
                } else {
                    live.into_iter()
                        .enumerate()
                        .map(|(i, (_, v))| (json!(format!("k{i}")), v))
                        .collect()
                };
                let mut patch = patch;
                if shape >= 2 {
                    let step = (n / patch.len().max(1)).max(1);
                    for (j, (k, _)) in patch.iter_mut().enumerate() {
                        let i = (j * step).min(n - 1);
                        let i = if shape == 3 { n - 1 - i } else { i };
                        *k = json!(format!("k{i}"));
                    }
                }
                let order = match (shape >= 2, order) {
                    (true, Some(_)) => Some(patch.iter().map(|(k, _)| k.clone()).collect()),
                    (_, o) => o,
                };
                let live: Vec<J> = live
                    .into_iter()
                    .map(|(k, v)| {
                        if v {
                            json!({"id": k, "v": "x"})
                        } else {
                            json!({"id": k})
                        }
                    })
                    .collect();
                let patch: Vec<J> = patch
                    .into_iter()
                    .map(|(k, what)| match what {
                        0 => json!({"id": k, "$patch": "delete"}),
                        1 => json!({"id": k, "v": null}),
                        2 => json!({"id": k, "v": "r", "$retainKeys": ["v"]}),
                        3 => json!({"id": null, "v": "n"}),
                        _ => json!({"id": k, "v": format!("p{what}")}),
                    })
                    .collect();
                let mut p = serde_json::Map::new();
                if let Some(o) = order {
                    let o: Vec<J> = o.into_iter().map(|k| json!({"id": k})).collect();
                    p.insert(format!("$setElementOrder/{field}"), J::Array(o));
                }
                p.insert(field.to_string(), J::Array(patch));
                (json!({ field: live }), J::Object(p))
            })
    }

    #[test]
    fn hint_pairing_appends_without_an_index_until_a_repeat() {
        // Elements not in the live list are appended on the strength of
        // their hashes alone; a repeated one sends the hint to the index,
        // which merges the repeat into the element appended first.
        let original = json!({"items": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}]});
        let patch = json!({"items": [
            {"id": "a", "v": "1"}, {"id": "x", "v": "2"}, {"id": "b"}, {"id": "y"},
            {"id": "x", "w": "3"}, {"id": "c", "v": "4"}, {"id": "z"}
        ]});
        same_both_ways(&original, &patch);
        let got = outcome(&original, &patch, &ApplyOptions::default(), (true, Some(2)));
        assert_eq!(
            got,
            Ok(json!({"items": [
                {"id": "a", "v": "1"}, {"id": "x", "v": "2", "w": "3"}, {"id": "b"},
                {"id": "y"}, {"id": "c", "v": "4"}, {"id": "z"}, {"id": "d"}
            ]}))
        );
    }

    #[test]
    fn hint_pairing_out_of_live_order_matches_the_reference() {
        // A patch out of live order: more misses of the neighbour guess
        // than the hint's searches, elements not in the live list, and a
        // repeat of an appended element (which sends the hint to the
        // index). Every way gives the reference's result, with and without
        // `$setElementOrder`.
        let live: Vec<J> = (0..40).map(|i| json!({"id": format!("e{i}")})).collect();
        let order = [
            7, 31, 100, 2, 101, 19, 38, 102, 0, 23, 103, 11, 12, 13, 29, 104, 5, 100, 33, 34,
        ];
        let patch: Vec<J> = order
            .iter()
            .map(|i| json!({"id": format!("e{i}"), "v": i}))
            .collect();
        let original = json!({ "items": live });
        same_both_ways(&original, &json!({ "items": patch.clone() }));
        let keys: Vec<J> = order
            .iter()
            .rev()
            .map(|i| json!({"id": format!("e{i}")}))
            .collect();
        same_both_ways(
            &original,
            &json!({ "items": patch, "$setElementOrder/items": keys }),
        );
    }

    #[test]
    fn scan_overlay_merges_like_the_index() {
        // The scan pairing merges over the live list without copying it
        // (`merge::list::Overlay`); its result is written straight into the
        // arena only when the merge order is the ordering. Long enough for
        // the bucketed distinctness check (`HashSeen::insert_all`).
        let n = 9000;
        let items = |dup: bool| {
            let mut v: Vec<J> = (0..n)
                .map(|i| json!({"id": format!("e{i}"), "v": i}))
                .collect();
            if dup {
                // A repeat far from its twin: it sorts next to it.
                v[n - 2] = json!({"id": "e3", "v": "again"});
            }
            J::Array(v)
        };
        let patches = [
            // One element: the ordering is the merge order.
            json!({"items": [{"id": "e4500", "v": "x"}]}),
            // Two elements in live order, then reversed (reordered).
            json!({"items": [{"id": "e10", "v": "x"}, {"id": "e8000", "v": "y"}]}),
            json!({"items": [{"id": "e8000", "v": "y"}, {"id": "e10", "v": "x"}]}),
            // The same element twice, and an appended element.
            json!({"items": [{"id": "e7", "v": "x"}, {"id": "e7", "w": "y"}]}),
            json!({"items": [{"id": "e7", "v": "x"}, {"id": "new", "v": "n"}]}),
            // Changing the merge key: not carried.
            json!({"items": [{"id": "e5", "$retainKeys": ["v"], "v": 1}]}),
        ];
        for dup in [false, true] {
            let original = json!({ "items": items(dup) });
            for patch in &patches {
                same_both_ways(&original, patch);
            }
        }
        let original = json!({ "items": items(false) });
        let got = outcome(
            &original,
            &patches[0],
            &ApplyOptions::default(),
            (true, None),
        )
        .unwrap();
        let mut want = items(false);
        want[4500] = json!({"id": "e4500", "v": "x"});
        assert_eq!(got, json!({ "items": want }));
    }

    #[test]
    fn deferred_order_check_reports_the_first_error() {
        // The patch breaks the order AND holds an element without its
        // merge key: the reference reports the order first. A patch that
        // follows the order reports the element.
        let original = json!({"items": [{"id": "a"}, {"id": "b"}]});
        let both = json!({
            "$setElementOrder/items": [{"id": "a"}, {"id": "b"}],
            "items": [{"id": "b", "v": "1"}, {"v": "nokey"}, {"id": "a", "v": "2"}]
        });
        same_both_ways(&original, &both);
        let e = outcome(&original, &both, &ApplyOptions::default(), (true, None)).unwrap_err();
        assert!(e.starts_with("OrderMismatch"), "{e}");
        let merge_only = json!({
            "$setElementOrder/items": [{"id": "a"}, {"id": "b"}],
            "items": [{"id": "a", "v": "2"}, {"v": "nokey"}]
        });
        same_both_ways(&original, &merge_only);
        let e = outcome(
            &original,
            &merge_only,
            &ApplyOptions::default(),
            (true, None),
        )
        .unwrap_err();
        assert!(!e.starts_with("OrderMismatch"), "{e}");
        // Out of order, the carried ordering cannot prove the check: it
        // runs after the merge and fails; in order, the carried walk proves it.
        for (order, ok) in [
            (json!([{"id": "b"}, {"id": "a"}]), false),
            (json!([{"id": "a"}, {"id": "b"}]), true),
        ] {
            let p = json!({
                "$setElementOrder/items": order,
                "items": [{"id": "a", "v": "1"}, {"id": "b", "v": "2"}]
            });
            same_both_ways(&original, &p);
            let got = outcome(&original, &p, &ApplyOptions::default(), (true, None));
            assert_eq!(got.is_ok(), ok, "{got:?}");
        }
        // The check needs no identity of an order element after the last
        // patch element is found; the carried walk gives up on it.
        let p = json!({
            "$setElementOrder/items": [{"id": "a"}, {"x": 1}],
            "items": [{"id": "a", "v": "1"}]
        });
        same_both_ways(&original, &p);
    }

    #[test]
    fn compose_compares_order_lists_sharing_their_strings() {
        // A patch composed with itself: both order lists hold the same
        // strings (the shared-text comparison); then lists that differ in
        // one element, or in an element that is not a one-string object.
        let arena = Arena::new();
        let parse = |s: &'static str| {
            smpatch_value::parse_json(&arena, s.as_bytes(), &Default::default()).unwrap()
        };
        let p = parse(
            r#"{"$setElementOrder/items": [{"id": "a"}, {"id": "b"}, {"id": 1}], "items": [{"id": "a", "v": "1"}]}"#,
        );
        let opts = ApplyOptions::default();
        assert!(compose_patches(&arena, p, p, cursor(), &opts).is_ok());
        for other in [
            r#"{"$setElementOrder/items": [{"id": "a"}, {"id": "c"}, {"id": 1}], "items": [{"id": "a", "v": "1"}]}"#,
            r#"{"$setElementOrder/items": [{"id": "a"}, {"id": "b"}], "items": [{"id": "a", "v": "1"}]}"#,
            r#"{"$setElementOrder/items": [{"id": "a"}, {"id": "b"}, {"id": 2}], "items": [{"id": "a", "v": "1"}]}"#,
        ] {
            let q = parse(other);
            let e = compose_patches(&arena, p, q, cursor(), &opts).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidSetElementOrder, "{other}");
        }
        // Equal lists at other addresses.
        let q = parse(
            r#"{"$setElementOrder/items": [{"id": "a"}, {"id": "b"}, {"id": 1.0e0}], "items": []}"#,
        );
        let e = compose_patches(&arena, p, q, cursor(), &opts);
        let same = parse(
            r#"{"$setElementOrder/items": [{"id": "a"}, {"id": "b"}, {"id": 1}], "items": []}"#,
        );
        assert!(compose_patches(&arena, p, same, cursor(), &opts).is_ok());
        assert!(e.is_err(), "1.0e0 is a float, 1 an integer");
    }

    #[test]
    fn scan_pairing_takes_the_first_live_match() {
        // Duplicate live keys: the patch merges into the first, and the
        // duplicates sort together (by their first position); the
        // appended `d` (no live position) goes before the next live
        // element, as the reference's interleave does.
        let original = json!({"items": [
            {"id": "a"}, {"id": "b"}, {"id": "a", "v": "x"}, {"id": "c"}
        ]});
        let patch = json!({"items": [{"id": "a", "v": "1"}, {"id": "d"}, {"id": "d", "v": "2"}]});
        same_both_ways(&original, &patch);
        let got = outcome(&original, &patch, &ApplyOptions::default(), (true, Some(1)));
        assert_eq!(
            got,
            Ok(json!({"items": [
                {"id": "a", "v": "1"}, {"id": "a", "v": "x"}, {"id": "d", "v": "2"},
                {"id": "b"}, {"id": "c"}
            ]}))
        );
        // A `null` key is an identity like any other.
        let original = json!({"items": [{"id": "a"}, {"id": null, "v": "x"}]});
        let patch = json!({"items": [{"id": null, "v": "y"}]});
        same_both_ways(&original, &patch);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn carried_identities_change_nothing((original, patch) in case()) {
            same_both_ways(&original, &patch);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn pairing_and_ordering_ways_agree_on_long_lists((original, patch) in long_case()) {
            same_both_ways(&original, &patch);
        }
    }
}

// ----- primitive lists: one identity index against the general way ----------

mod scalars {
    //! Primitive merge lists are merged and ordered on one index
    //! (`merge::scalars`); the general way (a distinctness set, then
    //! `order` twice) stays for lists too long for `u32` positions. These
    //! tests run every input both ways and require the same result or the
    //! same error, in APPLY and COMPOSE, with and without `fix_quirks`.

    use super::*;
    use crate::merge::SCALARS_GENERAL;
    use proptest::prelude::*;

    fn outcome(original: &J, patch: &J, opts: &ApplyOptions, general: bool) -> Result<J, String> {
        SCALARS_GENERAL.with(|c| c.set(general));
        let r = run(original.clone(), patch.clone(), opts)
            .map_err(|e| format!("{:?} at {}: {}", e.kind(), e.path(), e.message()));
        SCALARS_GENERAL.with(|c| c.set(false));
        r
    }

    fn compose(a: &J, b: &J, opts: &ApplyOptions, general: bool) -> Result<J, String> {
        SCALARS_GENERAL.with(|c| c.set(general));
        let arena = Arena::new();
        let x = from_serde(&arena, a, 100_000).unwrap();
        let y = from_serde(&arena, b, 100_000).unwrap();
        let r = compose_patches(&arena, x, y, cursor(), opts)
            .map(|v| to_serde(&v).unwrap())
            .map_err(|e| format!("{:?} at {}: {}", e.kind(), e.path(), e.message()));
        SCALARS_GENERAL.with(|c| c.set(false));
        r
    }

    /// The outcome (default options) after checking that both ways agree.
    #[track_caller]
    fn same_both_ways(original: &J, patch: &J) -> Result<J, String> {
        for fix_quirks in [true, false] {
            let opts = ApplyOptions {
                fix_quirks,
                ..ApplyOptions::default()
            };
            let general = outcome(original, patch, &opts, true);
            let fast = outcome(original, patch, &opts, false);
            assert_eq!(fast, general, "apply, fix_quirks {fix_quirks}");
            let g = compose(original, patch, &opts, true);
            let f = compose(original, patch, &opts, false);
            assert_eq!(f, g, "compose, fix_quirks {fix_quirks}");
            if !fix_quirks {
                return fast;
            }
        }
        unreachable!()
    }

    #[test]
    fn duplicates_absent_values_and_repeated_order_entries() {
        // Live duplicates collapse to their first position; the patch
        // repeats a live and a new value; the order names a value twice
        // (its first mention counts) and a value neither list holds.
        let got = same_both_ways(
            &json!({"tags": ["a", "b", "a", "c", "b"]}),
            &json!({
                "$setElementOrder/tags": ["d", "c", "x", "d", "a"],
                "tags": ["d", "d", "a"],
                "$deleteFromPrimitiveList/tags": ["z", "b"]
            }),
        );
        assert_eq!(got, Ok(json!({"tags": ["d", "c", "a"]})));
        // Without an order list: the merge's own ordering.
        let got = same_both_ways(
            &json!({"tags": ["a", "b", "a", "c"]}),
            &json!({"tags": ["c", "e", "a", "e"]}),
        );
        assert_eq!(got, Ok(json!({"tags": ["b", "c", "e", "a"]})));
        // Q3: an empty order list leaves the appended values unplaced,
        // the general way's case.
        let got = same_both_ways(
            &json!({"tags": ["a", "b"]}),
            &json!({"$setElementOrder/tags": [], "tags": ["c", "d"]}),
        );
        assert_eq!(got, Ok(json!({"tags": ["a", "b", "d", "c"]})));
    }

    #[test]
    fn numbers_nulls_mixed_kinds_and_merge_keys() {
        // `1` and `1.0` are different values (an integer, a float): mixed
        // kinds by default, two values with `fix_quirks` (checked by
        // `same_both_ways` in both modes).
        let got = same_both_ways(
            &json!({"nums": [1, 2, 3]}),
            &json!({"$setElementOrder/nums": [3, 1.0, 2], "nums": [3, 1.0, 2]}),
        );
        assert!(got.is_err_and(|e| e.starts_with("MixedElementTypes")));
        for patch in [
            json!({"tags": [null]}),
            json!({"$setElementOrder/tags": ["a"], "tags": ["a", 1]}),
            json!({"$setElementOrder/tags": ["a", null], "tags": ["a"]}),
            json!({"$setElementOrder/tags": [{"id": "a"}], "tags": ["a"]}),
            json!({"$setElementOrder/tags": ["b", "a"], "tags": ["a", "b"]}),
            // Scalars in a keyed list.
            json!({"items": ["a"]}),
            json!({"$setElementOrder/items": ["a"], "items": ["a"]}),
            json!({"$setElementOrder/items": [{"id": "a"}], "items": ["a"]}),
        ] {
            let original = json!({"tags": ["a", "b"], "items": ["b"]});
            // The agreement of both ways is the check.
            let _ = same_both_ways(&original, &patch);
        }
    }

    #[test]
    fn long_lists_like_finalizers() {
        // The `finalizers` shape of the benches: keep the odd values,
        // reversed, delete the even ones, append a tenth.
        let n = 300;
        let name = |i: usize| json!(format!("example.com/f-{i}"));
        let live: Vec<J> = (0..n).map(name).collect();
        let kept: Vec<J> = (0..n).rev().filter(|i| i % 2 == 1).map(name).collect();
        let added: Vec<J> = (n..n + n / 10).map(name).collect();
        let order: Vec<J> = kept.iter().chain(&added).cloned().collect();
        let dels: Vec<J> = (0..n).filter(|i| i % 2 == 0).map(name).collect();
        let got = same_both_ways(
            &json!({ "tags": live }),
            &json!({
                "$setElementOrder/tags": order,
                "$deleteFromPrimitiveList/tags": dels,
                "tags": added,
            }),
        );
        assert_eq!(got, Ok(json!({ "tags": order })));
    }

    fn scalar() -> impl Strategy<Value = J> {
        prop_oneof![
            16 => prop::sample::select(vec!["a", "b", "c", "d", "e", "f", "g"]).prop_map(|s| json!(s)),
            2 => prop::sample::select(vec![1, 2, 3]).prop_map(|n| json!(n)),
            1 => Just(json!(1.0)),
            1 => Just(json!(true)),
            1 => Just(J::Null),
            1 => Just(json!({"id": "a"})),
        ]
    }

    fn list(max: usize) -> impl Strategy<Value = Vec<J>> {
        prop::collection::vec(scalar(), 0..max)
    }

    fn case() -> impl Strategy<Value = (J, J)> {
        (
            prop::sample::select(vec![
                "tags", "tags", "tags", "nums", "items", "flags", "args",
            ]),
            prop::option::of(list(10)),
            prop::option::of(list(8)),
            prop::option::of(list(10)),
            prop::option::of(list(6)),
            0u8..3,
        )
            .prop_map(|(field, live, patch, order, dels, kind)| {
                // Mostly one kind per case (else every run stops at the
                // element-kind check): 0 strings, 1 integers, 2 as drawn.
                let one_kind = |l: Vec<J>| -> Vec<J> {
                    match kind {
                        0 => l.into_iter().filter(J::is_string).collect(),
                        1 => l.into_iter().filter(J::is_i64).collect(),
                        _ => l,
                    }
                };
                let mut original = serde_json::Map::new();
                if let Some(l) = live {
                    original.insert(field.to_string(), J::Array(one_kind(l)));
                }
                let mut p = serde_json::Map::new();
                // Often the patch follows the order list (else the order
                // pass refuses it early).
                let patch = match (&order, patch) {
                    (Some(o), Some(_)) if kind != 2 => {
                        Some(o.iter().step_by(2).cloned().collect::<Vec<J>>())
                    }
                    (_, pl) => pl,
                };
                if let Some(o) = order {
                    p.insert(format!("$setElementOrder/{field}"), J::Array(one_kind(o)));
                }
                if let Some(pl) = patch {
                    p.insert(field.to_string(), J::Array(one_kind(pl)));
                }
                if let Some(d) = dels {
                    p.insert(
                        format!("$deleteFromPrimitiveList/{field}"),
                        J::Array(one_kind(d)),
                    );
                }
                (J::Object(original), J::Object(p))
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn one_index_changes_nothing((original, patch) in case()) {
            let _ = same_both_ways(&original, &patch);
        }
    }
}
