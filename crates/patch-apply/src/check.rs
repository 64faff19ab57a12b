//! The patch checks: the rules apply enforces, run over a patch alone as if
//! the document held every field the patch names ([`check_patch`]), and
//! those rules plus the patches no single composed patch can stand for
//! ([`check_composable`], run by `smpatch-patch-create`'s `compose`).
//!
//! Apply checks a rule only where the document gives it a reason to (a
//! `$setElementOrder` is read only where the list exists, a merge key only
//! where a list merges), so a malformed patch may apply cleanly to one
//! document and fail on another. Compose has no document: it checks both
//! patches first, so that it refuses the patches apply refuses somewhere,
//! with apply's error ([`crate::rules`] holds each rule and its message
//! once; the merge calls the same functions). Fields the schema cannot
//! resolve are left alone (apply reports them where it merges them).
//!
//! A `null` merge key: apply appends such a patch element (no live element
//! has that identity) and keeps the key, the element's identity, as the
//! reference does (it stores the element as sent); a `null` member deletes
//! the key from an element it merges into, which then has no identity to
//! order by ([`ErrorKind::MissingMergeKey`]). [`check_patch`] accepts it,
//! [`check_composable`] refuses it.

use crate::directives::{key_role, KeyRole};
use crate::identity::{identity, IdError, PosIndex};
use crate::rules::{self, KindRule, Problem};
use crate::{ApplyOptions, Error, ErrorKind};
use smpatch_schema::{grow_stack, FieldShape, KeySpec, ListPlan, Rules, Strategy, TooDeep, Walk};
use smpatch_value::hashing::HashSet;
use smpatch_value::{Kind, Object, Path, Value};

/// Checks `patch` against apply's rules as if the document held every field
/// it names (see the module docs); the error is apply's, at the offending
/// location in the patch. `cursor` is the patch's schema. A patch that
/// passes may still fail on a document (apply's element-kind and ordering
/// rules also read the document's lists).
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
    Checker::new(opts, Scope::Apply).run(patch, cursor)
}

/// [`check_patch`] plus the refusals of a patch composition: patches apply
/// accepts but merges in ways no single composed patch can reproduce (or
/// that apply merges as data although they look like directives). Public
/// `compose` runs it on both patches. Beyond apply's rules it refuses:
///
/// * two elements of a patch list with the same merge key
///   ([`ErrorKind::DuplicateMergeKey`]; apply merges the second into the
///   first);
/// * a `null` merge key in a `$setElementOrder` list
///   ([`ErrorKind::MissingMergeKey`]; apply orders by it);
/// * `$retainKeys` entries that are not strings
///   ([`ErrorKind::InvalidRetainKeys`]; apply ignores them);
/// * a `$deleteFromPrimitiveList/<f>` whose value is no list, or whose `f`
///   is no merge list of scalars, or that holds objects
///   ([`ErrorKind::InvalidDeleteFromPrimitiveList`]; without `fix_quirks`
///   apply deletes `f` on `null`, ignores a scalar, and deletes from an
///   atomic list or merges objects as a merge patch);
/// * a `$setElementOrder/<f>` whose `f` is no merge list
///   ([`ErrorKind::InvalidSetElementOrder`]), or that holds objects or
///   scalars of two kinds for a merge list of scalars
///   ([`ErrorKind::MixedElementTypes`]; apply orders by it anyway);
/// * keys starting with `$` that name no directive
///   ([`ErrorKind::Unsupported`]; apply stores them as fields).
///
/// docs/ERRORS.md and docs/DIVERGENCES.md list them.
///
/// ```
/// use smpatch_patch_apply::{check_composable, check_patch, ApplyOptions, ErrorKind};
/// use smpatch_schema::Cursor;
/// use smpatch_value::{from_serde, Arena};
///
/// let arena = Arena::new();
/// let p = from_serde(&arena, &serde_json::json!({"$x": 1}), 256).unwrap();
/// assert!(check_patch(p, Cursor::UNKNOWN, &ApplyOptions::default()).is_ok());
/// let e = check_composable(p, Cursor::UNKNOWN, &ApplyOptions::default()).unwrap_err();
/// assert_eq!((e.kind(), e.path()), (ErrorKind::Unsupported, "/$x"));
/// ```
pub fn check_composable(
    patch: Value<'_>,
    cursor: smpatch_schema::Cursor<'_>,
    opts: &ApplyOptions,
) -> Result<(), Error> {
    Checker::new(opts, Scope::Compose).run(patch, cursor)
}

/// Which rules a check enforces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// Apply's rules ([`check_patch`]).
    Apply,
    /// Apply's rules and compose's refusals ([`check_composable`]).
    Compose,
}

struct Checker {
    rules: Rules,
    kinds: KindRule,
    fix_quirks: bool,
    max_depth: usize,
    scope: Scope,
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
    fn new(opts: &ApplyOptions, scope: Scope) -> Self {
        Checker {
            rules: opts.rules(),
            kinds: KindRule {
                null_anywhere: true,
                numbers_one_kind: opts.fix_quirks,
            },
            fix_quirks: opts.fix_quirks,
            max_depth: opts.max_depth,
            scope,
        }
    }

    fn run(&self, patch: Value<'_>, cursor: smpatch_schema::Cursor<'_>) -> Result<(), Error> {
        let root = Path::Root;
        self.object(patch, Walk::new(&root, cursor, self.max_depth))
    }

    fn compose(&self) -> bool {
        self.scope == Scope::Compose
    }

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
            if self.compose() {
                compose_retain_names(list).map_err(|e| at(here, e))?;
            }
            let names: HashSet<&str> = list.iter().filter_map(|v| v.as_str()).collect();
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
                KeyRole::Field(k) if k.starts_with('$') && self.compose() => {
                    return Err(at(k, compose_unknown_directive(k)))
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
                    if self.compose() && !keys.is_keyed() {
                        compose_repeated_value(k, items, here)?;
                    }
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
                    // Apply appends an element with a `null` merge key
                    // (no live element has that identity) and keeps the
                    // key; compose cannot stand for it (fuzz finding J).
                    let nulls = if self.compose() {
                        NullKey::Refuse
                    } else {
                        NullKey::Allow
                    };
                    let id =
                        key_of(e, keys, "patch element", nulls).map_err(|p| p.at(at.pointer()))?;
                    if d.is_none() {
                        if self.compose() {
                            compose_unique_key(&mut seen, id, i, keys)
                                .map_err(|p| p.at(at.pointer()))?;
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
        let keys = match self.rules.list_plan(field.meta) {
            ListPlan::Merge(keys) => keys,
            ListPlan::Atomic if self.compose() => {
                return Err(compose_order_of_atomic(f).at(here()));
            }
            ListPlan::Atomic => self.rules.order_keys(field.meta),
        };
        if keys.is_keyed() {
            let nulls = if self.compose() {
                NullKey::Refuse
            } else {
                NullKey::Allow
            };
            for e in order {
                key_of(e, keys, "order element", nulls).map_err(|p| p.at(here()))?;
            }
        } else if self.compose() {
            compose_scalar_order(f, order, self.kinds).map_err(|p| p.at(here()))?;
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
        // Apply reads the deletion list's shape only with `fix_quirks`
        // (without, `null` deletes the field and a scalar is ignored).
        let del = match rules::delete_list(&v) {
            Ok(del) => del,
            Err(p) if self.fix_quirks || self.compose() => return Err(p.at(here())),
            Err(_) => return Ok(()),
        };
        if self.compose() {
            if let Ok(field) = self.rules.field(w.cursor(), f, FieldShape::List) {
                if self.rules.list_plan(field.meta) != ListPlan::Merge(KeySpec::Value) {
                    return Err(compose_delete_of_non_scalar_list(f).at(here()));
                }
            }
            if del.iter().any(Value::is_object) {
                return Err(rules::delete_objects().at(here()));
            }
        }
        let vals = o.get(f).and_then(|v| v.as_array()).unwrap_or(&[]);
        let kind =
            rules::element_kind_problem(&[vals, del], self.kinds).map_err(|p| p.at(here()))?;
        if kind != Some(Kind::Object) {
            return Ok(());
        }
        if self.fix_quirks {
            return Err(rules::delete_objects().at(here()));
        }
        // Without `fix_quirks` apply merges a deletion list of objects as a
        // keyed merge, which needs a merge key.
        let Ok(field) = self.rules.field(w.cursor(), f, FieldShape::List) else {
            return Ok(());
        };
        let keys = match self.rules.list_plan(field.meta) {
            ListPlan::Merge(keys) => keys,
            ListPlan::Atomic => self.rules.order_keys(field.meta),
        };
        if !keys.is_keyed() {
            let name = field.cursor.type_name().unwrap_or("<unknown>");
            return Err(rules::no_merge_key(name).at(here()));
        }
        Ok(())
    }
}

// ----- compose's extra refusals (see `check_composable`) --------------------

/// Every `$retainKeys` entry names a field.
fn compose_retain_names(list: &[Value<'_>]) -> Result<(), Problem> {
    match list.iter().find(|v| v.as_str().is_none()) {
        None => Ok(()),
        Some(bad) => Err(Problem::new(
            ErrorKind::InvalidRetainKeys,
            format!(
                "invalid patch format of retainKeys: the value must be a list of field names, but it holds a {}",
                bad.kind().name()
            ),
        )),
    }
}

/// A key starting with `$` that names no directive.
fn compose_unknown_directive(k: &str) -> Problem {
    Problem::new(
        ErrorKind::Unsupported,
        format!("unknown directive {k:?}: apply would set it like a field; remove it"),
    )
}

/// A merge list of scalars that repeats a value: apply keeps the repeats
/// of a list it stores and drops them where it merges into a live list, so
/// no single patch stands for two such patches in sequence (fuzz findings
/// of the compose law, docs/FUZZING.md).
fn compose_repeated_value(f: &str, items: &[Value<'_>], here: &Path<'_>) -> Result<(), Error> {
    let mut seen = PosIndex::with_capacity(items.len());
    for (i, e) in items.iter().enumerate() {
        let Ok(id) = identity(*e, KeySpec::Value) else {
            continue;
        };
        if let Some(first) = seen.insert_first(id, i) {
            let at = Path::Index(here, i);
            return Err(Problem::new(
                ErrorKind::Unsupported,
                format!(
                    "{f:?} repeats the value of element {first}: a merge list of scalars \
                     with a repeated value cannot be composed exactly; apply the patches \
                     one after the other"
                ),
            )
            .at(at.pointer()));
        }
    }
    Ok(())
}

/// Element `i` of a patch list is the first with its merge key.
fn compose_unique_key<'a>(
    seen: &mut PosIndex<'a>,
    id: crate::identity::Id<'a>,
    i: usize,
    keys: KeySpec<'_>,
) -> Result<(), Problem> {
    match seen.insert_first(id, i) {
        None => Ok(()),
        Some(first) => Err(Problem::new(
            ErrorKind::DuplicateMergeKey,
            format!(
                "the patch list has two elements with merge key {} (positions {first} and {i}); one patch cannot merge both, so send one element per key",
                keys.describe()
            ),
        )),
    }
}

/// `$setElementOrder/<f>` of a list that does not merge.
fn compose_order_of_atomic(f: &str) -> Problem {
    Problem::new(
        ErrorKind::InvalidSetElementOrder,
        format!("invalid patch format of setElementOrder list: {f:?} is not a merge list, so it has no order to set"),
    )
}

/// The order list of a merge list of scalars holds scalars of one kind.
fn compose_scalar_order(f: &str, order: &[Value<'_>], kinds: KindRule) -> Result<(), Problem> {
    if rules::element_kind_problem(&[order], kinds)? == Some(Kind::Object) {
        return Err(Problem::new(
            ErrorKind::MixedElementTypes,
            format!("list element types are not identical: $setElementOrder/{f} holds objects but {f:?} is a merge list of scalars"),
        ));
    }
    Ok(())
}

/// `$deleteFromPrimitiveList/<f>` of a list that is no merge list of
/// scalars.
fn compose_delete_of_non_scalar_list(f: &str) -> Problem {
    Problem::new(
        ErrorKind::InvalidDeleteFromPrimitiveList,
        format!("invalid patch format of primitive list: {f:?} is not a merge list of scalars"),
    )
}

/// The parent of a key or index step (the root for the root).
fn parent<'p>(p: &'p Path<'p>) -> &'p Path<'p> {
    match p {
        Path::Root => p,
        Path::Key(parent, _) | Path::Index(parent, _) => parent,
    }
}

/// Whether a `null` merge key value counts as missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NullKey {
    Refuse,
    Allow,
}

/// The identity of a keyed-list element: an object holding every key (none
/// of them `null` with [`NullKey::Refuse`]).
fn key_of<'a>(
    e: &Value<'a>,
    keys: KeySpec<'_>,
    what: &str,
    nulls: NullKey,
) -> Result<crate::identity::Id<'a>, Problem> {
    let id = identity(*e, keys).map_err(|err| rules::id_problem(err, e, what))?;
    if nulls == NullKey::Refuse {
        if let Some(k) = keys.names().find(|k| e.get(k).is_some_and(|v| v.is_null())) {
            return Err(rules::id_problem(IdError::Missing(k), e, what));
        }
    }
    Ok(id)
}
