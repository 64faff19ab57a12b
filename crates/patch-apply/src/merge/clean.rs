//! Cleaning values about to be stored: APPLY drops nulls and
//! directives, both modes drop `$patch` objects.

use super::{Merger, Mode};
use crate::directives::{self, PatchDirective, PATCH};
use crate::Error;
use smpatch_schema::{grow_stack, Walk};
use smpatch_value::{Member, Object, Value};

/// Where a value being cleaned stands: a `$patch: replace` object in a list
/// is dropped even with `fix_quirks` (quirk Q8 is fixed for fields only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    Field,
    ListElement,
}

pub(super) enum Cleaned<'a> {
    Same,
    Drop,
    New(Value<'a>),
}

impl<'a> Merger<'a, '_> {
    // ----- cleaning ---------------------------------------------------------------

    /// Cleans a value about to be stored: APPLY drops null members and every
    /// directive (Q6/Q7/Q9/Q10/Q30 fixed); both modes drop objects holding
    /// `$patch` (quirk Q8 unless `fix_quirks`). `w` is the value's walk,
    /// one level below its container's (checked here for objects and lists;
    /// the levels inside a cleaned value all report the value's path).
    pub(super) fn clean(
        &self,
        v: Value<'a>,
        place: Place,
        w: Walk<'_, '_>,
    ) -> Result<Cleaned<'a>, Error> {
        match v {
            Value::Object(_) | Value::Array(_) => {
                self.check_depth(w)?;
                grow_stack(|| self.clean_inner(v, place, w))
            }
            _ => Ok(Cleaned::Same),
        }
    }

    pub(super) fn clean_inner(
        &self,
        v: Value<'a>,
        place: Place,
        w: Walk<'_, '_>,
    ) -> Result<Cleaned<'a>, Error> {
        let down = w.step(w.path(), w.cursor());
        let apply = self.mode == Mode::Apply;
        match v {
            Value::Object(o) => {
                if let Some(d) = o.get(PATCH) {
                    if place == Place::Field
                        && self.opts.fix_quirks
                        && PatchDirective::parse(&d) == Some(PatchDirective::Replace)
                    {
                        // Q8 fix: a replace that creates its remainder.
                        let rest = self.without_patch(o);
                        return Ok(match self.clean(rest, Place::Field, down)? {
                            Cleaned::Same => Cleaned::New(rest),
                            other => other,
                        });
                    }
                    return Ok(Cleaned::Drop);
                }
                let mut out: Option<Vec<Member<'a>>> = None;
                for (i, m) in o.members().iter().enumerate() {
                    let c = if apply && (m.value.is_null() || directives::is_directive_key(m.key)) {
                        Cleaned::Drop
                    } else {
                        self.clean(m.value, Place::Field, down)?
                    };
                    match (c, &mut out) {
                        (Cleaned::Same, Some(out)) => out.push(*m),
                        (Cleaned::Same, None) | (Cleaned::Drop, Some(_)) => {}
                        (Cleaned::Drop, None) => out = Some(o.members()[..i].to_vec()),
                        (Cleaned::New(nv), Some(out)) => out.push(Member {
                            key: m.key,
                            value: nv,
                        }),
                        (Cleaned::New(nv), None) => {
                            let mut vec = o.members()[..i].to_vec();
                            vec.push(Member {
                                key: m.key,
                                value: nv,
                            });
                            out = Some(vec);
                        }
                    }
                }
                Ok(match out {
                    None => Cleaned::Same,
                    Some(members) => Cleaned::New(Value::object_from_members(self.arena, &members)),
                })
            }
            Value::Array(items) => {
                let mut out: Option<Vec<Value<'a>>> = None;
                for (i, item) in items.iter().enumerate() {
                    let c = self.clean(*item, Place::ListElement, down)?;
                    match (c, &mut out) {
                        (Cleaned::Same, Some(out)) => out.push(*item),
                        (Cleaned::Same, None) => {}
                        (Cleaned::Drop, Some(_)) => {}
                        (Cleaned::Drop, None) => out = Some(items[..i].to_vec()),
                        (Cleaned::New(nv), Some(out)) => out.push(nv),
                        (Cleaned::New(nv), None) => {
                            let mut vec = items[..i].to_vec();
                            vec.push(nv);
                            out = Some(vec);
                        }
                    }
                }
                Ok(match out {
                    None => Cleaned::Same,
                    Some(items) => Cleaned::New(Value::array_from(self.arena, &items)),
                })
            }
            _ => Ok(Cleaned::Same),
        }
    }

    /// Object `o` without its `$patch` member (the remainder of a replace).
    pub(super) fn without_patch(&self, o: Object<'a>) -> Value<'a> {
        let rest: Vec<Member<'a>> = o
            .members()
            .iter()
            .filter(|m| m.key != PATCH)
            .copied()
            .collect();
        Value::object_from_members(self.arena, &rest)
    }

    /// [`Merger::clean`] as an option (`None`: dropped).
    pub(super) fn clean_value(
        &self,
        v: Value<'a>,
        place: Place,
        w: Walk<'_, '_>,
    ) -> Result<Option<Value<'a>>, Error> {
        Ok(match self.clean(v, place, w)? {
            Cleaned::Same => Some(v),
            Cleaned::New(n) => Some(n),
            Cleaned::Drop => None,
        })
    }

    /// Removes `$patch` objects from a list (COMPOSE), or cleans it fully
    /// (APPLY); `w` is the walk of the level holding the list, at the list.
    pub(super) fn strip_list(
        &self,
        items: &'a [Value<'a>],
        w: Walk<'_, '_>,
    ) -> Result<Vec<Value<'a>>, Error> {
        self.strip_list_with(items, w, |cleaned, _| cleaned)
    }

    /// [`strip_list`](Self::strip_list), with each kept element passed
    /// through `keep(cleaned, sent)` (a keyed list puts back the `null`
    /// merge keys cleaning took away).
    pub(super) fn strip_list_with(
        &self,
        items: &'a [Value<'a>],
        w: Walk<'_, '_>,
        mut keep: impl FnMut(Value<'a>, Value<'a>) -> Value<'a>,
    ) -> Result<Vec<Value<'a>>, Error> {
        let mut out = Vec::with_capacity(items.len());
        for (i, sent) in items.iter().enumerate() {
            let here = w.path().index(i);
            let step = w.step(&here, w.cursor());
            if let Some(v) = self.clean_value(*sent, Place::ListElement, step)? {
                out.push(keep(v, *sent));
            }
        }
        Ok(out)
    }
}
