//! CLI commands for field sets and apply configurations (KEP-2155):
//! `smpatch fields`, `smpatch extract`, `smpatch owners`. A child module of
//! the CLI (it uses the CLI's input, schema and output helpers); the work
//! goes through `smpatch::ops` (`Op::Fields`, `Op::Extract`).

use super::{
    load_schemas, parse_objects, read_input, schema_refs, type_ref, write_results, write_text,
    Failure, Limits, Output, SchemaArgs,
};
use clap::{Args, ValueEnum};
use smpatch::fieldsets::{
    ApiCheck, ExtractOptions, FieldsOptions, MissingEntry, Owner, PathElement,
};
use smpatch::ops::{self, Op, Outcome};
use smpatch_value::Arena;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(super) enum FieldsOutput {
    /// Canonical FieldsV1 JSON, one line per document (as the API server stores it).
    Json,
    /// One path per line (`f:spec.f:ports.k:{"port":80,"protocol":"TCP"}.f:name`); a `\` or
    /// control character in a field name is escaped as in JSON (`f:a\nb`), so each path is one line.
    Paths,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(super) enum Shape {
    /// What the server records for an applier that sent the document.
    Apply,
    /// What an Update that created the document records (every node a member).
    Update,
}

#[derive(Args)]
pub(super) struct FieldsArgs {
    /// The documents (JSON or YAML, several documents and `kind: List` allowed; `-` = stdin).
    #[arg(short = 'f', long = "filename", value_name = "FILE|-")]
    file: PathBuf,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "json")]
    output: FieldsOutput,
    /// Which entry shape to compute.
    #[arg(long, value_enum, default_value = "apply")]
    shape: Shape,
    #[command(flatten)]
    schema: SchemaArgs,
}

#[derive(Args)]
pub(super) struct ExtractArgs {
    /// The live object(s) with metadata.managedFields (`kubectl get -o yaml
    /// --show-managed-fields`; several documents and `kind: List` allowed; `-` = stdin).
    #[arg(short = 'f', long = "filename", value_name = "LIVE|-")]
    file: PathBuf,
    /// The field manager whose Apply entry is extracted.
    #[arg(long, value_name = "NAME")]
    manager: String,
    /// The subresource of the entry (status, scale, …); the main resource when absent.
    #[arg(long, value_name = "S", default_value = "", hide_default_value = true)]
    subresource: String,
    /// Output format (YAML, ready for `kubectl apply --server-side -f -`).
    #[arg(short = 'o', long = "output", value_enum, default_value = "yaml")]
    output: Output,
    /// Fail when the entry was recorded for another apiVersion than the object's (KEP-2155).
    #[arg(long)]
    strict_api_version: bool,
    /// Reproduce client-go's output (nulls for emptied nodes, no error for a missing entry).
    #[arg(long)]
    reference: bool,
    /// Also copy the key fields of every kept keyed list item (`name` of a container) when the
    /// manager does not own them (batch `include_key_fields`).
    #[arg(long)]
    include_key_fields: bool,
    #[command(flatten)]
    schema: SchemaArgs,
}

#[derive(Args)]
pub(super) struct OwnersArgs {
    /// The live object(s) with metadata.managedFields (`kubectl get -o yaml
    /// --show-managed-fields`; several documents and `kind: List` allowed; `-` = stdin).
    #[arg(short = 'f', long = "filename", value_name = "LIVE|-")]
    file: PathBuf,
}

pub(super) fn fields(a: &FieldsArgs, limits: &Limits) -> Result<i32, Failure> {
    let input = read_input(&a.file, limits)?;
    let user = load_schemas(&a.schema.schemas, limits)?;
    let refs = schema_refs(&user)?;
    let arena = Arena::new();
    let name = a.file.display().to_string();
    let docs = parse_objects(&arena, &input, &name, limits)?;
    no_objects(&docs, &name, "fields")?;
    let ty = type_ref(&a.schema, &refs);
    let mut opts = match a.shape {
        Shape::Apply => FieldsOptions::default(),
        Shape::Update => FieldsOptions {
            strip_server_fields: true,
            ..FieldsOptions::update_on_create()
        },
    };
    opts.max_depth = limits.max_depth();
    let op = Op::Fields(opts);
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        let set = match ops::run(&arena, &op, &[doc.value], &refs, &ty)
            .map_err(|e| Failure::in_object(e, &doc.origin))?
        {
            Outcome::FieldSet { set, .. } => set,
            _ => {
                return Err(Failure::at(
                    &name,
                    "the fields operation answered no field set",
                ))
            }
        };
        match a.output {
            FieldsOutput::Json => {
                out.push_str(&set.to_json());
                out.push('\n');
            }
            FieldsOutput::Paths => {
                if i > 0 {
                    out.push_str("---\n");
                }
                for p in set.paths() {
                    out.push_str(&path_line(&p));
                    out.push('\n');
                }
            }
        }
    }
    write_text(&out)?;
    Ok(0)
}

pub(super) fn extract_cmd(a: &ExtractArgs, limits: &Limits) -> Result<i32, Failure> {
    let input = read_input(&a.file, limits)?;
    let user = load_schemas(&a.schema.schemas, limits)?;
    let refs = schema_refs(&user)?;
    let arena = Arena::new();
    let name = a.file.display().to_string();
    let docs = parse_objects(&arena, &input, &name, limits)?;
    no_objects(&docs, &name, "extract")?;
    let ty = type_ref(&a.schema, &refs);
    let mut opts = if a.reference {
        ExtractOptions::reference()
    } else {
        ExtractOptions::default()
    };
    opts.subresource = a.subresource.clone();
    if a.strict_api_version {
        opts.api_version_check = ApiCheck::Strict;
    }
    opts.include_key_fields = a.include_key_fields;
    if docs.len() > 1 {
        // With several objects, one without an entry is not an error.
        opts.missing_entry = MissingEntry::IdentityOnly;
    }
    opts.max_depth = limits.max_depth();
    let op = Op::Extract {
        manager: a.manager.clone(),
        options: opts,
    };
    let mut results = Vec::with_capacity(docs.len());
    for doc in &docs {
        let r = ops::run(&arena, &op, &[doc.value], &refs, &ty).map_err(|e| {
            let missing = e.name() == "no_apply_entry";
            let mut f = Failure::in_object(e, &doc.origin);
            if let Some(hint) = missing
                .then(|| managers_hint(&doc.value, &a.manager))
                .flatten()
            {
                if let Some((message, kind)) = f.message.rsplit_once(" [") {
                    f.message = format!("{message}; {hint} [{kind}");
                }
            }
            f
        })?;
        results.push(r.into_value());
    }
    write_results(&results, a.output)?;
    Ok(0)
}

/// What `extract` adds to `no_apply_entry` when the object has no entry
/// of `manager` at all: the managers it has (the name is most often
/// mistyped), or, when it has none, how to get them (`kubectl get -o yaml`
/// leaves managedFields out by default). `None` when `manager` has entries
/// (the error lists them).
fn managers_hint(doc: &smpatch_value::Value<'_>, manager: &str) -> Option<String> {
    let entries = doc
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .and_then(|f| f.as_array())
        .unwrap_or(&[]);
    let text = |e: &smpatch_value::Value<'_>, key: &str| {
        e.get(key).and_then(|v| v.as_str()).unwrap_or("").to_owned()
    };
    if entries.iter().any(|e| text(e, "manager") == manager) {
        return None;
    }
    let managers: Vec<String> = entries
        .iter()
        .map(|e| {
            let (manager, operation, sub) = (
                text(e, "manager"),
                text(e, "operation"),
                text(e, "subresource"),
            );
            if sub.is_empty() {
                format!("{manager:?} ({operation})")
            } else {
                format!("{manager:?} ({operation}, {sub})")
            }
        })
        .collect();
    Some(if managers.is_empty() {
        "the object has no metadata.managedFields: `kubectl get -o yaml` prints them \
         with --show-managed-fields"
            .to_owned()
    } else {
        format!("the object's managers: {}", managers.join(", "))
    })
}

/// kubectl's `no objects passed to CMD` when the input holds no document
/// (an empty file, or only `---`): an empty answer would look like success.
fn no_objects(docs: &[crate::input::Object<'_>], name: &str, cmd: &str) -> Result<(), Failure> {
    if docs.is_empty() {
        return Err(Failure::at(name, format!("no objects passed to {cmd}")));
    }
    Ok(())
}

/// A path as one line of `fields -o paths` and `owners`: its elements
/// joined by `.` as `smpatch::fieldsets::path_string` writes them, except
/// that a backslash or control character in a field name (`f:`) is written
/// as in a JSON string (`\\`, `\n`, `\t`, `\u0001`): a label key holding
/// a newline would otherwise split its path over two lines. `k:` and `v:`
/// elements are JSON already (their strings escaped).
fn path_line(path: &[PathElement]) -> String {
    let mut s = String::new();
    for (i, pe) in path.iter().enumerate() {
        if i > 0 {
            s.push('.');
        }
        match pe {
            PathElement::Field(name) => {
                s.push_str("f:");
                for c in name.chars() {
                    match c {
                        '\\' => s.push_str("\\\\"),
                        '\n' => s.push_str("\\n"),
                        '\r' => s.push_str("\\r"),
                        '\t' => s.push_str("\\t"),
                        c if c.is_control() => s.push_str(&format!("\\u{:04x}", u32::from(c))),
                        c => s.push(c),
                    }
                }
            }
            other => other.write(&mut s),
        }
    }
    s
}

fn owner_text(o: &Owner) -> String {
    if o.subresource.is_empty() {
        format!("{} ({})", o.manager, o.operation)
    } else {
        format!("{} ({}, {})", o.manager, o.operation, o.subresource)
    }
}

/// The stderr note for a document no manager owns anything of.
fn no_owners_note(at: &str) -> String {
    format!(
        "note: {at}: no field manager owns anything (no metadata.managedFields; \
         kubectl prints them with `kubectl get -o yaml --show-managed-fields`)"
    )
}

pub(super) fn owners_cmd(a: &OwnersArgs, limits: &Limits) -> Result<i32, Failure> {
    let input = read_input(&a.file, limits)?;
    let arena = Arena::new();
    let name = a.file.display().to_string();
    let docs = parse_objects(&arena, &input, &name, limits)?;
    no_objects(&docs, &name, "owners")?;
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        let rows: Vec<(String, String)> = smpatch::fieldsets::owners(&doc.value)
            .map_err(|e| Failure::in_object(smpatch::Error::from(e), &doc.origin))?
            .iter()
            .map(|(p, owners)| {
                let who: Vec<String> = owners.iter().map(owner_text).collect();
                (path_line(p), who.join(", "))
            })
            .collect();
        if rows.is_empty() {
            // A header alone would look like a bug: say why it is empty.
            eprintln!("{}", no_owners_note(&doc.origin.label()));
        }
        let width = rows
            .iter()
            .map(|(p, _)| p.chars().count())
            .chain([4])
            .max()
            .unwrap_or(4);
        out.push_str(&format!("{:<width$}  MANAGERS\n", "PATH"));
        for (p, who) in rows {
            let pad = width - p.chars().count();
            out.push_str(&p);
            out.push_str(&" ".repeat(pad + 2));
            out.push_str(&who);
            out.push('\n');
        }
    }
    write_text(&out)?;
    Ok(0)
}
