//! `kind: List` input in every command: errors in list items are located
//! under `/items/K` (as `patch` locates them), Lists inside Lists are
//! flattened in kubectl's order, a List without items is no objects, and
//! `apply --live` refuses two live objects with one identity.

#![allow(clippy::unwrap_used)] // tests may unwrap (clippy.toml: allow-unwrap-in-tests)

mod common;

use common::run;

/// A scratch directory for one test, removed by the caller.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("smpatch-lists-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const BAD_POD_LIST: &str = "apiVersion: v1\nkind: List\nitems:\n\
- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n  spec:\n    containers: []\n\
- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: b\n  spec:\n    containers: [1]\n";

/// An error in item 2 of a one-document List is located at `/items/1/…`
/// in every command, as `patch` locates it (it said `document 2 of 2`).
#[test]
fn list_item_errors_are_located_under_items() {
    let dir = scratch("locate");
    let file = dir.join("list2.yaml");
    std::fs::write(&file, BAD_POD_LIST).unwrap();
    let f = file.to_str().unwrap();
    // A live Pod b whose containers are objects: apply's diff meets the 1.
    let live = dir.join("live.yaml");
    std::fs::write(
        &live,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: b\nspec:\n  containers:\n  - name: x\n",
    )
    .unwrap();
    let l = live.to_str().unwrap();
    let patch = r#"{"spec":{"containers":[{"name":"x"}]}}"#;
    for args in [
        vec!["patch", "-f", f, "-p", patch],
        vec!["fields", "-f", f],
        vec!["apply", "-f", f, "--live", l],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains("list2.yaml: /items/1/spec/containers"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("document 2 of 2"), "{args:?}: {err}");
    }
    let (_, _, err) = run(&["fields", "-f", f]);
    assert!(
        err.contains("list2.yaml: /items/1/spec/containers/0: "),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Items that are not objects: every one is reported, in every command
/// (`validate` used to stop at the first); `patch` still prints the others.
#[test]
fn every_non_object_item_is_reported() {
    let dir = scratch("nonobj");
    let file = dir.join("l.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: List\nitems:\n- 3\n- apiVersion: v1\n  kind: ConfigMap\n  \
         metadata:\n    name: a\n- x\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let (code, out, err) = run(&["validate", "-f", f]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("l.yaml: /items/0: a list item must be an object, found int"),
        "{err}"
    );
    assert!(
        err.contains("l.yaml: /items/2: a list item must be an object, found string"),
        "{err}"
    );
    let (code, out, err) = run(&["patch", "-f", f, "-p", "{}"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("/items/0:") && err.contains("/items/2:"),
        "{err}"
    );
    assert!(out.contains(r#""name": "a""#), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A List inside a List is flattened, breadth first as kubectl's
/// FlattenListVisitor does: `[A, List[B], C]` is A, C, B; an error in B is
/// located through both lists.
#[test]
fn nested_lists_are_flattened_in_kubectl_order() {
    let dir = scratch("nested");
    let file = dir.join("nested.yaml");
    let cm = |n: &str| format!("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {n}\n");
    let inner =
        "- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: ConfigMap\n    \
                 metadata:\n      name: b\n";
    std::fs::write(
        &file,
        format!(
            "apiVersion: v1\nkind: List\nitems:\n{}{inner}{}",
            cm("a"),
            cm("c")
        ),
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let (code, out, err) = run(&["patch", "-f", f, "-p", "{}"]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix(r#""name": ""#))
        .collect();
    assert_eq!(names, [r#"a""#, r#"c""#, r#"b""#], "{out}");
    // One field set per object (one line each).
    let (code, out, err) = run(&["fields", "-f", f]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 3, "{out}");

    // An error inside the inner List names both items.
    std::fs::write(
        &file,
        format!(
            "apiVersion: v1\nkind: List\nitems:\n{}- apiVersion: v1\n  kind: List\n  items:\n{}",
            cm("a"),
            BAD_POD_LIST
                .split_once("items:\n")
                .unwrap()
                .1
                .lines()
                .map(|l| format!("  {l}\n"))
                .collect::<String>()
        ),
    )
    .unwrap();
    let (code, _, err) = run(&["fields", "-f", f]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("nested.yaml: /items/1/items/1/spec/containers/0: "),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `items: null` or no `items` on a List kind is no objects (kubectl's
/// `no objects passed to apply`), not an object of kind List.
#[test]
fn a_list_without_items_is_no_objects() {
    let dir = scratch("noitems");
    let file = dir.join("empty.yaml");
    let f = file.to_str().unwrap();
    for text in [
        "apiVersion: v1\nkind: List\nitems: null\n",
        "apiVersion: v1\nkind: ConfigMapList\n",
    ] {
        std::fs::write(&file, text).unwrap();
        let (code, _, err) = run(&["apply", "-f", f, "--live", f]);
        assert_eq!(code, 1, "{text}: {err}");
        assert!(
            err.ends_with("empty.yaml: no objects passed to apply\n"),
            "{text}: {err}"
        );
        let (code, _, err) = run(&["patch", "-f", f, "-p", "{}"]);
        assert_eq!(code, 1, "{text}: {err}");
        assert!(
            err.ends_with("no objects passed to patch\n"),
            "{text}: {err}"
        );
    }
    // items that are neither a list nor null: an error at /items.
    std::fs::write(&file, "apiVersion: v1\nkind: List\nitems: 3\n").unwrap();
    let (code, _, err) = run(&["fields", "-f", f]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.ends_with("empty.yaml: /items: the items of a List must be a list, found int [invalid_document]\n"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two live objects with the manifest's identity: an error naming both
/// (it used to take the first silently).
#[test]
fn apply_refuses_two_live_objects_with_one_identity() {
    let dir = scratch("twolive");
    let (manifest, live) = (dir.join("m.yaml"), dir.join("live.yaml"));
    std::fs::write(
        &manifest,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\ndata:\n  x: \"1\"\n",
    )
    .unwrap();
    let cm = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    namespace: ns\n";
    std::fs::write(
        &live,
        format!("apiVersion: v1\nkind: List\nitems:\n{cm}{cm}"),
    )
    .unwrap();
    let (m, l) = (manifest.to_str().unwrap(), live.to_str().unwrap());
    let (code, out, err) = run(&["apply", "-f", m, "--live", l]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("m.yaml: /: ")
            && err.contains("live.yaml: item 0 and ")
            && err.contains("live.yaml: item 1 are both ConfigMap/a"),
        "{err}"
    );
    // One live object: applied as before.
    std::fs::write(&live, format!("apiVersion: v1\nkind: List\nitems:\n{cm}")).unwrap();
    let (code, _, err) = run(&["apply", "-f", m, "--live", l]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `apply --show-patch -o yaml` names each patch's manifest document and
/// List item (it counted the items as documents: `document 2 of 2`).
#[test]
fn show_patch_names_the_list_item() {
    let dir = scratch("showpatch");
    let manifest = dir.join("m.yaml");
    let cm = |n: &str| format!("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {n}\n");
    std::fs::write(
        &manifest,
        format!("apiVersion: v1\nkind: List\nitems:\n{}{}", cm("a"), cm("b")),
    )
    .unwrap();
    let m = manifest.to_str().unwrap();
    let (code, out, err) = run(&["apply", "-f", m, "--live", m, "--show-patch", "-o", "yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("m.yaml document 1 of 1, item 1)\n"), "{out}");
    assert!(!out.contains("document 2 of 2"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
