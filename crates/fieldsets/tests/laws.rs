//! Property tests: the set algebra laws, the FieldsV1 encoding round trip,
//! and the extraction subset law (docs/FIELDSETS.md; KEP-2155).

use proptest::prelude::*;
use serde_json::{json, Map, Value as J};
use smpatch_fieldsets::{
    extract, fields_of, prune, ExtractOptions, FieldSet, FieldsOptions, PathElement, PeValue,
};
use smpatch_schema::Schema;
use smpatch_value::{from_serde, Arena};

fn pe_value() -> impl Strategy<Value = PeValue> {
    let leaf = prop_oneof![
        Just(PeValue::Null),
        any::<bool>().prop_map(PeValue::Bool),
        (-1000i64..1000).prop_map(PeValue::Int),
        prop_oneof![Just(2.5), Just(-0.125), Just(1e-7), Just(1e21), Just(3.0)]
            .prop_map(PeValue::Float),
        "[a-c<&\"\\\\\u{2028}é]{0,3}".prop_map(PeValue::String),
    ];
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(PeValue::Array),
            prop::collection::btree_map("[ab]{1,2}", inner, 0..3)
                .prop_map(|m| PeValue::Object(m.into_iter().collect())),
        ]
    })
}

fn pe() -> impl Strategy<Value = PathElement> {
    prop_oneof![
        "[a-c.:<\"\\\\\n ]{0,3}".prop_map(PathElement::Field),
        // Key field names may repeat (the reader keeps every occurrence, as
        // the reference does) and hold JSON punctuation.
        prop::collection::vec(("(port|name|id|q\"\\}|,:\\[)", pe_value()), 1..4)
            .prop_map(PathElement::key),
        pe_value().prop_map(PathElement::Value),
        (-3i64..30).prop_map(PathElement::Index),
    ]
}

fn set() -> impl Strategy<Value = FieldSet> {
    prop::collection::vec(prop::collection::vec(pe(), 1..5), 0..10).prop_map(|paths| {
        let mut s = FieldSet::new();
        for p in &paths {
            s.insert(p);
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn union_and_intersection_laws(a in set(), b in set(), c in set()) {
        prop_assert_eq!(a.union(&b), b.union(&a));
        prop_assert_eq!(a.union(&b).union(&c), a.union(&b.union(&c)));
        prop_assert_eq!(a.union(&a), a.clone());
        prop_assert_eq!(a.union(&FieldSet::new()), a.clone());
        prop_assert_eq!(a.intersection(&b), b.intersection(&a));
        prop_assert_eq!(a.intersection(&b).intersection(&c), a.intersection(&b.intersection(&c)));
        prop_assert_eq!(a.intersection(&a), a.clone());
    }

    #[test]
    fn difference_laws(a in set(), b in set()) {
        let d = a.difference(&b);
        prop_assert!(d.is_subset(&a));
        prop_assert!(d.intersection(&b).is_empty());
        prop_assert_eq!(d.union(&a.intersection(&b)), a.clone());
        prop_assert!(a.recursive_difference(&b).is_subset(&d));
        for p in a.recursive_difference(&b).paths() {
            for n in 1..=p.len() {
                prop_assert!(!b.has(&p[..n]));
            }
        }
    }

    #[test]
    fn leaves_laws(a in set()) {
        let l = a.leaves();
        prop_assert!(l.is_subset(&a));
        prop_assert_eq!(l.leaves(), l.clone());
        // No node of the leaves is both a member and a prefix: no `".":{}`.
        let self_marker = l.to_json().contains("{\".\":");
        prop_assert!(!self_marker);
        prop_assert_eq!(l.paths(), a.leaf_paths());
    }

    #[test]
    fn encoding_round_trip(a in set()) {
        let text = a.to_json();
        let back = FieldSet::from_json(text.as_bytes()).expect("own output decodes");
        prop_assert_eq!(&back, &a);
        prop_assert_eq!(back.to_json(), text);
        let len = a.len();
        prop_assert_eq!(a.paths().len(), len);
        for p in a.paths() {
            prop_assert!(a.has(&p));
        }
    }

    #[test]
    fn to_serde_is_the_parsed_canonical_text(a in set()) {
        // The direct value (members in canonical order) is exactly what the
        // canonical text parses to, and writes back to the same bytes.
        let text = a.to_json();
        let v = a.to_serde();
        let parsed: serde_json::Value = serde_json::from_str(&text).expect("own output parses");
        prop_assert_eq!(&v, &parsed);
        prop_assert_eq!(serde_json::to_string(&v).expect("writes"), text);
    }

    #[test]
    fn insertion_order_does_not_matter(paths in prop::collection::vec(prop::collection::vec(pe(), 1..4), 0..8)) {
        let mut fwd = FieldSet::new();
        for p in &paths { fwd.insert(p); }
        let mut rev = FieldSet::new();
        for p in paths.iter().rev() { rev.insert(p); }
        prop_assert_eq!(fwd.to_json(), rev.to_json());
    }
}

// ---------------------------------------------------------------------------
// Subset law: fields_of(prune(O, S)) ⊆ S, S = fields_of(v), O = v + extras.

const SCHEMA: &str = r#"{"swagger":"2.0","definitions":{"org.example.v1.Box":{
 "type":"object","x-kubernetes-group-version-kind":[{"group":"example.org","version":"v1","kind":"Box"}],
 "properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},
  "metadata":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
  "spec":{"type":"object","properties":{
  "count":{"type":"integer"},"title":{"type":"string"},
  "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
  "items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["id"],
    "items":{"type":"object","properties":{"id":{"type":"string"},"size":{"type":"integer"},
      "meta":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}}}},
  "args":{"type":"array","items":{"type":"string"}},
  "env":{"type":"object","additionalProperties":{"type":"string"}},
  "lock":{"type":"object","x-kubernetes-map-type":"atomic","properties":{"k":{"type":"string"}}},
  "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}}}"#;

fn small_json() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::from),
        (0i64..9).prop_map(J::from),
        "[xy]{0,2}".prop_map(J::from)
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(J::Array),
            prop::collection::btree_map("[pq]", inner, 0..3)
                .prop_map(|m| J::Object(m.into_iter().collect())),
        ]
    })
}

fn item() -> impl Strategy<Value = J> {
    (
        "[a-d]",
        prop::option::of(0i64..5),
        prop::option::of((prop::option::of("[uv]"), prop::option::of("[uv]"))),
    )
        .prop_map(|(id, size, meta)| {
            let mut o = Map::new();
            o.insert("id".into(), J::from(id));
            if let Some(s) = size {
                o.insert("size".into(), J::from(s));
            }
            if let Some((a, b)) = meta {
                let mut m = Map::new();
                if let Some(a) = a {
                    m.insert("a".into(), J::from(a));
                }
                if let Some(b) = b {
                    m.insert("b".into(), J::from(b));
                }
                o.insert("meta".into(), J::Object(m));
            }
            J::Object(o)
        })
}

fn spec() -> impl Strategy<Value = J> {
    (
        prop::option::of(0i64..9),
        prop::option::of("[a-z]{0,3}"),
        prop::option::of(prop::collection::btree_set("[a-d]", 0..4)),
        prop::option::of(prop::collection::vec(item(), 0..4)),
        prop::option::of(prop::collection::vec("[a-c]", 0..3)),
        prop::option::of(prop::collection::btree_map("[e-h]", "[0-9]", 0..3)),
        prop::option::of(prop::option::of("[kl]")),
        prop::option::of(small_json()),
    )
        .prop_map(|(count, title, tags, items, args, env, lock, extra)| {
            let mut s = Map::new();
            if let Some(c) = count {
                s.insert("count".into(), J::from(c));
            }
            if let Some(t) = title {
                s.insert("title".into(), J::from(t));
            }
            if let Some(t) = tags {
                s.insert("tags".into(), J::from(t.into_iter().collect::<Vec<_>>()));
            }
            if let Some(items) = items {
                let mut seen = std::collections::BTreeSet::new();
                let uniq: Vec<J> = items
                    .into_iter()
                    .filter(|i| seen.insert(i["id"].to_string()))
                    .collect();
                s.insert("items".into(), J::Array(uniq));
            }
            if let Some(a) = args {
                s.insert("args".into(), J::from(a));
            }
            if let Some(e) = env {
                s.insert("env".into(), json!(e));
            }
            if let Some(l) = lock {
                s.insert("lock".into(), l.map(|k| json!({"k": k})).unwrap_or(J::Null));
            }
            if let Some(x) = extra {
                if x.is_object() {
                    s.insert("extra".into(), x);
                }
            }
            json!({"spec": J::Object(s)})
        })
}

/// `over` laid onto `base` the way a merge keeps both managers' content:
/// objects merge, keyed items merge by id, set lists unite, everything else
/// takes `over`'s value.
fn overlay(base: &J, over: &J, field: &str) -> J {
    match (base, over) {
        (J::Object(b), J::Object(o)) if field != "lock" => {
            let mut out = b.clone();
            for (k, v) in o {
                let merged = match b.get(k) {
                    Some(bv) => overlay(bv, v, k),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            J::Object(out)
        }
        (J::Array(b), J::Array(o)) if field == "items" => {
            let mut out: Vec<J> = b.clone();
            for it in o {
                match out.iter_mut().find(|x| x["id"] == it["id"]) {
                    Some(x) => *x = overlay(x, it, ""),
                    None => out.push(it.clone()),
                }
            }
            J::Array(out)
        }
        (J::Array(b), J::Array(o)) if field == "tags" => {
            let mut out = b.clone();
            for t in o {
                if !out.contains(t) {
                    out.push(t.clone());
                }
            }
            J::Array(out)
        }
        _ => over.clone(),
    }
}

fn drop_some(v: &J, mask: &[bool], at: &mut usize) -> J {
    match v {
        J::Object(o) => {
            let mut out = Map::new();
            for (k, x) in o {
                *at += 1;
                if mask.get(*at % mask.len().max(1)).copied().unwrap_or(false) {
                    continue;
                }
                out.insert(k.clone(), drop_some(x, mask, at));
            }
            J::Object(out)
        }
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn extraction_subset_law(applied in spec(), others in spec(), mask in prop::collection::vec(prop::bool::weighted(0.15), 1..16), drop in any::<bool>()) {
        let schema = Schema::from_bytes(SCHEMA.as_bytes(), "laws").expect("schema");
        let cursor = schema.cursor("example.org/v1/Box").expect("Box");
        let arena = Arena::new();
        let v = from_serde(&arena, &applied, 64).expect("v");
        let owned = fields_of(&v, cursor, &FieldsOptions::default()).expect("fields of v");
        let opts = ExtractOptions::default();

        // Round trip: nobody else touched the object.
        let e = prune(&arena, &v, cursor, &owned, &opts).expect("prune v");
        let back = match e { Some(e) => fields_of(&e, cursor, &FieldsOptions::default()).expect("fields of e"), None => FieldSet::new() };
        prop_assert_eq!(back.to_json(), owned.to_json());

        // Others added content, changed values, maybe removed some.
        let mut live = overlay(&applied, &others, "");
        live = overlay(&live, &applied, "");
        if drop {
            let mut at = 0;
            live = drop_some(&live, &mask, &mut at);
        }
        let o = from_serde(&arena, &live, 64).expect("live");
        let e = prune(&arena, &o, cursor, &owned, &opts).expect("prune live");
        if let Some(e) = e {
            let fs = fields_of(&e, cursor, &FieldsOptions::default()).expect("fields of extract");
            prop_assert!(fs.is_subset(&owned), "{} not within {}", fs.to_json(), owned.to_json());
        }

        // The same through `extract`, with the set recorded as the manager's
        // Apply entry of the live object (identity fields added, stripped
        // again by `fields_of`).
        let mut with_entry = live.clone();
        if let J::Object(m) = &mut with_entry {
            m.insert("apiVersion".into(), json!("example.org/v1"));
            m.insert("kind".into(), json!("Box"));
            let fields: J = serde_json::from_str(&owned.to_json()).expect("set json");
            m.insert("metadata".into(), json!({"name": "b", "managedFields": [
                {"manager": "other", "operation": "Update", "apiVersion": "example.org/v1", "fieldsV1": {}},
                {"manager": "me", "operation": "Apply", "apiVersion": "example.org/v1", "fieldsType": "FieldsV1", "fieldsV1": fields}]}));
        }
        let o = from_serde(&arena, &with_entry, 64).expect("live with entry");
        let cfg = extract(&arena, &o, cursor, "me", &opts).expect("extract");
        let fs = fields_of(&cfg, cursor, &FieldsOptions::default()).expect("fields of extract");
        prop_assert!(fs.is_subset(&owned), "{} not within {}", fs.to_json(), owned.to_json());
        prop_assert_eq!(cfg.get("metadata").and_then(|m| m.get("name")).and_then(|n| n.as_str()), Some("b"));
    }
}

fn reversed(v: &J) -> J {
    match v {
        J::Object(o) => J::Object(
            o.iter()
                .rev()
                .map(|(k, x)| (k.clone(), reversed(x)))
                .collect(),
        ),
        J::Array(a) => J::Array(a.iter().rev().map(reversed).collect()),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The set does not depend on member order or on the order of list
    /// items (atomic lists are leaves, so reversing them changes nothing).
    #[test]
    fn fields_of_ignores_order(applied in spec()) {
        let schema = Schema::from_bytes(SCHEMA.as_bytes(), "laws").expect("schema");
        let cursor = schema.cursor("example.org/v1/Box").expect("Box");
        let arena = Arena::new();
        let a = from_serde(&arena, &applied, 64).expect("a");
        let b = from_serde(&arena, &reversed(&applied), 64).expect("b");
        let opts = FieldsOptions::default();
        prop_assert_eq!(
            fields_of(&a, cursor, &opts).expect("a").to_json(),
            fields_of(&b, cursor, &opts).expect("b").to_json()
        );
    }
}
