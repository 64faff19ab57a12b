//! `smpatch validate`: every union (KEP-1027, rules V1–V5) and enum
//! (KEP-2887) violation of every document of a file as written (no
//! normalization: `patch --normalize-unions` shows what a server would
//! store), judged against the matching document of `--old` when given
//! (matched by apiVersion, kind, namespace and name; otherwise the document
//! counts as created). Exit status: 0 clean, 1 violations, 2 any other
//! error.
//!
//! Must not: hold union logic (that is smpatch-union-normalize, reached
//! through `smpatch::validate_unions`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use smpatch::{Cursor, UnionOptions, Value, Violation};
use smpatch_value::Arena;

use crate::{
    load_schemas, parse_objects, read_input, schema_refs, type_ref, Failure, Limits, SchemaArgs,
};

/// Output of `smpatch validate`.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ValidateOutput {
    /// One line per violation: `FILE#DOC KIND/NAME POINTER: MESSAGE [RULE]` (DOC counts
    /// objects from 0, a `kind: List`'s items one by one).
    Text,
    /// `{"valid": BOOL, "documents": [{"index", "apiVersion", "kind", "name", "violations": [{"path", "rule", "message"}]}]}`.
    Json,
}

/// `smpatch validate -f FILE [--old FILE] [-o text|json]`.
#[derive(Args)]
pub(crate) struct ValidateArgs {
    /// The documents to validate (JSON or YAML, several documents and `kind: List` allowed;
    /// `-` = stdin).
    #[arg(short = 'f', long = "filename", value_name = "FILE|-")]
    file: PathBuf,
    /// The stored objects the documents replace: decides which discriminators changed.
    #[arg(long = "old", value_name = "FILE")]
    old: Option<PathBuf>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "text")]
    output: ValidateOutput,
    #[command(flatten)]
    schema: SchemaArgs,
    #[command(flatten)]
    unions: UnionArgs,
}

/// The options of the union pass (`smpatch::UnionOptions`), the same flags
/// for every command that runs it (`validate`, `patch --normalize-unions`),
/// named as the batch and Python options are (`--max-depth` is global).
#[derive(Args)]
pub(crate) struct UnionArgs {
    /// Do not report violations the old object already had at the same place and that did not get worse (docs/UNIONS.md).
    #[arg(long)]
    pub ratcheting: bool,
    /// Do not check values against their schema's enum (KEP-2887); the same as `--check-enums=false`.
    #[arg(long, conflicts_with = "check_enums")]
    pub no_enums: bool,
    /// Check values against their schema's enum (KEP-2887) [default: true].
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub check_enums: Option<bool>,
    /// Unions without a discriminator: when exactly one member was added, clear the others (docs/UNIONS.md).
    #[arg(long)]
    pub non_discriminated_update: bool,
}

impl UnionArgs {
    /// The union options these flags ask for, with the depth limit `max_depth`.
    pub(crate) fn options(&self, max_depth: usize) -> UnionOptions {
        UnionOptions {
            non_discriminated_update: self.non_discriminated_update,
            ratcheting: self.ratcheting,
            check_enums: !self.no_enums && self.check_enums.unwrap_or(true),
            max_depth,
        }
    }

    /// The first flag given, when any (`patch` takes them with
    /// `--normalize-unions` only).
    pub(crate) fn given(&self) -> Option<&'static str> {
        if self.ratcheting {
            Some("--ratcheting")
        } else if self.no_enums {
            Some("--no-enums")
        } else if self.check_enums.is_some() {
            Some("--check-enums")
        } else if self.non_discriminated_update {
            Some("--non-discriminated-update")
        } else {
            None
        }
    }
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

/// Runs `smpatch validate`: `Ok(0)` clean, `Ok(1)` violations.
pub(crate) fn validate(a: &ValidateArgs, limits: &Limits) -> Result<i32, Failure> {
    let name = a.file.display().to_string();
    let bytes = read_input(&a.file, limits)?;
    let old_bytes = a.old.as_ref().map(|p| read_input(p, limits)).transpose()?;
    let user = load_schemas(&a.schema.schemas, limits)?;
    let refs = schema_refs(&user)?;
    let ty = type_ref(&a.schema, &refs);
    let opts = a.unions.options(limits.max_depth());
    let arena = Arena::new();
    let docs = parse_objects(&arena, &bytes, &name, limits)?;
    if docs.is_empty() {
        // Nothing validated is not "clean": an empty or mistyped input fails.
        return Err(Failure::at(&name, "no objects passed to validate"));
    }
    let olds = match (&old_bytes, &a.old) {
        (Some(b), Some(p)) => parse_objects(&arena, b, &p.display().to_string(), limits)?,
        _ => Vec::new(),
    };
    let mut clean = true;
    let mut text = String::new();
    let mut json_docs = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let doc = &doc.value;
        let k = key(doc);
        let old = olds
            .iter()
            .find(|o| key(&o.value) == k)
            .or(if olds.len() == 1 && docs.len() == 1 {
                olds.first()
            } else {
                None
            })
            .map(|o| o.value);
        let in_doc = |e: smpatch::Error| {
            let f = Failure::from(e);
            Failure::at(format!("{name}#{i}: {}", f.location), f.message)
        };
        let cursor: Cursor<'_> = smpatch::ops::resolve_type(
            &smpatch::ops::Op::Normalize {
                options: opts.clone(),
                create: old.is_none(),
            },
            &refs,
            &ty,
            &[*doc],
        )
        .map_err(in_doc)?;
        let found: Vec<Violation> =
            smpatch::validate_unions(old, *doc, cursor, &opts).map_err(in_doc)?;
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
    let out = match a.output {
        ValidateOutput::Text => text,
        ValidateOutput::Json => format!(
            "{}\n",
            serde_json::json!({"valid": clean, "documents": json_docs})
        ),
    };
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::output(&e))?;
    Ok(i32::from(!clean))
}
