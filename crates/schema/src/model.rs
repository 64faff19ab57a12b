//! The compiled schema model and the cursor the merge algorithms walk with.

use smpatch_value::hashing::HashMap;

/// Index of a node in a compiled [`Schema`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The node's index in the schema's node table.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The patch strategy of a field (`x-kubernetes-patch-strategy`), after
/// `retainKeys` is split off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Strategy {
    /// No strategy: objects merge recursively, lists are atomic.
    #[default]
    None,
    /// `merge`: lists merge (keyed or as sets).
    Merge,
    /// `replace`: the patch value replaces the live value wholesale.
    Replace,
}

/// `x-kubernetes-list-type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListType {
    /// The list is replaced as a whole.
    Atomic,
    /// The list is a set of scalars.
    Set,
    /// The list is a map keyed by `x-kubernetes-list-map-keys`.
    Map,
}

/// `x-kubernetes-map-type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapType {
    /// The object is replaced as a whole.
    Atomic,
    /// The object's fields are managed one by one.
    Granular,
}

/// The JSON type a scalar node accepts (server-side apply validates it before
/// computing a field set, KEP-2155): `type: integer`/`number`, `boolean`, and
/// `string` without a `format` or with `format: byte`. Other string formats
/// (`int-or-string`, `date-time`, …) and int-or-string nodes are untyped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarType {
    /// An integer or a float.
    Numeric,
    /// A string.
    String,
    /// `true` or `false`.
    Boolean,
}

/// Patch metadata of one field, read from the property schema itself (never
/// from the definition a `$ref` points to).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatchMeta {
    /// Effective strategy (`merge`, `replace` or none).
    pub strategy: Strategy,
    /// True when the strategy list contains `retainKeys`.
    pub retain_keys: bool,
    /// `x-kubernetes-patch-merge-key`.
    pub merge_key: Option<Box<str>>,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<ListType>,
    /// `x-kubernetes-list-map-keys`.
    pub list_map_keys: Vec<Box<str>>,
    /// `x-kubernetes-map-type`.
    pub map_type: Option<MapType>,
    /// The field belongs to a Kubernetes built-in type (a definition whose
    /// name starts with `io.k8s.`, or an inline schema nested in one). The
    /// reference takes the patch metadata of built-ins from Go struct tags
    /// only, so merge algorithms must not derive list behaviour from
    /// `list_type` / `list_map_keys` for such fields (docs/DIVERGENCES.md): a
    /// `list-type: map|set` list without a merge strategy stays atomic.
    pub native: bool,
}

impl PatchMeta {
    /// Metadata of a field the schema says nothing about.
    pub const EMPTY: PatchMeta = PatchMeta {
        strategy: Strategy::None,
        retain_keys: false,
        merge_key: None,
        list_type: None,
        list_map_keys: Vec::new(),
        map_type: None,
        native: false,
    };

    /// The merge key as `&str`.
    pub fn merge_key(&self) -> Option<&str> {
        self.merge_key.as_deref()
    }

    /// Whether this metadata says how a list is merged: a list type
    /// (`x-kubernetes-list-type`), a merge key, or the `merge` patch
    /// strategy on its own. The last counts because the API server's
    /// schema conversion (structured-merge-diff) reads a list with
    /// `x-kubernetes-patch-strategy: merge` and no list type as associative:
    /// keyed by the merge key if there is one, else a set. So a property
    /// that declares any of these decides its list's plan
    /// ([`ListPlan::field_set`](crate::ListPlan::field_set)) and pairing
    /// ([`KeySpec::pairing`](crate::KeySpec::pairing)) over what a list
    /// definition behind its `$ref` declares ([`Cursor::list_meta`]), in the
    /// field sets and the union pass alike; a list schema declaring any of
    /// them has a [`Node::list_meta`].
    ///
    /// ```
    /// use smpatch_schema::{PatchMeta, Strategy};
    /// let set = PatchMeta { strategy: Strategy::Merge, ..PatchMeta::EMPTY };
    /// assert!(set.declares_list());
    /// let replace = PatchMeta { strategy: Strategy::Replace, ..PatchMeta::EMPTY };
    /// assert!(!replace.declares_list() && !PatchMeta::EMPTY.declares_list());
    /// ```
    pub fn declares_list(&self) -> bool {
        self.list_type.is_some() || self.merge_key.is_some() || self.strategy == Strategy::Merge
    }
}

/// One member of a union (KEP-1027).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnionMember {
    /// The member's JSON field name.
    pub field: Box<str>,
    /// The discriminator value that selects it.
    pub value: Box<str>,
    /// Whether the member may be absent when selected.
    pub optional: bool,
}

/// A union declared on a struct (`x-kubernetes-unions`, KEP-1027; either the
/// list format or the `fieldMembers` format).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Union {
    /// The discriminator field, if any.
    pub discriminator: Option<Box<str>>,
    /// The members.
    pub members: Vec<UnionMember>,
    /// Discriminator values that select no member.
    pub empty_values: Vec<Box<str>>,
    /// True when read from the struct-level list (format A, historical).
    pub deduce_discriminator: bool,
    /// The discriminator is listed in the struct's `required` (KEP-1027:
    /// an unset required discriminator is a validation error).
    pub discriminator_required: bool,
    /// The discriminator property's string `default`, if declared: an unset
    /// discriminator reads as this value (KEP-1027).
    pub discriminator_default: Option<Box<str>>,
}

impl Union {
    /// True for the struct-level declaration (`discriminator` +
    /// `fields-to-discriminateBy`), false for KEP-1027 `fieldMembers`.
    pub fn is_struct_level(&self) -> bool {
        self.deduce_discriminator
    }

    /// The member a discriminator value selects, if any.
    pub fn member_for(&self, value: &str) -> Option<&UnionMember> {
        self.members.iter().find(|m| &*m.value == value)
    }
}

/// A field of a struct: the node of its value and its patch metadata.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// The node describing the field's value.
    pub node: NodeId,
    /// Patch metadata from the property schema.
    pub meta: PatchMeta,
    /// The property's `default`, as compact JSON text (server-side apply
    /// fills missing list-map key fields from it, KEP-2155 field sets).
    pub default: Option<Box<str>>,
}

/// What a node describes.
#[derive(Clone, Debug)]
pub enum NodeKind {
    /// An object with named properties.
    Struct {
        /// Properties by JSON name.
        fields: HashMap<Box<str>, FieldDef>,
        /// Unions declared on this struct.
        unions: Vec<Union>,
    },
    /// An object with `additionalProperties`: every value has the same schema.
    Map {
        /// Schema of the values.
        value: NodeId,
    },
    /// A list.
    List {
        /// Schema of the elements.
        items: NodeId,
    },
    /// A string, number, boolean or int-or-string.
    Scalar {
        /// `enum` values, if declared (as JSON strings of string enums).
        enum_values: Option<Vec<Box<str>>>,
        /// The same `enum` values as compact JSON text (`"a"`, `1`, `1.0`,
        /// `true`, `null`), so that a check can compare by value and kind:
        /// the string `"1"` is not the number `1` (KEP-2887).
        enum_json: Option<Vec<Box<str>>>,
    },
    /// Untyped, `x-kubernetes-preserve-unknown-fields`, or anything without a
    /// usable type: every lookup below it succeeds with empty metadata.
    Unknown,
}

/// Per-node facts that do not change the node's shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeFlags {
    /// `x-kubernetes-int-or-string: true` (the node is a [`NodeKind::Scalar`]).
    pub int_or_string: bool,
    /// `x-kubernetes-embedded-resource: true`.
    pub embedded_resource: bool,
    /// `nullable: true`, or `null` listed in a JSON-Schema `type` array.
    pub nullable: bool,
    /// `x-kubernetes-preserve-unknown-fields: true`. On a struct, lookups of
    /// fields it does not declare answer the unknown cursor instead of failing.
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-map-type` declared on the node's own schema (for a
    /// definition such as `LabelSelector`, which is atomic wherever it is
    /// used). A property's own [`PatchMeta::map_type`] takes precedence.
    pub map_type: Option<MapType>,
    /// The type a [`NodeKind::Scalar`] accepts; `None` when untyped.
    pub scalar: Option<ScalarType>,
}

/// One node of a compiled schema.
#[derive(Clone, Debug)]
pub struct Node {
    /// The definition name when the node is a named definition.
    pub name: Option<Box<str>>,
    /// What it describes.
    pub kind: NodeKind,
    /// Flags read from the node's schema.
    pub flags: NodeFlags,
    /// For a list node: the list metadata its own schema declares
    /// (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
    /// `x-kubernetes-patch-merge-key`, a `merge` patch strategy), when it
    /// declares any. A property's [`PatchMeta`] is read from the property;
    /// this is what a list that is not a property (a map's values, a list's
    /// items) or a list definition behind a `$ref` declares. The union pass
    /// reads it to pair list elements with their old counterparts
    /// (docs/UNIONS.md), field sets to key the items (docs/FIELDSETS.md);
    /// a property's own list metadata wins over it.
    pub list_meta: Option<Box<PatchMeta>>,
}

/// A group/version/kind, with `""` as the core group.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    /// API group (`""` for core).
    pub group: Box<str>,
    /// Version.
    pub version: Box<str>,
    /// Kind.
    pub kind: Box<str>,
}

impl Gvk {
    /// Splits an `apiVersion` (`apps/v1` or `v1`) and a kind.
    pub fn from_api_version(api_version: &str, kind: &str) -> Gvk {
        let (group, version) = match api_version.rsplit_once('/') {
            Some((g, v)) => (g, v),
            None => ("", api_version),
        };
        Gvk {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
        }
    }

    /// The `apiVersion` text (`apps/v1`, or `v1` for the core group).
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

impl std::fmt::Display for Gvk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.api_version(), self.kind)
    }
}

/// A compiled schema: immutable, `Send + Sync`, shared by every call.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    pub(crate) nodes: Vec<Node>,
    pub(crate) by_name: HashMap<Box<str>, NodeId>,
    pub(crate) by_gvk: HashMap<Gvk, NodeId>,
    /// Per node: the node declares a union or an `enum`, or some node below
    /// it does (computed once when the schema is finished or merged).
    pub(crate) reaches_checks: Vec<bool>,
    /// Per struct node: the names of its fields whose schema reaches a union
    /// or an enum, sorted (empty for other nodes).
    pub(crate) checked_fields: Vec<Box<[Box<str>]>>,
}

/// Why a field lookup failed (reported as `schema_lookup`, docs/ERRORS.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookupError {
    /// The struct has no property of that name.
    NoSuchField {
        /// The field looked up.
        field: String,
        /// The struct's definition name, if known.
        type_name: Option<String>,
    },
    /// The cursor is a map (`additionalProperties`); the reference cannot look
    /// up fields below maps. [`Cursor::map_value`] gives the value schema.
    InMap {
        /// The field looked up.
        field: String,
    },
    /// The cursor is a scalar (or a list where an object was expected).
    NotAnObject {
        /// The field looked up.
        field: String,
        /// What the cursor is (`primitive`, `list`).
        found: &'static str,
    },
}

impl std::fmt::Display for LookupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LookupError::NoSuchField { field, type_name } => match type_name {
                Some(t) => write!(f, "unable to find api field \"{field}\" in {t}"),
                None => write!(f, "unable to find api field \"{field}\""),
            },
            LookupError::InMap { field } => write!(
                f,
                "unable to find api field \"{field}\": the enclosing object is a map (additionalProperties)"
            ),
            LookupError::NotAnObject { field, found } => {
                write!(f, "unable to find api field \"{field}\": expected an object schema, but got {found}")
            }
        }
    }
}

impl std::error::Error for LookupError {}

/// A position in a schema. `Copy`; cheap to pass down a recursion.
///
/// The unknown cursor answers every lookup with empty metadata and another
/// unknown cursor: that is the schema-less mode (objects merge, lists are
/// atomic, nothing errors).
#[derive(Clone, Copy, Debug)]
pub struct Cursor<'s> {
    schema: Option<&'s Schema>,
    node: Option<NodeId>,
}

/// The answer to a lookup: where the value's schema is and the field's
/// patch metadata.
#[derive(Clone, Copy, Debug)]
pub struct Field<'s> {
    /// For an object lookup: the value's schema. For a list lookup: the
    /// ELEMENT schema.
    pub cursor: Cursor<'s>,
    /// The field's patch metadata.
    pub meta: &'s PatchMeta,
}

static EMPTY_META: PatchMeta = PatchMeta::EMPTY;

impl<'s> Cursor<'s> {
    /// The schema-less cursor.
    pub const UNKNOWN: Cursor<'static> = Cursor {
        schema: None,
        node: None,
    };

    pub(crate) fn new(schema: &'s Schema, node: NodeId) -> Self {
        Cursor {
            schema: Some(schema),
            node: Some(node),
        }
    }

    fn node(&self) -> Option<&'s Node> {
        let schema = self.schema?;
        schema.nodes.get(self.node?.0 as usize)
    }

    /// The id of the node at the cursor (`None` for the schema-less cursor).
    pub fn node_id(&self) -> Option<NodeId> {
        self.node
    }

    /// The schema the cursor walks (`None` for [`Cursor::UNKNOWN`]).
    pub fn schema(&self) -> Option<&'s Schema> {
        self.schema
    }

    /// Flags of the node at the cursor (all false for the schema-less cursor).
    pub fn flags(&self) -> NodeFlags {
        self.node().map(|n| n.flags).unwrap_or_default()
    }

    /// The `enum` values of a scalar node, if it declares any.
    pub fn enum_values(&self) -> Option<&'s [Box<str>]> {
        match self.kind() {
            Some(NodeKind::Scalar {
                enum_values: Some(v),
                ..
            }) => Some(v),
            _ => None,
        }
    }

    /// The `enum` values of a scalar node as compact JSON text, in the
    /// order of [`Cursor::enum_values`]: what a check needs to compare a
    /// value with them by kind and value (`"1"` is a string, `1` a number).
    pub fn enum_json(&self) -> Option<&'s [Box<str>]> {
        match self.kind() {
            Some(NodeKind::Scalar {
                enum_json: Some(v), ..
            }) => Some(v),
            _ => None,
        }
    }

    /// For a list cursor: the list metadata the list's own schema declares
    /// ([`Node::list_meta`]), if any.
    pub fn list_meta(&self) -> Option<&'s PatchMeta> {
        self.node()?.list_meta.as_deref()
    }

    /// For a list cursor: the list metadata that rules it, `declared` (a
    /// property's) when it [declares the list's](PatchMeta::declares_list),
    /// else the list's own ([`Cursor::list_meta`]; a map's values, a list's
    /// items, a list definition behind a `$ref`), else `declared`. The field
    /// sets and the union pass both pair list elements by it.
    pub fn list_meta_or<'m>(&self, declared: &'m PatchMeta) -> &'m PatchMeta
    where
        's: 'm,
    {
        match self.list_meta() {
            Some(own) if !declared.declares_list() => own,
            _ => declared,
        }
    }

    /// For a list cursor: the element schema.
    pub fn list_items(&self) -> Option<Cursor<'s>> {
        match self.kind() {
            Some(NodeKind::List { items }) => Some(Cursor {
                schema: self.schema,
                node: Some(*items),
            }),
            _ => None,
        }
    }

    /// The fields of a struct cursor, sorted by name (empty for anything
    /// else). Each [`Field`] has [`Cursor::lookup_object`] semantics: its
    /// cursor is the field's value schema (for a list field, the list node).
    pub fn fields(&self) -> impl Iterator<Item = (&'s str, Field<'s>)> + 's {
        let schema = self.schema;
        let mut out: Vec<(&'s str, Field<'s>)> = match self.kind() {
            Some(NodeKind::Struct { fields, .. }) => fields
                .iter()
                .map(|(k, def)| {
                    (
                        &**k,
                        Field {
                            cursor: Cursor {
                                schema,
                                node: Some(def.node),
                            },
                            meta: &def.meta,
                        },
                    )
                })
                .collect(),
            _ => Vec::new(),
        };
        out.sort_unstable_by(|a, b| a.0.cmp(b.0));
        out.into_iter()
    }

    /// The `default` of the struct field `name` as compact JSON text, when
    /// the schema declares one (`None` for anything else).
    pub fn field_default(&self, name: &str) -> Option<&'s str> {
        match self.kind() {
            Some(NodeKind::Struct { fields, .. }) => fields.get(name)?.default.as_deref(),
            _ => None,
        }
    }

    /// True for the schema-less / untyped cursor.
    pub fn is_unknown(&self) -> bool {
        matches!(self.node().map(|n| &n.kind), None | Some(NodeKind::Unknown))
    }

    /// What the cursor points at (`None` for the schema-less cursor).
    pub fn kind(&self) -> Option<&'s NodeKind> {
        self.node().map(|n| &n.kind)
    }

    /// The definition name of the node, when it is a named definition.
    pub fn type_name(&self) -> Option<&'s str> {
        self.node().and_then(|n| n.name.as_deref())
    }

    /// True when the node at the cursor declares a union or an `enum`, or a
    /// node below it does: union normalization and validation skip every
    /// subtree for which this is false. False for the schema-less cursor.
    pub fn reaches_checks(&self) -> bool {
        match (self.schema, self.node) {
            (Some(s), Some(id)) => s.reaches_checks.get(id.index()).copied().unwrap_or(false),
            _ => false,
        }
    }

    /// For a struct cursor: the names of the fields whose schema reaches a
    /// union or an `enum` ([`Cursor::reaches_checks`]), sorted. Union
    /// normalization looks only these up. Empty for anything else.
    pub fn checked_fields(&self) -> &'s [Box<str>] {
        match (self.schema, self.node) {
            (Some(s), Some(id)) => s.checked_fields.get(id.index()).map_or(&[], |f| &**f),
            _ => &[],
        }
    }

    /// Unions declared on the struct at the cursor.
    pub fn unions(&self) -> &'s [Union] {
        match self.kind() {
            Some(NodeKind::Struct { unions, .. }) => unions,
            _ => &[],
        }
    }

    /// For a map cursor: the schema of its values.
    pub fn map_value(&self) -> Option<Cursor<'s>> {
        match self.kind() {
            Some(NodeKind::Map { value }) => Some(Cursor {
                schema: self.schema,
                node: Some(*value),
            }),
            _ => None,
        }
    }

    fn unknown_field(&self) -> Field<'s> {
        Field {
            cursor: Cursor {
                schema: self.schema,
                node: None,
            },
            meta: &EMPTY_META,
        }
    }

    fn struct_field(&self, key: &str) -> Result<Option<&'s FieldDef>, LookupError> {
        match self.kind() {
            None | Some(NodeKind::Unknown) => Ok(None),
            Some(NodeKind::Struct { fields, .. }) => match fields.get(key) {
                Some(f) => Ok(Some(f)),
                None if self.flags().preserve_unknown_fields => Ok(None),
                None => Err(LookupError::NoSuchField {
                    field: key.to_owned(),
                    type_name: self.type_name().map(str::to_owned),
                }),
            },
            Some(NodeKind::Map { .. }) => Err(LookupError::InMap {
                field: key.to_owned(),
            }),
            Some(NodeKind::List { .. }) => Err(LookupError::NotAnObject {
                field: key.to_owned(),
                found: "list",
            }),
            Some(NodeKind::Scalar { .. }) => Err(LookupError::NotAnObject {
                field: key.to_owned(),
                found: "primitive",
            }),
        }
    }

    /// The name of the struct field that the Go reference's struct lookup
    /// would match case-insensitively for `key` when no field has exactly that
    /// name (quirk Q23, docs/QUIRKS.md#q23), for Kubernetes built-in structs only
    /// (their fields are [`PatchMeta::native`]; the reference reads built-ins'
    /// metadata from Go struct tags, whose JSON-name match folds case as
    /// `encoding/json` does: ASCII letters, plus `K` (U+212A) for `k` and
    /// `ſ` (U+017F) for `s`). `None` when a field has exactly that name, when
    /// nothing matches, and for non-built-in schemas.
    pub fn go_fold_field(&self, key: &str) -> Option<&'s str> {
        let Some(NodeKind::Struct { fields, .. }) = self.kind() else {
            return None;
        };
        if fields.contains_key(key) {
            return None;
        }
        let fold = |c: char| match c {
            '\u{212A}' => 'k',
            '\u{017F}' => 's',
            c => c.to_ascii_lowercase(),
        };
        let mut best: Option<&'s str> = None;
        for (name, def) in fields {
            if def.meta.native
                && name.chars().count() == key.chars().count()
                && name
                    .chars()
                    .zip(key.chars())
                    .all(|(a, b)| fold(a) == fold(b))
                && best.is_none_or(|b| **name < *b)
            {
                best = Some(name);
            }
        }
        best
    }

    /// Lookup for a field whose value is an object (the reference's
    /// `LookupPatchMetadataForStruct`).
    pub fn lookup_object(&self, key: &str) -> Result<Field<'s>, LookupError> {
        Ok(match self.struct_field(key)? {
            None => self.unknown_field(),
            Some(def) => Field {
                cursor: Cursor {
                    schema: self.schema,
                    node: Some(def.node),
                },
                meta: &def.meta,
            },
        })
    }

    /// Lookup for a field whose value is a list: the returned cursor is the
    /// ELEMENT schema (the reference's `LookupPatchMetadataForSlice`). A property
    /// that is a struct rather than an array yields the struct itself as the
    /// element schema, as in the reference's OpenAPI lookup.
    pub fn lookup_list(&self, key: &str) -> Result<Field<'s>, LookupError> {
        let Some(def) = self.struct_field(key)? else {
            return Ok(self.unknown_field());
        };
        let elem = match self
            .schema
            .and_then(|s| s.nodes.get(def.node.0 as usize))
            .map(|n| &n.kind)
        {
            Some(NodeKind::List { items }) => Some(*items),
            Some(NodeKind::Unknown) | None => None,
            Some(_) => Some(def.node),
        };
        Ok(Field {
            cursor: Cursor {
                schema: self.schema,
                node: elem,
            },
            meta: &def.meta,
        })
    }
}

impl Schema {
    /// Recomputes [`Cursor::reaches_checks`] for every node: a node is marked
    /// when it declares a union or an `enum`, then marks spread backwards
    /// along field, map-value and list-item edges (a worklist, no recursion,
    /// so `$ref` cycles cost nothing).
    pub(crate) fn index_checks(&mut self) {
        let n = self.nodes.len();
        // The reverse edges (child -> parents) in one table: `start[c]..start[c + 1]`
        // of `parents` are the parents of `c` (counted, then filled; no
        // list per node).
        let children = |node: &Node, each: &mut dyn FnMut(NodeId)| match &node.kind {
            NodeKind::Struct { fields, .. } => fields.values().for_each(|f| each(f.node)),
            NodeKind::Map { value } => each(*value),
            NodeKind::List { items } => each(*items),
            NodeKind::Scalar { .. } | NodeKind::Unknown => {}
        };
        let mut start = vec![0u32; n + 1];
        for node in &self.nodes {
            children(node, &mut |c| {
                if c.index() < n {
                    start[c.index() + 1] += 1;
                }
            });
        }
        for c in 0..n {
            start[c + 1] += start[c];
        }
        let mut fill = start.clone();
        let mut parents = vec![0u32; start[n] as usize];
        let mut marked = vec![false; n];
        let mut work = Vec::new();
        for (i, node) in self.nodes.iter().enumerate() {
            children(node, &mut |c| {
                if c.index() < n {
                    let at = &mut fill[c.index()];
                    parents[*at as usize] = i as u32;
                    *at += 1;
                }
            });
            let direct = match &node.kind {
                NodeKind::Struct { unions, .. } => !unions.is_empty(),
                NodeKind::Scalar { enum_values, .. } => enum_values.is_some(),
                _ => false,
            };
            if direct {
                marked[i] = true;
                work.push(i);
            }
        }
        while let Some(i) = work.pop() {
            for &p in &parents[start[i] as usize..start[i + 1] as usize] {
                let p = p as usize;
                if !marked[p] {
                    marked[p] = true;
                    work.push(p);
                }
            }
        }
        self.checked_fields = self
            .nodes
            .iter()
            .map(|node| match &node.kind {
                NodeKind::Struct { fields, .. } => {
                    let mut names: Vec<Box<str>> = fields
                        .iter()
                        .filter(|(_, f)| marked.get(f.node.index()).copied().unwrap_or(false))
                        .map(|(k, _)| k.clone())
                        .collect();
                    names.sort_unstable();
                    names.into_boxed_slice()
                }
                _ => Box::default(),
            })
            .collect();
        self.reaches_checks = marked;
    }

    /// The cursor of a definition, by definition name
    /// (`io.k8s.api.apps.v1.Deployment`) or by GVK text (`apps/v1/Deployment`,
    /// `v1/Pod`).
    pub fn cursor(&self, name: &str) -> Option<Cursor<'_>> {
        if let Some(id) = self.by_name.get(name) {
            return Some(Cursor::new(self, *id));
        }
        let (api_version, kind) = name.rsplit_once('/')?;
        self.cursor_for_gvk(&Gvk::from_api_version(api_version, kind))
    }

    /// The cursor of the definition registered for a GVK.
    pub fn cursor_for_gvk(&self, gvk: &Gvk) -> Option<Cursor<'_>> {
        self.by_gvk.get(gvk).map(|id| Cursor::new(self, *id))
    }

    /// The cursor for a document's `apiVersion` and `kind`.
    pub fn cursor_for(&self, api_version: &str, kind: &str) -> Option<Cursor<'_>> {
        self.cursor_for_gvk(&Gvk::from_api_version(api_version, kind))
    }

    /// Definition names, in no particular order.
    pub fn definition_names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(|k| &**k)
    }

    /// Every GVK the schema knows.
    pub fn gvks(&self) -> impl Iterator<Item = &Gvk> {
        self.by_gvk.keys()
    }

    /// The node with this id.
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.0 as usize)
    }

    /// The id of a named definition.
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }

    /// The definition registered for a GVK, with the GVK, sorted by GVK.
    pub fn gvk_entries(&self) -> Vec<(&Gvk, NodeId)> {
        let mut v: Vec<_> = self.by_gvk.iter().map(|(g, id)| (g, *id)).collect();
        v.sort();
        v
    }

    /// Number of nodes (a size measure for tests and benches).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_is_send_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Schema>();
        assert_send_sync::<Cursor<'static>>();
    }

    #[test]
    fn unknown_cursor_answers_everything() {
        let c = Cursor::UNKNOWN;
        let f = c.lookup_object("a").unwrap();
        assert!(f.cursor.is_unknown());
        assert_eq!(f.meta, &PatchMeta::EMPTY);
        let f = f.cursor.lookup_list("b").unwrap();
        assert!(f.cursor.is_unknown());
    }

    #[test]
    fn node_map_type_and_field_defaults() {
        let s = crate::embedded();
        let deploy = s.cursor("apps/v1/Deployment").unwrap();
        let spec = deploy.lookup_object("spec").unwrap().cursor;
        let selector = spec.lookup_object("selector").unwrap();
        assert_eq!(selector.meta.map_type, None);
        assert_eq!(selector.cursor.flags().map_type, Some(MapType::Atomic));
        let strategy = spec.lookup_object("strategy").unwrap().cursor;
        assert_eq!(strategy.flags().map_type, None);
        let doc = Schema::from_bytes(
            br#"{"swagger":"2.0","definitions":{"com.example.P":{"type":"object","x-kubernetes-map-type":"granular","properties":{"port":{"type":"integer"},"protocol":{"type":"string","default":"TCP"},"opts":{"type":"object","default":{"b":[1,2.5],"a":null}}}}}}"#,
            "t",
        )
        .unwrap();
        let p = doc.cursor("com.example.P").unwrap();
        assert_eq!(p.flags().map_type, Some(MapType::Granular));
        assert_eq!(p.field_default("protocol"), Some("\"TCP\""));
        assert_eq!(p.field_default("opts"), Some(r#"{"b":[1,2.5],"a":null}"#));
        assert_eq!(p.field_default("port"), None);
        assert_eq!(p.field_default("missing"), None);
        assert_eq!(Cursor::UNKNOWN.field_default("x"), None);
    }

    #[test]
    fn native_marks_builtin_fields_only() {
        let s = crate::embedded();
        let pod = s.cursor("v1/Pod").unwrap();
        let spec = pod.lookup_object("spec").unwrap().cursor;
        let c = spec.lookup_list("containers").unwrap();
        assert!(c.meta.native);
        let res = c.cursor.lookup_object("resources").unwrap();
        let claims = res.cursor.lookup_list("claims").unwrap();
        assert!(claims.meta.native && claims.meta.list_type == Some(ListType::Map));
        let crd = Schema::from_bytes(
            br#"{"swagger":"2.0","definitions":{"com.example.W":{"properties":{"l":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},"o":{"properties":{"m":{"type":"array","items":{"type":"string"}}}}}}}}"#,
            "t",
        )
        .unwrap();
        let w = crd.cursor("com.example.W").unwrap();
        assert!(!w.lookup_list("l").unwrap().meta.native);
        let o = w.lookup_object("o").unwrap().cursor;
        assert!(!o.lookup_list("m").unwrap().meta.native);
    }
}
