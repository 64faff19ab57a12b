//! The rules for one object: normalization of its unions (KEP-1027) and the
//! validation rules V1–V5, plus the enum check (KEP-2887).

use std::collections::{HashMap, HashSet};

use smpatch_schema::{Cursor, Union, UnionMember};
use smpatch_value::{to_json_string, Arena, Member, Object, Path, Step, Value};

use crate::enums::{shown_json, EnumList};
use crate::walk::Visitor;
use crate::{Options, Rule, Violation};

/// An object with member lookup that stays linear in the object's size when
/// a struct declares many unions (an index is built for large objects).
pub(crate) struct Obj<'x> {
    obj: Object<'x>,
    index: Option<HashMap<&'x str, Value<'x>>>,
}

impl<'x> Obj<'x> {
    pub(crate) fn new(obj: Object<'x>, unions: usize) -> Self {
        let index = (obj.len() > 16 && unions > 2).then(|| obj.iter().collect());
        Obj { obj, index }
    }

    fn get(&self, key: &str) -> Option<Value<'x>> {
        match &self.index {
            Some(i) => i.get(key).copied(),
            None => self.obj.get(key),
        }
    }
}

/// The discriminator's string value; absent, null or non-string read as unset.
fn disc<'x>(obj: Option<&Obj<'x>>, union: &Union) -> Option<&'x str> {
    let d = union.discriminator.as_deref()?;
    obj?.get(d)?.as_str()
}

fn is_set(obj: Option<&Obj<'_>>, field: &str) -> bool {
    obj.and_then(|o| o.get(field)).is_some_and(|v| !v.is_null())
}

/// The discriminator value a KEP-1027 union acts on: the value, else the
/// declared default, else `""` (the conventional "no member" value).
fn effective<'x>(obj: Option<&Obj<'x>>, union: &'x Union) -> &'x str {
    disc(obj, union)
        .or(union.discriminator_default.as_deref())
        .unwrap_or("")
}

/// The fields normalization clears from `new` for one union.
fn clear_for<'u>(
    union: &'u Union,
    old: Option<&Obj<'_>>,
    new: &Obj<'_>,
    opts: &Options,
    out: &mut Vec<&'u str>,
) {
    let keep: Option<&UnionMember> = match union.discriminator {
        None => {
            if !opts.non_discriminated_update {
                return;
            }
            // The earlier unions KEP: exactly one member added keeps it.
            let mut added = union
                .members
                .iter()
                .filter(|m| is_set(Some(new), &m.field) && !is_set(old, &m.field));
            match (added.next(), added.next()) {
                (Some(m), None) => Some(m),
                _ => return,
            }
        }
        Some(_) if union.is_struct_level() => {
            let now = disc(Some(new), union);
            if now == disc(old, union) {
                return;
            }
            // A value matching no member clears nothing (real specs carry
            // Go field names as member values).
            match now.and_then(|v| union.member_for(v)) {
                Some(m) => Some(m),
                None => return,
            }
        }
        Some(_) => {
            let now = effective(Some(new), union);
            if now == effective(old, union) {
                return;
            }
            union.member_for(now)
        }
    };
    // KEP-1027: every member but the selected one is removed, a member
    // holding null included.
    for m in &union.members {
        if keep.is_some_and(|k| k.field == m.field) {
            continue;
        }
        if new.get(&m.field).is_some() {
            out.push(&m.field);
        }
    }
}

/// One violation before it gets a pointer: the rule, the member field it
/// points at (`None` = the object itself) and the message.
struct Found {
    rule: Rule,
    field: Option<String>,
    message: String,
    /// What ratcheting compares beyond rule and field: V1 the offending
    /// value (`s` + a string, `j` + the JSON of anything else), V3 the
    /// members set; empty for the others.
    detail: Vec<String>,
}

impl Found {
    /// Ratcheting: `self` (found in `new`) is the violation `before` (found
    /// in `old` at the same place) and not worse: same rule and member, V1
    /// the same value, V3 no member set that was not set before.
    fn already(&self, before: &Found) -> bool {
        self.rule == before.rule
            && self.field == before.field
            && match self.rule {
                Rule::V3 => self.detail.iter().all(|m| before.detail.contains(m)),
                _ => self.detail == before.detail,
            }
    }
}

fn quoted(items: impl Iterator<Item = impl AsRef<str>>) -> String {
    items
        .map(|s| shown(s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value quoted for a message, cut after 64 characters (a hostile
/// discriminator may be megabytes long).
fn shown(v: &str) -> String {
    const MAX: usize = 64;
    match v.char_indices().nth(MAX) {
        None => format!("{v:?}"),
        Some((end, _)) => format!("{:?}… ({} bytes)", &v[..end], v.len()),
    }
}

/// The values a discriminator may hold, for a V1 message: its `enum`'s
/// strings, else the union's member values and empty values.
fn allowed_values<'u>(union: &'u Union, enum_values: Option<EnumList<'u>>) -> Vec<&'u str> {
    match enum_values {
        Some(e) => e.strings().collect(),
        None => union
            .members
            .iter()
            .map(|m| &*m.value)
            .chain(union.empty_values.iter().map(|x| &**x))
            .collect(),
    }
}

/// V1–V5 for one union of one object.
fn check_union(
    union: &Union,
    old: Option<&Obj<'_>>,
    new: &Obj<'_>,
    cursor: Cursor<'_>,
    out: &mut Vec<Found>,
) {
    let set: Vec<&UnionMember> = union
        .members
        .iter()
        .filter(|m| is_set(Some(new), &m.field))
        .collect();
    let Some(d) = union.discriminator.as_deref() else {
        if set.len() > 1 {
            out.push(Found {
                rule: Rule::V3,
                field: None,
                message: format!(
                    "more than one member of a union is set ({}): keep only one",
                    quoted(set.iter().map(|m| &m.field))
                ),
                detail: set.iter().map(|m| m.field.to_string()).collect(),
            });
        }
        return;
    };
    let raw = disc(Some(new), union);
    let enum_values = cursor
        .lookup_object(d)
        .ok()
        .and_then(|f| EnumList::of(f.cursor));
    // A discriminator holding a number, bool, list or object reads as unset
    // for normalization, but it is not a valid value either (KEP-1027: the
    // discriminator is a string enum). Struct-level unions without `enum`
    // have no V1, as for any other value.
    let mistyped = new
        .get(d)
        .filter(|v| !v.is_null() && v.as_str().is_none())
        .filter(|_| enum_values.is_some() || !union.is_struct_level());
    let changed = if union.is_struct_level() {
        raw != disc(old, union)
    } else {
        effective(Some(new), union) != effective(old, union)
    };
    // V1: a known discriminator value.
    let mut known = true;
    if let Some(v) = mistyped {
        known = false;
        out.push(Found {
            rule: Rule::V1,
            field: Some(d.to_owned()),
            message: format!(
                "discriminator {d:?} is {}, which is not a string: set it to one of {}",
                shown_json(v),
                quoted(allowed_values(union, enum_values).into_iter())
            ),
            detail: vec![format!("j{}", to_json_string(&v))],
        });
    }
    if let Some(v) = raw {
        let valid = match enum_values {
            Some(e) => e.contains_str(v),
            None if union.is_struct_level() => true,
            None => union.member_for(v).is_some() || union.empty_values.iter().any(|x| &**x == v),
        };
        if !valid {
            known = false;
            out.push(Found {
                rule: Rule::V1,
                field: Some(d.to_owned()),
                message: format!(
                    "discriminator {d:?} is {}, which is not an allowed value: set it to one of {}",
                    shown(v),
                    quoted(allowed_values(union, enum_values).into_iter())
                ),
                detail: vec![format!("s{v}")],
            });
        }
    }
    // V2: a required discriminator is set (KEP-1027 unions only). Required
    // means "no default" (KEP-1027); with a declared default an unset
    // discriminator reads as the default, as a server's defaulting would
    // have filled it in. A mistyped value already got its V1.
    if raw.is_none()
        && mistyped.is_none()
        && union.discriminator_required
        && union.discriminator_default.is_none()
        && !union.is_struct_level()
    {
        out.push(Found {
            rule: Rule::V2,
            field: Some(d.to_owned()),
            message: format!(
                "discriminator {d:?} is required: set it to the value of the member you use (one of {})",
                quoted(union.members.iter().map(|m| &m.value))
            ),
            detail: Vec::new(),
        });
    }
    // V3: at most one member.
    if set.len() > 1 {
        let now = if union.is_struct_level() {
            raw.and_then(|v| union.member_for(v))
        } else {
            union.member_for(effective(Some(new), union))
        };
        let advice = if let (true, Some(m)) = (changed, now) {
            format!(
                "keep only {}, the member the discriminator selects",
                shown(&m.field)
            )
        } else if changed {
            "keep only one".to_owned()
        } else {
            format!(
                "keep only one, and change the discriminator {d:?} when you change which member is set"
            )
        };
        out.push(Found {
            rule: Rule::V3,
            field: None,
            message: format!(
                "more than one member of the union discriminated by {d:?} is set ({}): {advice}",
                quoted(set.iter().map(|m| &m.field))
            ),
            detail: set.iter().map(|m| m.field.to_string()).collect(),
        });
    }
    if !known {
        return;
    }
    // Which member the discriminator selects, if any can be called selected.
    let (value, selected) = if union.is_struct_level() {
        match raw.and_then(|v| union.member_for(v)) {
            Some(m) => (raw.unwrap_or(""), Some(m)),
            // A value matching no member: only V3 applies.
            None => return,
        }
    } else {
        let v = effective(Some(new), union);
        (v, union.member_for(v))
    };
    let what = match raw {
        Some(_) => format!("discriminator {d:?} is {}", shown(value)),
        None if union.discriminator_default.is_some() => {
            format!("discriminator {d:?} is unset (default {})", shown(value))
        }
        None => format!("discriminator {d:?} is unset"),
    };
    // V4: the selected member is present.
    if let Some(m) = selected {
        if !m.optional && !is_set(Some(new), &m.field) {
            out.push(Found {
                rule: Rule::V4,
                field: Some(m.field.to_string()),
                message: format!(
                    "{what}, which selects {:?}, but {:?} is not set: set {:?}, or change {d:?} to the member you use",
                    m.field, m.field, m.field
                ),
                detail: Vec::new(),
            });
        }
    }
    // V5: no member is set without being selected.
    for m in &set {
        if selected.is_some_and(|s| s.field == m.field) {
            continue;
        }
        let selects = match selected {
            Some(s) => format!("which selects {:?}", s.field),
            None => "which selects no member".to_owned(),
        };
        out.push(Found {
            rule: Rule::V5,
            field: Some(m.field.to_string()),
            message: format!(
                "{:?} is set but {what}, {selects}: remove {:?}, or set {d:?} to {:?} (change the discriminator when you change which member is set)",
                m.field, m.field, m.value
            ),
            detail: Vec::new(),
        });
    }
}

/// The unions a type declares, with indexed views of the old and new object
/// (what both visitors start from).
fn views<'a, 'o, 's>(
    old: Option<Object<'o>>,
    new: Object<'a>,
    cursor: Cursor<'s>,
) -> (&'s [Union], Option<Obj<'o>>, Obj<'a>) {
    let unions = cursor.unions();
    let o = old.map(|o| Obj::new(o, unions.len()));
    (unions, o, Obj::new(new, unions.len()))
}

/// The normalization visitor: clears members and records their pointers.
pub(crate) struct Normalizer<'a, 'o> {
    pub arena: &'a Arena,
    pub opts: &'o Options,
    pub cleared: Vec<String>,
}

impl<'a, 'o> Visitor<'a, 'o> for Normalizer<'a, 'o> {
    fn unions(
        &mut self,
        old: Option<Object<'o>>,
        new: Object<'a>,
        cursor: Cursor<'_>,
        path: &Path<'_>,
    ) -> Option<&'a [Member<'a>]> {
        let (unions, o, n) = views(old, new, cursor);
        let mut clear: Vec<&str> = Vec::new();
        for u in unions {
            clear_for(u, o.as_ref(), &n, self.opts, &mut clear);
        }
        if clear.is_empty() {
            return None;
        }
        let clear: HashSet<&str> = clear.into_iter().collect();
        let mut members: Vec<Member<'a>> = Vec::with_capacity(new.len());
        for m in new.members() {
            if clear.contains(&m.key) {
                self.cleared.push(path.pointer_with([Step::Key(m.key)]));
            } else {
                members.push(*m);
            }
        }
        Some(self.arena.alloc_slice_copy(&members))
    }

    fn enum_value(&mut self, _: Option<Value<'o>>, _: Value<'a>, _: EnumList<'_>, _: &Path<'_>) {}
}

/// The validation visitor: collects every violation.
pub(crate) struct Validator<'o> {
    pub opts: &'o Options,
    pub violations: Vec<Violation>,
}

impl<'a, 'o> Visitor<'a, 'o> for Validator<'o> {
    fn unions(
        &mut self,
        old: Option<Object<'o>>,
        new: Object<'a>,
        cursor: Cursor<'_>,
        path: &Path<'_>,
    ) -> Option<&'a [Member<'a>]> {
        let (unions, o, n) = views(old, new, cursor);
        for u in unions {
            let mut found = Vec::new();
            check_union(u, o.as_ref(), &n, cursor, &mut found);
            if found.is_empty() {
                continue;
            }
            let before = match (self.opts.ratcheting, &o) {
                (true, Some(o)) => {
                    let mut b = Vec::new();
                    // The old object judged on its own (its discriminator
                    // counts as unchanged).
                    check_union(u, Some(o), o, cursor, &mut b);
                    b
                }
                _ => Vec::new(),
            };
            for f in found {
                if before.iter().any(|b| f.already(b)) {
                    continue;
                }
                let pointer = match &f.field {
                    Some(field) => path.pointer_with([Step::Key(field)]),
                    None => path.pointer(),
                };
                self.violations.push(Violation {
                    path: pointer,
                    rule: f.rule,
                    message: f.message,
                });
            }
        }
        None
    }

    fn positional_equal_only(&self) -> bool {
        self.opts.ratcheting
    }

    fn enum_value(
        &mut self,
        old: Option<Value<'o>>,
        new: Value<'a>,
        allowed: EnumList<'_>,
        path: &Path<'_>,
    ) {
        if !self.opts.check_enums || allowed.contains(new) {
            return;
        }
        // Ratcheting: only a value left exactly as it was (KEP-2887:
        // servers reject unknown values on write; a changed value is one).
        if self.opts.ratcheting && old.is_some_and(|o| o == new) {
            return;
        }
        self.violations.push(Violation {
            path: path.pointer(),
            rule: Rule::Enum,
            message: format!(
                "{} is not an allowed value: use one of {}",
                shown_json(new),
                allowed.shown()
            ),
        });
    }
}
