//! The patch check: the rules apply enforces, run over a patch alone as if
//! the document held every field the patch names.
//!
//! Apply checks a rule only where the document gives it a reason to (a
//! `$setElementOrder` is read only where the list exists, a merge key only
//! where a list merges), so a malformed patch may apply cleanly to one
//! document and fail on another. Compose has no document: it runs this check
//! on both patches first, so that it refuses exactly the patches apply
//! refuses somewhere, with apply's error ([`crate::rules`] holds each rule
//! and its message once; the merge calls the same functions).
//!
//! Beyond apply's rules the check refuses what one composed patch cannot
//! express (apply accepts these, but merges them in ways a composition
//! cannot reproduce): two elements of a patch list with the same merge key
//! ([`ErrorKind::DuplicateMergeKey`]), a `null` merge key value
//! ([`ErrorKind::MissingMergeKey`]), `$retainKeys` entries that are not
//! strings, a `$deleteFromPrimitiveList` or `$setElementOrder` of a field
//! that is no merge list of the right kind, and unknown `$` keys
//! ([`ErrorKind::Unsupported`]). Fields the schema cannot resolve are left
//! alone (apply reports them where it merges them).

use crate::directives::{key_role, KeyRole};
use crate::identity::{identity, IdError, PosIndex};
use crate::rules::{self, KindRule, Problem};
use crate::{ApplyOptions, Error, ErrorKind};
use smpatch_schema::{grow_stack, FieldShape, KeySpec, ListPlan, Rules, Strategy, TooDeep, Walk};
use smpatch_value::{Kind, Object, Path, Value};

/// Checks `patch` against apply's rules as if the document held every field
/// it names (see the module docs); the error is apply's, at the offending
/// location in the patch. `cursor` is the patch's schema.
///
/// ```
/// use smpatch_patch_apply::{check_patch, ApplyOptions, ErrorKind};
/// use smpatch_schema::Cursor;
/// use smpatch_value::{from_serde, Arena};
///
/// let arena = Arena::new();
/// let p = from_serde(&arena, &serde_json::json!({"a": {"$patch": "remove"}}), 256).unwrap();
/// let e = check_patch(p, Cursor::UNKNOWN, &ApplyOptions::default()).unwrap_err();
/// assert_eq!((e.kind(), e.path()), (ErrorKind::UnknownPatchType, "/a/$patch"));
/// ```
pub fn check_patch(
    patch: Value<'_>,
    cursor: smpatch_schema::Cursor<'_>,
    opts: &ApplyOptions,
) -> Result<(), Error> {
    let c = Checker {
        rules: opts.rules(),
        kinds: KindRule {
            null_anywhere: true,
            numbers_one_kind: opts.fix_quirks,
        },
    };
    let root = Path::Root;
    c.object(patch, Walk::new(&root, cursor, opts.max_depth))
}

struct Checker {
    rules: Rules,
    kinds: KindRule,
}

/// The error apply gives for a patch deeper than its limit.
pub(crate) fn too_deep(e: TooDeep) -> Error {
    Error::new(
        ErrorKind::TooDeep,
        e.pointer,
        format!(
            "the patch nests deeper than the limit of {} levels; flatten it or raise max_depth",
            e.limit
        ),
    )
}

impl Checker {
    fn object(&self, p: Value<'_>, w: Walk<'_, '_>) -> Result<(), Error> {
        w.check().map_err(too_deep)?;
        grow_stack(|| self.object_inner(p, w))
    }

    fn object_inner(&self, p: Value<'_>, w: Walk<'_, '_>) -> Result<(), Error> {
        let Value::Object(o) = p else { return Ok(()) };
        let path = w.path();
        let at = |key: &str, problem: Problem| problem.at(Path::Key(path, key).pointer());
        if let Some(d) = o.get(crate::directives::PATCH) {
            rules::object_patch(&d, &p).map_err(|e| at(crate::directives::PATCH, e))?;
        }
        if let Some(rk) = o.get(crate::directives::RETAIN_KEYS) {
            let here = crate::directives::RETAIN_KEYS;
            let list = rules::retain_keys_list(&rk).map_err(|e| at(here, e))?;
            if let Some(bad) = list.iter().find(|v| v.as_str().is_none()) {
                return Err(at(
                    here,
                    Problem::new(
                        ErrorKind::InvalidRetainKeys,
                        format!(
                            "invalid patch format of retainKeys: the value must be a list of field names, but it holds a {}",
                            bad.kind().name()
                        ),
                    ),
                ));
            }
            let names: rustc_hash::FxHashSet<&str> =
                list.iter().filter_map(|v| v.as_str()).collect();
            for m in o.members() {
                let listed = names.contains(m.key);
                if !rules::retain_exempt(m) && key_role(m.key) != KeyRole::Patch && !listed {
                    return Err(at(m.key, rules::not_retained(m.key)));
                }
            }
        }
        for m in o.members() {
            match key_role(m.key) {
                KeyRole::Patch | KeyRole::RetainKeys => {}
                KeyRole::SetElementOrder(Some(f)) if !f.is_empty() => {
                    let here = Path::Key(path, m.key);
                    self.order(o, f, m.value, w.at(&here))?;
                }
                KeyRole::SetElementOrder(_) => return Err(at(m.key, rules::bad_order_key())),
                KeyRole::DeleteFromPrimitiveList(Some(f)) if !f.is_empty() => {
                    let here = Path::Key(path, m.key);
                    self.deletions(o, f, m.value, w.at(&here))?;
                }
                KeyRole::DeleteFromPrimitiveList(_) => {
                    return Err(at(m.key, rules::bad_delete_key()))
                }
                KeyRole::Field(k) if k.starts_with('$') => {
                    return Err(at(
                        k,
                        Problem::new(
                            ErrorKind::Unsupported,
                            format!(
                            "unknown directive {k:?}: apply would set it like a field; remove it"
                        ),
                        ),
                    ))
                }
                KeyRole::Field(k) => {
                    let here = Path::Key(path, k);
                    self.field(k, m.value, w, &here)?;
                }
            }
        }
        Ok(())
    }

    /// Field `k` of the object at `w`, holding `v`, at `here`.
    fn field(&self, k: &str, v: Value<'_>, w: Walk<'_, '_>, here: &Path<'_>) -> Result<(), Error> {
        match v {
            Value::Object(_) => {
                let Ok(field) = self.rules.field(w.cursor(), k, FieldShape::Object) else {
                    return Ok(());
                };
                if field.meta.strategy == Strategy::Replace {
                    return Ok(());
                }
                self.object(v, w.step(here, field.cursor))
            }
            Value::Array(items) => {
                let Ok(field) = self.rules.field(w.cursor(), k, FieldShape::List) else {
                    return Ok(());
                };
                let ListPlan::Merge(keys) = self.rules.list_plan(field.meta) else {
                    return Ok(());
                };
                let kind = rules::element_kind_problem(&[items], self.kinds)
                    .map_err(|e| e.at(here.pointer()))?;
                if kind != Some(Kind::Object) {
                    return Ok(());
                }
                if !keys.is_keyed() {
                    let name = field.cursor.type_name().unwrap_or("<unknown>");
                    return Err(rules::no_merge_key(name).at(here.pointer()));
                }
                let mut seen = PosIndex::with_capacity(items.len());
                for (i, e) in items.iter().enumerate() {
                    let at = Path::Index(here, i);
                    let d = rules::list_element_patch(e).map_err(|p| p.at(at.pointer()))?;
                    if d == Some(crate::directives::PatchDirective::Replace) {
                        continue;
                    }
                    let id = key_of(e, keys, "patch element").map_err(|p| p.at(at.pointer()))?;
                    if d.is_none() {
                        if let Some(first) = seen.insert_first(id, i) {
                            return Err(Error::new(
                                ErrorKind::DuplicateMergeKey,
                                at.pointer(),
                                format!(
                                    "the patch list has two elements with merge key {} (positions {first} and {i}); one patch cannot merge both, so send one element per key",
                                    keys.describe()
                                ),
                            ));
                        }
                        self.object(*e, w.step(&at, field.cursor))?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `$setElementOrder/<f>` of object `o`, holding `v`, at `w`.
    fn order(&self, o: Object<'_>, f: &str, v: Value<'_>, w: Walk<'_, '_>) -> Result<(), Error> {
        let here = || w.path().pointer();
        let order = rules::order_list(&v).map_err(|p| p.at(here()))?;
        let plist = rules::ordered_list(o.get(f))
            .map_err(|p| p.at(Path::Key(parent(w.path()), f).pointer()))?
            .unwrap_or(&[]);
        let Ok(field) = self.rules.field(w.cursor(), f, FieldShape::List) else {
            return Ok(());
        };
        let ListPlan::Merge(keys) = self.rules.list_plan(field.meta) else {
            return Err(Error::new(
                ErrorKind::InvalidSetElementOrder,
                here(),
                format!("invalid patch format of setElementOrder list: {f:?} is not a merge list, so it has no order to set"),
            ));
        };
        if keys.is_keyed() {
            for e in order {
                key_of(e, keys, "order element").map_err(|p| p.at(here()))?;
            }
        } else {
            let kind =
                rules::element_kind_problem(&[order], self.kinds).map_err(|p| p.at(here()))?;
            if kind == Some(Kind::Object) {
                return Err(Error::new(
                    ErrorKind::MixedElementTypes,
                    here(),
                    format!("list element types are not identical: $setElementOrder/{f} holds objects but {f:?} is a merge list of scalars"),
                ));
            }
        }
        rules::follows_order(plist, order, keys).map_err(|p| p.at(here()))
    }

    /// `$deleteFromPrimitiveList/<f>` of object `o`, holding `v`, at `w`.
    fn deletions(
        &self,
        o: Object<'_>,
        f: &str,
        v: Value<'_>,
        w: Walk<'_, '_>,
    ) -> Result<(), Error> {
        let here = || w.path().pointer();
        let del = rules::delete_list(&v).map_err(|p| p.at(here()))?;
        if let Ok(field) = self.rules.field(w.cursor(), f, FieldShape::List) {
            if self.rules.list_plan(field.meta) != ListPlan::Merge(KeySpec::Value) {
                return Err(Error::new(
                    ErrorKind::InvalidDeleteFromPrimitiveList,
                    here(),
                    format!("invalid patch format of primitive list: {f:?} is not a merge list of scalars"),
                ));
            }
        }
        if del.iter().any(Value::is_object) {
            return Err(rules::delete_objects().at(here()));
        }
        let vals = o.get(f).and_then(|v| v.as_array()).unwrap_or(&[]);
        rules::element_kind_problem(&[vals, del], self.kinds).map_err(|p| p.at(here()))?;
        Ok(())
    }
}

/// The parent of a key or index step (the root for the root).
fn parent<'p>(p: &'p Path<'p>) -> &'p Path<'p> {
    match p {
        Path::Root => p,
        Path::Key(parent, _) | Path::Index(parent, _) => parent,
    }
}

/// The identity of a keyed-list element: an object holding every key, none
/// of them `null`.
fn key_of<'a>(
    e: &Value<'a>,
    keys: KeySpec<'_>,
    what: &str,
) -> Result<crate::identity::Id<'a>, Problem> {
    let id = identity(*e, keys).map_err(|err| rules::id_problem(err, e, what))?;
    if let Some(k) = keys.names().find(|k| e.get(k).is_some_and(|v| v.is_null())) {
        return Err(rules::id_problem(IdError::Missing(k), e, what));
    }
    Ok(id)
}
