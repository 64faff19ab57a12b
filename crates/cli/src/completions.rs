//! The command's description as clap builds it at run time: the
//! `--version` text naming the embedded Kubernetes schema, and
//! `smpatch completions SHELL`, which prints a completion script generated
//! by `clap_complete` from that same description.

use crate::Cli;
use clap::CommandFactory;
use clap_complete::Shell;
use std::io::Write;

/// `smpatch 0.1.0 (Kubernetes v1.37.0 schema embedded)`, without the name
/// (clap prints it).
fn version() -> &'static str {
    // Built once per process; the description needs a `'static` text.
    Box::leak(
        format!(
            "{} (Kubernetes {} API schema embedded)",
            env!("CARGO_PKG_VERSION"),
            smpatch_schema::EMBEDDED_VERSION
        )
        .into_boxed_str(),
    )
}

/// The full command description, version text included.
pub(crate) fn command() -> clap::Command {
    Cli::command().version(version())
}

/// Writes the completion script for `shell` to `out`.
pub(crate) fn write(shell: Shell, out: &mut impl Write) -> std::io::Result<()> {
    let mut cmd = command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "smpatch", &mut buf);
    out.write_all(&buf)?;
    out.flush()
}
