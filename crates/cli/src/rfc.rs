//! `--type json` (RFC 6902 JSON patch) on arena values, so numbers keep
//! their exact text (big integers included) and compare as in the strategic
//! path ([`Value::deep_eq`]: integers and floats distinct, numerically
//! within a kind). Object members keep their order; a removed member leaves
//! the others where they were. `--type merge` (RFC 7386) is
//! `smpatch::json_merge`, shared with `smpatch apply --type merge`; the
//! tests here compare both with the `json-patch` crate.
//!
//! The walks recurse on document depth, which the parser bounds
//! (`--max-depth`); the stack grows on demand like the engines' walks.

use smpatch_value::{Arena, Member, Value};

/// Red zone and growth step of the recursive walks (as in the engines).
const STACK_RED_ZONE: usize = 64 * 1024;
const STACK_GROWTH: usize = 1024 * 1024;

fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, f)
}

/// RFC 6902: the operations that turn `original` into `modified`: members
/// and list items compared in place (`replace`), extra items removed from
/// the end and missing ones added, removed members last.
pub fn json_diff<'a>(arena: &'a Arena, original: Value<'a>, modified: Value<'a>) -> Value<'a> {
    let mut ops = Vec::new();
    let mut path = String::new();
    diff_into(arena, original, modified, &mut path, &mut ops);
    Value::array_from(arena, &ops)
}

fn op<'a>(arena: &'a Arena, name: &'a str, path: &str, value: Option<Value<'a>>) -> Value<'a> {
    let path = Value::String(arena.alloc_str(path));
    match value {
        Some(v) => Value::object_from(
            arena,
            &[("op", Value::String(name)), ("path", path), ("value", v)],
        ),
        None => Value::object_from(arena, &[("op", Value::String(name)), ("path", path)]),
    }
}

fn push_token(path: &mut String, token: &str) {
    path.push('/');
    for c in token.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

fn diff_into<'a>(
    arena: &'a Arena,
    a: Value<'a>,
    b: Value<'a>,
    path: &mut String,
    ops: &mut Vec<Value<'a>>,
) {
    let len = path.len();
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for m in y.members() {
                push_token(path, m.key);
                match x.get(m.key) {
                    Some(av) => grow(|| diff_into(arena, av, m.value, path, ops)),
                    None => ops.push(op(arena, "add", path, Some(m.value))),
                }
                path.truncate(len);
            }
            for m in x.members().iter().filter(|m| !y.contains_key(m.key)) {
                push_token(path, m.key);
                ops.push(op(arena, "remove", path, None));
                path.truncate(len);
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            let common = x.len().min(y.len());
            for i in 0..x.len().max(y.len()) {
                // Items past the common length are removed at the same
                // index one after another, or added in order.
                let index = if i < common || y.len() > x.len() {
                    i
                } else {
                    common
                };
                push_token(path, &index.to_string());
                match (x.get(i), y.get(i)) {
                    (Some(av), Some(bv)) => grow(|| diff_into(arena, *av, *bv, path, ops)),
                    (Some(_), None) => ops.push(op(arena, "remove", path, None)),
                    (None, Some(bv)) => ops.push(op(arena, "add", path, Some(*bv))),
                    (None, None) => {}
                }
                path.truncate(len);
            }
        }
        _ if a.deep_eq(&b) => {}
        _ => ops.push(op(arena, "replace", path, Some(b))),
    }
}

/// A failed RFC 6902 operation: the JSON pointer of the operation in the
/// patch (`/2`, `/2/path`) and what was wrong.
#[derive(Debug)]
pub struct PatchFailure {
    pub pointer: String,
    pub message: String,
}

fn fail(pointer: String, message: impl Into<String>) -> PatchFailure {
    PatchFailure {
        pointer,
        message: message.into(),
    }
}

/// RFC 6902: applies the operations of `patch` (a list) to `doc`, all or
/// nothing.
pub fn json_patch<'a>(
    arena: &'a Arena,
    doc: Value<'a>,
    patch: Value<'a>,
) -> Result<Value<'a>, PatchFailure> {
    let ops = patch.as_array().ok_or_else(|| {
        fail(
            String::new(),
            "an RFC 6902 JSON patch is a list of operations",
        )
    })?;
    let mut doc = doc;
    for (i, operation) in ops.iter().enumerate() {
        let at = format!("/{i}");
        let obj = operation
            .as_object()
            .ok_or_else(|| fail(at.clone(), "an operation must be an object"))?;
        let string = |key: &str| -> Result<&'a str, PatchFailure> {
            obj.get(key)
                .and_then(|v| v.as_str())
                .ok_or_else(|| fail(format!("{at}/{key}"), format!("\"{key}\" must be a string")))
        };
        let pointer = |key: &str| -> Result<Vec<String>, PatchFailure> {
            parse_pointer(string(key)?).map_err(|m| fail(format!("{at}/{key}"), m))
        };
        let value = || {
            obj.get("value")
                .ok_or_else(|| fail(at.clone(), "the operation needs a \"value\""))
        };
        let name = string("op")?;
        let path = pointer("path")?;
        let path_text = string("path")?;
        // The operation and its path lead the message: `replace
        // "/spec/x": no member "x"`.
        let in_doc = |m: String| fail(format!("{at}/path"), format!("{name} {path_text:?}: {m}"));
        doc = match name {
            "add" => edit(arena, doc, &path, Edit::Add(value()?)).map_err(in_doc)?,
            "remove" => edit(arena, doc, &path, Edit::Remove).map_err(in_doc)?,
            "replace" => edit(arena, doc, &path, Edit::Replace(value()?)).map_err(in_doc)?,
            "move" => {
                let from = pointer("from")?;
                let from_text = string("from")?;
                let in_from = |m: String| fail(format!("{at}/from"), format!("{name} from {from_text:?}: {m}"));
                if path.len() > from.len() && path[..from.len()] == from[..] {
                    return Err(fail(
                        format!("{at}/from"),
                        "cannot move a value into one of its own children",
                    ));
                }
                let moved = lookup(doc, &from).map_err(in_from)?;
                let without = edit(arena, doc, &from, Edit::Remove).map_err(in_from)?;
                edit(arena, without, &path, Edit::Add(moved)).map_err(in_doc)?
            }
            "copy" => {
                let from = pointer("from")?;
                let from_text = string("from")?;
                let copied = lookup(doc, &from)
                    .map_err(|m| fail(format!("{at}/from"), format!("copy from {from_text:?}: {m}")))?;
                edit(arena, doc, &path, Edit::Add(copied)).map_err(in_doc)?
            }
            "test" => {
                let expected = value()?;
                let found = lookup(doc, &path).map_err(in_doc)?;
                if !found.deep_eq(&expected) {
                    return Err(fail(
                        at,
                        format!("test failed: the value at {path_text:?} differs"),
                    ));
                }
                doc
            }
            other => {
                return Err(fail(
                    format!("{at}/op"),
                    format!(
                        "unknown operation {other:?}; expected add, remove, replace, move, copy or test"
                    ),
                ))
            }
        };
    }
    Ok(doc)
}

/// RFC 6901 tokens of `pointer`.
fn parse_pointer(pointer: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!(
            "{pointer:?} is not a JSON pointer (it must start with /)"
        ));
    };
    rest.split('/')
        .map(|t| {
            if t.replace("~0", "").replace("~1", "").contains('~') {
                return Err(format!("{pointer:?}: \"~\" must be followed by 0 or 1"));
            }
            Ok(t.replace("~1", "/").replace("~0", "~"))
        })
        .collect()
}

/// A list index token: `0` or digits without a leading zero.
fn index(token: &str) -> Option<usize> {
    if token.is_empty()
        || !token.bytes().all(|b| b.is_ascii_digit())
        || (token.len() > 1 && token.starts_with('0'))
    {
        return None;
    }
    token.parse().ok()
}

fn lookup<'a>(doc: Value<'a>, path: &[String]) -> Result<Value<'a>, String> {
    let mut at = doc;
    for token in path {
        at = match at {
            Value::Object(o) => o.get(token),
            Value::Array(items) => index(token).and_then(|i| items.get(i).copied()),
            _ => None,
        }
        .ok_or_else(|| format!("no value at {token:?}"))?;
    }
    Ok(at)
}

enum Edit<'a> {
    Add(Value<'a>),
    Remove,
    Replace(Value<'a>),
}

/// `doc` with the edit made at `path`; the parts off the path are shared.
fn edit<'a>(
    arena: &'a Arena,
    doc: Value<'a>,
    path: &[String],
    change: Edit<'a>,
) -> Result<Value<'a>, String> {
    let Some((token, rest)) = path.split_first() else {
        return match change {
            Edit::Add(v) | Edit::Replace(v) => Ok(v),
            Edit::Remove => Err("cannot remove the whole document".into()),
        };
    };
    match doc {
        Value::Object(o) => {
            let mut members = o.members().to_vec();
            let at = members.iter().position(|m| m.key == token.as_str());
            if !rest.is_empty() {
                let i = at.ok_or_else(|| format!("no member {token:?}"))?;
                members[i].value = grow(|| edit(arena, members[i].value, rest, change))?;
                return Ok(Value::object_from_members(arena, &members));
            }
            match (change, at) {
                (Edit::Add(v), Some(i)) | (Edit::Replace(v), Some(i)) => members[i].value = v,
                (Edit::Add(v), None) => members.push(Member {
                    key: arena.alloc_str(token),
                    value: v,
                }),
                (Edit::Remove, Some(i)) => {
                    members.remove(i);
                }
                (_, None) => return Err(format!("no member {token:?}")),
            }
            Ok(Value::object_from_members(arena, &members))
        }
        Value::Array(items) => {
            let mut items = items.to_vec();
            let i = if token == "-" && rest.is_empty() && matches!(change, Edit::Add(_)) {
                items.len()
            } else {
                index(token).ok_or_else(|| format!("{token:?} is not a list index"))?
            };
            if !rest.is_empty() {
                let item = items.get(i).copied().ok_or_else(|| no_item(i))?;
                items[i] = grow(|| edit(arena, item, rest, change))?;
                return Ok(Value::array_from(arena, &items));
            }
            match change {
                Edit::Add(v) if i <= items.len() => items.insert(i, v),
                Edit::Replace(v) if i < items.len() => items[i] = v,
                Edit::Remove if i < items.len() => {
                    items.remove(i);
                }
                _ => return Err(no_item(i)),
            }
            Ok(Value::array_from(arena, &items))
        }
        _ => Err(format!(
            "{token:?}: the value there is neither an object nor a list"
        )),
    }
}

fn no_item(i: usize) -> String {
    format!("no list item {i}")
}

#[cfg(test)]
mod tests {
    //! Differential tests against the `json-patch` crate (the CLI's former
    //! implementation), on values it can represent.
    #![allow(clippy::unwrap_used)] // tests may unwrap (clippy.toml: allow-unwrap-in-tests)

    use super::*;
    use proptest::prelude::*;
    use serde_json::Value as J;
    use smpatch::json_merge::{merge, merge_like_go as merge_like_kubectl, two_way as merge_diff};
    use smpatch_value::{from_serde, parse_json, to_json_string, to_serde, ParseOptions};

    fn json() -> impl Strategy<Value = J> {
        let leaf = prop_oneof![
            Just(J::Null),
            any::<bool>().prop_map(J::Bool),
            (-2i64..3).prop_map(J::from),
            prop_oneof![Just(0.5f64), Just(1.0), Just(-2.25)].prop_map(J::from),
            "[ab]{0,2}".prop_map(J::String),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(J::Array),
                prop::collection::vec(("[ab~/]{1,2}", inner), 0..4)
                    .prop_map(|kv| J::Object(kv.into_iter().collect())),
            ]
        })
    }

    fn object() -> impl Strategy<Value = J> {
        prop::collection::vec(("[abc]", json()), 0..4)
            .prop_map(|kv| J::Object(kv.into_iter().collect()))
    }

    proptest! {
        #[test]
        fn merge_agrees_with_json_patch(target in json(), patch in json()) {
            let arena = Arena::new();
            let (t, p) = (from_serde(&arena, &target, 64).unwrap(), from_serde(&arena, &patch, 64).unwrap());
            let mut expected = target.clone();
            json_patch::merge(&mut expected, &patch);
            prop_assert_eq!(to_serde(&merge(&arena, t, p)).unwrap(), expected);
        }

        #[test]
        fn kubectl_merge_differs_only_by_pruning_list_nulls(target in json(), patch in json()) {
            // Without nulls inside lists the Go library's merge is RFC 7386.
            prop_assume!(!null_member_in_list(&patch, false));
            let arena = Arena::new();
            let (t, p) = (from_serde(&arena, &target, 64).unwrap(), from_serde(&arena, &patch, 64).unwrap());
            prop_assert!(merge_like_kubectl(&arena, t, p).deep_eq(&merge(&arena, t, p)));
        }

        #[test]
        fn merge_diff_round_trips(o in object(), m in object()) {
            // A merge patch cannot set a null (RFC 7386).
            prop_assume!(!m.to_string().contains("null"));
            let arena = Arena::new();
            let (ov, mv) = (from_serde(&arena, &o, 64).unwrap(), from_serde(&arena, &m, 64).unwrap());
            let d = merge_diff(&arena, ov, mv);
            prop_assert!(merge(&arena, ov, d).deep_eq(&mv));
            if ov.deep_eq(&mv) {
                prop_assert_eq!(to_json_string(&d), "{}");
            }
        }

        #[test]
        fn json_diff_agrees_with_json_patch(o in json(), m in json()) {
            let arena = Arena::new();
            let (ov, mv) = (from_serde(&arena, &o, 64).unwrap(), from_serde(&arena, &m, 64).unwrap());
            let ours = json_diff(&arena, ov, mv);
            let theirs = serde_json::to_value(json_patch::diff(&o, &m)).unwrap();
            prop_assert_eq!(to_serde(&ours).unwrap(), theirs);
            let applied = json_patch(&arena, ov, ours).unwrap();
            prop_assert!(applied.deep_eq(&mv), "{} vs {}", to_json_string(&applied), to_json_string(&mv));
        }
    }

    /// Whether an object inside a list has a `null` member.
    fn null_member_in_list(j: &J, in_list: bool) -> bool {
        match j {
            J::Array(xs) => xs.iter().any(|x| null_member_in_list(x, true)),
            J::Object(m) => m
                .values()
                .any(|x| (in_list && x.is_null()) || null_member_in_list(x, in_list)),
            _ => false,
        }
    }

    #[test]
    fn merge_like_kubectl_prunes_where_the_go_library_does() {
        // Results of `kubectl patch --local --type merge` (kubectl v1.32).
        let arena = Arena::new();
        let doc = parse(&arena, r#"{"a":false,"o":{"k":1},"l":[[]]}"#);
        let run =
            |p: &'static str| to_json_string(&merge_like_kubectl(&arena, doc, parse(&arena, p)));
        // Stored where no object was: null members pruned inside lists too.
        assert_eq!(
            run(r#"{"a":[null,{"r":null,"s":2}]}"#),
            r#"{"a":[null,{"s":2}],"o":{"k":1},"l":[[]]}"#
        );
        assert_eq!(
            run(r#"{"l":[null,{"r":null}],"n":{"t":[{"u":null}],"v":null}}"#),
            r#"{"a":false,"o":{"k":1},"l":[null,{}],"n":{"t":[{}]}}"#
        );
        // A list replacing an object is stored as sent.
        assert_eq!(
            run(r#"{"o":[{"r":null}]}"#),
            r#"{"a":false,"o":[{"r":null}],"l":[[]]}"#
        );
        // The strict RFC 7386 merge keeps lists as sent everywhere.
        assert_eq!(
            to_json_string(&merge(&arena, doc, parse(&arena, r#"{"a":[{"r":null}]}"#))),
            r#"{"a":[{"r":null}],"o":{"k":1},"l":[[]]}"#
        );
    }

    fn parse<'a>(arena: &'a Arena, text: &'a str) -> Value<'a> {
        parse_json(arena, text.as_bytes(), &ParseOptions::default()).unwrap()
    }

    #[test]
    fn big_numbers_are_kept_and_compared_exactly() {
        let arena = Arena::new();
        let o = parse(&arena, r#"{"a":123456789012345678901234567890,"b":1}"#);
        let m = parse(&arena, r#"{"a":123456789012345678901234567891,"b":1}"#);
        assert_eq!(
            to_json_string(&merge_diff(&arena, o, m)),
            r#"{"a":123456789012345678901234567891}"#
        );
        assert_eq!(
            to_json_string(&json_diff(&arena, o, m)),
            r#"[{"op":"replace","path":"/a","value":123456789012345678901234567891}]"#
        );
        assert_eq!(to_json_string(&merge_diff(&arena, o, o)), "{}");
        let p = parse(
            &arena,
            r#"[{"op":"test","path":"/a","value":123456789012345678901234567890},{"op":"add","path":"/c","value":1.50}]"#,
        );
        assert_eq!(
            to_json_string(&json_patch(&arena, o, p).unwrap()),
            r#"{"a":123456789012345678901234567890,"b":1,"c":1.50}"#
        );
    }

    #[test]
    fn operations_and_their_failures() {
        let arena = Arena::new();
        let doc = parse(&arena, r#"{"a":{"b":[1,2]},"c/d":"x"}"#);
        let run = |ops: &'static str| {
            let ops = parse(&arena, ops);
            json_patch(&arena, doc, ops).map(|v| to_json_string(&v))
        };
        assert_eq!(
            run(r#"[{"op":"move","from":"/c~1d","path":"/a/b/-"}]"#).unwrap(),
            r#"{"a":{"b":[1,2,"x"]}}"#
        );
        assert_eq!(
            run(
                r#"[{"op":"copy","from":"/a/b/0","path":"/a/b/0"},{"op":"remove","path":"/a/b/2"}]"#
            )
            .unwrap(),
            r#"{"a":{"b":[1,1]},"c/d":"x"}"#
        );
        assert_eq!(
            run(r#"[{"op":"replace","path":"","value":[]}]"#).unwrap(),
            "[]"
        );
        for (ops, pointer) in [
            (r#"[{"op":"remove","path":"/x"}]"#, "/0/path"),
            (r#"[{"op":"add","path":"/a/b/5","value":1}]"#, "/0/path"),
            (r#"[{"op":"add","path":"/a/b/01","value":1}]"#, "/0/path"),
            (r#"[{"op":"move","from":"/a","path":"/a/x"}]"#, "/0/from"),
            (r#"[{"op":"test","path":"/c~1d","value":"y"}]"#, "/0"),
            (r#"[{}, {"op":"frob","path":""}]"#, "/0/op"),
            (
                r#"[{"op":"add","path":"/z","value":1},{"op":"frob","path":""}]"#,
                "/1/op",
            ),
            (r#"[{"op":"add","path":"a"}]"#, "/0/path"),
            (r#"[{"op":"add","path":"/a"}]"#, "/0"),
            (r#"{"op":"add"}"#, ""),
        ] {
            let e = run(ops).unwrap_err();
            assert_eq!(e.pointer, pointer, "{ops}: {}", e.message);
        }
    }
}
