//! The field set of associative and set lists, item by item: items with
//! fields below them, items that are leaves (`v:` set elements), and
//! duplicate keyed items under `allow_duplicates` (recorded once, with
//! nothing below). The walker takes each item's path element instead of
//! cloning it (shapes-perf, docs/BENCHMARKS.md); the sets must not change.

use serde_json::json;
use smpatch_fieldsets::{fields_of, FieldsOptions};
use smpatch_value::{from_serde, Arena};

fn set_of(obj: serde_json::Value, opts: &FieldsOptions) -> Result<String, String> {
    let schema = smpatch_schema::embedded();
    let arena = Arena::new();
    let v = from_serde(&arena, &obj, 256).expect("object");
    fields_of(&v, schema.cursor("v1/Pod").expect("type"), opts)
        .map(|s| s.to_json())
        .map_err(|e| format!("{}|{}", e.kind().name(), e.path()))
}

fn pod(spec: serde_json::Value) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p",
        "finalizers": ["b", "a"]}, "spec": spec})
}

#[test]
fn keyed_items_with_and_without_fields_below() {
    let obj = pod(json!({"containers": [
        {"name": "web", "image": "i", "ports": [
            {"containerPort": 80, "protocol": "TCP"}, {"containerPort": 53, "protocol": "UDP"}]},
        {"name": "side"}]}));
    assert_eq!(
        set_of(obj, &FieldsOptions::default()).unwrap(),
        concat!(
            r#"{"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}},"#,
            r#""f:spec":{"f:containers":{"k:{\"name\":\"side\"}":{".":{},"f:name":{}},"#,
            r#""k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"#,
            r#""k:{\"containerPort\":53,\"protocol\":\"UDP\"}":{".":{},"f:containerPort":{},"f:protocol":{}},"#,
            r#""k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}}}}"#
        )
    );
}

#[test]
fn duplicate_items_are_recorded_once_or_refused() {
    let obj = pod(json!({"containers": [
        {"name": "a", "image": "x"}, {"name": "b"}, {"name": "a", "image": "y"}]}));
    let loose = FieldsOptions {
        allow_duplicates: true,
        ..FieldsOptions::default()
    };
    assert_eq!(
        set_of(obj.clone(), &loose).unwrap(),
        concat!(
            r#"{"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}},"#,
            r#""f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{},"#,
            r#""k:{\"name\":\"b\"}":{".":{},"f:name":{}}}}}"#
        )
    );
    assert_eq!(
        set_of(obj, &FieldsOptions::default()).unwrap_err(),
        "duplicate_list_item|/spec/containers/2"
    );
}
