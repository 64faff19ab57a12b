//! Field sets and apply configurations (KEP-2155) at the facade: the
//! serde_json and bytes front doors of `smpatch-fieldsets` (through
//! [`crate::ops::Op::Fields`] and [`crate::ops::Op::Extract`]), and the
//! batch options of the `fields` and `extract` ops.

use crate::input::{parse_options, read_document};
use crate::ops::{self, Op};
use crate::{arena_for, document, Error, Input, TypeRef};
use smpatch_fieldsets::{ExtractOptions, FieldSet, FieldsOptions};
use smpatch_schema::Schema;
use smpatch_value::{Arena, Member, Object, Value};

/// A `_bytes` input of the field-set functions: JSON or YAML (one document).
struct JsonOrYaml<'b>(&'b [u8]);

impl Input for JsonOrYaml<'_> {
    fn read<'a>(&'a self, arena: &'a Arena, op: &Op, what: &str) -> Result<Value<'a>, Error> {
        let opts = parse_options(op.max_depth());
        read_document(arena, self.0, op.empty(), true, what, &opts)
    }

    fn text_len(&self) -> usize {
        self.0.len()
    }
}

/// The canonical FieldsV1 JSON of `set` as a value in `arena` (members in
/// canonical order), built straight from the set (no FieldsV1 text).
pub(crate) fn set_value<'a>(arena: &'a Arena, set: &FieldSet) -> Result<Value<'a>, Error> {
    let mut key = String::new();
    Ok(Value::Object(set_object(arena, set, false, &mut key)))
}

/// One node of [`set_value`]; `include_self` adds the `"."` entry of a node
/// that is also a member. Recursion is bounded by
/// [`smpatch_fieldsets::MAX_SET_DEPTH`], as in `FieldSet::to_json`.
fn set_object<'a>(
    arena: &'a Arena,
    set: &FieldSet,
    include_self: bool,
    key: &mut String,
) -> Object<'a> {
    let (lo, _) = set.entries().size_hint();
    let mut members = Vec::with_capacity(lo + usize::from(include_self));
    if include_self && !set.is_empty() {
        members.push(Member {
            key: ".",
            value: Value::Object(Object::EMPTY),
        });
    }
    for e in set.entries() {
        key.clear();
        e.element.write(key);
        let k = arena.alloc_str(key);
        let value = match e.below {
            Some(ch) => Value::Object(set_object(arena, ch, e.member, key)),
            None => Value::Object(Object::EMPTY),
        };
        members.push(Member { key: k, value });
    }
    Object::from_members(arena.alloc_slice_copy(&members))
}

/// Owners as a JSON value: `[{"path": "f:…", "owners": [{"manager", "operation",
/// "subresource"?, "apiVersion"}]}]`, sorted by path.
pub(crate) fn owners_value(object: Value<'_>) -> Result<serde_json::Value, Error> {
    let table = smpatch_fieldsets::owners(&object)?;
    Ok(serde_json::Value::Array(
        table
            .iter()
            .map(|(path, owners)| {
                let owners = owners
                    .iter()
                    .map(|o| {
                        let mut m = serde_json::Map::new();
                        m.insert("manager".into(), o.manager.clone().into());
                        m.insert("operation".into(), o.operation.clone().into());
                        if !o.subresource.is_empty() {
                            m.insert("subresource".into(), o.subresource.clone().into());
                        }
                        m.insert("apiVersion".into(), o.api_version.clone().into());
                        serde_json::Value::Object(m)
                    })
                    .collect();
                serde_json::json!({
                    "path": smpatch_fieldsets::path_string(path),
                    "owners": serde_json::Value::Array(owners),
                })
            })
            .collect(),
    ))
}

/// The field set of `object` as server-side apply records it (KEP-2155),
/// as canonical FieldsV1 JSON (a `serde_json::Value` whose members are in
/// canonical order).
///
/// ```
/// use serde_json::json;
/// use smpatch::{fields_json, TypeRef};
/// use smpatch::fieldsets::FieldsOptions;
/// let schema = smpatch::embedded_schema().unwrap();
/// let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
///     "metadata": {"name": "c", "labels": {"app": "web"}}, "data": {"k": "v"}});
/// let set = fields_json(&cm, schema, &TypeRef::Detect, &FieldsOptions::default()).unwrap();
/// assert_eq!(set, json!({"f:data": {"f:k": {}}, "f:metadata": {"f:labels": {"f:app": {}}}}));
/// ```
pub fn fields_json(
    object: &serde_json::Value,
    schema: &Schema,
    ty: &TypeRef,
    opts: &FieldsOptions,
) -> Result<serde_json::Value, Error> {
    // Straight from the set to serde_json: the pipeline's
    // `Outcome::FieldSet` value would be built in the arena and then
    // converted, which the serde_json answer does not need.
    Ok(field_set(object, schema, ty, opts)?.to_serde())
}

/// The field set of one document, read with the limits the pipeline
/// applies (its `Op::Fields` reading, type resolution and errors), for
/// the calls that answer straight from the set.
fn field_set<I: Input + ?Sized>(
    object: &I,
    schema: &Schema,
    ty: &TypeRef,
    opts: &FieldsOptions,
) -> Result<FieldSet, Error> {
    let op = Op::Fields(opts.clone());
    let docs: [&I; 1] = [object];
    let arena = arena_for(&op, &docs);
    let value = object.read(&arena, &op, op.roles()[0])?;
    let cursor = ops::resolve_type(&op, &[schema], ty, &[value])?;
    Ok(smpatch_fieldsets::fields_of(&value, cursor, opts)?)
}

/// [`fields_json`] on JSON or YAML bytes (one document); answers the
/// canonical FieldsV1 bytes, as the API server stores them.
///
/// ```
/// use smpatch::{fields_bytes, TypeRef};
/// use smpatch::fieldsets::FieldsOptions;
/// let schema = smpatch::embedded_schema().unwrap();
/// let set = fields_bytes(b"apiVersion: v1\nkind: ConfigMap\nmetadata: {finalizers: [b, a]}\n",
///     schema, &TypeRef::Detect, &FieldsOptions::default()).unwrap();
/// assert_eq!(set, br#"{"f:metadata":{"f:finalizers":{"v:\"a\"":{},"v:\"b\"":{}}}}"#);
/// ```
pub fn fields_bytes(
    object: &[u8],
    schema: &Schema,
    ty: &TypeRef,
    opts: &FieldsOptions,
) -> Result<Vec<u8>, Error> {
    // The set is written once, straight from the set: the pipeline's
    // `Outcome::FieldSet` also builds the FieldsV1 value (written, then
    // parsed back into the arena), which bytes out do not need.
    Ok(field_set(&JsonOrYaml(object), schema, ty, opts)?
        .to_json()
        .into_bytes())
}

/// The apply configuration that `manager` owns in the live `object`
/// (client-go's "extract", KEP-2155): the object's values at the leaves of
/// the manager's `Apply` entry, plus `apiVersion`, `kind`, `metadata.name`
/// and `metadata.namespace`. See [`ExtractOptions`] for the subresource,
/// the apiVersion check and the reference-compatible mode.
///
/// ```
/// use serde_json::json;
/// use smpatch::{extract_json, TypeRef};
/// use smpatch::fieldsets::ExtractOptions;
/// let schema = smpatch::embedded_schema().unwrap();
/// let live = json!({"apiVersion": "v1", "kind": "ConfigMap",
///     "metadata": {"name": "c", "managedFields": [{"manager": "me", "operation": "Apply",
///         "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}]},
///     "data": {"a": "1", "b": "2"}});
/// let cfg = extract_json(&live, schema, &TypeRef::Detect, "me", &ExtractOptions::default()).unwrap();
/// assert_eq!(cfg, json!({"apiVersion": "v1", "kind": "ConfigMap",
///     "metadata": {"name": "c"}, "data": {"a": "1"}}));
/// let err = extract_json(&live, schema, &TypeRef::Detect, "you", &ExtractOptions::default()).unwrap_err();
/// assert_eq!(err.name(), "no_apply_entry");
/// ```
pub fn extract_json(
    object: &serde_json::Value,
    schema: &Schema,
    ty: &TypeRef,
    manager: &str,
    opts: &ExtractOptions,
) -> Result<serde_json::Value, Error> {
    document(extract_op(manager, opts), &[object], schema, ty)
}

/// [`extract_json`] on JSON or YAML bytes; answers compact JSON bytes with
/// every number written as it was read.
pub fn extract_bytes(
    object: &[u8],
    schema: &Schema,
    ty: &TypeRef,
    manager: &str,
    opts: &ExtractOptions,
) -> Result<Vec<u8>, Error> {
    document(
        extract_op(manager, opts),
        &[&JsonOrYaml(object)],
        schema,
        ty,
    )
}

fn extract_op(manager: &str, opts: &ExtractOptions) -> Op {
    Op::Extract {
        manager: manager.to_owned(),
        options: opts.clone(),
    }
}

/// For every leaf path of the object's managed fields, the entries that own
/// it (Apply and Update), sorted by path:
/// `[{"path": "f:spec.f:replicas", "owners": [{"manager": …, "operation": …,
/// "subresource": … (when set), "apiVersion": …}]}]`. Needs no schema.
///
/// ```
/// use serde_json::json;
/// let live = json!({"metadata": {"managedFields": [
///     {"manager": "a", "operation": "Apply", "apiVersion": "v1", "fieldsV1": {"f:data": {"f:x": {}}}},
///     {"manager": "b", "operation": "Update", "apiVersion": "v1", "fieldsV1": {"f:data": {"f:x": {}}}}]}});
/// let table = smpatch::owners_json(&live).unwrap();
/// assert_eq!(table[0]["path"], "f:data.f:x");
/// assert_eq!(table[0]["owners"][1]["manager"], "b");
/// ```
pub fn owners_json(object: &serde_json::Value) -> Result<serde_json::Value, Error> {
    let arena = Arena::new();
    let o = object.read(&arena, &Op::Fields(FieldsOptions::default()), "object")?;
    owners_value(o)
}

/// [`owners_json`] on JSON or YAML bytes (one document); answers the same
/// table as compact JSON bytes, members in the order `owners_json` writes
/// them (what Python's `owners` answers). A document nested deeper than
/// 256 levels is `too_deep`.
///
/// ```
/// let live = b"metadata:\n  managedFields:\n  - {manager: a, operation: Apply, apiVersion: v1, \
///     fieldsV1: {f:data: {f:x: {}}}}\n";
/// let table = smpatch::owners_bytes(live).unwrap();
/// assert_eq!(
///     String::from_utf8(table).unwrap(),
///     r#"[{"path":"f:data.f:x","owners":[{"manager":"a","operation":"Apply","apiVersion":"v1"}]}]"#
/// );
/// ```
pub fn owners_bytes(object: &[u8]) -> Result<Vec<u8>, Error> {
    owners_bytes_with(object, FieldsOptions::default().max_depth)
}

/// [`owners_bytes`] with a depth limit other than the default 256 (the
/// `max_depth` of the batch op `owners` and of Python's `owners`): an
/// object nested deeper than `max_depth` levels is `too_deep`, naming the
/// first node past the limit.
///
/// ```
/// let live = br#"{"metadata":{"labels":{"a":"b"}}}"#;
/// assert!(smpatch::owners_bytes_with(live, 3).is_ok());
/// let e = smpatch::owners_bytes_with(live, 2).unwrap_err();
/// assert_eq!((e.name(), e.path()), ("too_deep", "/metadata/labels"));
/// ```
pub fn owners_bytes_with(object: &[u8], max_depth: usize) -> Result<Vec<u8>, Error> {
    let arena = Arena::new();
    let input = JsonOrYaml(object);
    let op = Op::Fields(FieldsOptions {
        max_depth,
        ..FieldsOptions::default()
    });
    let o = input.read(&arena, &op, "object")?;
    let table = owners_checked(&arena, o, max_depth)?;
    Ok(smpatch_value::to_json_string(&table).into_bytes())
}

/// [`owners_table`] of an object nested at most `max_depth` levels deep
/// (the parser only raises its limit, never lowers it, and the owners walk
/// reads managedFields alone, so a lower limit is checked here): deeper is
/// `too_deep` at the first container past the limit, in document order, as
/// the `fields` and `extract` walks name it.
pub(crate) fn owners_checked<'a>(
    arena: &'a Arena,
    object: Value<'_>,
    max_depth: usize,
) -> Result<Value<'a>, Error> {
    if object.depth() > max_depth {
        let pointer = past_depth(object, max_depth).unwrap_or_default();
        return Err(Error::facade(
            crate::FacadeKind::TooDeep,
            pointer,
            format!("the object nests deeper than max_depth {max_depth} here"),
        ));
    }
    owners_table(arena, object)
}

/// The pointer of the first container (document order) more than
/// `max_depth` levels deep in `root` (a flat container is 1 level, as
/// [`Value::depth`] counts), found without recursion; `None` when there is
/// none.
fn past_depth(root: Value<'_>, max_depth: usize) -> Option<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut work: Vec<(Value<'_>, usize, String)> = vec![(root, 1, String::new())];
    while let Some((v, level, token)) = work.pop() {
        if level > 1 {
            tokens.truncate(level - 2);
            tokens.push(token);
        }
        let before = work.len();
        match v {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    work.push((*item, level + 1, i.to_string()));
                }
            }
            Value::Object(o) => {
                for m in o.members() {
                    work.push((m.value, level + 1, m.key.to_owned()));
                }
            }
            _ => continue,
        }
        if level > max_depth {
            let mut pointer = String::new();
            for t in &tokens {
                smpatch_value::push_pointer_token(&mut pointer, t);
            }
            return Some(pointer);
        }
        work[before..].reverse();
    }
    None
}

/// The owners table of [`owners_bytes`] as a value in `arena` (the batch
/// op `owners` answers it).
pub(crate) fn owners_table<'a>(arena: &'a Arena, object: Value<'_>) -> Result<Value<'a>, Error> {
    let table = smpatch_fieldsets::owners(&object)?;
    let s = |text: &str| Value::String(arena.alloc_str(text));
    let rows: Vec<Value<'_>> = table
        .iter()
        .map(|(path, owners)| {
            let owners: Vec<Value<'_>> = owners
                .iter()
                .map(|o| {
                    let mut m = vec![("manager", s(&o.manager)), ("operation", s(&o.operation))];
                    if !o.subresource.is_empty() {
                        m.push(("subresource", s(&o.subresource)));
                    }
                    m.push(("apiVersion", s(&o.api_version)));
                    Value::object_from(arena, &m)
                })
                .collect();
            let path = s(&smpatch_fieldsets::path_string(path));
            Value::object_from(
                arena,
                &[
                    ("path", path),
                    ("owners", Value::array_from(arena, &owners)),
                ],
            )
        })
        .collect();
    Ok(Value::array_from(arena, &rows))
}

/// Batch op `owners`: `{"object": …, "options": {"max_depth": N}}` → the
/// owners table (no schema: a `"schema"` member is refused). Runs as the
/// parse of an [`Op::Fields`].
pub(crate) fn batch_owners(request: Value<'_>) -> Result<Op, Error> {
    let o = options_object(request, &["max_depth"])?;
    let mut opts = FieldsOptions::default();
    if let Some(d) = opt_usize(&o, "max_depth")? {
        opts.max_depth = d;
    }
    Ok(Op::Fields(opts))
}

fn bad(path: &str, message: impl Into<String>) -> Error {
    Error::facade(crate::FacadeKind::InvalidRequest, path, message)
}

fn opt_bool(obj: &smpatch_value::Object<'_>, key: &str) -> Result<Option<bool>, Error> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(_) => Err(bad(
            &format!("/options/{key}"),
            format!("option {key:?} must be true or false"),
        )),
    }
}

/// `max_depth`: a non-negative integer, as the other ops' option of that
/// name.
fn opt_usize(obj: &smpatch_value::Object<'_>, key: &str) -> Result<Option<usize>, Error> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_number()
            .and_then(|n| n.as_u64())
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| {
                bad(
                    &format!("/options/{key}"),
                    format!("option {key:?} must be a non-negative integer"),
                )
            }),
    }
}

fn opt_str<'a>(obj: &smpatch_value::Object<'a>, key: &str) -> Result<Option<&'a str>, Error> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(bad(
            &format!("/options/{key}"),
            format!("option {key:?} must be a string"),
        )),
    }
}

fn options_object<'a>(
    request: Value<'a>,
    known: &[&str],
) -> Result<smpatch_value::Object<'a>, Error> {
    let obj = match request.get("options") {
        None | Some(Value::Null) => return Ok(smpatch_value::Object::default()),
        Some(Value::Object(o)) => o,
        Some(_) => return Err(bad("/options", "options must be an object")),
    };
    for (key, _) in obj.iter() {
        if !known.contains(&key) {
            return Err(bad(
                &format!("/options/{key}"),
                format!(
                    "unknown option {key:?} for this op; known: {}",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(obj)
}

/// Batch op `fields`: `{"object": …, "options": {"shape": "apply"|"update",
/// "strip_server_fields": bool, "allow_duplicates": bool, "max_depth": N}}`
/// → the canonical FieldsV1 object.
pub(crate) fn batch_fields(request: Value<'_>) -> Result<Op, Error> {
    let o = options_object(
        request,
        &[
            "shape",
            "strip_server_fields",
            "allow_duplicates",
            "max_depth",
        ],
    )?;
    let mut opts = match opt_str(&o, "shape")? {
        None | Some("apply") => FieldsOptions::default(),
        Some("update") => FieldsOptions {
            strip_server_fields: true,
            ..FieldsOptions::update_on_create()
        },
        Some(other) => {
            return Err(bad(
                "/options/shape",
                format!("unknown shape {other:?}; expected apply or update"),
            ))
        }
    };
    if let Some(b) = opt_bool(&o, "strip_server_fields")? {
        opts.strip_server_fields = b;
    }
    if let Some(b) = opt_bool(&o, "allow_duplicates")? {
        opts.allow_duplicates = b;
    }
    if let Some(d) = opt_usize(&o, "max_depth")? {
        opts.max_depth = d;
    }
    Ok(Op::Fields(opts))
}

/// Batch op `extract`: `{"object": …, "manager": "NAME", "subresource": "S",
/// "options": {"reference": bool, "api_version_check": "ignore"|"strict",
/// "include_key_fields": bool, "missing_entry": "error"|"identity",
/// "validate": bool, "max_depth": N}}` → the apply configuration.
pub(crate) fn batch_extract(request: Value<'_>) -> Result<Op, Error> {
    let manager = match request.get("manager") {
        Some(Value::String(s)) => s,
        None | Some(Value::Null) => return Err(bad("", "the request has no \"manager\"")),
        Some(_) => return Err(bad("/manager", "manager must be a string")),
    };
    let o = options_object(
        request,
        &[
            "reference",
            "api_version_check",
            "include_key_fields",
            "missing_entry",
            "validate",
            "max_depth",
        ],
    )?;
    let mut opts = if opt_bool(&o, "reference")?.unwrap_or(false) {
        ExtractOptions::reference()
    } else {
        ExtractOptions::default()
    };
    opts.subresource = match request.get("subresource") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.to_owned(),
        Some(_) => return Err(bad("/subresource", "subresource must be a string")),
    };
    match opt_str(&o, "api_version_check")? {
        None => {}
        Some("ignore") => opts.api_version_check = smpatch_fieldsets::ApiCheck::Ignore,
        Some("strict") => opts.api_version_check = smpatch_fieldsets::ApiCheck::Strict,
        Some(other) => {
            return Err(bad(
                "/options/api_version_check",
                format!("unknown value {other:?}; expected ignore or strict"),
            ))
        }
    }
    match opt_str(&o, "missing_entry")? {
        None => {}
        Some("error") => opts.missing_entry = smpatch_fieldsets::MissingEntry::Error,
        Some("identity") => opts.missing_entry = smpatch_fieldsets::MissingEntry::IdentityOnly,
        Some(other) => {
            return Err(bad(
                "/options/missing_entry",
                format!("unknown value {other:?}; expected error or identity"),
            ))
        }
    }
    if let Some(b) = opt_bool(&o, "include_key_fields")? {
        opts.include_key_fields = b;
    }
    if let Some(b) = opt_bool(&o, "validate")? {
        opts.validate = b;
    }
    if let Some(d) = opt_usize(&o, "max_depth")? {
        opts.max_depth = d;
    }
    Ok(extract_op(manager, &opts))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fields_bytes` writes the set straight from the walk (no FieldsV1
    /// value in between): the same set as `fields_json`, in canonical
    /// order, from JSON and from YAML, and the same errors.
    #[test]
    fn fields_bytes_is_the_set_fields_json_answers() {
        let schema = crate::embedded_schema().unwrap();
        let opts = FieldsOptions::default();
        let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "labels": {"b": "1", "a": "2"}, "finalizers": ["fz", "fy"]},
            "spec": {"containers": [{"name": "c", "image": "i", "ports": [
                {"containerPort": 80, "protocol": "TCP"}, {"containerPort": 53, "protocol": "UDP"}]}]}});
        let want = fields_json(&pod, schema, &TypeRef::Detect, &opts).unwrap();
        let json_text = serde_json::to_vec(&pod).unwrap();
        let got = fields_bytes(&json_text, schema, &TypeRef::Detect, &opts).unwrap();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&got).unwrap(),
            want
        );
        assert_eq!(
            String::from_utf8(got.clone()).unwrap(),
            serde_json::to_string(&want).unwrap(),
            "canonical member order"
        );
        let yaml =
            b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {b: '1', a: '2'}\n  \
            finalizers: [fz, fy]\nspec:\n  containers:\n  - name: c\n    image: i\n    ports:\n    \
            - {containerPort: 80, protocol: TCP}\n    - {containerPort: 53, protocol: UDP}\n";
        assert_eq!(
            fields_bytes(yaml, schema, &TypeRef::Detect, &opts).unwrap(),
            got
        );
        let ty = TypeRef::Gvk("v1/NoSuchKind".into());
        let e_bytes = fields_bytes(&json_text, schema, &ty, &opts).unwrap_err();
        let e_json = fields_json(&pod, schema, &ty, &opts).unwrap_err();
        assert_eq!(e_bytes, e_json);
        assert_eq!(
            fields_bytes(b"  ", schema, &TypeRef::Detect, &opts)
                .unwrap_err()
                .name(),
            "invalid_document"
        );
    }
}
