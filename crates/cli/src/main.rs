//! The `smpatch` command-line tool.
//!
//! Owns: the commands `explain`, `patch` (like `kubectl patch --local`),
//! `diff`, `apply` (the `kubectl apply` flow, offline; kubectl's warning and
//! summary lines on stderr, the flow itself is `smpatch::apply_flow`),
//! `validate` (union and enum rules, [`validate`]) and `batch` (the machine
//! interface of `smpatch::batch`), their flags, reading files with a size cap
//! and streaming results to stdout. Errors print
//! `error: <location>: <message> [kind]` on stderr, the location naming the
//! input file (and its document when it holds several) before the JSON
//! pointer (`Failure`, `input::Origin::locate`; docs/ERRORS.md), and exit
//! with status 1 (2 for `diff --exit-code`, for `validate` and for usage
//! errors); a closed stdout ends the tool quietly with 0.
//!
//! Must not: hold merge or diff logic (that lives in the engine crates,
//! reached through `smpatch::ops`).

use clap::{Args, FromArgMatches, Parser, Subcommand, ValueEnum};
use smpatch::apply_flow::{self, ApplyPatchType, ClientApplyOptions};
use smpatch::batch::{run_session_with, BatchState, SessionError};
use smpatch::ops::{self, Op};
use smpatch::{looks_like_json, ApplyOptions, CreateOptions, Error, Schema, TypeRef};
use smpatch_value::{
    parse_json, parse_yaml, write_json_pretty_to, write_yaml_to, Arena, ParseError, ParseOptions,
    Value,
};

mod completions;
mod directives;
mod engine_args;
mod fields;
mod identity;
mod input;
mod kinds;
mod rfc;
mod sort;
mod validate;
use engine_args::EngineArgs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Examples and where to read more, under `smpatch --help`.
const AFTER_HELP: &str = "\
Examples (run from the repository root; the files are in testdata/examples/
and crates/cli/testdata/):
  smpatch patch -f testdata/examples/deployment.yaml -p '{\"spec\":{\"replicas\":3}}' -o yaml
  smpatch diff testdata/examples/deployment.yaml testdata/examples/deployment-v2.yaml
  smpatch apply -f testdata/examples/deployment-v2.yaml --live testdata/examples/live.yaml
  smpatch explain deploy spec.template.spec.containers
  smpatch patch -f crates/cli/testdata/widget.yaml --schema crates/cli/testdata/crd-widget.yaml \\
    -p '{\"spec\":{\"tags\":[\"y\"]}}'      # a custom resource: pass its CRD (tags is a set: x stays)

Errors print `error: <file>: <JSON pointer>: <message> [kind]` on stderr \
(a parse error: `<file>:<line>:<column>: ...`). Exit status: 0 success, 1 error, \
2 usage error; `diff --exit-code`: 0 no changes, 1 changes, 2 error; \
`validate`: 0 clean, 1 violations, 2 error. Error kinds: docs/ERRORS.md; \
differences from the Go reference: docs/DIVERGENCES.md; the batch protocol: \
README.md, \"Batch mode\".";

/// `smpatch batch --help`: the protocol in brief (README.md, "Batch mode",
/// has all of it).
const BATCH_HELP: &str = "\
Machine interface: one JSON request per stdin line, one JSON response per \
stdout line, in order; a bad request answers an error and the session goes on.

Request:  {\"id\": ANY, \"op\": \"apply\"|\"create2\"|\"create3\"|\"conflicts\"|\"compose\"|\"normalize\"|\"validate\"|\"fields\"|\"extract\"|\"owners\",
           \"original\": JSON, \"patch\": JSON, \"modified\": JSON, \"current\": JSON (or \"*_text\": \"JSON or YAML\"),
           \"schema\": {\"file\": PATH, \"definition\": NAME} | {\"builtin\": \"apps/v1/Deployment\"} | {\"none\": true},
           \"options\": {\"fix_quirks\": false, \"patch_type\": \"strategic\"|\"merge\"|\"auto\", ...}}
Response: {\"id\": ANY, \"ok\": JSON}
       or {\"id\": ANY, \"error\": {\"kind\": \"...\", \"path\": \"/json/pointer\", \"message\": \"...\"}}

Example:
  echo '{\"id\":1,\"op\":\"apply\",\"schema\":{\"builtin\":\"v1/ConfigMap\"},\"original\":{\"data\":{\"a\":\"1\"}},\"patch\":{\"data\":{\"b\":\"2\"}}}' | smpatch batch

--max-depth N: every request's depth limit, and the most its \"options\": {\"max_depth\"} may ask for (without the flag: 256, and a request may raise its own).

Every member and option: README.md, \"Batch mode\"; error kinds: docs/ERRORS.md.";

/// `smpatch apply --help`: the three documents of the flow.
const APPLY_HELP: &str = "\
The `kubectl apply` flow offline: three-way patch of MANIFEST against LIVE.

The three-way patch is computed from: original = LIVE's \
kubectl.kubernetes.io/last-applied-configuration annotation (empty when \
absent, with kubectl's warning), modified = MANIFEST, current = LIVE. Fields \
dropped from the manifest since the last apply are deleted; fields only the \
live object has are kept. stdout: the new live objects (or, with --show-patch, \
the patches); stderr: kubectl's `KIND/NAME configured|unchanged|created` lines.

The patch is a strategic merge patch (--type strategic, the default): what \
kubectl sends for the built-in Kubernetes types. For custom resources and any \
kind it has no Go type for, kubectl computes a three-way JSON merge patch \
(RFC 7386; kubernetes/kubernetes#58414) instead: --type merge does the same \
(no schema needed, lists replaced whole, no conflict check), and --type auto \
chooses per object as kubectl does (strategic for the built-in types of the \
embedded schema, merge for the rest; a kubectl that cannot read the cluster's \
OpenAPI also merges CustomResourceDefinition and APIService objects).";

/// `smpatch patch --help` examples (run from the repository root).
const PATCH_EXAMPLES: &str = "\
Examples (run from the repository root):
  smpatch patch -f testdata/examples/deployment.yaml -p '{\"spec\":{\"replicas\":3}}' -o yaml
  smpatch patch -f testdata/examples/deployment.yaml --patch-file testdata/examples/patch.yaml -o yaml
  smpatch patch -f testdata/examples/deployment.yaml --type json -p '[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":3}]'
  smpatch patch -f crates/cli/testdata/widget.yaml --schema crates/cli/testdata/crd-widget.yaml -p '{\"spec\":{\"tags\":[\"y\"]}}'

A patch that starts with { or [ is JSON (quote its keys); YAML patches in block style also work. \
Directives: $patch, $retainKeys, $setElementOrder/FIELD, $deleteFromPrimitiveList/FIELD.";

/// `smpatch diff --help` examples.
const DIFF_EXAMPLES: &str = "\
Examples (run from the repository root):
  smpatch diff testdata/examples/deployment.yaml testdata/examples/deployment-v2.yaml -o yaml
  smpatch diff --type merge testdata/examples/deployment.yaml testdata/examples/deployment-v2.yaml
  smpatch diff --exit-code testdata/examples/deployment.yaml testdata/examples/deployment.yaml";

/// `smpatch apply --help` examples.
const APPLY_EXAMPLES: &str = "\
Examples (run from the repository root):
  smpatch apply -f testdata/examples/deployment-v2.yaml --live testdata/examples/live.yaml -o yaml
  smpatch apply -f testdata/examples/deployment-v2.yaml --live testdata/examples/live.yaml --show-patch -o yaml
  kubectl get deploy web -o yaml > live.yaml && smpatch apply -f manifest.yaml --live live.yaml
  # a custom resource as kubectl applies it (three-way JSON merge patch, no schema needed):
  smpatch apply --type merge -f crates/cli/testdata/widget-v2.yaml --live crates/cli/testdata/widget-live.yaml";

/// `smpatch explain --help` examples.
const EXPLAIN_EXAMPLES: &str = "\
Examples:
  smpatch explain deploy spec.template.spec.containers
  smpatch explain v1/Service spec.ports
  smpatch explain Widget spec --schema crates/cli/testdata/crd-widget.yaml";

/// `smpatch validate --help` examples.
const VALIDATE_EXAMPLES: &str = "\
Examples (run from the repository root):
  smpatch validate -f testdata/unions/k8s/plc-limited.yaml -o json
  smpatch validate -f testdata/unions/k8s/pod-seccomp.yaml --old testdata/unions/k8s/pod-seccomp.yaml -o json
  (testdata/unions/k8s/flowschemas.yaml has violations: one line each, exit 1)";

/// `smpatch fields --help` examples.
const FIELDS_EXAMPLES: &str = "\
Examples (run from the repository root):
  smpatch fields -f testdata/examples/deployment.yaml -o paths
  smpatch fields -f crates/cli/testdata/fields-live.yaml --shape update";

/// `smpatch extract --help` examples.
const EXTRACT_EXAMPLES: &str = "\
Examples (run from the repository root):
  smpatch extract -f crates/cli/testdata/fields-live.yaml --manager orders-operator
  smpatch extract -f crates/cli/testdata/fields-live.yaml --manager scaler --subresource status -o json
  kubectl get deploy web -o yaml --show-managed-fields | smpatch extract -f - --manager NAME";

/// `smpatch owners --help` examples.
const OWNERS_EXAMPLES: &str = "\
Examples (run from the repository root):
  smpatch owners -f crates/cli/testdata/fields-live.yaml
  kubectl get deploy web -o yaml --show-managed-fields | smpatch owners -f -";

/// The annotation `kubectl apply` keeps the last applied configuration in.
const LAST_APPLIED: &str = apply_flow::LAST_APPLIED_ANNOTATION;

#[derive(Parser)]
#[command(
    name = "smpatch",
    version,
    about = "Kubernetes strategic merge patch: apply, diff and explain, offline",
    long_about = "Kubernetes strategic merge patch, compatible with the Go reference.\n\n\
        Types come from the documents' apiVersion/kind, looked up in the embedded \
        Kubernetes API schema and in every --schema (OpenAPI v2/v3 JSON or CRD YAML).",
    after_help = AFTER_HELP,
    after_long_help = AFTER_HELP
)]
struct Cli {
    #[command(flatten)]
    limits: Limits,
    #[command(subcommand)]
    command: Command,
}

/// Limits of every command (also accepted after the command name); listed
/// last, under their own heading, in every command's help.
#[derive(Args, Clone, Copy)]
#[command(next_help_heading = "Limits (every command)")]
struct Limits {
    /// Deepest nesting accepted in documents and by the engines [default:
    /// 256]. For `batch`: every request's limit, and the most a request's
    /// `options.max_depth` may ask for (without the flag, requests default
    /// to 256 and may raise their own).
    #[arg(long, global = true, value_name = "N")]
    max_depth: Option<usize>,
    /// Largest input file (or stdin, or batch request line) read, in bytes
    /// (the default is 512 MiB).
    #[arg(long, global = true, value_name = "BYTES", default_value_t = smpatch::batch::DEFAULT_MAX_LINE_BYTES)]
    max_input_bytes: usize,
}

impl Limits {
    /// The depth limit: `--max-depth`, or the default.
    fn max_depth(&self) -> usize {
        self.max_depth.unwrap_or(smpatch::DEFAULT_MAX_DEPTH)
    }

    fn parse_options(&self) -> ParseOptions {
        ParseOptions::default()
            .with_max_depth(self.max_depth())
            .with_max_input_bytes(self.max_input_bytes)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Patch documents offline, like `kubectl patch --local -o json`.
    #[command(after_help = PATCH_EXAMPLES)]
    Patch(PatchArgs),
    /// Print the patch that turns ORIGINAL into MODIFIED.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff(DiffArgs),
    /// The `kubectl apply` flow offline: three-way patch of MANIFEST against LIVE.
    #[command(long_about = APPLY_HELP, after_help = APPLY_EXAMPLES)]
    Apply(ApplyArgs),
    /// Print the patch metadata of a type or a field path
    /// (`smpatch explain apps/v1/Deployment spec.template.spec.volumes`).
    #[command(after_help = EXPLAIN_EXAMPLES)]
    Explain(ExplainArgs),
    /// Report every union (KEP-1027) and enum (KEP-2887) violation of every document
    /// (exit 0 clean, 1 violations, 2 other errors).
    #[command(after_help = VALIDATE_EXAMPLES)]
    Validate(validate::ValidateArgs),
    /// Print the server-side apply field set (FieldsV1) of each document (KEP-2155).
    #[command(after_help = FIELDS_EXAMPLES)]
    Fields(fields::FieldsArgs),
    /// Print the apply configuration a field manager owns in a live object (KEP-2155).
    #[command(after_help = EXTRACT_EXAMPLES)]
    Extract(fields::ExtractArgs),
    /// Print which field managers own each path of a live object.
    #[command(after_help = OWNERS_EXAMPLES)]
    Owners(fields::OwnersArgs),
    /// Machine interface: one JSON request per stdin line, one JSON response per stdout line.
    #[command(long_about = BATCH_HELP)]
    Batch,
    /// Print a shell completion script (`smpatch completions bash > ~/.local/share/bash-completion/completions/smpatch`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Args)]
struct SchemaArgs {
    /// Extra schema: OpenAPI v2/v3 JSON, CRD YAML, or a directory of them (repeatable).
    #[arg(long = "schema", value_name = "FILE|DIR")]
    schemas: Vec<PathBuf>,
    /// The type to use instead of apiVersion/kind: a definition name, a GVK (apps/v1/Deployment),
    /// a kind or a kubectl short name (Deployment, deploy).
    #[arg(long = "type-name", value_name = "NAME|GVK")]
    type_name: Option<String>,
}

#[derive(Args)]
struct ExplainArgs {
    /// Extra schema: OpenAPI v2/v3 JSON, CRD YAML, or a directory of them (repeatable).
    #[arg(long = "schema", value_name = "FILE|DIR")]
    schemas: Vec<PathBuf>,
    /// A definition name, a GVK (apps/v1/Deployment, v1/Pod), a kind
    /// (Deployment), its plural or a kubectl short name (deploy, svc, po).
    #[arg(value_name = "TYPE")]
    type_name: String,
    /// A dotted field path (spec.template.spec.volumes).
    #[arg(value_name = "PATH")]
    path: Option<String>,
    /// Show the merge as `patch --fix-quirks` does it.
    #[arg(long)]
    fix_quirks: bool,
    /// Show the merge as `patch --compound-keys` does it.
    #[arg(long)]
    compound_keys: bool,
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

/// `smpatch apply --type`: the three-way patch kubectl computes.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum ApplyType {
    /// Strategic merge patch: kubectl's choice for the built-in Kubernetes types.
    Strategic,
    /// Three-way RFC 7386 JSON merge patch: kubectl's choice for custom resources
    /// (no schema needed; lists replaced whole).
    Merge,
    /// Per object, as kubectl chooses: strategic for the built-in Kubernetes
    /// types (the embedded schema), merge for every other kind.
    Auto,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Output {
    /// kubectl's `-o json` layout.
    Json,
    /// YAML.
    Yaml,
}

#[derive(Args)]
// Exactly one of -p and --patch-file: clap's error names both.
#[command(group(clap::ArgGroup::new("patch_source").required(true).args(["patch", "patch_file"])))]
struct PatchArgs {
    /// The objects to patch: JSON or YAML files (several documents and
    /// `kind: List` allowed), directories of them, `-` = stdin (repeatable).
    #[arg(
        short = 'f',
        long = "filename",
        value_name = "FILE|DIR|-",
        required = true
    )]
    files: Vec<PathBuf>,
    /// Process the directories given with -f recursively.
    #[arg(short = 'R', long)]
    recursive: bool,
    /// The patch, inline (JSON or YAML; with --type json, a list of
    /// operations). Give it or --patch-file.
    #[arg(short = 'p', long = "patch", value_name = "PATCH")]
    patch: Option<String>,
    /// The patch, from a file.
    #[arg(long = "patch-file", value_name = "FILE")]
    patch_file: Option<PathBuf>,
    /// The patch format.
    #[arg(long = "type", value_enum, default_value = "strategic")]
    patch_type: PatchType,
    #[command(flatten)]
    engine: EngineArgs,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "json")]
    output: Output,
    /// Sort object keys at every level, as `kubectl -o json|yaml` prints them.
    #[arg(long)]
    sort_keys: bool,
    /// Run the server pipeline: normalize unions against the input object, then validate unions and enums.
    #[arg(long)]
    normalize_unions: bool,
    /// With --normalize-unions: the options of the union pass, as for `validate`.
    #[command(flatten)]
    unions: validate::UnionArgs,
}

#[derive(Args)]
struct DiffArgs {
    /// The original document: a JSON or YAML file holding one document,
    /// `-` = stdin.
    #[arg(value_name = "ORIGINAL")]
    original: PathBuf,
    /// The modified document: a JSON or YAML file holding one document,
    /// `-` = stdin.
    #[arg(value_name = "MODIFIED")]
    modified: PathBuf,
    /// The patch format to print.
    #[arg(long = "type", value_enum, default_value = "strategic")]
    patch_type: PatchType,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "json")]
    output: Output,
    /// Sort object keys at every level, as `kubectl -o json|yaml` prints them.
    #[arg(long)]
    sort_keys: bool,
    #[command(flatten)]
    engine: EngineArgs,
    /// Exit 0 when the patch is empty, 1 when it is not, 2 on error.
    #[arg(long)]
    exit_code: bool,
    /// Diff documents of different kinds, names or namespaces.
    #[arg(long)]
    force: bool,
}

#[derive(Args)]
struct ApplyArgs {
    /// The new configuration (JSON or YAML; several documents and `kind: List` allowed;
    /// `-` = stdin).
    #[arg(short = 'f', long = "filename", value_name = "MANIFEST")]
    manifest: PathBuf,
    /// The live object(s), as `kubectl get -o yaml` prints them (one object, several
    /// documents or a `kind: List`; `-` = stdin).
    #[arg(long = "live", value_name = "LIVE")]
    live: PathBuf,
    /// Overwrite changes made on the server since the last apply (`--overwrite=false` makes them conflicts).
    #[arg(long, value_name = "BOOL", default_value_t = true, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    overwrite: bool,
    /// Print the three-way patch instead of the new live object (with
    /// `-o yaml`, a comment names each patch's object).
    #[arg(long)]
    show_patch: bool,
    /// The three-way patch: strategic (built-in types), merge (RFC 7386, as
    /// kubectl applies custom resources) or auto (kubectl's choice per object).
    #[arg(long = "type", value_enum, default_value = "strategic")]
    patch_type: ApplyType,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "json")]
    output: Output,
    #[command(flatten)]
    engine: EngineArgs,
}

/// A CLI failure: where and what. Printed as `error: <location>: <message>`;
/// a closed stdout is no failure to report (the reader went away).
struct Failure {
    location: String,
    message: String,
    closed_output: bool,
}

impl Failure {
    fn at(location: impl Into<String>, message: impl Into<String>) -> Self {
        Failure {
            location: location.into(),
            message: message.into(),
            closed_output: false,
        }
    }

    /// A failed write to stdout: quiet when the pipe was closed.
    fn output(e: &std::io::Error) -> Self {
        Failure {
            closed_output: e.kind() == std::io::ErrorKind::BrokenPipe,
            ..Failure::at("stdout", e.to_string())
        }
    }

    /// Prints `error: <location>: <message>` (just `error: <message>` when
    /// the failure has no location) on stderr.
    fn report(&self) {
        if self.location.is_empty() {
            eprintln!("error: {}", self.message);
        } else {
            eprintln!("error: {}: {}", self.location, self.message);
        }
    }

    /// An input longer than `--max-input-bytes`.
    fn too_large(name: &str, limit: usize) -> Self {
        Failure::at(
            name,
            format!(
                "the input is larger than the limit of {limit} bytes (raise it with \
                 --max-input-bytes) [too_large]"
            ),
        )
    }

    /// An error about the object from `origin`: located by the file, then
    /// its document number when the file holds several, then the JSON
    /// pointer, under `/items/K` for a `kind: List` item (`live.yaml:
    /// /spec/replicas`, `all.yaml: document 2 of 3: /spec/replicas`,
    /// `list.yaml: /items/1/spec/replicas`), as `patch` locates them.
    fn in_object(e: Error, origin: &input::Origin) -> Self {
        let f = Failure::from(e);
        Failure::at(origin.locate(&f.location), f.message)
    }

    /// A parse error of `name`: located by line and column.
    fn parse(e: ParseError, name: &str) -> Self {
        let location = format!("{name}:{}:{}", e.line, e.column);
        let kind = smpatch::ErrorKind::Parse(e.kind).name();
        let hint = if e.kind == smpatch::ParseErrorKind::TooDeep {
            MAX_DEPTH_HINT
        } else {
            ""
        };
        Failure::at(location, format!("{}{hint} [{kind}]", e.message))
    }

    /// A file (or stdin) that cannot be opened or read: `name: cannot
    /// read: <the system's reason> [io]`, as the schema loader says it.
    fn unreadable(name: &str, e: &std::io::Error) -> Self {
        Failure::at(name, format!("cannot read: {e} [io]"))
    }

    /// Input that is not UTF-8 text: located by the line and column of the
    /// first bad byte, like a parse error.
    fn not_utf8(e: &std::str::Utf8Error, bytes: &[u8], name: &str) -> Self {
        let good = &bytes[..e.valid_up_to()];
        let line = 1 + good.iter().filter(|&&b| b == b'\n').count();
        let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = 1 + String::from_utf8_lossy(&good[line_start..]).chars().count();
        Failure::at(
            format!("{name}:{line}:{column}"),
            format!(
                "not UTF-8 text (invalid byte at offset {}); save the file as UTF-8 \
                 [invalid_document]",
                e.valid_up_to()
            ),
        )
    }
}

impl From<Error> for Failure {
    /// `<path>: <message> [kind]`; a `validation` error lists its
    /// violations one per line.
    fn from(e: Error) -> Self {
        let location = if e.path().is_empty() {
            "/".to_owned()
        } else {
            e.path().to_owned()
        };
        let v = e.violations();
        if !v.is_empty() {
            let mut m = format!(
                "the patched object breaks {} union/enum rule{}:",
                v.len(),
                if v.len() == 1 { "" } else { "s" }
            );
            for x in v {
                m.push_str(&format!("\n  {x}"));
            }
            return Failure::at(location, format!("{m}\n[{}]", e.name()));
        }
        let mut message = e.message().to_owned();
        if e.name() == "unknown_type" {
            if e.is_untyped_document() {
                // The library names the Rust `TypeRef` forms; say the flag.
                message = format!(
                    "{}; add them, or name the type with --type-name NAME|GVK \
                     (apps/v1/Deployment, deploy)",
                    smpatch::Error::UNTYPED_DOCUMENT
                );
            } else {
                message.push_str(UNKNOWN_TYPE_HINT);
            }
        }
        // The schema loader's depth limit is not --max-depth.
        if e.name() == "too_deep" && !matches!(e.kind(), smpatch::ErrorKind::Schema(_)) {
            message.push_str(MAX_DEPTH_HINT);
        }
        Failure::at(location, format!("{message} [{}]", e.name()))
    }
}

/// What the CLI adds to a `too_deep` error of a document or an engine.
const MAX_DEPTH_HINT: &str = " (raise the limit with --max-depth N if the input is trusted)";

/// What the CLI adds to a `not_a_schema` error: an object given to
/// `--schema` instead of `-f`, most likely.
const NOT_A_SCHEMA_HINT: &str = " (--schema takes CRDs and OpenAPI documents; \
    the objects themselves go to -f)";

/// `f` with, for an `unknown_type` error of `patch` or `diff`, the patch
/// type that needs no schema: kubectl itself uses a JSON merge patch for
/// custom resources (kubernetes/kubernetes#58414).
fn merge_type_hint(mut f: Failure) -> Failure {
    if let Some(message) = f.message.strip_suffix(" [unknown_type]") {
        f.message = format!(
            "{message}; or use --type merge, which needs no schema (kubectl's choice for \
             custom resources) [unknown_type]"
        );
    }
    f
}

/// `f` with, for an `unknown_type` error of `apply`, the patch type that
/// needs no schema: `kubectl apply` computes a three-way JSON merge patch
/// for kinds it has no Go type for (kubernetes/kubernetes#58414).
fn apply_merge_hint(mut f: Failure) -> Failure {
    if let Some(message) = f.message.strip_suffix(" [unknown_type]") {
        f.message = format!(
            "{message}; or use --type merge, which needs no schema (the three-way JSON merge \
             patch kubectl applies custom resources with) [unknown_type]"
        );
    }
    f
}

/// What the CLI adds to an `unknown_type` error: the flags that fix it.
const UNKNOWN_TYPE_HINT: &str = " (--schema FILE adds a CRD or OpenAPI document; \
    --type-name NAME|GVK names the type)";

/// Runs the tool with the process arguments; returns the exit status.
fn main() {
    std::process::exit(run());
}

fn run() -> i32 {
    let parsed = completions::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // clap's convention: 2 for usage errors, 0 for --help and --version.
            return e.exit_code();
        }
    };
    // `diff --exit-code` and `validate` use 1 for "differences" /
    // "violations", so their errors exit 2.
    let diff_exit_code = matches!(&cli.command, Command::Diff(d) if d.exit_code)
        || matches!(&cli.command, Command::Validate(_));
    let limits = cli.limits;
    let result = match cli.command {
        Command::Explain(a) => explain(&a, &limits),
        Command::Patch(a) => patch(&a, &limits),
        Command::Diff(a) => diff(&a, &limits),
        Command::Apply(a) => apply(&a, &limits),
        Command::Validate(a) => validate::validate(&a, &limits),
        Command::Fields(a) => fields::fields(&a, &limits),
        Command::Extract(a) => fields::extract_cmd(&a, &limits),
        Command::Owners(a) => fields::owners_cmd(&a, &limits),
        Command::Completions { shell } => completions::write(shell, &mut std::io::stdout().lock())
            .map(|()| 0)
            .map_err(|e| Failure::output(&e)),
        Command::Batch => {
            let mut state = BatchState::with_max_line_bytes(limits.max_input_bytes);
            if let Some(depth) = limits.max_depth {
                state.set_max_depth(depth);
            }
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            run_session_with(&mut state, stdin, stdout)
                .map(|()| 0)
                .map_err(|e| match e {
                    SessionError::Read(e) => Failure::at("stdin", e.to_string()),
                    SessionError::Write(e) => Failure::output(&e),
                })
        }
    };
    match result {
        Ok(code) => code,
        Err(f) if f.closed_output => 0,
        Err(f) => {
            f.report();
            if diff_exit_code {
                2
            } else {
                1
            }
        }
    }
}

/// Reads a file (`-` = stdin), refusing it as soon as it passes
/// `--max-input-bytes`: at most `limit + 1` bytes are ever read.
fn read_input(path: &Path, limits: &Limits) -> Result<Vec<u8>, Failure> {
    let name = path.display().to_string();
    let limit = limits.max_input_bytes;
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut buf = Vec::new();
    if name == "-" {
        std::io::stdin()
            .lock()
            .take(cap)
            .read_to_end(&mut buf)
            .map_err(|e| Failure::unreadable("stdin", &e))?;
    } else {
        let file = std::fs::File::open(path).map_err(|e| Failure::unreadable(&name, &e))?;
        if let Ok(meta) = file.metadata() {
            if meta.is_file() && meta.len() >= cap {
                return Err(Failure::too_large(&name, limit));
            }
            if meta.is_file() {
                buf.reserve(usize::try_from(meta.len()).unwrap_or(0));
            }
        }
        file.take(cap)
            .read_to_end(&mut buf)
            .map_err(|e| Failure::unreadable(&name, &e))?;
    }
    if buf.len() > limit {
        return Err(Failure::too_large(&name, limit));
    }
    Ok(buf)
}

/// Writes the results to stdout, streaming each document.
fn write_results(docs: &[Value<'_>], output: Output) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    docs.iter()
        .enumerate()
        .try_for_each(|(i, d)| render(&mut out, d, output, i))
        .and_then(|()| out.flush())
        .map_err(|e| Failure::output(&e))
}

fn write_text(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Failure::output(&e))
}

/// Every document of `bytes`: one JSON document when the text looks like
/// JSON (kubectl's sniffing: it starts with `{` or `[`), else the documents
/// of a YAML stream.
///
/// Text that looks like JSON but is YAML flow style (`{spec: {replicas:
/// 3}}`) is read as YAML with `read_flow_yaml` (the RFC 6902 patch of
/// `--type json`, which kubectl reads that way too); otherwise it is
/// refused as kubectl refuses it (`invalid JSON document`), with the JSON
/// parser's position and a hint to quote it or write block YAML.
fn parse_texts<'a>(
    arena: &'a Arena,
    bytes: &'a [u8],
    name: &str,
    limits: &Limits,
    read_flow_yaml: bool,
) -> Result<Vec<Value<'a>>, Failure> {
    let opts = limits.parse_options();
    let yaml = |text: &'a str| parse_yaml(arena, text, &opts);
    if looks_like_json(bytes) {
        return match parse_json(arena, bytes, &opts) {
            Ok(v) => Ok(vec![v]),
            Err(e)
                if e.kind == smpatch::ParseErrorKind::Syntax
                    || (read_flow_yaml && yaml_may_read(e.kind)) =>
            {
                match std::str::from_utf8(bytes).ok().map(yaml) {
                    Some(Ok(docs)) if read_flow_yaml => Ok(docs),
                    Some(Ok(_)) => {
                        let mut f = Failure::parse(e, name);
                        if let Some((message, kind)) = f.message.rsplit_once(" [") {
                            f.message = format!("{message}{FLOW_YAML_HINT} [{kind}");
                        }
                        Err(f)
                    }
                    _ => Err(Failure::parse(e, name)),
                }
            }
            Err(e) => Err(Failure::parse(e, name)),
        };
    }
    let text = std::str::from_utf8(bytes).map_err(|e| Failure::not_utf8(&e, bytes, name))?;
    yaml(text).map_err(|e| Failure::parse(e, name))
}

/// Whether a JSON error of this kind leaves YAML a chance to read the
/// text (kubectl reads an RFC 6902 patch as YAML whatever its JSON
/// error; a limit the input broke is final either way).
fn yaml_may_read(kind: smpatch::ParseErrorKind) -> bool {
    use smpatch::ParseErrorKind as K;
    !matches!(
        kind,
        K::TooDeep | K::TooLarge | K::StringTooLong | K::InvalidUtf8
    )
}

/// What the CLI adds to a JSON syntax error in text that is valid YAML flow
/// style: kubectl reads text starting with `{` or `[` as JSON only.
const FLOW_YAML_HINT: &str = " (text that starts with { or [ is read as JSON, as kubectl \
    reads it; quote the keys and strings, or write the YAML in block style)";

/// Every document of a JSON or YAML stream, each an object (or `null`,
/// read as `{}`); empty YAML documents are skipped.
fn parse_stream<'a>(
    arena: &'a Arena,
    bytes: &'a [u8],
    name: &str,
    limits: &Limits,
) -> Result<Vec<Value<'a>>, Failure> {
    objects_of(input::parse_documents(arena, bytes, name, limits)?, name)
}

/// `docs` checked to be objects, a failure naming the document otherwise.
fn objects_of<'a>(docs: Vec<Value<'a>>, name: &str) -> Result<Vec<Value<'a>>, Failure> {
    let count = docs.len();
    docs.into_iter()
        .enumerate()
        .map(|(i, d)| {
            input::as_object(d).map_err(|message| {
                if count > 1 {
                    Failure::at(format!("{name}: document {} of {count}: /", i + 1), message)
                } else {
                    Failure::at(name, message)
                }
            })
        })
        .collect()
}

/// The objects of a JSON or YAML stream with their origins, every `kind:
/// List` replaced by its items ([`input::objects_in`]): the objects of
/// `apply`, `validate`, `fields`, `extract` and `owners`, read as kubectl
/// reads `-f` (a `kubectl get -o yaml` of several objects is a `List`).
/// These commands stop at their first error: every document or list item
/// that is not an object is reported, and the last one is the `Err`.
fn parse_objects<'a>(
    arena: &'a Arena,
    bytes: &'a [u8],
    name: &str,
    limits: &Limits,
) -> Result<Vec<input::Object<'a>>, Failure> {
    let docs = input::parse_documents(arena, bytes, name, limits)?;
    let (mut objects, mut failures) = (Vec::new(), Vec::new());
    input::objects_in(docs, name, &mut objects, &mut failures);
    match failures.pop() {
        None => Ok(objects),
        Some(last) => {
            failures.iter().for_each(Failure::report);
            Err(last)
        }
    }
}

fn parse_one<'a>(
    arena: &'a Arena,
    bytes: &'a [u8],
    name: &str,
    limits: &Limits,
) -> Result<Value<'a>, Failure> {
    one_object(parse_stream(arena, bytes, name, limits)?, name)
}

/// A strategic merge patch (`-p` or `--patch-file`): one object, JSON or
/// YAML ([`parse_texts`]).
fn parse_patch_object<'a>(
    arena: &'a Arena,
    bytes: &'a [u8],
    name: &str,
    limits: &Limits,
) -> Result<Value<'a>, Failure> {
    let docs = input::parse_documents(arena, bytes, name, limits)?;
    one_object(objects_of(docs, name)?, name)
}

/// The one document of `docs` (`{}` when there is none).
fn one_object<'a>(mut docs: Vec<Value<'a>>, name: &str) -> Result<Value<'a>, Failure> {
    match docs.len() {
        0 => Ok(Value::empty_object()),
        1 => Ok(docs.remove(0)),
        n => Err(Failure::at(
            name,
            format!("expected one document, found {n} [invalid_document]"),
        )),
    }
}

/// A strategic merge patch that is a list is most likely an RFC 6902 JSON
/// patch given without `--type json`, and one that is a scalar a
/// `kubectl set`-style argument (`spec.replicas=3`): say so.
fn json_patch_hint(f: Failure) -> Failure {
    const NOT_OBJECT: &str = "the document must be an object, found ";
    let Some(rest) = f.message.strip_prefix(NOT_OBJECT) else {
        return f;
    };
    let (found, tail) = match rest.split_once(' ') {
        Some((found, tail)) => (found, format!(" {tail}")),
        None => (rest, String::new()),
    };
    let hint = if found == "list" {
        "a list of operations is an RFC 6902 JSON patch: pass --type json"
    } else {
        "a patch is an object, e.g. -p '{\"spec\":{\"replicas\":3}}'"
    };
    Failure {
        message: format!("{NOT_OBJECT}{found} ({hint}){tail}"),
        ..f
    }
}

/// The `--schema` files layered over the embedded schema
/// ([`smpatch::schema_set_with`]), every file read no further than
/// `--max-input-bytes`; none without `--schema` (the embedded schema is
/// then used as it is).
fn load_schemas(paths: &[PathBuf], limits: &Limits) -> Result<Vec<Schema>, Failure> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let opts = smpatch::LoadOptions::default().with_max_input_bytes(limits.max_input_bytes);
    let set = smpatch::schema_set_with(paths, &opts).map_err(|e| {
        let not_a_schema = e.name() == "not_a_schema";
        let mut f = input::once(Failure::from(e));
        // `file#` (the whole document) reads better as `file`.
        if let Some(file) = f.location.strip_suffix('#') {
            f.location = file.to_owned();
        }
        if not_a_schema {
            if let Some((message, kind)) = f.message.rsplit_once(" [") {
                f.message = format!("{message}{NOT_A_SCHEMA_HINT} [{kind}");
            }
        }
        f
    })?;
    Ok(vec![set])
}

/// User schemas first, then the embedded one.
fn schema_refs(user: &[Schema]) -> Result<Vec<&Schema>, Failure> {
    let mut refs: Vec<&Schema> = user.iter().collect();
    refs.push(smpatch::embedded_schema()?);
    Ok(refs)
}

/// The type `--type-name` names, written as for `explain`: a definition
/// name, a GVK, or a kind, its plural or a kubectl short name
/// (`Deployment`, `deploy`; [`kinds::resolve`]). A name that resolves to
/// nothing is passed on as it is, for the engine's `unknown_type` error.
fn type_ref(args: &SchemaArgs, refs: &[&Schema]) -> TypeRef {
    let Some(given) = &args.type_name else {
        return TypeRef::Detect;
    };
    let name = kinds::resolve(refs, given).unwrap_or_else(|_| given.clone());
    if name.contains('/') {
        TypeRef::Gvk(name)
    } else {
        TypeRef::Definition(name)
    }
}

/// Writes document `index` of the output: kubectl's JSON layout, or YAML
/// documents separated by `---`; always ends with a newline.
fn render(
    out: &mut impl Write,
    v: &Value<'_>,
    output: Output,
    index: usize,
) -> std::io::Result<()> {
    match output {
        Output::Json => write_json_pretty_to(out, v),
        Output::Yaml => {
            if index > 0 {
                out.write_all(b"---\n")?;
            }
            let mut last = LastByte {
                inner: out,
                last: None,
            };
            write_yaml_to(&mut last, v)?;
            if last.last != Some(b'\n') {
                out.write_all(b"\n")?;
            }
            Ok(())
        }
    }
}

/// A writer that remembers the last byte written.
struct LastByte<'w, W: Write> {
    inner: &'w mut W,
    last: Option<u8>,
}

impl<W: Write> Write for LastByte<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn explain(a: &ExplainArgs, limits: &Limits) -> Result<i32, Failure> {
    let user = load_schemas(&a.schemas, limits)?;
    let refs = schema_refs(&user)?;
    let name = kinds::resolve(&refs, &a.type_name).map_err(|m| Failure::at(&a.type_name, m))?;
    let schema = refs
        .iter()
        .find(|s| s.cursor(&name).is_some())
        .copied()
        .ok_or_else(|| Failure::at(&a.type_name, "no schema defines this type"))?;
    let rules = smpatch_schema::Rules {
        fix_quirks: a.fix_quirks,
        compound_keys: a.compound_keys,
    };
    let mut text =
        smpatch_schema::explain_with(schema, &name, a.path.as_deref(), rules).map_err(|e| {
            Failure::at(
                a.path.as_deref().unwrap_or(&a.type_name),
                format!("{} [{}]", e.message, e.kind_name()),
            )
        })?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    write_text(&text)?;
    Ok(0)
}

fn patch(a: &PatchArgs, limits: &Limits) -> Result<i32, Failure> {
    let (patch_bytes, patch_name) = match (&a.patch, &a.patch_file) {
        (Some(p), _) => (p.clone().into_bytes(), "--patch".to_owned()),
        (None, Some(f)) => (read_input(f, limits)?, f.display().to_string()),
        (None, None) => return Err(Failure::at("--patch", "give -p PATCH or --patch-file FILE")),
    };
    if a.normalize_unions && a.patch_type != PatchType::Strategic {
        return Err(Failure::at(
            "--normalize-unions",
            "works with --type strategic only",
        ));
    }
    if let (false, Some(flag)) = (a.normalize_unions, a.unions.given()) {
        return Err(Failure::at(
            flag,
            "is an option of the union pass: it works with --normalize-unions only",
        ));
    }
    if patch_bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Failure::at(
            patch_name,
            "the patch is empty: give its contents with -p or --patch-file",
        ));
    }
    let files = input::expand_paths(&a.files, a.recursive)?;
    let user = load_schemas(&a.engine.schema.schemas, limits)?;
    let arena = Arena::new();
    let (objects, failures) = input::read_objects(&arena, &files, limits);
    if objects.is_empty() && failures.is_empty() {
        return Err(Failure::at("", "no objects passed to patch"));
    }
    let total = objects.len() + failures.len();
    let mut results = Vec::with_capacity(objects.len());
    let mut failed = failures.len();
    failures.iter().for_each(Failure::report);
    let mut fail = |f: Failure| {
        f.report();
        failed += 1;
    };
    match a.patch_type {
        PatchType::Strategic => {
            let p = parse_patch_object(&arena, &patch_bytes, &patch_name, limits)
                .map_err(json_patch_hint)?;
            for s in directives::suspects(p) {
                eprintln!("warning: {patch_name}: {}: {}", s.pointer, s.message);
            }
            let refs = schema_refs(&user)?;
            let ty = type_ref(&a.engine.schema, &refs);
            let apply = ApplyOptions::default()
                .with_fix_quirks(a.engine.fix_quirks)
                .with_compound_keys(a.engine.compound_keys)
                .with_max_depth(limits.max_depth());
            let op = if a.normalize_unions {
                Op::ServerApply {
                    apply,
                    unions: a.unions.options(limits.max_depth()),
                }
            } else {
                Op::Apply(apply)
            };
            for obj in &objects {
                match ops::run(&arena, &op, &[obj.value, p], &refs, &ty) {
                    Ok(r) => results.push(r.into_value()),
                    Err(e) => {
                        let f = merge_type_hint(Failure::from(e));
                        let at = obj.origin.locate(&f.location);
                        fail(Failure::at(at, f.message));
                    }
                }
            }
        }
        PatchType::Merge | PatchType::Json => {
            let p = parse_patch_any(
                &arena,
                &patch_bytes,
                &patch_name,
                limits,
                a.patch_type == PatchType::Json,
            )?;
            if a.patch_type == PatchType::Json && !p.is_array() {
                // Once, not once per object.
                return Err(Failure::at(
                    patch_name,
                    format!(
                        "an RFC 6902 JSON patch is a list of operations, found {} (an object \
                         is a strategic merge patch, the default, or --type merge) \
                         [invalid_document]",
                        p.kind().name()
                    ),
                ));
            }
            if a.patch_type == PatchType::Merge && !p.is_object() {
                // kubectl refuses merge patches that are not objects.
                return Err(Failure::at(
                    &patch_name,
                    format!(
                        "a merge patch must be an object, found {} [invalid_document]",
                        p.kind().name()
                    ),
                ));
            }
            for obj in &objects {
                if a.patch_type == PatchType::Merge {
                    results.push(smpatch::json_merge::merge_like_go(&arena, obj.value, p));
                    continue;
                }
                match rfc::json_patch(&arena, obj.value, p) {
                    Ok(v) => results.push(v),
                    Err(f) => {
                        let at = format!("{patch_name}: {}", f.pointer);
                        let at = if total <= 1 {
                            at
                        } else {
                            format!("{}: {at}", obj.origin.label())
                        };
                        fail(Failure::at(
                            at,
                            format!("{} [json_patch_failed]", f.message),
                        ));
                    }
                }
            }
        }
    }
    if a.sort_keys {
        results = results
            .into_iter()
            .map(|r| sort::sort_keys(&arena, r))
            .collect();
    }
    write_results(&results, a.output)?;
    Ok(i32::from(failed > 0))
}

/// A merge or JSON patch: parsed without the object check (a JSON patch
/// is a list); YAML flow style is read for a JSON patch (`json_patch`), as
/// kubectl reads it.
fn parse_patch_any<'a>(
    arena: &'a Arena,
    bytes: &'a [u8],
    name: &str,
    limits: &Limits,
    json_patch: bool,
) -> Result<Value<'a>, Failure> {
    let docs = parse_texts(arena, bytes, name, limits, json_patch)?;
    match docs.as_slice() {
        [one] => Ok(*one),
        _ => Err(Failure::at(
            name,
            format!(
                "expected one document, found {} [invalid_document]",
                docs.len()
            ),
        )),
    }
}

fn diff(a: &DiffArgs, limits: &Limits) -> Result<i32, Failure> {
    if a.original.as_os_str() == "-" && a.modified.as_os_str() == "-" {
        return Err(Failure::at(
            "-",
            "stdin can be read once: give ORIGINAL or MODIFIED as a file",
        ));
    }
    let (ob, mb) = (
        read_input(&a.original, limits)?,
        read_input(&a.modified, limits)?,
    );
    let arena = Arena::new();
    let o = parse_one(&arena, &ob, &a.original.display().to_string(), limits)?;
    let m = parse_one(&arena, &mb, &a.modified.display().to_string(), limits)?;
    if let (false, Some(message)) = (a.force, identity::mismatch(&o, &m)) {
        return Err(Failure::at(a.modified.display().to_string(), message));
    }
    let patch = match a.patch_type {
        PatchType::Strategic => {
            let user = load_schemas(&a.engine.schema.schemas, limits)?;
            let refs = schema_refs(&user)?;
            let op = Op::Create2(
                CreateOptions::default()
                    .with_fix_quirks(a.engine.fix_quirks)
                    .with_compound_keys(a.engine.compound_keys)
                    .with_max_depth(limits.max_depth()),
            );
            ops::run(
                &arena,
                &op,
                &[o, m],
                &refs,
                &type_ref(&a.engine.schema, &refs),
            )
            .map_err(|e| {
                // The pointer holds in both documents: name the pair.
                let f = merge_type_hint(Failure::from(e));
                let pair = format!("{} -> {}", a.original.display(), a.modified.display());
                Failure::at(format!("{pair}: {}", f.location), f.message)
            })?
            .into_value()
        }
        PatchType::Merge => smpatch::json_merge::two_way(&arena, o, m),
        PatchType::Json => rfc::json_diff(&arena, o, m),
    };
    let empty = match patch {
        Value::Object(o) => o.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    };
    let patch = if a.sort_keys {
        sort::sort_keys(&arena, patch)
    } else {
        patch
    };
    write_results(&[patch], a.output)?;
    Ok(if a.exit_code && !empty { 1 } else { 0 })
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

/// The live object `manifest` is applied to. A manifest without a namespace
/// takes the one kubectl would use: the matching live object's (`default`
/// preferred when several namespaces hold it). Two live objects that
/// could both be the one (the same identity, which no cluster holds, or
/// several namespaces other than `default` for a manifest without one) are
/// an error naming both, rather than a silent pick.
fn find_live<'a, 'b>(
    lives: &'b [input::Object<'a>],
    manifest: &input::Object<'a>,
) -> Result<Option<&'b input::Object<'a>>, Failure> {
    let key = object_key(&manifest.value);
    let one = |found: Vec<&'b input::Object<'a>>, why: &str| match found.as_slice() {
        [a, b, ..] => Err(Failure::at(
            manifest.origin.locate(""),
            format!(
                "{} and {} are both {}/{}{why}: keep one in the live objects \
                 [invalid_document]",
                a.origin.label(),
                b.origin.label(),
                key.1,
                key.3,
            ),
        )),
        found => Ok(found.first().copied()),
    };
    let exact: Vec<_> = lives
        .iter()
        .filter(|l| object_key(&l.value) == key)
        .collect();
    if !exact.is_empty() || !key.2.is_empty() {
        return one(exact, "");
    }
    let same: Vec<_> = lives
        .iter()
        .filter(|l| {
            let k = object_key(&l.value);
            (&k.0, &k.1, &k.3) == (&key.0, &key.1, &key.3)
        })
        .collect();
    let default: Vec<_> = same
        .iter()
        .copied()
        .filter(|l| object_key(&l.value).2 == "default")
        .collect();
    if !default.is_empty() {
        return one(default, " in namespace default");
    }
    one(
        same,
        " in other namespaces than default (the manifest names none; add \
         metadata.namespace to it)",
    )
}

fn apply(a: &ApplyArgs, limits: &Limits) -> Result<i32, Failure> {
    if a.manifest.as_os_str() == "-" && a.live.as_os_str() == "-" {
        return Err(Failure::at(
            "-",
            "stdin can be read once: give -f or --live as a file",
        ));
    }
    let (mb, lb) = (
        read_input(&a.manifest, limits)?,
        read_input(&a.live, limits)?,
    );
    let arena = Arena::new();
    let manifest_name = a.manifest.display().to_string();
    let live_name = a.live.display().to_string();
    let manifests = parse_objects(&arena, &mb, &manifest_name, limits)?;
    if manifests.is_empty() {
        // kubectl's words for an empty manifest.
        return Err(Failure::at(&manifest_name, "no objects passed to apply"));
    }
    let lives = parse_objects(&arena, &lb, &live_name, limits)?;
    let user = load_schemas(&a.engine.schema.schemas, limits)?;
    let refs = schema_refs(&user)?;
    let ty = type_ref(&a.engine.schema, &refs);
    let opts = ClientApplyOptions::default()
        .overwrite(a.overwrite)
        .create_options(
            CreateOptions::default()
                .with_fix_quirks(a.engine.fix_quirks)
                .with_compound_keys(a.engine.compound_keys),
        )
        .apply_options(
            ApplyOptions::default()
                .with_fix_quirks(a.engine.fix_quirks)
                .with_compound_keys(a.engine.compound_keys),
        )
        .max_depth(limits.max_depth());
    let mut results = Vec::with_capacity(manifests.len());
    let mut labels = Vec::new();
    for (i, manifest) in manifests.iter().enumerate() {
        // auto: kubectl's choice per object (ApplyPatchType::resolve, from
        // the manifest's type in the embedded schema).
        let patch_type = match a.patch_type {
            ApplyType::Strategic => ApplyPatchType::Strategic,
            ApplyType::Merge => ApplyPatchType::Merge,
            ApplyType::Auto => ApplyPatchType::Auto,
        };
        let opts = opts.clone().patch_type(patch_type);
        let live = find_live(&lives, manifest)?;
        let applied = apply_flow::run(
            &arena,
            manifest.value,
            live.map(|l| l.value),
            &refs,
            &ty,
            &opts,
        )
        .map_err(|e| {
            if let (Some(l), true) = (live, e.path().starts_with(apply_flow::LAST_APPLIED_POINTER))
            {
                Failure::at(
                    format!("{}: {LAST_APPLIED}", l.origin.label()),
                    format!("{} [{}]", e.message(), e.name()),
                )
            } else {
                apply_merge_hint(Failure::in_object(e, &manifest.origin))
            }
        })?;
        // kubectl's warning and summary line, on stderr so that stdout stays
        // the objects (or patches) alone.
        let mut note = String::new();
        if let Some(w) = &applied.warning {
            note.push_str(&format!("{w}\n"));
        }
        note.push_str(&format!("{} {}", applied.resource, applied.action));
        if a.show_patch {
            note.push_str(&format!(
                " (three-way patch: stdout document {} of {})",
                i + 1,
                manifests.len()
            ));
        }
        let _ = writeln!(std::io::stderr().lock(), "{note}");
        if a.show_patch {
            // The manifest's own document (and List item), not the
            // object's place among the flattened items.
            let o = &manifest.origin;
            let item = if o.items.is_empty() {
                String::new()
            } else {
                let path: Vec<String> = o.items.iter().map(usize::to_string).collect();
                format!(", item {}", path.join("/"))
            };
            labels.push(format!(
                "# three-way patch for {} ({manifest_name} document {} of {}{item})\n",
                applied.resource, o.document, o.documents
            ));
            results.push(applied.patch);
        } else {
            results.push(applied.merged);
        }
    }
    if a.show_patch && a.output == Output::Yaml {
        // YAML can say which patch is which in a comment; JSON stays bare
        // patches (the stderr lines name them in order).
        let mut out = std::io::stdout().lock();
        return results
            .iter()
            .zip(&labels)
            .enumerate()
            .try_for_each(|(i, (d, label))| {
                if i > 0 {
                    out.write_all(b"---\n")?;
                }
                out.write_all(label.as_bytes())?;
                render(&mut out, d, Output::Yaml, 0)
            })
            .and_then(|()| out.flush())
            .map(|()| 0)
            .map_err(|e| Failure::output(&e));
    }
    write_results(&results, a.output)?;
    Ok(0)
}
