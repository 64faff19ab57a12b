//! The real FieldsV1 fixtures of `../shared/fieldsets/` (read from there,
//! never copied): canonical round trips, `fields_of(pod.yaml)` against the
//! reference's `podset.json`, extraction from the Pod with an Apply entry.

use std::path::PathBuf;

use smpatch_fieldsets::{
    extract, fields_of, owners, path_string, ApiCheck, ErrorKind, ExtractOptions, FieldSet,
    FieldsOptions,
};
use smpatch_value::{parse_json, parse_yaml_single, to_json_string, Arena, ParseOptions, Value};

fn shared(name: &str) -> PathBuf {
    smpatch_testkit::shared_location()
        .join("fieldsets")
        .join(name)
}

/// Whether the shared suite is present; when not, each test skips (after
/// testkit's notice; a failure when `SMPATCH_REQUIRE_SHARED=1`).
fn present() -> bool {
    smpatch_testkit::shared_dir().is_some()
}

fn read(name: &str) -> String {
    std::fs::read_to_string(shared(name)).unwrap_or_else(|e| panic!("reading {name}: {e}"))
}

/// `(file, entry index, canonical JSON)` from the README's table, in order.
fn readme_canonicals() -> Vec<(String, usize, String)> {
    let readme = read("README.md");
    let section = readme
        .split("## Canonical JSON")
        .nth(1)
        .expect("canonical section");
    let mut out = Vec::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 3 || !cells[1].starts_with('`') {
            continue;
        }
        let file = cells[1].split('`').nth(1).expect("file").to_owned();
        let index = if cells[1].contains("(2nd)") { 1 } else { 0 };
        let canonical = cells[2].split('`').nth(1).unwrap_or("").to_owned();
        out.push((file, index, canonical));
    }
    out
}

fn fieldsv1_of_fixture<'a>(arena: &'a Arena, file: &str, index: usize) -> Value<'a> {
    let text = arena.alloc_str(&read(file));
    let opts = ParseOptions::default();
    let doc = if file.ends_with(".yaml") {
        parse_yaml_single(arena, text, &opts).expect("yaml")
    } else {
        parse_json(arena, text.as_bytes(), &opts).expect("json")
    };
    let entries = match doc.get("metadata") {
        Some(m) => m.get("managedFields").expect("managedFields"),
        None => doc,
    };
    let entry = entries.as_array().expect("list")[index];
    entry.get("fieldsV1").expect("fieldsV1")
}

#[test]
fn every_fixture_is_written_back_in_canonical_form() {
    if !present() {
        return;
    }
    let rows = readme_canonicals();
    assert_eq!(rows.len(), 9, "README rows: {rows:?}");
    let arena = Arena::new();
    for (file, index, canonical) in rows {
        if file == "podset.json" {
            let text = read("podset.json");
            let set = FieldSet::from_json(text.as_bytes()).expect("podset");
            assert_eq!(set.to_json(), text, "podset.json is canonical");
            continue;
        }
        let raw = to_json_string(&fieldsv1_of_fixture(&arena, &file, index));
        let set = FieldSet::from_json(raw.as_bytes()).expect("fixture decodes");
        assert_eq!(set.to_json(), canonical, "{file} entry {index}");
        let again = FieldSet::from_json(canonical.as_bytes()).expect("canonical decodes");
        assert_eq!(
            again.to_json(),
            canonical,
            "{file} entry {index} byte round trip"
        );
        assert_eq!(again, set);
    }
}

fn pod<'a>(arena: &'a Arena) -> Value<'a> {
    let text = arena.alloc_str(&read("pod.yaml"));
    parse_yaml_single(arena, text, &ParseOptions::default()).expect("pod.yaml")
}

/// `podset.json` was computed with the reference repository's own test
/// schema (an old Kubernetes schema); we compute it with the embedded v1.37
/// schema. The sets are equal except for the differences listed here, each
/// explained by a schema difference.
#[test]
fn fields_of_pod_matches_podset_up_to_schema_differences() {
    if !present() {
        return;
    }
    let arena = Arena::new();
    let pod = pod(&arena);
    let schema = smpatch_schema::embedded().cursor("v1/Pod").expect("Pod");
    let ours = fields_of(&pod, schema, &FieldsOptions::update_on_create()).expect("fields_of");
    let theirs = FieldSet::from_json(read("podset.json").as_bytes()).expect("podset");
    let only_ours: Vec<String> = ours
        .difference(&theirs)
        .paths()
        .iter()
        .map(|p| path_string(p))
        .collect();
    let only_theirs: Vec<String> = theirs
        .difference(&ours)
        .paths()
        .iter()
        .map(|p| path_string(p))
        .collect();
    // OwnerReference is `x-kubernetes-map-type: atomic` in current schemas
    // (docs/FIELDSETS.md, Example 6); the reference's test schema predates
    // that, so it lists the item's fields.
    let owner_ref =
        "f:metadata.f:ownerReferences.k:{\"uid\":\"0a9d2b9e-779e-11e7-b422-42010a8001be\"}";
    let mut expected_only_theirs: Vec<String> = [
        "apiVersion",
        "blockOwnerDeletion",
        "controller",
        "kind",
        "name",
        "uid",
    ]
    .iter()
    .map(|f| format!("{owner_ref}.f:{f}"))
    .collect();
    // SecretKeySelector (env[].valueFrom.secretKeyRef) is atomic in current
    // schemas too: `f:secretKeyRef` is a leaf in ours, the old schema lists
    // `f:key` and `f:name` below it.
    for var in ["VAR_1", "VAR_2", "VAR_3"] {
        for f in ["key", "name"] {
            expected_only_theirs.push(format!(
                "f:spec.f:containers.k:{{\"name\":\"some-name\"}}.f:env.k:{{\"name\":\"{var}\"}}.f:valueFrom.f:secretKeyRef.f:{f}"
            ));
        }
    }
    let unexplained_theirs: Vec<&String> = only_theirs
        .iter()
        .filter(|p| !expected_only_theirs.contains(p))
        .collect();
    assert!(
        unexplained_theirs.is_empty(),
        "paths only in podset.json: {unexplained_theirs:#?}"
    );
    assert!(only_ours.is_empty(), "paths only in ours: {only_ours:#?}");
    assert_eq!(only_theirs.len(), expected_only_theirs.len());
}

#[test]
fn extract_from_the_pod_with_an_apply_entry() {
    if !present() {
        return;
    }
    let arena = Arena::new();
    let text = arena.alloc_str(&read("managedfieldsupdater_test.pod-with-apply-entry.json"));
    let pod = parse_json(&arena, text.as_bytes(), &ParseOptions::default()).expect("json");
    let schema = smpatch_schema::embedded().cursor("v1/Pod").expect("Pod");
    let cfg = extract(
        &arena,
        &pod,
        schema,
        "fieldmanager_test",
        &ExtractOptions::default(),
    )
    .expect("extract");
    assert_eq!(
        to_json_string(&cfg),
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod","labels":{"app":"nginx"}}}"#
    );
    // The reference-compatible mode gives the same content here.
    let r = extract(
        &arena,
        &pod,
        schema,
        "fieldmanager_test",
        &ExtractOptions::reference(),
    )
    .expect("extract");
    assert_eq!(to_json_string(&r), to_json_string(&cfg));
    // The entry was recorded for v1, as the object: the strict check passes.
    let strict = ExtractOptions {
        api_version_check: ApiCheck::Strict,
        ..ExtractOptions::default()
    };
    assert!(extract(&arena, &pod, schema, "fieldmanager_test", &strict).is_ok());
    // Another manager has no Apply entry: a typed error naming it.
    let e = extract(&arena, &pod, schema, "kubectl", &ExtractOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoApplyEntry);
    assert!(e.message().contains("\"kubectl\""), "{e}");
    let who = owners(&pod).expect("owners");
    assert_eq!(who.len(), 1);
    assert_eq!(path_string(&who[0].0), "f:metadata.f:labels.f:app");
    assert_eq!(who[0].1[0].manager, "fieldmanager_test");
}

#[test]
fn api_version_check_on_the_roundtrip_fixtures() {
    if !present() {
        return;
    }
    // roundtrip-1's second entry was recorded for v1beta1: on a v1 object the
    // strict check refuses it, the default ignores it (client-go).
    let arena = Arena::new();
    let entries = arena.alloc_str(&read("managedfields_test.roundtrip-1.yaml"));
    let list = parse_yaml_single(&arena, entries, &ParseOptions::default()).expect("yaml");
    let items: Vec<Value<'_>> = list
        .as_array()
        .expect("list")
        .iter()
        .map(|e| {
            // Turn the Update entries into Apply entries of one manager each.
            let members: Vec<(&str, Value<'_>)> = e
                .as_object()
                .expect("entry")
                .iter()
                .map(|(k, v)| match k {
                    "operation" => (k, Value::String("Apply")),
                    _ => (k, v),
                })
                .collect();
            Value::object_from(&arena, &members)
        })
        .collect();
    let managed = Value::array_from(&arena, &items[1..]);
    let meta = Value::object_from(
        &arena,
        &[("name", Value::String("x")), ("managedFields", managed)],
    );
    let obj = Value::object_from(
        &arena,
        &[
            ("apiVersion", Value::String("v1")),
            ("kind", Value::String("Thing")),
            ("metadata", meta),
        ],
    );
    let opts = ExtractOptions {
        validate: false,
        ..ExtractOptions::default()
    };
    let ok = extract(&arena, &obj, smpatch_schema::Cursor::UNKNOWN, "foo", &opts).expect("ignored");
    assert_eq!(
        to_json_string(&ok),
        r#"{"apiVersion":"v1","kind":"Thing","metadata":{"name":"x"}}"#
    );
    let strict = ExtractOptions {
        api_version_check: ApiCheck::Strict,
        ..opts
    };
    let e = extract(
        &arena,
        &obj,
        smpatch_schema::Cursor::UNKNOWN,
        "foo",
        &strict,
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ApiVersionMismatch);
    assert!(
        e.message().contains("\"v1beta1\"") && e.message().contains("\"foo\""),
        "{e}"
    );
}
