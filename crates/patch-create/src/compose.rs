//! Patch composition: the reference's COMPOSE mode (used by the three-way
//! diff, Q21 pinned) and the public composition that keeps directives (Q32
//! fixed).

use crate::diff::{lookup_error, lookup_list, lookup_object, too_deep};
use crate::keys::{element_key, list_plan, KeyText, Keys, ListPlan};
use crate::path::Seg;
use crate::CreateOptions;
use rustc_hash::{FxHashMap, FxHashSet};
use smpatch_patch_apply::{ApplyOptions, Error, ErrorKind};
use smpatch_schema::{Cursor, Field, Strategy};
use smpatch_value::{Arena, Kind, Member, Object, Value};

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

const PATCH: &str = "$patch";
const RETAIN: &str = "$retainKeys";
const ORDER: &str = "$setElementOrder/";
const DELETE_FROM: &str = "$deleteFromPrimitiveList/";

fn directive_of<'a>(v: &Value<'a>) -> Option<&'a str> {
    v.get(PATCH).and_then(|d| d.as_str())
}

/// The public composition (Q32 fixed): one patch `c` with
/// `apply(x, c) == apply(apply(x, p1), p2)`, built field by field.
///
/// Each field is transformed by what each patch holds for it (its value,
/// `$setElementOrder/<f>`, `$deleteFromPrimitiveList/<f>`, and whether the
/// object's `$retainKeys` drops it):
///
/// * `p2` alone, or `p2` setting a value that ignores the old one (a scalar,
///   `null`, an atomic list, a `replace` object, `$patch: replace`): `p2`'s
///   entries;
/// * `p1` alone: `p1`'s entries;
/// * `p1` setting a value that ignores the old one (or dropping the field via
///   `$retainKeys` or `$patch: delete`) and `p2` merging into it: the value
///   both produce, written so that it replaces whatever the document has
///   (objects with `$retainKeys` listing their keys, keyed lists with a
///   `$patch: replace` element);
/// * both merging: objects recurse, keyed lists pair elements by merge key
///   and compose paired elements the same way (a `p2` delete wins, a `p1`
///   delete followed by a `p2` element keeps both: the delete, then the
///   element appended anew), primitive merge lists compose their additions
///   and deletion lists (without `fix_quirks`, an order list over a composed
///   list left empty is dropped, Q20);
/// * `$retainKeys`: the composed list keeps the fields both patches keep,
///   plus the fields `p2` sets.
///
/// A primitive merge list that `p1` sets absolutely (null, or dropped by
/// `$retainKeys`) and `p2` then fills cannot be written as one patch (a
/// merge list cannot be replaced): [`ErrorKind::Unsupported`].
pub(crate) fn compose_public<'a>(
    arena: &'a Arena,
    p1: Value<'a>,
    p2: Value<'a>,
    cursor: Cursor<'_>,
    opts: &CreateOptions,
) -> Result<Value<'a>, Error> {
    let c = Composer { arena, opts };
    c.validate(p1, cursor, 1)?;
    c.validate(p2, cursor, 1)?;
    c.object(p1, p2, cursor, 1)
}

fn invalid(kind: ErrorKind, what: String) -> Error {
    Error::new(kind, "", format!("cannot compose: {what}"))
}

/// The kind shared by the scalars of `lists` (apply's check of a merge
/// list): no null, no list, one kind (integers and floats count as one with
/// `fix_quirks`; objects are checked by the caller).
fn one_kind(f: &str, lists: &[&[Value<'_>]], fix_quirks: bool) -> Result<(), Error> {
    let norm = |k: Kind| {
        if fix_quirks && k == Kind::Float {
            Kind::Int
        } else {
            k
        }
    };
    let mut first = None;
    for v in lists.iter().flat_map(|l| l.iter()) {
        let k = v.kind();
        if k == Kind::Null {
            return Err(invalid(
                ErrorKind::NullElement,
                format!("the merge list {f:?} holds null"),
            ));
        }
        if k == Kind::Array {
            return Err(invalid(
                ErrorKind::ListOfLists,
                format!("the merge list {f:?} holds a list"),
            ));
        }
        match first {
            None => first = Some(norm(k)),
            Some(x) if x != norm(k) => {
                return Err(invalid(
                    ErrorKind::MixedElementTypes,
                    format!("the merge list {f:?} mixes element kinds"),
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// What one patch does to one field of an object.
#[derive(Clone, Copy, Default)]
struct Side<'a> {
    val: Option<Value<'a>>,
    val_key: Option<&'a str>,
    order: Option<Member<'a>>,
    del: Option<Member<'a>>,
}

impl<'a> Side<'a> {
    fn is_empty(&self) -> bool {
        self.val.is_none() && self.order.is_none() && self.del.is_none()
    }
    fn push(&self, out: &mut Vec<Member<'a>>, key: &'a str) {
        // An order list beside `null` (the field dropped, by `$retainKeys`
        // too) orders nothing, and apply rejects it (`expected_list`).
        if let Some(o) = self
            .order
            .filter(|_| !self.val.is_some_and(|v| v.is_null()))
        {
            out.push(o);
        }
        if let Some(v) = self.val {
            out.push(Member {
                key: self.val_key.unwrap_or(key),
                value: v,
            });
        }
        if let Some(d) = self.del {
            out.push(d);
        }
    }
}

struct Composer<'a, 'o> {
    arena: &'a Arena,
    opts: &'o CreateOptions,
}

fn unsupported(what: String) -> Error {
    Error::new(ErrorKind::Unsupported, "", what)
}

impl<'a> Composer<'a, '_> {
    /// The checks apply makes of a patch where the document holds every
    /// field the patch names. Apply skips many of them where the document
    /// lacks the field, but compose has no document: a patch that breaks one
    /// of them is refused with the error apply gives where the field exists
    /// (duplicate merge keys, which apply merges, with
    /// [`ErrorKind::DuplicateMergeKey`]; an unknown `$` key, which apply
    /// sets like a field, with [`ErrorKind::Unsupported`]). Fields the
    /// schema cannot resolve are left to the composition.
    fn validate(&self, p: Value<'a>, cursor: Cursor<'_>, depth: usize) -> Result<(), Error> {
        if depth > self.opts.depth_limit() {
            return Err(too_deep(&Seg::Root, self.opts.depth_limit()));
        }
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            self.validate_inner(p, cursor, depth)
        })
    }

    fn validate_inner(&self, p: Value<'a>, cursor: Cursor<'_>, depth: usize) -> Result<(), Error> {
        let Value::Object(o) = p else { return Ok(()) };
        let fq = self.opts.fix_quirks;
        if let Some(d) = o.get(PATCH) {
            if !matches!(d, Value::String("replace" | "delete" | "merge")) {
                return Err(invalid(
                    ErrorKind::UnknownPatchType,
                    "an object's $patch must be \"replace\", \"merge\" or \"delete\"".into(),
                ));
            }
        }
        if let Some(r) = o.get(RETAIN) {
            let Some(list) = r
                .as_array()
                .filter(|l| l.iter().all(|v| v.as_str().is_some()))
            else {
                return Err(invalid(
                    ErrorKind::InvalidRetainKeys,
                    "$retainKeys must be a list of field names".into(),
                ));
            };
            let listed = Names::of(list);
            for m in o.members() {
                if !m.key.starts_with('$') && !m.value.is_null() && !listed.contains(m.key) {
                    return Err(invalid(
                        ErrorKind::InvalidRetainKeys,
                        format!(
                            "the patch sets {:?} but $retainKeys does not list it",
                            m.key
                        ),
                    ));
                }
            }
        }
        for m in o.members() {
            if m.key == PATCH || m.key == RETAIN {
                continue;
            }
            if let Some(f) = m.key.strip_prefix(ORDER) {
                self.validate_order(o, f, m.value, cursor)?;
            } else if let Some(f) = m.key.strip_prefix(DELETE_FROM) {
                let bad = |what: &str| {
                    invalid(
                        ErrorKind::InvalidDeleteFromPrimitiveList,
                        format!("{}: {what}", m.key),
                    )
                };
                if f.is_empty() {
                    return Err(bad("the key must be $deleteFromPrimitiveList/<field>"));
                }
                let Some(del) = m.value.as_array() else {
                    return Err(bad("the value must be a list"));
                };
                if let Ok(field) = self.lookup_list(&cursor, f) {
                    if !matches!(
                        list_plan(field.meta, self.opts.compound_keys),
                        ListPlan::Merge(Keys::None)
                    ) {
                        return Err(bad("the field is no merge list of scalars"));
                    }
                }
                if del.iter().any(Value::is_object) {
                    return Err(bad("the list holds objects"));
                }
                let vals = o.get(f).and_then(|v| v.as_array()).unwrap_or(&[]);
                one_kind(f, &[vals, del], fq)?;
            } else if m.key.starts_with('$') {
                return Err(invalid(
                    ErrorKind::Unsupported,
                    format!("unknown directive {:?}", m.key),
                ));
            } else {
                self.validate_field(m.key, m.value, cursor, depth)?;
            }
        }
        Ok(())
    }

    fn validate_field(
        &self,
        f: &'a str,
        v: Value<'a>,
        cursor: Cursor<'_>,
        depth: usize,
    ) -> Result<(), Error> {
        match v {
            Value::Object(_) => {
                let Ok(field) = self.lookup_object(&cursor, f) else {
                    return Ok(());
                };
                if field.meta.strategy == Strategy::Replace {
                    return Ok(());
                }
                self.validate(v, field.cursor, depth + 1)
            }
            Value::Array(items) => {
                let Ok(field) = self.lookup_list(&cursor, f) else {
                    return Ok(());
                };
                let ListPlan::Merge(keys) = list_plan(field.meta, self.opts.compound_keys) else {
                    return Ok(());
                };
                if !items.iter().any(Value::is_object) {
                    return one_kind(f, &[items], self.opts.fix_quirks);
                }
                if items.iter().any(|e| !e.is_object()) {
                    return Err(invalid(
                        ErrorKind::MixedElementTypes,
                        format!("the merge list {f:?} mixes element kinds"),
                    ));
                }
                if matches!(keys, Keys::None) {
                    return Err(invalid(
                        ErrorKind::NoMergeKey,
                        format!("the list of objects {f:?} has no merge key"),
                    ));
                }
                let mut seen = FxHashSet::default();
                for e in items {
                    let Some(o) = e.as_object() else { continue };
                    let d = o.get(PATCH);
                    match d {
                        Some(Value::String("replace")) => continue,
                        Some(Value::String("merge")) => {
                            return Err(invalid(
                                ErrorKind::MergeListDirective,
                                format!("{{\"$patch\":\"merge\"}} in the list {f:?}"),
                            ))
                        }
                        Some(Value::String("delete")) | None => {}
                        Some(_) => {
                            return Err(invalid(
                                ErrorKind::UnknownPatchType,
                                format!("a list element's $patch in {f:?} must be \"replace\" or \"delete\""),
                            ))
                        }
                    }
                    let k = self.merge_key(f, &o, keys)?;
                    if d.is_none() {
                        if !seen.insert(k) {
                            return Err(invalid(
                                ErrorKind::DuplicateMergeKey,
                                format!("two elements of the patch list {f:?} share a merge key"),
                            ));
                        }
                        self.validate(*e, field.cursor, depth + 1)?;
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The merge key of a keyed-list element: every key field present and
    /// not null.
    fn merge_key(
        &self,
        f: &str,
        o: &Object<'a>,
        keys: Keys<'_>,
    ) -> Result<crate::keys::KeyText<'a>, Error> {
        let missing = keys.names().any(|k| o.get(k).is_none_or(|v| v.is_null()));
        match element_key(o, keys, true) {
            Ok(k) if !missing => Ok(k),
            _ => Err(invalid(
                ErrorKind::MissingMergeKey,
                format!("an element of {f:?} lacks its merge key"),
            )),
        }
    }

    /// `$setElementOrder/<f>`: a list naming the elements of a merge list
    /// `f`, in the order of `o`'s patch list for `f`.
    fn validate_order(
        &self,
        o: Object<'a>,
        f: &str,
        v: Value<'a>,
        cursor: Cursor<'_>,
    ) -> Result<(), Error> {
        if f.is_empty() {
            return Err(invalid(
                ErrorKind::InvalidSetElementOrder,
                "the key must be $setElementOrder/<field>".into(),
            ));
        }
        let Some(order) = v.as_array() else {
            return Err(invalid(
                ErrorKind::ExpectedList,
                format!("$setElementOrder/{f} must hold a list"),
            ));
        };
        let plist = match o.get(f) {
            None => &[][..],
            Some(Value::Array(l)) => l,
            Some(_) => {
                return Err(invalid(
                    ErrorKind::ExpectedList,
                    format!("the field {f:?} ordered by $setElementOrder must be a list"),
                ))
            }
        };
        let Ok(field) = self.lookup_list(&cursor, f) else {
            return Ok(());
        };
        let ListPlan::Merge(keys) = list_plan(field.meta, self.opts.compound_keys) else {
            return Err(invalid(
                ErrorKind::InvalidSetElementOrder,
                format!("{f:?} is no merge list"),
            ));
        };
        let keyed = !matches!(keys, Keys::None);
        let id = |e: &Value<'a>| -> Result<Option<crate::keys::KeyText<'a>>, Error> {
            if !keyed {
                return Ok(None);
            }
            let Some(eo) = e.as_object() else {
                return Err(invalid(
                    ErrorKind::ExpectedObject,
                    format!("$setElementOrder/{f} of a keyed list must hold objects"),
                ));
            };
            self.merge_key(f, &eo, keys).map(Some)
        };
        if keyed {
            for e in order {
                id(e)?;
            }
        } else {
            if order.iter().any(Value::is_object) {
                return Err(invalid(
                    ErrorKind::MixedElementTypes,
                    format!("$setElementOrder/{f} of a list of scalars holds objects"),
                ));
            }
            one_kind(f, &[order], self.opts.fix_quirks)?;
        }
        // The patch list's elements (but directives) must follow a
        // non-empty order.
        let mut si = 0;
        for pv in plist.iter().filter(|_| !order.is_empty()) {
            if pv.as_object().is_some_and(|o| o.contains_key(PATCH)) {
                continue;
            }
            let pid = id(pv)?;
            loop {
                let Some(ov) = order.get(si) else {
                    return Err(invalid(
                        ErrorKind::OrderMismatch,
                        format!("the patch list {f:?} does not follow $setElementOrder/{f}"),
                    ));
                };
                si += 1;
                let equal = if keyed {
                    id(ov)? == pid
                } else {
                    pv.deep_eq(ov)
                };
                if equal {
                    break;
                }
            }
        }
        Ok(())
    }

    fn object(
        &self,
        p1: Value<'a>,
        p2: Value<'a>,
        cursor: Cursor<'_>,
        depth: usize,
    ) -> Result<Value<'a>, Error> {
        if depth > self.opts.depth_limit() {
            return Err(too_deep(&Seg::Root, self.opts.depth_limit()));
        }
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            self.object_inner(p1, p2, cursor, depth)
        })
    }

    fn object_inner(
        &self,
        p1: Value<'a>,
        p2: Value<'a>,
        cursor: Cursor<'_>,
        depth: usize,
    ) -> Result<Value<'a>, Error> {
        let (Value::Object(o1), Value::Object(o2)) = (p1, p2) else {
            return Ok(p2);
        };
        if directive_of(&p2).is_some() {
            // apply(apply(x, p1), p2) at this object is p2's replace/delete alone.
            return Ok(p2);
        }
        if directive_of(&p1).is_some() {
            // p1 sets the object whatever it was; p2 merges into that.
            let c = self.apply_obj(p1, cursor)?;
            let c = self.apply_on(c, p2, cursor)?;
            return self.encode_object(c, cursor, depth);
        }
        let r1 = retain_list(o1);
        let r2 = retain_list(o2);
        // Indexes built once per object: what each patch does to each field
        // and which names each retain list holds (no per-field scans).
        let (sides1, sides2) = (sides(o1), sides(o2));
        let (n1, n2) = (r1.map(Names::of), r2.map(Names::of));
        // Fields in order of first mention.
        let mut fields: Vec<&'a str> = Vec::new();
        let mut mentioned: FxHashSet<&'a str> = FxHashSet::default();
        let mut add = |f: &'a str| {
            if mentioned.insert(f) {
                fields.push(f);
            }
        };
        for o in [o1, o2] {
            for m in o.members() {
                if m.key == RETAIN {
                    continue;
                }
                add(field_name(m.key));
            }
        }
        for v in r1.into_iter().chain(r2).flatten() {
            if let Some(f) = v.as_str() {
                add(f);
            }
        }
        let mut out: Vec<Member<'a>> = Vec::new();
        let mut keep: Vec<&'a str> = Vec::new();
        for &f in &fields {
            let raw1 = sides1.get(f).copied().unwrap_or_default();
            let raw2 = sides2.get(f).copied().unwrap_or_default();
            if f.starts_with('$') {
                // An unknown directive: p2's wins.
                // (A retain list may name a directive key itself.)
                let named = || o2.get(f).or_else(|| o1.get(f));
                let listed = f.starts_with(ORDER) || f.starts_with(DELETE_FROM);
                if let Some(v) = raw2
                    .val
                    .or(raw1.val)
                    .or_else(|| listed.then(named).flatten())
                {
                    out.push(Member { key: f, value: v });
                }
                continue;
            }
            let s1 = side(raw1, f, n1.as_ref());
            let s2 = side(raw2, f, n2.as_ref());
            let r = self.field(f, s1, s2, cursor, depth)?;
            let sets = r.val.is_some_and(|v| !v.is_null());
            let kept = (n1.as_ref().is_none_or(|r| r.contains(f))
                || raw2.val.is_some_and(|v| !v.is_null()))
                && n2.as_ref().is_none_or(|r| r.contains(f));
            if kept || sets {
                keep.push(f);
            }
            r.push(&mut out, f);
        }
        if r1.is_some() || r2.is_some() {
            let list: Vec<Value<'a>> = keep.iter().map(|f| Value::String(f)).collect();
            out.insert(
                0,
                Member {
                    key: RETAIN,
                    value: Value::array_from(self.arena, &list),
                },
            );
        }
        Ok(Value::object_from_members(self.arena, &out))
    }

    /// Composes what the two patches do to field `f`.
    fn field(
        &self,
        f: &'a str,
        s1: Side<'a>,
        s2: Side<'a>,
        cursor: Cursor<'_>,
        depth: usize,
    ) -> Result<Side<'a>, Error> {
        if s2.is_empty() {
            return Ok(s1);
        }
        if s1.is_empty() {
            if let (Some(Value::Array(b)), Some(_)) = (s2.val, s2.del) {
                // p2's deletion list also holds where p2 inserts the list
                // into an object p1 made; the composed list may be inserted
                // whole (which drops deletion lists).
                return self.primitive(f, &[], b, s1, s2);
            }
            return Ok(s2);
        }
        if s1.val.is_some_and(|v| v.is_null()) {
            // p1 removes the field; p2 acts on nothing (an inserted value
            // is cleaned, not merged).
            let r = self.apply_field(f, None, &s2, cursor)?;
            let val = self.encode(f, r, cursor, depth)?;
            return Ok(Side {
                val: Some(val),
                val_key: Some(f),
                ..Side::default()
            });
        }
        let (v1, v2) = (s1.val, s2.val);
        let deletes = |v: Option<Value<'a>>| v.is_some_and(|v| directive_of(&v) == Some("delete"));
        let replaces = |v: Option<Value<'a>>| {
            v.is_some_and(|v| v.is_object() && directive_of(&v) == Some("replace"))
        };
        if deletes(v1) && deletes(v2) {
            return Ok(s2);
        }
        if !self.opts.fix_quirks && replaces(v1) {
            // Q8: p1's replace drops out where the document lacks the field.
            if self.is_absolute(f, &s2, cursor)? && !replaces(v2) {
                return Ok(s2);
            }
            return Err(unsupported(format!(
                "cannot compose: the first patch replaces object {f:?} and the second changes it; without fix_quirks (Q8) the result depends on whether the document has {f:?}"
            )));
        }
        if !self.opts.fix_quirks && replaces(v2) && v1.is_some_and(|v| v.is_object()) {
            // Q8: a `$patch: replace` object inserted where the field is
            // absent is dropped, so p2's replace is absolute only where p1
            // left an object.
            if deletes(v1) {
                return Err(unsupported(format!(
                    "cannot compose: the first patch deletes object {f:?} and the second replaces it; without fix_quirks (Q8) the result depends on whether the document has {f:?}"
                )));
            }
            let start = self.apply_field(f, None, &s1, cursor)?;
            let r = self.apply_field(f, start, &s2, cursor)?;
            let val = self.encode(f, r, cursor, depth)?;
            return Ok(Side {
                val: Some(val),
                val_key: Some(f),
                ..Side::default()
            });
        }
        if self.is_absolute(f, &s2, cursor)? {
            return Ok(s2);
        }
        // p2 deletes an object that p1 merged into: it is now `{}`.
        if let (Some(Value::Object(_)), Some(b)) = (v1, v2) {
            if directive_of(&b) == Some("delete")
                && directive_of(&v1.unwrap_or(Value::Null)) != Some("delete")
            {
                let field = self.lookup_object(&cursor, f)?;
                let c = self.encode_object(Value::empty_object(), field.cursor, depth + 1)?;
                return Ok(Side {
                    val: Some(c),
                    val_key: Some(f),
                    ..Side::default()
                });
            }
        }
        let abs1 = self.is_absolute(f, &s1, cursor)?;
        if abs1 || v1.is_some_and(|v| directive_of(&v) == Some("delete")) {
            // p1 sets the field whatever it was; p2 changes that value.
            let start = if !abs1 && v1.is_some_and(|v| directive_of(&v) == Some("delete")) {
                Some(Value::empty_object())
            } else {
                self.apply_field(f, None, &s1, cursor)?
            };
            let r = self.apply_field(f, start, &s2, cursor)?;
            let val = self.encode(f, r, cursor, depth)?;
            return Ok(Side {
                val: Some(val),
                val_key: Some(f),
                ..Side::default()
            });
        }
        match (v1, v2) {
            (Some(a @ Value::Object(_)), Some(b @ Value::Object(_))) => {
                let field = self.lookup_object(&cursor, f)?;
                let v = self.object(a, b, field.cursor, depth + 1)?;
                Ok(Side {
                    val: Some(v),
                    val_key: Some(f),
                    ..Side::default()
                })
            }
            (a, b) if a.is_none_or(|a| a.is_array()) && b.is_none_or(|b| b.is_array()) => {
                let field = self.lookup_list(&cursor, f)?;
                let a = a.and_then(|a| a.as_array()).unwrap_or(&[]);
                let b = b.and_then(|b| b.as_array()).unwrap_or(&[]);
                match list_plan(field.meta, self.opts.compound_keys) {
                    ListPlan::Merge(keys) if a.iter().chain(b).any(Value::is_object) => {
                        self.keyed(f, a, b, s1, s2, keys, cursor, field.cursor, depth)
                    }
                    _ => self.primitive(f, a, b, s1, s2),
                }
            }
            _ => {
                // Kinds differ: p2's value is inserted as sent.
                let start = self.apply_field(f, None, &s1, cursor)?;
                let r = self.apply_field(f, start, &s2, cursor)?;
                let val = self.encode(f, r, cursor, depth)?;
                Ok(Side {
                    val: Some(val),
                    val_key: Some(f),
                    ..Side::default()
                })
            }
        }
    }

    /// True when what `s` does to `f` does not depend on the old value.
    fn is_absolute(&self, f: &str, s: &Side<'a>, cursor: Cursor<'_>) -> Result<bool, Error> {
        let Some(v) = s.val else { return Ok(false) };
        Ok(match v {
            Value::Object(_) => match directive_of(&v) {
                Some("replace") => true,
                // A replace-strategy field is set to the cleaned value
                // whatever its directive (`$patch: delete` removes it).
                Some(_) => self
                    .lookup_object(&cursor, f)
                    .is_ok_and(|x| x.meta.strategy == Strategy::Replace),
                None => self.lookup_object(&cursor, f)?.meta.strategy == Strategy::Replace,
            },
            Value::Array(items) => {
                let field = self.lookup_list(&cursor, f)?;
                match list_plan(field.meta, self.opts.compound_keys) {
                    ListPlan::Atomic => true,
                    ListPlan::Merge(_) => items.iter().any(|e| directive_of(e) == Some("replace")),
                }
            }
            _ => true,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn keyed(
        &self,
        f: &'a str,
        a: &'a [Value<'a>],
        b: &'a [Value<'a>],
        s1: Side<'a>,
        s2: Side<'a>,
        keys: Keys<'_>,
        cursor: Cursor<'_>,
        elem: Cursor<'_>,
        depth: usize,
    ) -> Result<Side<'a>, Error> {
        let id = |e: &Value<'a>| e.as_object().and_then(|o| element_key(&o, keys, true).ok());
        let a_ids: Vec<_> = a.iter().map(id).collect();
        let b_ids: Vec<_> = b.iter().map(id).collect();
        // The positions of each key in each list, in list order: every
        // lookup below is a hash probe, never a scan of the other list.
        fn positions<'k, 'v>(
            ids: &'k [Option<KeyText<'v>>],
        ) -> FxHashMap<&'k KeyText<'v>, Vec<usize>> {
            let mut m: FxHashMap<&KeyText<'v>, Vec<usize>> = FxHashMap::default();
            for (i, k) in ids.iter().enumerate() {
                if let Some(k) = k {
                    m.entry(k).or_default().push(i);
                }
            }
            m
        }
        let (a_pos, b_pos) = (positions(&a_ids), positions(&b_ids));
        // A patch list does, for each key, its delete elements first (they
        // remove every element with that key), then its other elements of
        // that key in order (the first merges into the document's element
        // or is appended, cleaned; the others merge into that one). So the
        // two patches' elements of one key are a single sequence of steps,
        // folded into at most a delete and one element (`Group`); a key
        // only one patch names keeps that patch's elements as sent.
        // Merged lists put the patch's elements first, then the others in
        // their old order: p2's keys, then p1's other keys.
        let mut list: Vec<Value<'a>> = Vec::with_capacity(a.len() + b.len());
        for (j, e2) in b.iter().enumerate() {
            let Some(k) = &b_ids[j] else {
                list.push(*e2);
                continue;
            };
            let Some(in_a) = a_pos.get(k) else {
                list.push(*e2);
                continue;
            };
            let in_b = b_pos.get(k).map_or(&[][..], Vec::as_slice);
            if in_b.first().is_some_and(|&first| first < j) {
                // Folded into the group at the key's first element.
                continue;
            }
            let of =
                |l: &'a [Value<'a>], at: &[usize]| at.iter().map(|&i| l[i]).collect::<Vec<_>>();
            let mut g = None;
            for e in steps(&of(a, in_a)).chain(steps(&of(b, in_b))) {
                g = Some(self.step(f, g, e, cursor, elem, depth)?);
            }
            match g {
                Some(Group::Merge(e) | Group::Delete(e)) => list.push(e),
                Some(Group::DeleteThen(d, e)) => {
                    list.push(d);
                    list.push(e);
                }
                None => {}
            }
        }
        for (i, e1) in a.iter().enumerate() {
            let named = a_ids[i].as_ref().is_some_and(|k| b_pos.contains_key(k));
            if !named {
                list.push(*e1);
            }
        }
        // The order list must name every element the composed list keeps:
        // p2's order (else p1's), then the missing ones.
        let order = match s2.order.or(s1.order) {
            Some(o) => {
                let mut items: Vec<Value<'a>> = o.value.as_array().unwrap_or(&[]).to_vec();
                let mut listed: FxHashSet<Option<KeyText<'a>>> = items.iter().map(id).collect();
                for e in &list {
                    if directive_of(e).is_some() {
                        continue;
                    }
                    let k = id(e);
                    if k.is_some() && !listed.contains(&k) {
                        if let Some(o) = e.as_object() {
                            let ks: Vec<Member<'a>> = keys
                                .names()
                                .filter_map(|n| o.members().iter().find(|m| m.key == n).copied())
                                .collect();
                            items.push(Value::object_from_members(self.arena, &ks));
                        }
                        listed.insert(k);
                    }
                }
                Some(Member {
                    key: o.key,
                    value: Value::array_from(self.arena, &items),
                })
            }
            None => None,
        };
        if let Some(o) = order.and_then(|o| o.value.as_array()) {
            // First position of each key (or of "no key") in the order list.
            let mut first: FxHashMap<Option<KeyText<'a>>, usize> = FxHashMap::default();
            for (i, y) in o.iter().enumerate() {
                first.entry(id(y)).or_insert(i);
            }
            list.sort_by_key(|x| first.get(&id(x)).copied().unwrap_or(usize::MAX));
        }
        let order = self.without_q20(order, list.is_empty());
        Ok(Side {
            val: Some(Value::array_from(self.arena, &list)),
            val_key: Some(f),
            order,
            del: s2.del.or(s1.del),
        })
    }

    /// One step of a keyed list's group of elements with one key: `e` (a
    /// delete element, or an element to merge) after what `g` does.
    fn step(
        &self,
        f: &'a str,
        g: Option<Group<'a>>,
        e: Value<'a>,
        cursor: Cursor<'_>,
        elem: Cursor<'_>,
        depth: usize,
    ) -> Result<Group<'a>, Error> {
        if directive_of(&e).is_some() {
            // A delete removes every element with the key, whatever came
            // before.
            return Ok(Group::Delete(e));
        }
        Ok(match g {
            None => Group::Merge(e),
            Some(Group::Merge(m)) => Group::Merge(self.object(m, e, elem, depth + 1)?),
            // After the delete `e` finds no element with its key: it is
            // appended (cleaned, its directives not executed). The same list
            // does both: its delete elements run first, then `e` finds no
            // match and is appended the same way; inserted where the
            // document lacks the list, the delete is stripped and `e`
            // cleaned alike.
            Some(Group::Delete(d)) => Group::DeleteThen(d, e),
            // `x` was appended, cleaned; `e` merges into that. The element
            // they make, as stored, is appended as it is.
            Some(Group::DeleteThen(d, x)) => {
                let one = |v: Value<'a>| Side {
                    val: Some(Value::array_from(self.arena, &[v])),
                    val_key: Some(f),
                    ..Side::default()
                };
                let empty = Value::array_from(self.arena, &[]);
                let r = self.apply_field(f, Some(empty), &one(x), cursor)?;
                let r = self.apply_field(f, r, &one(e), cursor)?;
                match r.and_then(|r| r.as_array()) {
                    Some([v]) => Group::DeleteThen(d, *v),
                    _ => {
                        return Err(unsupported(format!(
                            "cannot compose: an element of {f:?} re-added after a delete and then changed does not stay one element"
                        )))
                    }
                }
            }
        })
    }

    /// Q20 (without `fix_quirks`): `$setElementOrder/<f>` with an empty
    /// patch list fails wherever the document's list is absent or empty,
    /// although the sequential applies may succeed there (the first patch
    /// filled the list, the second emptied it again). An order list only
    /// orders the surviving elements, so it is dropped when the composed
    /// list is empty: the content stays exact, only the order of elements the
    /// document already had may differ.
    fn without_q20(&self, order: Option<Member<'a>>, empty: bool) -> Option<Member<'a>> {
        order.filter(|_| self.opts.fix_quirks || !empty)
    }

    /// Primitive merge lists: `(L ∪ v1) ∖ d1`, then `∪ v2 ∖ d2`, is
    /// `(L ∪ v) ∖ d` with `v = (v1 ∪ v2) ∖ d2` (an inserted list ignores its
    /// deletion list) and `d = (d1 ∖ v2) ∪ d2`.
    fn primitive(
        &self,
        f: &'a str,
        a: &'a [Value<'a>],
        b: &'a [Value<'a>],
        s1: Side<'a>,
        s2: Side<'a>,
    ) -> Result<Side<'a>, Error> {
        let d1 = s1.del.and_then(|d| d.value.as_array()).unwrap_or(&[]);
        let d2 = s2.del.and_then(|d| d.value.as_array()).unwrap_or(&[]);
        // Membership through hash sets of `Value` (deep equality and its
        // hash), never pairwise scans: lists of any length stay linear.
        let set = |l: &[Value<'a>]| -> FxHashSet<Value<'a>> { l.iter().copied().collect() };
        let (in_d2, in_b) = (set(d2), set(b));
        let mut v: Vec<Value<'a>> = Vec::new();
        let mut in_v: FxHashSet<Value<'a>> = FxHashSet::default();
        // Insertion drops the deletion list: leave out what p2 deletes. p1's
        // own deletions stay in `d` (they hold when p1 merged, not when it
        // inserted the list).
        for x in b.iter().chain(a) {
            if !in_d2.contains(x) && in_v.insert(*x) {
                v.push(*x);
            }
        }
        let mut d: Vec<Value<'a>> = Vec::new();
        let mut in_d: FxHashSet<Value<'a>> = FxHashSet::default();
        for x in d1.iter().chain(d2) {
            if (in_d2.contains(x) || !in_b.contains(x)) && in_d.insert(*x) {
                d.push(*x);
            }
        }
        let order = s2.order.or(s1.order).map(|o| {
            let mut items: Vec<Value<'a>> = o.value.as_array().unwrap_or(&[]).to_vec();
            let mut listed = set(&items);
            for x in &v {
                if listed.insert(*x) {
                    items.push(*x);
                }
            }
            Member {
                key: o.key,
                value: Value::array_from(self.arena, &items),
            }
        });
        if let Some(o) = order.and_then(|o| o.value.as_array()) {
            // First position of each value in the order list.
            let mut first: FxHashMap<Value<'a>, usize> = FxHashMap::default();
            for (i, y) in o.iter().enumerate() {
                first.entry(*y).or_insert(i);
            }
            v.sort_by_key(|x| first.get(x).copied().unwrap_or(usize::MAX));
        }
        // Each patch's lists hold one kind, but the two patches' may differ
        // (values, deletions, and one patch's order list against the other's
        // values): no single patch holds both.
        let order_items = order.and_then(|o| o.value.as_array()).unwrap_or(&[]);
        one_kind(f, &[&v, &d, order_items], self.opts.fix_quirks)?;
        let del_key = s2.del.or(s1.del).map(|m| m.key);
        let val = (s1.val.is_some() || s2.val.is_some()).then(|| Value::array_from(self.arena, &v));
        let order = self.without_q20(order, val.is_some() && v.is_empty());
        Ok(Side {
            val,
            val_key: Some(f),
            order,
            del: del_key.filter(|_| !d.is_empty()).map(|key| Member {
                key,
                value: Value::array_from(self.arena, &d),
            }),
        })
    }

    fn lookup_object<'s>(&self, cursor: &Cursor<'s>, f: &str) -> Result<Field<'s>, Error> {
        lookup_object(cursor, f, self.opts.fix_quirks)
            .map_err(|e| lookup_error(&Seg::Key(&Seg::Root, f), &e))
    }

    fn lookup_list<'s>(&self, cursor: &Cursor<'s>, f: &str) -> Result<Field<'s>, Error> {
        lookup_list(cursor, f, self.opts.fix_quirks)
            .map_err(|e| lookup_error(&Seg::Key(&Seg::Root, f), &e))
    }

    /// The value of `f` after applying `s` to `{f: start}`.
    fn apply_field(
        &self,
        f: &'a str,
        start: Option<Value<'a>>,
        s: &Side<'a>,
        cursor: Cursor<'_>,
    ) -> Result<Option<Value<'a>>, Error> {
        let doc: Vec<Member<'a>> = start
            .map(|v| Member { key: f, value: v })
            .into_iter()
            .collect();
        let doc = Value::object_from_members(self.arena, &doc);
        let mut patch = Vec::new();
        s.push(&mut patch, f);
        let patch = Value::object_from_members(self.arena, &patch);
        let r = self.apply_on(doc, patch, cursor)?;
        Ok(r.get(f))
    }

    fn apply_obj(&self, p: Value<'a>, cursor: Cursor<'_>) -> Result<Value<'a>, Error> {
        self.apply_on(Value::empty_object(), p, cursor)
    }

    fn apply_on(
        &self,
        doc: Value<'a>,
        p: Value<'a>,
        cursor: Cursor<'_>,
    ) -> Result<Value<'a>, Error> {
        smpatch_patch_apply::apply(self.arena, doc, p, cursor, &apply_options(self.opts))
    }

    /// A patch value setting field `f` to `v` (absent: null) whatever it was.
    fn encode(
        &self,
        f: &'a str,
        v: Option<Value<'a>>,
        cursor: Cursor<'_>,
        depth: usize,
    ) -> Result<Value<'a>, Error> {
        match v {
            None => Ok(Value::Null),
            Some(Value::Object(_)) => {
                let field = self.lookup_object(&cursor, f)?;
                if field.meta.strategy == Strategy::Replace {
                    return Ok(v.unwrap_or(Value::Null));
                }
                self.encode_object(v.unwrap_or(Value::Null), field.cursor, depth + 1)
            }
            Some(Value::Array(items)) => {
                let field = self.lookup_list(&cursor, f)?;
                match list_plan(field.meta, self.opts.compound_keys) {
                    ListPlan::Atomic => Ok(Value::Array(items)),
                    ListPlan::Merge(keys)
                        if !matches!(keys, Keys::None) && items.iter().all(Value::is_object) =>
                    {
                        let mut l = items.to_vec();
                        let marker = Member { key: PATCH, value: Value::String("replace") };
                        l.push(Value::object_from_members(self.arena, &[marker]));
                        Ok(Value::array_from(self.arena, &l))
                    }
                    ListPlan::Merge(_) => Err(unsupported(format!(
                        "cannot compose: the first patch sets the primitive merge list {f:?} (to null or by $retainKeys) and the second adds to it; no single patch replaces a merge list of scalars"
                    ))),
                }
            }
            Some(v) => Ok(v),
        }
    }

    /// An object patch turning any object into `v`: `$retainKeys` lists its
    /// keys, and every value is written absolutely.
    fn encode_object(
        &self,
        v: Value<'a>,
        cursor: Cursor<'_>,
        depth: usize,
    ) -> Result<Value<'a>, Error> {
        if depth > self.opts.depth_limit() {
            return Err(too_deep(&Seg::Root, self.opts.depth_limit()));
        }
        let Value::Object(o) = v else { return Ok(v) };
        let keys: Vec<Value<'a>> = o.members().iter().map(|m| Value::String(m.key)).collect();
        let mut out = vec![Member {
            key: RETAIN,
            value: Value::array_from(self.arena, &keys),
        }];
        for m in o.members() {
            let value = self.encode(m.key, Some(m.value), cursor, depth)?;
            out.push(Member { key: m.key, value });
        }
        Ok(Value::object_from_members(self.arena, &out))
    }
}

fn field_name(k: &str) -> &str {
    k.strip_prefix(ORDER)
        .or_else(|| k.strip_prefix(DELETE_FROM))
        .unwrap_or(k)
}

fn retain_list<'a>(o: Object<'a>) -> Option<&'a [Value<'a>]> {
    o.get(RETAIN).and_then(|v| v.as_array())
}

/// The field names of a `$retainKeys` list, as a set.
struct Names<'a>(FxHashSet<&'a str>);

impl<'a> Names<'a> {
    fn of(list: &'a [Value<'a>]) -> Self {
        Names(list.iter().filter_map(|v| v.as_str()).collect())
    }

    fn contains(&self, f: &str) -> bool {
        self.0.contains(f)
    }
}

/// What object `o` does to each field it mentions (its value, order list
/// and deletion list), in one pass over its members.
fn sides<'a>(o: Object<'a>) -> FxHashMap<&'a str, Side<'a>> {
    let mut out: FxHashMap<&'a str, Side<'a>> = FxHashMap::default();
    for m in o.members() {
        if let Some(f) = m.key.strip_prefix(ORDER) {
            out.entry(f).or_default().order = Some(*m);
        } else if let Some(f) = m.key.strip_prefix(DELETE_FROM) {
            out.entry(f).or_default().del = Some(*m);
        } else {
            let s = out.entry(m.key).or_default();
            s.val = Some(m.value);
            s.val_key = Some(m.key);
        }
    }
    out
}

/// What an object (what it mentions of `f`: `s`, from [`sides`]; with
/// retain list `r`) does to field `f`.
fn side<'a>(mut s: Side<'a>, f: &'a str, r: Option<&Names<'_>>) -> Side<'a> {
    if r.is_some_and(|r| !r.contains(f)) && s.val.is_none() {
        // Dropped by `$retainKeys`.
        s.val = Some(Value::Null);
        s.val_key = Some(f);
    }
    s
}

/// What a patch list does to the elements with one key, folded: merge one
/// element, delete them all, or delete them all and append one.
enum Group<'a> {
    Merge(Value<'a>),
    Delete(Value<'a>),
    DeleteThen(Value<'a>, Value<'a>),
}

/// The elements of one key of a patch list in the order the list acts:
/// its delete elements first, then the others in list order.
fn steps<'a>(group: &[Value<'a>]) -> impl Iterator<Item = Value<'a>> {
    let (del, rest): (Vec<Value<'a>>, Vec<Value<'a>>) =
        group.iter().partition(|e| directive_of(e).is_some());
    del.into_iter().chain(rest)
}
