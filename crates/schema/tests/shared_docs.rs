//! Real documents from `../shared`: everything loads, and the v2 and v3 forms
//! of the same types answer identical metadata.
#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

mod common;

use std::collections::BTreeSet;

use common::{dump, load, shared};
use smpatch_schema::{Schema, Strategy};

/// Every definition both documents have dumps identically.
fn assert_same(v2: &Schema, v3: &Schema, what: &str) -> usize {
    let n2: BTreeSet<&str> = v2.definition_names().collect();
    let n3: BTreeSet<&str> = v3.definition_names().collect();
    let common: Vec<&&str> = n2.intersection(&n3).collect();
    assert!(!common.is_empty(), "{what}: no common definitions");
    // Only v2 may have extra definitions (the API server adds the types of
    // its own paths to v2); every v3 type must be in v2.
    let only3: Vec<_> = n3.difference(&n2).collect();
    assert!(only3.is_empty(), "{what}: only in v3: {only3:?}");
    let mut diffs = Vec::new();
    for name in &common {
        let a = dump(v2.cursor(name).unwrap(), true);
        let b = dump(v3.cursor(name).unwrap(), true);
        if a != b {
            diffs.push(format!("{name}\n  v2: {a}\n  v3: {b}"));
        }
    }
    assert!(
        diffs.is_empty(),
        "{what}: {} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    // GVK index agrees too.
    let g2: BTreeSet<String> = v2.gvks().map(|g| g.to_string()).collect();
    let g3: BTreeSet<String> = v3.gvks().map(|g| g.to_string()).collect();
    assert!(
        g3.is_subset(&g2),
        "{what}: GVKs only in v3: {:?}",
        g3.difference(&g2).collect::<Vec<_>>()
    );
    common.len()
}

#[test]
fn conformance_schemas_v2_v3_agree() {
    if !common::present() {
        return;
    }
    for stem in ["merge-item", "precision-item"] {
        let v2 = load(&format!("conformance/schemas/{stem}.v2.json"));
        let v3 = load(&format!("conformance/schemas/{stem}.v3.json"));
        assert_same(&v2, &v3, stem);
    }
    for file in ["merge-item.v2.json", "merge-item.v3.json"] {
        let s = load(&format!("conformance/schemas/{file}"));
        let item = s.cursor("mergeItem").unwrap();
        let ml = item.lookup_list("mergingList").unwrap();
        assert_eq!(ml.meta.strategy, Strategy::Merge, "{file}");
        assert_eq!(ml.meta.merge_key(), Some("name"), "{file}");
        assert_eq!(ml.cursor.type_name(), Some("mergeItem"), "{file}");
        // Recursive type: the element of mergingList is mergeItem again.
        let again = ml.cursor.lookup_list("mergingList").unwrap();
        assert_eq!(again.meta.merge_key(), Some("name"), "{file}");
        let nml = item.lookup_list("nonMergingList").unwrap();
        assert_eq!(nml.meta.strategy, Strategy::None, "{file}");
    }
}

#[test]
fn every_shared_openapi_document_loads() {
    if !common::present() {
        return;
    }
    let mut count = 0;
    for dir in ["openapi", "openapi/crds"] {
        for e in std::fs::read_dir(shared().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "json") {
                let s = Schema::load_path(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                assert!(s.definition_names().count() > 0, "{}", p.display());
                count += 1;
            }
        }
    }
    assert!(count >= 15, "{count}");
    // A whole directory loads into one schema (later names win).
    let all = Schema::load_path(shared().join("openapi")).unwrap();
    assert!(all.cursor("batch/v1/Job").is_some());
}

#[test]
fn kubernetes_v2_v3_pairs_agree() {
    if !common::present() {
        return;
    }
    for group in ["api.v1", "apiextensions.k8s.io.v1", "batch.v1"] {
        let v2 = load(&format!("openapi/kubernetes-v1.24.{group}.v2.json"));
        let v3 = load(&format!("openapi/kubernetes-v1.24.{group}.v3.json"));
        let n = assert_same(&v2, &v3, group);
        assert!(n > 10, "{group}: {n}");
    }
}

#[test]
fn crd_v2_v3_pairs_agree() {
    if !common::present() {
        return;
    }
    for stem in [
        "container_v1beta1_containercluster",
        "dataproc_v1beta1_dataprocworkflowtemplate",
        "monitoring_v1beta1_monitoringdashboard",
        "storagetransfer_v1beta1_storagetransferjob",
    ] {
        let v2 = load(&format!("openapi/crds/{stem}.v2.json"));
        let v3 = load(&format!("openapi/crds/{stem}.v3.json"));
        assert_same(&v2, &v3, stem);
    }
    let s = load("openapi/crds/container_v1beta1_containercluster.v3.json");
    let c = s
        .cursor("container.cnrm.cloud.google.com/v1beta1/ContainerCluster")
        .unwrap();
    assert_eq!(
        c.type_name(),
        Some("com.google.cloud.cnrm.container.v1beta1.ContainerCluster")
    );
    assert!(c.lookup_object("spec").is_ok());
}

#[test]
fn swagger_1_27_loads() {
    if !common::present() {
        return;
    }
    let s = load("openapi/kubernetes-v1.27.swagger.json");
    assert!(s.definition_names().count() >= 490);
    let pod = s
        .cursor("v1/Pod")
        .unwrap()
        .lookup_object("spec")
        .unwrap()
        .cursor;
    let v = pod.lookup_list("volumes").unwrap();
    assert_eq!(v.meta.strategy, Strategy::Merge);
    assert!(v.meta.retain_keys);
    // Format A unions are read.
    let subj = s.cursor("io.k8s.api.flowcontrol.v1beta3.Subject").unwrap();
    assert_eq!(subj.unions().len(), 1);
    assert_eq!(subj.unions()[0].discriminator.as_deref(), Some("kind"));
    assert_eq!(subj.unions()[0].members.len(), 3);
    // The 1.27 and the embedded 1.37 schema agree on the Deployment path.
    let emb = smpatch_schema::embedded();
    for s in [&s, emb] {
        let spec = s
            .cursor("apps/v1/Deployment")
            .unwrap()
            .lookup_object("spec")
            .unwrap()
            .cursor;
        let t = spec
            .lookup_object("template")
            .unwrap()
            .cursor
            .lookup_object("spec")
            .unwrap()
            .cursor;
        assert_eq!(
            t.lookup_list("containers").unwrap().meta.merge_key(),
            Some("name")
        );
    }
}
