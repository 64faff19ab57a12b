//! The public `compose` carries `$patch` directives through (Q32 fix), and
//! `apply(apply(x, p1), p2) == apply(x, compose(p1, p2))` on those cases.
#![allow(clippy::unwrap_used)] // test helpers: a failure is a test failure

use proptest::prelude::*;
use serde_json::{json, Map, Value as J};
use smpatch_patch_apply::{apply, ApplyOptions, ErrorKind};
use smpatch_patch_create::{compose, create_two_way, CreateOptions};
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
        // Q8 (defaults): a replace object inserted where the field is absent
        // is dropped, so the composition writes the result with $retainKeys.
        json!({"labels": {"$retainKeys": ["w"], "w": "4"}}),
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

// ----- the law, checked with proptest ---------------------------------------

fn pick(options: &'static [&'static str]) -> impl Strategy<Value = J> {
    prop::sample::select(options).prop_map(|s| J::String(s.to_owned()))
}

fn unique(pool: &'static [&'static str], max: usize) -> impl Strategy<Value = Vec<&'static str>> {
    prop::sample::subsequence(pool, 0..=max.min(pool.len())).prop_shuffle()
}

/// `None` (absent), or a value of `s`; `null_too` adds explicit nulls.
fn field(s: impl Strategy<Value = J> + 'static, null_too: bool) -> BoxedStrategy<Option<J>> {
    if null_too {
        prop_oneof![3 => Just(None), 1 => Just(Some(J::Null)), 3 => s.prop_map(Some)].boxed()
    } else {
        prop_oneof![1 => Just(None), 2 => s.prop_map(Some)].boxed()
    }
}

fn obj(fields: Vec<(&str, Option<J>)>) -> J {
    J::Object(
        fields
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
            .collect::<Map<String, J>>(),
    )
}

/// A keyed list of `id`s from `ids` (patch: maybe with directives).
fn keyed(
    ids: &'static [&'static str],
    elem: impl Fn() -> BoxedStrategy<J> + 'static,
    patch: bool,
) -> BoxedStrategy<J> {
    unique(ids, ids.len())
        .prop_flat_map(move |ids| {
            let n = ids.len();
            (
                Just(ids),
                prop::collection::vec(elem(), n),
                prop::collection::vec(0u8..8, n),
                0u8..8,
            )
        })
        .prop_map(move |(ids, elems, dirs, replace)| {
            let mut out: Vec<J> = ids
                .iter()
                .zip(elems)
                .zip(dirs)
                .map(|((id, e), d)| {
                    let mut m = if patch && d == 0 {
                        Map::from_iter([("$patch".to_owned(), json!("delete"))])
                    } else {
                        e.as_object().cloned().unwrap_or_default()
                    };
                    m.insert("id".into(), json!(id));
                    J::Object(m)
                })
                .collect();
            if patch && replace == 0 {
                out.push(json!({"$patch": "replace"}));
            }
            J::Array(out)
        })
        .boxed()
}

fn str_map(keys: &'static [&'static str], patch: bool) -> BoxedStrategy<J> {
    prop::collection::btree_map(
        prop::sample::select(keys),
        if patch {
            prop_oneof![3 => pick(&["1", "2"]), 1 => Just(J::Null)].boxed()
        } else {
            pick(&["1", "2"]).boxed()
        },
        0..3,
    )
    .prop_map(|m| J::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
    .boxed()
}

/// An object directive on a patch object: none, `$patch: delete` or replace.
fn object_directive(v: J, d: u8, patch: bool) -> J {
    let J::Object(mut m) = v else { return v };
    match d {
        0 if patch => J::Object(Map::from_iter([("$patch".to_owned(), json!("delete"))])),
        1 if patch => {
            m.retain(|_, v| !v.is_null());
            m.insert("$patch".into(), json!("replace"));
            J::Object(m)
        }
        _ => J::Object(m),
    }
}

/// Adds a `$setElementOrder/<list>` to a patch object, listing the patch
/// list's ids (non-delete), sometimes with a known extra id, sometimes
/// both reversed.
fn with_order(m: &mut Map<String, J>, list: &str, seed: u8, extra: &str) {
    if seed % 3 != 0 {
        return;
    }
    let Some(J::Array(items)) = m.get(list) else {
        return;
    };
    if items
        .iter()
        .any(|e| e.get("$patch") == Some(&json!("replace")))
    {
        return;
    }
    let mut ids: Vec<J> = items
        .iter()
        .filter(|e| e.get("$patch").is_none())
        .filter_map(|e| e.get("id").cloned())
        .map(|id| json!({ "id": id }))
        .collect();
    if seed % 2 == 0 && !ids.contains(&json!({ "id": extra })) {
        ids.push(json!({ "id": extra }));
    }
    if seed > 6 {
        // Reversed with the patch list: apply (and compose) reject a patch
        // list that does not follow its order list.
        ids.reverse();
        if let Some(J::Array(items)) = m.get_mut(list) {
            items.reverse();
        }
    }
    if !ids.is_empty() {
        m.insert(format!("$setElementOrder/{list}"), J::Array(ids));
    }
}

fn item(patch: bool, nested: bool) -> BoxedStrategy<J> {
    let sub = if nested {
        field(
            keyed(
                &["s1", "s2", "s3"],
                move || {
                    field(pick(&["1", "2"]), patch)
                        .prop_map(|v| obj(vec![("v", v)]))
                        .boxed()
                },
                patch,
            ),
            patch,
        )
    } else {
        Just(None).boxed()
    };
    (
        field(pick(&["a", "b"]), patch),
        field(pick(&["x", "y"]), patch),
        sub,
        field(unique(&["p", "q", "r"], 3).prop_map(|v| json!(v)), patch),
        field(unique(&["p", "q", "r"], 2).prop_map(|v| json!(v)), patch),
        0u8..10,
        0u8..10,
    )
        .prop_map(move |(v, w, sub, vals, delvals, order, retain)| {
            let mut m = obj(vec![("v", v), ("w", w), ("sub", sub), ("vals", vals)]);
            if patch {
                let mo = m.as_object_mut().unwrap();
                if let Some(d) = delvals.filter(|d| !d.is_null()) {
                    mo.insert("$deleteFromPrimitiveList/vals".into(), d);
                }
                with_order(mo, "sub", order, "s2");
                if retain < 3 {
                    let mut keys: Vec<J> = mo
                        .iter()
                        .filter(|(k, v)| !k.starts_with('$') && !v.is_null())
                        .map(|(k, _)| json!(k))
                        .collect();
                    keys.push(json!("id"));
                    if retain == 0 && !keys.contains(&json!("w")) {
                        keys.push(json!("w"));
                    }
                    mo.insert("$retainKeys".into(), J::Array(keys));
                }
                if retain == 9 {
                    mo.insert("$patch".into(), json!("replace"));
                    mo.retain(|_, v| !v.is_null());
                }
            }
            m
        })
        .boxed()
}

/// A widget document (`patch = false`) or a directive-rich widget patch.
fn widget(patch: bool) -> impl Strategy<Value = J> {
    let source = (
        field(pick(&["Git", "Http"]), patch),
        field(pick(&["g1", "g2"]).prop_map(|u| json!({ "url": u })), patch),
        field(pick(&["h1", "h2"]).prop_map(|u| json!({ "url": u })), patch),
        field(pick(&["n"]), patch),
        0u8..4,
    )
        .prop_map(move |(t, g, h, n, retain)| {
            let mut m = obj(vec![("type", t), ("git", g), ("http", h), ("note", n)]);
            if patch && retain > 0 {
                let mo = m.as_object_mut().unwrap();
                let mut keys: Vec<J> = mo
                    .iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, _)| json!(k))
                    .collect();
                if retain == 1 {
                    keys.push(json!("note"));
                    keys.dedup();
                }
                mo.insert("$retainKeys".into(), J::Array(keys));
            }
            m
        });
    (
        (
            field(pick(&["w1", "w2"]), patch),
            field((0i64..3).prop_map(J::from), patch),
            field(
                (str_map(&["a", "b", "c"], patch), 0u8..6)
                    .prop_map(move |(m, d)| object_directive(m, d, patch)),
                patch,
            ),
        ),
        (
            field(
                keyed(&["a", "b", "c", "d"], move || item(patch, true), patch),
                patch,
            ),
            field(
                unique(&["x", "y", "z", "u"], 4).prop_map(|v| json!(v)),
                patch,
            ),
            field(unique(&["x", "y", "z"], 2).prop_map(|v| json!(v)), patch),
            0u8..10,
        ),
        (
            field(
                prop::collection::vec(pick(&["p", "q"]), 0..3).prop_map(J::Array),
                patch,
            ),
            field(source, patch),
        ),
        (
            field(keyed(&["a", "b"], move || item(patch, false), patch), patch),
            field(str_map(&["a", "b"], false), patch),
        ),
    )
        .prop_map(
            move |(
                (name, size, labels),
                (items, tags, deltags, order),
                (args, source),
                (mounts, blob),
            )| {
                let mut m = obj(vec![
                    ("name", name),
                    ("size", size),
                    ("labels", labels),
                    ("items", items),
                    ("tags", tags),
                    ("args", args),
                    ("source", source),
                    ("mounts", mounts),
                    ("blob", blob),
                ]);
                if patch {
                    let mo = m.as_object_mut().unwrap();
                    if let Some(d) = deltags.filter(|d| !d.is_null()) {
                        mo.insert("$deleteFromPrimitiveList/tags".into(), d);
                    }
                    with_order(mo, "items", order, "b");
                }
                m
            },
        )
}

fn schema() -> Schema {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/schemas/widget.v2.json");
    Schema::load_path(p).unwrap()
}

/// True for the merge lists of a widget (`items`, `mounts`, `sub`, `tags`,
/// `vals`).
fn is_merge_list(k: &str) -> bool {
    matches!(k, "items" | "mounts" | "sub" | "tags" | "vals")
}

/// The identity of a merge-list element: its `id`, or the value itself.
fn identity(e: &J) -> &J {
    e.get("id").unwrap_or(e)
}

/// Sorts every merge list of a widget by id or value: the law holds only up
/// to the order of merge lists (see `compose_law_strict_order`).
fn sort_merge_lists(v: &mut J) {
    sort_unfixed(v, None, false);
}

/// Sorts the merge lists in `v` whose order the second patch does not fix,
/// `p2` being the part of the second patch at `v` (`None`: all of them).
///
/// `p2` fixes the order of a list when it writes the whole list (its object
/// or an enclosing one has `$patch: replace`, or its list holds a
/// `{"$patch": "replace"}` element), or when its `$setElementOrder/<f>` names
/// every element of the resulting list. Elsewhere the order of a merged list
/// depends on which elements the document already had and where (docs/QUIRKS.md#q27: an
/// element the document lacks goes before the document's other elements, one
/// it has keeps its place), and one patch cannot order them like two patches
/// do: `d` `{"tags":["y"]}`, `p1` `{"tags":["x"]}`, `p2` `{"tags":["y"]}`
/// give `["x","y"]` in sequence, but `compose` must write `["y","x"]` or
/// `["x","y"]`, and the document `{"tags":["x"]}` (sequence: `["y","x"]`)
/// tells the two apart; no order list can help, since only the document
/// knows its own elements.
fn sort_unfixed(v: &mut J, p2: Option<&Map<String, J>>, fixed_above: bool) {
    let J::Object(m) = v else { return };
    let fixed_here = fixed_above || p2.is_some_and(|p| p.get("$patch") == Some(&json!("replace")));
    for (k, v) in m.iter_mut() {
        let p2k = p2.and_then(|p| p.get(k.as_str()));
        let J::Array(l) = v else {
            sort_unfixed(v, p2k.and_then(J::as_object), fixed_here);
            continue;
        };
        if !is_merge_list(k) {
            continue;
        }
        let p2l = p2k.and_then(J::as_array);
        for e in l.iter_mut() {
            let p2e = p2l.and_then(|p| {
                p.iter().rfind(|x| {
                    x.get("id").is_some()
                        && x.get("id") == e.get("id")
                        && x.get("$patch") != Some(&json!("delete"))
                })
            });
            sort_unfixed(e, p2e.and_then(J::as_object), fixed_here);
        }
        let replaced = p2l.is_some_and(|p| p.iter().any(|x| x == &json!({"$patch": "replace"})));
        let ordered = p2
            .and_then(|p| p.get(&format!("$setElementOrder/{k}")))
            .and_then(J::as_array)
            .is_some_and(|o| {
                l.iter()
                    .all(|e| o.iter().any(|x| identity(x) == identity(e)))
            });
        if !(fixed_here || replaced || ordered) {
            l.sort_by_key(|e| identity(e).to_string());
        }
    }
}

/// Apply and create options with `fix_quirks` set as asked.
fn options(fix_quirks: bool) -> (ApplyOptions, CreateOptions) {
    (
        ApplyOptions::default().with_fix_quirks(fix_quirks),
        CreateOptions::default().with_fix_quirks(fix_quirks),
    )
}

/// The law on one case: `Ok(())` when it holds or when a sequential apply
/// fails, else a description of the failure.
fn law(
    schema: &Schema,
    d: &J,
    p1: &J,
    p2: &J,
    fix_quirks: bool,
    strict_order: bool,
) -> Result<(), String> {
    let cursor = schema.cursor("Widget").unwrap();
    let arena = Arena::new();
    let [dv, p1v, p2v] = [d, p1, p2].map(|v| from_serde(&arena, v, 256).unwrap());
    let (ao, co) = options(fix_quirks);
    let Ok(d1) = apply(&arena, dv, p1v, cursor, &ao) else {
        return Ok(());
    };
    let Ok(d2) = apply(&arena, d1, p2v, cursor, &ao) else {
        return Ok(());
    };
    let c = match compose(&arena, p1v, p2v, cursor, &co) {
        Ok(c) => c,
        // Documented: not expressible as one patch.
        Err(e) if e.kind() == ErrorKind::Unsupported => return Ok(()),
        Err(e) => return Err(format!("compose failed: {e}")),
    };
    let cj = to_serde(&c).unwrap();
    let once = apply(&arena, dv, c, cursor, &ao)
        .map_err(|e| format!("apply of composed {cj} failed: {e}"))?;
    let (mut once, mut seq) = (to_serde(&once).unwrap(), to_serde(&d2).unwrap());
    if strict_order {
        sort_unfixed(&mut once, p2.as_object(), false);
        sort_unfixed(&mut seq, p2.as_object(), false);
    } else {
        sort_merge_lists(&mut once);
        sort_merge_lists(&mut seq);
    }
    if once != seq {
        return Err(format!("composed {cj}\n  gives {once}\n  not   {seq}"));
    }
    Ok(())
}

/// Two patches: created by `create_two_way` along `d -> d1 -> d2`, or random
/// directive-rich patches, or one of each.
fn patches() -> impl Strategy<Value = (J, J, J)> {
    (
        widget(false),
        widget(false),
        widget(false),
        widget(true),
        widget(true),
        0u8..4,
    )
        .prop_map(|(d, d1, d2, r1, r2, how)| {
            let schema = schema();
            let cursor = schema.cursor("Widget").unwrap();
            let arena = Arena::new();
            let created = |a: &J, b: &J| {
                let (a, b) = (
                    from_serde(&arena, a, 256).unwrap(),
                    from_serde(&arena, b, 256).unwrap(),
                );
                let p =
                    create_two_way(&arena, a, b, cursor, &CreateOptions::default(), &[]).unwrap();
                to_serde(&p).unwrap()
            };
            let (p1, p2) = match how {
                0 => (created(&d, &d1), created(&d1, &d2)),
                1 => (r1, r2),
                2 => (created(&d, &d1), r2),
                _ => (r1, created(&d1, &d2)),
            };
            (d, p1, p2)
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("COMPOSE_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(512),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// `apply(d, compose(p1, p2)) == apply(apply(d, p1), p2)` with `fix_quirks`.
    #[test]
    fn compose_law_with_fixes((d, p1, p2) in patches()) {
        let schema = schema();
        if let Err(e) = law(&schema, &d, &p1, &p2, true, false) {
            prop_assert!(false, "d {}\n  p1 {}\n  p2 {}\n  {}", d, p1, p2, e);
        }
    }

    /// The law including the order of merge lists wherever the second patch
    /// fixes it (`sort_unfixed` says where, and why the order cannot be
    /// exact elsewhere), with `fix_quirks`.
    #[test]
    fn compose_law_strict_order((d, p1, p2) in patches()) {
        let schema = schema();
        if let Err(e) = law(&schema, &d, &p1, &p2, true, true) {
            prop_assert!(false, "d {}\n  p1 {}\n  p2 {}\n  {}", d, p1, p2, e);
        }
    }

    /// The same law (up to merge-list order) with default options.
    #[test]
    fn compose_law_by_default((d, p1, p2) in patches()) {
        let schema = schema();
        if let Err(e) = law(&schema, &d, &p1, &p2, false, false) {
            prop_assert!(false, "d {}\n  p1 {}\n  p2 {}\n  {}", d, p1, p2, e);
        }
    }
}

/// Regression cases found by the property test (shrunk), with `fix_quirks`.
#[test]
fn regressions_with_fixes() {
    let schema = schema();
    let cases = [
        // null then a value: the value must replace, not merge.
        (
            json!({"items": [{"id": "c"}]}),
            json!({"items": null}),
            json!({"items": [{"id": "a"}]}),
        ),
        (
            json!({"labels": {"x": "1"}}),
            json!({"labels": null}),
            json!({"labels": {"a": "1"}}),
        ),
        // a nested directive inside an element both patches hold.
        (
            json!({"items": [{"id": "a", "sub": [{"id": "s1"}, {"id": "s2"}]}]}),
            json!({"items": [{"id": "a", "v": "a"}]}),
            json!({"items": [{"id": "a", "sub": [{"id": "s1", "$patch": "delete"}]}]}),
        ),
        (
            json!({"items": [{"id": "a", "v": "a", "w": "x"}]}),
            json!({"items": [{"id": "a", "v": "b"}]}),
            json!({"items": [{"id": "a", "$retainKeys": ["id", "w"], "w": "y"}]}),
        ),
        // delete of an element, then the element again.
        (
            json!({"items": [{"id": "a", "v": "a", "w": "x"}]}),
            json!({"items": [{"id": "a", "$patch": "delete"}]}),
            json!({"items": [{"id": "a", "v": "b"}]}),
        ),
        // object delete then a plain object, and the reverse.
        (
            json!({"labels": {"x": "1"}}),
            json!({"labels": {"$patch": "delete"}}),
            json!({"labels": {"a": "1"}}),
        ),
        (
            json!({}),
            json!({"labels": {"a": "1"}}),
            json!({"labels": {"$patch": "delete"}}),
        ),
        // a deletion list with the list inserted by p1.
        (
            json!({}),
            json!({"items": [{"id": "b", "vals": ["r"], "$deleteFromPrimitiveList/vals": ["r"]}]}),
            json!({"items": [{"id": "b", "vals": []}]}),
        ),
        (
            json!({}),
            json!({"items": [{"id": "b"}]}),
            json!({"items": [{"id": "b", "vals": ["r", "p"], "$deleteFromPrimitiveList/vals": ["p"]}]}),
        ),
        // $setElementOrder in p2 not naming p1's elements.
        (
            json!({}),
            json!({"mounts": [{"id": "b", "$retainKeys": ["id", "w"]}]}),
            json!({"mounts": [{"id": "a", "vals": [], "$retainKeys": ["id", "vals"]}], "$setElementOrder/mounts": [{"id": "a"}]}),
        ),
        // $retainKeys at object level in both.
        (
            json!({"source": {"type": "Git", "git": {"url": "g1"}, "note": "n"}}),
            json!({"source": {"$retainKeys": ["type", "http"], "http": {"url": "h1"}}}),
            json!({"source": {"$retainKeys": ["http", "note"], "note": "n"}}),
        ),
    ];
    for (d, p1, p2) in cases {
        if let Err(e) = law(&schema, &d, &p1, &p2, true, false) {
            panic!("d {d}\n  p1 {p1}\n  p2 {p2}\n  {e}");
        }
    }
}

/// Regression cases found by the property test (shrunk), with default
/// options.
#[test]
fn regressions_by_default() {
    let schema = schema();
    let cases = [
        // Q20: p2 empties the list p1 filled; the composed empty list must
        // not carry an order list (it fails where the document's list is
        // absent or empty).
        (
            json!({}),
            json!({"tags": ["u"]}),
            json!({"$deleteFromPrimitiveList/tags": ["u", "x"], "$setElementOrder/tags": ["z"]}),
        ),
        (
            json!({"tags": []}),
            json!({"tags": ["u"]}),
            json!({"$deleteFromPrimitiveList/tags": ["u", "x"], "$setElementOrder/tags": ["z"]}),
        ),
        // delete of an element, then the element again with directives of
        // its own: appended, the element is cleaned, its directives are not
        // executed.
        (
            json!({"items": [{"id": "d"}]}),
            json!({"items": [{"id": "d", "$patch": "delete"}]}),
            json!({"items": [{"id": "d", "sub": [{"id": "s2"}, {"id": "s1"}], "$setElementOrder/sub": [{"id": "s2"}, {"id": "s1"}], "$deleteFromPrimitiveList/vals": ["r"], "$retainKeys": ["sub", "id"]}]}),
        ),
        (
            json!({}),
            json!({"items": [{"id": "d", "$patch": "delete"}]}),
            json!({"items": [{"id": "d", "v": null, "sub": [{"id": "s1", "$patch": "delete"}]}]}),
        ),
    ];
    for (d, p1, p2) in cases {
        if let Err(e) = law(&schema, &d, &p1, &p2, false, false) {
            panic!("d {d}\n  p1 {p1}\n  p2 {p2}\n  {e}");
        }
        if let Err(e) = law(&schema, &d, &p1, &p2, true, true) {
            panic!("fix_quirks: d {d}\n  p1 {p1}\n  p2 {p2}\n  {e}");
        }
    }
}

/// The example of `sort_unfixed`: two documents that need opposite orders of
/// two elements both patches name, so no single patch orders both exactly.
#[test]
fn merge_order_depends_on_the_document() {
    let schema = schema();
    let cursor = schema.cursor("Widget").unwrap();
    let arena = Arena::new();
    let o = ApplyOptions::default();
    let p1 = from_serde(&arena, &json!({"tags": ["x"]}), 256).unwrap();
    let p2 = from_serde(&arena, &json!({"tags": ["y"]}), 256).unwrap();
    for (d, want) in [
        (json!({"tags": ["y"]}), json!({"tags": ["x", "y"]})),
        (json!({"tags": ["x"]}), json!({"tags": ["y", "x"]})),
    ] {
        let d = from_serde(&arena, &d, 256).unwrap();
        let d1 = apply(&arena, d, p1, cursor, &o).unwrap();
        let d2 = apply(&arena, d1, p2, cursor, &o).unwrap();
        assert_eq!(to_serde(&d2).unwrap(), want);
    }
}

/// Not expressible as one patch: a primitive merge list set absolutely by p1
/// (null) and then filled by p2 cannot be replaced by any single patch.
#[test]
fn primitive_list_reset_is_unsupported() {
    let schema = schema();
    let cursor = schema.cursor("Widget").unwrap();
    let arena = Arena::new();
    let p1 = from_serde(&arena, &json!({"tags": null}), 256).unwrap();
    let p2 = from_serde(&arena, &json!({"tags": ["a"]}), 256).unwrap();
    let co = CreateOptions::default().with_fix_quirks(true);
    let e = compose(&arena, p1, p2, cursor, &co).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported);
}

// ----- composing composed patches (fold) ------------------------------------

/// Which way three patches are composed.
#[derive(Clone, Copy, Debug)]
enum Fold {
    /// `compose(compose(p1, p2), p3)`, as `fold(compose)` does.
    Left,
    /// `compose(p1, compose(p2, p3))`.
    Right,
}

/// The law on three patches: `apply(d, c) == apply(apply(apply(d, p1), p2),
/// p3)` (up to merge-list order) with `c` composed the `fold` way. `Ok(())`
/// also when a sequential apply fails or a composition is `Unsupported`.
fn law3(schema: &Schema, d: &J, ps: [&J; 3], fix_quirks: bool, fold: Fold) -> Result<(), String> {
    let cursor = schema.cursor("Widget").unwrap();
    let arena = Arena::new();
    let dv = from_serde(&arena, d, 256).unwrap();
    let [p1, p2, p3] = ps.map(|p| from_serde(&arena, p, 256).unwrap());
    let (ao, co) = options(fix_quirks);
    let mut seq = dv;
    for p in [p1, p2, p3] {
        match apply(&arena, seq, p, cursor, &ao) {
            Ok(v) => seq = v,
            Err(_) => return Ok(()),
        }
    }
    let comp = |a, b| match compose(&arena, a, b, cursor, &co) {
        Ok(c) => Ok(Some(c)),
        Err(e) if e.kind() == ErrorKind::Unsupported => Ok(None),
        Err(e) => Err(format!(
            "compose of {} and {} failed: {e}",
            to_serde(&a).unwrap(),
            to_serde(&b).unwrap()
        )),
    };
    let (inner, c) = match fold {
        Fold::Left => {
            let Some(i) = comp(p1, p2)? else {
                return Ok(());
            };
            (i, comp(i, p3)?)
        }
        Fold::Right => {
            let Some(i) = comp(p2, p3)? else {
                return Ok(());
            };
            (i, comp(p1, i)?)
        }
    };
    let Some(c) = c else { return Ok(()) };
    let (ij, cj) = (to_serde(&inner).unwrap(), to_serde(&c).unwrap());
    let once = apply(&arena, dv, c, cursor, &ao)
        .map_err(|e| format!("inner {ij}\n  apply of composed {cj} failed: {e}"))?;
    let (mut once, mut seq) = (to_serde(&once).unwrap(), to_serde(&seq).unwrap());
    sort_merge_lists(&mut once);
    sort_merge_lists(&mut seq);
    if once != seq {
        return Err(format!(
            "inner {ij}\n  composed {cj}\n  gives {once}\n  not   {seq}"
        ));
    }
    Ok(())
}

/// Three patches along `d -> d1 -> d2 -> d3`: each created by
/// `create_two_way` or a random directive-rich patch.
fn patches3() -> impl Strategy<Value = (J, [J; 3])> {
    (
        (widget(false), widget(false), widget(false), widget(false)),
        (widget(true), widget(true), widget(true)),
        0u8..8,
    )
        .prop_map(|((d, d1, d2, d3), (r1, r2, r3), how)| {
            let schema = schema();
            let cursor = schema.cursor("Widget").unwrap();
            let arena = Arena::new();
            let created = |a: &J, b: &J| {
                let (a, b) = (
                    from_serde(&arena, a, 256).unwrap(),
                    from_serde(&arena, b, 256).unwrap(),
                );
                let p =
                    create_two_way(&arena, a, b, cursor, &CreateOptions::default(), &[]).unwrap();
                to_serde(&p).unwrap()
            };
            let pick = |bit: u8, c: &dyn Fn() -> J, r: J| if how & bit != 0 { c() } else { r };
            let p1 = pick(1, &|| created(&d, &d1), r1);
            let p2 = pick(2, &|| created(&d1, &d2), r2);
            let p3 = pick(4, &|| created(&d2, &d3), r3);
            (d, [p1, p2, p3])
        })
}

fn check3(d: &J, ps: &[J; 3], fix_quirks: bool) -> Result<(), String> {
    let schema = schema();
    for fold in [Fold::Left, Fold::Right] {
        law3(&schema, d, [&ps[0], &ps[1], &ps[2]], fix_quirks, fold).map_err(|e| {
            format!(
                "{fold:?} fold, fix_quirks {fix_quirks}\n  d {d}\n  p1 {}\n  p2 {}\n  p3 {}\n  {e}",
                ps[0], ps[1], ps[2]
            )
        })?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("COMPOSE_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(512),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// `apply(d, compose(compose(p1, p2), p3))` and `apply(d, compose(p1,
    /// compose(p2, p3)))` equal `apply(apply(apply(d, p1), p2), p3)` up to
    /// merge-list order, with default options: composition works on its own
    /// output.
    #[test]
    fn compose_fold_law_by_default((d, ps) in patches3()) {
        if let Err(e) = check3(&d, &ps, false) {
            prop_assert!(false, "{}", e);
        }
    }

    /// The same with `fix_quirks`.
    #[test]
    fn compose_fold_law_with_fixes((d, ps) in patches3()) {
        if let Err(e) = check3(&d, &ps, true) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// Regression cases of the fold laws (shrunk), checked both ways and with
/// and without `fix_quirks`.
#[test]
fn regressions_fold() {
    let cases = [
        // p1 deletes an element, p2 sends it again, p3 deletes it again:
        // p3's delete pairs with the re-added element, not p1's delete.
        (
            json!({"mounts": [{"id": "b"}]}),
            [
                json!({"mounts": [{"id": "b", "$patch": "delete"}]}),
                json!({"mounts": [{"id": "b"}]}),
                json!({"mounts": [{"id": "b", "$patch": "delete"}]}),
            ],
        ),
        // ... and p3 changes the re-added element (which was appended
        // cleaned: its $retainKeys is not executed).
        (
            json!({"items": [{"id": "c"}]}),
            [
                json!({"items": [{"id": "c", "$patch": "delete"}]}),
                json!({"items": [{"$retainKeys": ["id", "w"], "id": "c"}], "$setElementOrder/items": [{"id": "c"}, {"id": "b"}]}),
                json!({"items": [{"vals": [], "id": "c"}]}),
            ],
        ),
    ];
    for (d, ps) in cases {
        for fix_quirks in [false, true] {
            if let Err(e) = check3(&d, &ps, fix_quirks) {
                panic!("{e}");
            }
        }
    }
}

/// `fold(compose)` over a delete, a re-add and a change of one element
/// keeps one delete and one element; a further delete collapses to it.
#[test]
fn readded_element_composes_again() {
    let schema = schema();
    let cursor = schema.cursor("Widget").unwrap();
    let arena = Arena::new();
    let co = CreateOptions::default();
    let fold = |ps: &[J]| {
        let mut acc = from_serde(&arena, &ps[0], 256).unwrap();
        for p in &ps[1..] {
            let p = from_serde(&arena, p, 256).unwrap();
            acc = compose(&arena, acc, p, cursor, &co).unwrap();
        }
        to_serde(&acc).unwrap()
    };
    let del = json!({"items": [{"id": "a", "$patch": "delete"}]});
    let add = json!({"items": [{"id": "a", "v": "a"}]});
    let change = json!({"items": [{"id": "a", "w": "x"}]});
    assert_eq!(
        fold(&[del.clone(), add.clone(), change]),
        json!({"items": [{"id": "a", "$patch": "delete"}, {"id": "a", "v": "a", "w": "x"}]})
    );
    assert_eq!(fold(&[del.clone(), add.clone(), del.clone()]), del);
    assert_eq!(
        fold(&[del.clone(), add.clone(), del.clone(), add.clone()]),
        json!({"items": [{"id": "a", "$patch": "delete"}, {"id": "a", "v": "a"}]})
    );
}

/// The shared conformance `mergeItem` schema; `None` when the shared suite
/// is absent (the tests using it skip, after testkit's notice).
fn merge_item_schema() -> Option<Schema> {
    let p = smpatch_testkit::shared_path("conformance/schemas/merge-item.v2.json")?;
    Some(Schema::load_path(p).unwrap())
}

/// Compose on the `mergeItem` schema: the composed patch, or the error kind.
fn compose_merge_item(p1: &J, p2: &J, fix_quirks: bool) -> Result<J, ErrorKind> {
    let schema = merge_item_schema().unwrap();
    let cursor = schema.cursor("mergeItem").unwrap();
    let arena = Arena::new();
    let (p1, p2) = (
        from_serde(&arena, p1, 256).unwrap(),
        from_serde(&arena, p2, 256).unwrap(),
    );
    let co = CreateOptions::default().with_fix_quirks(fix_quirks);
    compose(&arena, p1, p2, cursor, &co)
        .map(|c| to_serde(&c).unwrap())
        .map_err(|e| e.kind())
}

/// The law on the `mergeItem` schema, with and without `fix_quirks`: the
/// composed patch gives the sequential result on `d`.
fn merge_item_law(d: &J, p1: &J, p2: &J) {
    let schema = merge_item_schema().unwrap();
    let cursor = schema.cursor("mergeItem").unwrap();
    for fix_quirks in [false, true] {
        let arena = Arena::new();
        let [dv, p1v, p2v] = [d, p1, p2].map(|v| from_serde(&arena, v, 256).unwrap());
        let (ao, co) = options(fix_quirks);
        let seq = apply(
            &arena,
            apply(&arena, dv, p1v, cursor, &ao).unwrap(),
            p2v,
            cursor,
            &ao,
        )
        .unwrap();
        let c = compose(&arena, p1v, p2v, cursor, &co).unwrap();
        let once = apply(&arena, dv, c, cursor, &ao).unwrap_or_else(|e| {
            panic!(
                "fix_quirks {fix_quirks}: composed {} fails: {e}",
                to_serde(&c).unwrap()
            )
        });
        assert_eq!(
            to_serde(&once).unwrap(),
            to_serde(&seq).unwrap(),
            "fix_quirks {fix_quirks}: composed {}",
            to_serde(&c).unwrap()
        );
    }
}

/// Fuzz finding B (docs/FUZZING.md): an order list of a field `p2` drops
/// with `$retainKeys` is not written beside `null`.
#[test]
fn fuzz_b_order_list_of_a_dropped_field() {
    if merge_item_schema().is_none() {
        return;
    }
    let (p1, p2) = (
        json!({"mergingIntList": [1]}),
        json!({"$retainKeys": [], "$setElementOrder/mergingIntList": [1]}),
    );
    merge_item_law(&json!({}), &p1, &p2);
    merge_item_law(&json!({"mergingIntList": [2]}), &p1, &p2);
    assert_eq!(
        compose_merge_item(&p1, &p2, false),
        Ok(json!({"$retainKeys": [], "mergingIntList": null}))
    );
}

/// Fuzz finding K: `$patch: delete` on a replace-strategy field deletes it.
#[test]
fn fuzz_k_delete_of_a_replace_field() {
    if merge_item_schema().is_none() {
        return;
    }
    let (p1, p2) = (
        json!({"replacingItem": {"Raw": "a"}}),
        json!({"replacingItem": {"$patch": "delete"}}),
    );
    merge_item_law(&json!({}), &p1, &p2);
    merge_item_law(&json!({"replacingItem": {"Raw": "b"}}), &p1, &p2);
    assert_eq!(compose_merge_item(&p1, &p2, true), Ok(p2.clone()));
    // And the reverse: p1 deletes, p2 sets.
    merge_item_law(&json!({"replacingItem": {"Raw": "b"}}), &p2, &p1);
    // On a merge-strategy object the delete empties it.
    merge_item_law(
        &json!({}),
        &json!({"mergeItemPtr": {"value": "a"}}),
        &json!({"mergeItemPtr": {"$patch": "delete"}}),
    );
}

/// Fuzz findings A, C-J: malformed patches compose has no document to judge
/// are refused with the error apply gives where the field exists.
#[test]
fn fuzz_malformed_patches_are_refused() {
    if merge_item_schema().is_none() {
        return;
    }
    use ErrorKind::*;
    let cases = [
        // A: duplicate merge keys.
        (
            json!({"mergingList": [{"name": "d"}]}),
            json!({"mergingList": [{"name": "a", "value": "x"}, {"name": "a"}]}),
            DuplicateMergeKey,
        ),
        // C: a keyless element.
        (
            json!({"$setElementOrder/mergingList": [{"name": "a"}]}),
            json!({"mergingList": [{"name": "b"}, {}]}),
            MissingMergeKey,
        ),
        // D: a null deletion list.
        (
            json!({"$deleteFromPrimitiveList/mergingIntList": [1]}),
            json!({"$deleteFromPrimitiveList/mergingIntList": null}),
            InvalidDeleteFromPrimitiveList,
        ),
        // E: a deletion list of a keyed list.
        (
            json!({"$deleteFromPrimitiveList/mergingList": [{"name": "e"}]}),
            json!({"mergingList": []}),
            InvalidDeleteFromPrimitiveList,
        ),
        // F: `$patch: null`.
        (
            json!({"mergeItemPtr": {"$patch": null, "value": "a"}}),
            json!({"mergeItemPtr": {"other": "b"}}),
            UnknownPatchType,
        ),
        // G: an unknown directive.
        (
            json!({"$unknownDirective": [1]}),
            json!({"$retainKeys": []}),
            Unsupported,
        ),
        // H: an order list of a keyed list holding a string.
        (
            json!({"$setElementOrder/mergingList": ["x"]}),
            json!({"mergingList": [{"name": "e"}]}),
            ExpectedObject,
        ),
        // I: deletion lists of two kinds (each patch is well typed alone).
        (
            json!({"$deleteFromPrimitiveList/mergingIntList": [1]}),
            json!({"$deleteFromPrimitiveList/mergingIntList": ["a"]}),
            MixedElementTypes,
        ),
        (
            json!({"$deleteFromPrimitiveList/nonMergingIntList": [1]}),
            json!({"$deleteFromPrimitiveList/nonMergingIntList": ["a"]}),
            InvalidDeleteFromPrimitiveList,
        ),
        // J: a null merge key.
        (
            json!({"mergingList": null}),
            json!({"mergingList": [{"name": null}]}),
            MissingMergeKey,
        ),
        // One patch's order list of objects against the other's scalar
        // values in a keyed list (CI fuzz finding).
        (
            json!({"$setElementOrder/retainKeysMergingList": [{"name": "e"}, {"name": "d"}]}),
            json!({"retainKeysMergingList": [-0.5, -0.5, -0.5]}),
            MixedElementTypes,
        ),
        // A patch list that does not follow its order list.
        (
            json!({}),
            json!({"mergingList": [{"name": "a"}, {"name": "b"}], "$setElementOrder/mergingList": [{"name": "b"}, {"name": "a"}]}),
            OrderMismatch,
        ),
    ];
    for (p1, p2, kind) in cases {
        for fix_quirks in [false, true] {
            assert_eq!(
                compose_merge_item(&p1, &p2, fix_quirks),
                Err(kind),
                "fix_quirks {fix_quirks}: p1 {p1}\n  p2 {p2}"
            );
            // Either patch refused in either place.
            assert_eq!(
                compose_merge_item(&p2, &p1, fix_quirks).err().map(|_| ()),
                Some(()),
                "fix_quirks {fix_quirks}, swapped: p1 {p2}\n  p2 {p1}"
            );
        }
    }
}

/// A merge list of scalars with a repeated value cannot be composed
/// exactly (apply keeps the repeats of a list it stores, and merges them
/// away into a live list): compose refuses it with `unsupported`, naming
/// the repeated element (CI fuzz findings; the first was open since the
/// verify-fuzz round).
#[test]
fn fuzz_repeated_scalar_values_are_refused() {
    if merge_item_schema().is_none() {
        return;
    }
    let cases = [
        (
            json!({"mergingIntList": [1, 1]}),
            json!({"$setElementOrder/mergingIntList": [1]}),
        ),
        (
            json!({"mergeItemPtr": 5, "mergingIntList": [true, false, false], "$setElementOrder/mergingIntList": []}),
            json!({"value": null, "retainKeysMap": null, "$deleteFromPrimitiveList/mergingIntList": []}),
        ),
    ];
    for (p1, p2) in cases {
        for fix_quirks in [false, true] {
            assert_eq!(
                compose_merge_item(&p1, &p2, fix_quirks),
                Err(ErrorKind::Unsupported),
                "fix_quirks {fix_quirks}: p1 {p1}\n  p2 {p2}"
            );
        }
    }
    // Distinct values compose as before.
    assert!(compose_merge_item(
        &json!({"mergingIntList": [1, 2]}),
        &json!({"$setElementOrder/mergingIntList": [2, 1]}),
        false
    )
    .is_ok());
}

/// Fuzz finding (round 7, docs/FUZZING.md): p1's empty order list of the
/// keyed `mergingList` and p2's list of scalars for it each apply to a
/// document without the list, but one patch holding both is refused by
/// apply (the reference's `validatePatchWithSetOrderList`): compose refuses
/// it too instead of answering a patch that cannot apply.
#[test]
fn fuzz_keyed_list_of_scalars_beside_an_order_list() {
    if merge_item_schema().is_none() {
        return;
    }
    let p1 = json!({"$setElementOrder/mergingList": []});
    let p2 = json!({"mergingList": ["$patch"], "name": "b"});
    for fix_quirks in [false, true] {
        assert_eq!(
            compose_merge_item(&p1, &p2, fix_quirks),
            Err(ErrorKind::Unsupported),
            "fix_quirks {fix_quirks}"
        );
    }
    // The same with a retainKeys list and a string (verify-apply7's find,
    // made before the fix landed).
    let p1 = json!({"$setElementOrder/retainKeysMergingList": []});
    let p2 = json!({"retainKeysMergingList": ["c"]});
    for fix_quirks in [false, true] {
        assert_eq!(
            compose_merge_item(&p1, &p2, fix_quirks),
            Err(ErrorKind::Unsupported),
            "fix_quirks {fix_quirks}"
        );
    }
    // Either patch alone, or an order list naming objects, still composes.
    merge_item_law(&json!({"other": ""}), &json!({}), &p2);
    merge_item_law(
        &json!({"other": ""}),
        &json!({"$setElementOrder/mergingList": [{"name": "a"}]}),
        &json!({"mergingList": [{"name": "a", "value": "x"}]}),
    );
}
