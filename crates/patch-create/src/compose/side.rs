//! What one patch does to one field of an object: its value, its order
//! list and its deletion list ([`Side`]), read once per object; and what a
//! patch list does to the elements of one merge key ([`Group`]).

use super::directive_of;
use smpatch_patch_apply::directives::{self, RETAIN_KEYS};
use smpatch_value::hashing::{HashMap, HashSet};
use smpatch_value::{Member, Object, Value};

/// What one patch does to one field of an object.
#[derive(Clone, Copy, Default)]
pub(super) struct Side<'a> {
    pub(super) val: Option<Value<'a>>,
    pub(super) val_key: Option<&'a str>,
    pub(super) order: Option<Member<'a>>,
    pub(super) del: Option<Member<'a>>,
}

impl<'a> Side<'a> {
    pub(super) fn is_empty(&self) -> bool {
        self.val.is_none() && self.order.is_none() && self.del.is_none()
    }
    pub(super) fn push(&self, out: &mut Vec<Member<'a>>, key: &'a str) {
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

pub(super) fn retain_list<'a>(o: Object<'a>) -> Option<&'a [Value<'a>]> {
    o.get(RETAIN_KEYS).and_then(|v| v.as_array())
}

/// The field names of a `$retainKeys` list, as a set.
pub(super) struct Names<'a>(HashSet<&'a str>);

impl<'a> Names<'a> {
    pub(super) fn of(list: &'a [Value<'a>]) -> Self {
        Names(list.iter().filter_map(|v| v.as_str()).collect())
    }

    pub(super) fn contains(&self, f: &str) -> bool {
        self.0.contains(f)
    }
}

/// What object `o` does to each field it mentions (its value, order list
/// and deletion list), in one pass over its members.
pub(super) fn sides<'a>(o: Object<'a>) -> HashMap<&'a str, Side<'a>> {
    let mut out: HashMap<&'a str, Side<'a>> = HashMap::default();
    for m in o.members() {
        if let Some(f) = directives::ordered_field(m.key) {
            out.entry(f).or_default().order = Some(*m);
        } else if let Some(f) = directives::deleted_field(m.key) {
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
pub(super) fn side<'a>(mut s: Side<'a>, f: &'a str, r: Option<&Names<'_>>) -> Side<'a> {
    if r.is_some_and(|r| !r.contains(f)) && s.val.is_none() {
        // Dropped by `$retainKeys`.
        s.val = Some(Value::Null);
        s.val_key = Some(f);
    }
    s
}

/// What a patch list does to the elements with one key, folded: merge one
/// element, delete them all, or delete them all and append one.
pub(super) enum Group<'a> {
    Merge(Value<'a>),
    Delete(Value<'a>),
    DeleteThen(Value<'a>, Value<'a>),
}

/// The elements of one key of a patch list in the order the list acts:
/// its delete elements first, then the others in list order.
pub(super) fn steps<'a>(group: &[Value<'a>]) -> impl Iterator<Item = Value<'a>> {
    let (del, rest): (Vec<Value<'a>>, Vec<Value<'a>>) =
        group.iter().partition(|e| directive_of(e).is_some());
    del.into_iter().chain(rest)
}
