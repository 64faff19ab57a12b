//! Model-based test of normalization: random old/new pairs of one schema
//! that holds every kind of union the crate knows (a KEP-1027 `fieldMembers`
//! union with an optional member and two empty values, a struct-level union
//! whose values are Go field names, a union without discriminator), nested
//! in itself, in a keyed list, in a keyed list that is a map value, in a
//! map and in an atomic list, beside fields that belong to no union. A small
//! independent model written from KEP-1027 and docs/UNIONS.md says which
//! members must be cleared; normalization must give exactly the model's
//! object and pointers. Then the laws: normalization is idempotent, leaves
//! its input unchanged, and after a KEP-1027 discriminator change to a
//! known value the union validates (no V3, V4 or V5 for it) whenever the
//! member the discriminator selects is set or optional.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may unwrap

use proptest::prelude::*;
use serde_json::{json, Map, Value as J};
use smpatch_schema::Schema;
use smpatch_union_normalize::{normalize, validate, Options, Rule};
use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
use std::sync::OnceLock;

fn schema() -> &'static Schema {
    static S: OnceLock<Schema> = OnceLock::new();
    S.get_or_init(|| {
        let keyed = |items: J| {
            json!({"type": "array", "x-kubernetes-list-type": "map",
                   "x-kubernetes-list-map-keys": ["name"], "items": items})
        };
        let u = json!({"$ref": "#/definitions/U"});
        let doc = json!({"swagger": "2.0", "info": {"title": "model", "version": "v1"},
            "paths": {}, "definitions": {
            "U": {"type": "object",
                "x-kubernetes-unions": [
                    {"discriminator": "k", "fields-to-discriminateBy": {"p": "P", "q": "Q"}},
                    {"fields-to-discriminateBy": {"n1": "N1", "n2": "N2"}}],
                "properties": {
                    "name": {"type": "string"},
                    "t": {"type": "string", "enum": ["A", "B", "C", ""],
                          "x-kubernetes-unions": {"fieldMembers": {
                              "A": {"name": "a"}, "B": {"name": "b", "optional": true},
                              "C": null, "": null}}},
                    "a": {"type": "integer"}, "b": {"type": "integer"},
                    "k": {"type": "string"}, "p": {"type": "string"}, "q": {"type": "string"},
                    "n1": {"type": "integer"}, "n2": {"type": "integer"},
                    "x": {"type": "integer"},
                    "sub": u}},
            "Top": {"type": "object", "properties": {
                "one": u,
                "list": keyed(u.clone()),
                "groups": {"type": "object", "additionalProperties": keyed(u.clone())},
                "map": {"type": "object", "additionalProperties": u},
                "atomic": {"type": "array", "x-kubernetes-list-type": "atomic", "items": u},
                "plain": {"type": "object"}}}}});
        Schema::from_bytes(doc.to_string().as_bytes(), "model.json").expect("model schema")
    })
}

fn scalar() -> impl Strategy<Value = Option<J>> {
    prop_oneof![
        3 => Just(None),
        1 => Just(Some(J::Null)),
        2 => (0..3i64).prop_map(|n| Some(json!(n))),
    ]
}

fn disc(values: &'static [&'static str]) -> impl Strategy<Value = Option<J>> {
    prop_oneof![
        2 => Just(None),
        1 => Just(Some(J::Null)),
        1 => Just(Some(json!(5))),
        5 => prop::sample::select(values).prop_map(|v| Some(json!(v))),
    ]
}

/// One object of type `U`, `depth` levels of `sub` at most.
fn union_obj(depth: u32) -> BoxedStrategy<J> {
    let fields = (
        prop::sample::select(&["n0", "n1", "n2"][..]),
        disc(&["A", "B", "C", "", "Z"]),
        (scalar(), scalar()),
        disc(&["P", "Q", "R", ""]),
        (scalar(), scalar(), scalar(), scalar()),
        scalar(),
    );
    let sub = if depth == 0 {
        Just(None).boxed()
    } else {
        prop::option::weighted(0.3, union_obj(depth - 1)).boxed()
    };
    (fields, sub)
        .prop_map(|((name, t, (a, b), k, (p, q, n1, n2), x), sub)| {
            let mut m = Map::new();
            m.insert("name".into(), json!(name));
            for (key, v) in [
                ("t", t),
                ("a", a),
                ("b", b),
                ("k", k),
                ("p", p.map(|v| if v.is_number() { json!("s") } else { v })),
                ("q", q.map(|v| if v.is_number() { json!("s") } else { v })),
                ("n1", n1),
                ("n2", n2),
                ("x", x),
                ("sub", sub),
            ] {
                if let Some(v) = v {
                    m.insert(key.into(), v);
                }
            }
            J::Object(m)
        })
        .boxed()
}

fn top() -> impl Strategy<Value = J> {
    let list = || prop::collection::vec(union_obj(1), 0..4);
    (
        prop::option::of(union_obj(2)),
        prop::option::of(list()),
        prop::option::of(prop::collection::btree_map(
            prop::sample::select(&["g", "h"][..]),
            list(),
            0..3,
        )),
        prop::option::of(prop::collection::btree_map(
            prop::sample::select(&["m1", "m2", "m3"][..]),
            union_obj(1),
            0..3,
        )),
        prop::option::of(union_obj(0)),
        prop::option::of(list()),
    )
        .prop_map(|(one, list, groups, map, plain, atomic)| {
            let mut m = Map::new();
            if let Some(v) = one {
                m.insert("one".into(), v);
            }
            if let Some(v) = list {
                m.insert("list".into(), J::Array(v));
            }
            if let Some(g) = groups {
                let g: Map<String, J> = g
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), J::Array(v)))
                    .collect();
                m.insert("groups".into(), J::Object(g));
            }
            if let Some(v) = map {
                let v: Map<String, J> = v.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                m.insert("map".into(), J::Object(v));
            }
            if let Some(v) = atomic {
                m.insert("atomic".into(), J::Array(v));
            }
            // Not a union type: never touched.
            if let Some(v) = plain {
                m.insert("plain".into(), v);
            }
            J::Object(m)
        })
}

/// A pair where `new` is often an edit of `old` (so that discriminators are
/// often unchanged, and keyed elements often find their counterpart).
fn pair() -> impl Strategy<Value = (J, J)> {
    (top(), top(), any::<bool>()).prop_map(|(old, other, edit)| {
        if !edit {
            return (old, other);
        }
        // new = old with `other`'s top-level fields laid over some of it.
        let mut new = old.clone();
        if let (Some(n), Some(o)) = (new.as_object_mut(), other.as_object()) {
            for (k, v) in o {
                if k.len() % 2 == 0 {
                    n.insert(k.clone(), v.clone());
                }
            }
            if let Some(J::Object(one)) = n.get_mut("one") {
                if let Some(t) = o.get("one").and_then(|x| x.get("t")) {
                    one.insert("t".into(), t.clone());
                }
            }
            // The atomic list: old's elements moved (reversed), some
            // replaced by `other`'s, some with `other`'s `t`: unchanged
            // elements pair with an equal old one wherever they moved,
            // changed ones with the old element at their index.
            if let (Some(J::Array(ol)), Some(J::Array(ot))) = (old.get("atomic"), o.get("atomic")) {
                let mut l: Vec<J> = ol.iter().rev().cloned().collect();
                for (i, e) in ot.iter().enumerate() {
                    match (i % 2, l.get_mut(i)) {
                        (1, Some(x)) => *x = e.clone(),
                        (_, None) => l.push(e.clone()),
                        (_, Some(J::Object(x))) => {
                            if let Some(t) = e.get("t") {
                                x.insert("t".into(), t.clone());
                            }
                        }
                        _ => {}
                    }
                }
                n.insert("atomic".into(), J::Array(l));
            }
        }
        (old, new)
    })
}

// ---- the model -------------------------------------------------------------

fn is_set(o: &Map<String, J>, f: &str) -> bool {
    o.get(f).is_some_and(|v| !v.is_null())
}

fn str_of<'a>(o: Option<&'a Map<String, J>>, f: &str) -> Option<&'a str> {
    o?.get(f)?.as_str()
}

/// Normalizes one `U` object against its old counterpart; pushes the
/// pointers of removed members (document order within the object).
fn model_union(
    old: Option<&Map<String, J>>,
    new: &Map<String, J>,
    at: &str,
    nd: bool,
    cleared: &mut Vec<String>,
) -> Map<String, J> {
    let mut remove: Vec<&str> = Vec::new();
    // KEP-1027 (`t`): unset (absent, null, not a string) reads as "" (no
    // default); a change keeps only the member the new value selects.
    let eff = |o: Option<&Map<String, J>>| str_of(o, "t").unwrap_or("").to_owned();
    let (before, now) = (eff(old), eff(Some(new)));
    if before != now {
        let keep = match now.as_str() {
            "A" => Some("a"),
            "B" => Some("b"),
            _ => None,
        };
        remove.extend(["a", "b"].into_iter().filter(|m| Some(*m) != keep));
    }
    // Struct-level (`k`): only a change to a value naming a member clears.
    let (kb, kn) = (str_of(old, "k"), str_of(Some(new), "k"));
    if kb != kn {
        match kn {
            Some("P") => remove.push("q"),
            Some("Q") => remove.push("p"),
            _ => {}
        }
    }
    // Without discriminator: only with the update rule, exactly one added.
    if nd {
        let empty = Map::new();
        let o = old.unwrap_or(&empty);
        let added: Vec<&str> = ["n1", "n2"]
            .into_iter()
            .filter(|m| is_set(new, m) && !is_set(o, m))
            .collect();
        if let [one] = added[..] {
            remove.extend(["n1", "n2"].into_iter().filter(|m| *m != one));
        }
    }
    let mut out = Map::new();
    for (k, v) in new {
        if remove.contains(&k.as_str()) {
            cleared.push(format!("{at}/{k}"));
            continue;
        }
        let v = if k == "sub" && v.is_object() {
            let o = old.and_then(|o| o.get("sub")).and_then(J::as_object);
            J::Object(model_union(
                o,
                v.as_object().unwrap(),
                &format!("{at}/sub"),
                nd,
                cleared,
            ))
        } else {
            v.clone()
        };
        out.insert(k.clone(), v);
    }
    out
}

fn model_list(old: Option<&J>, new: &[J], at: &str, nd: bool, cleared: &mut Vec<String>) -> J {
    let olds: Vec<&Map<String, J>> = old
        .and_then(J::as_array)
        .map(|l| l.iter().filter_map(J::as_object).collect())
        .unwrap_or_default();
    J::Array(
        new.iter()
            .enumerate()
            .map(|(i, e)| {
                let e = e.as_object().unwrap();
                // Paired by the list-map key; the first old element wins.
                let o = olds
                    .iter()
                    .find(|o| o.get("name") == e.get("name"))
                    .copied();
                J::Object(model_union(o, e, &format!("{at}/{i}"), nd, cleared))
            })
            .collect(),
    )
}

/// An atomic list: an element pairs with an old element equal to it (it
/// is unchanged, wherever it moved), else with the old element at its
/// index (docs/UNIONS.md, "Pairing list elements").
fn model_atomic(old: Option<&J>, new: &[J], at: &str, nd: bool, cleared: &mut Vec<String>) -> J {
    let olds: &[J] = old.and_then(J::as_array).map_or(&[], Vec::as_slice);
    J::Array(
        new.iter()
            .enumerate()
            .map(|(i, e)| {
                let o = olds
                    .iter()
                    .find(|o| *o == e)
                    .or(olds.get(i))
                    .and_then(J::as_object);
                J::Object(model_union(
                    o,
                    e.as_object().unwrap(),
                    &format!("{at}/{i}"),
                    nd,
                    cleared,
                ))
            })
            .collect(),
    )
}

fn model(old: &J, new: &J, nd: bool) -> (J, Vec<String>) {
    let mut cleared = Vec::new();
    let mut out = Map::new();
    for (k, v) in new.as_object().unwrap() {
        let o = old.get(k);
        let v = match k.as_str() {
            "one" => J::Object(model_union(
                o.and_then(J::as_object),
                v.as_object().unwrap(),
                "/one",
                nd,
                &mut cleared,
            )),
            "list" => model_list(o, v.as_array().unwrap(), "/list", nd, &mut cleared),
            "atomic" => model_atomic(o, v.as_array().unwrap(), "/atomic", nd, &mut cleared),
            "groups" | "map" => {
                let mut m = Map::new();
                for (g, e) in v.as_object().unwrap() {
                    let og = o.and_then(|o| o.get(g));
                    let at = format!("/{k}/{g}");
                    let e = if k == "groups" {
                        model_list(og, e.as_array().unwrap(), &at, nd, &mut cleared)
                    } else {
                        J::Object(model_union(
                            og.and_then(J::as_object),
                            e.as_object().unwrap(),
                            &at,
                            nd,
                            &mut cleared,
                        ))
                    };
                    m.insert(g.clone(), e);
                }
                J::Object(m)
            }
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    (J::Object(out), cleared)
}

// ---- the tests -------------------------------------------------------------

fn run(old: &J, new: &J, nd: bool) -> Result<(), TestCaseError> {
    let cursor = schema().cursor("Top").expect("Top");
    let opts = Options {
        non_discriminated_update: nd,
        ..Options::default()
    };
    let arena = Arena::new();
    let parse = |v: &J| {
        let text = arena.alloc_str(&v.to_string());
        parse_json(&arena, text.as_bytes(), &ParseOptions::default()).expect("parses")
    };
    let (o, n) = (parse(old), parse(new));
    let before = to_json_string(&n);
    let got = normalize(&arena, Some(o), n, cursor, &opts).expect("normalizes");
    prop_assert_eq!(to_json_string(&n), before, "the input changed");
    let value: J = serde_json::from_str(&to_json_string(&got.value)).unwrap();
    let (want, mut want_cleared) = model(old, new, nd);
    prop_assert_eq!(&value, &want);
    // Pointers in document order: the model lists them per object, and
    // objects in document order, as the walk does.
    let mut have = got.cleared.clone();
    prop_assert_eq!(&have, &want_cleared);
    have.sort();
    want_cleared.sort();
    have.dedup();
    prop_assert_eq!(have.len(), got.cleared.len(), "a pointer listed twice");

    // Idempotent.
    let again = normalize(&arena, Some(o), got.value, cursor, &opts).expect("normalizes");
    prop_assert!(
        again.cleared.is_empty(),
        "cleared again: {:?}",
        again.cleared
    );
    prop_assert_eq!(to_json_string(&again.value), to_json_string(&got.value));

    // After a change of `t` to a value that selects a member that is set
    // (or is optional, or selects none), the union `t` validates.
    let found = validate(Some(o), got.value, cursor, &opts).expect("validates");
    for (at, ov, nv) in union_places(old, &value) {
        let (b, a) = (str_of(ov, "t").unwrap_or(""), str_of(Some(nv), "t"));
        let Some(a) = a else { continue };
        let fine = match a {
            "A" => is_set(nv, "a"),
            "B" | "C" | "" => true,
            _ => false,
        };
        if a == b || !fine {
            continue;
        }
        for v in &found {
            let about_t = (v.path == at && v.rule == Rule::V3 && v.message.contains("\"t\""))
                || (v.path == format!("{at}/a") || v.path == format!("{at}/b"))
                    && matches!(v.rule, Rule::V4 | Rule::V5)
                || v.path == format!("{at}/t");
            prop_assert!(!about_t, "{} after a change of t: {:?}", at, v);
        }
    }
    Ok(())
}

/// A `U` object: its pointer, its old counterpart, the object.
type Place<'a> = (String, Option<&'a Map<String, J>>, &'a Map<String, J>);

/// Every `U` object of a normalized `Top` with its old counterpart (as the
/// model pairs them), top-level ones only.
fn union_places<'a>(old: &'a J, new: &'a J) -> Vec<Place<'a>> {
    let mut out = Vec::new();
    if let Some(n) = new.get("one").and_then(J::as_object) {
        out.push(("/one".to_owned(), old.get("one").and_then(J::as_object), n));
    }
    if let Some(m) = new.get("map").and_then(J::as_object) {
        for (k, v) in m {
            let o = old.get("map").and_then(|m| m.get(k)).and_then(J::as_object);
            out.push((format!("/map/{k}"), o, v.as_object().unwrap()));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn normalization_is_the_model((old, new) in pair(), nd in any::<bool>()) {
        run(&old, &new, nd)?;
    }

    #[test]
    fn create_is_normalization_against_an_empty_object(new in top()) {
        let cursor = schema().cursor("Top").expect("Top");
        let arena = Arena::new();
        let text = arena.alloc_str(&new.to_string());
        let n = parse_json(&arena, text.as_bytes(), &ParseOptions::default()).unwrap();
        let created = normalize(&arena, None, n, cursor, &Options::default()).unwrap();
        let value: J = serde_json::from_str(&to_json_string(&created.value)).unwrap();
        let (want, cleared) = model(&json!({}), &new, false);
        prop_assert_eq!(value, want);
        prop_assert_eq!(created.cleared, cleared);
    }
}
