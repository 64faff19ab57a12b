//! Locating the shared reference suite (`../shared` beside the repository).
//!
//! The suite is optional outside CI: a fresh clone without it runs the
//! project's own cases, and every test that needs the suite skips itself
//! after one notice line on stderr. CI sets `SMPATCH_REQUIRE_SHARED=1`
//! (`.ci/run`), which turns a missing suite into a failure, so the suite
//! can never be skipped silently there.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// Environment variable naming the shared folder (default: `shared` beside
/// the repository root).
pub const SHARED_ENV: &str = "SMPATCH_SHARED";

/// Environment variable that, set to `1`, makes a missing shared folder a
/// failure instead of a skip.
pub const REQUIRE_ENV: &str = "SMPATCH_REQUIRE_SHARED";

/// Where the shared folder is expected: `$SMPATCH_SHARED`, else `shared`
/// beside the repository root. The folder may not exist.
pub fn shared_location() -> PathBuf {
    match std::env::var_os(SHARED_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => default_location(),
    }
}

/// `<repo>/../shared`, written without `..` so the notice reads well.
fn default_location() -> PathBuf {
    // This crate lives at `<repo>/crates/testkit`.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    match manifest.ancestors().nth(3) {
        Some(above_repo) => above_repo.join("shared"),
        None => manifest.join("../../../shared"),
    }
}

/// The notice printed when the shared folder is missing.
pub fn skip_notice(location: &Path) -> String {
    format!(
        "notice: shared reference suite not found at {}: skipped (set {SHARED_ENV})",
        location.display()
    )
}

/// The shared folder when it exists. When it does not, prints the
/// [`skip_notice`] once per process on stderr (written past the test
/// harness's output capture, so `cargo test` shows it) and returns `None`,
/// so the caller skips; but when `SMPATCH_REQUIRE_SHARED=1`, a missing
/// folder panics (a test failure).
///
/// ```no_run
/// let Some(shared) = smpatch_testkit::shared_dir() else {
///     return; // skipped, with the notice
/// };
/// let swagger = shared.join("openapi/kubernetes-v1.27.swagger.json");
/// # let _ = swagger;
/// ```
pub fn shared_dir() -> Option<PathBuf> {
    let location = shared_location();
    if location.is_dir() {
        return Some(location);
    }
    let required = std::env::var_os(REQUIRE_ENV).is_some_and(|v| v == "1");
    assert!(
        !required,
        "shared reference suite not found at {} and {REQUIRE_ENV}=1 (set {SHARED_ENV})",
        location.display()
    );
    static NOTICE: Once = Once::new();
    NOTICE.call_once(|| {
        let _ = writeln!(std::io::stderr(), "{}", skip_notice(&location));
    });
    None
}

/// A path inside the shared folder (`rel` relative to it), or `None` (with
/// the notice, or a panic when required) as [`shared_dir`].
pub fn shared_path(rel: impl AsRef<Path>) -> Option<PathBuf> {
    shared_dir().map(|d| d.join(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_location_is_beside_the_repository() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .nth(2)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        assert!(repo.join("Cargo.toml").is_file(), "{}", repo.display());
        let loc = default_location();
        assert_eq!(loc.file_name().and_then(|n| n.to_str()), Some("shared"));
        assert_eq!(loc.parent(), repo.parent());
    }

    #[test]
    fn notice_names_the_location_and_the_variable() {
        let n = skip_notice(Path::new("/x/shared"));
        assert_eq!(
            n,
            "notice: shared reference suite not found at /x/shared: skipped (set SMPATCH_SHARED)"
        );
    }
}
