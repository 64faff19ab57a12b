//! Compiles OpenAPI / JSON-Schema documents into [`Schema`] nodes.
//!
//! Architecture Invariant: compiling never recurses on the input. Work is an
//! explicit stack of `(node id, schema)` tasks; every named definition gets its
//! node id before any body is compiled, so a `$ref` is just that id and `$ref`
//! cycles cost nothing. JSON pointers for errors are kept as parent links and
//! only turned into text when an error is reported.

use smpatch_value::hashing::{HashMap, HashSet};

use crate::doc::Doc;
use crate::error::{SchemaError, SchemaErrorKind};
use crate::model::{
    FieldDef, Gvk, ListType, MapType, Node, NodeFlags, NodeId, NodeKind, PatchMeta, ScalarType,
    Schema, Strategy, Union, UnionMember,
};

/// Accumulates the nodes of one or more documents.
#[derive(Default)]
pub(crate) struct Builder {
    nodes: Vec<Node>,
    by_name: HashMap<Box<str>, NodeId>,
    by_gvk: HashMap<Gvk, NodeId>,
    unknown: Option<NodeId>,
}

/// A schema compiled as a named root (a CRD version), not found under a
/// definitions object.
pub(crate) struct Root<D> {
    pub name: String,
    pub schema: D,
    pub pointer: String,
    pub gvk: Option<Gvk>,
}

/// Whether a schema without properties says `type: object`: then it is a
/// map even without `additionalProperties` (untyped, it is unknown).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Typed {
    Object,
    Untyped,
}

impl Builder {
    pub(crate) fn finish(self) -> Schema {
        let mut schema = Schema {
            nodes: self.nodes,
            by_name: self.by_name,
            by_gvk: self.by_gvk,
            reaches_checks: Vec::new(),
            checked_fields: Vec::new(),
        };
        schema.index_checks();
        schema
    }

    fn alloc(&mut self, name: Option<Box<str>>) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            name,
            kind: NodeKind::Unknown,
            flags: NodeFlags::default(),
            list_meta: None,
        });
        id
    }

    fn unknown(&mut self) -> NodeId {
        match self.unknown {
            Some(id) => id,
            None => {
                let id = self.alloc(None);
                self.unknown = Some(id);
                id
            }
        }
    }

    /// Compiles one document: the definitions object `defs` (found at JSON
    /// pointer `defs_pointer`) and named `roots`.
    pub(crate) fn add<'d, D: Doc<'d>>(
        &mut self,
        source: &str,
        defs: Option<(D, &str)>,
        roots: Vec<Root<D>>,
    ) -> Result<Vec<NodeId>, SchemaError> {
        let mut c = Compiler {
            b: self,
            source,
            local: HashMap::default(),
            paths: Vec::new(),
            tasks: Vec::new(),
            aliases: HashMap::default(),
            native: false,
            union_enums: Vec::new(),
        };
        c.run(defs, roots)
    }
}

#[derive(Clone, Copy)]
enum Seg<'d> {
    Key(&'d str),
    Lit(&'static str),
    Index(usize),
}

const NO_PARENT: u32 = u32::MAX;

struct Task<D> {
    node: NodeId,
    schema: D,
    path: u32,
    /// A named definition: read `x-kubernetes-group-version-kind`.
    is_def: bool,
    /// The node belongs to a Kubernetes built-in definition (see
    /// [`PatchMeta::native`]); nested inline schemas inherit it.
    native: bool,
}

struct Compiler<'b, 'd, D> {
    b: &'b mut Builder,
    source: &'b str,
    local: HashMap<&'d str, NodeId>,
    /// Parent-linked JSON pointer segments; entry 0.. are roots whose text is
    /// in `root_text`.
    paths: Vec<(u32, PathSeg<'d>)>,
    tasks: Vec<Task<D>>,
    aliases: HashMap<NodeId, (NodeId, u32)>,
    /// `native` of the task being compiled.
    native: bool,
    /// KEP-1027 unions whose discriminator's `enum` sits behind a `$ref`,
    /// checked once every node is compiled.
    union_enums: Vec<UnionEnum>,
}

/// A KEP-1027 union whose discriminator reaches its `enum` by `$ref`.
struct UnionEnum {
    /// The discriminator property's node.
    node: NodeId,
    /// The discriminator's name.
    discriminator: Box<str>,
    /// Every `fieldMembers` value.
    values: Vec<Box<str>>,
    /// Where an error points.
    at: u32,
}

enum PathSeg<'d> {
    Root(String),
    Seg(Seg<'d>),
}

impl<'b, 'd, D: Doc<'d>> Compiler<'b, 'd, D> {
    fn root_path(&mut self, text: String) -> u32 {
        self.paths.push((NO_PARENT, PathSeg::Root(text)));
        (self.paths.len() - 1) as u32
    }

    fn push(&mut self, parent: u32, seg: Seg<'d>) -> u32 {
        self.paths.push((parent, PathSeg::Seg(seg)));
        (self.paths.len() - 1) as u32
    }

    fn pointer(&self, mut at: u32) -> String {
        let mut segs = Vec::new();
        let mut root = "";
        while at != NO_PARENT {
            let Some((parent, seg)) = self.paths.get(at as usize) else {
                break;
            };
            match seg {
                PathSeg::Root(t) => root = t,
                PathSeg::Seg(s) => segs.push(*s),
            }
            at = *parent;
        }
        let mut out = format!("{}#{}", self.source, root);
        for s in segs.iter().rev() {
            match s {
                Seg::Key(k) => smpatch_value::push_pointer_token(&mut out, k),
                Seg::Lit(l) => {
                    out.push('/');
                    out.push_str(l);
                }
                Seg::Index(i) => smpatch_value::push_pointer_token(&mut out, &i.to_string()),
            }
        }
        out
    }

    fn err(&self, kind: SchemaErrorKind, at: u32, message: impl Into<String>) -> SchemaError {
        SchemaError::new(kind, self.pointer(at), message)
    }

    fn run(
        &mut self,
        defs: Option<(D, &str)>,
        roots: Vec<Root<D>>,
    ) -> Result<Vec<NodeId>, SchemaError> {
        if let Some((defs, defs_pointer)) = defs {
            let base = self.root_path(defs_pointer.to_owned());
            let Some(members) = defs.members() else {
                return Err(self.err(
                    SchemaErrorKind::NotASchema,
                    base,
                    "the definitions must be an object",
                ));
            };
            let mut named = Vec::with_capacity(members.len());
            for (name, def) in members {
                let id = self.b.alloc(Some(name.into()));
                self.local.insert(name, id);
                named.push((name, def, id));
            }
            // Push in reverse so definitions compile in document order.
            for (name, def, id) in named.into_iter().rev() {
                self.b.by_name.insert(name.into(), id);
                let path = self.push(base, Seg::Key(name));
                self.tasks.push(Task {
                    node: id,
                    schema: def,
                    path,
                    is_def: true,
                    native: is_native_definition(name),
                });
            }
        }
        let mut root_ids = Vec::with_capacity(roots.len());
        for root in roots {
            let id = self.b.alloc(Some(root.name.as_str().into()));
            self.b.by_name.insert(root.name.into(), id);
            if let Some(gvk) = root.gvk {
                self.b.by_gvk.insert(gvk, id);
            }
            let path = self.root_path(root.pointer);
            self.tasks.push(Task {
                node: id,
                schema: root.schema,
                path,
                is_def: false,
                native: false,
            });
            root_ids.push(id);
        }
        while let Some(task) = self.tasks.pop() {
            self.compile_node(task)?;
        }
        self.resolve_aliases()?;
        self.check_union_enums()?;
        Ok(root_ids)
    }

    /// KEP-1027: every `fieldMembers` value is one of the discriminator's
    /// `enum` values, also when that `enum` is declared on a definition the
    /// discriminator property reaches by `$ref` (checked in place otherwise).
    fn check_union_enums(&mut self) -> Result<(), SchemaError> {
        for UnionEnum {
            node,
            discriminator,
            values,
            at,
        } in std::mem::take(&mut self.union_enums)
        {
            let Some(NodeKind::Scalar {
                enum_values: Some(text),
                enum_json: Some(json),
            }) = self.b.nodes.get(node.index()).map(|n| &n.kind)
            else {
                continue;
            };
            let allowed: Vec<&str> = text
                .iter()
                .zip(json)
                .filter(|(_, j)| j.starts_with('"'))
                .map(|(t, _)| &**t)
                .collect();
            if let Some(value) = values.iter().find(|v| !allowed.contains(&&***v)) {
                let message = format!(
                    "the discriminator value \"{value}\" of \"{discriminator}\" is not in its enum [{}] (KEP-1027: member values must be enum values)",
                    allowed.iter().map(|a| format!("\"{a}\"")).collect::<Vec<_>>().join(", ")
                );
                return Err(self.err(SchemaErrorKind::InvalidUnion, at, message));
            }
        }
        Ok(())
    }

    /// A definition that is only `$ref` (possibly in `allOf`) copies its target.
    fn resolve_aliases(&mut self) -> Result<(), SchemaError> {
        let mut aliases: Vec<(NodeId, (NodeId, u32))> =
            self.aliases.iter().map(|(k, v)| (*k, *v)).collect();
        // In node order: the hash order is keyed per process, and the
        // first cycle found names the error.
        aliases.sort_unstable();
        for (node, (mut target, path)) in aliases {
            let mut steps = 0usize;
            while let Some((next, _)) = self.aliases.get(&target) {
                target = *next;
                steps += 1;
                if steps > self.aliases.len() {
                    return Err(self.err(
                        SchemaErrorKind::DanglingRef,
                        path,
                        "the definition is a cycle of $ref aliases with no schema",
                    ));
                }
            }
            let (kind, flags, list_meta) = match self.b.nodes.get(target.index()) {
                Some(n) => (n.kind.clone(), n.flags, n.list_meta.clone()),
                None => (NodeKind::Unknown, NodeFlags::default(), None),
            };
            if let Some(n) = self.b.nodes.get_mut(node.index()) {
                n.kind = kind;
                n.flags = flags;
                n.list_meta = list_meta;
            }
        }
        Ok(())
    }

    /// Follows `allOf[0]` (the wrapper OpenAPI v3 generators put around a `$ref`
    /// with siblings, as the reference's OpenAPI lookup does).
    fn strip_all_of(&mut self, mut s: D, mut path: u32) -> (D, u32) {
        // Nested allOf wrappers are followed a bounded number of times.
        for _ in 0..8 {
            let Some(first) = s
                .get("allOf")
                .and_then(|a| a.elements())
                .and_then(|e| e.first().copied())
            else {
                break;
            };
            let p = self.push(path, Seg::Lit("allOf"));
            path = self.push(p, Seg::Index(0));
            s = first;
        }
        (s, path)
    }

    fn resolve_ref(&mut self, r: D, path: u32) -> Result<NodeId, SchemaError> {
        let at = self.push(path, Seg::Lit("$ref"));
        let Some(text) = r.as_str() else {
            return Err(self.err(
                SchemaErrorKind::DanglingRef,
                at,
                format!("$ref must be a string, but received a {}", r.go_type()),
            ));
        };
        let name = ["#/definitions/", "#/components/schemas/", "#/$defs/"]
            .iter()
            .find_map(|p| text.strip_prefix(p));
        let found = name.and_then(|n| {
            if n.contains('~') {
                let un = n.replace("~1", "/").replace("~0", "~");
                self.local.get(un.as_str()).copied()
            } else {
                self.local.get(n).copied()
            }
        });
        found.ok_or_else(|| {
            self.err(
                SchemaErrorKind::DanglingRef,
                at,
                format!("unable to resolve {text}: no such definition in this document"),
            )
        })
    }

    /// The node for a subschema: the referenced definition, or a new node
    /// queued for compilation.
    fn child(&mut self, s: D, path: u32) -> Result<NodeId, SchemaError> {
        let (s, path) = self.strip_all_of(s, path);
        if let Some(r) = s.get("$ref") {
            return self.resolve_ref(r, path);
        }
        if !s.is_object() {
            return Ok(self.b.unknown());
        }
        let id = self.b.alloc(None);
        self.tasks.push(Task {
            node: id,
            schema: s,
            path,
            is_def: false,
            native: self.native,
        });
        Ok(id)
    }

    fn flag(&mut self, s: D, key: &'static str, path: u32) -> Result<bool, SchemaError> {
        match s.get(key) {
            None => Ok(false),
            Some(v) => match v.as_bool() {
                Some(b) => Ok(b),
                None => {
                    let at = self.push(path, Seg::Lit(key));
                    Err(self.err(
                        SchemaErrorKind::InvalidExtension,
                        at,
                        format!("expected a bool, but received a {}", v.go_type()),
                    ))
                }
            },
        }
    }

    fn compile_node(&mut self, task: Task<D>) -> Result<(), SchemaError> {
        self.native = task.native;
        if task.is_def {
            self.read_gvks(task.schema, task.node, task.path)?;
        }
        let (s, path) = self.strip_all_of(task.schema, task.path);
        if let Some(r) = s.get("$ref") {
            let target = self.resolve_ref(r, path)?;
            if target != task.node {
                self.aliases.insert(task.node, (target, path));
            }
            return Ok(());
        }
        if !s.is_object() {
            return Ok(());
        }
        let mut flags = NodeFlags {
            int_or_string: self.flag(s, "x-kubernetes-int-or-string", path)?,
            embedded_resource: self.flag(s, "x-kubernetes-embedded-resource", path)?,
            nullable: self.flag(s, "nullable", path)?,
            preserve_unknown_fields: self.flag(s, "x-kubernetes-preserve-unknown-fields", path)?,
            map_type: self.node_map_type(s, path)?,
            scalar: None,
        };
        // `type` is a string (OpenAPI) or a list of strings (JSON Schema).
        let mut multi = false;
        let ty: Option<&'d str> = match s.get("type") {
            None => None,
            Some(t) => match t.as_str() {
                Some(t) => Some(t),
                None => {
                    let mut found = None;
                    for e in t.elements().unwrap_or_default() {
                        match e.as_str() {
                            Some("null") => flags.nullable = true,
                            Some(x) if found.is_none() => found = Some(x),
                            _ => multi = true,
                        }
                    }
                    found
                }
            },
        };
        let props = s.get("properties").filter(|p| p.is_object());
        let mut list_meta = None;
        let kind = if flags.int_or_string {
            self.scalar(s)
        } else if multi {
            NodeKind::Unknown
        } else {
            match ty {
                Some("object") | None if props.is_some() => {
                    let p = props.map(|p| (p, self.push(path, Seg::Lit("properties"))));
                    self.structure(s, path, p)?
                }
                Some("object") if flags.preserve_unknown_fields => NodeKind::Unknown,
                Some("object") => self.map(s, path, Typed::Object)?,
                None => self.map(s, path, Typed::Untyped)?,
                Some("array") => {
                    let items = match s.get("items") {
                        Some(i) if i.is_object() => {
                            let p = self.push(path, Seg::Lit("items"));
                            self.child(i, p)?
                        }
                        _ => self.b.unknown(),
                    };
                    // What keys the elements when the list is not a
                    // property (a map's values, a list's items, a list
                    // definition behind a `$ref`). Invalid values are
                    // refused here as on a property (whose own schema is
                    // this one when it is inline: it reports them first).
                    let own = self.read_meta(s, path)?;
                    list_meta = own.declares_list().then(|| Box::new(own));
                    NodeKind::List { items }
                }
                Some("string" | "integer" | "number" | "boolean") => self.scalar(s),
                Some(_) => NodeKind::Unknown,
            }
        };
        if matches!(kind, NodeKind::Scalar { .. }) && !flags.int_or_string {
            flags.scalar = match ty {
                Some("integer" | "number") => Some(ScalarType::Numeric),
                Some("boolean") => Some(ScalarType::Boolean),
                Some("string") => match s.get("format").and_then(|f| f.as_str()) {
                    None | Some("" | "byte") => Some(ScalarType::String),
                    Some(_) => None,
                },
                _ => None,
            };
        }
        if let Some(n) = self.b.nodes.get_mut(task.node.index()) {
            n.kind = kind;
            n.flags = flags;
            n.list_meta = list_meta;
        }
        Ok(())
    }

    /// `x-kubernetes-map-type` on a node's own schema (field sets only; the
    /// patch algorithms read the property's [`PatchMeta::map_type`]).
    /// Unknown values are refused as on a property (a map's values, a
    /// list's items and definitions included).
    fn node_map_type(&mut self, s: D, path: u32) -> Result<Option<MapType>, SchemaError> {
        Ok(match self.ext_str(s, "x-kubernetes-map-type", path)? {
            Some("atomic") => Some(MapType::Atomic),
            Some("granular") => Some(MapType::Granular),
            Some(other) => {
                let at = self.push(path, Seg::Lit("x-kubernetes-map-type"));
                return Err(self.err(
                    SchemaErrorKind::InvalidExtension,
                    at,
                    format!("unknown map type \"{other}\" (expected atomic or granular)"),
                ));
            }
            None => None,
        })
    }

    fn scalar(&mut self, s: D) -> NodeKind {
        let entries = s.get("enum").and_then(|e| e.elements());
        let enum_values = entries
            .as_ref()
            .map(|e| e.iter().map(|v| v.scalar_text().into_boxed_str()).collect());
        let enum_json = entries.map(|e| {
            e.into_iter()
                .map(|v| v.to_json_text().into_boxed_str())
                .collect()
        });
        NodeKind::Scalar {
            enum_values,
            enum_json,
        }
    }

    /// `type: object` without properties (or no type): a map, or unknown.
    fn map(&mut self, s: D, path: u32, typed: Typed) -> Result<NodeKind, SchemaError> {
        let typed = typed == Typed::Object;
        match s.get("additionalProperties") {
            None if typed => Ok(NodeKind::Map {
                value: self.b.unknown(),
            }),
            None => Ok(NodeKind::Unknown),
            Some(ap) => match ap.as_bool() {
                Some(true) => Ok(NodeKind::Map {
                    value: self.b.unknown(),
                }),
                Some(false) if typed => Ok(NodeKind::Struct {
                    fields: HashMap::default(),
                    unions: Vec::new(),
                }),
                Some(false) => Ok(NodeKind::Unknown),
                None if ap.is_object() => {
                    let p = self.push(path, Seg::Lit("additionalProperties"));
                    Ok(NodeKind::Map {
                        value: self.child(ap, p)?,
                    })
                }
                // Not a schema (the reference test data has
                // `"additionalProperties": "object"`): ignored, as the
                // reference's OpenAPI parser does.
                None if typed => Ok(NodeKind::Map {
                    value: self.b.unknown(),
                }),
                None => Ok(NodeKind::Unknown),
            },
        }
    }

    fn structure(
        &mut self,
        s: D,
        path: u32,
        props: Option<(D, u32)>,
    ) -> Result<NodeKind, SchemaError> {
        let members = props.and_then(|(p, _)| p.members()).unwrap_or_default();
        let props_path = props.map(|(_, p)| p).unwrap_or(path);
        let mut fields: HashMap<Box<str>, FieldDef> =
            HashMap::with_capacity_and_hasher(members.len(), Default::default());
        let mut unions = Vec::new();
        let mut union_paths = Vec::new();
        if let Some(u) = s.get("x-kubernetes-unions") {
            let at = self.push(path, Seg::Lit("x-kubernetes-unions"));
            if u.elements().is_some() {
                for (i, entry) in u.elements().unwrap_or_default().into_iter().enumerate() {
                    let p = self.push(at, Seg::Index(i));
                    unions.push(self.union_a(entry, p)?);
                    union_paths.push(p);
                }
            } else if !u.is_object() {
                return Err(self.err(
                    SchemaErrorKind::InvalidUnion,
                    at,
                    format!(
                        "x-kubernetes-unions on a struct must be a list, but received a {}",
                        u.go_type()
                    ),
                ));
            }
        }
        for (name, prop) in members {
            let p = self.push(props_path, Seg::Key(name));
            let meta = self.read_meta(prop, p)?;
            let node = self.child(prop, p)?;
            if let Some(u) = prop.get("x-kubernetes-unions") {
                if u.is_object() {
                    let at = self.push(p, Seg::Lit("x-kubernetes-unions"));
                    unions.push(self.union_b(name, prop, node, u, at)?);
                    union_paths.push(at);
                } else if u.elements().is_none() {
                    let at = self.push(p, Seg::Lit("x-kubernetes-unions"));
                    return Err(self.err(
                        SchemaErrorKind::InvalidUnion,
                        at,
                        format!(
                            "x-kubernetes-unions must be a list (on a struct) or an object with fieldMembers (on a discriminator), but received a {}",
                            u.go_type()
                        ),
                    ));
                }
            }
            let default = prop
                .get("default")
                .map(|d| d.to_json_text().into_boxed_str());
            fields.insert(
                name.into(),
                FieldDef {
                    node,
                    meta,
                    default,
                },
            );
        }
        // No field may belong to two unions (KEP-1027).
        let mut seen: HashSet<&str> = HashSet::default();
        for (u, p) in unions.iter().zip(&union_paths) {
            let names = u
                .discriminator
                .iter()
                .map(|d| &**d)
                .chain(u.members.iter().map(|m| &*m.field));
            for f in names {
                if !seen.insert(f) {
                    return Err(self.err(
                        SchemaErrorKind::InvalidUnion,
                        *p,
                        format!("field \"{f}\" belongs to more than one union"),
                    ));
                }
            }
        }
        if !unions.is_empty() {
            let required: Vec<&str> = s
                .get("required")
                .and_then(|r| r.elements())
                .unwrap_or_default()
                .into_iter()
                .filter_map(|r| r.as_str())
                .collect();
            for u in &mut unions {
                u.discriminator_required = u
                    .discriminator
                    .as_deref()
                    .is_some_and(|d| required.contains(&d));
            }
        }
        Ok(NodeKind::Struct { fields, unions })
    }

    /// Format A: `{discriminator?, fields-to-discriminateBy: {field: value}}`.
    fn union_a(&mut self, entry: D, at: u32) -> Result<Union, SchemaError> {
        let bad = |c: &Self, m: String| c.err(SchemaErrorKind::InvalidUnion, at, m);
        if !entry.is_object() {
            return Err(bad(
                self,
                format!(
                    "a union must be an object, but received a {}",
                    entry.go_type()
                ),
            ));
        }
        let discriminator = match entry.get("discriminator") {
            None => None,
            Some(d) => match d.as_str() {
                Some(d) => Some(Box::<str>::from(d)),
                None => {
                    return Err(bad(
                        self,
                        format!(
                            "the discriminator must be a string, but received a {}",
                            d.go_type()
                        ),
                    ))
                }
            },
        };
        let mut members = Vec::new();
        let mut values: HashSet<&str> = HashSet::default();
        if let Some(f) = entry.get("fields-to-discriminateBy") {
            let Some(list) = f.members() else {
                return Err(bad(
                    self,
                    format!(
                        "fields-to-discriminateBy must be an object, but received a {}",
                        f.go_type()
                    ),
                ));
            };
            for (field, value) in list {
                let Some(value) = value.as_str() else {
                    return Err(bad(
                        self,
                        format!(
                            "the discriminated name of \"{field}\" must be a string, but received a {}",
                            value.go_type()
                        ),
                    ));
                };
                if !values.insert(value) {
                    return Err(bad(
                        self,
                        format!("Multiple fields have the same discriminated name: \"{value}\""),
                    ));
                }
                members.push(UnionMember {
                    field: field.into(),
                    value: value.into(),
                    optional: false,
                });
            }
        }
        if discriminator.is_some() && members.is_empty() {
            return Err(bad(
                self,
                "a union with a discriminator has no members".into(),
            ));
        }
        Ok(Union {
            discriminator,
            members,
            empty_values: Vec::new(),
            deduce_discriminator: true,
            discriminator_required: false,
            discriminator_default: None,
        })
    }

    /// Format B: on the discriminator property,
    /// `{fieldMembers: {value: {name, optional?} | null}}`.
    ///
    /// KEP-1027 rules checked here: the discriminator is a string property;
    /// each discriminator value appears once; when the property declares an
    /// `enum`, every value is one of it. Messages name the property; the
    /// error pointer names the definition.
    fn union_b(
        &mut self,
        discriminator: &str,
        prop: D,
        node: NodeId,
        u: D,
        at: u32,
    ) -> Result<Union, SchemaError> {
        let bad = |c: &Self, m: String| c.err(SchemaErrorKind::InvalidUnion, at, m);
        let Some(fm) = u.get("fieldMembers").and_then(|f| f.members()) else {
            return Err(bad(
                self,
                format!("x-kubernetes-unions on property \"{discriminator}\" must be an object with a fieldMembers object"),
            ));
        };
        let (prop_schema, _) = self.strip_all_of(prop, at);
        if let Some(t) = prop_schema.get("type") {
            if t.as_str() != Some("string") {
                return Err(bad(
                    self,
                    format!(
                        "the union discriminator \"{discriminator}\" must be a string property (KEP-1027), but its type is {}",
                        t.as_str().map_or_else(|| t.go_type().to_owned(), |s| format!("\"{s}\""))
                    ),
                ));
            }
        }
        // Only string entries: a discriminator value is a string, and the
        // value "1" is not the enum entry 1 (KEP-2887 compares values).
        let enum_values: Option<Vec<String>> =
            prop_schema.get("enum").and_then(|e| e.elements()).map(|e| {
                e.into_iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            });
        let mut members = Vec::new();
        let mut empty_values = Vec::new();
        let mut fields: HashSet<&str> = HashSet::default();
        let mut values: HashSet<&str> = HashSet::default();
        for (value, m) in fm {
            if !values.insert(value) {
                return Err(bad(
                    self,
                    format!("the discriminator value \"{value}\" of \"{discriminator}\" appears more than once in fieldMembers"),
                ));
            }
            if let Some(allowed) = &enum_values {
                if !allowed.iter().any(|a| a == value) {
                    return Err(bad(
                        self,
                        format!(
                            "the discriminator value \"{value}\" of \"{discriminator}\" is not in its enum [{}] (KEP-1027: member values must be enum values)",
                            allowed.iter().map(|a| format!("\"{a}\"")).collect::<Vec<_>>().join(", ")
                        ),
                    ));
                }
            }
            if m.members().is_none() {
                if m.go_type() == "<nil>" {
                    empty_values.push(value.into());
                    continue;
                }
                return Err(bad(
                    self,
                    format!(
                        "fieldMembers[\"{value}\"] must be an object or null, but received a {}",
                        m.go_type()
                    ),
                ));
            }
            let Some(name) = m.get("name").and_then(|n| n.as_str()) else {
                return Err(bad(
                    self,
                    format!("fieldMembers[\"{value}\"].name must be a string"),
                ));
            };
            let optional = match m.get("optional") {
                None => false,
                Some(o) => match o.as_bool() {
                    Some(b) => b,
                    None => {
                        return Err(bad(
                            self,
                            format!("fieldMembers[\"{value}\"].optional must be a bool"),
                        ))
                    }
                },
            };
            if !fields.insert(name) {
                return Err(bad(
                    self,
                    format!("field \"{name}\" is selected by more than one discriminator value"),
                ));
            }
            members.push(UnionMember {
                field: name.into(),
                value: value.into(),
                optional,
            });
        }
        if enum_values.is_none() && prop_schema.get("$ref").is_some() {
            let values = members
                .iter()
                .map(|m: &UnionMember| m.value.clone())
                .chain(empty_values.iter().cloned())
                .collect();
            self.union_enums.push(UnionEnum {
                node,
                discriminator: discriminator.into(),
                values,
                at,
            });
        }
        Ok(Union {
            discriminator: Some(discriminator.into()),
            members,
            empty_values,
            deduce_discriminator: false,
            discriminator_required: false,
            // OpenAPI v3 puts `default` beside an `allOf` wrapper.
            discriminator_default: prop
                .get("default")
                .or_else(|| prop_schema.get("default"))
                .and_then(|d| d.as_str())
                .map(Into::into),
        })
    }

    fn ext_str(
        &mut self,
        prop: D,
        key: &'static str,
        path: u32,
    ) -> Result<Option<&'d str>, SchemaError> {
        match prop.get(key) {
            None => Ok(None),
            Some(v) => match v.as_str() {
                Some(s) => Ok(Some(s)),
                None => {
                    let at = self.push(path, Seg::Lit(key));
                    Err(self.err(
                        SchemaErrorKind::InvalidExtension,
                        at,
                        format!("expected a string, but received a {}", v.go_type()),
                    ))
                }
            },
        }
    }

    /// Patch metadata from the property schema itself (its `x-kubernetes-*`
    /// extensions).
    fn read_meta(&mut self, prop: D, path: u32) -> Result<PatchMeta, SchemaError> {
        let mut meta = PatchMeta::EMPTY;
        meta.native = self.native;
        if !prop.is_object() {
            return Ok(meta);
        }
        if let Some(text) = self.ext_str(prop, "x-kubernetes-patch-strategy", path)? {
            match parse_strategy(text) {
                Ok((strategy, retain)) => {
                    meta.strategy = strategy;
                    meta.retain_keys = retain;
                }
                Err(m) => {
                    let at = self.push(path, Seg::Lit("x-kubernetes-patch-strategy"));
                    return Err(self.err(SchemaErrorKind::UnknownStrategy, at, m));
                }
            }
        }
        meta.merge_key = self
            .ext_str(prop, "x-kubernetes-patch-merge-key", path)?
            .map(Into::into);
        if let Some(t) = self.ext_str(prop, "x-kubernetes-list-type", path)? {
            meta.list_type = Some(match t {
                "atomic" => ListType::Atomic,
                "set" => ListType::Set,
                "map" => ListType::Map,
                other => {
                    let at = self.push(path, Seg::Lit("x-kubernetes-list-type"));
                    return Err(self.err(
                        SchemaErrorKind::InvalidExtension,
                        at,
                        format!("unknown list type \"{other}\" (expected atomic, set or map)"),
                    ));
                }
            });
        }
        if let Some(keys) = prop.get("x-kubernetes-list-map-keys") {
            let at = self.push(path, Seg::Lit("x-kubernetes-list-map-keys"));
            let Some(list) = keys.elements() else {
                return Err(self.err(
                    SchemaErrorKind::InvalidExtension,
                    at,
                    format!(
                        "expected a list of strings, but received a {}",
                        keys.go_type()
                    ),
                ));
            };
            for (i, k) in list.into_iter().enumerate() {
                match k.as_str() {
                    Some(k) => meta.list_map_keys.push(k.into()),
                    None => {
                        let p = self.push(at, Seg::Index(i));
                        return Err(self.err(
                            SchemaErrorKind::InvalidExtension,
                            p,
                            format!("expected a string, but received a {}", k.go_type()),
                        ));
                    }
                }
            }
        }
        if let Some(t) = self.ext_str(prop, "x-kubernetes-map-type", path)? {
            meta.map_type = Some(match t {
                "atomic" => MapType::Atomic,
                "granular" => MapType::Granular,
                other => {
                    let at = self.push(path, Seg::Lit("x-kubernetes-map-type"));
                    return Err(self.err(
                        SchemaErrorKind::InvalidExtension,
                        at,
                        format!("unknown map type \"{other}\" (expected atomic or granular)"),
                    ));
                }
            });
        }
        Ok(meta)
    }

    fn read_gvks(&mut self, def: D, node: NodeId, path: u32) -> Result<(), SchemaError> {
        let Some(list) = def.get("x-kubernetes-group-version-kind") else {
            return Ok(());
        };
        let at = self.push(path, Seg::Lit("x-kubernetes-group-version-kind"));
        let entries = match list.elements() {
            Some(e) => e,
            None if list.is_object() => vec![list],
            None => {
                return Err(self.err(
                    SchemaErrorKind::InvalidExtension,
                    at,
                    format!(
                        "expected a list of {{group, version, kind}}, but received a {}",
                        list.go_type()
                    ),
                ))
            }
        };
        for (i, e) in entries.into_iter().enumerate() {
            let field = |k: &str| e.get(k).map(|v| v.as_str());
            let (g, v, k) = (field("group"), field("version"), field("kind"));
            match (g, v, k) {
                (None | Some(Some(_)), Some(Some(version)), Some(Some(kind))) => {
                    let group = g.flatten().unwrap_or("");
                    self.b.by_gvk.insert(
                        Gvk {
                            group: group.into(),
                            version: version.into(),
                            kind: kind.into(),
                        },
                        node,
                    );
                }
                _ => {
                    let p = self.push(at, Seg::Index(i));
                    return Err(self.err(
                        SchemaErrorKind::InvalidExtension,
                        p,
                        "expected {group, version, kind} with string values",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Interprets `x-kubernetes-patch-strategy` (as the reference's
/// `extractRetainKeysPatchStrategy`; unknown strategies are refused, see
/// docs/QUIRKS.md#q29). Entries are split on
/// `,` (and on `|`, the retainKeys design document's spelling).
pub(crate) fn parse_strategy(text: &str) -> Result<(Strategy, bool), String> {
    if text.trim().is_empty() {
        return Ok((Strategy::None, false));
    }
    let parts: Vec<&str> = text.split([',', '|']).map(str::trim).collect();
    let shown = || format!("[{}]", parts.join(" "));
    let one = |p: &str| {
        match p {
        "merge" => Ok(Strategy::Merge),
        "replace" => Ok(Strategy::Replace),
        "retainKeys" => Ok(Strategy::None),
        other => Err(format!(
            "unknown patch strategy \"{other}\" in \"{text}\" (expected merge, replace, retainKeys, or merge,retainKeys)"
        )),
    }
    };
    match parts.as_slice() {
        [x] => Ok((one(x)?, *x == "retainKeys")),
        [a, b] if *a == "retainKeys" => Ok((one(b)?, true)),
        [a, b] if *b == "retainKeys" => Ok((one(a)?, true)),
        _ => Err(format!("unexpected patch strategy: {}", shown())),
    }
}

/// True for the definition names of Kubernetes built-in types
/// (`io.k8s.api.core.v1.Container`, `io.k8s.apimachinery.…`): the reference
/// reads their patch metadata from Go struct tags only, never from
/// `x-kubernetes-list-type` (docs/DIVERGENCES.md, "Beyond the reference").
pub(crate) fn is_native_definition(name: &str) -> bool {
    name.starts_with("io.k8s.")
}

/// Remaps the node ids of `other` by `offset` (for [`Schema::merge`]).
pub(crate) fn shift_node(mut n: Node, offset: u32) -> Node {
    let s = |id: &mut NodeId| id.0 += offset;
    match &mut n.kind {
        NodeKind::Struct { fields, .. } => fields.values_mut().for_each(|f| s(&mut f.node)),
        NodeKind::Map { value } => s(value),
        NodeKind::List { items } => s(items),
        NodeKind::Scalar { .. } | NodeKind::Unknown => {}
    }
    n
}

/// Makes a CRD root's `metadata` schema-less: CRD schemas declare it as a bare
/// `type: object`, which would otherwise be a map and fail every lookup.
pub(crate) fn open_crd_metadata(schema: &mut Builder, root: NodeId) {
    let unknown = schema.unknown();
    if let Some(Node {
        kind: NodeKind::Struct { fields, .. },
        ..
    }) = schema.nodes.get(root.index())
    {
        let needs = match fields.get("metadata") {
            None => true,
            Some(f) => !matches!(
                schema.nodes.get(f.node.index()).map(|n| &n.kind),
                Some(NodeKind::Struct { .. })
            ),
        };
        if !needs {
            return;
        }
    } else {
        return;
    }
    if let Some(Node {
        kind: NodeKind::Struct { fields, .. },
        ..
    }) = schema.nodes.get_mut(root.index())
    {
        fields.insert(
            "metadata".into(),
            FieldDef {
                node: unknown,
                meta: PatchMeta::EMPTY,
                default: None,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategy_table() {
        let ok = |t: &str| parse_strategy(t).unwrap();
        assert_eq!(ok(""), (Strategy::None, false));
        assert_eq!(ok("retainKeys"), (Strategy::None, true));
        assert_eq!(ok("merge"), (Strategy::Merge, false));
        assert_eq!(ok("replace"), (Strategy::Replace, false));
        assert_eq!(ok("merge,retainKeys"), (Strategy::Merge, true));
        assert_eq!(ok("retainKeys,merge"), (Strategy::Merge, true));
        assert_eq!(ok("merge|retainKeys"), (Strategy::Merge, true));
        assert!(parse_strategy("merge,replace").is_err());
        assert!(parse_strategy("merge,retainKeys,replace").is_err());
        assert!(parse_strategy("mrege").is_err());
        assert!(parse_strategy("merge,").is_err());
    }
}
