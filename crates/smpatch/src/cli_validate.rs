//! The CLI's union work: `smpatch validate` and the `--normalize-unions`
//! step of `smpatch patch`.
//!
//! `validate` prints every union (KEP-1027, rules V1–V5) and enum
//! (KEP-2887) violation of every document of a file as written (no
//! normalization: `patch --normalize-unions` shows what a server would
//! store), judged against the
//! matching document of `--old` when given (matched by apiVersion, kind,
//! namespace and name; otherwise the document counts as created). Exit
//! status: 0 clean, 1 violations, 2 any other error.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use smpatch_schema::{Cursor, Schema};
use smpatch_value::{Arena, Value};

use crate::engine::{self, ParseOptions};
use crate::input::{check_object, looks_like_json, resolve_cursor};
use crate::unions::{normalize_and_validate, PipelineError, UnionOptions, Violation};
use crate::{Error, TypeRef};

/// Output of `smpatch validate`.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ValidateOutput {
    /// One line per violation: `FILE#DOC KIND/NAME POINTER: MESSAGE [RULE]`.
    Text,
    /// `{"valid": BOOL, "documents": [{"index", "apiVersion", "kind", "name", "violations": [{"path", "rule", "message"}]}]}`.
    Json,
}

/// `smpatch validate -f FILE [--old FILE] [-o text|json]`.
#[derive(Args)]
pub(crate) struct ValidateArgs {
    /// The documents to validate (JSON or YAML, several YAML documents allowed; `-` = stdin).
    #[arg(short = 'f', long = "filename", value_name = "FILE|-")]
    file: PathBuf,
    /// The stored objects the documents replace: decides which discriminators changed.
    #[arg(long = "old", value_name = "FILE")]
    old: Option<PathBuf>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "text")]
    output: ValidateOutput,
    /// Extra schema: OpenAPI v2/v3 JSON, CRD YAML, or a directory of them (repeatable).
    #[arg(long = "schema", value_name = "FILE|DIR")]
    schemas: Vec<PathBuf>,
    /// The type to use instead of apiVersion/kind: a definition name or a GVK.
    #[arg(long = "type-name", value_name = "NAME|GVK")]
    type_name: Option<String>,
    /// Do not report violations the old object already had at the same place.
    #[arg(long)]
    ratcheting: bool,
    /// Do not check strings against their schema's enum.
    #[arg(long)]
    no_enums: bool,
}

struct Fail(String);

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        let path = if e.path.is_empty() { "/" } else { &e.path };
        Fail(format!("{path}: {} [{}]", e.message, e.kind))
    }
}

fn read(path: &PathBuf) -> Result<Vec<u8>, Fail> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut buf)
            .map_err(|e| Fail(format!("stdin: {e}")))?;
        return Ok(buf);
    }
    std::fs::read(path).map_err(|e| Fail(format!("{}: {e}", path.display())))
}

fn documents<'a>(arena: &'a Arena, bytes: &'a [u8], name: &str) -> Result<Vec<Value<'a>>, Fail> {
    let opts = ParseOptions::default();
    let docs = if looks_like_json(bytes) {
        vec![engine::parse_json(arena, bytes, &opts)
            .map_err(|e| Fail(format!("{name}:{}:{}: {}", e.line, e.column, e.message)))?]
    } else {
        let text =
            std::str::from_utf8(bytes).map_err(|e| Fail(format!("{name}: not UTF-8: {e}")))?;
        engine::parse_yaml_docs(arena, text, &opts, name)
            .map_err(|e| Fail(format!("{name}: {} [{}]", e.message, e.kind)))?
            .into_iter()
            .filter(|d| !d.is_null())
            .collect()
    };
    docs.into_iter()
        .map(|d| check_object(d, name).map_err(|e| Fail(format!("{name}: {}", e.message))))
        .collect()
}

type Key = [String; 4];

fn key(doc: &Value<'_>) -> Key {
    let s = |v: Option<Value<'_>>| v.and_then(|v| v.as_str()).unwrap_or("").to_owned();
    let meta = doc.get("metadata");
    [
        s(doc.get("apiVersion")),
        s(doc.get("kind")),
        s(meta.and_then(|m| m.get("namespace"))),
        s(meta.and_then(|m| m.get("name"))),
    ]
}

/// Runs `smpatch validate`; returns the exit status.
pub(crate) fn validate(a: &ValidateArgs) -> i32 {
    match run(a) {
        Ok(clean) => i32::from(!clean),
        Err(Fail(m)) => {
            eprintln!("error: {m}");
            2
        }
    }
}

fn run(a: &ValidateArgs) -> Result<bool, Fail> {
    let name = a.file.display().to_string();
    let bytes = read(&a.file)?;
    let old_bytes = a.old.as_ref().map(read).transpose()?;
    let mut user = Vec::new();
    for p in &a.schemas {
        user.push(engine::load_schema_path(p)?);
    }
    let mut refs: Vec<&Schema> = user.iter().collect();
    refs.push(engine::embedded_schema()?);
    let ty = match &a.type_name {
        Some(n) if n.contains('/') => TypeRef::Gvk(n.clone()),
        Some(n) => TypeRef::Definition(n.clone()),
        None => TypeRef::Detect,
    };
    let opts = UnionOptions {
        ratcheting: a.ratcheting,
        check_enums: !a.no_enums,
        ..UnionOptions::default()
    };
    let arena = Arena::new();
    let docs = documents(&arena, &bytes, &name)?;
    let olds = match (&old_bytes, &a.old) {
        (Some(b), Some(p)) => documents(&arena, b, &p.display().to_string())?,
        _ => Vec::new(),
    };
    let mut clean = true;
    let mut text = String::new();
    let mut json_docs = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let k = key(doc);
        let old = olds
            .iter()
            .find(|o| key(o) == k)
            .or(if olds.len() == 1 && docs.len() == 1 {
                olds.first()
            } else {
                None
            })
            .copied();
        let cursor: Cursor<'_> = resolve_cursor(&refs, &ty, &[*doc])
            .map_err(|e| Fail(format!("{name}#{i}: {}", Fail::from(e).0)))?;
        let found = found_violations(old, *doc, cursor, &opts)
            .map_err(|e| Fail(format!("{name}#{i}: {}", Fail::from(e).0)))?;
        clean &= found.is_empty();
        let what = format!("{}/{}", k[1], k[3]);
        for v in &found {
            let path = if v.path.is_empty() { "/" } else { &v.path };
            text.push_str(&format!(
                "{name}#{i} {what} {path}: {} [{}]\n",
                v.message, v.rule
            ));
        }
        json_docs.push(serde_json::json!({
            "index": i, "apiVersion": k[0], "kind": k[1], "name": k[3],
            "violations": found.iter().map(|v| serde_json::json!({
                "path": v.path, "rule": v.rule.name(), "message": v.message})).collect::<Vec<_>>(),
        }));
    }
    match a.output {
        ValidateOutput::Text => print!("{text}"),
        ValidateOutput::Json => println!(
            "{}",
            serde_json::json!({"valid": clean, "documents": json_docs})
        ),
    }
    Ok(clean)
}

/// The violations of the document as written, judged against `old`
/// (`None` = created): `old` decides which discriminators changed and,
/// with `--ratcheting`, which violations were already there.
fn found_violations(
    old: Option<Value<'_>>,
    doc: Value<'_>,
    cursor: Cursor<'_>,
    opts: &UnionOptions,
) -> Result<Vec<Violation>, Error> {
    smpatch_union_normalize::validate(old, doc, cursor, opts)
        .map_err(|e| Error::new(e.kind.name(), e.path, e.message))
}

/// `smpatch patch --normalize-unions`: normalizes the merged `merged`
/// against the input `live` and validates it. On violations, the message
/// lists every one (one per line).
pub(crate) fn normalize_patched<'a>(
    arena: &'a Arena,
    live: Value<'a>,
    merged: Value<'a>,
    cursor: Cursor<'_>,
) -> Result<Value<'a>, String> {
    match normalize_and_validate(arena, Some(live), merged, cursor, &UnionOptions::default()) {
        Ok(n) => Ok(n.value),
        Err(PipelineError::Patch(e)) => Err(Fail::from(e).0),
        Err(PipelineError::Invalid(v)) => {
            let mut m = format!(
                "the patched object breaks {} union/enum rule{}:",
                v.len(),
                if v.len() == 1 { "" } else { "s" }
            );
            for x in &v {
                m.push_str(&format!("\n  {x}"));
            }
            Err(m)
        }
    }
}
