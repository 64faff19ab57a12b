//! Cleaning values about to be stored (spec §3.4): APPLY drops nulls and
//! directives, both modes drop `$patch` objects.

use super::{Merger, Mode};
use crate::directives::{self, PatchDirective, PATCH};
use crate::Error;
use smpatch_schema::grow_stack;
use smpatch_value::{Member, Object, Step, Value};

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
    // ----- cleaning (§3.4) --------------------------------------------------------

    /// Cleans a value about to be stored: APPLY drops null members and every
    /// directive (Q6/Q7/Q9/Q10/Q30 fixed); both modes drop objects holding
    /// `$patch` (quirk Q8 unless `fix_quirks`).
    pub(super) fn clean(&mut self, v: Value<'a>, place: Place) -> Result<Cleaned<'a>, Error> {
        match v {
            Value::Object(_) | Value::Array(_) => {
                self.enter()?;
                let r = grow_stack(|| self.clean_inner(v, place));
                self.leave();
                r
            }
            _ => Ok(Cleaned::Same),
        }
    }

    pub(super) fn clean_inner(&mut self, v: Value<'a>, place: Place) -> Result<Cleaned<'a>, Error> {
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
                        return Ok(match self.clean(rest, Place::Field)? {
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
                        self.clean(m.value, Place::Field)?
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
                    let c = self.clean(*item, Place::ListElement)?;
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

    pub(super) fn clean_value(
        &mut self,
        v: Value<'a>,
        place: Place,
    ) -> Result<Option<Value<'a>>, Error> {
        Ok(match self.clean(v, place)? {
            Cleaned::Same => Some(v),
            Cleaned::New(n) => Some(n),
            Cleaned::Drop => None,
        })
    }

    /// Removes `$patch` objects from a list (COMPOSE), or cleans it fully (APPLY).
    pub(super) fn strip_list(&mut self, items: &'a [Value<'a>]) -> Result<Vec<Value<'a>>, Error> {
        let mut out = Vec::with_capacity(items.len());
        for (i, v) in items.iter().enumerate() {
            self.path.push(Step::Index(i));
            let r = self.clean_value(*v, Place::ListElement);
            self.path.pop();
            if let Some(v) = r? {
                out.push(v);
            }
        }
        Ok(out)
    }
}
