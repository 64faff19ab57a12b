//! The client-side `kubectl apply` flow: manifest + live object → three-way
//! patch, merged object and the new last-applied-configuration annotation.
//!
//! What kubectl does, step by step (the CLI's `apply` command calls
//! [`run`]):
//! 1. A manifest without `metadata.namespace` takes the live object's.
//! 2. The original is the live object's
//!    `kubectl.kubernetes.io/last-applied-configuration` annotation (`{}`
//!    when absent or blank). When the live object exists but has no such
//!    annotation, kubectl warns and goes on: [`ApplyWarning`].
//! 3. The modified document is the manifest with that annotation set to the
//!    manifest itself, encoded as Go's `encoding/json` does plus a newline
//!    (annotations that are not a map of strings count as `{}`, as kubectl's
//!    `Unstructured.GetAnnotations` reads them).
//! 4. The three-way patch of original, modified and live (a `conflict`
//!    error without `overwrite`), then the patch merged into the live object.
//!
//! That is kubectl's flow for the kinds compiled into it (the built-in
//! Kubernetes types): a strategic merge patch. For every other kind (custom
//! resources, [kubernetes/kubernetes#58414](https://github.com/kubernetes/kubernetes/issues/58414))
//! kubectl computes a three-way JSON merge patch (RFC 7386) instead and the
//! API server merges it as one: [`ApplyPatchType::Merge`] does the same
//! (no schema needed, lists replaced whole; see [`crate::json_merge::three_way`]).
//!
//! The engines do the merging; this module only builds the documents.
//!
//! ```
//! use serde_json::json;
//! use smpatch::apply_flow::{client_apply_json, ApplyAction, ClientApplyOptions};
//! use smpatch::TypeRef;
//! let schema = smpatch::embedded_schema().unwrap();
//! let manifest = json!({"apiVersion": "v1", "kind": "ConfigMap",
//!     "metadata": {"name": "cfg"}, "data": {"a": "2"}});
//! let live = json!({"apiVersion": "v1", "kind": "ConfigMap",
//!     "metadata": {"name": "cfg", "namespace": "prod"}, "data": {"a": "1"}});
//! let out = client_apply_json(&manifest, Some(&live), schema, &TypeRef::Detect,
//!     &ClientApplyOptions::default()).unwrap();
//! assert_eq!(out.merged["data"]["a"], "2");
//! assert_eq!(out.merged["metadata"]["namespace"], "prod");
//! assert_eq!(out.action, ApplyAction::Configured);
//! assert_eq!(out.resource, "configmap/cfg");
//! // No last-applied annotation on the live object: kubectl's warning.
//! assert!(out.warning.unwrap().to_string().starts_with("Warning: resource configmap/cfg is missing"));
//! assert_eq!(out.last_applied, "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"2\"},\"kind\":\"ConfigMap\",\
//!     \"metadata\":{\"annotations\":{},\"name\":\"cfg\",\"namespace\":\"prod\"}}\n");
//! ```

use crate::input::{check_object, parse_options};
use crate::json_merge;
use crate::ops::{self, Op};
use crate::{Error, ErrorKind, Output, PatchErrorKind, TypeRef};
use smpatch_patch_apply::ApplyOptions;
use smpatch_patch_create::{CreateOptions, Precondition};
use smpatch_schema::Schema;
use smpatch_value::{parse_json, to_go_json, Arena, Member, Object, Value};
use std::fmt;

/// The annotation `kubectl apply` keeps the last applied configuration in.
pub const LAST_APPLIED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The JSON pointer of [`LAST_APPLIED_ANNOTATION`] in an object: errors
/// reading the live object's annotation carry paths under it.
pub const LAST_APPLIED_POINTER: &str =
    "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration";

/// The patch type of the apply flow: which three-way patch kubectl computes
/// and the API server merges.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ApplyPatchType {
    /// Strategic merge patch, with the type's patch metadata (merge keys,
    /// strategies): kubectl's choice for the built-in Kubernetes types.
    #[default]
    Strategic,
    /// RFC 7386 JSON merge patch (`CreateThreeWayJSONMergePatch`): kubectl's
    /// choice for every kind it has no Go type for (custom resources). No
    /// schema is needed or used; lists are replaced whole; there is no
    /// conflict check (kubectl has none in this mode, so
    /// [`ClientApplyOptions::overwrite`] does not apply); a patch that would
    /// change `apiVersion`, `kind` or `metadata.name` of a live object is
    /// kubectl's `precondition_failed` error.
    Merge,
    /// kubectl's choice per object ([`ApplyPatchType::resolve`]):
    /// [`Strategic`](ApplyPatchType::Strategic) when the embedded Kubernetes
    /// schema has the object's type (from its `apiVersion`/`kind`),
    /// [`Merge`](ApplyPatchType::Merge) for every other kind. (A kubectl
    /// that cannot read the cluster's OpenAPI also merges
    /// `CustomResourceDefinition` and `APIService` objects: choose `Merge`
    /// to reproduce that.)
    Auto,
}

impl ApplyPatchType {
    /// The names [`ApplyPatchType::from_name`] takes, for messages.
    pub const NAMES: &'static str = "strategic, merge or auto";

    /// The name `--type` takes (and the batch option `patch_type`, Python's
    /// `patch_type=`): `strategic`, `merge`, `auto`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApplyPatchType::Strategic => "strategic",
            ApplyPatchType::Merge => "merge",
            ApplyPatchType::Auto => "auto",
        }
    }

    /// The patch type named `name` ([`ApplyPatchType::as_str`]); `None` for
    /// any other name.
    ///
    /// ```
    /// use smpatch::apply_flow::ApplyPatchType;
    /// assert_eq!(ApplyPatchType::from_name("auto"), Some(ApplyPatchType::Auto));
    /// assert_eq!(ApplyPatchType::from_name("json"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Self> {
        [
            ApplyPatchType::Strategic,
            ApplyPatchType::Merge,
            ApplyPatchType::Auto,
        ]
        .into_iter()
        .find(|t| t.as_str() == name)
    }

    /// The patch type for documents `docs` (their `apiVersion`/`kind` is
    /// read in this order, first found wins): `Auto` becomes `Strategic`
    /// when the embedded Kubernetes schema has that type and `Merge` when
    /// it does not (an unknown kind, or no `apiVersion`/`kind` at all);
    /// the other types stay as they are.
    ///
    /// ```
    /// use smpatch::apply_flow::ApplyPatchType;
    /// use smpatch::{parse_document, ApplyOptions, Arena};
    /// use smpatch::ops::Op;
    /// let arena = Arena::new();
    /// let op = Op::Apply(ApplyOptions::default());
    /// let cm = parse_document(&arena, br#"{"apiVersion":"v1","kind":"ConfigMap"}"#, &op, "o").unwrap();
    /// let cr = parse_document(&arena, br#"{"apiVersion":"x.io/v1","kind":"Widget"}"#, &op, "o").unwrap();
    /// assert_eq!(ApplyPatchType::Auto.resolve(&[cm]), ApplyPatchType::Strategic);
    /// assert_eq!(ApplyPatchType::Auto.resolve(&[cr]), ApplyPatchType::Merge);
    /// assert_eq!(ApplyPatchType::Strategic.resolve(&[cr]), ApplyPatchType::Strategic);
    /// ```
    pub fn resolve(self, docs: &[Value<'_>]) -> ApplyPatchType {
        if self != ApplyPatchType::Auto {
            return self;
        }
        // kubectl: a strategic merge patch for the types whose server takes
        // one (read from the cluster's OpenAPI; the embedded schema's types
        // here), a JSON merge patch for everything else (custom resources).
        // Any error other than an unknown type is the strategic flow's to
        // report.
        let Ok(embedded) = crate::embedded_schema() else {
            return ApplyPatchType::Strategic;
        };
        match crate::input::resolve_cursor(&[embedded], &TypeRef::Detect, docs) {
            Err(e) if e.name() == "unknown_type" => ApplyPatchType::Merge,
            _ => ApplyPatchType::Strategic,
        }
    }
}

impl fmt::Display for ApplyPatchType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Options of the apply flow. `Default`: a strategic merge patch,
/// overwrite on (kubectl's default), the engines' default options.
///
/// ```
/// use smpatch::apply_flow::{ApplyPatchType, ClientApplyOptions};
/// let opts = ClientApplyOptions::default().overwrite(false).max_depth(64);
/// assert!(!opts.overwrite);
/// assert_eq!(opts.create.max_depth, 64);
/// assert_eq!(opts.patch_type, ApplyPatchType::Strategic);
/// let crd = ClientApplyOptions::default().patch_type(ApplyPatchType::Merge);
/// assert_eq!(crd.patch_type, ApplyPatchType::Merge);
/// ```
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientApplyOptions {
    /// Overwrite changes made on the server since the last apply
    /// (`kubectl apply --overwrite`, on by default); off, they are a
    /// `conflict` error.
    pub overwrite: bool,
    /// Options of the three-way patch.
    pub create: CreateOptions,
    /// Options of merging the patch into the live object.
    pub apply: ApplyOptions,
    /// The three-way patch to compute: strategic (default), as kubectl does
    /// for custom resources an RFC 7386 JSON merge patch, or kubectl's
    /// choice per object (`Auto`, decided from the manifest).
    pub patch_type: ApplyPatchType,
}

impl Default for ClientApplyOptions {
    fn default() -> Self {
        ClientApplyOptions {
            overwrite: true,
            create: CreateOptions::default(),
            apply: ApplyOptions::default(),
            patch_type: ApplyPatchType::Strategic,
        }
    }
}

impl ClientApplyOptions {
    /// Sets [`overwrite`](ClientApplyOptions::overwrite).
    pub fn overwrite(mut self, overwrite: bool) -> Self {
        self.overwrite = overwrite;
        self
    }

    /// Sets the depth limit of both steps (and of reading the annotation).
    pub fn max_depth(mut self, max_depth: usize) -> Self {
        self.create.max_depth = max_depth;
        self.apply.max_depth = max_depth;
        self
    }

    /// Sets the options of the three-way patch.
    pub fn create_options(mut self, create: CreateOptions) -> Self {
        self.create = create;
        self
    }

    /// Sets the options of the merge into the live object.
    pub fn apply_options(mut self, apply: ApplyOptions) -> Self {
        self.apply = apply;
        self
    }

    /// Sets [`patch_type`](ClientApplyOptions::patch_type).
    pub fn patch_type(mut self, patch_type: ApplyPatchType) -> Self {
        self.patch_type = patch_type;
        self
    }
}

/// What applying did to the object, as kubectl's summary line says it.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApplyAction {
    /// There was no live object: the merged object is the new one.
    Created,
    /// The patch changes the live object.
    Configured,
    /// The patch is empty (`{}`).
    Unchanged,
}

impl ApplyAction {
    /// The word kubectl prints: `created`, `configured`, `unchanged`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApplyAction::Created => "created",
            ApplyAction::Configured => "configured",
            ApplyAction::Unchanged => "unchanged",
        }
    }
}

impl fmt::Display for ApplyAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something the caller should show the user; applying went on.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApplyWarning {
    /// The live object has no last-applied annotation (it was not created
    /// by `kubectl apply` or `kubectl create --save-config`): fields set
    /// only by an earlier configuration cannot be pruned. The new
    /// annotation is written anyway.
    MissingLastApplied {
        /// The object, `kind.group/name` (`deployment.apps/web`).
        resource: String,
    },
}

impl fmt::Display for ApplyWarning {
    /// kubectl's wording.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyWarning::MissingLastApplied { resource } => write!(
                f,
                "Warning: resource {resource} is missing the {LAST_APPLIED_ANNOTATION} \
                 annotation which is required by kubectl apply. kubectl apply should only be \
                 used on resources created declaratively by either kubectl create --save-config \
                 or kubectl apply. The missing annotation will be patched automatically."
            ),
        }
    }
}

/// The result of [`run`], in the arena.
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct ClientApply<'a> {
    /// The three-way patch (what kubectl sends to the server).
    pub patch: Value<'a>,
    /// The live object with the patch merged in.
    pub merged: Value<'a>,
    /// The new annotation text (Go-compatible JSON plus a newline).
    pub last_applied: &'a str,
    /// What applying did.
    pub action: ApplyAction,
    /// The object as kubectl names it: `kind.group/name`.
    pub resource: String,
    /// A warning to show, when kubectl would print one.
    pub warning: Option<ApplyWarning>,
}

/// The result of [`client_apply_json`] and [`client_apply_bytes`]: `T` is
/// `serde_json::Value` or compact JSON bytes.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub struct ClientApplied<T> {
    /// The three-way patch.
    pub patch: T,
    /// The live object with the patch merged in.
    pub merged: T,
    /// The new annotation text (Go-compatible JSON plus a newline).
    pub last_applied: String,
    /// What applying did.
    pub action: ApplyAction,
    /// The object as kubectl names it: `kind.group/name`.
    pub resource: String,
    /// A warning to show, when kubectl would print one.
    pub warning: Option<ApplyWarning>,
}

/// The apply flow on documents already read into `arena`: `live` is `None`
/// when the object does not exist yet. With a strategic patch
/// ([`ClientApplyOptions::patch_type`]) the type is found in `schemas`
/// (first that has it wins) from the manifest, then the last-applied
/// configuration, then the live object; a JSON merge patch reads neither
/// `schemas` nor `ty`.
///
/// Errors: the engines' (a `conflict` without `overwrite`, …), `unknown_type`,
/// a bad last-applied annotation (path under [`LAST_APPLIED_POINTER`]) and,
/// for a JSON merge patch, `precondition_failed` (the manifest changes the
/// live object's `apiVersion`, `kind` or `metadata.name`).
pub fn run<'a>(
    arena: &'a Arena,
    manifest: Value<'a>,
    live: Option<Value<'a>>,
    schemas: &[&Schema],
    ty: &TypeRef,
    opts: &ClientApplyOptions,
) -> Result<ClientApply<'a>, Error> {
    let manifest = check_object(manifest, "manifest")?;
    let exists = live.is_some();
    let live = check_object(live.unwrap_or_else(Value::empty_object), "live")?;
    let manifest = with_live_namespace(arena, manifest, live);
    let original = last_applied_of(arena, live, opts)?;
    let warning = (exists && !has_last_applied(live)).then(|| ApplyWarning::MissingLastApplied {
        resource: resource_name(manifest),
    });
    let base = set_last_applied(arena, manifest, None);
    let mut encoded = to_go_json(&base);
    encoded.push('\n');
    let last_applied: &'a str = arena.alloc_str(&encoded);
    let modified = set_last_applied(arena, base, Some(Value::String(last_applied)));
    let docs = [original, modified, live];
    let (patch, merged) = match opts.patch_type.resolve(&[manifest]) {
        ApplyPatchType::Merge => merge_patch(arena, docs, exists, manifest)?,
        _ => strategic(arena, docs, schemas, ty, opts, manifest)?,
    };
    let action = match patch {
        _ if !exists => ApplyAction::Created,
        Value::Object(o) if o.is_empty() => ApplyAction::Unchanged,
        _ => ApplyAction::Configured,
    };
    Ok(ClientApply {
        patch,
        merged,
        last_applied,
        action,
        resource: resource_name(manifest),
        warning,
    })
}

/// The strategic three-way patch of `[original, modified, live]` and the
/// live object with it merged in.
fn strategic<'a>(
    arena: &'a Arena,
    docs: [Value<'a>; 3],
    schemas: &[&Schema],
    ty: &TypeRef,
    opts: &ClientApplyOptions,
    manifest: Value<'a>,
) -> Result<(Value<'a>, Value<'a>), Error> {
    let live = docs[2];
    let create = Op::Create3 {
        options: opts.create.clone(),
        overwrite: opts.overwrite,
    };
    let cursor = ops::resolve_type(&create, schemas, ty, &docs)?;
    let patch = ops::execute(arena, &create, &docs, cursor)
        .map_err(|e| short_conflict(e, &resource_name(manifest)))?
        .into_value();
    let merge = Op::Apply(opts.apply.clone());
    let merged = ops::execute(arena, &merge, &[live, patch], cursor)?.into_value();
    Ok((patch, merged))
}

/// kubectl's three-way JSON merge patch of `[original, modified, live]`
/// (with its preconditions when the object exists: kubectl creates a new
/// object instead of patching it) and the live object with it merged in as
/// the API server merges one.
fn merge_patch<'a>(
    arena: &'a Arena,
    [original, modified, live]: [Value<'a>; 3],
    exists: bool,
    manifest: Value<'a>,
) -> Result<(Value<'a>, Value<'a>), Error> {
    let preconditions = if exists {
        vec![
            Precondition::RequireKeyUnchanged("apiVersion".into()),
            Precondition::RequireKeyUnchanged("kind".into()),
            Precondition::RequireMetadataKeyUnchanged("name".into()),
        ]
    } else {
        Vec::new()
    };
    let patch =
        json_merge::three_way(arena, original, modified, live, &preconditions).map_err(|e| {
            let e = Error::from(e);
            // kubectl's words, with the object and the field.
            let message = format!(
                "{}: at least one of apiVersion, kind and name was changed (the patch would change \
                 or remove {}; a JSON merge patch cannot)",
                resource_name(manifest),
                e.path()
            );
            let path = e.path().to_owned();
            Error::new(e.kind(), path, message).with_source(e)
        })?;
    Ok((patch, json_merge::merge_like_go(arena, live, patch)))
}

/// The apply flow on `serde_json` values: `live` is `None` when the object
/// does not exist yet. See the [module](self) example.
pub fn client_apply_json(
    manifest: &serde_json::Value,
    live: Option<&serde_json::Value>,
    schema: &Schema,
    ty: &TypeRef,
    opts: &ClientApplyOptions,
) -> Result<ClientApplied<serde_json::Value>, Error> {
    let arena = Arena::new();
    let apply = Op::Apply(opts.apply.clone());
    let m = crate::Input::read(manifest, &arena, &apply, "manifest")?;
    let l = live
        .map(|l| crate::Input::read(l, &arena, &apply, "live"))
        .transpose()?;
    finish(run(&arena, m, l, &[schema], ty, opts)?, 0)
}

/// [`client_apply_json`] on JSON bytes: answers compact JSON bytes with
/// every number exactly as read. An empty manifest is `invalid_document`.
///
/// ```
/// use smpatch::apply_flow::{client_apply_bytes, ApplyAction, ClientApplyOptions};
/// use smpatch::TypeRef;
/// let schema = smpatch::embedded_schema().unwrap();
/// let live = br#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web",
///   "annotations":{"kubectl.kubernetes.io/last-applied-configuration":
///   "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":1}}"}},
///   "spec":{"replicas":1}}"#;
/// let manifest = br#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
///   "spec":{"replicas":12345678901234567890}}"#;
/// let out = client_apply_bytes(manifest, Some(live), schema, &TypeRef::Detect,
///     &ClientApplyOptions::default()).unwrap();
/// assert!(out.warning.is_none());
/// assert_eq!(out.action, ApplyAction::Configured);
/// assert_eq!(out.resource, "deployment.apps/web");
/// let patch = String::from_utf8(out.patch).unwrap();
/// assert!(patch.contains(r#""spec":{"replicas":12345678901234567890}"#));
/// ```
pub fn client_apply_bytes(
    manifest: &[u8],
    live: Option<&[u8]>,
    schema: &Schema,
    ty: &TypeRef,
    opts: &ClientApplyOptions,
) -> Result<ClientApplied<Vec<u8>>, Error> {
    let apply = Op::Apply(opts.apply.clone());
    // One arena chunk for the two documents, the annotation and both
    // results (sized as a three-way patch of manifest, manifest and live).
    let sized: [&[u8]; 3] = [manifest, manifest, live.unwrap_or_default()];
    let create = Op::Create3 {
        options: opts.create.clone(),
        overwrite: opts.overwrite,
    };
    let arena = crate::arena_for(&create, &sized);
    let m = crate::Input::read(manifest, &arena, &apply, "manifest")?;
    let l = live
        .map(|l| crate::Input::read(l, &arena, &apply, "live"))
        .transpose()?;
    // The merged object is about the live object plus the new annotation
    // (the manifest again, escaped): its buffer is reserved once.
    let merged_hint = live
        .map_or(0, <[u8]>::len)
        .saturating_add(manifest.len().saturating_mul(2));
    finish(run(&arena, m, l, &[schema], ty, opts)?, merged_hint)
}

/// The owned answer; `merged_hint` is about the merged object's size in
/// bytes (0 when unknown).
fn finish<T: Output>(r: ClientApply<'_>, merged_hint: usize) -> Result<ClientApplied<T>, Error> {
    Ok(ClientApplied {
        patch: T::from_value(&r.patch)?,
        merged: T::from_value_sized(&r.merged, merged_hint)?,
        last_applied: r.last_applied.to_owned(),
        action: r.action,
        resource: r.resource,
        warning: r.warning,
    })
}

/// A `conflict` of the three-way patch, said in a line: the object, the
/// conflicting paths and the fix. The engine's full message (with both
/// change sets) stays reachable as the error's source.
fn short_conflict(e: Error, resource: &str) -> Error {
    if e.kind() != ErrorKind::Patch(PatchErrorKind::Conflict) {
        return e;
    }
    let paths = conflict_paths(e.message()).unwrap_or_else(|| {
        if e.path().is_empty() {
            "/".to_owned()
        } else {
            e.path().to_owned()
        }
    });
    let message = format!(
        "{resource}: the manifest changes fields that changed on the live object since the \
         last apply: {paths}; apply with overwrite (kubectl's --overwrite, the default) to \
         take the manifest's values, or copy the live values into the manifest"
    );
    let path = e.path().to_owned();
    Error::new(e.kind(), path, message).with_source(e)
}

/// The list of locations in the engine's conflict message
/// (`... current at /a, /b (use overwrite ...`).
fn conflict_paths(message: &str) -> Option<String> {
    let (_, rest) = message.split_once(" to current at ")?;
    let (list, _) = rest.split_once(" (use overwrite")?;
    Some(list.to_owned())
}

/// The object as kubectl's messages name it: `kind.group/name`, lower-case
/// kind, no group for the core API (`configmap/cfg`).
pub fn resource_name(doc: Value<'_>) -> String {
    fn s<'v>(v: Option<Value<'v>>) -> &'v str {
        v.and_then(|v| v.as_str()).unwrap_or("")
    }
    let kind = s(doc.get("kind")).to_lowercase();
    let group = s(doc.get("apiVersion"))
        .rsplit_once('/')
        .map_or("", |(g, _)| g);
    let name = s(doc.get("metadata").and_then(|m| m.get("name")));
    if group.is_empty() {
        format!("{kind}/{name}")
    } else {
        format!("{kind}.{group}/{name}")
    }
}

/// The live object's annotations as kubectl reads them: a map of strings,
/// anything else counts as none.
fn string_annotations(doc: Value<'_>) -> Option<Object<'_>> {
    doc.get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.as_object())
        .filter(|a| a.members().iter().all(|m| m.value.as_str().is_some()))
}

fn has_last_applied(live: Value<'_>) -> bool {
    string_annotations(live).is_some_and(|a| a.get(LAST_APPLIED_ANNOTATION).is_some())
}

/// The original of the three-way patch: the live object's annotation, `{}`
/// when it is absent or blank, or when the annotations are not a map of
/// strings (kubectl's `GetOriginalConfiguration` reads them through
/// `Unstructured.GetAnnotations`, which then answers none).
fn last_applied_of<'a>(
    arena: &'a Arena,
    live: Value<'a>,
    opts: &ClientApplyOptions,
) -> Result<Value<'a>, Error> {
    let text = string_annotations(live).and_then(|a| a.get(LAST_APPLIED_ANNOTATION));
    match text {
        Some(Value::String(text)) if !text.trim().is_empty() => {
            let popts = parse_options(opts.create.max_depth);
            let v = parse_json(arena, text.as_bytes(), &popts).map_err(|e| {
                let message =
                    format!("the live object's {LAST_APPLIED_ANNOTATION} annotation: {e}");
                Error::new(ErrorKind::Parse(e.kind), LAST_APPLIED_POINTER, message).with_source(e)
            })?;
            check_object(v, LAST_APPLIED_ANNOTATION).map_err(|e| e.relocated(LAST_APPLIED_POINTER))
        }
        _ => Ok(Value::empty_object()),
    }
}

/// `obj` with member `key` set to `value` (appended when absent) or removed
/// (`None`).
fn with_member<'a>(
    arena: &'a Arena,
    obj: Object<'a>,
    key: &'a str,
    value: Option<Value<'a>>,
) -> Value<'a> {
    let mut members: Vec<Member<'a>> = Vec::with_capacity(obj.len() + 1);
    let mut found = false;
    for m in obj.members() {
        if m.key == key {
            found = true;
            if let Some(v) = value {
                members.push(Member { key, value: v });
            }
        } else {
            members.push(*m);
        }
    }
    if let (false, Some(v)) = (found, value) {
        members.push(Member { key, value: v });
    }
    Value::object_from_members(arena, &members)
}

/// `doc` with `metadata.annotations[LAST_APPLIED_ANNOTATION]` set to `value`
/// or removed. Like kubectl (`GetModifiedConfiguration` through
/// `Unstructured`'s `GetAnnotations`), annotations that are absent, not an
/// object, or hold a value that is not a string become `{}` before that.
fn set_last_applied<'a>(arena: &'a Arena, doc: Value<'a>, value: Option<Value<'a>>) -> Value<'a> {
    let root = doc.as_object().unwrap_or_default();
    let meta = root
        .get("metadata")
        .and_then(|m| m.as_object())
        .unwrap_or_default();
    let annotations = string_annotations(doc).unwrap_or_default();
    let annotations = with_member(arena, annotations, LAST_APPLIED_ANNOTATION, value);
    let meta = with_member(arena, meta, "annotations", Some(annotations));
    with_member(arena, root, "metadata", Some(meta))
}

/// `manifest` with `metadata.namespace` set to the live object's when it has
/// none (kubectl sets the namespace it applies to before computing the
/// last-applied configuration).
fn with_live_namespace<'a>(arena: &'a Arena, manifest: Value<'a>, live: Value<'a>) -> Value<'a> {
    let meta = manifest.get("metadata").and_then(|m| m.as_object());
    let has_ns = meta
        .and_then(|m| m.get("namespace"))
        .and_then(|n| n.as_str())
        .is_some_and(|n| !n.is_empty());
    let live_ns = live
        .get("metadata")
        .and_then(|m| m.get("namespace"))
        .filter(|n| n.as_str().is_some_and(|n| !n.is_empty()));
    match (meta, has_ns, live_ns, manifest.as_object()) {
        (Some(meta), false, Some(ns), Some(root)) => {
            let meta = with_member(arena, meta, "namespace", Some(ns));
            with_member(arena, root, "metadata", Some(meta))
        }
        _ => manifest,
    }
}
