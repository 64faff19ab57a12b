//! `metadata.managedFields` entries, `prune`, `extract` (KEP-2155 apply
//! configurations) and `owners`.

use std::collections::BTreeMap;

use smpatch_schema::{Cursor, ListPlan, Walk};
use smpatch_value::{Arena, Member, Path as DocPath, Value};

use crate::error::{Error, ErrorKind};
use crate::pe::Path;
use crate::set::{FieldSet, MAX_SET_DEPTH};
use crate::walk::{item_pe, member_at, resolve, too_deep, validate, At, Atom, FieldsOptions};

/// One entry of `metadata.managedFields`, as read by [`managed_fields`].
#[derive(Clone, Debug)]
pub struct ManagedFieldsEntry<'a> {
    /// Position in the array.
    pub index: usize,
    /// `manager` (`""` when absent).
    pub manager: &'a str,
    /// `operation` (`"Apply"`, `"Update"`; `""` when absent).
    pub operation: &'a str,
    /// `apiVersion` (`""` when absent).
    pub api_version: &'a str,
    /// `subresource` (`""` for the main resource).
    pub subresource: &'a str,
    /// The raw `fieldsV1` member, if present and not `null`.
    pub fields_v1: Option<Value<'a>>,
}

impl ManagedFieldsEntry<'_> {
    /// Decodes `fieldsV1`. A missing entry is an error (as the reference's
    /// extraction treats it), naming the entry's index and manager.
    pub fn field_set(&self) -> Result<FieldSet, Error> {
        let at = format!("/metadata/managedFields/{}/fieldsV1", self.index);
        let Some(v) = self.fields_v1 else {
            return Err(malformed(
                at,
                format!(
                    "managed fields entry {} (manager {:?}) has no fieldsV1",
                    self.index, self.manager
                ),
            ));
        };
        FieldSet::from_value(&v).map_err(|e| {
            let inner = if e.path().is_empty() {
                e.message().to_owned()
            } else {
                format!("at {}: {}", e.path(), e.message())
            };
            malformed(
                at,
                format!(
                    "managed fields entry {} (manager {:?}): invalid fieldsV1: {inner}",
                    self.index, self.manager
                ),
            )
        })
    }
}

/// A member that may be absent or `null` (`Ok(None)`), else must be what
/// `pick` accepts (`Err(refused())` when it does not).
fn present<'a, T>(
    member: Option<Value<'a>>,
    pick: impl FnOnce(&Value<'a>) -> Option<T>,
    refused: impl FnOnce() -> Error,
) -> Result<Option<T>, Error> {
    match member {
        None | Some(Value::Null) => Ok(None),
        Some(v) => pick(&v).map(Some).ok_or_else(refused),
    }
}

fn not_an_object() -> Error {
    Error::new(
        ErrorKind::InvalidObject,
        "",
        "the object must be a JSON object",
    )
}

fn malformed(at: impl Into<String>, message: impl Into<String>) -> Error {
    Error::new(ErrorKind::MalformedManagedFields, at, message)
}

fn metadata_not_an_object() -> Error {
    Error::new(
        ErrorKind::InvalidObject,
        "/metadata",
        "metadata must be an object (or null)",
    )
}

/// The entries of `object.metadata.managedFields` (empty when absent).
///
/// Errors ([`ErrorKind::MalformedManagedFields`]) give the entry index: the
/// member is not a list, an entry is not an object, or `manager`,
/// `operation`, `apiVersion`, `subresource` is not a string.
pub fn managed_fields<'a>(object: &Value<'a>) -> Result<Vec<ManagedFieldsEntry<'a>>, Error> {
    let obj = object.as_object().ok_or_else(not_an_object)?;
    let Some(meta) = present(
        obj.get("metadata"),
        Value::as_object,
        metadata_not_an_object,
    )?
    else {
        return Ok(Vec::new());
    };
    let Some(items) = present(meta.get("managedFields"), Value::as_array, || {
        malformed("/metadata/managedFields", "managedFields must be a list")
    })?
    else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let at = format!("/metadata/managedFields/{index}");
        let e = item.as_object().ok_or_else(|| {
            malformed(
                &at,
                format!("managed fields entry {index} is not an object"),
            )
        })?;
        let s = |name: &str| -> Result<&'a str, Error> {
            let refused = || {
                malformed(
                    format!("{at}/{name}"),
                    format!("managed fields entry {index}: {name} must be a string"),
                )
            };
            Ok(present(e.get(name), Value::as_str, refused)?.unwrap_or(""))
        };
        out.push(ManagedFieldsEntry {
            index,
            manager: s("manager")?,
            operation: s("operation")?,
            api_version: s("apiVersion")?,
            subresource: s("subresource")?,
            // `null` decodes as no field set at all (Go's nil pointer).
            fields_v1: e.get("fieldsV1").filter(|v| !v.is_null()),
        });
    }
    Ok(out)
}

/// What to do with a node reached through the set whose owned content is
/// gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Unmatched {
    /// Emit an object member or list item only if it is a leaf of the set
    /// or something owned below it is emitted (recommended).
    #[default]
    Omit,
    /// As client-go's unstructured extractor: such nodes become `null` (a
    /// list item a `null` element), or the live `{}`/`[]`/atomic value.
    Reference,
}

/// What an owned leaf whose live value is a non-empty granular map or
/// associative list becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LeafPolicy {
    /// `{}` / `[]`: keeps the claim on the node, claims nothing below
    /// (recommended).
    #[default]
    EmptyContainer,
    /// As the reference: filtered with the parent's set (usually `null`).
    Reference,
}

/// Whether the entry's `apiVersion` must match the object's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ApiCheck {
    /// Not checked (client-go).
    #[default]
    Ignore,
    /// Fail with [`ErrorKind::ApiVersionMismatch`] (what KEP-2155 asked for).
    Strict,
}

/// What extraction returns when nothing owned is left at the top level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EmptyResult {
    /// The identity fields only (recommended).
    #[default]
    IdentityOnly,
    /// Fail with [`ErrorKind::EmptyResult`] (the reference).
    Error,
}

/// What extraction does when the manager has no `Apply` entry for the
/// subresource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MissingEntry {
    /// Fail with [`ErrorKind::NoApplyEntry`] naming the manager (default: a
    /// caller asking for a manager's configuration usually mistyped it).
    #[default]
    Error,
    /// Succeed with the identity fields only (client-go).
    IdentityOnly,
}

/// Options of [`extract`] and [`prune`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtractOptions {
    /// The subresource whose entry is used (`""`: the main resource).
    pub subresource: String,
    /// Default [`Unmatched::Omit`].
    pub unmatched: Unmatched,
    /// Default [`LeafPolicy::EmptyContainer`].
    pub leaf_containers: LeafPolicy,
    /// Default [`ApiCheck::Ignore`].
    pub api_version_check: ApiCheck,
    /// Also copy the key fields of every kept keyed list item even when not
    /// owned (breaks the subset law). Default false.
    pub include_key_fields: bool,
    /// Default [`EmptyResult::IdentityOnly`].
    pub empty_result: EmptyResult,
    /// Default [`MissingEntry::Error`].
    pub missing_entry: MissingEntry,
    /// Validate the object against the schema first (undeclared fields,
    /// wrong types, duplicate list keys), as the reference does. Default true.
    pub validate: bool,
    /// Deepest nesting walked. Default 256.
    pub max_depth: usize,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            subresource: String::new(),
            unmatched: Unmatched::Omit,
            leaf_containers: LeafPolicy::EmptyContainer,
            api_version_check: ApiCheck::Ignore,
            include_key_fields: false,
            empty_result: EmptyResult::IdentityOnly,
            missing_entry: MissingEntry::Error,
            validate: true,
            max_depth: 256,
        }
    }
}

impl ExtractOptions {
    /// client-go's behaviour (unstructured extractor, modulo member order):
    /// `null` for emptied nodes, leaves filtered with the parent's set, an
    /// error when nothing is left, identity only when there is no entry.
    pub fn reference() -> Self {
        ExtractOptions {
            unmatched: Unmatched::Reference,
            leaf_containers: LeafPolicy::Reference,
            empty_result: EmptyResult::Error,
            missing_entry: MissingEntry::IdentityOnly,
            ..ExtractOptions::default()
        }
    }
}

/// Keeps exactly the values of `object` at the paths of `set` (its leaves;
/// list items are kept in live order, addressed by their `k:`/`v:`
/// element), as [`extract`] does. `None` when nothing is kept.
///
/// ```
/// use smpatch_fieldsets::{prune, ExtractOptions, FieldSet};
/// use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
/// let arena = Arena::new();
/// let cm = parse_json(&arena, br#"{"data":{"a":"1","b":"2"}}"#, &ParseOptions::default()).unwrap();
/// let set = FieldSet::from_json(br#"{"f:data":{"f:b":{}}}"#).unwrap();
/// let schema = smpatch_schema::embedded().cursor("v1/ConfigMap").unwrap();
/// let kept = prune(&arena, &cm, schema, &set, &ExtractOptions::default()).unwrap().unwrap();
/// assert_eq!(to_json_string(&kept), r#"{"data":{"b":"2"}}"#);
/// ```
pub fn prune<'a>(
    arena: &'a Arena,
    object: &Value<'a>,
    schema: Cursor<'_>,
    set: &FieldSet,
    opts: &ExtractOptions,
) -> Result<Option<Value<'a>>, Error> {
    let leaves = set.leaves();
    let f = Filter {
        arena,
        opts,
        max_depth: opts.max_depth.min(MAX_SET_DEPTH),
    };
    let w = Walk::new(&DocPath::Root, schema, f.max_depth);
    match opts.unmatched {
        Unmatched::Omit => f.omit(object, &leaves, At::root(schema), w),
        Unmatched::Reference => {
            let v = f.reference(object, &leaves, At::root(schema), w)?;
            Ok(if v.is_null() { None } else { Some(v) })
        }
    }
}

/// The apply configuration `manager` owns in `object` (KEP-2155 "extract"):
/// the object's values at the leaves of the manager's `Apply` entry for
/// `opts.subresource`, plus `apiVersion`, `kind`, `metadata.name` and
/// (when not empty) `metadata.namespace`.
///
/// With the default options the result's field set is a subset of the
/// entry's set (docs/FIELDSETS.md); [`ExtractOptions::reference`] gives
/// client-go's output instead.
///
/// ```
/// use smpatch_fieldsets::{extract, ExtractOptions};
/// use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
/// let arena = Arena::new();
/// let cm = parse_json(&arena, br#"{"apiVersion":"v1","kind":"ConfigMap",
///   "metadata":{"name":"c","namespace":"ns","managedFields":[{"manager":"me",
///     "operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1",
///     "fieldsV1":{"f:data":{"f:a":{}}}}]},
///   "data":{"a":"1","b":"2"}}"#, &ParseOptions::default()).unwrap();
/// let schema = smpatch_schema::embedded().cursor("v1/ConfigMap").unwrap();
/// let cfg = extract(&arena, &cm, schema, "me", &ExtractOptions::default()).unwrap();
/// assert_eq!(to_json_string(&cfg),
///   r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"},"data":{"a":"1"}}"#);
/// ```
pub fn extract<'a>(
    arena: &'a Arena,
    object: &Value<'a>,
    schema: Cursor<'_>,
    manager: &str,
    opts: &ExtractOptions,
) -> Result<Value<'a>, Error> {
    let obj = object.as_object().ok_or_else(not_an_object)?;
    if !matches!(
        obj.get("metadata"),
        None | Some(Value::Null | Value::Object(_))
    ) {
        return Err(metadata_not_an_object());
    }
    let entries = managed_fields(object)?;
    if opts.validate {
        let vo = FieldsOptions {
            max_depth: opts.max_depth,
            ..FieldsOptions::default()
        };
        validate(object, schema, &vo)
            .map_err(|e| e.prefixed("the object does not fit its schema: "))?;
    }
    let entry = entries.iter().find(|e| {
        e.manager == manager && e.operation == "Apply" && e.subresource == opts.subresource
    });
    let filtered = match entry {
        None => match opts.missing_entry {
            MissingEntry::IdentityOnly => None,
            MissingEntry::Error => {
                let others: Vec<String> = entries
                    .iter()
                    .filter(|e| e.manager == manager)
                    .map(|e| {
                        format!(
                            "{} entry {}{}",
                            if e.operation.is_empty() {
                                "an"
                            } else {
                                e.operation
                            },
                            e.index,
                            if e.subresource.is_empty() {
                                String::new()
                            } else {
                                format!(" (subresource {:?})", e.subresource)
                            }
                        )
                    })
                    .collect();
                let sub = if opts.subresource.is_empty() {
                    String::new()
                } else {
                    format!(" for subresource {:?}", opts.subresource)
                };
                let has = if others.is_empty() {
                    "it has no managedFields entries".to_owned()
                } else {
                    format!("it has only: {}", others.join(", "))
                };
                return Err(Error::new(
                    ErrorKind::NoApplyEntry,
                    "/metadata/managedFields",
                    format!("manager {manager:?} has no Apply entry{sub} ({has})"),
                ));
            }
        },
        Some(e) => {
            if opts.api_version_check == ApiCheck::Strict {
                let object_version = obj.get("apiVersion").and_then(|v| v.as_str()).unwrap_or("");
                if e.api_version != object_version {
                    return Err(Error::new(
                        ErrorKind::ApiVersionMismatch,
                        format!("/metadata/managedFields/{}/apiVersion", e.index),
                        format!(
                            "managed fields of manager {manager:?} were recorded for apiVersion {:?} but the object is {object_version:?}",
                            e.api_version
                        ),
                    ));
                }
            }
            let set = e.field_set()?;
            let kept = prune(arena, object, schema, &set, opts)?;
            if kept.is_none() && opts.empty_result == EmptyResult::Error {
                return Err(Error::new(
                    ErrorKind::EmptyResult,
                    "",
                    format!(
                        "unable to convert managed fields for {manager} to unstructured, expected map, got <nil>"
                    ),
                ));
            }
            kept
        }
    };
    Ok(with_identity(arena, obj, filtered))
}

/// `apiVersion`, `kind`, `metadata` (`name`, `namespace` first), then the
/// filtered members in live order.
fn with_identity<'a>(
    arena: &'a Arena,
    obj: smpatch_value::Object<'a>,
    filtered: Option<Value<'a>>,
) -> Value<'a> {
    let mut top: Vec<Member<'a>> = Vec::new();
    for k in ["apiVersion", "kind"] {
        if let Some(v @ Value::String(_)) = obj.get(k) {
            top.push(Member { key: k, value: v });
        }
    }
    let live_meta = obj.get("metadata").and_then(|m| m.as_object());
    let mut meta: Vec<Member<'a>> = Vec::new();
    for k in ["name", "namespace"] {
        if let Some(v @ Value::String(s)) = live_meta.and_then(|m| m.get(k)) {
            if !s.is_empty() {
                meta.push(Member { key: k, value: v });
            }
        }
    }
    let fobj = filtered.and_then(|f| f.as_object());
    if let Some(Value::Object(fm)) = fobj.and_then(|f| f.get("metadata")) {
        meta.extend(
            fm.members()
                .iter()
                .filter(|m| m.key != "name" && m.key != "namespace")
                .copied(),
        );
    }
    top.push(Member {
        key: "metadata",
        value: Value::object_from_members(arena, &meta),
    });
    if let Some(f) = fobj {
        top.extend(
            f.members()
                .iter()
                .filter(|m| !matches!(m.key, "apiVersion" | "kind" | "metadata"))
                .copied(),
        );
    }
    Value::object_from_members(arena, &top)
}

struct Filter<'a, 'o> {
    arena: &'a Arena,
    opts: &'o ExtractOptions,
    max_depth: usize,
}

impl<'a> Filter<'a, '_> {
    /// A leaf of the set at a map member: the live value, with the leaf
    /// policy applied to non-empty granular maps and associative lists.
    fn leaf(
        &self,
        v: &Value<'a>,
        at: At<'_>,
        parent_set: &FieldSet,
        w: Walk<'_, '_>,
    ) -> Result<Value<'a>, Error> {
        let atom = resolve(at, v, w.path())?;
        let container = match (&atom, v) {
            (Atom::Map { atomic: false, .. }, Value::Object(o)) if !o.is_empty() => Some(true),
            (
                Atom::List {
                    plan: ListPlan::Merge(_),
                    ..
                },
                Value::Array(a),
            ) if !a.is_empty() => Some(false),
            _ => None,
        };
        match (container, self.opts.leaf_containers) {
            (None, _) => Ok(*v),
            (Some(true), LeafPolicy::EmptyContainer) => Ok(Value::empty_object()),
            (Some(false), LeafPolicy::EmptyContainer) => Ok(Value::Array(&[])),
            (Some(_), LeafPolicy::Reference) => match self.opts.unmatched {
                Unmatched::Reference => self.reference(v, parent_set, at, w),
                Unmatched::Omit => Ok(self.omit(v, parent_set, at, w)?.unwrap_or(Value::Null)),
            },
        }
    }

    fn omit(
        &self,
        value: &Value<'a>,
        set: &FieldSet,
        at: At<'_>,
        w: Walk<'_, '_>,
    ) -> Result<Option<Value<'a>>, Error> {
        if matches!(value, Value::Object(_) | Value::Array(_)) {
            w.check().map_err(too_deep)?;
        }
        match (resolve(at, value, w.path())?, value) {
            (
                Atom::Map {
                    cursor,
                    atomic: false,
                    open,
                },
                Value::Object(obj),
            ) => {
                let mut out: Vec<Member<'a>> = Vec::new();
                for (k, v) in obj.iter() {
                    let member = set.has_field(k);
                    let sub = set.field_child(k);
                    if !member && sub.is_none() {
                        continue;
                    }
                    let here = w.path().key(k);
                    let (child_at, _) = member_at(open, cursor, k, &here)?;
                    let cw = w.step(&here, child_at.cursor);
                    let kept = if member {
                        Some(self.leaf(&v, child_at, set, cw)?)
                    } else if let Some(sub) = sub {
                        self.omit(&v, sub, child_at, cw)?
                    } else {
                        None
                    };
                    if let Some(value) = kept {
                        out.push(Member { key: k, value });
                    }
                }
                Ok((!out.is_empty()).then(|| Value::object_from_members(self.arena, &out)))
            }
            (
                Atom::List {
                    elem,
                    plan: plan @ ListPlan::Merge(_),
                    open,
                },
                Value::Array(items),
            ) => {
                let mut out: Vec<Value<'a>> = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let here = w.path().index(i);
                    let pe = item_pe(item, elem, plan, self.max_depth, &here)?;
                    if set.has_member(&pe) {
                        out.push(*item);
                    } else if let Some(sub) = set.with_prefix(&pe) {
                        if let Some(kept) =
                            self.omit(item, sub, At::item(open, elem), w.step(&here, elem))?
                        {
                            out.push(self.with_keys(kept, item, plan));
                        }
                    }
                }
                Ok((!out.is_empty()).then(|| Value::array_from(self.arena, &out)))
            }
            _ => Ok(None),
        }
    }

    /// docs/FIELDSETS.md "keep", as client-go's unstructured extractor.
    fn reference(
        &self,
        value: &Value<'a>,
        set: &FieldSet,
        at: At<'_>,
        w: Walk<'_, '_>,
    ) -> Result<Value<'a>, Error> {
        if matches!(value, Value::Object(_) | Value::Array(_)) {
            w.check().map_err(too_deep)?;
        }
        match resolve(at, value, w.path())? {
            Atom::Leaf => Ok(*value),
            Atom::List { elem, plan, open } => {
                let Value::Array(items) = value else {
                    return Ok(Value::Null);
                };
                if items.is_empty() || matches!(plan, ListPlan::Atomic) {
                    return Ok(*value);
                }
                let mut out: Vec<Value<'a>> = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let here = w.path().index(i);
                    let pe = item_pe(item, elem, plan, self.max_depth, &here)?;
                    if let Some(sub) = set.with_prefix(&pe) {
                        let kept =
                            self.reference(item, sub, At::item(open, elem), w.step(&here, elem))?;
                        out.push(self.with_keys(kept, item, plan));
                    } else if set.has_member(&pe) {
                        out.push(*item);
                    }
                }
                Ok(if out.is_empty() {
                    Value::Null
                } else {
                    Value::array_from(self.arena, &out)
                })
            }
            Atom::Map {
                cursor,
                atomic,
                open,
            } => {
                let Value::Object(obj) = value else {
                    return Ok(Value::Null);
                };
                if obj.is_empty() || atomic {
                    return Ok(*value);
                }
                let mut out: Vec<Member<'a>> = Vec::new();
                for (k, v) in obj.iter() {
                    let member = set.has_field(k);
                    let sub = set.field_child(k);
                    if !member && sub.is_none() {
                        continue;
                    }
                    let here = w.path().key(k);
                    let (child_at, _) = member_at(open, cursor, k, &here)?;
                    let cw = w.step(&here, child_at.cursor);
                    let kept = if member {
                        self.leaf(&v, child_at, set, cw)?
                    } else if let Some(sub) = sub {
                        self.reference(&v, sub, child_at, cw)?
                    } else {
                        continue;
                    };
                    out.push(Member {
                        key: k,
                        value: kept,
                    });
                }
                Ok(if out.is_empty() {
                    Value::Null
                } else {
                    Value::object_from_members(self.arena, &out)
                })
            }
        }
    }

    /// With `include_key_fields`: the kept item plus its key fields, in the
    /// item's member order.
    fn with_keys(&self, kept: Value<'a>, item: &Value<'a>, plan: ListPlan<'_>) -> Value<'a> {
        let (true, ListPlan::Merge(keys), Value::Object(k), Value::Object(live)) =
            (self.opts.include_key_fields, plan, kept, item)
        else {
            return kept;
        };
        let members: Vec<Member<'a>> = live
            .members()
            .iter()
            .filter_map(|m| match k.get(m.key) {
                Some(v) => Some(Member {
                    key: m.key,
                    value: v,
                }),
                None if keys.names().any(|n| n == m.key) => Some(*m),
                None => None,
            })
            .collect();
        Value::object_from_members(self.arena, &members)
    }
}

/// One owner of a path: an entry of `metadata.managedFields`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Owner {
    /// The manager's name.
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    /// The subresource (`""`: the main resource).
    pub subresource: String,
    /// The entry's `apiVersion`.
    pub api_version: String,
}

/// For every leaf path of every managedFields entry (Apply and Update), the
/// entries that own it, sorted by path (path-element order). An entry
/// without `fieldsV1` owns nothing; an undecodable one is an error with its
/// index.
pub fn owners(object: &Value<'_>) -> Result<Vec<(Path, Vec<Owner>)>, Error> {
    let mut table: BTreeMap<Path, Vec<Owner>> = BTreeMap::new();
    for e in managed_fields(object)? {
        if e.fields_v1.is_none() {
            continue;
        }
        let set = e.field_set()?;
        for p in set.leaf_paths() {
            table.entry(p).or_default().push(Owner {
                manager: e.manager.to_owned(),
                operation: e.operation.to_owned(),
                subresource: e.subresource.to_owned(),
                api_version: e.api_version.to_owned(),
            });
        }
    }
    Ok(table.into_iter().collect())
}
