//! The rules of docs/FIELDSETS.md one by one, on small inputs of our own:
//! path-element strings, canonical order and escaping, the set algebra on
//! exact paths, the set of an object under CRD and built-in schemas, and
//! the extraction rules. Each table row names the rule it pins.

use serde_json::{json, Value as J};
use smpatch_fieldsets::{extract, fields_of, ExtractOptions, FieldSet, FieldsOptions};
use smpatch_schema::Schema;
use smpatch_value::{from_serde, to_json_string, Arena};

/// `Ok(canonical bytes)` or `Err("kind|path|message")`.
fn canon(s: &str) -> Result<String, String> {
    FieldSet::from_json(s.as_bytes())
        .map(|s| s.to_json())
        .map_err(|e| format!("{}|{}|{}", e.kind().name(), e.path(), e.message()))
}

/// Checks every row; `want` starting with `ERR ` is an error prefix
/// (`ERR kind|path|message-prefix`), anything else the exact output.
fn check_all(rows: Vec<(&str, Result<String, String>, &str)>) {
    let mut bad = Vec::new();
    for (name, got, want) in rows {
        let ok = match (&got, want.strip_prefix("ERR ")) {
            (Ok(g), None) => g == want,
            (Err(e), Some(w)) => e.starts_with(w),
            _ => false,
        };
        if !ok {
            bad.push(format!("{name}\n   got  {got:?}\n   want {want}"));
        }
    }
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

#[test]
fn path_element_strings() {
    check_all(vec![
        // `v:`/`k:` payloads may be surrounded by whitespace.
        (
            "v: whitespace",
            canon(r#"{"v: \"x\" ":{}}"#),
            r#"{"v:\"x\"":{}}"#,
        ),
        (
            "k:null is a key without fields",
            canon(r#"{"k:null":{}}"#),
            r#"{"k:{}":{}}"#,
        ),
        (
            "k: null with whitespace",
            canon(r#"{"k: null ":{}}"#),
            r#"{"k:{}":{}}"#,
        ),
        (
            "k: must be an object",
            canon(r#"{"k:[1]":{}}"#),
            "ERR invalid_fieldsv1|k:[1]|parsing key as path element",
        ),
        (
            "k: trailing data",
            canon(r#"{"k:{} x":{}}"#),
            "ERR invalid_fieldsv1|k:{} x|",
        ),
        (
            "v: trailing data",
            canon(r#"{"v:1 2":{}}"#),
            "ERR invalid_fieldsv1|v:1 2|",
        ),
        (
            "k: fields sorted by name",
            canon(r#"{"k:{\"b\":1,\"a\":\"x\"}":{}}"#),
            r#"{"k:{\"a\":\"x\",\"b\":1}":{}}"#,
        ),
        // `i:` is an optional sign and decimal digits fitting i64.
        ("i:+3", canon(r#"{"i:+3":{}}"#), r#"{"i:3":{}}"#),
        ("i:-0", canon(r#"{"i:-0":{}}"#), r#"{"i:0":{}}"#),
        (
            "i: negatives order numerically",
            canon(r#"{"i:1":{},"i:-2":{}}"#),
            r#"{"i:-2":{},"i:1":{}}"#,
        ),
        (
            "i: overflow",
            canon(r#"{"i:99999999999999999999":{}}"#),
            "ERR invalid_fieldsv1|i:99999999999999999999|",
        ),
        (
            "i: empty",
            canon(r#"{"i:":{}}"#),
            "ERR invalid_fieldsv1|i:|",
        ),
        (
            "i: float",
            canon(r#"{"i:1.5":{}}"#),
            "ERR invalid_fieldsv1|i:1.5|",
        ),
        (
            "i: sign only",
            canon(r#"{"i:-":{}}"#),
            "ERR invalid_fieldsv1|i:-|",
        ),
        // `f:` names are verbatim: empty, with `:` or `.`.
        ("f: empty name", canon(r#"{"f:":{}}"#), r#"{"f:":{}}"#),
        (
            "f: colon and dot",
            canon(r#"{"f:a:b":{},"f:.":{}}"#),
            r#"{"f:.":{},"f:a:b":{}}"#,
        ),
        // Unknown kinds (any other byte, upper case included) are dropped
        // with their subtree, whatever their value.
        (
            "upper-case kind",
            canon(r#"{"K:{}":{},"F:a":{},"f:a":{}}"#),
            r#"{"f:a":{}}"#,
        ),
        (
            "unknown kind, non-object value",
            canon(r#"{"x:y":5,"f:a":{}}"#),
            r#"{"f:a":{}}"#,
        ),
        (
            "only unknown below: a member",
            canon(r#"{"f:a":{"x:y":{"f:q":{}}},"f:b":{}}"#),
            r#"{"f:a":{},"f:b":{}}"#,
        ),
        // Values: a non-`.` value must be an object or null; `.` takes anything.
        (
            "boolean value",
            canon(r#"{"f:a":true}"#),
            "ERR invalid_fieldsv1|f:a|",
        ),
        (
            "dot with any value",
            canon(r#"{"f:a":{".":5,"f:b":{}}}"#),
            r#"{"f:a":{".":{},"f:b":{}}}"#,
        ),
        ("null root with whitespace", canon(" null "), "{}"),
        (
            "null root, trailing data",
            canon("null x"),
            "ERR invalid_fieldsv1||",
        ),
        ("string root", canon(r#""f:a""#), "ERR invalid_fieldsv1||"),
        (
            "whitespace anywhere",
            canon("\n{ \"f:b\" : { } ,\t\"f:a\":{ \".\" : { } , \"f:c\" : null } }\n"),
            r#"{"f:a":{".":{},"f:c":{}},"f:b":{}}"#,
        ),
    ]);
}

#[test]
fn value_encoding_order_and_escaping() {
    check_all(vec![
        // Go-style floats inside `v:`/`k:`.
        ("-0", canon(r#"{"v:-0":{}}"#), r#"{"v:-0":{}}"#),
        ("1e-7", canon(r#"{"v:1e-7":{}}"#), r#"{"v:1e-07":{}}"#),
        ("1e21", canon(r#"{"v:1e21":{}}"#), r#"{"v:1e+21":{}}"#),
        (
            "1e20 plain",
            canon(r#"{"v:1e20":{}}"#),
            r#"{"v:100000000000000000000":{}}"#,
        ),
        (
            "beyond i64",
            canon(r#"{"v:12345678901234567890123":{}}"#),
            r#"{"v:1.2345678901234568e+22":{}}"#,
        ),
        // Int and float are one element; `0` and `-0` too.
        (
            "80.0 = 80 in a key",
            canon(r#"{"k:{\"p\":80.0}":{"f:x":{}},"k:{\"p\":80}":{"f:y":{}}}"#),
            r#"{"k:{\"p\":80}":{"f:x":{},"f:y":{}}}"#,
        ),
        (
            "0 = -0",
            Ok(canon(r#"{"v:-0":{},"v:0":{}}"#)
                .map(|s| s.matches("v:").count().to_string())
                .unwrap_or_default()),
            "1",
        ),
        // Object values: keys sorted, HTML-safe; key-field names plain.
        (
            "object value sorted",
            canon(r#"{"v:{\"b\":1,\"a\":{\"d\":1,\"c\":2}}":{}}"#),
            r#"{"v:{\"a\":{\"c\":2,\"d\":1},\"b\":1}":{}}"#,
        ),
        (
            "object value key html-safe",
            canon(r#"{"v:{\"<\":1}":{}}"#),
            r#"{"v:{\"\\u003c\":1}":{}}"#,
        ),
        (
            "key-field name plain, value html-safe",
            canon(r#"{"k:{\"a<b\":\"<\"}":{}}"#),
            r#"{"k:{\"a<b\":\"\\u003c\"}":{}}"#,
        ),
        (
            "control characters in f:",
            canon("{\"f:a\\u0008\\u000c\\u001f\\u007f\":{}}"),
            "{\"f:a\\u0008\\u000c\\u001f\u{7f}\":{}}",
        ),
        (
            "U+2028 raw in f:",
            canon("{\"f:\u{2028}\":{}}"),
            "{\"f:\u{2028}\":{}}",
        ),
        (
            "U+2028 escaped in v:",
            canon("{\"v:\\\"\u{2028}\\\"\":{}}"),
            r#"{"v:\"\\u2028\"":{}}"#,
        ),
        (
            "quote backslash newline in f:",
            canon(r#"{"f:a\"b\\c\nd":{}}"#),
            r#"{"f:a\"b\\c\nd":{}}"#,
        ),
        // Order: kinds, key prefixes, value ranks, arrays.
        (
            "kinds f < k < v < i",
            canon(r#"{"i:0":{},"v:1":{},"k:{\"a\":1}":{},"f:z":{}}"#),
            r#"{"f:z":{},"k:{\"a\":1}":{},"v:1":{},"i:0":{}}"#,
        ),
        (
            "shorter key first",
            canon(r#"{"k:{\"a\":1,\"b\":1}":{},"k:{\"a\":1}":{}}"#),
            r#"{"k:{\"a\":1}":{},"k:{\"a\":1,\"b\":1}":{}}"#,
        ),
        (
            "number < string < bool < array < object < null",
            canon(
                r#"{"v:null":{},"v:{\"a\":1}":{},"v:[1]":{},"v:true":{},"v:false":{},"v:\"a\"":{},"v:2":{}}"#,
            ),
            r#"{"v:2":{},"v:\"a\"":{},"v:false":{},"v:true":{},"v:[1]":{},"v:{\"a\":1}":{},"v:null":{}}"#,
        ),
        (
            "arrays element-wise, prefix first",
            canon(r#"{"v:[1,2]":{},"v:[1]":{},"v:[0,5]":{}}"#),
            r#"{"v:[0,5]":{},"v:[1]":{},"v:[1,2]":{}}"#,
        ),
        (
            "numbers numerically",
            canon(r#"{"v:10":{},"v:9":{},"v:2.5":{},"v:-1":{}}"#),
            r#"{"v:-1":{},"v:2.5":{},"v:9":{},"v:10":{}}"#,
        ),
    ]);
}

#[test]
fn set_operations_on_exact_paths() {
    let s = |t: &str| FieldSet::from_json(t.as_bytes()).expect("set");
    let child = s(r#"{"f:a":{"f:b":{}}}"#);
    let parent = s(r#"{"f:a":{}}"#);
    let both = child.union(&parent);
    check_all(vec![
        (
            "child - parent keeps the child",
            Ok(child.difference(&parent).to_json()),
            r#"{"f:a":{"f:b":{}}}"#,
        ),
        (
            "parent - child keeps the parent",
            Ok(parent.difference(&child).to_json()),
            r#"{"f:a":{}}"#,
        ),
        (
            "recursive difference removes the subtree",
            Ok(child.recursive_difference(&parent).to_json()),
            "{}",
        ),
        (
            "union marks the node with .",
            Ok(both.to_json()),
            r#"{"f:a":{".":{},"f:b":{}}}"#,
        ),
        (
            "parent and child do not intersect",
            Ok(child.intersection(&parent).to_json()),
            "{}",
        ),
        (
            "leaves drop the inner member",
            Ok(both.leaves().to_json()),
            r#"{"f:a":{"f:b":{}}}"#,
        ),
        (
            "difference prunes emptied children",
            Ok(s(r#"{"f:a":{"f:b":{}},"f:c":{}}"#)
                .difference(&child)
                .to_json()),
            r#"{"f:c":{}}"#,
        ),
        ("two paths", Ok(both.len().to_string()), "2"),
    ]);
    assert!(s("{}").is_empty() && s("null").is_empty() && child.difference(&child).is_empty());
    assert!(!parent.is_empty() && parent.is_subset(&both) && !both.is_subset(&parent));
    assert_eq!(s(r#"{"v:1":{}}"#), s(r#"{"v:1.0":{}}"#));
}

fn widget_schema(spec: J) -> Schema {
    let doc = json!({"swagger": "2.0", "definitions": {"com.example.v1.Widget": {"type": "object",
        "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Widget"}],
        "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
            "metadata": {"type": "object", "properties": {"name": {"type": "string"},
                "namespace": {"type": "string"}, "labels": {"type": "object",
                "additionalProperties": {"type": "string"}}}},
            "spec": spec}}}});
    Schema::from_bytes(doc.to_string().as_bytes(), "inline").expect("schema")
}

fn set_of(schema: &Schema, ty: &str, obj: J) -> Result<String, String> {
    let arena = Arena::new();
    let v = from_serde(&arena, &obj, 256).expect("object");
    fields_of(
        &v,
        schema.cursor(ty).expect("type"),
        &FieldsOptions::default(),
    )
    .map(|s| s.to_json())
    .map_err(|e| format!("{}|{}|{}", e.kind().name(), e.path(), e.message()))
}

#[test]
fn sets_under_a_crd_schema() {
    let sc = widget_schema(json!({"type": "object", "properties": {
        "strict": {"type": "object", "properties": {"a": {"type": "string"}}},
        "open": {"type": "object"},
        "mapOfStructs": {"type": "object", "additionalProperties": {"type": "object", "properties": {"x": {"type": "integer"}}}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
            "items": {"type": "object", "properties": {"port": {"type": "integer"},
                "protocol": {"type": "string", "default": "TCP"}, "name": {"type": "string"}}}},
        "objectSet": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}},
        "intSet": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
        "plain": {"type": "array", "items": {"type": "string"}},
        "atomicMap": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {"a": {"type": "string"}}},
        "granularMap": {"type": "object", "x-kubernetes-map-type": "granular", "properties": {"a": {"type": "string"}}},
        "untyped": {},
        "intOrString": {"x-kubernetes-int-or-string": true},
        "atomicItems": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {"name": {"type": "string"}, "v": {"type": "string"}}}},
        "targets": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"],
            "items": {"type": "object", "properties": {"id": {"x-kubernetes-int-or-string": true}}}},
        "when": {"type": "string", "format": "date-time"}, "blob": {"type": "string", "format": "byte"},
        "num": {"type": "integer"}, "str": {"type": "string"}, "flag": {"type": "boolean"}
    }}));
    let t = "example.com/v1/Widget";
    let w = |spec: J| json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec});
    check_all(vec![
        ("undeclared field", set_of(&sc, t, w(json!({"strict": {"q": "1"}}))), "ERR schema_mismatch|/spec/strict/q|field not declared in schema"),
        ("object without properties: deduced", set_of(&sc, t, w(json!({"open": {"q": {"r": [1]}}}))), r#"{"f:spec":{"f:open":{"f:q":{".":{},"f:r":{}}}}}"#),
        ("map of structs: entries with content get .", set_of(&sc, t, w(json!({"mapOfStructs": {"k1": {"x": 1}, "k2": {}}}))), r#"{"f:spec":{"f:mapOfStructs":{"f:k1":{".":{},"f:x":{}},"f:k2":{}}}}"#),
        ("key field from its default", set_of(&sc, t, w(json!({"ports": [{"port": 80, "name": "h"}]}))), r#"{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{}}}}}"#),
        ("only the defaulted key field", set_of(&sc, t, w(json!({"ports": [{"name": "h"}]}))), r#"{"f:spec":{"f:ports":{"k:{\"protocol\":\"TCP\"}":{".":{},"f:name":{}}}}}"#),
        ("explicit null key value", set_of(&sc, t, w(json!({"ports": [{"port": 80, "protocol": null}]}))), r#"{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":null}":{".":{},"f:port":{},"f:protocol":{}}}}}"#),
        (
            "80 and \"80\" are different items",
            set_of(&sc, t, w(json!({"targets": [{"id": 80}, {"id": "80"}]}))),
            r#"{"f:spec":{"f:targets":{"k:{\"id\":80}":{".":{},"f:id":{}},"k:{\"id\":\"80\"}":{".":{},"f:id":{}}}}}"#,
        ),
        ("a string for an integer", set_of(&sc, t, w(json!({"num": "three"}))), "ERR schema_mismatch|/spec/num|expected a number (int or float), got string"),
        ("a number for a string", set_of(&sc, t, w(json!({"str": 3}))), "ERR schema_mismatch|/spec/str|expected a string, got number"),
        ("a string for a boolean", set_of(&sc, t, w(json!({"flag": "yes"}))), "ERR schema_mismatch|/spec/flag|expected a boolean, got string"),
        ("a key field of the wrong type", set_of(&sc, t, w(json!({"ports": [{"port": "80"}]}))), "ERR schema_mismatch|/spec/ports/0/port|expected a number"),
        ("a float for an integer", set_of(&sc, t, w(json!({"num": 2.5}))), r#"{"f:spec":{"f:num":{}}}"#),
        ("string formats other than byte are untyped", set_of(&sc, t, w(json!({"when": 5, "blob": "aGk="}))), r#"{"f:spec":{"f:blob":{},"f:when":{}}}"#),
        ("a number for a byte string", set_of(&sc, t, w(json!({"blob": 5}))), "ERR schema_mismatch|/spec/blob|expected a string, got number"),
        ("int-or-string takes both", set_of(&sc, t, w(json!({"intOrString": 5}))), r#"{"f:spec":{"f:intOrString":{}}}"#),
        ("duplicate after defaulting", set_of(&sc, t, w(json!({"ports": [{"port": 80}, {"port": 80, "protocol": "TCP"}]}))), "ERR duplicate_list_item|/spec/ports/1|duplicate entries for key"),
        ("object in a set", set_of(&sc, t, w(json!({"objectSet": [{"a": 1}]}))), "ERR invalid_list_item|/spec/objectSet/0|associative list without keys has an element that's a map type"),
        ("numeric set sorted", set_of(&sc, t, w(json!({"intSet": [3, 1, 2]}))), r#"{"f:spec":{"f:intSet":{"v:1":{},"v:2":{},"v:3":{}}}}"#),
        ("duplicate set element", set_of(&sc, t, w(json!({"intSet": [1, 1]}))), "ERR duplicate_list_item|/spec/intSet/1|"),
        ("null set element", set_of(&sc, t, w(json!({"intSet": [null]}))), "ERR invalid_list_item|/spec/intSet/0|associative list without keys has an element that's an explicit null"),
        ("list in a set", set_of(&sc, t, w(json!({"intSet": [[1]]}))), "ERR invalid_list_item|/spec/intSet/0|not supported: associative list with lists as elements"),
        ("no list type: atomic", set_of(&sc, t, w(json!({"plain": ["a"]}))), r#"{"f:spec":{"f:plain":{}}}"#),
        ("map-type atomic", set_of(&sc, t, w(json!({"atomicMap": {"a": "x"}}))), r#"{"f:spec":{"f:atomicMap":{}}}"#),
        ("map-type granular", set_of(&sc, t, w(json!({"granularMap": {"a": "x"}}))), r#"{"f:spec":{"f:granularMap":{"f:a":{}}}}"#),
        ("untyped object granular", set_of(&sc, t, w(json!({"untyped": {"a": {"b": 1}}}))), r#"{"f:spec":{"f:untyped":{"f:a":{".":{},"f:b":{}}}}}"#),
        ("untyped array atomic", set_of(&sc, t, w(json!({"untyped": [{"a": 1}]}))), r#"{"f:spec":{"f:untyped":{}}}"#),
        ("scalars", set_of(&sc, t, w(json!({"intOrString": "x", "num": 1, "str": "s", "flag": true}))), r#"{"f:spec":{"f:flag":{},"f:intOrString":{},"f:num":{},"f:str":{}}}"#),
        ("atomic items are leaves", set_of(&sc, t, w(json!({"atomicItems": [{"name": "a", "v": "1"}]}))), r#"{"f:spec":{"f:atomicItems":{"k:{\"name\":\"a\"}":{}}}}"#),
        ("[] of associative lists records nothing", set_of(&sc, t, w(json!({"ports": [], "intSet": [], "plain": []}))), r#"{"f:spec":{"f:plain":{}}}"#),
        ("nulls are leaves", set_of(&sc, t, w(json!({"ports": null, "atomicMap": null, "granularMap": null, "num": null}))), r#"{"f:spec":{"f:atomicMap":{},"f:granularMap":{},"f:num":{},"f:ports":{}}}"#),
        ("{} is a leaf", set_of(&sc, t, w(json!({}))), r#"{"f:spec":{}}"#),
        ("list for a map", set_of(&sc, t, w(json!({"granularMap": [1]}))), "ERR schema_mismatch|/spec/granularMap|"),
        ("map for a list", set_of(&sc, t, w(json!({"plain": {}}))), "ERR schema_mismatch|/spec/plain|"),
        ("map for a scalar", set_of(&sc, t, w(json!({"num": {}}))), "ERR schema_mismatch|/spec/num|"),
        ("identity never recorded", set_of(&sc, t, json!({"apiVersion": "x", "kind": "Widget", "metadata": {"name": "a", "namespace": "b"}})), "{}"),
    ]);
}

#[test]
fn sets_under_built_in_schemas() {
    let emb = smpatch_schema::embedded();
    check_all(vec![
        (
            "RawExtension is atomic",
            set_of(emb, "apps/v1/ControllerRevision", json!({"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"}, "revision": 1, "data": {"spec": {"a": 1}}})),
            r#"{"f:data":{},"f:revision":{}}"#,
        ),
        (
            "Quantity: number or string",
            set_of(emb, "v1/Pod", json!({"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": 1, "memory": "1Gi"}}}]}})),
            r#"{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:name":{},"f:resources":{"f:limits":{"f:cpu":{},"f:memory":{}}}}}}}"#,
        ),
        (
            "server fields stripped",
            set_of(emb, "v1/ConfigMap", json!({"metadata": {"name": "x", "generation": 1, "selfLink": "s", "resourceVersion": "1", "creationTimestamp": null, "uid": "u", "managedFields": []}})),
            "{}",
        ),
        (
            "Service atomic selector and IP lists",
            set_of(emb, "v1/Service", json!({"spec": {"selector": {"a": "b"}, "clusterIPs": ["1"], "externalIPs": ["2"]}})),
            r#"{"f:spec":{"f:clusterIPs":{},"f:externalIPs":{},"f:selector":{}}}"#,
        ),
        (
            "Pod: nodeSelector, command atomic; env, volumeMounts keyed; secretKeyRef atomic",
            set_of(emb, "v1/Pod", json!({"spec": {"nodeSelector": {"a": "b"}, "containers": [{"name": "c", "volumeMounts": [{"mountPath": "/x", "name": "v"}], "command": ["a"], "env": [{"name": "E", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}]}})),
            r#"{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:command":{},"f:env":{"k:{\"name\":\"E\"}":{".":{},"f:name":{},"f:valueFrom":{"f:secretKeyRef":{}}}},"f:name":{},"f:volumeMounts":{"k:{\"mountPath\":\"/x\"}":{".":{},"f:mountPath":{},"f:name":{}}}}},"f:nodeSelector":{}}}"#,
        ),
        (
            // This row used to pin the embedded schema's lack of defaults
            // (`k:{"containerPort":80}`); it now carries the served
            // documents' `protocol: TCP` (round 8), keyed as the server keys.
            "the embedded schema's protocol default fills the key, f:protocol not owned",
            set_of(emb, "v1/Pod", json!({"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}})),
            r#"{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}"#,
        ),
        (
            "Service port without protocol: keyed TCP, as the server keys it",
            set_of(emb, "v1/Service", json!({"spec": {"ports": [{"port": 443, "targetPort": 8443}]}})),
            r#"{"f:spec":{"f:ports":{"k:{\"port\":443,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:targetPort":{}}}}}"#,
        ),
        (
            "no key field and no default",
            set_of(emb, "v1/Pod", json!({"spec": {"containers": [{"image": "i"}]}})),
            "ERR invalid_list_item|/spec/containers/0|associative list with keys has an element that omits all key fields [\"name\"] (and doesn't have default values for any key fields)",
        ),
        (
            // The top-level metadata of a typed object is ObjectMeta unless
            // its schema is ListMeta (or ObjectMeta) already (review of round 8).
            "a *List type keeps ListMeta",
            set_of(emb, "v1/ConfigMapList", json!({"apiVersion": "v1", "kind": "ConfigMapList", "metadata": {"continue": "c", "remainingItemCount": 3, "resourceVersion": "7"}})),
            r#"{"f:metadata":{"f:continue":{},"f:remainingItemCount":{}}}"#,
        ),
        ("ListMeta has no labels", set_of(emb, "v1/ConfigMapList", json!({"metadata": {"labels": {"a": "b"}}})), "ERR schema_mismatch|/metadata/labels|field not declared in schema"),
        ("undeclared top-level field", set_of(emb, "v1/ConfigMap", json!({"spec": {}})), "ERR schema_mismatch|/spec|field not declared in schema"),
        ("a number for a ConfigMap value", set_of(emb, "v1/ConfigMap", json!({"data": {"PORT": 8080}})), "ERR schema_mismatch|/data/PORT|expected a string, got number"),
        ("a string for replicas", set_of(emb, "apps/v1/Deployment", json!({"spec": {"replicas": "3"}})), "ERR schema_mismatch|/spec/replicas|expected a number (int or float), got string"),
        (
            "IntOrString targetPort takes both",
            set_of(emb, "v1/Service", json!({"spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}, {"port": 81, "protocol": "TCP", "targetPort": "http"}]}})),
            r#"{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{},"f:targetPort":{}},"k:{\"port\":81,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}}}}"#,
        ),
    ]);
}

/// A root `metadata` the schema declares a scalar or a list keeps its
/// declared schema (review of round 8: it was forced to `ObjectMeta`, and
/// `metadata: hello` failed as "expected a map"); an object or untyped one
/// is `ObjectMeta`, as the API server types a custom resource's metadata.
#[test]
fn root_metadata_declared_scalar_or_list_is_kept() {
    let ty = |meta: J| {
        let doc = json!({"openapi": "3.0.0", "components": {"schemas": {"ex.Foo": {"type": "object",
            "x-kubernetes-group-version-kind": [{"group": "ex.com", "version": "v1", "kind": "Bar"}],
            "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                "metadata": meta, "n": {"type": "integer"}}}}}});
        Schema::from_bytes(doc.to_string().as_bytes(), "inline").expect("schema")
    };
    let (string, list, open) = (
        ty(json!({"type": "string"})),
        ty(json!({"type": "array", "items": {"type": "string"}})),
        ty(json!({"type": "object"})),
    );
    let t = "ex.com/v1/Bar";
    let o = |meta: J| json!({"apiVersion": "ex.com/v1", "kind": "Bar", "metadata": meta, "n": 1});
    check_all(vec![
        // `metadata` itself is a server field, never recorded.
        (
            "a string metadata",
            set_of(&string, t, o(json!("hello"))),
            r#"{"f:n":{}}"#,
        ),
        (
            "a string metadata is checked",
            set_of(&string, t, o(json!({"name": "a"}))),
            "ERR schema_mismatch|/metadata|expected a scalar, got",
        ),
        (
            "a list metadata",
            set_of(&list, t, o(json!(["a"]))),
            r#"{"f:n":{}}"#,
        ),
        (
            "a list metadata is checked",
            set_of(&list, t, o(json!("a"))),
            "ERR schema_mismatch|/metadata|expected a list, got",
        ),
        (
            "an object metadata is ObjectMeta",
            set_of(&open, t, o(json!({"name": "a", "finalizers": ["f"]}))),
            r#"{"f:metadata":{"f:finalizers":{"v:\"f\"":{}}},"f:n":{}}"#,
        ),
    ]);
}

#[test]
fn map_type_on_the_referencing_property_wins() {
    let doc = json!({"swagger": "2.0", "definitions": {
        "com.example.v1.Gadget": {"type": "object",
            "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Gadget"}],
            "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                "atomicRef": {"$ref": "#/definitions/com.example.v1.Selector"},
                "granularRef": {"$ref": "#/definitions/com.example.v1.Selector", "x-kubernetes-map-type": "granular"},
                "granularAllOf": {"allOf": [{"$ref": "#/definitions/com.example.v1.Selector"}], "x-kubernetes-map-type": "granular"},
                "atomicOverPlain": {"allOf": [{"$ref": "#/definitions/com.example.v1.Plain"}], "x-kubernetes-map-type": "atomic"}}},
        "com.example.v1.Selector": {"type": "object", "x-kubernetes-map-type": "atomic",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
        "com.example.v1.Plain": {"type": "object", "properties": {"a": {"type": "string"}}}}});
    let sc = Schema::from_bytes(doc.to_string().as_bytes(), "inline").expect("schema");
    let v = json!({"a": "1", "b": "2"});
    check_all(vec![(
        "the referenced type's map type unless the property says otherwise",
        set_of(
            &sc,
            "example.com/v1/Gadget",
            json!({"apiVersion": "example.com/v1", "kind": "Gadget",
            "atomicRef": v, "granularRef": v, "granularAllOf": v, "atomicOverPlain": {"a": "1"}}),
        ),
        r#"{"f:atomicOverPlain":{},"f:atomicRef":{},"f:granularAllOf":{"f:a":{},"f:b":{}},"f:granularRef":{"f:a":{},"f:b":{}}}"#,
    )]);
}

/// Lists that are not properties (a map's values, a list's items) and list
/// definitions behind a `$ref` are keyed by what their own schema declares,
/// as the API server's schema conversion reads it; a property's own list
/// metadata wins (review of round 8: map-value lists were atomic).
#[test]
fn own_list_metadata_of_lists_that_are_not_properties() {
    let item = json!({"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}});
    let keyed = json!({"type": "array", "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"], "items": item});
    let doc = json!({"swagger": "2.0", "definitions": {
        "com.example.v1.Rack": {"type": "object",
            "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Rack"}],
            "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                "groups": {"type": "object", "additionalProperties": keyed},
                "tagSets": {"type": "object", "additionalProperties": {"type": "array",
                    "x-kubernetes-list-type": "set", "items": {"type": "string"}}},
                "byMergeKey": {"type": "object", "additionalProperties": {"type": "array",
                    "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name", "items": item}},
                "matrix": {"type": "array", "items": keyed},
                "matrixSet": {"type": "array", "x-kubernetes-list-type": "set", "items": keyed},
                "slots": {"$ref": "#/definitions/com.example.v1.Slots"},
                "atomicSlots": {"allOf": [{"$ref": "#/definitions/com.example.v1.Slots"}],
                    "x-kubernetes-list-type": "atomic"},
                "mergeSet": {"$ref": "#/definitions/com.example.v1.MergeSet"},
                "mergeOverSlots": {"$ref": "#/definitions/com.example.v1.Slots",
                    "x-kubernetes-patch-strategy": "merge"},
                "mergeOverTags": {"$ref": "#/definitions/com.example.v1.Tags",
                    "x-kubernetes-patch-strategy": "merge"}}},
        "com.example.v1.Tags": {"type": "array", "x-kubernetes-list-type": "atomic",
            "items": {"type": "string"}},
        "com.example.v1.Slots": keyed,
        "com.example.v1.MergeSet": {"type": "array", "x-kubernetes-patch-strategy": "merge",
            "items": {"type": "string"}}}});
    let sc = Schema::from_bytes(doc.to_string().as_bytes(), "inline").expect("schema");
    let t = "example.com/v1/Rack";
    let r = |body: J| {
        let mut o = json!({"apiVersion": "example.com/v1", "kind": "Rack"});
        o.as_object_mut()
            .unwrap()
            .extend(body.as_object().unwrap().clone());
        o
    };
    let ab = json!([{"name": "a", "v": 1}, {"name": "b"}]);
    check_all(vec![
        (
            "a list-map that is a map value: items keyed",
            set_of(&sc, t, r(json!({"groups": {"g1": ab}}))),
            r#"{"f:groups":{"f:g1":{".":{},"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:v":{}},"k:{\"name\":\"b\"}":{".":{},"f:name":{}}}}}"#,
        ),
        (
            "duplicate keys in a map-value list-map",
            set_of(&sc, t, r(json!({"groups": {"g1": [{"name": "a"}, {"name": "a"}]}}))),
            "ERR duplicate_list_item|/groups/g1/1|",
        ),
        (
            "a set that is a map value: items by value",
            set_of(&sc, t, r(json!({"tagSets": {"s": ["y", "x"]}}))),
            r#"{"f:tagSets":{"f:s":{".":{},"v:\"x\"":{},"v:\"y\"":{}}}}"#,
        ),
        (
            "a merge key on a map-value list",
            set_of(&sc, t, r(json!({"byMergeKey": {"m": [{"name": "a"}]}}))),
            r#"{"f:byMergeKey":{"f:m":{".":{},"k:{\"name\":\"a\"}":{".":{},"f:name":{}}}}}"#,
        ),
        (
            "list-map items of an atomic list: the outer list stays one leaf",
            set_of(&sc, t, r(json!({"matrix": [ab]}))),
            r#"{"f:matrix":{}}"#,
        ),
        (
            "list-map items of a set: lists are no set elements",
            set_of(&sc, t, r(json!({"matrixSet": [ab]}))),
            "ERR invalid_list_item|/matrixSet/0|not supported: associative list with lists as elements",
        ),
        (
            "a list-map definition behind a $ref",
            set_of(&sc, t, r(json!({"slots": ab}))),
            r#"{"f:slots":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:v":{}},"k:{\"name\":\"b\"}":{".":{},"f:name":{}}}}"#,
        ),
        (
            "the property's own list type wins over the definition's",
            set_of(&sc, t, r(json!({"atomicSlots": ab}))),
            r#"{"f:atomicSlots":{}}"#,
        ),
        (
            "a merge strategy without key behind a $ref: a set",
            set_of(&sc, t, r(json!({"mergeSet": ["q", "p"]}))),
            r#"{"f:mergeSet":{"v:\"p\"":{},"v:\"q\"":{}}}"#,
        ),
        // `PatchMeta::declares_list`: a property's `merge` strategy alone
        // declares its list a set, over the definition's list metadata (the
        // union pass pairs by the same rule).
        (
            "a property's merge strategy alone over an atomic definition: a set",
            set_of(&sc, t, r(json!({"mergeOverTags": ["q", "p"]}))),
            r#"{"f:mergeOverTags":{"v:\"p\"":{},"v:\"q\"":{}}}"#,
        ),
        (
            "a property's merge strategy alone over a list-map definition: a set",
            set_of(&sc, t, r(json!({"mergeOverSlots": ab}))),
            "ERR invalid_list_item|/mergeOverSlots/0|associative list without keys has an element that's a map type",
        ),
    ]);
    // Extraction walks the same way: the manager's item of a map-value
    // list-map, not the whole list.
    let live = r(json!({"groups": {"g1": ab},
        "metadata": {"name": "r", "managedFields": [entry("m", json!({"f:groups": {"f:g1": {
            "k:{\"name\":\"b\"}": {".": {}, "f:name": {}}}}}))]}}));
    let arena = Arena::new();
    let v = from_serde(&arena, &live, 256).expect("object");
    let got = extract(
        &arena,
        &v,
        sc.cursor(t).expect("type"),
        "m",
        &ExtractOptions::default(),
    )
    .map(|v| to_json_string(&v))
    .map_err(|e| format!("{}|{}", e.kind().name(), e.path()));
    assert_eq!(
        got.as_deref(),
        Ok(
            r#"{"apiVersion":"example.com/v1","kind":"Rack","metadata":{"name":"r"},"groups":{"g1":[{"name":"b"}]}}"#
        )
    );
}

fn entry(manager: &str, set: J) -> J {
    json!({"manager": manager, "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": set})
}

fn extracted(obj: J, ty: &str, manager: &str, opts: ExtractOptions) -> Result<String, String> {
    let arena = Arena::new();
    let v = from_serde(&arena, &obj, 256).expect("object");
    let c = smpatch_schema::embedded().cursor(ty).expect("type");
    extract(&arena, &v, c, manager, &opts)
        .map(|v| to_json_string(&v))
        .map_err(|e| format!("{}|{}|{}", e.kind().name(), e.path(), e.message()))
}

#[test]
fn extraction_rules() {
    let d = ExtractOptions::default;
    let pod_gone_image = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "managedFields": [entry("m", json!({"f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {"f:image": {}}}}}))]}, "spec": {"containers": [{"name": "c"}]}});
    let pod_tty = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "managedFields": [entry("m", json!({"f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {"f:image": {}}}}}))]}, "spec": {"containers": [{"name": "c", "image": "i", "tty": true}]}});
    let selector = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "managedFields": [entry("m", json!({"f:spec": {"f:selector": {"f:matchLabels": {"f:a": {}}}}}))]}, "spec": {"selector": {"matchLabels": {"a": "1", "b": "2"}}}});
    let scale = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "managedFields": [
        {"manager": "m", "operation": "Apply", "apiVersion": "apps/v1", "subresource": "", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
        {"manager": "m", "operation": "Apply", "apiVersion": "apps/v1", "subresource": "scale", "fieldsV1": {"f:spec": {"f:paused": {}}}}]}, "spec": {"replicas": 2, "paused": true}});
    let empty_set = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": [{"manager": "m", "operation": "Apply", "fieldsV1": {}}]}, "data": {"a": "1"}});
    check_all(vec![
        (
            "i: never matches typed data",
            extracted(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "managedFields": [entry("m", json!({"f:spec": {"f:containers": {"i:0": {"f:image": {}}}}}))]}, "spec": {"containers": [{"name": "c", "image": "i"}]}}), "v1/Pod", "m", d()),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}"#,
        ),
        (
            "owned empty containers stay empty",
            extracted(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {}, "finalizers": [], "managedFields": [entry("m", json!({"f:metadata": {"f:labels": {}, "f:finalizers": {}}, "f:spec": {"f:tolerations": {}}}))]}, "spec": {"tolerations": []}}), "v1/Pod", "m", d()),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{},"finalizers":[]},"spec":{"tolerations":[]}}"#,
        ),
        (
            "leaf items whole, live order, unowned dropped",
            extracted(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "ownerReferences": [
                {"apiVersion": "v1", "kind": "X", "name": "b", "uid": "2"}, {"apiVersion": "v1", "kind": "X", "name": "a", "uid": "1"}, {"apiVersion": "v1", "kind": "X", "name": "z", "uid": "3"}],
                "managedFields": [entry("m", json!({"f:metadata": {"f:ownerReferences": {"k:{\"uid\":\"1\"}": {}, "k:{\"uid\":\"2\"}": {}}}}))]}}), "v1/ConfigMap", "m", d()),
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"b","uid":"2"},{"apiVersion":"v1","kind":"X","name":"a","uid":"1"}]}}"#,
        ),
        ("unowned key fields left out", extracted(pod_tty.clone(), "v1/Pod", "m", d()), r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"image":"i"}]}}"#),
        (
            "include_key_fields",
            extracted(pod_tty, "v1/Pod", "m", ExtractOptions { include_key_fields: true, ..d() }),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}"#,
        ),
        (
            "the object is validated before the entry is looked for",
            extracted(json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "TCP"}]}}), "v1/Service", "nobody", ExtractOptions::reference()),
            "ERR duplicate_list_item|/spec/ports/1|",
        ),
        (
            "fieldsV1: null is no field set",
            extracted(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": [{"manager": "m", "operation": "Apply", "fieldsV1": null}]}}), "v1/ConfigMap", "m", ExtractOptions::reference()),
            "ERR malformed_managed_fields|/metadata/managedFields/0/fieldsV1|managed fields entry 0 (manager \"m\") has no fieldsV1",
        ),
        ("empty set: identity only", extracted(empty_set.clone(), "v1/ConfigMap", "m", d()), r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}"#),
        ("empty set: reference error", extracted(empty_set, "v1/ConfigMap", "m", ExtractOptions::reference()), "ERR empty_result||unable to convert managed fields for m to unstructured, expected map, got <nil>"),
        (
            "undecodable fieldsV1 names the entry",
            extracted(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": [{"manager": "m", "operation": "Apply", "fieldsV1": {"f:data": 5}}]}}), "v1/ConfigMap", "m", d()),
            "ERR malformed_managed_fields|/metadata/managedFields/0/fieldsV1|",
        ),
        ("subresource \"\" is the main resource", extracted(scale.clone(), "apps/v1/Deployment", "m", d()), r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":2}}"#),
        (
            "subresource scale",
            extracted(scale, "apps/v1/Deployment", "m", ExtractOptions { subresource: "scale".into(), ..d() }),
            r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"paused":true}}"#,
        ),
        ("not an object", extracted(json!([1]), "v1/ConfigMap", "m", d()), "ERR invalid_object||"),
        ("metadata: null", extracted(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": null}), "v1/ConfigMap", "m", ExtractOptions::reference()), r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}"#),
        ("metadata: a string", extracted(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": "x"}), "v1/ConfigMap", "m", d()), "ERR invalid_object|/metadata|"),
        ("paths into an atomic map: omitted", extracted(selector.clone(), "apps/v1/Deployment", "m", d()), r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}"#),
        (
            "paths into an atomic map: whole in the reference (F9)",
            extracted(selector, "apps/v1/Deployment", "m", ExtractOptions::reference()),
            r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"1","b":"2"}}}}"#,
        ),
        ("owned content gone: a null item in the reference (F9)", extracted(pod_gone_image.clone(), "v1/Pod", "m", ExtractOptions::reference()), r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[null]}}"#),
        ("owned content gone: omitted", extracted(pod_gone_image, "v1/Pod", "m", d()), r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}"#),
    ]);
}
