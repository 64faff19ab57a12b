//! Values written as patches: what a patch sets a field to, found by
//! running apply on a one-field document, and encoded so that it replaces
//! whatever the document holds (objects with a `$retainKeys` listing their
//! keys, keyed lists with a `$patch: replace` element).

use super::apply_options;
use super::check::unsupported;
use super::fold::{Composer, ROOT};
use super::side::Side;
use crate::shared::too_deep;
use smpatch_patch_apply::directives::{PatchDirective, RETAIN_KEYS};
use smpatch_patch_apply::Error;
use smpatch_schema::{Cursor, KeySpec, ListPlan, Strategy, Walk};
use smpatch_value::{Member, Value};

impl<'a> Composer<'a, '_> {
    /// The value of `f` after applying `s` to `{f: start}`.
    pub(super) fn apply_field(
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

    pub(super) fn apply_obj(&self, p: Value<'a>, cursor: Cursor<'_>) -> Result<Value<'a>, Error> {
        self.apply_on(Value::empty_object(), p, cursor)
    }

    pub(super) fn apply_on(
        &self,
        doc: Value<'a>,
        p: Value<'a>,
        cursor: Cursor<'_>,
    ) -> Result<Value<'a>, Error> {
        smpatch_patch_apply::apply(self.arena, doc, p, cursor, &apply_options(self.opts))
    }

    /// A patch value setting field `f` to `v` (absent: null) whatever it was.
    pub(super) fn encode(
        &self,
        f: &'a str,
        v: Option<Value<'a>>,
        w: Walk<'_, '_>,
    ) -> Result<Value<'a>, Error> {
        let cursor = w.cursor();
        match v {
            None => Ok(Value::Null),
            Some(Value::Object(_)) => {
                let field = self.lookup_object(&cursor, f)?;
                if field.meta.strategy == Strategy::Replace {
                    return Ok(v.unwrap_or(Value::Null));
                }
                self.encode_object(v.unwrap_or(Value::Null), w.step(&ROOT, field.cursor))
            }
            Some(Value::Array(items)) => {
                let field = self.lookup_list(&cursor, f)?;
                match self.opts.rules().list_plan(field.meta) {
                    ListPlan::Atomic => Ok(Value::Array(items)),
                    ListPlan::Merge(keys)
                        if !matches!(keys, KeySpec::Value) && items.iter().all(Value::is_object) =>
                    {
                        let mut l = items.to_vec();
                        let marker = PatchDirective::Replace.member();
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
    pub(super) fn encode_object(&self, v: Value<'a>, w: Walk<'_, '_>) -> Result<Value<'a>, Error> {
        w.check().map_err(too_deep)?;
        let Value::Object(o) = v else { return Ok(v) };
        let keys: Vec<Value<'a>> = o.members().iter().map(|m| Value::String(m.key)).collect();
        let mut out = vec![Member {
            key: RETAIN_KEYS,
            value: Value::array_from(self.arena, &keys),
        }];
        for m in o.members() {
            let value = self.encode(m.key, Some(m.value), w)?;
            out.push(Member { key: m.key, value });
        }
        Ok(Value::object_from_members(self.arena, &out))
    }
}
