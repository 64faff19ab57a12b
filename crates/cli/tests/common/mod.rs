//! What every CLI test program needs: the `smpatch` binary run from the
//! repository root, and the expected output in `crates/cli/testdata/`.

// Each test program uses a part of this module.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The repository root (input paths in the tests are relative to it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The expected output `crates/cli/testdata/<name>`.
pub fn expected(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("expected output {}: {e}", path.display()))
}

/// The `smpatch` binary, to run from the repository root.
pub fn smpatch() -> Command {
    let mut cmd = Command::cargo_bin("smpatch").expect("the smpatch binary");
    cmd.current_dir(root());
    cmd
}

/// Runs `smpatch args`: its exit code (`-1` when killed by a signal),
/// stdout and stderr.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = smpatch().args(args).output().expect("smpatch runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `args` and checks status and stdout against `crates/cli/testdata/<file>`.
pub fn check(args: &[&str], status: i32, file: &str) {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, status, "smpatch {args:?}: stderr {stderr}");
    assert_eq!(stdout, expected(file), "smpatch {args:?}");
}

/// Runs `args` and checks status, stdout and stderr against
/// `crates/cli/testdata/<stdout_file>` and `<stderr_file>`.
pub fn check_both(args: &[&str], status: i32, stdout_file: &str, stderr_file: &str) {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, status, "smpatch {args:?}");
    assert_eq!(stdout, expected(stdout_file), "smpatch {args:?}: stdout");
    assert_eq!(stderr, expected(stderr_file), "smpatch {args:?}: stderr");
}
