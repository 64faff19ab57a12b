//! The `smpatch` command-line tool (the binary's `main` calls [`main`]).
//!
//! Commands: `explain`, `patch` (like `kubectl patch --local`), `diff`,
//! `apply` (the `kubectl apply` flow, offline) and `batch` (the machine
//! interface of [`crate::batch`]). Errors print `error: <location>: <message>`
//! on stderr and exit with status 1 (2 for `diff --exit-code`).

use crate::engine::{self, ApplyOptions, CreateOptions, ParseOptions};
use crate::input::{check_object, looks_like_json, resolve_cursor};
use crate::{Error, TypeRef};
use clap::{Args, Parser, Subcommand, ValueEnum};
use smpatch_schema::Schema;
use smpatch_value::{from_serde, to_serde, Arena, Member, Object, Value};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

#[path = "cli_fields.rs"]
mod fields_cmd;

/// The annotation `kubectl apply` keeps the last applied configuration in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

#[derive(Parser)]
#[command(
    name = "smpatch",
    version,
    about = "Kubernetes strategic merge patch: apply, diff and explain, offline",
    long_about = "Kubernetes strategic merge patch, compatible with the Go reference.\n\n\
        Types come from the documents' apiVersion/kind, looked up in the embedded \
        Kubernetes API schema and in every --schema (OpenAPI v2/v3 JSON or CRD YAML)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the patch metadata of a type or a field path
    /// (`smpatch explain apps/v1/Deployment spec.template.spec.volumes`).
    Explain(ExplainArgs),
    /// Patch documents offline, like `kubectl patch --local -o json`.
    Patch(PatchArgs),
    /// Print the patch that turns ORIGINAL into MODIFIED.
    Diff(DiffArgs),
    /// The `kubectl apply` flow offline: three-way patch of MANIFEST against LIVE.
    Apply(ApplyArgs),
    /// Machine interface: one JSON request per stdin line, one JSON response per stdout line.
    Batch,
    /// Print the server-side apply field set (FieldsV1) of each document (KEP-2155).
    Fields(fields_cmd::FieldsArgs),
    /// Print the apply configuration a field manager owns in a live object (KEP-2155).
    Extract(fields_cmd::ExtractArgs),
    /// Print which field managers own each path of a live object.
    Owners(fields_cmd::OwnersArgs),
}

#[derive(Args)]
struct SchemaArgs {
    /// Extra schema: OpenAPI v2/v3 JSON, CRD YAML, or a directory of them (repeatable).
    #[arg(long = "schema", value_name = "FILE|DIR")]
    schemas: Vec<PathBuf>,
    /// The type to use instead of apiVersion/kind: a definition name or a GVK (apps/v1/Deployment).
    #[arg(long = "type-name", value_name = "NAME|GVK")]
    type_name: Option<String>,
}

#[derive(Args)]
struct ExplainArgs {
    /// Extra schema files or directories (repeatable).
    #[arg(long = "schema", value_name = "FILE|DIR")]
    schemas: Vec<PathBuf>,
    /// A definition name or a GVK (apps/v1/Deployment, v1/Pod).
    #[arg(value_name = "TYPE")]
    type_name: String,
    /// A dotted field path (spec.template.spec.volumes).
    #[arg(value_name = "PATH")]
    path: Option<String>,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum PatchType {
    /// Strategic merge patch (Kubernetes).
    Strategic,
    /// RFC 7386 JSON merge patch.
    Merge,
    /// RFC 6902 JSON patch.
    Json,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Output {
    /// kubectl's `-o json` layout.
    Json,
    /// YAML.
    Yaml,
}

#[derive(Args)]
struct PatchArgs {
    /// The documents to patch (JSON or YAML, several YAML documents allowed; `-` = stdin).
    #[arg(short = 'f', long = "filename", value_name = "FILE|-")]
    file: PathBuf,
    /// The patch, inline (JSON or YAML).
    #[arg(
        short = 'p',
        long = "patch",
        value_name = "PATCH",
        conflicts_with = "patch_file",
        required_unless_present = "patch_file"
    )]
    patch: Option<String>,
    /// The patch, from a file.
    #[arg(long = "patch-file", value_name = "FILE")]
    patch_file: Option<PathBuf>,
    /// The patch format.
    #[arg(long = "type", value_enum, default_value = "strategic")]
    patch_type: PatchType,
    #[command(flatten)]
    schema: SchemaArgs,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "json")]
    output: Output,
    /// Turn on the fixes for the reference's quirks (spec §10).
    #[arg(long)]
    fix_quirks: bool,
    /// Merge list-type map lists by all their list-map keys.
    #[arg(long)]
    compound_keys: bool,
}

#[derive(Args)]
struct DiffArgs {
    /// The original document.
    #[arg(value_name = "ORIGINAL")]
    original: PathBuf,
    /// The modified document.
    #[arg(value_name = "MODIFIED")]
    modified: PathBuf,
    /// The patch format to print.
    #[arg(long = "type", value_enum, default_value = "strategic")]
    patch_type: PatchType,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "json")]
    output: Output,
    #[command(flatten)]
    schema: SchemaArgs,
    /// Exit 0 when the patch is empty, 1 when it is not, 2 on error.
    #[arg(long)]
    exit_code: bool,
    /// Turn on the fixes for the reference's quirks (spec §10).
    #[arg(long)]
    fix_quirks: bool,
}

#[derive(Args)]
struct ApplyArgs {
    /// The new configuration (JSON or YAML; several documents allowed).
    #[arg(short = 'f', long = "filename", value_name = "MANIFEST")]
    manifest: PathBuf,
    /// The live object(s), as `kubectl get -o yaml` prints them.
    #[arg(long = "live", value_name = "LIVE")]
    live: PathBuf,
    /// Overwrite changes made on the server since the last apply (`--overwrite=false` makes them conflicts).
    #[arg(long, value_name = "BOOL", default_value_t = true, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    overwrite: bool,
    /// Print the three-way patch instead of the new live object.
    #[arg(long)]
    show_patch: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "json")]
    output: Output,
    #[command(flatten)]
    schema: SchemaArgs,
}

/// A CLI failure: where and what. Printed as `error: <location>: <message>`.
struct Failure {
    location: String,
    message: String,
}

impl Failure {
    fn at(location: impl Into<String>, message: impl Into<String>) -> Self {
        Failure {
            location: location.into(),
            message: message.into(),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        let location = if e.path.is_empty() {
            "/".to_owned()
        } else {
            e.path
        };
        Failure {
            location,
            message: format!("{} [{}]", e.message, e.kind),
        }
    }
}

/// Runs the tool with the process arguments; returns the exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 1 } else { 0 };
        }
    };
    let diff_exit_code = matches!(&cli.command, Command::Diff(d) if d.exit_code);
    let result = match cli.command {
        Command::Explain(a) => explain(&a),
        Command::Patch(a) => patch(&a),
        Command::Diff(a) => diff(&a),
        Command::Apply(a) => apply(&a),
        Command::Fields(a) => fields_cmd::fields(&a),
        Command::Extract(a) => fields_cmd::extract_cmd(&a),
        Command::Owners(a) => fields_cmd::owners_cmd(&a),
        Command::Batch => {
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            crate::batch::run_session(stdin, stdout)
                .map(|()| 0)
                .map_err(|e| Failure::at("stdin", e.to_string()))
        }
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            eprintln!("error: {}: {}", f.location, f.message);
            if diff_exit_code {
                2
            } else {
                1
            }
        }
    }
}

fn read_input(path: &Path) -> Result<Vec<u8>, Failure> {
    let name = path.display().to_string();
    if name == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Failure::at("stdin", e.to_string()))?;
        return Ok(buf);
    }
    std::fs::read(path).map_err(|e| Failure::at(name, e.to_string()))
}

fn write_out(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Failure::at("stdout", e.to_string()))
}

/// Every document of a JSON or YAML stream; empty YAML documents are skipped.
fn parse_stream<'a>(
    arena: &'a Arena,
    bytes: &'a [u8],
    name: &str,
) -> Result<Vec<Value<'a>>, Failure> {
    let opts = ParseOptions::default();
    let docs = if looks_like_json(bytes) {
        vec![engine::parse_json(arena, bytes, &opts).map_err(|e| {
            Failure::at(format!("{name}:{}:{}", e.line, e.column), e.message.clone())
        })?]
    } else {
        let text =
            std::str::from_utf8(bytes).map_err(|e| Failure::at(name, format!("not UTF-8: {e}")))?;
        engine::parse_yaml_docs(arena, text, &opts, name)
            .map_err(|e| Failure::at(name, format!("{} [{}]", e.message, e.kind)))?
            .into_iter()
            .filter(|d| !d.is_null())
            .collect()
    };
    docs.into_iter()
        .map(|d| check_object(d, name).map_err(|e| Failure::at(name, e.message)))
        .collect()
}

fn parse_one<'a>(arena: &'a Arena, bytes: &'a [u8], name: &str) -> Result<Value<'a>, Failure> {
    let mut docs = parse_stream(arena, bytes, name)?;
    match docs.len() {
        0 => Ok(Value::empty_object()),
        1 => Ok(docs.remove(0)),
        n => Err(Failure::at(
            name,
            format!("expected one document, found {n}"),
        )),
    }
}

fn load_schemas(paths: &[PathBuf]) -> Result<Vec<Schema>, Failure> {
    paths
        .iter()
        .map(|p| {
            engine::load_schema_path(p)
                .map_err(|e| Failure::at(p.display().to_string(), e.to_string()))
        })
        .collect()
}

/// User schemas first, then the embedded one.
fn schema_refs(user: &[Schema]) -> Result<Vec<&Schema>, Failure> {
    let mut refs: Vec<&Schema> = user.iter().collect();
    refs.push(engine::embedded_schema()?);
    Ok(refs)
}

fn type_ref(args: &SchemaArgs) -> TypeRef {
    match &args.type_name {
        Some(name) if name.contains('/') => TypeRef::Gvk(name.clone()),
        Some(name) => TypeRef::Definition(name.clone()),
        None => TypeRef::Detect,
    }
}

fn render(v: &Value<'_>, output: Output, index: usize) -> String {
    match output {
        Output::Json => {
            let mut s = engine::to_json_pretty(v);
            if !s.ends_with('\n') {
                s.push('\n');
            }
            s
        }
        Output::Yaml => {
            let mut s = String::new();
            if index > 0 {
                s.push_str("---\n");
            }
            s.push_str(&engine::to_yaml_string(v));
            if !s.ends_with('\n') {
                s.push('\n');
            }
            s
        }
    }
}

fn to_serde_doc(v: &Value<'_>) -> Result<serde_json::Value, Failure> {
    to_serde(v).map_err(|e| {
        Failure::at(
            if e.path.is_empty() {
                "/".into()
            } else {
                e.path.clone()
            },
            e.message,
        )
    })
}

fn from_serde_doc<'a>(arena: &'a Arena, v: &serde_json::Value) -> Result<Value<'a>, Failure> {
    from_serde(arena, v, 256).map_err(|e| Failure::at("/", e.message))
}

fn explain(a: &ExplainArgs) -> Result<i32, Failure> {
    let user = load_schemas(&a.schemas)?;
    let refs = schema_refs(&user)?;
    let schema = refs
        .iter()
        .find(|s| s.cursor(&a.type_name).is_some())
        .copied()
        .ok_or_else(|| Failure::at(&a.type_name, "no schema defines this type (a definition name or a GVK such as apps/v1/Deployment)"))?;
    let text = engine::explain(schema, &a.type_name, a.path.as_deref())
        .map_err(|e| Failure::at(a.path.as_deref().unwrap_or(&a.type_name), e.message))?;
    write_out(&text)?;
    if !text.ends_with('\n') {
        write_out("\n")?;
    }
    Ok(0)
}

fn patch(a: &PatchArgs) -> Result<i32, Failure> {
    let input = read_input(&a.file)?;
    let (patch_bytes, patch_name) = match (&a.patch, &a.patch_file) {
        (Some(p), _) => (p.clone().into_bytes(), "--patch".to_owned()),
        (None, Some(f)) => (read_input(f)?, f.display().to_string()),
        (None, None) => return Err(Failure::at("--patch", "give -p PATCH or --patch-file FILE")),
    };
    let user = load_schemas(&a.schema.schemas)?;
    let arena = Arena::new();
    let name = a.file.display().to_string();
    let docs = parse_stream(&arena, &input, &name)?;
    let ty = type_ref(&a.schema);
    let mut out = String::new();
    match a.patch_type {
        PatchType::Strategic => {
            let p = parse_one(&arena, &patch_bytes, &patch_name)?;
            let refs = schema_refs(&user)?;
            let opts = ApplyOptions {
                fix_quirks: a.fix_quirks,
                compound_keys: a.compound_keys,
                ..ApplyOptions::default()
            };
            for (i, doc) in docs.iter().enumerate() {
                let cursor = resolve_cursor(&refs, &ty, &[*doc])?;
                let r = engine::apply(&arena, *doc, p, cursor, &opts)?;
                out.push_str(&render(&r, a.output, i));
            }
        }
        PatchType::Merge | PatchType::Json => {
            let patch_value = parse_patch_any(&arena, &patch_bytes, &patch_name)?;
            let patch_serde = to_serde_doc(&patch_value)?;
            for (i, doc) in docs.iter().enumerate() {
                let mut target = to_serde_doc(doc)?;
                if a.patch_type == PatchType::Merge {
                    json_patch::merge(&mut target, &patch_serde);
                } else {
                    let ops: json_patch::Patch = serde_json::from_value(patch_serde.clone())
                        .map_err(|e| {
                            Failure::at(&patch_name, format!("not an RFC 6902 JSON patch: {e}"))
                        })?;
                    json_patch::patch(&mut target, &ops)
                        .map_err(|e| Failure::at("/", e.to_string()))?;
                }
                let r = from_serde_doc(&arena, &target)?;
                out.push_str(&render(&r, a.output, i));
            }
        }
    }
    write_out(&out)?;
    Ok(0)
}

/// A JSON patch is a list: parse without the object check.
fn parse_patch_any<'a>(
    arena: &'a Arena,
    bytes: &'a [u8],
    name: &str,
) -> Result<Value<'a>, Failure> {
    let opts = ParseOptions::default();
    if looks_like_json(bytes) {
        return engine::parse_json(arena, bytes, &opts).map_err(|e| {
            Failure::at(format!("{name}:{}:{}", e.line, e.column), e.message.clone())
        });
    }
    let text =
        std::str::from_utf8(bytes).map_err(|e| Failure::at(name, format!("not UTF-8: {e}")))?;
    let docs = engine::parse_yaml_docs(arena, text, &opts, name)
        .map_err(|e| Failure::at(name, format!("{} [{}]", e.message, e.kind)))?;
    match docs.as_slice() {
        [one] => Ok(*one),
        _ => Err(Failure::at(
            name,
            format!("expected one document, found {}", docs.len()),
        )),
    }
}

fn diff(a: &DiffArgs) -> Result<i32, Failure> {
    let (ob, mb) = (read_input(&a.original)?, read_input(&a.modified)?);
    let arena = Arena::new();
    let o = parse_one(&arena, &ob, &a.original.display().to_string())?;
    let m = parse_one(&arena, &mb, &a.modified.display().to_string())?;
    let patch = match a.patch_type {
        PatchType::Strategic => {
            let user = load_schemas(&a.schema.schemas)?;
            let refs = schema_refs(&user)?;
            let cursor = resolve_cursor(&refs, &type_ref(&a.schema), &[m, o])?;
            let opts = CreateOptions {
                fix_quirks: a.fix_quirks,
                ..CreateOptions::default()
            };
            engine::create_two_way(&arena, o, m, cursor, &opts)?
        }
        PatchType::Merge => {
            let d = merge_diff(&to_serde_doc(&o)?, &to_serde_doc(&m)?);
            from_serde_doc(&arena, &d)?
        }
        PatchType::Json => {
            let d = json_patch::diff(&to_serde_doc(&o)?, &to_serde_doc(&m)?);
            let v = serde_json::to_value(&d).map_err(|e| Failure::at("/", e.to_string()))?;
            from_serde_doc(&arena, &v)?
        }
    };
    let empty = match patch {
        Value::Object(o) => o.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    };
    write_out(&render(&patch, a.output, 0))?;
    Ok(if a.exit_code && !empty { 1 } else { 0 })
}

/// RFC 7386: the merge patch that turns `o` into `m`. Depth is bounded by
/// the parser's depth limit.
fn merge_diff(o: &serde_json::Value, m: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value as J;
    let (J::Object(a), J::Object(b)) = (o, m) else {
        return m.clone();
    };
    let mut out = serde_json::Map::new();
    for k in a.keys() {
        if !b.contains_key(k) {
            out.insert(k.clone(), J::Null);
        }
    }
    for (k, bv) in b {
        match a.get(k) {
            None => {
                out.insert(k.clone(), bv.clone());
            }
            Some(av) if av == bv => {}
            Some(av) if av.is_object() && bv.is_object() => {
                out.insert(k.clone(), merge_diff(av, bv));
            }
            Some(_) => {
                out.insert(k.clone(), bv.clone());
            }
        }
    }
    J::Object(out)
}

type ObjectKey = (String, String, String, String);

fn object_key(doc: &Value<'_>) -> ObjectKey {
    let s = |v: Option<Value<'_>>| v.and_then(|v| v.as_str()).unwrap_or("").to_owned();
    let meta = doc.get("metadata");
    (
        s(doc.get("apiVersion")),
        s(doc.get("kind")),
        s(meta.and_then(|m| m.get("namespace"))),
        s(meta.and_then(|m| m.get("name"))),
    )
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

/// `doc` with `metadata.annotations[LAST_APPLIED]` set to `value` or removed.
/// Like kubectl (`GetModifiedConfiguration` through `Unstructured`'s
/// `GetAnnotations`), annotations that are absent, not an object, or hold a
/// value that is not a string become `{}` before that.
fn set_last_applied<'a>(arena: &'a Arena, doc: Value<'a>, value: Option<Value<'a>>) -> Value<'a> {
    let root = doc.as_object().unwrap_or_default();
    let meta = root
        .get("metadata")
        .and_then(|m| m.as_object())
        .unwrap_or_default();
    let annotations = meta
        .get("annotations")
        .and_then(|a| a.as_object())
        .filter(|a| a.members().iter().all(|m| m.value.as_str().is_some()))
        .unwrap_or_default();
    let annotations = with_member(arena, annotations, LAST_APPLIED, value);
    let meta = with_member(arena, meta, "annotations", Some(annotations));
    with_member(arena, root, "metadata", Some(meta))
}

/// The live object `manifest` is applied to. A manifest without a namespace
/// takes the one kubectl would use: the matching live object's (`default`
/// preferred when several namespaces hold it).
fn find_live<'a>(lives: &[Value<'a>], manifest: Value<'a>) -> Option<Value<'a>> {
    let key = object_key(&manifest);
    if let Some(l) = lives.iter().find(|l| object_key(l) == key) {
        return Some(*l);
    }
    if !key.2.is_empty() {
        return None;
    }
    let same = |l: &&Value<'a>| {
        let k = object_key(l);
        (&k.0, &k.1, &k.3) == (&key.0, &key.1, &key.3)
    };
    lives
        .iter()
        .filter(same)
        .find(|l| object_key(l).2 == "default")
        .or_else(|| lives.iter().find(same))
        .copied()
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

fn apply(a: &ApplyArgs) -> Result<i32, Failure> {
    let (mb, lb) = (read_input(&a.manifest)?, read_input(&a.live)?);
    let arena = Arena::new();
    let manifests = parse_stream(&arena, &mb, &a.manifest.display().to_string())?;
    let lives = parse_stream(&arena, &lb, &a.live.display().to_string())?;
    let user = load_schemas(&a.schema.schemas)?;
    let refs = schema_refs(&user)?;
    let ty = type_ref(&a.schema);
    let opts = CreateOptions::default();
    let mut out = String::new();
    for (i, manifest) in manifests.iter().enumerate() {
        let live = find_live(&lives, *manifest).unwrap_or_else(Value::empty_object);
        let manifest = &with_live_namespace(&arena, *manifest, live);
        let original = match live
            .get("metadata")
            .and_then(|m| m.get("annotations"))
            .and_then(|an| an.get(LAST_APPLIED))
        {
            Some(Value::String(text)) if !text.trim().is_empty() => {
                let v = engine::parse_json(&arena, text.as_bytes(), &ParseOptions::default())
                    .map_err(|e| {
                        Failure::at(
                            format!("{}: {LAST_APPLIED}", a.live.display()),
                            e.to_string(),
                        )
                    })?;
                check_object(v, LAST_APPLIED)?
            }
            _ => Value::empty_object(),
        };
        let base = set_last_applied(&arena, *manifest, None);
        let mut encoded = engine::to_go_json(&base);
        encoded.push('\n');
        let modified =
            set_last_applied(&arena, base, Some(Value::String(arena.alloc_str(&encoded))));
        let cursor = resolve_cursor(&refs, &ty, &[modified, original, live])?;
        let patch =
            engine::create_three_way(&arena, original, modified, live, cursor, a.overwrite, &opts)?;
        let shown = if a.show_patch {
            patch
        } else {
            engine::apply(&arena, live, patch, cursor, &ApplyOptions::default())?
        };
        out.push_str(&render(&shown, a.output, i));
    }
    write_out(&out)?;
    Ok(0)
}
