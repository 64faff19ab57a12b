//! The merge engine: `merge_object` / `merge_list` of spec §3 in APPLY and
//! COMPOSE mode.
//!
//! Architecture Invariant: inputs are never mutated; every result is a new
//! arena value (untouched subtrees are shared).

use crate::gosort::go_stable_sort;
use crate::identity::{id_hash, identity, render_id, Id, IdError, KeySpec, PosIndex};
use crate::{ApplyOptions, Error, ErrorKind};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use smpatch_schema::{Cursor, Field, ListType, LookupError, PatchMeta, Strategy};
use smpatch_value::{render, Arena, Kind, Member, Object, Value};

pub(crate) const PATCH: &str = "$patch";
pub(crate) const RETAIN_KEYS: &str = "$retainKeys";
pub(crate) const SET_ELEMENT_ORDER: &str = "$setElementOrder";
pub(crate) const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";

static EMPTY_META: PatchMeta = PatchMeta::EMPTY;

/// Objects larger than this get a hash index for key lookups.
const SMALL_OBJECT: usize = 12;

/// Which of the two uses of the merge routine runs (§3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Apply a patch to a stored object (`MergeParallelList`, `IgnoreUnmatchedNulls`).
    Apply,
    /// Merge two patches into one (§3.15).
    Compose,
}

/// One step of the path into the patch.
#[derive(Clone, Copy, Debug)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// How a list field merges.
#[derive(Clone, Copy, Debug)]
enum ListPlan<'m> {
    Atomic,
    Merge(KeySpec<'m>),
}

/// Result of a list merge: the ordered content and the effective server
/// order `R'` of §3.11.4.
struct ListMerge<'a> {
    items: Vec<Value<'a>>,
    r_prime: Vec<Value<'a>>,
    /// Set when the caller asked to defer the ordering of a keyed merge:
    /// `items` is then the merged content in merge order (live, then
    /// appended), not yet ordered by §3.10.
    deferred: Option<Deferred<'a>>,
}

/// What the §3.10 ordering of a keyed merge needs, kept so that a following
/// `$setElementOrder` pass can skip it when it cannot change the outcome.
struct Deferred<'a> {
    /// `pos(P, ·)` over the non-special patch elements.
    p_index: PosIndex<'a>,
    /// The merge index: first position of each identity in live-after-deletes
    /// followed by the appended patch elements (their identities as sent).
    index: PosIndex<'a>,
    /// Length of the live list after deletions: `pos(R, ·)` is `index`
    /// restricted to positions below it.
    live_len: usize,
    /// True when every appended element kept its identity through cleaning,
    /// so `index` also gives `pos(L' ++ A, ·)` (and hence `pos(R', ·)`).
    exact: bool,
}

/// One element of a list being ordered: its position in the order list and
/// in the reference order (§3.10.2), and whether it holds `$patch: delete`.
struct Placed<'a> {
    value: Value<'a>,
    ppos: Option<usize>,
    rpos: Option<usize>,
    delete: bool,
}

enum Cleaned<'a> {
    Same,
    Drop,
    New(Value<'a>),
}

/// A mutable working copy of an object: members in order, tombstones for
/// deletions, and a hash index once it is large.
struct WorkObject<'a> {
    members: Vec<(&'a str, Option<Value<'a>>)>,
    index: Option<FxHashMap<&'a str, usize>>,
}

impl<'a> WorkObject<'a> {
    fn new() -> Self {
        WorkObject {
            members: Vec::new(),
            index: None,
        }
    }

    fn from_object(o: Object<'a>) -> Self {
        let mut w = WorkObject {
            members: Vec::with_capacity(o.len() + 2),
            index: None,
        };
        if o.len() > SMALL_OBJECT {
            w.index = Some(FxHashMap::default());
        }
        for m in o.members() {
            // Duplicate keys: the last occurrence wins (§1.4).
            w.set(m.key, m.value);
        }
        w
    }

    fn find(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(ix) => ix.get(key).copied(),
            None => self.members.iter().position(|m| m.0 == key),
        }
    }

    fn get(&self, key: &str) -> Option<Value<'a>> {
        self.find(key).and_then(|i| self.members[i].1)
    }

    fn set(&mut self, key: &'a str, v: Value<'a>) {
        if let Some(i) = self.find(key) {
            self.members[i].1 = Some(v);
            return;
        }
        let pos = self.members.len();
        self.members.push((key, Some(v)));
        match &mut self.index {
            Some(ix) => {
                ix.insert(key, pos);
            }
            None if self.members.len() > SMALL_OBJECT => {
                self.index = Some(
                    self.members
                        .iter()
                        .enumerate()
                        .map(|(i, m)| (m.0, i))
                        .collect(),
                );
            }
            None => {}
        }
    }

    fn remove(&mut self, key: &str) {
        if let Some(i) = self.find(key) {
            self.members[i].1 = None;
        }
    }

    fn finish(self, arena: &'a Arena) -> Value<'a> {
        let members: Vec<Member<'a>> = self
            .members
            .into_iter()
            .filter_map(|(key, v)| v.map(|value| Member { key, value }))
            .collect();
        Value::object_from_members(arena, &members)
    }
}

/// The merge state: arena, options, mode, the path stack (materialised only on
/// error) and the recursion depth.
pub(crate) struct Merger<'a, 'o> {
    arena: &'a Arena,
    opts: &'o ApplyOptions,
    mode: Mode,
    path: Vec<Seg<'a>>,
    depth: usize,
}

/// Looks every element up in the order list (`p`) and the reference order
/// (`rpos`), with the identities (and hashes) computed once.
fn place<'a>(
    merged: &[Value<'a>],
    ids: Vec<(Id<'a>, u64, bool)>,
    p: &PosIndex<'a>,
    rpos: impl Fn(u64, &Id<'a>) -> Option<usize>,
) -> Vec<Placed<'a>> {
    merged
        .iter()
        .zip(ids)
        .map(|(v, (id, h, delete))| Placed {
            value: *v,
            ppos: p.get_hashed(h, &id),
            rpos: rpos(h, &id),
            delete,
        })
        .collect()
}

fn is_directive_key(k: &str) -> bool {
    k == PATCH
        || k == RETAIN_KEYS
        || k.starts_with(SET_ELEMENT_ORDER)
        || k.starts_with(DELETE_FROM_PRIMITIVE_LIST)
}

/// `$prefix/<f>` → `f` (split at the first `/`, prefix exact).
fn extract_key<'k>(key: &'k str, prefix: &str) -> Option<&'k str> {
    let (head, tail) = key.split_once('/')?;
    (head == prefix).then_some(tail)
}

fn kind_name(v: &Value<'_>) -> &'static str {
    v.kind().name()
}

/// Longest rendering of a value put into a message.
const MESSAGE_VALUE_LIMIT: usize = 240;

fn cap(mut s: String) -> String {
    if s.len() > MESSAGE_VALUE_LIMIT {
        let mut end = MESSAGE_VALUE_LIMIT;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
    s
}

/// Go `%v` of a value for messages, shortened.
fn brief(v: &Value<'_>) -> String {
    cap(render(v).into_owned())
}

/// Go `%v` of a list, for messages, shortened.
fn render_list(items: &[Value<'_>]) -> String {
    let mut out = String::from("[");
    for (i, v) in items.iter().enumerate() {
        if out.len() > MESSAGE_VALUE_LIMIT {
            out.push_str(&format!("… ({} more)", items.len() - i));
            break;
        }
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&render(v));
    }
    out.push(']');
    out
}

impl<'a, 'o> Merger<'a, 'o> {
    pub(crate) fn new(arena: &'a Arena, opts: &'o ApplyOptions, mode: Mode) -> Self {
        Merger {
            arena,
            opts,
            mode,
            path: Vec::new(),
            depth: 0,
        }
    }

    // ----- errors and paths -------------------------------------------------

    fn pointer(&self) -> String {
        let mut out = String::new();
        for s in &self.path {
            match s {
                Seg::Key(k) => crate::push_pointer_token(&mut out, k),
                Seg::Index(i) => {
                    out.push('/');
                    out.push_str(&i.to_string());
                }
            }
        }
        out
    }

    fn err(&self, kind: ErrorKind, message: impl Into<String>) -> Error {
        Error::new(kind, self.pointer(), message)
    }

    fn err_at(&self, seg: Seg<'a>, kind: ErrorKind, message: impl Into<String>) -> Error {
        let mut p = self.pointer();
        match seg {
            Seg::Key(k) => crate::push_pointer_token(&mut p, k),
            Seg::Index(i) => {
                p.push('/');
                p.push_str(&i.to_string());
            }
        }
        Error::new(kind, p, message)
    }

    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > self.opts.max_depth {
            self.depth -= 1;
            return Err(self.err(
                ErrorKind::TooDeep,
                format!(
                    "the patch nests deeper than the limit of {} levels; flatten it or raise max_depth",
                    self.opts.max_depth
                ),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn id_error(
        &self,
        seg: Option<Seg<'a>>,
        e: IdError<'_>,
        elem: &Value<'_>,
        what: &str,
    ) -> Error {
        let (kind, msg) = match e {
            IdError::NotObject => (
                ErrorKind::ExpectedObject,
                format!(
                    "{what} must be an object in a keyed list: expected a map[string]interface {{}}, but received a {}",
                    kind_name(elem)
                ),
            ),
            IdError::Missing(k) => (
                ErrorKind::MissingMergeKey,
                format!(
                    "{what} has no merge key {k:?} (map: {} does not contain declared merge key: {k}); add {k:?} to it",
                    brief(elem)
                ),
            ),
        };
        match seg {
            Some(s) => self.err_at(s, kind, msg),
            None => self.err(kind, msg),
        }
    }

    // ----- schema -------------------------------------------------------------

    fn lookup<'s>(&self, cursor: Cursor<'s>, key: &'a str, list: bool) -> Result<Field<'s>, Error> {
        let r = if list {
            cursor.lookup_list(key)
        } else {
            cursor.lookup_object(key)
        };
        match r {
            Ok(f) => Ok(f),
            // Q23: the reference's Go-struct lookup of a built-in falls back
            // to a case-insensitive JSON-name match (`fix_quirks`: exact only).
            Err(e @ LookupError::NoSuchField { .. }) if !self.opts.fix_quirks => match cursor
                .go_fold_field(key)
            {
                Some(name) if list => cursor.lookup_list(name),
                Some(name) => cursor.lookup_object(name),
                None => Err(e),
            }
            .map_err(|e| {
                self.err(
                    ErrorKind::SchemaLookup,
                    format!("{e}; the schema does not describe this field, so it cannot be merged"),
                )
            }),
            Err(LookupError::InMap { .. }) if self.opts.fix_quirks => {
                // Q23 fix: the value schema of a map applies to every member.
                let c = cursor.map_value().unwrap_or(Cursor::UNKNOWN);
                Ok(Field {
                    cursor: if list { Cursor::UNKNOWN } else { c },
                    meta: &EMPTY_META,
                })
            }
            Err(e) => Err(self.err(
                ErrorKind::SchemaLookup,
                format!("{e}; the schema does not describe this field, so it cannot be merged"),
            )),
        }
    }

    fn plan<'m>(&self, meta: &'m PatchMeta) -> ListPlan<'m> {
        // List-type metadata drives SMP only for non-built-in types: the
        // reference reads built-ins' struct tags, where those fields are
        // atomic. `compound_keys` still uses the list-map keys of a built-in
        // list that also has a merge key.
        let derived = !meta.native;
        let map_keys = (meta.list_type == Some(ListType::Map) && !meta.list_map_keys.is_empty())
            .then_some(&meta.list_map_keys[..]);
        match meta.strategy {
            Strategy::Merge => match (meta.merge_key(), map_keys) {
                (k, Some(ks)) if self.opts.compound_keys && (derived || k.is_some()) => {
                    ListPlan::Merge(KeySpec::Compound(ks))
                }
                (Some(k), _) => ListPlan::Merge(KeySpec::Single(k)),
                (None, Some(ks)) if derived => ListPlan::Merge(KeySpec::Compound(ks)),
                (None, _) => ListPlan::Merge(KeySpec::Value),
            },
            Strategy::Replace => ListPlan::Atomic,
            Strategy::None if !derived => ListPlan::Atomic,
            Strategy::None => match (meta.list_type, meta.merge_key(), map_keys) {
                (Some(ListType::Map), None, Some(ks)) => ListPlan::Merge(KeySpec::Compound(ks)),
                (Some(ListType::Set), _, _) => ListPlan::Merge(KeySpec::Value),
                _ => ListPlan::Atomic,
            },
        }
    }

    /// The identity rule used for ordering a list (also when it is atomic).
    fn order_keys<'m>(&self, meta: &'m PatchMeta) -> KeySpec<'m> {
        match self.plan(meta) {
            ListPlan::Merge(k) => k,
            ListPlan::Atomic => match meta.merge_key() {
                Some(k) => KeySpec::Single(k),
                None if !meta.native
                    && meta.list_type == Some(ListType::Map)
                    && !meta.list_map_keys.is_empty() =>
                {
                    KeySpec::Compound(&meta.list_map_keys)
                }
                None => KeySpec::Value,
            },
        }
    }

    // ----- objects ----------------------------------------------------------

    /// `merge_object(target, patch)` (§3.2). `target` is an object or null.
    pub(crate) fn merge_object(
        &mut self,
        target: Value<'a>,
        patch: Object<'a>,
        cursor: Cursor<'_>,
    ) -> Result<Value<'a>, Error> {
        self.enter()?;
        let r = stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            self.merge_object_inner(target, patch, cursor)
        });
        self.leave();
        r
    }

    fn merge_object_inner(
        &mut self,
        target: Value<'a>,
        patch: Object<'a>,
        cursor: Cursor<'_>,
    ) -> Result<Value<'a>, Error> {
        // Step 1: `$patch`.
        if let Some(d) = patch.get(PATCH) {
            return self.object_directive(d, patch);
        }
        // Step 2.
        let mut t = match target {
            Value::Object(o) => WorkObject::from_object(o),
            _ => WorkObject::new(),
        };
        // Step 3.
        if let Some(rk) = patch.get(RETAIN_KEYS) {
            self.retain_keys(&mut t, rk, patch)?;
        }
        // Step 4.
        let mut consumed: SmallVec<[&'a str; 4]> = SmallVec::new();
        for m in patch.members() {
            if m.key.starts_with(SET_ELEMENT_ORDER) {
                self.path.push(Seg::Key(m.key));
                let r = self.set_element_order(&mut t, m.key, m.value, patch, cursor);
                self.path.pop();
                if let Some(f) = r? {
                    consumed.push(f);
                }
            }
        }
        // Step 5, first the fields, then the deletion lists (Q13: merge first,
        // delete second).
        for m in patch.members() {
            if m.key == RETAIN_KEYS
                || m.key.starts_with(SET_ELEMENT_ORDER)
                || m.key.starts_with(DELETE_FROM_PRIMITIVE_LIST)
                || consumed.contains(&m.key)
            {
                continue;
            }
            self.path.push(Seg::Key(m.key));
            let r = self.merge_field(&mut t, m.key, m.value, false, cursor);
            self.path.pop();
            r?;
        }
        for m in patch.members() {
            if !m.key.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
                continue;
            }
            self.path.push(Seg::Key(m.key));
            let r = self.delete_list_key(&mut t, m.key, m.value, cursor);
            self.path.pop();
            r?;
        }
        Ok(t.finish(self.arena))
    }

    /// `$patch` in an object (§3.5).
    fn object_directive(&mut self, d: Value<'a>, patch: Object<'a>) -> Result<Value<'a>, Error> {
        match d {
            Value::String("replace") => {
                let rest: Vec<Member<'a>> = patch
                    .members()
                    .iter()
                    .filter(|m| m.key != PATCH)
                    .copied()
                    .collect();
                let rest = Value::object_from_members(self.arena, &rest);
                if self.mode == Mode::Compose {
                    return Ok(rest);
                }
                // Q7 (always fixed): the remainder is cleaned.
                Ok(match self.clean(rest, false)? {
                    Cleaned::Same => rest,
                    Cleaned::New(v) => v,
                    Cleaned::Drop => Value::empty_object(),
                })
            }
            Value::String("delete") => Ok(Value::empty_object()),
            other => Err(self.err_at(
                Seg::Key(PATCH),
                ErrorKind::UnknownPatchType,
                format!(
                    "unknown patch type: {} in map: {}; an object's $patch must be \"replace\" or \"delete\"",
                    brief(&other),
                    brief(&Value::Object(patch))
                ),
            )),
        }
    }

    /// `$retainKeys` (§3.6).
    fn retain_keys(
        &mut self,
        t: &mut WorkObject<'a>,
        rk: Value<'a>,
        patch: Object<'a>,
    ) -> Result<(), Error> {
        if self.mode == Mode::Compose {
            match t.get(RETAIN_KEYS) {
                Some(existing) => {
                    if !existing.deep_eq(&rk) {
                        return Err(self.err_at(
                            Seg::Key(RETAIN_KEYS),
                            ErrorKind::ComposeMismatch,
                            format!(
                                "{} and {} are not deep equal: this may happen when calculating the 3-way diff patch",
                                brief(&existing),
                                brief(&rk)
                            ),
                        ));
                    }
                }
                None => t.set(RETAIN_KEYS, rk),
            }
            return Ok(());
        }
        let Value::Array(list) = rk else {
            return Err(self.err_at(
                Seg::Key(RETAIN_KEYS),
                ErrorKind::InvalidRetainKeys,
                format!(
                    "invalid patch format of retainKeys: the value must be a list of field names, not a {}",
                    kind_name(&rk)
                ),
            ));
        };
        let listed = |k: &str| list.iter().any(|v| v.as_str() == Some(k));
        let big: Option<rustc_hash::FxHashSet<&str>> =
            (list.len() > 16).then(|| list.iter().filter_map(|v| v.as_str()).collect());
        let contains = |k: &str| match &big {
            Some(s) => s.contains(k),
            None => listed(k),
        };
        for m in patch.members() {
            if m.key == RETAIN_KEYS
                || m.value.is_null()
                || m.key.starts_with(DELETE_FROM_PRIMITIVE_LIST)
                || m.key.starts_with(SET_ELEMENT_ORDER)
            {
                continue;
            }
            if !contains(m.key) {
                return Err(self.err_at(
                    Seg::Key(m.key),
                    ErrorKind::InvalidRetainKeys,
                    format!(
                        "invalid patch format of retainKeys: the patch sets {:?} but $retainKeys does not list it; add it to $retainKeys",
                        m.key
                    ),
                ));
            }
        }
        for m in t.members.iter_mut() {
            if m.1.is_some() && !contains(m.0) {
                m.1 = None;
            }
        }
        Ok(())
    }

    /// §3.3 for one field `k` (already stripped of any directive prefix).
    fn merge_field(
        &mut self,
        t: &mut WorkObject<'a>,
        k: &'a str,
        pv: Value<'a>,
        del: bool,
        cursor: Cursor<'_>,
    ) -> Result<(), Error> {
        if pv.is_null() {
            t.remove(k);
            if self.mode == Mode::Apply {
                return Ok(());
            }
        }
        let Some(tv) = t.get(k) else {
            if !del {
                self.insert_clean(t, k, pv)?;
            }
            return Ok(());
        };
        if tv.kind() != pv.kind() {
            if !del {
                self.insert_clean(t, k, pv)?;
            }
            return Ok(());
        }
        match (tv, pv) {
            (Value::Object(_), Value::Object(po)) => {
                let field = self.lookup(cursor, k, false)?;
                if field.meta.strategy == Strategy::Replace {
                    self.store_as_sent(t, k, pv)?;
                } else {
                    let v = self.merge_object(tv, po, field.cursor)?;
                    t.set(k, v);
                }
            }
            (Value::Array(tl), Value::Array(pl)) => {
                let field = self.lookup(cursor, k, true)?;
                match self.plan(field.meta) {
                    ListPlan::Merge(keys) => {
                        let r = self.merge_list(tl, pl, field.cursor, keys, del, false)?;
                        t.set(k, Value::array_from(self.arena, &r.items));
                    }
                    ListPlan::Atomic if del => {
                        let keys = self.order_keys(field.meta);
                        let r = self.merge_list(tl, pl, field.cursor, keys, del, false)?;
                        t.set(k, Value::array_from(self.arena, &r.items));
                    }
                    ListPlan::Atomic => self.store_as_sent(t, k, pv)?,
                }
            }
            _ => t.set(k, pv),
        }
        Ok(())
    }

    /// Replace objects and atomic lists: as sent in COMPOSE, cleaned in APPLY
    /// (Q9, always fixed).
    fn store_as_sent(
        &mut self,
        t: &mut WorkObject<'a>,
        k: &'a str,
        pv: Value<'a>,
    ) -> Result<(), Error> {
        if self.mode == Mode::Compose {
            t.set(k, pv);
            return Ok(());
        }
        self.insert_clean(t, k, pv)
    }

    fn insert_clean(
        &mut self,
        t: &mut WorkObject<'a>,
        k: &'a str,
        pv: Value<'a>,
    ) -> Result<(), Error> {
        match self.clean(pv, false)? {
            Cleaned::Same => t.set(k, pv),
            Cleaned::New(v) => t.set(k, v),
            Cleaned::Drop => t.remove(k),
        }
        Ok(())
    }

    /// `$deleteFromPrimitiveList/<f>` (§3.3, §3.12).
    fn delete_list_key(
        &mut self,
        t: &mut WorkObject<'a>,
        key: &'a str,
        pv: Value<'a>,
        cursor: Cursor<'_>,
    ) -> Result<(), Error> {
        if self.mode == Mode::Compose {
            // Q22: a later list overwrites; with fix_quirks the lists are united.
            if self.opts.fix_quirks {
                if let (Some(Value::Array(a)), Value::Array(b)) = (t.get(key), pv) {
                    let mut out: Vec<Value<'a>> = a.to_vec();
                    let mut seen: rustc_hash::FxHashSet<Value<'a>> = a.iter().copied().collect();
                    out.extend(b.iter().filter(|v| seen.insert(**v)));
                    t.set(key, Value::array_from(self.arena, &out));
                    return Ok(());
                }
            }
            t.set(key, pv);
            return Ok(());
        }
        let Some(f) = extract_key(key, DELETE_FROM_PRIMITIVE_LIST) else {
            return Err(self.err(
                ErrorKind::InvalidDeleteFromPrimitiveList,
                "invalid patch format of primitive list: the key must be $deleteFromPrimitiveList/<field>",
            ));
        };
        if self.opts.fix_quirks && !pv.is_array() {
            // Q11 fix.
            return Err(self.err(
                ErrorKind::InvalidDeleteFromPrimitiveList,
                format!(
                    "invalid patch format of primitive list: the value must be a list of values to delete, not a {}",
                    kind_name(&pv)
                ),
            ));
        }
        self.merge_field(t, f, pv, true, cursor)
    }

    // ----- cleaning (§3.4) --------------------------------------------------------

    /// Cleans a value about to be stored: APPLY drops null members and every
    /// directive (Q6/Q7/Q9/Q10/Q30 fixed); both modes drop objects holding
    /// `$patch` (quirk Q8 unless `fix_quirks`).
    fn clean(&mut self, v: Value<'a>, in_list: bool) -> Result<Cleaned<'a>, Error> {
        match v {
            Value::Object(_) | Value::Array(_) => {
                self.enter()?;
                let r =
                    stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.clean_inner(v, in_list));
                self.leave();
                r
            }
            _ => Ok(Cleaned::Same),
        }
    }

    fn clean_inner(&mut self, v: Value<'a>, in_list: bool) -> Result<Cleaned<'a>, Error> {
        let apply = self.mode == Mode::Apply;
        match v {
            Value::Object(o) => {
                if let Some(d) = o.get(PATCH) {
                    if !in_list && self.opts.fix_quirks && d.as_str() == Some("replace") {
                        // Q8 fix: a replace that creates its remainder.
                        let rest: Vec<Member<'a>> = o
                            .members()
                            .iter()
                            .filter(|m| m.key != PATCH)
                            .copied()
                            .collect();
                        let rest = Value::object_from_members(self.arena, &rest);
                        return Ok(match self.clean(rest, false)? {
                            Cleaned::Same => Cleaned::New(rest),
                            other => other,
                        });
                    }
                    return Ok(Cleaned::Drop);
                }
                let mut out: Option<Vec<Member<'a>>> = None;
                for (i, m) in o.members().iter().enumerate() {
                    let c = if apply && (m.value.is_null() || is_directive_key(m.key)) {
                        Cleaned::Drop
                    } else {
                        self.clean(m.value, false)?
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
                    let c = self.clean(*item, true)?;
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

    fn clean_value(&mut self, v: Value<'a>, in_list: bool) -> Result<Option<Value<'a>>, Error> {
        Ok(match self.clean(v, in_list)? {
            Cleaned::Same => Some(v),
            Cleaned::New(n) => Some(n),
            Cleaned::Drop => None,
        })
    }

    /// Removes `$patch` objects from a list (COMPOSE), or cleans it fully (APPLY).
    fn strip_list(&mut self, items: &'a [Value<'a>]) -> Result<Vec<Value<'a>>, Error> {
        let mut out = Vec::with_capacity(items.len());
        for (i, v) in items.iter().enumerate() {
            self.path.push(Seg::Index(i));
            let r = self.clean_value(*v, true);
            self.path.pop();
            if let Some(v) = r? {
                out.push(v);
            }
        }
        Ok(out)
    }

    // ----- lists ----------------------------------------------------------------

    /// `sliceElementType`: the kind shared by every element, `None` when there
    /// are no elements.
    fn element_kind(&self, lists: &[&[Value<'a>]]) -> Result<Option<Kind>, Error> {
        let norm = |k: Kind| {
            if self.opts.fix_quirks && k == Kind::Float {
                Kind::Int
            } else {
                k
            }
        };
        let mut first: Option<Kind> = None;
        for list in lists {
            for v in list.iter() {
                let k = v.kind();
                if k == Kind::Null {
                    return Err(self.err(
                        ErrorKind::NullElement,
                        "a merge list must not contain null elements; remove the null",
                    ));
                }
                match first {
                    None => {
                        if k == Kind::Array {
                            return Err(self.err(
                                ErrorKind::ListOfLists,
                                "lists of lists are not supported in merge lists",
                            ));
                        }
                        first = Some(k);
                    }
                    Some(f) if norm(f) != norm(k) => {
                        let parts: Vec<String> = lists.iter().map(|l| render_list(l)).collect();
                        return Err(self.err(
                            ErrorKind::MixedElementTypes,
                            format!(
                                "list element types are not identical: [{}]; a merge list must hold elements of one kind ({} and {} found)",
                                parts.join(" "),
                                f.name(),
                                k.name()
                            ),
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(first)
    }

    /// `merge_list(L, P)` (§3.8, §3.9, §3.12) with its ordering (§3.10).
    ///
    /// With `defer`, a keyed merge returns its content unordered together with
    /// what ordering it needs ([`ListMerge::deferred`]); the caller must order
    /// it with [`Merger::order_merge`] or prove that unnecessary.
    fn merge_list(
        &mut self,
        live: &'a [Value<'a>],
        patch: &'a [Value<'a>],
        elem: Cursor<'_>,
        keys: KeySpec<'_>,
        del: bool,
        defer: bool,
    ) -> Result<ListMerge<'a>, Error> {
        if live.is_empty() && patch.is_empty() {
            return Ok(ListMerge {
                items: Vec::new(),
                r_prime: Vec::new(),
                deferred: None,
            });
        }
        self.enter()?;
        let r = stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            self.merge_list_inner(live, patch, elem, keys, del, defer)
        });
        self.leave();
        r
    }

    fn merge_list_inner(
        &mut self,
        live: &'a [Value<'a>],
        patch: &'a [Value<'a>],
        elem: Cursor<'_>,
        keys: KeySpec<'_>,
        del: bool,
        defer: bool,
    ) -> Result<ListMerge<'a>, Error> {
        let kind = self.element_kind(&[live, patch])?;
        if kind != Some(Kind::Object) {
            // Scalars: a set.
            if del && self.mode == Mode::Apply {
                let set: rustc_hash::FxHashSet<Id<'a>> = patch
                    .iter()
                    .filter_map(|v| identity(*v, KeySpec::Value).ok())
                    .collect();
                let items = live
                    .iter()
                    .filter(|v| {
                        identity(**v, KeySpec::Value)
                            .map(|id| !set.contains(&id))
                            .unwrap_or(true)
                    })
                    .copied()
                    .collect();
                return Ok(ListMerge {
                    items,
                    r_prime: live.to_vec(),
                    deferred: None,
                });
            }
            let mut seen: rustc_hash::FxHashSet<Id<'a>> = Default::default();
            let mut merged = Vec::with_capacity(live.len() + patch.len());
            for v in live.iter().chain(patch.iter()) {
                if let Ok(id) = identity(*v, KeySpec::Value) {
                    if seen.insert(id) {
                        merged.push(*v);
                    }
                }
            }
            let items = self.order(merged, patch, live, keys, true)?;
            return Ok(ListMerge {
                items,
                r_prime: live.to_vec(),
                deferred: None,
            });
        }
        // Objects: a keyed list.
        if del && self.opts.fix_quirks {
            return Err(self.err(
                ErrorKind::InvalidDeleteFromPrimitiveList,
                "$deleteFromPrimitiveList only deletes scalars, but this list holds objects; use {\"$patch\":\"delete\"} elements in the list instead",
            ));
        }
        if !keys.is_keyed() {
            let name = elem.type_name().unwrap_or("<unknown>");
            return Err(self.err(
                ErrorKind::NoMergeKey,
                format!(
                    "cannot merge lists without merge key for {name}; the schema declares no x-kubernetes-patch-merge-key for this list of objects"
                ),
            ));
        }
        if self.opts.reject_duplicate_keys {
            self.check_duplicates(live, keys)?;
        }
        // §3.9.1 special elements.
        let mut rest: Vec<(usize, Value<'a>)> = Vec::with_capacity(patch.len());
        let mut deletes: rustc_hash::FxHashSet<Id<'a>> = Default::default();
        let mut replace = false;
        for (j, e) in patch.iter().enumerate() {
            let Some(o) = e.as_object() else {
                rest.push((j, *e));
                continue;
            };
            match o.get(PATCH) {
                None => rest.push((j, *e)),
                Some(Value::String("delete")) => match identity(*e, keys) {
                    Ok(id) => {
                        deletes.insert(id);
                    }
                    Err(err) => {
                        return Err(self.id_error(Some(Seg::Index(j)), err, e, "a $patch: delete element"))
                    }
                },
                Some(Value::String("replace")) => replace = true,
                Some(Value::String("merge")) => {
                    return Err(self.err_at(
                        Seg::Index(j),
                        ErrorKind::MergeListDirective,
                        "merging lists cannot yet be specified in the patch; remove the {\"$patch\":\"merge\"} element (merging is the default)",
                    ))
                }
                Some(other) => {
                    return Err(self.err_at(
                        Seg::Index(j),
                        ErrorKind::UnknownPatchType,
                        format!(
                            "unknown patch type: {} in map: {}; a list element's $patch must be \"replace\" or \"delete\"",
                            brief(&other),
                            brief(e)
                        ),
                    ))
                }
            }
        }
        let live_after: Vec<Value<'a>> = if deletes.is_empty() {
            live.to_vec()
        } else {
            live.iter()
                .filter(|v| match identity(**v, keys) {
                    Ok(id) => !deletes.contains(&id),
                    Err(_) => true,
                })
                .copied()
                .collect()
        };
        if replace {
            let mut content = Vec::with_capacity(rest.len());
            for (j, e) in &rest {
                if self.mode == Mode::Apply {
                    self.path.push(Seg::Index(*j));
                    let r = self.clean_value(*e, true);
                    self.path.pop();
                    if let Some(v) = r? {
                        content.push(v);
                    }
                } else {
                    content.push(*e);
                }
            }
            let items = self.order(content.clone(), &[], &content, keys, false)?;
            return Ok(ListMerge {
                items,
                r_prime: live_after,
                deferred: None,
            });
        }
        // §3.9.2 merge the rest in patch order.
        let n = live.len();
        let mut merged = live_after.clone();
        let mut index = PosIndex::with_capacity(merged.len() + rest.len());
        for (i, v) in merged.iter().enumerate() {
            if let Ok(id) = identity(*v, keys) {
                index.insert_first(id, i);
            }
        }
        let mut appended: Vec<Value<'a>> = Vec::new();
        let mut patch_rest: Vec<Value<'a>> = Vec::with_capacity(rest.len());
        let mut p_index = PosIndex::with_capacity(rest.len());
        let mut exact = true;
        for (j, e) in &rest {
            let id = match identity(*e, keys) {
                Ok(id) => id,
                Err(err) => {
                    return Err(self.id_error(Some(Seg::Index(*j)), err, e, "patch element"))
                }
            };
            let h = id_hash(&id);
            p_index.insert_first_hashed(h, id.clone(), patch_rest.len());
            patch_rest.push(*e);
            // `e` is an object here: non-objects failed the identity check.
            let Some(eo) = e.as_object() else { continue };
            match index.get_hashed(h, &id) {
                Some(i) => {
                    self.path.push(Seg::Index(*j));
                    let r = self.merge_object(merged[i], eo, elem);
                    self.path.pop();
                    merged[i] = r?;
                }
                None => {
                    let (v, same) = if self.mode == Mode::Apply {
                        // Q6 (always fixed): new elements are cleaned.
                        self.path.push(Seg::Index(*j));
                        let r = self.clean(*e, false);
                        self.path.pop();
                        match r? {
                            Cleaned::Same => (*e, true),
                            Cleaned::New(c) => (c, false),
                            Cleaned::Drop => (Value::empty_object(), false),
                        }
                    } else {
                        (*e, true)
                    };
                    if exact && !same {
                        exact = identity(v, keys).is_ok_and(|cid| cid == id);
                    }
                    index.insert_first_hashed(h, id, merged.len());
                    merged.push(v);
                    appended.push(v);
                }
            }
        }
        let live_len = live_after.len();
        let mut r_prime = live_after;
        r_prime.extend(appended);
        r_prime.truncate(n);
        let d = Deferred {
            p_index,
            index,
            live_len,
            exact,
        };
        if defer {
            return Ok(ListMerge {
                items: merged,
                r_prime,
                deferred: Some(d),
            });
        }
        let items = self.order_merge(merged, &d, keys)?;
        Ok(ListMerge {
            items,
            r_prime,
            deferred: None,
        })
    }

    fn check_duplicates(&self, live: &'a [Value<'a>], keys: KeySpec<'_>) -> Result<(), Error> {
        let mut index = PosIndex::with_capacity(live.len());
        for (i, v) in live.iter().enumerate() {
            if let Ok(id) = identity(*v, keys) {
                let h = id_hash(&id);
                if let Some(first) = index.get_hashed(h, &id) {
                    return Err(self.err(
                        ErrorKind::DuplicateMergeKey,
                        format!(
                            "the live list has two elements with merge key {} = {} (positions {first} and {i}); make the keys unique",
                            keys.describe(),
                            render_id(&id)
                        ),
                    ));
                }
                index.insert_first_hashed(h, id, i);
            }
        }
        Ok(())
    }

    // ----- ordering (§3.10) ---------------------------------------------------------

    /// Orders `merged`: items whose identity is in `porder` keep its order;
    /// the rest keep the order of `reference`; the two are interleaved by
    /// `reference` positions.
    fn order(
        &self,
        merged: Vec<Value<'a>>,
        porder: &[Value<'a>],
        reference: &[Value<'a>],
        keys: KeySpec<'_>,
        primitive: bool,
    ) -> Result<Vec<Value<'a>>, Error> {
        // Identity rule for this pass: primitives are their own identity.
        let spec = if primitive { KeySpec::Value } else { keys };
        if primitive && keys.is_keyed() && !merged.is_empty() {
            // A scalar list whose schema declares a merge key (§2.3).
            return Err(self.err(
                ErrorKind::ExpectedObject,
                format!(
                    "this list declares merge key {:?} but holds scalars: expected a map[string]interface {{}}, but received a {}",
                    keys.describe(),
                    kind_name(&merged[0])
                ),
            ));
        }
        let ids = self.merged_ids(&merged, spec, primitive)?;
        let p_index = self.position_index(porder, spec, true)?;
        let r_index = self.position_index(reference, spec, false)?;
        let placed = place(&merged, ids, &p_index, |h, id| r_index.get_hashed(h, id));
        Ok(self.arrange(placed))
    }

    /// The §3.10 ordering of a keyed merge: `order(merged, P, L', keys)`
    /// with the indexes the merge built. The identities of `P` and `L'` were
    /// checked while merging (an `L'` element without one is still in
    /// `merged` and fails there first), and `pos(L', ·)` is the merge index
    /// below `live_len`.
    fn order_merge(
        &self,
        merged: Vec<Value<'a>>,
        d: &Deferred<'a>,
        keys: KeySpec<'_>,
    ) -> Result<Vec<Value<'a>>, Error> {
        let ids = self.merged_ids(&merged, keys, false)?;
        let placed = place(&merged, ids, &d.p_index, |h, id| {
            d.index.get_hashed(h, id).filter(|&p| p < d.live_len)
        });
        Ok(self.arrange(placed))
    }

    /// The `$setElementOrder` ordering of a keyed merge whose own ordering
    /// was deferred, without that first ordering, when this provably gives
    /// the same list: every element has an identity (so the first pass could
    /// not fail), none is a `$patch: delete` object, the elements found in
    /// the order list have distinct positions there, and the others have
    /// distinct positions in `R'`. Then both sorts of §3.10.2 have strict
    /// keys and the outcome does not depend on the order of `merged`.
    /// `None` when that cannot be shown (the caller then runs both passes).
    fn order_set_fast(
        &self,
        merged: &[Value<'a>],
        order: &[Value<'a>],
        d: &Deferred<'a>,
        n: usize,
        keys: KeySpec<'_>,
    ) -> Option<Vec<Value<'a>>> {
        if !d.exact {
            return None;
        }
        let ids = self.merged_ids(merged, keys, false).ok()?;
        let mut s_index = PosIndex::with_capacity(order.len());
        for (i, v) in order.iter().enumerate() {
            s_index.insert_first(identity(*v, keys).ok()?, i);
        }
        // `R'` is the first `n` elements of live-after-deletes ++ appended.
        let placed = place(merged, ids, &s_index, |h, id| {
            d.index.get_hashed(h, id).filter(|&p| p < n)
        });
        let mut seen_p = vec![false; order.len()];
        let mut seen_r = vec![false; n];
        for x in &placed {
            if x.delete {
                return None;
            }
            let slot = match (x.ppos, x.rpos) {
                (Some(p), _) => seen_p.get_mut(p)?,
                (None, Some(r)) => seen_r.get_mut(r)?,
                (None, None) => return None,
            };
            if *slot {
                return None;
            }
            *slot = true;
        }
        Some(self.arrange(placed))
    }

    /// Identity, its hash and "holds `$patch: delete`" of every element.
    fn merged_ids(
        &self,
        merged: &[Value<'a>],
        spec: KeySpec<'_>,
        primitive: bool,
    ) -> Result<Vec<(Id<'a>, u64, bool)>, Error> {
        let mut ids = Vec::with_capacity(merged.len());
        for v in merged {
            match identity(*v, spec) {
                Ok(id) => {
                    let h = id_hash(&id);
                    let delete = !primitive
                        && v.as_object()
                            .and_then(|o| o.get(PATCH))
                            .is_some_and(|d| d.as_str() == Some("delete"));
                    ids.push((id, h, delete));
                }
                Err(e) => return Err(self.id_error(None, e, v, "merged list element")),
            }
        }
        Ok(ids)
    }

    /// Steps 1–3 of §3.10.2 on placed elements.
    fn arrange(&self, placed: Vec<Placed<'a>>) -> Vec<Value<'a>> {
        // (ppos, rpos, value)
        let mut patch_items: Vec<(usize, Option<usize>, Value<'a>)> = Vec::new();
        let mut server: Vec<(Option<usize>, Value<'a>)> = Vec::new();
        let mut patch_deletes = Vec::new();
        let mut server_deletes = Vec::new();
        for x in placed {
            match x.ppos {
                Some(pp) => {
                    if x.delete {
                        patch_deletes.push((pp, x.rpos, x.value));
                    } else {
                        patch_items.push((pp, x.rpos, x.value));
                    }
                }
                None => {
                    if x.delete {
                        server_deletes.push((x.rpos, x.value));
                    } else {
                        server.push((x.rpos, x.value));
                    }
                }
            }
        }
        patch_items.sort_by_key(|x| x.0);
        patch_items.extend(patch_deletes);
        if server.iter().all(|x| x.0.is_some()) {
            server.sort_by_key(|x| x.0);
        } else if self.opts.fix_quirks {
            // Q3 fix: elements missing from the order list go last, stable.
            server.sort_by_key(|x| (x.0.is_none(), x.0));
        } else {
            go_stable_sort(&mut server, &|a, b| match (a.0, b.0) {
                (Some(x), Some(y)) => x < y,
                _ => true,
            });
        }
        server.extend(server_deletes);
        // Two-pointer interleave.
        let mut out = Vec::with_capacity(patch_items.len() + server.len());
        let (mut i, mut j) = (0, 0);
        while i < server.len() && j < patch_items.len() {
            match (server[i].0, patch_items[j].1) {
                (Some(s), Some(p)) if s < p => {
                    out.push(server[i].1);
                    i += 1;
                }
                _ => {
                    out.push(patch_items[j].2);
                    j += 1;
                }
            }
        }
        out.extend(server[i..].iter().map(|x| x.1));
        out.extend(patch_items[j..].iter().map(|x| x.2));
        out
    }

    fn position_index(
        &self,
        list: &[Value<'a>],
        spec: KeySpec<'_>,
        is_patch: bool,
    ) -> Result<PosIndex<'a>, Error> {
        let mut index = PosIndex::with_capacity(list.len());
        for (i, v) in list.iter().enumerate() {
            match identity(*v, spec) {
                Ok(id) => {
                    index.insert_first(id, i);
                }
                Err(e) => {
                    let what = if is_patch {
                        "order element"
                    } else {
                        "live element"
                    };
                    return Err(self.id_error(None, e, v, what));
                }
            }
        }
        Ok(index)
    }

    // ----- $setElementOrder (§3.11) -----------------------------------------------

    fn set_element_order(
        &mut self,
        t: &mut WorkObject<'a>,
        key: &'a str,
        sv: Value<'a>,
        patch: Object<'a>,
        cursor: Cursor<'_>,
    ) -> Result<Option<&'a str>, Error> {
        if self.mode == Mode::Compose {
            match t.get(key) {
                Some(existing) => {
                    if !existing.deep_eq(&sv) {
                        return Err(self.err(
                            ErrorKind::InvalidSetElementOrder,
                            format!(
                                "invalid patch format of setElementOrder list: the two patches carry different lists {} and {}",
                                brief(&existing),
                                brief(&sv)
                            ),
                        ));
                    }
                }
                None => t.set(key, sv),
            }
        }
        let Value::Array(order) = sv else {
            return Err(self.err(
                ErrorKind::ExpectedList,
                format!(
                    "expected a []interface {{}}, but received a {}: $setElementOrder must hold a list",
                    kind_name(&sv)
                ),
            ));
        };
        let Some(f) = extract_key(key, SET_ELEMENT_ORDER) else {
            return Err(self.err(
                ErrorKind::InvalidSetElementOrder,
                "invalid patch format of setElementOrder list: the key must be $setElementOrder/<field>",
            ));
        };
        let live = t.get(f);
        let plist = patch.get(f);
        let as_list = |v: Option<Value<'a>>, this: &Self| {
            match v {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(other) => Err(this.err(
                ErrorKind::ExpectedList,
                format!(
                    "expected a []interface {{}}, but received a {}: the field ordered by $setElementOrder must be a list",
                    kind_name(&other)
                ),
            )),
        }
        };
        // Errors about the field itself point at the field (live or patch side).
        let saved = self.path.pop();
        self.path.push(Seg::Key(f));
        let live = as_list(live, self);
        let plist = live.and_then(|l| as_list(plist, self).map(|p| (l, p)));
        let field = plist.and_then(|lp| self.lookup(cursor, f, true).map(|fd| (lp, fd)));
        self.path.pop();
        if let Some(s) = saved {
            self.path.push(s);
        }
        let ((live, plist), field) = field?;
        let keys = self.order_keys(field.meta);
        if let Some(p) = plist {
            self.validate_order(p, order, keys)?;
        }
        let merge_plan = self.plan(field.meta);
        let (merged, r_prime, deferred) = match (live, plist) {
            (None, None) => return Ok(None),
            (Some(l), None) => (l.to_vec(), l.to_vec(), None),
            (None, Some(p)) => {
                // Q30 (always fixed in APPLY): cleaned like any insertion.
                (self.strip_list(p)?, Vec::new(), None)
            }
            (Some(l), Some(p)) => {
                let saved = self.path.pop();
                self.path.push(Seg::Key(f));
                let r = match merge_plan {
                    // The merge's own ordering is deferred: the ordering by
                    // `order` below often makes it unnecessary.
                    ListPlan::Merge(k) => self.merge_list(l, p, field.cursor, k, false, true),
                    ListPlan::Atomic => {
                        if self.mode == Mode::Apply {
                            self.strip_list(p).map(|items| ListMerge {
                                items,
                                r_prime: l.to_vec(),
                                deferred: None,
                            })
                        } else {
                            Ok(ListMerge {
                                items: p.to_vec(),
                                r_prime: l.to_vec(),
                                deferred: None,
                            })
                        }
                    }
                };
                self.path.pop();
                if let Some(s) = saved {
                    self.path.push(s);
                }
                let r = r?;
                (r.items, r.r_prime, r.deferred)
            }
        };
        let kind = self.element_kind(&[live.unwrap_or(&[]), plist.unwrap_or(&[])])?;
        let Some(kind) = kind else {
            if self.opts.fix_quirks {
                // Q20 fix: nothing to order.
                t.set(f, Value::array_from(self.arena, &merged));
                return Ok(Some(f));
            }
            return Err(self.err(
                ErrorKind::NoElements,
                "no elements in any of the given slices: $setElementOrder names a list that is empty on both sides",
            ));
        };
        let primitive = kind != Kind::Object;
        if !primitive && !keys.is_keyed() {
            return Err(self.err(
                ErrorKind::NoMergeKey,
                "cannot order a list of objects without a merge key; the schema declares no x-kubernetes-patch-merge-key for this list",
            ));
        }
        let merged = match deferred {
            None => merged,
            Some(d) => {
                // A keyed merge (so objects, and `keys` is its merge key):
                // skip its own ordering when it cannot matter, else run it
                // here, at the field's path as inside `merge_list`.
                let n = live.map_or(0, <[Value<'a>]>::len);
                if let Some(ordered) = self.order_set_fast(&merged, order, &d, n, keys) {
                    t.set(f, Value::array_from(self.arena, &ordered));
                    return Ok(Some(f));
                }
                let saved = self.path.pop();
                self.path.push(Seg::Key(f));
                let r = self.order_merge(merged, &d, keys);
                self.path.pop();
                if let Some(s) = saved {
                    self.path.push(s);
                }
                r?
            }
        };
        let ordered = self.order(merged, order, &r_prime, keys, primitive)?;
        t.set(f, Value::array_from(self.arena, &ordered));
        Ok(Some(f))
    }

    /// §3.11.1 step 5: the patch list must follow the order list.
    fn validate_order(
        &self,
        plist: &'a [Value<'a>],
        order: &'a [Value<'a>],
        keys: KeySpec<'_>,
    ) -> Result<(), Error> {
        if order.is_empty() || plist.is_empty() {
            return Ok(());
        }
        let mut non_delete: Vec<Value<'a>> = Vec::with_capacity(plist.len());
        if keys.is_keyed() {
            for v in plist {
                let Some(o) = v.as_object() else {
                    return Err(self.id_error(None, IdError::NotObject, v, "patch list element"));
                };
                if o.get(PATCH).and_then(|d| d.as_str()) != Some("delete") {
                    non_delete.push(*v);
                }
            }
        } else {
            non_delete.extend_from_slice(plist);
        }
        let (mut pi, mut si) = (0, 0);
        while pi < non_delete.len() && si < order.len() {
            let pv = non_delete[pi];
            if pv.as_object().is_some_and(|o| o.contains_key(PATCH)) {
                pi += 1;
                continue;
            }
            let equal = match keys {
                KeySpec::Value => pv.deep_eq(&order[si]),
                _ => {
                    let a = identity(pv, keys)
                        .map_err(|e| self.id_error(None, e, &pv, "patch list element"))?;
                    let b = identity(order[si], keys).map_err(|e| {
                        self.id_error(None, e, &order[si], "$setElementOrder element")
                    })?;
                    a == b
                }
            };
            if equal {
                pi += 1;
            }
            si += 1;
        }
        if pi < non_delete.len() && si >= order.len() {
            return Err(self.err(
                ErrorKind::OrderMismatch,
                format!(
                    "The order in patch list:\n{}\n doesn't match $setElementOrder list:\n{}\n; list the patch elements in $setElementOrder in the same relative order",
                    render_list(plist),
                    render_list(order)
                ),
            ));
        }
        Ok(())
    }
}
