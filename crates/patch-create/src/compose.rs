//! Patch composition: the reference's COMPOSE mode (used by the three-way
//! diff, Q21 pinned) and the public composition that keeps directives (Q32
//! fixed).

use crate::diff::{lookup_error, lookup_list, lookup_object, too_deep, Index};
use crate::keys::{element_key, list_plan, KeyText, Keys, ListPlan};
use crate::path::Seg;
use crate::CreateOptions;
use rustc_hash::FxHashSet;
use smpatch_patch_apply::{ApplyOptions, Error};
use smpatch_schema::Cursor;
use smpatch_schema::Strategy;
use smpatch_value::{Arena, Value};
use smpatch_value::{Member, Object};

/// `merge_object(acc, patch, COMPOSE)` exactly as the reference composes the
/// three-way `deletions` and `delta` maps.
pub(crate) fn compose_reference<'a>(
    arena: &'a Arena,
    acc: Value<'a>,
    patch: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    smpatch_patch_apply::compose_patches(arena, acc, patch, cursor, &apply_options(opts))
}

/// The apply options matching create options.
pub(crate) fn apply_options(opts: &CreateOptions) -> ApplyOptions {
    ApplyOptions {
        fix_quirks: opts.fix_quirks,
        compound_keys: opts.compound_keys,
        max_depth: opts.depth_limit(),
        ..ApplyOptions::default()
    }
}

/// True when `v` holds a `$patch` key anywhere (iterative: any depth).
fn has_directive(v: &Value<'_>) -> bool {
    let mut stack = vec![*v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                for m in o.members() {
                    if m.key == PATCH {
                        return true;
                    }
                    stack.push(m.value);
                }
            }
            Value::Array(items) => stack.extend(items.iter().copied()),
            _ => {}
        }
    }
    false
}

const PATCH: &str = "$patch";

fn directive_of<'a>(v: &Value<'a>) -> Option<&'a str> {
    v.get(PATCH).and_then(|d| d.as_str())
}

/// The public composition: `compose_patches(p1, p2)` with `p1` as the
/// accumulator (so its directives stay), except that the parts of `p2`
/// holding `$patch` directives are carried through instead of being executed
/// against `p1` and dropped (the Q32 fix):
///
/// * an object of `p2` with `$patch` replaces what `p1` has at that key;
/// * a `p2` value (with directives inside) where `p1` has nothing of the same
///   kind is taken as sent;
/// * `$patch: delete` elements of a keyed merge list replace `p1`'s element
///   with that key (or are added);
/// * a list of `p2` with a `$patch: replace` element replaces `p1`'s list;
/// * a plain `p2` object merged onto a `p1` object that deletes it becomes a
///   `$patch: replace` of the `p2` content.
///
/// Directives nested inside the elements of a keyed list that both patches
/// hold go through the reference composition (limitation).
pub(crate) fn compose_public<'a>(
    arena: &'a Arena,
    p1: Value<'a>,
    p2: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    compose_object(arena, p1, p2, cursor, opts, 1)
}

fn compose_object<'a>(
    arena: &'a Arena,
    acc: Value<'a>,
    p2: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
    depth: usize,
) -> Result<Value<'a>, Error> {
    if depth > opts.depth_limit() {
        return Err(too_deep(&Seg::Root, opts.depth_limit()));
    }
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        compose_object_inner(arena, acc, p2, cursor, opts, depth)
    })
}

fn compose_object_inner<'a>(
    arena: &'a Arena,
    acc: Value<'a>,
    p2: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
    depth: usize,
) -> Result<Value<'a>, Error> {
    let (Value::Object(ao), Value::Object(po)) = (acc, p2) else {
        return Ok(p2);
    };
    if directive_of(&p2).is_some() {
        // apply(apply(x, p1), p2) at this object is p2's replace/delete alone.
        return Ok(p2);
    }
    if !has_directive(&p2) && !has_directive(&acc) {
        return compose_reference(arena, acc, p2, cursor, opts);
    }
    let acc_index = Index::new(ao);
    // Keys of p2 handled here, with their final values.
    let mut overrides: Vec<Member<'a>> = Vec::new();
    // Keyed lists whose delete elements are grafted after composition.
    let mut list_deletes: Vec<(&'a str, Keys<'_>, Vec<Value<'a>>)> = Vec::new();
    let mut plain: Vec<Member<'a>> = Vec::new();
    for m in po.members() {
        let (k, v) = (m.key, m.value);
        if let (Some(a), Value::Object(vo)) = (acc_index.get(k), v) {
            if directive_of(&a) == Some("delete") && directive_of(&v).is_none() {
                // p1 deletes the object, p2 then fills it: a replace.
                let mut members = vec![Member {
                    key: PATCH,
                    value: Value::String("replace"),
                }];
                members.extend_from_slice(vo.members());
                overrides.push(Member {
                    key: k,
                    value: Value::object_from_members(arena, &members),
                });
                continue;
            }
        }
        if k.starts_with('$') || !has_directive(&v) {
            plain.push(*m);
            continue;
        }
        let av = acc_index.get(k);
        match (av, v) {
            (Some(Value::Object(ac)), Value::Object(_)) => {
                let field = lookup_object(&cursor, k, opts.fix_quirks)
                    .map_err(|e| lookup_error(&Seg::Key(&Seg::Root, k), &e))?;
                let replaced = field.meta.strategy == Strategy::Replace
                    || directive_of(&Value::Object(ac)) == Some("delete");
                let value = if replaced {
                    v
                } else {
                    compose_object(arena, Value::Object(ac), v, field.cursor, opts, depth + 1)?
                };
                overrides.push(Member { key: k, value });
            }
            (Some(Value::Array(_)), Value::Array(items)) => {
                let field = lookup_list(&cursor, k, opts.fix_quirks)
                    .map_err(|e| lookup_error(&Seg::Key(&Seg::Root, k), &e))?;
                let keys = match list_plan(field.meta, opts.compound_keys) {
                    ListPlan::Merge(keys) if items.iter().all(Value::is_object) => keys,
                    _ => {
                        overrides.push(Member { key: k, value: v });
                        continue;
                    }
                };
                if items.iter().any(|e| directive_of(e) == Some("replace")) {
                    overrides.push(Member { key: k, value: v });
                    continue;
                }
                let (deletes, rest): (Vec<Value<'a>>, Vec<Value<'a>>) = items
                    .iter()
                    .partition(|e| directive_of(e) == Some("delete"));
                if !rest.is_empty() {
                    plain.push(Member {
                        key: k,
                        value: Value::Array(arena.alloc_slice_copy(&rest)),
                    });
                }
                list_deletes.push((k, keys, deletes));
            }
            _ => overrides.push(Member { key: k, value: v }),
        }
    }
    let composed = compose_reference(
        arena,
        acc,
        Value::Object(Object::from_members(arena.alloc_slice_copy(&plain))),
        cursor,
        opts,
    )?;
    let Value::Object(co) = composed else {
        return Ok(composed);
    };
    let mut out: Vec<Member<'a>> = co.members().to_vec();
    let set = |out: &mut Vec<Member<'a>>, key: &'a str, value: Value<'a>| match out
        .iter_mut()
        .find(|m| m.key == key)
    {
        Some(m) => m.value = value,
        None => out.push(Member { key, value }),
    };
    for m in overrides {
        set(&mut out, m.key, m.value);
    }
    for (k, keys, deletes) in list_deletes {
        let current: &[Value<'a>] = out
            .iter()
            .find(|m| m.key == k)
            .and_then(|m| m.value.as_array())
            .unwrap_or(&[]);
        let mut ids: FxHashSet<KeyText<'a>> = FxHashSet::default();
        for d in &deletes {
            if let Some(o) = d.as_object() {
                if let Ok(id) = element_key(&o, keys, true) {
                    ids.insert(id);
                }
            }
        }
        let mut list: Vec<Value<'a>> = current
            .iter()
            .filter(|e| {
                let id = e.as_object().and_then(|o| element_key(&o, keys, true).ok());
                !id.is_some_and(|id| ids.contains(&id))
            })
            .copied()
            .collect();
        list.extend(deletes);
        set(&mut out, k, Value::Array(arena.alloc_slice_copy(&list)));
    }
    Ok(Value::Object(Object::from_members(
        arena.alloc_slice_copy(&out),
    )))
}
