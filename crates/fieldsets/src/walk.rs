//! The typed walk over an object: what each position is (scalar, atomic or
//! associative list, granular or atomic map), the path element of a list
//! item, and `fields_of` (docs/FIELDSETS.md, KEP-2155).
//!
//! Everything that descends an object with a schema lives here (`fields_of`
//! and the filter of `extract` both call [`resolve`] and [`item_pe`]). Both
//! stand on the engines' shared walk context: the position is a
//! `smpatch_value::Path` on the call stack (rendered as a JSON pointer only
//! in an error), depth is counted and checked by `smpatch_schema::Walk`
//! (mapped to [`ErrorKind::TooDeep`]), each level runs in `grow_stack`, and
//! which lists are sets, keyed (and by which keys) or atomic is
//! `ListPlan::field_set`, server-side apply's rule in the schema crate.

use smpatch_schema::{
    grow_stack, Cursor, ListPlan, MapType, NodeKind, PatchMeta, ScalarType, TooDeep, Walk,
};
use smpatch_value::{Path, Value};

use crate::error::{Error, ErrorKind};
use crate::pe::{PathElement, PeValue};
use crate::set::{FieldSet, MAX_SET_DEPTH};

/// Maps the shared walk's depth error to this crate's `too_deep` error.
pub(crate) fn too_deep(e: TooDeep) -> Error {
    Error::new(
        ErrorKind::TooDeep,
        e.pointer,
        format!("nesting deeper than {} levels", e.limit),
    )
}

/// What a position is, narrowed by its value.
#[derive(Clone, Copy)]
pub(crate) enum Atom<'s> {
    /// A scalar, or a value under an atomic type: a leaf.
    Leaf,
    /// A list (the value is an array or null). `open`: see [`Atom::Map`].
    List {
        elem: Cursor<'s>,
        plan: ListPlan<'s>,
        open: bool,
    },
    /// An object (the value is an object or null). `atomic` maps are leaves.
    /// `open`: `x-kubernetes-preserve-unknown-fields` is in effect here
    /// (declared on this node or inherited), so inline schemas below inherit
    /// it.
    Map {
        cursor: Cursor<'s>,
        atomic: bool,
        open: bool,
    },
}

/// The schema of a position: the node and the metadata of the field that
/// holds it.
#[derive(Clone, Copy)]
pub(crate) struct At<'s> {
    pub cursor: Cursor<'s>,
    pub meta: &'s PatchMeta,
    /// `x-kubernetes-preserve-unknown-fields` is inherited here: declared on
    /// an enclosing schema with only inline schemas in between (as the API
    /// server converts CRD schemas). Keys a struct here does not declare are
    /// then untyped ("deduced") fields, not errors. (A node's own flag is
    /// the schema crate's business: its lookups answer the unknown cursor.)
    pub preserve: bool,
}

static EMPTY_META: PatchMeta = PatchMeta::EMPTY;

impl<'s> At<'s> {
    pub(crate) fn root(cursor: Cursor<'s>) -> Self {
        At {
            cursor,
            meta: &EMPTY_META,
            preserve: false,
        }
    }

    /// The schema of a member or list item of a node that is `open` (see
    /// [`Atom::Map`]): it inherits `x-kubernetes-preserve-unknown-fields`
    /// when its schema is inline (a named definition starts afresh).
    pub(crate) fn inside(open: bool, cursor: Cursor<'s>, meta: &'s PatchMeta) -> Self {
        At {
            cursor,
            meta,
            preserve: open && cursor.type_name().is_none(),
        }
    }

    /// The schema of an item of a list that is `open`.
    pub(crate) fn item(open: bool, elem: Cursor<'s>) -> Self {
        At::inside(open, elem, &EMPTY_META)
    }
}

fn kind_name(v: &Value<'_>) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "map",
    }
}

const RAW_EXTENSION: &str = "io.k8s.apimachinery.pkg.runtime.RawExtension";
const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";

/// Narrows the schema of a position by its value.
pub(crate) fn resolve<'s>(
    at: At<'s>,
    value: &Value<'_>,
    path: &Path<'_>,
) -> Result<Atom<'s>, Error> {
    let mismatch = |want: &str| {
        Error::new(
            ErrorKind::SchemaMismatch,
            path.pointer(),
            format!("expected {want}, got {}", kind_name(value)),
        )
    };
    let c = at.cursor;
    if c.type_name() == Some(RAW_EXTENSION) {
        return Ok(Atom::Leaf);
    }
    match c.kind() {
        None | Some(NodeKind::Unknown) => Ok(match value {
            // deduced: objects are granular, arrays atomic
            Value::Object(_) => Atom::Map {
                cursor: Cursor::UNKNOWN,
                atomic: false,
                open: false,
            },
            _ => Atom::Leaf,
        }),
        Some(NodeKind::Scalar { .. }) => {
            let want = match value {
                Value::Array(_) | Value::Object(_) => return Err(mismatch("a scalar")),
                // null is valid for every scalar; a Quantity is untyped
                // (a number or a string), whatever its schema says.
                Value::Null => None,
                _ => c.flags().scalar.filter(|_| c.type_name() != Some(QUANTITY)),
            };
            match (want, value) {
                (Some(ScalarType::Numeric), Value::Number(_))
                | (Some(ScalarType::String), Value::String(_))
                | (Some(ScalarType::Boolean), Value::Bool(_))
                | (None, _) => Ok(Atom::Leaf),
                (Some(ScalarType::Numeric), _) => Err(mismatch("a number (int or float)")),
                (Some(ScalarType::String), _) => Err(mismatch("a string")),
                (Some(ScalarType::Boolean), _) => Err(mismatch("a boolean")),
            }
        }
        Some(NodeKind::Struct { .. } | NodeKind::Map { .. }) => match value {
            Value::Object(_) | Value::Null => {
                let flags = c.flags();
                let atomic = match at.meta.map_type.or(flags.map_type) {
                    Some(MapType::Atomic) => true,
                    Some(MapType::Granular) | None => false,
                };
                Ok(Atom::Map {
                    cursor: c,
                    atomic,
                    open: at.preserve || flags.preserve_unknown_fields,
                })
            }
            _ => Err(mismatch("a map")),
        },
        Some(NodeKind::List { .. }) => match value {
            Value::Array(_) | Value::Null => {
                let elem = c.list_items().unwrap_or(Cursor::UNKNOWN);
                let meta = c.list_meta_or(at.meta);
                Ok(Atom::List {
                    elem,
                    plan: ListPlan::field_set(meta),
                    open: at.preserve || c.flags().preserve_unknown_fields,
                })
            }
            _ => Err(mismatch("a list")),
        },
    }
}

/// The schema of member `key` of an object at `cursor` (`open`: see
/// [`Atom::Map`]), and whether the schema declares it.
pub(crate) fn member_at<'s>(
    open: bool,
    cursor: Cursor<'s>,
    key: &str,
    path: &Path<'_>,
) -> Result<(At<'s>, bool), Error> {
    match cursor.kind() {
        Some(NodeKind::Map { .. }) => Ok((
            At::inside(
                open,
                cursor.map_value().unwrap_or(Cursor::UNKNOWN),
                &EMPTY_META,
            ),
            false,
        )),
        Some(NodeKind::Struct { fields, .. }) => {
            let declared = fields.contains_key(key);
            match cursor.lookup_object(key) {
                Ok(f) => {
                    let c = crd_metadata(key, f.cursor, path).unwrap_or(f.cursor);
                    Ok((At::inside(open, c, f.meta), declared))
                }
                // A CRD's schema need not declare the fields every object
                // has: the API server adds `apiVersion` and `kind` (strings)
                // and `metadata` (`ObjectMeta`) to it.
                Err(_) if at_root(path) && matches!(key, "apiVersion" | "kind") => {
                    Ok((At::root(Cursor::UNKNOWN), true))
                }
                Err(_) if at_root(path) && key == "metadata" => {
                    match smpatch_schema::embedded().cursor(OBJECT_META) {
                        Some(c) => Ok((At::root(c), true)),
                        None => Ok((At::root(Cursor::UNKNOWN), false)),
                    }
                }
                Err(_) if open => Ok((At::root(Cursor::UNKNOWN), false)),
                Err(_) => Err(Error::new(
                    ErrorKind::SchemaMismatch,
                    path.pointer(),
                    format!(
                        "field not declared in schema{}",
                        cursor
                            .type_name()
                            .map(|t| format!(" ({t})"))
                            .unwrap_or_default()
                    ),
                )),
            }
        }
        _ => Ok((At::root(Cursor::UNKNOWN), false)),
    }
}

const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const LIST_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";

/// The schema of a custom resource's `metadata`: whatever a CRD's schema
/// declares for it (a bare `type: object`, or properties such as a
/// `name` with a `maxLength`), the API server types it as `ObjectMeta`
/// (labels and annotations granular maps, finalizers a set,
/// ownerReferences keyed by uid, managedFields atomic). So the top-level
/// `metadata` of a typed object gets the embedded `ObjectMeta` when its
/// schema is an object (a struct or a map) or untyped, unless it already
/// is the built-in `ObjectMeta` or `ListMeta` (built-in types and their
/// `*List` types keep theirs); an undeclared one gets it too, in
/// `member_at`. A scalar or list `metadata` is kept as declared: the API
/// server refuses a CRD whose root `metadata` is not an object, so only a
/// document that is no CRD declares one, and its object is checked
/// against what it declares (found by the review of round 8: `metadata:
/// {type: string}` failed as "expected a map"). Schema-less objects (no
/// schema at all) stay deduced, as on the server.
fn crd_metadata<'s>(key: &str, found: Cursor<'s>, path: &Path<'_>) -> Option<Cursor<'s>> {
    if key != "metadata"
        || !at_root(path)
        || matches!(found.type_name(), Some(OBJECT_META | LIST_META))
        || matches!(
            found.kind(),
            Some(NodeKind::Scalar { .. } | NodeKind::List { .. })
        )
    {
        return None;
    }
    smpatch_schema::embedded().cursor(OBJECT_META)
}

/// Whether `path` is a member of the object root (`/metadata`, `/kind`).
fn at_root(path: &Path<'_>) -> bool {
    matches!(path, Path::Key(Path::Root, _))
}

/// The path element of an item of an associative list.
pub(crate) fn item_pe(
    item: &Value<'_>,
    elem: Cursor<'_>,
    plan: ListPlan<'_>,
    max_depth: usize,
    path: &Path<'_>,
) -> Result<PathElement, Error> {
    let bad = |m: &str| Error::new(ErrorKind::InvalidListItem, path.pointer(), m.to_owned());
    let conv = |v: &Value<'_>| {
        PeValue::from_value(v, max_depth).map_err(|why| {
            let kind = if why == "a value nested too deeply" {
                ErrorKind::TooDeep
            } else {
                ErrorKind::InvalidListItem
            };
            Error::new(kind, path.pointer(), format!("list item key: {why}"))
        })
    };
    match plan {
        ListPlan::Merge(keys) if keys.is_keyed() => {
            let obj = match item {
                Value::Object(o) => o,
                Value::Null => {
                    return Err(bad(
                        "associative list with keys may not have a null element",
                    ))
                }
                _ => {
                    return Err(bad(
                        "associative list with keys may not have non-map elements",
                    ))
                }
            };
            let mut fields = Vec::new();
            for k in keys.names() {
                if let Some(v) = obj.get(k) {
                    fields.push((k.to_owned(), conv(&v)?));
                } else if let Some(d) = elem.field_default(k) {
                    if let Ok(v) = serde_json::from_str::<serde_json::Value>(d) {
                        fields.push((k.to_owned(), PeValue::from_serde(&v)));
                    }
                }
            }
            if fields.is_empty() {
                let names: Vec<String> = keys.names().map(|k| format!("{k:?}")).collect();
                return Err(bad(&format!(
                    "associative list with keys has an element that omits all key fields [{}] (and doesn't have default values for any key fields)",
                    names.join(" ")
                )));
            }
            Ok(PathElement::key(fields))
        }
        ListPlan::Merge(_) | ListPlan::Atomic => match item {
            Value::Object(_) => Err(bad(
                "associative list without keys has an element that's a map type",
            )),
            Value::Array(_) => Err(bad(
                "not supported: associative list with lists as elements",
            )),
            Value::Null => Err(bad(
                "associative list without keys has an element that's an explicit null",
            )),
            v => Ok(PathElement::Value(conv(v)?)),
        },
    }
}

/// Which shape of field set [`fields_of`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Shape {
    /// What the server records for an applier that sent the object
    /// (KEP-2155; docs/FIELDSETS.md): scalars, atomic values, empty or null
    /// containers, undeclared map keys and list items are members; declared
    /// fields holding non-empty granular maps or lists are not.
    #[default]
    Apply,
    /// What an `Update` that created the object from nothing records: every
    /// node of the object is a member (containers included).
    UpdateOnCreate,
}

/// Options of [`fields_of`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldsOptions {
    /// The shape (default [`Shape::Apply`]).
    pub shape: Shape,
    /// Remove the paths the server never records (`f:apiVersion`, `f:kind`,
    /// `f:metadata` itself and `f:metadata` + `f:name`, `f:namespace`,
    /// `f:uid`, `f:resourceVersion`, `f:generation`, `f:creationTimestamp`,
    /// `f:selfLink`, `f:clusterName`, `f:managedFields`). Default true.
    pub strip_server_fields: bool,
    /// Accept two associative-list items with the same key (recorded once,
    /// with nothing below). The server allows this for live objects and
    /// rejects it in applied configurations. Default false.
    pub allow_duplicates: bool,
    /// Deepest container nesting walked (the root object is depth 1, as in
    /// the value crate's `ParseOptions::max_depth`). Default 256, capped
    /// at 512.
    pub max_depth: usize,
}

impl Default for FieldsOptions {
    fn default() -> Self {
        FieldsOptions {
            shape: Shape::Apply,
            strip_server_fields: true,
            allow_duplicates: false,
            max_depth: 256,
        }
    }
}

impl FieldsOptions {
    /// The shape of an `Update` entry written on create, without stripping
    /// (the shape of the reference's `podset.json`).
    pub fn update_on_create() -> Self {
        FieldsOptions {
            shape: Shape::UpdateOnCreate,
            strip_server_fields: false,
            allow_duplicates: true,
            ..FieldsOptions::default()
        }
    }
}

/// The paths the server never records in a manager's set.
pub fn server_fields() -> FieldSet {
    let f = |s: &str| PathElement::Field(s.to_owned());
    let mut s = FieldSet::new();
    s.insert(&[f("apiVersion")]);
    s.insert(&[f("kind")]);
    s.insert(&[f("metadata")]);
    for m in SERVER_METADATA {
        s.insert(&[f("metadata"), f(m)]);
    }
    s
}

/// The field set of `object` as server-side apply computes it, with the
/// object's schema at `schema` (use [`Cursor::UNKNOWN`] for schema-less
/// data: objects granular, lists atomic).
///
/// The object must fit the schema, as the API server checks before
/// recording a set: undeclared keys, wrong shapes and scalars of the wrong
/// type are [`ErrorKind::SchemaMismatch`] (`Quantity`, int-or-string and
/// string formats other than `byte` take any scalar; `null` fits
/// everywhere). `x-kubernetes-preserve-unknown-fields` holds down through
/// inline schemas.
///
/// Linear in the size of the object (plus sorting each node's entries).
/// Errors name the JSON pointer of the offending value.
///
/// ```
/// use smpatch_fieldsets::{fields_of, FieldsOptions};
/// use smpatch_value::{parse_json, Arena, ParseOptions};
/// let arena = Arena::new();
/// let svc = parse_json(&arena, br#"{"apiVersion":"v1","kind":"Service",
///   "metadata":{"name":"web"},
///   "spec":{"ports":[{"port":80,"protocol":"TCP"}],"selector":{"app":"web"}}}"#,
///   &ParseOptions::default()).unwrap();
/// let schema = smpatch_schema::embedded().cursor("v1/Service").unwrap();
/// let set = fields_of(&svc, schema, &FieldsOptions::default()).unwrap();
/// assert_eq!(set.to_json(),
///   r#"{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{}}},"f:selector":{}}}"#);
/// ```
pub fn fields_of(
    object: &Value<'_>,
    schema: Cursor<'_>,
    opts: &FieldsOptions,
) -> Result<FieldSet, Error> {
    let mut w = Walker {
        opts,
        max_depth: opts.max_depth.min(MAX_SET_DEPTH),
        collect: true,
    };
    let (mut set, _) = w.walk(
        object,
        At::root(schema),
        Walk::new(&Path::Root, schema, w.max_depth),
    )?;
    if opts.strip_server_fields {
        // In place: `set.difference(&server_fields())` without a copy.
        let f = |s: &str| PathElement::Field(s.to_owned());
        for top in ["apiVersion", "kind", "metadata"] {
            set.remove_member(&f(top));
        }
        set.edit_child(&f("metadata"), |meta| {
            for m in SERVER_METADATA {
                meta.remove_member(&f(m));
            }
        });
    }
    Ok(set)
}

/// The node of an object's members: `FieldSet::from_parts` without its
/// copy, since an object's keys are unique (then no element repeats and no
/// child needs merging); repeated keys (a parser told to keep them) take
/// the general path.
fn node_of_keys(
    mut members: Vec<PathElement>,
    mut children: Vec<(PathElement, FieldSet)>,
) -> FieldSet {
    members.sort_unstable();
    children.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let repeated = members.windows(2).any(|w| w.first() == w.get(1))
        || children
            .windows(2)
            .any(|w| w.first().map(|x| &x.0) == w.get(1).map(|x| &x.0));
    if repeated {
        FieldSet::from_parts(members, children)
    } else {
        FieldSet { members, children }
    }
}

const SERVER_METADATA: [&str; 9] = [
    "name",
    "namespace",
    "creationTimestamp",
    "selfLink",
    "uid",
    "clusterName",
    "generation",
    "managedFields",
    "resourceVersion",
];

/// Checks `object` against its schema as [`fields_of`] does (types,
/// undeclared fields, list items, duplicates, depth) without building the
/// set.
pub(crate) fn validate(
    object: &Value<'_>,
    schema: Cursor<'_>,
    opts: &FieldsOptions,
) -> Result<(), Error> {
    let mut w = Walker {
        opts,
        max_depth: opts.max_depth.min(MAX_SET_DEPTH),
        collect: false,
    };
    w.walk(
        object,
        At::root(schema),
        Walk::new(&Path::Root, schema, w.max_depth),
    )
    .map(|_| ())
}

struct Walker<'o> {
    opts: &'o FieldsOptions,
    max_depth: usize,
    /// False: only check (no set is built).
    collect: bool,
}

impl Walker<'_> {
    /// The set below `value` (relative) and whether `value` itself is a leaf
    /// (scalar or atomic).
    fn walk(
        &mut self,
        value: &Value<'_>,
        at: At<'_>,
        w: Walk<'_, '_>,
    ) -> Result<(FieldSet, bool), Error> {
        if matches!(value, Value::Object(_) | Value::Array(_)) {
            w.check().map_err(too_deep)?;
        }
        grow_stack(|| self.walk_in(value, at, w))
    }

    fn walk_in(
        &mut self,
        value: &Value<'_>,
        at: At<'_>,
        w: Walk<'_, '_>,
    ) -> Result<(FieldSet, bool), Error> {
        let path = w.path();
        let update = self.opts.shape == Shape::UpdateOnCreate;
        match resolve(at, value, path)? {
            Atom::Leaf
            | Atom::List {
                plan: ListPlan::Atomic,
                ..
            }
            | Atom::Map { atomic: true, .. } => Ok((FieldSet::new(), true)),
            Atom::Map { cursor, open, .. } => {
                let Value::Object(obj) = value else {
                    return Ok((FieldSet::new(), false));
                };
                let mut members = Vec::with_capacity(if self.collect { obj.len() } else { 0 });
                let mut children = Vec::new();
                for (k, v) in obj.iter() {
                    let here = path.key(k);
                    let (child_at, declared) = member_at(open, cursor, k, &here)?;
                    let (below, leaf) = self.walk(&v, child_at, w.step(&here, child_at.cursor))?;
                    let empty_obj = matches!(&v, Value::Object(o) if o.is_empty());
                    let member = update || leaf || v.is_null() || empty_obj || !declared;
                    if !self.collect {
                        continue;
                    }
                    let pe = PathElement::Field(k.to_owned());
                    if !below.is_empty() {
                        if member {
                            members.push(pe.clone());
                        }
                        children.push((pe, below));
                    } else if member {
                        members.push(pe);
                    }
                }
                Ok((node_of_keys(members, children), false))
            }
            Atom::List { elem, plan, open } => {
                let Value::Array(items) = value else {
                    return Ok((FieldSet::new(), false));
                };
                let mut pes: Vec<(PathElement, usize)> = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let here = path.index(i);
                    pes.push((item_pe(item, elem, plan, self.max_depth, &here)?, i));
                }
                pes.sort_by(|a, b| a.0.cmp(&b.0));
                let mut members = Vec::with_capacity(pes.len());
                let mut children = Vec::with_capacity(pes.len());
                let mut j = 0;
                while j < pes.len() {
                    let mut end = j + 1;
                    while pes
                        .get(end)
                        .is_some_and(|(p, _)| Some(p) == pes.get(j).map(|x| &x.0))
                    {
                        end += 1;
                    }
                    let second = pes.get(j + 1).map(|x| x.1);
                    // The group's element is read no more: taken, not cloned.
                    let Some((pe, idx)) = pes
                        .get_mut(j)
                        .map(|x| (std::mem::replace(&mut x.0, PathElement::Index(0)), x.1))
                    else {
                        break;
                    };
                    if end - j > 1 {
                        if !self.opts.allow_duplicates {
                            let second = second.unwrap_or(idx);
                            return Err(Error::new(
                                ErrorKind::DuplicateListItem,
                                path.index(second.max(idx)).pointer(),
                                format!("duplicate entries for key {pe}"),
                            ));
                        }
                        members.push(pe);
                    } else {
                        let here = path.index(idx);
                        let item = items.get(idx).copied().unwrap_or(Value::Null);
                        let (below, _) =
                            self.walk(&item, At::item(open, elem), w.step(&here, elem))?;
                        if self.collect {
                            if below.is_empty() {
                                members.push(pe);
                            } else {
                                members.push(pe.clone());
                                children.push((pe, below));
                            }
                        }
                    }
                    j = end;
                }
                // Sorted and unique already.
                Ok((FieldSet { members, children }, false))
            }
        }
    }
}
