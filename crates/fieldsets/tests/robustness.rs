//! Bad input never panics: `fields_of`, `prune` and `extract` on arbitrary
//! JSON shaped like Kubernetes objects (keys the schemas know, values of
//! every type in every place, duplicate and keyless list items) with
//! arbitrary managed sets. Each call answers a value or an error whose path
//! is a JSON pointer into the object (or into managedFields).

use proptest::prelude::*;
use serde_json::{json, Map, Value as J};
use smpatch_fieldsets::{
    extract, fields_of, prune, ExtractOptions, FieldSet, FieldsOptions, PathElement, PeValue,
};
use smpatch_value::{from_serde, to_json_string, Arena};

const KEYS: &[&str] = &[
    "spec",
    "template",
    "metadata",
    "labels",
    "containers",
    "ports",
    "selector",
    "matchLabels",
    "name",
    "port",
    "protocol",
    "containerPort",
    "image",
    "env",
    "value",
    "finalizers",
    "replicas",
    "tolerations",
    "data",
    "x",
];

fn json_value() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        (-3i64..100).prop_map(|i| json!(i)),
        Just(json!(2.5)),
        "[a-c]{0,2}".prop_map(J::String),
    ];
    leaf.prop_recursive(5, 40, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(J::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..4).prop_map(|m| {
                J::Object(
                    m.into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

fn pe() -> impl Strategy<Value = PathElement> {
    prop_oneof![
        3 => prop::sample::select(KEYS).prop_map(|k| PathElement::Field(k.to_owned())),
        1 => (prop::sample::select(&["name", "port", "containerPort"][..]), prop_oneof![
                "[a-c]{0,2}".prop_map(PeValue::String), (0i64..100).prop_map(PeValue::Int)])
            .prop_map(|(k, v)| PathElement::key(vec![(k.to_owned(), v)])),
        1 => "[a-c]{0,2}".prop_map(|s| PathElement::Value(PeValue::String(s))),
        1 => (0i64..3).prop_map(PathElement::Index),
    ]
}

fn set() -> impl Strategy<Value = FieldSet> {
    prop::collection::vec(prop::collection::vec(pe(), 1..6), 0..8).prop_map(|paths| {
        let mut s = FieldSet::new();
        for p in &paths {
            s.insert(p);
        }
        s
    })
}

fn pointer_ok(p: &str) -> bool {
    p.is_empty() || p.starts_with('/')
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_objects_and_sets_never_panic(
        body in prop::collection::vec((prop::sample::select(KEYS), json_value()), 0..5),
        owned in set(),
        ty in prop::sample::select(&["apps/v1/Deployment", "v1/Service", "v1/ConfigMap", "v1/Pod"][..]),
    ) {
        let schema = smpatch_schema::embedded();
        let cursor = schema.cursor(ty).expect("type");
        let mut obj: Map<String, J> = body.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        let fields_v1: J = serde_json::from_str(&owned.to_json()).expect("set json");
        let meta = obj.entry("metadata").or_insert_with(|| json!({}));
        if let J::Object(m) = meta {
            m.insert("managedFields".into(), json!([{"manager": "m", "operation": "Apply",
                "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": fields_v1}]));
        }
        let obj = J::Object(obj);
        let arena = Arena::new();
        let v = from_serde(&arena, &obj, 256).expect("object");
        let before = to_json_string(&v);
        for opts in [FieldsOptions::default(), FieldsOptions::update_on_create()] {
            if let Err(e) = fields_of(&v, cursor, &opts) {
                prop_assert!(pointer_ok(e.path()), "{e:?}");
            }
        }
        for opts in [ExtractOptions::default(), ExtractOptions::reference(),
                     ExtractOptions { validate: false, ..ExtractOptions::reference() },
                     ExtractOptions { validate: false, include_key_fields: true, ..ExtractOptions::default() }] {
            if let Err(e) = prune(&arena, &v, cursor, &owned, &opts) {
                prop_assert!(pointer_ok(e.path()), "{e:?}");
            }
            if let Err(e) = extract(&arena, &v, cursor, "m", &opts) {
                prop_assert!(pointer_ok(e.path()), "{e:?}");
            }
        }
        prop_assert_eq!(to_json_string(&v), before, "input unchanged");
    }
}
