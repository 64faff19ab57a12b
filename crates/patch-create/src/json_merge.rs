//! RFC 7386 JSON merge patches on arena values: the patch type `kubectl`
//! uses for kinds it has no Go type for (custom resources,
//! [kubernetes/kubernetes#58414](https://github.com/kubernetes/kubernetes/issues/58414)).
//!
//! - [`merge`]: RFC 7386 as written; [`merge_like_go`]: as the Go library
//!   kubectl and the API server use (`evanphx/json-patch` v4 `MergePatch`,
//!   what `kubectl patch --type merge` gives).
//! - [`two_way`]: the merge patch from one document to another
//!   (`smpatch diff --type merge`).
//! - [`three_way`]: `kubectl apply`'s patch for such kinds (the reference's
//!   `CreateThreeWayJSONMergePatch`): the additions and changes from the live
//!   object to the manifest, plus the deletions from the last-applied
//!   configuration to the manifest.
//!
//! No schema is involved: lists are replaced whole, `null` deletes.
//! Numbers keep their exact text and compare as in the strategic path
//! ([`Value::deep_eq`]: integers and floats distinct). Object members keep
//! their order; a removed member leaves the others where they were.
//!
//! The walks recurse on document depth, which the parser bounds; the stack
//! grows on demand like the strategic walks.
//!
//! ```
//! use smpatch_patch_create::json_merge::{merge_like_go, three_way};
//! use smpatch_value::{from_serde, to_serde, Arena};
//! use serde_json::json;
//!
//! let arena = Arena::new();
//! let v = |j| from_serde(&arena, &j, 256).unwrap();
//! let original = v(json!({"spec": {"a": 1, "tags": ["x"]}}));
//! let modified = v(json!({"spec": {"tags": ["y"]}}));
//! let current = v(json!({"spec": {"a": 1, "b": 2, "tags": ["x", "z"]}}));
//! let patch = three_way(&arena, original, modified, current, &[]).unwrap();
//! // `a` left the manifest: deleted; `b` only the live object has: kept;
//! // the list is replaced whole.
//! assert_eq!(to_serde(&patch).unwrap(), json!({"spec": {"a": null, "tags": ["y"]}}));
//! let merged = merge_like_go(&arena, current, patch);
//! assert_eq!(to_serde(&merged).unwrap(), json!({"spec": {"b": 2, "tags": ["y"]}}));
//! ```

use crate::{check_preconditions, Precondition};
use smpatch_patch_apply::Error;
use smpatch_value::{Arena, Member, Object, Value};
use std::collections::HashMap;

/// Red zone and growth step of the recursive walks (as in the engines).
const STACK_RED_ZONE: usize = 64 * 1024;
const STACK_GROWTH: usize = 1024 * 1024;

fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, f)
}

/// RFC 7386: `patch` merged into `target` (lists and values stored as
/// sent; `null` members delete).
///
/// ```
/// use smpatch_patch_create::json_merge::merge;
/// use smpatch_value::{from_serde, to_serde, Arena};
/// use serde_json::json;
/// let arena = Arena::new();
/// let t = from_serde(&arena, &json!({"a": 1, "b": {"c": 2}}), 256).unwrap();
/// let p = from_serde(&arena, &json!({"a": null, "b": {"d": [{"e": null}]}}), 256).unwrap();
/// assert_eq!(to_serde(&merge(&arena, t, p)).unwrap(), json!({"b": {"c": 2, "d": [{"e": null}]}}));
/// ```
pub fn merge<'a>(arena: &'a Arena, target: Value<'a>, patch: Value<'a>) -> Value<'a> {
    merge_with(arena, target, patch, false)
}

/// RFC 7386 as the Go library kubectl and the API server use
/// (`evanphx/json-patch` v4 `MergePatch`) does it: a patch value stored
/// where the target holds no object (absent, `null`, a scalar or a list)
/// loses its `null` members at every depth, inside lists too
/// (`{"a":[{"b":null}]}` stores `{"a":[{}]}`; `null` list items stay); a
/// list replacing an object is stored as sent. [`merge`] keeps lists as
/// sent everywhere. A patch that is not an object replaces the target
/// (callers that want kubectl's refusal check first).
///
/// ```
/// use smpatch_patch_create::json_merge::merge_like_go;
/// use smpatch_value::{from_serde, to_serde, Arena};
/// use serde_json::json;
/// let arena = Arena::new();
/// let t = from_serde(&arena, &json!({"a": 1}), 256).unwrap();
/// let p = from_serde(&arena, &json!({"b": [{"c": null, "d": 1}]}), 256).unwrap();
/// assert_eq!(to_serde(&merge_like_go(&arena, t, p)).unwrap(), json!({"a": 1, "b": [{"d": 1}]}));
/// ```
pub fn merge_like_go<'a>(arena: &'a Arena, target: Value<'a>, patch: Value<'a>) -> Value<'a> {
    merge_with(arena, target, patch, true)
}

fn merge_with<'a>(arena: &'a Arena, target: Value<'a>, patch: Value<'a>, go: bool) -> Value<'a> {
    let Some(p) = patch.as_object() else {
        if go && !target.is_object() {
            return prune_nulls(arena, patch);
        }
        return patch;
    };
    let mut members: Vec<Option<Member<'a>>> = target
        .as_object()
        .map(|t| t.members().iter().copied().map(Some).collect())
        .unwrap_or_default();
    // Wide objects find keys through an index, narrow ones by a scan, so
    // merging stays linear in an object's width.
    let mut index = (members.len().saturating_add(p.len()) > SCAN_MAX).then(|| {
        let mut map = HashMap::with_capacity(members.len());
        for (i, t) in members.iter().flatten().enumerate() {
            map.entry(t.key).or_insert(i);
        }
        map
    });
    for m in p.members() {
        let at = match &index {
            Some(map) => map.get(m.key).copied(),
            None => members
                .iter()
                .position(|t| t.as_ref().is_some_and(|t| t.key == m.key)),
        };
        match (at, m.value.is_null()) {
            (Some(i), true) => {
                members[i] = None;
                if let Some(map) = index.as_mut() {
                    map.remove(m.key);
                }
            }
            (None, true) => {}
            (Some(i), false) => {
                if let Some(t) = members[i].as_mut() {
                    t.value = grow(|| merge_with(arena, t.value, m.value, go));
                }
            }
            (None, false) => {
                if let Some(map) = index.as_mut() {
                    map.insert(m.key, members.len());
                }
                members.push(Some(Member {
                    key: m.key,
                    value: grow(|| merge_with(arena, Value::Null, m.value, go)),
                }));
            }
        }
    }
    let members: Vec<Member<'a>> = members.into_iter().flatten().collect();
    Value::object_from_members(arena, &members)
}

/// Members (of an object and its patch, or of the two objects diffed)
/// past which keys are found through a hash map instead of a scan. The
/// map hashes with SipHash: keys may come from untrusted input.
const SCAN_MAX: usize = 16;

/// The members of `o` by key, when `o` and `other` together are wide
/// (else `None`: [`lookup`] scans).
fn key_map<'a>(o: Object<'a>, other: usize) -> Option<HashMap<&'a str, Value<'a>>> {
    (o.len().saturating_add(other) > SCAN_MAX).then(|| {
        let mut map = HashMap::with_capacity(o.len());
        for m in o.members() {
            map.entry(m.key).or_insert(m.value);
        }
        map
    })
}

/// The value of `key` in `o`, through its [`key_map`] when it has one.
fn lookup<'a>(
    o: Object<'a>,
    map: Option<&HashMap<&'a str, Value<'a>>>,
    key: &str,
) -> Option<Value<'a>> {
    match map {
        Some(map) => map.get(key).copied(),
        None => o.get(key),
    }
}

/// `v` without the `null` members of its objects, at every depth (`null`
/// list items stay): the Go library's `pruneNulls`.
fn prune_nulls<'a>(arena: &'a Arena, v: Value<'a>) -> Value<'a> {
    if let Some(items) = v.as_array() {
        let items: Vec<Value<'a>> = items
            .iter()
            .map(|x| {
                if x.is_null() {
                    *x
                } else {
                    grow(|| prune_nulls(arena, *x))
                }
            })
            .collect();
        return Value::array_from(arena, &items);
    }
    let Some(o) = v.as_object() else {
        return v;
    };
    let members: Vec<Member<'a>> = o
        .members()
        .iter()
        .filter(|m| !m.value.is_null())
        .map(|m| Member {
            key: m.key,
            value: grow(|| prune_nulls(arena, m.value)),
        })
        .collect();
    Value::object_from_members(arena, &members)
}

/// RFC 7386: the merge patch that turns `original` into `modified`
/// (members `modified` lacks become `null`, changed values are sent whole
/// unless both sides are objects; not objects: `modified` itself).
///
/// ```
/// use smpatch_patch_create::json_merge::two_way;
/// use smpatch_value::{from_serde, to_serde, Arena};
/// use serde_json::json;
/// let arena = Arena::new();
/// let o = from_serde(&arena, &json!({"a": 1, "b": {"c": [1], "d": 2}}), 256).unwrap();
/// let m = from_serde(&arena, &json!({"b": {"c": [1, 2], "d": 2}}), 256).unwrap();
/// assert_eq!(to_serde(&two_way(&arena, o, m)).unwrap(), json!({"a": null, "b": {"c": [1, 2]}}));
/// ```
pub fn two_way<'a>(arena: &'a Arena, original: Value<'a>, modified: Value<'a>) -> Value<'a> {
    let (Some(a), Some(b)) = (original.as_object(), modified.as_object()) else {
        return modified;
    };
    let (a_keys, b_keys) = (key_map(a, b.len()), key_map(b, a.len()));
    let mut out: Vec<Member<'a>> = a
        .members()
        .iter()
        .filter(|m| lookup(b, b_keys.as_ref(), m.key).is_none())
        .map(|m| Member {
            key: m.key,
            value: Value::Null,
        })
        .collect();
    for m in b.members() {
        match lookup(a, a_keys.as_ref(), m.key) {
            // Objects on both sides: their own patch, when not empty (no
            // deep comparison first, so nesting stays linear).
            Some(av) if av.is_object() && m.value.is_object() => {
                let inner = grow(|| two_way(arena, av, m.value));
                if inner.as_object().is_some_and(|o| !o.is_empty()) {
                    out.push(Member {
                        key: m.key,
                        value: inner,
                    });
                }
            }
            Some(av) if av.deep_eq(&m.value) => {}
            _ => out.push(*m),
        }
    }
    Value::object_from_members(arena, &out)
}

/// `kubectl apply`'s three-way JSON merge patch (the reference's
/// `CreateThreeWayJSONMergePatch`, what kubectl sends for a kind it has no
/// Go type for):
///
/// 1. the additions and changes: [`two_way`] from `current` (the live
///    object) to `modified` (the manifest) without its `null` members;
/// 2. the deletions: [`two_way`] from `original` (the last-applied
///    configuration) to `modified`, its `null` members alone (so fields
///    only the live object has are kept);
/// 3. in both, an object left empty by that filter is dropped, while an
///    empty object the manifest sets (`{}`) is a value (a change, never a
///    deletion); lists and scalars are values, replaced whole;
/// 4. the changes merged into the deletions as [`merge_like_go`] does,
///    then `preconditions` checked on the result (kubectl passes
///    `RequireKeyUnchanged("apiVersion")`, `RequireKeyUnchanged("kind")`,
///    `RequireMetadataKeyUnchanged("name")`).
///
/// The reference also checks the two halves for conflicts; they never
/// have any (a change is where the manifest holds a value, a deletion
/// where it holds none or `null`), so there is no overwrite option: an
/// apply in this mode always takes the manifest's values.
///
/// Errors: `precondition_failed` (path of the failed key). Documents that
/// are not objects count as `{}` (a `modified` that is no object gives an
/// empty patch: callers refuse such documents first).
pub fn three_way<'a>(
    arena: &'a Arena,
    original: Value<'a>,
    modified: Value<'a>,
    current: Value<'a>,
    preconditions: &[Precondition],
) -> Result<Value<'a>, Error> {
    let objects = |v: Value<'a>| v.as_object().unwrap_or_default();
    let changes = two_way(arena, Value::Object(objects(current)), modified);
    let changes = keep(arena, objects(changes), false);
    let deletions = two_way(arena, Value::Object(objects(original)), modified);
    let deletions = keep(arena, objects(deletions), true);
    let patch = merge_like_go(
        arena,
        Value::object_from_members(arena, &deletions),
        Value::object_from_members(arena, &changes),
    );
    check_preconditions(&patch, preconditions)?;
    Ok(patch)
}

/// The members of a merge patch that are deletions (`nulls`: the `null`
/// members alone) or additions and changes (the others), at every object
/// depth: the reference's `keepOrDeleteNullInObj`. An object left empty is
/// dropped; an empty object in the patch is a value.
fn keep<'a>(arena: &'a Arena, patch: Object<'a>, nulls: bool) -> Vec<Member<'a>> {
    let mut out = Vec::new();
    for m in patch.members() {
        match m.value {
            Value::Null if nulls => out.push(*m),
            Value::Null => {}
            // An empty object is a value: a change, never a deletion.
            Value::Object(o) if o.is_empty() && !nulls => out.push(*m),
            Value::Object(o) if o.is_empty() => {}
            Value::Object(o) => {
                let inner = grow(|| keep(arena, o, nulls));
                if !inner.is_empty() {
                    out.push(Member {
                        key: m.key,
                        value: Value::object_from_members(arena, &inner),
                    });
                }
            }
            _ if !nulls => out.push(*m),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! Expected results derived by hand from the reference's algorithm
    //! (`CreateThreeWayJSONMergePatch` over `evanphx/json-patch` v4
    //! `CreateMergePatch` and `MergePatch`).
    #![allow(clippy::unwrap_used)] // tests may unwrap (clippy.toml: allow-unwrap-in-tests)

    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value as J};
    use smpatch_value::{from_serde, to_json_string, to_serde};

    fn run(o: J, m: J, c: J) -> Result<J, Error> {
        let arena = Arena::new();
        let v = |j: &J| from_serde(&arena, j, 256).unwrap();
        let p = three_way(&arena, v(&o), v(&m), v(&c), &[])?;
        Ok(to_serde(&p).unwrap())
    }

    #[test]
    fn deletions_come_from_the_last_applied_configuration_only() {
        // `b` was applied before and left the manifest: deleted. `x` only
        // the live object has (a controller set it): kept.
        let p = run(
            json!({"a": 1, "b": 2}),
            json!({"a": 1}),
            json!({"a": 1, "b": 2, "x": 3}),
        );
        assert_eq!(p.unwrap(), json!({"b": null}));
        // A field the live object lost is not deleted again, only where
        // the last-applied configuration had it.
        let p = run(json!({}), json!({"a": 1}), json!({"x": 3}));
        assert_eq!(p.unwrap(), json!({"a": 1}));
    }

    #[test]
    fn changes_come_from_the_live_object() {
        // The live value drifted from the manifest: set back even though
        // the manifest did not change (no conflict check in this mode).
        let p = run(json!({"a": 1}), json!({"a": 1}), json!({"a": 5}));
        assert_eq!(p.unwrap(), json!({"a": 1}));
        let p = run(
            json!({"s": {"a": 1}}),
            json!({"s": {"a": 2, "n": {"k": "v"}}}),
            json!({"s": {"a": 1, "z": 0}}),
        );
        assert_eq!(p.unwrap(), json!({"s": {"a": 2, "n": {"k": "v"}}}));
        // Nothing to do.
        let p = run(json!({"a": 1}), json!({"a": 1}), json!({"a": 1, "b": 2}));
        assert_eq!(p.unwrap(), json!({}));
    }

    #[test]
    fn lists_are_replaced_whole() {
        let p = run(
            json!({"l": [{"name": "a", "v": 1}]}),
            json!({"l": [{"name": "a", "v": 2}]}),
            json!({"l": [{"name": "a", "v": 1}, {"name": "live-only"}]}),
        );
        assert_eq!(p.unwrap(), json!({"l": [{"name": "a", "v": 2}]}));
        // A list the manifest dropped is deleted whole.
        let p = run(json!({"l": [1]}), json!({}), json!({"l": [1, 2]}));
        assert_eq!(p.unwrap(), json!({"l": null}));
        // Equal lists: nothing.
        let p = run(json!({"l": [1]}), json!({"l": [1]}), json!({"l": [1]}));
        assert_eq!(p.unwrap(), json!({}));
    }

    #[test]
    fn nulls_in_the_manifest_delete() {
        // getDiff(original, modified) answers null for `a` (type changed
        // to nil): a deletion; getDiff(current, modified) answers null too,
        // dropped from the changes.
        let p = run(json!({"a": 1}), json!({"a": null}), json!({"a": 1}));
        assert_eq!(p.unwrap(), json!({"a": null}));
        // Not in the last-applied configuration either: still a deletion
        // (the member is new in modified and null).
        let p = run(json!({}), json!({"a": null}), json!({"a": 1}));
        assert_eq!(p.unwrap(), json!({"a": null}));
        // Null in both original and modified: no deletion; the live value
        // is not a change either (a null is no value to set).
        let p = run(json!({"a": null}), json!({"a": null}), json!({"a": 1}));
        assert_eq!(p.unwrap(), json!({}));
        // Inside a new object: the object carries the deletion, its
        // values the change.
        let p = run(json!({}), json!({"o": {"a": null, "b": 1}}), json!({}));
        assert_eq!(p.unwrap(), json!({"o": {"a": null, "b": 1}}));
        // Nulls inside a list of a new member are pruned by the merge of
        // the two halves (MergePatch's pruneNulls).
        let p = run(
            json!({}),
            json!({"l": [{"a": null, "b": 1}, null]}),
            json!({}),
        );
        assert_eq!(p.unwrap(), json!({"l": [{"b": 1}, null]}));
    }

    #[test]
    fn empty_objects_are_values_not_deletions() {
        // The manifest empties an object: each old member is deleted, and
        // the empty object itself is set where the live object lacks it.
        let p = run(
            json!({"o": {"a": 1}}),
            json!({"o": {}}),
            json!({"o": {"a": 1}}),
        );
        assert_eq!(p.unwrap(), json!({"o": {"a": null}}));
        let p = run(json!({"o": {"a": 1}}), json!({"o": {}}), json!({}));
        assert_eq!(p.unwrap(), json!({"o": {"a": null}}));
        let p = run(json!({}), json!({"o": {}}), json!({}));
        assert_eq!(p.unwrap(), json!({"o": {}}));
        // Equal empty objects: nothing.
        let p = run(
            json!({"o": {"p": {}}}),
            json!({"o": {"p": {}}}),
            json!({"o": {"p": {}}}),
        );
        assert_eq!(p.unwrap(), json!({}));
    }

    #[test]
    fn type_changes_replace() {
        let p = run(
            json!({"a": {"b": 1}}),
            json!({"a": [1]}),
            json!({"a": {"b": 1, "c": 2}}),
        );
        assert_eq!(p.unwrap(), json!({"a": [1]}));
        let p = run(json!({"a": [1]}), json!({"a": {"b": 1}}), json!({"a": [1]}));
        assert_eq!(p.unwrap(), json!({"a": {"b": 1}}));
        let p = run(
            json!({"a": "s"}),
            json!({"a": {"b": null}}),
            json!({"a": "s"}),
        );
        assert_eq!(p.unwrap(), json!({"a": {"b": null}}));
    }

    #[test]
    fn preconditions_are_checked_on_the_patch() {
        let arena = Arena::new();
        let v = |j: J| from_serde(&arena, &j, 256).unwrap();
        let pre = [
            Precondition::RequireKeyUnchanged("kind".into()),
            Precondition::RequireMetadataKeyUnchanged("name".into()),
        ];
        let o = v(json!({"kind": "W", "metadata": {"name": "a"}}));
        let e = three_way(
            &arena,
            o,
            v(json!({"kind": "W", "metadata": {"name": "b"}})),
            o,
            &pre,
        )
        .unwrap_err();
        assert_eq!(e.kind(), smpatch_patch_apply::ErrorKind::PreconditionFailed);
        assert_eq!(e.path(), "/metadata/name");
        let ok = three_way(
            &arena,
            o,
            o,
            v(json!({"kind": "W", "metadata": {"name": "a", "uid": "1"}})),
            &pre,
        );
        assert_eq!(to_json_string(&ok.unwrap()), "{}");
    }

    #[test]
    fn big_numbers_are_kept_exactly() {
        let arena = Arena::new();
        let p = |s: &'static str| {
            smpatch_value::parse_json(&arena, s.as_bytes(), &Default::default()).unwrap()
        };
        let o = p(r#"{"a":123456789012345678901234567890}"#);
        let m = p(r#"{"a":123456789012345678901234567891}"#);
        let patch = three_way(&arena, o, m, o, &[]).unwrap();
        assert_eq!(
            to_json_string(&patch),
            r#"{"a":123456789012345678901234567891}"#
        );
    }

    fn json() -> impl Strategy<Value = J> {
        let leaf = prop_oneof![
            Just(J::Null),
            any::<bool>().prop_map(J::Bool),
            (0i64..3).prop_map(J::from),
            "[ab]{0,1}".prop_map(J::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(J::Array),
                prop::collection::vec(("[abc]", inner), 0..4)
                    .prop_map(|kv| J::Object(kv.into_iter().collect())),
            ]
        })
    }

    fn object() -> impl Strategy<Value = J> {
        prop::collection::vec(("[abc]", json()), 0..4)
            .prop_map(|kv| J::Object(kv.into_iter().collect()))
    }

    /// `v` with the `null` members of its objects removed at every depth.
    fn no_null_members(v: &J) -> J {
        match v {
            J::Object(m) => J::Object(
                m.iter()
                    .filter(|(_, x)| !x.is_null())
                    .map(|(k, x)| (k.clone(), no_null_members(x)))
                    .collect(),
            ),
            J::Array(xs) => J::Array(xs.iter().map(no_null_members).collect()),
            x => x.clone(),
        }
    }

    proptest! {
        /// The laws of `kubectl apply` in this mode: after applying, the
        /// object holds the manifest (without its nulls) wherever the
        /// manifest has an object member; members the last-applied
        /// configuration had and the manifest dropped are gone; members
        /// only the live object has stay.
        #[test]
        fn applying_the_patch_gives_the_manifest_over_the_live_object(
            o in object(), m in object(), c in object()
        ) {
            let arena = Arena::new();
            let v = |j: &J| from_serde(&arena, j, 64).unwrap();
            let patch = three_way(&arena, v(&o), v(&m), v(&c), &[]).unwrap();
            let merged = to_serde(&merge_like_go(&arena, v(&c), patch)).unwrap();
            let (J::Object(mm), J::Object(om), J::Object(cm), J::Object(out)) = (&m, &o, &c, &merged)
            else { unreachable!() };
            for (k, mv) in mm {
                if mv.is_null() {
                    // A null already in the last-applied configuration is
                    // no change of the manifest: the live value stays.
                    if om.get(k).is_some_and(|x| x.is_null()) {
                        prop_assert_eq!(out.get(k), cm.get(k));
                    } else {
                        prop_assert!(!out.contains_key(k), "{k} null in the manifest stays");
                    }
                } else if !mv.is_object() {
                    // Stored pruned as MergePatch stores it, unless the
                    // live value already was the manifest's.
                    prop_assert!(out[k] == *mv || out[k] == no_null_members(mv));
                }
            }
            for k in om.keys().filter(|k| !mm.contains_key(*k)) {
                prop_assert!(!out.contains_key(k), "{k} dropped from the manifest stays");
            }
            for (k, cv) in cm.iter().filter(|(k, _)| !mm.contains_key(*k) && !om.contains_key(*k)) {
                prop_assert_eq!(&out[k], cv);
            }
            // Applying once more changes nothing.
            let again = three_way(&arena, v(&m), v(&m), v(&merged), &[]).unwrap();
            let twice = to_serde(&merge_like_go(&arena, v(&merged), again)).unwrap();
            prop_assert_eq!(twice, merged);
        }
    }

    /// RFC 7386 written out over ordered member lists, for the wide-object
    /// checks below (kept members in place, new ones appended).
    fn naive_merge(t: &J, p: &J) -> J {
        let Some(p) = p.as_object() else {
            return p.clone();
        };
        let mut out: Vec<(String, J)> = match t.as_object() {
            Some(t) => t.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            None => Vec::new(),
        };
        for (k, v) in p {
            let at = out.iter().position(|(x, _)| x == k);
            match (at, v.is_null()) {
                (Some(i), true) => {
                    out.remove(i);
                }
                (None, true) => {}
                (Some(i), false) => out[i].1 = naive_merge(&out[i].1, v),
                (None, false) => out.push((k.clone(), naive_merge(&J::Null, v))),
            }
        }
        J::Object(out.into_iter().collect())
    }

    /// Objects of up to 40 members over 48 possible keys (many shared),
    /// values null, numbers or one more such level.
    fn wide() -> impl Strategy<Value = J> {
        let leaf = prop_oneof![Just(J::Null), (0u8..4).prop_map(|n| json!(n))];
        let obj = |inner: BoxedStrategy<J>| {
            prop::collection::vec((0u8..48, inner), 0..40).prop_map(|kv| {
                let mut m = serde_json::Map::new();
                for (k, v) in kv {
                    m.insert(format!("k{k}"), v);
                }
                J::Object(m)
            })
        };
        let inner = obj(leaf.clone().boxed()).boxed();
        obj(prop_oneof![leaf, inner].boxed())
    }

    proptest! {
        /// Wide objects (keys found through the index) merge and diff as
        /// the member-by-member definition does.
        #[test]
        fn wide_objects_merge_and_diff_as_defined(t in wide(), p in wide()) {
            let arena = Arena::new();
            let v = |j: &J| from_serde(&arena, j, 256).unwrap();
            let merged_v = merge(&arena, v(&t), v(&p));
            // Member order (serde_json's map may sort): kept members in
            // place, new ones appended.
            let mut order: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
            for (k, x) in p.as_object().unwrap() {
                match (order.iter().position(|o| o == k), x.is_null()) {
                    (Some(i), true) => {
                        order.remove(i);
                    }
                    (None, false) => order.push(k),
                    _ => {}
                }
            }
            let keys: Vec<&str> = merged_v.as_object().unwrap().members().iter().map(|m| m.key).collect();
            prop_assert_eq!(keys, order);
            let merged = to_serde(&merged_v).unwrap();
            prop_assert_eq!(
                serde_json::to_string(&merged).unwrap(),
                serde_json::to_string(&naive_merge(&t, &p)).unwrap()
            );
            // The two-way patch turns t into merged.
            let d = two_way(&arena, v(&t), v(&merged));
            let again = to_serde(&merge(&arena, v(&t), d)).unwrap();
            prop_assert_eq!(again, merged);
        }
    }
}
