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

/// The managedFields list of `file` as JSON, every entry's `operation`
/// replaced by `operation` when given.
fn fixture_entries(file: &str, operation: Option<&str>) -> serde_json::Value {
    let arena = Arena::new();
    let text = arena.alloc_str(&read(file));
    let list = parse_yaml_single(&arena, text, &ParseOptions::default()).expect("yaml");
    let mut json: serde_json::Value = serde_json::from_str(&to_json_string(&list)).expect("json");
    if let (Some(op), Some(items)) = (operation, json.as_array_mut()) {
        for e in items {
            e["operation"] = op.into();
        }
    }
    json
}

/// Extracts `manager` from `live` (its managedFields set to `entries`)
/// with the embedded schema's `ty`: the text of the result, or the error
/// kind's name.
fn extract_text(
    mut live: serde_json::Value,
    entries: serde_json::Value,
    ty: &str,
    manager: &str,
    opts: &ExtractOptions,
) -> String {
    live["metadata"]["managedFields"] = entries;
    let arena = Arena::new();
    let v = smpatch_value::from_serde(&arena, &live, 256).expect("live");
    let cursor = smpatch_schema::embedded().cursor(ty).expect("type");
    match extract(&arena, &v, cursor, manager, opts) {
        Ok(v) => to_json_string(&v),
        Err(e) => e.kind().name().to_owned(),
    }
}

/// Every manager of every real managedFields list, on a live object of the
/// kind its set describes. Apply entries extract what they own (owned
/// `f:apiVersion`, `f:kind`, `f:metadata.f:name` are the identity fields,
/// not repeated); Update entries give no configuration (an error by
/// default, identity only in the reference mode); the Update sets of
/// roundtrip-3 and -5, read as Apply entries, show the typed rules: `i:`
/// never matches, paths into atomic values (LabelSelector, the atomic
/// `versions` and `shortNames`) are omitted by default and come back whole
/// in the reference mode, a misspelt field (`f:medatada`) matches nothing.
#[test]
fn extract_every_manager_of_the_roundtrip_fixtures() {
    use serde_json::json;
    if !present() {
        return;
    }
    let d = ExtractOptions::default();
    let r = ExtractOptions::reference();
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx", "tty": true},
                                {"name": "d", "image": "busybox"}]}});
    let e2 = fixture_entries("managedfields_test.roundtrip-2.yaml", None);
    let want = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}"#;
    assert_eq!(
        extract_text(pod.clone(), e2.clone(), "v1/Pod", "foo", &d),
        want
    );
    assert_eq!(extract_text(pod, e2, "v1/Pod", "foo", &r), want);

    let sc = json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "fast"}, "provisioner": "kubernetes.io/glusterfs",
        "allowVolumeExpansion": true, "reclaimPolicy": "Delete",
        "parameters": {"resturl": "http://gluster:8080", "restuser": "admin"}});
    let e4 = fixture_entries("managedfields_test.roundtrip-4.yaml", None);
    let want = r#"{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"fast"},"provisioner":"kubernetes.io/glusterfs","allowVolumeExpansion":true}"#;
    let ty = "storage.k8s.io/v1/StorageClass";
    assert_eq!(extract_text(sc.clone(), e4.clone(), ty, "foo", &d), want);
    assert_eq!(extract_text(sc.clone(), e4.clone(), ty, "foo", &r), want);
    let strict = ExtractOptions {
        api_version_check: ApiCheck::Strict,
        ..ExtractOptions::default()
    };
    // The entry was recorded for "v1", the object is storage.k8s.io/v1.
    assert_eq!(
        extract_text(sc, e4, ty, "foo", &strict),
        "api_version_mismatch"
    );

    let dep = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "nginx", "team": "x"}},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "nginx"}},
                 "template": {"metadata": {"labels": {"app": "nginx"}},
                              "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25",
                                                       "ports": [{"containerPort": 80}]}]}}}});
    let ty = "apps/v1/Deployment";
    let e3 = fixture_entries("managedfields_test.roundtrip-3.yaml", None);
    assert_eq!(
        extract_text(dep.clone(), e3.clone(), ty, "foo", &d),
        "no_apply_entry"
    );
    assert_eq!(
        extract_text(dep.clone(), e3, ty, "foo", &r),
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}}"#
    );
    let e3 = fixture_entries("managedfields_test.roundtrip-3.yaml", Some("Apply"));
    assert_eq!(
        extract_text(dep.clone(), e3.clone(), ty, "foo", &d),
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"nginx"}},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.25"}]}}}}"#
    );
    assert_eq!(
        extract_text(dep, e3, ty, "foo", &r),
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"nginx"}},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"nginx"}},"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.25","ports":null}]}}}}"#
    );

    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com",
                 "names": {"kind": "Widget", "plural": "widgets", "singular": "widget",
                           "shortNames": ["wd"], "listKind": "WidgetList"},
                 "scope": "Namespaced",
                 "versions": [{"name": "v1", "served": true, "storage": true}]}});
    let ty = "apiextensions.k8s.io/v1/CustomResourceDefinition";
    let e5 = fixture_entries("managedfields_test.roundtrip-5.yaml", Some("Apply"));
    assert_eq!(
        extract_text(crd.clone(), e5.clone(), ty, "foo", &d),
        r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":{"kind":"Widget","plural":"widgets","singular":"widget"},"scope":"Namespaced"}}"#
    );
    assert_eq!(
        extract_text(crd, e5, ty, "foo", &r),
        r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":{"kind":"Widget","plural":"widgets","singular":"widget","shortNames":["wd"]},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true}]}}"#
    );

    // roundtrip-6: an Update entry of the scale subresource.
    let scaled = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"}, "spec": {"replicas": 5}});
    let e6 = fixture_entries("managedfields_test.roundtrip-6.yaml", None);
    let scale = ExtractOptions {
        subresource: "scale".into(),
        ..ExtractOptions::default()
    };
    assert_eq!(
        extract_text(
            scaled.clone(),
            e6.clone(),
            "apps/v1/Deployment",
            "foo",
            &scale
        ),
        "no_apply_entry"
    );
    let e6 = fixture_entries("managedfields_test.roundtrip-6.yaml", Some("Apply"));
    assert_eq!(
        extract_text(
            scaled.clone(),
            e6.clone(),
            "apps/v1/Deployment",
            "foo",
            &scale
        ),
        r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":5}}"#
    );
    // The main resource has no entry of its own.
    assert_eq!(
        extract_text(scaled, e6, "apps/v1/Deployment", "foo", &d),
        "no_apply_entry"
    );
}

/// The real Pod as an applier's configuration: its Apply set reads back
/// from its canonical bytes, and extracting it from the Pod (with that set
/// as the manager's Apply entry, plus a field of another manager) gives
/// back a configuration whose set is exactly the entry's, in both modes.
#[test]
fn the_real_pod_round_trips_through_its_apply_set_and_extract() {
    if !present() {
        return;
    }
    let arena = Arena::new();
    let pod = pod(&arena);
    let cursor = smpatch_schema::embedded().cursor("v1/Pod").expect("Pod");
    let set = fields_of(&pod, cursor, &FieldsOptions::default()).expect("apply set");
    let text = set.to_json();
    assert_eq!(FieldSet::from_json(text.as_bytes()).expect("reads"), set);
    let f = |n: &str| smpatch_fieldsets::PathElement::Field(n.to_owned());
    for stripped in [
        vec![f("apiVersion")],
        vec![f("kind")],
        vec![f("metadata"), f("name")],
        vec![f("metadata"), f("namespace")],
    ] {
        assert!(!set.has(&stripped), "{}", path_string(&stripped));
    }

    let mut live: serde_json::Value =
        serde_json::from_str(&to_json_string(&pod)).expect("pod as json");
    let fields_v1: serde_json::Value = serde_json::from_str(&text).expect("set as json");
    live["metadata"]["managedFields"] = serde_json::json!([
        {"manager": "other", "operation": "Update", "apiVersion": "v1",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:annotations": {"f:x": {}}}}},
        {"manager": "applier", "operation": "Apply", "apiVersion": "v1",
         "fieldsType": "FieldsV1", "fieldsV1": fields_v1}]);
    live["metadata"]["annotations"] = serde_json::json!({"x": "owned by another manager"});
    let live = smpatch_value::from_serde(&arena, &live, 256).expect("live");
    for opts in [ExtractOptions::default(), ExtractOptions::reference()] {
        let cfg = extract(&arena, &live, cursor, "applier", &opts).expect("extract");
        let back = fields_of(&cfg, cursor, &FieldsOptions::default()).expect("set of cfg");
        assert_eq!(back.to_json(), text, "{opts:?}");
        assert!(!to_json_string(&cfg).contains("owned by another manager"));
    }
}
