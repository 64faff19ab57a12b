//! The engine flags every command that merges or diffs takes, in one place:
//! `--schema`, `--type-name`, `--fix-quirks` and `--compound-keys`
//! (`--max-depth` is global). Flattened into each subcommand so they spell
//! and mean the same everywhere.

use crate::SchemaArgs;
use clap::Args;

/// Engine flags shared by `patch`, `diff` and `apply`.
#[derive(Args)]
pub(crate) struct EngineArgs {
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Turn on the fixes for the reference's quirks (see docs/QUIRKS.md and
    /// docs/DIVERGENCES.md).
    #[arg(long)]
    pub fix_quirks: bool,
    /// Lists with both a patch merge key and `x-kubernetes-list-map-keys`
    /// merge by the list-map keys (see docs/DIVERGENCES.md).
    #[arg(long)]
    pub compound_keys: bool,
}
