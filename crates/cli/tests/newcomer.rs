//! What a newcomer meets first: the README's Quickstart commands and the
//! `--help` examples run as written from the repository root, and the
//! common mistakes get an error that names the input, the JSON pointer (or
//! line and column) and the kind.

#![allow(clippy::unwrap_used)] // tests may unwrap (clippy.toml: allow-unwrap-in-tests)

mod common;

use common::{root, run, smpatch};

const DEPLOY: &str = "testdata/examples/deployment.yaml";

/// Splits one shell command line as `sh` would for the README's commands:
/// words separated by blanks, `'…'` and `"…"` quoting (no escapes inside
/// single quotes, `\"` inside double quotes), a `#` word ending the line.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    w.push(c);
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        c => w.push(c),
                    }
                }
            }
            '#' if word.is_none() => break,
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// The `smpatch …` commands of `text`: lines starting with `smpatch ` (after
/// indentation), backslash continuations joined.
fn commands(text: &str) -> Vec<Vec<String>> {
    let joined = text.replace("\\\n", " ");
    joined
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("smpatch "))
        .map(shell_words)
        .collect()
}

/// Runs `words` (`smpatch` first) from the repository root; panics with
/// the command and its stderr unless it exits 0 and prints something.
fn runs_cleanly(words: &[String], what: &str) {
    assert_eq!(words[0], "smpatch", "{what}: {words:?}");
    let out = smpatch().args(&words[1..]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{what}: {words:?}: {stderr}");
    assert!(!out.stdout.is_empty(), "{what}: {words:?} printed nothing");
}

#[test]
fn shell_words_splits_like_sh() {
    assert_eq!(
        shell_words(r#"smpatch patch -p '{"a": 1}' -o yaml   # note"#),
        ["smpatch", "patch", "-p", r#"{"a": 1}"#, "-o", "yaml"]
    );
    assert_eq!(
        shell_words(r#"a "b \"c\"" d'e f'"#),
        ["a", r#"b "c""#, "de f"]
    );
}

/// The fenced blocks of the README's Quickstart whose info string is
/// `lang`, without their fences.
fn quickstart_blocks(lang: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("## Quickstart").expect("a Quickstart section");
    let end = start + readme[start..].find("\n## ").expect("a section after it");
    let mut blocks = readme[start..end].split("```");
    let mut found = Vec::new();
    while let (Some(_), Some(block)) = (blocks.next(), blocks.next()) {
        if let Some(body) = block.strip_prefix(&format!("{lang}\n")) {
            found.push(body.to_owned());
        }
    }
    found
}

/// Every command of the README's Quickstart (CLI and CRD blocks) runs as
/// written from the repository root.
#[test]
fn readme_quickstart_commands_run() {
    let cmds: Vec<_> = quickstart_blocks("sh")
        .iter()
        .flat_map(|b| commands(b))
        .collect();
    assert!(cmds.len() >= 5, "{cmds:?}");
    for c in &cmds {
        runs_cleanly(c, "README Quickstart");
    }
}

/// The error shown in the README's Quickstart is what the tool prints.
#[test]
fn readme_quickstart_error_is_current() {
    let blocks = quickstart_blocks("text");
    let block = blocks
        .iter()
        .find(|b| b.starts_with("$ smpatch "))
        .expect("a `$ smpatch …` error example");
    let (command, shown) = block.split_once('\n').unwrap();
    let words = shell_words(command.trim_start_matches("$ "));
    let out = smpatch().args(&words[1..]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{words:?}");
    assert!(out.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&out.stderr), shown, "{words:?}");
}

/// The examples under `smpatch --help` run as printed, from the
/// repository root (their files are in the repository).
#[test]
fn help_examples_run() {
    let (code, help, _) = run(&["--help"]);
    assert_eq!(code, 0);
    let examples = &help[help.find("Examples").expect("an Examples block")..];
    let cmds = commands(examples);
    assert!(cmds.len() >= 5, "{cmds:?}");
    for c in &cmds {
        runs_cleanly(c, "smpatch --help");
    }
}

/// `--help` lists the everyday commands first, the limits under their own
/// heading after the options, and every exit status.
#[test]
fn help_order_limits_and_exit_statuses() {
    let (_, help, _) = run(&["--help"]);
    let at = |s: &str| help.find(s).unwrap_or_else(|| panic!("{s}: {help}"));
    assert!(at("  patch ") < at("  diff ") && at("  diff ") < at("  apply "));
    assert!(at("  apply ") < at("  explain ") && at("  explain ") < at("  batch "));
    assert!(at("Options:") < at("Limits (every command):"));
    assert!(at("Limits (every command):") < at("--max-depth"));
    for s in ["2 usage error", "diff --exit-code", "`validate`: 0 clean"] {
        at(s);
    }
    let (_, help, _) = run(&["patch", "--help"]);
    let limits = help.find("Limits (every command):").expect("{help}");
    assert!(help.find("--patch-file").unwrap() < limits, "{help}");
}

/// One object, one error: the error names the file, then the pointer
/// (stdin is `-`); `apply` names the manifest, `fields` its file.
#[test]
fn single_object_errors_name_the_file() {
    let missing_key = r#"{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}"#;
    let (code, out, err) = run(&["patch", "-f", DEPLOY, "-p", missing_key]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with(
            "error: testdata/examples/deployment.yaml: /spec/template/spec/containers/0: \
             patch element has no merge key \"name\""
        ),
        "{err}"
    );
    assert!(err.trim_end().ends_with("[missing_merge_key]"), "{err}");

    let deploy = std::fs::read_to_string(root().join(DEPLOY)).unwrap();
    let out = smpatch()
        .args(["patch", "-f", "-", "-p", r#"{"spec":{"$patch":"bogus"}}"#])
        .write_stdin(deploy)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: -: /spec/$patch: "), "{err}");
    assert!(err.trim_end().ends_with("[unknown_patch_type]"), "{err}");

    let widget = "crates/cli/testdata/widget.yaml";
    let (code, _, err) = run(&["fields", "-f", widget]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("error: crates/cli/testdata/widget.yaml: /: no schema"),
        "{err}"
    );
}

/// `diff` names both files: the pointer holds in each.
#[test]
fn diff_errors_name_both_files() {
    let dir = std::env::temp_dir().join(format!("smpatch-newcomer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (old, new) = (dir.join("old.yaml"), dir.join("new.yaml"));
    std::fs::write(
        &old,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{image: a}]\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: x, image: b}]\n",
    )
    .unwrap();
    let (o, n) = (old.display().to_string(), new.display().to_string());
    let (code, out, err) = run(&["diff", &o, &n]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with(&format!("error: {o} -> {n}: /spec/containers/0: ")),
        "{err}"
    );
    assert!(err.trim_end().ends_with("[missing_merge_key]"), "{err}");
    // --exit-code keeps 1 for "changes": an error is 2.
    let (code, _, err) = run(&["diff", "--exit-code", &o, &n]);
    assert_eq!(code, 2, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file that cannot be read says so with the kind `io`, in every command.
#[test]
fn unreadable_file_is_io() {
    for args in [
        &["patch", "-f", "nope.yaml", "-p", "{}"][..],
        &["patch", "-f", DEPLOY, "--patch-file", "nope.yaml"],
        &["diff", DEPLOY, "nope.yaml"],
        &["apply", "-f", "nope.yaml", "--live", DEPLOY],
        &["fields", "-f", "nope.yaml"],
    ] {
        let (code, out, err) = run(args);
        assert_ne!(code, 0, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(
            err.starts_with("error: nope.yaml: cannot read: "),
            "{args:?}: {err}"
        );
        assert!(err.trim_end().ends_with("[io]"), "{args:?}: {err}");
    }
}

/// Input that is not UTF-8: the line and column of the first bad byte.
#[test]
fn invalid_utf8_gives_line_and_column() {
    let dir = std::env::temp_dir().join(format!("smpatch-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, b"a: 1\nb: \"h\xffi\"\n").unwrap();
    let name = bad.display().to_string();
    for args in [
        &["patch", "-f", &name, "-p", "{}"][..],
        &["patch", "-f", DEPLOY, "--patch-file", &name],
        &["diff", &name, DEPLOY],
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert_eq!(
            err,
            format!(
                "error: {name}:2:6: not UTF-8 text (invalid byte at offset 10); save the file \
                 as UTF-8 [invalid_document]\n"
            ),
            "{args:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Too deep a document: the error names the flag that raises the limit.
#[test]
fn too_deep_names_max_depth() {
    let (code, _, err) = run(&["patch", "-f", DEPLOY, "-p", "{}", "--max-depth", "3"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("error: testdata/examples/deployment.yaml:"),
        "{err}"
    );
    assert!(err.contains("--max-depth N"), "{err}");
    assert!(err.trim_end().ends_with("[too_deep]"), "{err}");
    let deep = format!("{}1{}", "{\"a\":".repeat(300), "}".repeat(300));
    let (code, _, err) = run(&["patch", "-f", DEPLOY, "-p", &deep]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("error: --patch:1:"), "{err}");
    assert!(err.contains("--max-depth N"), "{err}");
}

/// A patch that is a scalar (`kubectl set`-style `spec.replicas=3`, a
/// number): the error shows what a patch looks like.
#[test]
fn scalar_patch_shows_the_object_form() {
    for p in ["spec.replicas=3", "42"] {
        let (code, out, err) = run(&["patch", "-f", DEPLOY, "-p", p]);
        assert_eq!(code, 1, "{p}: {err}");
        assert!(out.is_empty(), "{p}: {out}");
        assert!(
            err.starts_with("error: --patch: the document must be an object, found "),
            "{p}: {err}"
        );
        assert!(
            err.contains(r#"(a patch is an object, e.g. -p '{"spec":{"replicas":3}}')"#),
            "{p}: {err}"
        );
        assert!(err.trim_end().ends_with("[invalid_document]"), "{p}: {err}");
    }
}

/// `--type json` with an object: one error, naming the other patch types.
#[test]
fn object_with_type_json_names_the_other_types() {
    let (code, out, err) = run(&[
        "patch",
        "-f",
        DEPLOY,
        "-f",
        DEPLOY,
        "--type",
        "json",
        "-p",
        r#"{"spec":{"replicas":3}}"#,
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(
        err,
        "error: --patch: an RFC 6902 JSON patch is a list of operations, found object (an \
         object is a strategic merge patch, the default, or --type merge) [invalid_document]\n"
    );
}

/// `explain` of a mistyped kind suggests the kind meant; a custom
/// resource's kind names --schema.
#[test]
fn explain_suggests_the_kind_meant() {
    let (code, out, err) = run(&["explain", "Deploymnt"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with(
            "error: Deploymnt: no schema defines this type: did you mean \"Deployment\"? ("
        ),
        "{err}"
    );
    assert!(err.trim_end().ends_with("[unknown_type]"), "{err}");
    let (code, _, err) = run(&["explain", "Widget"]);
    assert_eq!(code, 1, "{err}");
    assert!(!err.contains("did you mean"), "{err}");
    assert!(err.contains("--schema CRD_FILE"), "{err}");
    let crd = "crates/cli/testdata/crd-widget.yaml";
    let (code, _, err) = run(&["explain", "Widgt", "--schema", crd]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("did you mean \"Widget\"?"), "{err}");
}

/// YAML flow style (`{spec: {replicas: 3}}`) is read as kubectl reads it:
/// refused as JSON for a strategic or merge patch and for files (with a
/// hint), read as YAML for an RFC 6902 patch (`--type json`).
#[test]
fn yaml_flow_style_is_read_as_kubectl_reads_it() {
    const HINT: &str = " (text that starts with { or [ is read as JSON, as kubectl reads it; \
        quote the keys and strings, or write the YAML in block style) [invalid_document]\n";
    for ty in ["strategic", "merge"] {
        let (code, out, err) = run(&[
            "patch",
            "-f",
            DEPLOY,
            "--type",
            ty,
            "-p",
            "{spec: {replicas: 3}}",
        ]);
        assert_eq!(code, 1, "{ty}: {err}");
        assert!(out.is_empty(), "{ty}: {out}");
        assert_eq!(
            err,
            format!("error: --patch:1:2: unexpected 's'; expected a string key{HINT}"),
            "{ty}"
        );
    }
    let (code, out, err) = run(&[
        "patch",
        "-f",
        DEPLOY,
        "--type",
        "json",
        "-p",
        "[{op: replace, path: /spec/replicas, value: 3}]",
        "-o",
        "yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\nspec:\n  replicas: 3\n"), "{out}");
    // Broken JSON that is no YAML either: the JSON error alone.
    let (code, _, err) = run(&["patch", "-f", DEPLOY, "-p", r#"{"spec":{"replicas":3}"#]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        err,
        "error: --patch:1:23: unexpected end of input [invalid_document]\n"
    );
    // Files given with -f are sniffed the same way.
    let dir = std::env::temp_dir().join(format!("smpatch-flow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("flow.yaml");
    std::fs::write(&file, "{apiVersion: v1, kind: ConfigMap}").unwrap();
    let (code, _, err) = run(&["patch", "-f", file.to_str().unwrap(), "-p", "{}"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("flow.yaml:1:2: unexpected 'a'") && err.ends_with(HINT),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A failed RFC 6902 operation names the operation, its path and the kind.
#[test]
fn json_patch_failures_name_the_operation_and_kind() {
    for (p, expected) in [
        (
            r#"[{"op":"replace","path":"/spec/replicaz/x","value":3}]"#,
            "error: --patch: /0/path: replace \"/spec/replicaz/x\": no member \"replicaz\" \
             [json_patch_failed]\n",
        ),
        (
            r#"[{"op":"add","path":"/x","value":1},{"op":"move","from":"/nope","path":"/y"}]"#,
            "error: --patch: /1/from: move from \"/nope\": no value at \"nope\" \
             [json_patch_failed]\n",
        ),
        (
            r#"[{"op":"test","path":"/spec/replicas","value":7}]"#,
            "error: --patch: /0: test failed: the value at \"/spec/replicas\" differs \
             [json_patch_failed]\n",
        ),
        (
            r#"[{"op":"frob","path":"/x"}]"#,
            "error: --patch: /0/op: unknown operation \"frob\"; expected add, remove, \
             replace, move, copy or test [json_patch_failed]\n",
        ),
    ] {
        let (code, out, err) = run(&["patch", "-f", DEPLOY, "--type", "json", "-p", p]);
        assert_eq!(code, 1, "{p}: {err}");
        assert!(out.is_empty(), "{p}: {out}");
        assert_eq!(err, expected, "{p}");
    }
}

/// A key that looks like a misspelled directive is merged as a field (as
/// the Go reference does), with a warning naming the directive meant; the
/// real directives and ordinary `$` fields draw none.
#[test]
fn misspelled_directive_warns() {
    let (code, out, err) = run(&[
        "patch",
        "-f",
        DEPLOY,
        "-p",
        r#"{"spec":{"template":{"spec":{"volumes":[{"name":"cache","$retainkeys":["name"]}]}}}}"#,
        "-o",
        "yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("    $retainkeys:\n"), "{out}");
    assert_eq!(
        err,
        "warning: --patch: /spec/template/spec/volumes/0/$retainkeys: \"$retainkeys\" is not a \
         patch directive; did you mean \"$retainKeys\"? It is merged as an ordinary field, as \
         the Go reference does\n"
    );
    let (code, _, err) = run(&[
        "patch",
        "-f",
        DEPLOY,
        "--patch-file",
        "testdata/examples/patch.yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
}

/// An object given to `--schema` (instead of `-f`): the error names the
/// file alone (no dangling `#`) and says what `--schema` takes.
#[test]
fn object_as_schema_says_what_schema_takes() {
    let (code, out, err) = run(&[
        "patch",
        "-f",
        "crates/cli/testdata/widget.yaml",
        "--schema",
        DEPLOY,
        "-p",
        "{}",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("error: testdata/examples/deployment.yaml: not an OpenAPI v2 document"),
        "{err}"
    );
    assert!(
        err.ends_with(
            " (--schema takes CRDs and OpenAPI documents; the objects themselves go to -f) \
             [not_a_schema]\n"
        ),
        "{err}"
    );
}

/// `extract` for a manager the object does not know lists the managers it
/// has; an object without managedFields says how kubectl prints them.
#[test]
fn extract_of_an_unknown_manager_lists_the_managers() {
    let live = "crates/cli/testdata/fields-live.yaml";
    let (code, out, err) = run(&["extract", "-f", live, "--manager", "orders-operatr"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with(
            "error: crates/cli/testdata/fields-live.yaml: /metadata/managedFields: manager \
             \"orders-operatr\" has no Apply entry"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "; the object's managers: \"mesh-injector\" (Apply), \"orders-operator\" (Apply), "
        ) && err.ends_with(" [no_apply_entry]\n"),
        "{err}"
    );
    let (code, _, err) = run(&["extract", "-f", DEPLOY, "--manager", "x"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.ends_with(
            "; the object has no metadata.managedFields: `kubectl get -o yaml` prints them \
             with --show-managed-fields [no_apply_entry]\n"
        ),
        "{err}"
    );
    // A known manager without an entry for the subresource: the engine's
    // message lists its entries, and nothing is added.
    let (_, _, err) = run(&[
        "extract",
        "-f",
        live,
        "--manager",
        "orders-operator",
        "--subresource",
        "status",
    ]);
    assert!(!err.contains("the object's managers"), "{err}");
}

/// `apply` of a custom resource with its CRD merges strategically (keyed
/// by the CRD's list-map keys): a port only the live object has stays.
/// kubectl would send a JSON merge patch and drop it (docs/DIVERGENCES.md,
/// "Custom resources"; `apply --type merge` does that, tests/apply_merge.rs).
#[test]
fn custom_resource_apply_merges_strategically() {
    let dir = std::env::temp_dir().join(format!("smpatch-cr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let live = dir.join("live.yaml");
    let manifest = dir.join("manifest.yaml");
    std::fs::write(
        &live,
        r#"apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"annotations":{},"name":"w"},"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP"}]}}
spec:
  ports:
  - {port: 80, protocol: TCP, name: http}
  - {port: 443, protocol: TCP, name: added-by-controller}
"#,
    )
    .unwrap();
    std::fs::write(
        &manifest,
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  ports:\n  \
         - {port: 80, protocol: TCP, name: web}\n",
    )
    .unwrap();
    let (code, out, err) = run(&[
        "apply",
        "-f",
        manifest.to_str().unwrap(),
        "--live",
        live.to_str().unwrap(),
        "--schema",
        "crates/cli/testdata/crd-widget.yaml",
        "-o",
        "yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "  ports:\n  - port: 80\n    protocol: TCP\n    name: web\n  - port: 443\n    \
             protocol: TCP\n    name: added-by-controller\n"
        ),
        "{out}"
    );
    assert_eq!(err, "widget.example.com/w configured\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The examples under `smpatch COMMAND --help` run as written from the
/// repository root.
#[test]
fn command_help_examples_run() {
    for command in [
        "patch", "diff", "apply", "explain", "validate", "fields", "extract", "owners",
    ] {
        let (code, help, _) = run(&[command, "--help"]);
        assert_eq!(code, 0, "{command}");
        let examples = &help[help
            .find("Examples")
            .unwrap_or_else(|| panic!("{command}: an Examples block"))..];
        let cmds = commands(examples);
        // `owners` has one file to show; its other example reads kubectl.
        let least = if command == "owners" { 1 } else { 2 };
        assert!(cmds.len() >= least, "{command}: {cmds:?}");
        for c in &cmds {
            assert_eq!(c[1], command, "{c:?}");
            runs_cleanly(c, &format!("smpatch {command} --help"));
        }
    }
}

/// stdin given twice (`diff - -`, `apply -f - --live -`) is refused (the
/// second read would see nothing), and an empty manifest is kubectl's
/// `no objects passed to apply`.
#[test]
fn stdin_twice_and_empty_manifest_are_errors() {
    for args in [
        &["diff", "-", "-"][..],
        &["apply", "-f", "-", "--live", "-"][..],
    ] {
        let out = smpatch()
            .args(args)
            .write_stdin(std::fs::read(root().join(DEPLOY)).unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            err.starts_with("error: -: stdin can be read once: give "),
            "{args:?}: {err}"
        );
    }
    let dir = std::env::temp_dir().join(format!("smpatch-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.yaml");
    std::fs::write(&empty, "# nothing yet\n").unwrap();
    let (code, out, err) = run(&[
        "apply",
        "-f",
        empty.to_str().unwrap(),
        "--live",
        "testdata/examples/live.yaml",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.ends_with("empty.yaml: no objects passed to apply\n"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--type-name` takes what `explain` takes: a kind, its plural or a
/// kubectl short name, besides a definition name or a GVK.
#[test]
fn type_name_takes_kinds_and_short_names() {
    let widget = "crates/cli/testdata/widget.yaml";
    let p = r#"{"spec":{"replicas":3}}"#;
    let (code, expected, err) = run(&[
        "patch",
        "-f",
        widget,
        "--type-name",
        "apps/v1/Deployment",
        "-p",
        p,
    ]);
    assert_eq!(code, 0, "{err}");
    for name in [
        "Deployment",
        "deploy",
        "deployments",
        "io.k8s.api.apps.v1.Deployment",
    ] {
        let (code, out, err) = run(&["patch", "-f", widget, "--type-name", name, "-p", p]);
        assert_eq!(code, 0, "{name}: {err}");
        assert_eq!(out, expected, "{name}");
    }
    let (code, _, err) = run(&["patch", "-f", widget, "--type-name", "Deploymnt", "-p", p]);
    assert_eq!(code, 1, "{err}");
    assert!(err.trim_end().ends_with("[unknown_type]"), "{err}");
}

/// A custom resource without its CRD: `patch`, `diff` and `apply` also
/// name `--type merge`, which needs no schema (kubectl's choice for custom
/// resources; `apply --type merge` is the three-way JSON merge patch).
#[test]
fn unknown_kind_names_merge_for_patch_and_diff() {
    let widget = "crates/cli/testdata/widget.yaml";
    const MERGE: &str = "; or use --type merge, which needs no schema (kubectl's choice for \
                         custom resources) [unknown_type]\n";
    let (code, _, err) = run(&["patch", "-f", widget, "-p", "{}"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.ends_with(MERGE), "{err}");
    let (code, _, err) = run(&["diff", widget, widget]);
    assert_eq!(code, 1, "{err}");
    assert!(err.ends_with(MERGE), "{err}");
    let (code, out, err) = run(&["patch", "-f", widget, "--type", "merge", "-p", "{}"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"kind\": \"Widget\""), "{out}");
    let (code, _, err) = run(&["apply", "-f", widget, "--live", widget]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.ends_with(
            "; or use --type merge, which needs no schema (the three-way JSON merge patch \
             kubectl applies custom resources with) [unknown_type]\n"
        ),
        "{err}"
    );
}

/// An RFC 6902 patch (`--type json`) is read as YAML whatever the JSON
/// parser found wrong, as kubectl reads it: a trailing YAML comment is
/// accepted (kubectl 1.32 prints `replicas: 3` for the same command).
#[test]
fn json_patch_with_a_trailing_comment_is_read_as_yaml() {
    let (code, out, err) = run(&[
        "patch",
        "-f",
        DEPLOY,
        "--type",
        "json",
        "-p",
        r#"[{"op":"replace","path":"/spec/replicas","value":3}] # three"#,
        "-o",
        "yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\nspec:\n  replicas: 3\n"), "{out}");
    // A strategic patch is still read as JSON only, as kubectl reads it.
    let (code, _, err) = run(&[
        "patch",
        "-f",
        DEPLOY,
        "-p",
        r#"{"spec":{"replicas":3}} # three"#,
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("[invalid_document]"), "{err}");
}

/// A scratch directory for one test, removed by the caller.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("smpatch-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An empty input is kubectl's `no objects passed to CMD` in every command
/// that reads objects: `validate` of nothing is not "clean" (exit 2, as its
/// other errors), `fields`, `extract` and `owners` of nothing not an empty
/// success.
#[test]
fn empty_input_is_no_objects_in_every_command() {
    let dir = scratch("empty-every");
    let empty = dir.join("empty.yaml");
    std::fs::write(&empty, "# nothing yet\n---\n").unwrap();
    let file = empty.to_str().unwrap();
    for (args, status) in [
        (vec!["validate", "-f", file], 2),
        (vec!["fields", "-f", file], 1),
        (vec!["extract", "-f", file, "--manager", "m"], 1),
        (vec!["owners", "-f", file], 1),
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, status, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        let want = format!("empty.yaml: no objects passed to {}\n", args[0]);
        assert!(
            err.starts_with("error: ") && err.ends_with(&want),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `kubectl get KIND -o yaml` prints several objects as one `kind: List`:
/// `apply --live` matches the manifest against its items (it used to see
/// no live object and answer `created`), and `validate`, `fields`,
/// `extract` and `owners` read the items, as `patch` does.
#[test]
fn list_documents_stand_for_their_items_in_every_command() {
    let dir = scratch("lists");
    let live = dir.join("live.yaml");
    std::fs::write(
        &live,
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  \
         metadata:\n    name: a\n    annotations:\n      \
         kubectl.kubernetes.io/last-applied-configuration: '{\"apiVersion\":\"v1\",\
         \"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"},\"data\":{\"x\":\"1\"}}'\n  \
         data:\n    x: \"1\"\n    z: \"2\"\n",
    )
    .unwrap();
    let manifest = dir.join("manifest.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: v1\nkind: ConfigMapList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  \
         metadata:\n    name: a\n  data:\n    x: \"3\"\n",
    )
    .unwrap();
    let (m, l) = (manifest.to_str().unwrap(), live.to_str().unwrap());
    let (code, out, err) = run(&["apply", "-f", m, "--live", l, "-o", "yaml"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "configmap/a configured\n");
    // The live-only key z stays; x takes the manifest's value.
    assert!(out.contains("\ndata:\n  x: \"3\"\n  z: \"2\"\n"), "{out}");

    let (code, out, err) = run(&["fields", "-f", l, "-o", "paths"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("f:data.f:z\n"), "{out}");
    let (code, out, err) = run(&["validate", "-f", m, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(r#""kind":"ConfigMap""#), "{out}");
    let (code, _, err) = run(&["owners", "-f", l]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no field manager owns anything"), "{err}");

    // An item that is not an object is named by its pointer.
    std::fs::write(&manifest, "apiVersion: v1\nkind: List\nitems:\n- 3\n").unwrap();
    let (code, _, err) = run(&["validate", "-f", m]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.ends_with("manifest.yaml: /items/0: a list item must be an object, found int [invalid_document]\n"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A document without apiVersion/kind: the error says what is missing and
/// names the CLI's flags, in the CLI's words (not the library's `TypeRef`).
#[test]
fn a_document_without_a_type_names_the_flags() {
    let dir = scratch("untyped");
    let file = dir.join("untyped.json");
    std::fs::write(&file, r#"{"spec":{"replicas":1}}"#).unwrap();
    let (code, _, err) = run(&["patch", "-f", file.to_str().unwrap(), "-p", "{}"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "untyped.json: /: cannot tell the document's type: no apiVersion and kind; add them, or name the type with --type-name NAME|GVK"
        ),
        "{err}"
    );
    assert!(err.contains("--type-name NAME|GVK"), "{err}");
    assert!(!err.contains("TypeRef"), "{err}");
    assert!(err.ends_with("[unknown_type]\n"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
