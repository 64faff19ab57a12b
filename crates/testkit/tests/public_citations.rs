//! User-facing text cites public sources only (house rule): no section sign
//! `§` and no `shared/spec` path in the READMEs, docs/, the rustdoc (`///`,
//! `//!`) and string literals of every crate's `src/`, the CLI's help texts
//! and the Python stubs. Users do not have the reference spec those point
//! into; cite docs/ (docs/QUIRKS.md for quirk numbers), a KEP by number or
//! the upstream Go function instead. Plain `//` code comments are not
//! checked. The `"description"` of every case in `testdata/` (JSON) is
//! checked too, in both spellings of the sign (`§` and the JSON escape
//! `\u00a7`): test names and failure messages show it to users. A failure
//! names every offending file and line. Every quirk number `Qn` that
//! user-facing text names has its section in docs/QUIRKS.md.

use std::fs;
use std::path::{Path, PathBuf};

/// What must not appear in user-facing text.
const FORBIDDEN: &[&str] = &["§", "\\u00a7", "shared/spec"];

/// Files other branches own at the time this check was added that still
/// carry such citations; each is rewritten by its owner. Remove an entry
/// once its file is clean (the test fails on a stale entry, so none
/// lingers).
const EXCLUDED_FILES: &[(&str, &str)] = &[];

/// Single lines kept on purpose: the text is a contract (a row name of the
/// hostile-input table, written by `tasks/reliability` into
/// docs/RELIABILITY.md and matched there), so it changes only together with
/// the table. Each entry is (file, a substring of the line).
const EXCLUDED_LINES: &[(&str, &str)] = &[];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// Every file below `dir` (recursively), skipping build output and VCS data.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            if matches!(name.as_ref(), "target" | ".git" | "node_modules") || name.starts_with('.')
            {
                continue;
            }
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// How a file is checked.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Scope {
    /// Every line (Markdown, Python stubs, CLI sources).
    All,
    /// Rust outside the CLI: every line except plain `//` comments.
    RustNoPlainComments,
    /// JSON test cases below `testdata/`: the `"description"` lines.
    JsonDescriptions,
}

/// The scope of `rel` (a `/`-separated path from the repository root), or
/// `None` when the file is not user-facing.
fn scope(rel: &str) -> Option<Scope> {
    let file = rel.rsplit('/').next().unwrap_or(rel);
    let in_src =
        |ext: &str| rel.starts_with("crates/") && rel.contains("/src/") && rel.ends_with(ext);
    let markdown = file.starts_with("README") || (rel.starts_with("docs/") && rel.ends_with(".md"));
    let cli = rel.starts_with("crates/cli/src/") && rel.ends_with(".rs");
    let stub = rel.starts_with("bindings/python/") && rel.ends_with(".pyi");
    let rust = in_src(".rs") || (rel.starts_with("bindings/python/src/") && rel.ends_with(".rs"));
    let cases = rel.starts_with("testdata/") && rel.ends_with(".json");
    if markdown || cli || stub {
        Some(Scope::All)
    } else if cases {
        Some(Scope::JsonDescriptions)
    } else if rust {
        Some(Scope::RustNoPlainComments)
    } else {
        None
    }
}

/// True for a Rust line that is a plain `//` comment (not `///` or `//!`).
fn plain_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("//") && !t.starts_with("///") && !t.starts_with("//!")
}

/// The offending lines of `text`, as `path:line: text`.
fn offences(rel: &str, text: &str, scope: Scope) -> Vec<String> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if !FORBIDDEN.iter().any(|f| line.contains(f)) {
            continue;
        }
        if scope == Scope::RustNoPlainComments && plain_comment(line) {
            continue;
        }
        if scope == Scope::JsonDescriptions && !line.contains("\"description\"") {
            continue;
        }
        if EXCLUDED_LINES
            .iter()
            .any(|(p, s)| *p == rel && line.contains(s))
        {
            continue;
        }
        found.push(format!("{rel}:{}: {}", i + 1, line.trim()));
    }
    found
}

#[test]
fn user_facing_text_cites_no_spec_sections() {
    let root = repo_root();
    let mut files = Vec::new();
    walk(&root, &mut files);
    let mut found = Vec::new();
    let mut checked = 0usize;
    for path in &files {
        let rel = path
            .strip_prefix(&root)
            .expect("walked below the root")
            .to_string_lossy()
            .replace('\\', "/");
        let Some(scope) = scope(&rel) else { continue };
        if EXCLUDED_FILES.iter().any(|(p, _)| *p == rel) {
            continue;
        }
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        checked += 1;
        found.extend(offences(&rel, &text, scope));
    }
    assert!(
        checked > 50,
        "only {checked} user-facing files found below {root:?}"
    );
    assert!(
        found.is_empty(),
        "user-facing text cites the reference spec (users do not have it; cite docs/, \
         docs/QUIRKS.md, a KEP or the upstream Go function instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn exclusions_are_not_stale() {
    let root = repo_root();
    for (rel, why) in EXCLUDED_FILES {
        let text = fs::read_to_string(root.join(rel)).unwrap_or_default();
        let scope = scope(rel).expect("an excluded file is user-facing");
        assert!(
            !offences(rel, &text, scope).is_empty(),
            "{rel} ({why}) no longer cites the spec: remove it from EXCLUDED_FILES"
        );
    }
    for (rel, line) in EXCLUDED_LINES {
        let text = fs::read_to_string(root.join(rel)).unwrap_or_default();
        assert!(
            text.lines().any(|l| l.contains(line)),
            "{rel} no longer has the excluded line {line:?}: remove it from EXCLUDED_LINES"
        );
    }
}

#[test]
fn the_check_sees_what_it_must() {
    // Rustdoc, strings and CLI comments are caught; plain comments elsewhere are not.
    let rs =
        "/// see spec §3.4\nlet m = \"§2\";\n// spec §3.4 (a code comment)\n//! shared/spec/X.md\n";
    let got = offences("crates/x/src/lib.rs", rs, Scope::RustNoPlainComments);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(offences("crates/cli/src/main.rs", rs, Scope::All).len(), 4);
    assert_eq!(scope("README.md"), Some(Scope::All));
    assert_eq!(scope("crates/schema/README.md"), Some(Scope::All));
    assert_eq!(scope("docs/QUIRKS.md"), Some(Scope::All));
    assert_eq!(
        scope("crates/schema/src/model.rs"),
        Some(Scope::RustNoPlainComments)
    );
    assert_eq!(scope("crates/schema/tests/features.rs"), None);
    assert_eq!(scope("tasks/reliability/src/table.rs"), None);
}

#[test]
fn testdata_descriptions_are_checked() {
    // Both spellings of the sign in a case description are caught, also
    // when the description is not the first member on its line; the same
    // text in case data is not (a document may hold any string).
    let json = concat!(
        "{\"name\": \"a\", \"description\": \"\\u00a73.6: keys are cleared\",\n",
        "  \"description\": \"§3.6 again\",\n",
        "  \"original\": {\"note\": \"§1\"}}\n",
    );
    assert_eq!(
        scope("testdata/apply/retain-keys.json"),
        Some(Scope::JsonDescriptions)
    );
    assert_eq!(
        scope("testdata/unions/cases.json"),
        Some(Scope::JsonDescriptions)
    );
    assert_eq!(scope("testdata/examples/deployment.yaml"), None);
    let got = offences("testdata/apply/x.json", json, Scope::JsonDescriptions);
    assert_eq!(got.len(), 2, "{got:?}");
}

/// The quirk numbers (`Q` followed by digits, as a whole word) in `line`.
fn quirk_numbers(line: &str) -> Vec<u32> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    for i in 0..b.len() {
        if b[i] != b'Q' || (i > 0 && word(b[i - 1])) {
            continue;
        }
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        let end = i + 1 + digits;
        if digits == 0 || (end < b.len() && word(b[end])) {
            continue;
        }
        if let Ok(n) = line[i + 1..end].parse() {
            out.push(n);
        }
    }
    out
}

#[test]
fn every_quirk_number_is_described_in_quirks_md() {
    let root = repo_root();
    let quirks = fs::read_to_string(root.join("docs/QUIRKS.md")).expect("docs/QUIRKS.md exists");
    let described: Vec<u32> = quirks
        .lines()
        .filter_map(|l| l.strip_prefix("## Q"))
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let mut files = Vec::new();
    walk(&root, &mut files);
    let mut missing = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(&root)
            .expect("walked below the root")
            .to_string_lossy()
            .replace('\\', "/");
        if scope(&rel).is_none() {
            continue;
        }
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            for n in quirk_numbers(line) {
                if !described.contains(&n) {
                    missing.push(format!("{rel}:{}: Q{n}", i + 1));
                }
            }
        }
    }
    assert!(
        described.len() > 20,
        "docs/QUIRKS.md describes only {described:?}"
    );
    assert!(
        missing.is_empty(),
        "quirk numbers without a section in docs/QUIRKS.md:\n{}",
        missing.join("\n")
    );
}

#[test]
fn quirk_numbers_are_whole_words() {
    assert_eq!(
        quirk_numbers("Q1, (Q23) Q6/Q7 [QUIRK Q8]"),
        vec![1, 23, 6, 7, 8]
    );
    assert!(quirk_numbers("XQ1 Q1a Q SQL Q_2").is_empty());
}
