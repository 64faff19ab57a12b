//! A new object that itself carries a `$retainKeys` member, under a field
//! that builds `$retainKeys` (`x-kubernetes-retain-keys`, KEP-1027): the
//! patch holds one `$retainKeys`, the list the diff built (it names
//! `$retainKeys` too, as the reference's does). Before, both members were
//! written, which is not valid JSON for most readers.
#![allow(clippy::unwrap_used)] // test helpers: a failure is a test failure

use serde_json::json;
use smpatch_patch_create::{create_three_way, create_two_way, CreateOptions, OnConflict, ThreeWay};
use smpatch_value::{from_serde, to_json_string, Arena};

fn pod(volume: serde_json::Value) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "Pod", "spec": {"volumes": [volume]}})
}

#[test]
fn a_carried_retain_keys_member_is_replaced_by_the_built_list() {
    let schema = smpatch_schema::embedded();
    let cursor = schema.cursor("v1/Pod").unwrap();
    let arena = Arena::new();
    let original = from_serde(&arena, &pod(json!({"name": "c", "emptyDir": {}})), 64).unwrap();
    let modified = from_serde(
        &arena,
        &pod(json!({"name": "c", "$retainKeys": ["name", "hostPath"], "hostPath": {"path": "/x"}})),
        64,
    )
    .unwrap();
    let expected = json!({"spec": {
        "$setElementOrder/volumes": [{"name": "c"}],
        "volumes": [{"name": "c", "hostPath": {"path": "/x"}, "emptyDir": null,
                     "$retainKeys": ["$retainKeys", "hostPath", "name"]}]}});
    let copts = CreateOptions::default();
    let two = create_two_way(&arena, original, modified, cursor, &copts, &[]).unwrap();
    let three = create_three_way(
        &arena,
        ThreeWay {
            original,
            modified,
            current: original,
        },
        cursor,
        OnConflict::Fail,
        &copts,
        &[],
    )
    .unwrap();
    for (name, patch) in [("create2", two), ("create3", three)] {
        let text = to_json_string(&patch);
        assert_eq!(
            text.matches("\"$retainKeys\":").count(),
            1,
            "{name}: {text}"
        );
        let got: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(got, expected, "{name}");
    }
}
