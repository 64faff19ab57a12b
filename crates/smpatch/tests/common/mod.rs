//! Helpers shared by the law and atomicity suites: the conformance
//! `mergeItem` schema and proptest strategies over smpatch-testkit's
//! byte-driven generators.

#![allow(dead_code)] // each suite uses part of this module

use proptest::prelude::*;
use smpatch::{Schema, TypeRef};
use std::sync::OnceLock;

/// The shared conformance `mergeItem` schema; `None` (with testkit's notice;
/// a failure when `SMPATCH_REQUIRE_SHARED=1`) when the shared folder is
/// missing.
pub fn merge_item() -> Option<&'static Schema> {
    static S: OnceLock<Option<Schema>> = OnceLock::new();
    S.get_or_init(|| {
        let path = smpatch_testkit::shared_path("conformance/schemas/merge-item.v2.json")?;
        match smpatch::load_schema(&path) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("notice: {} not loaded ({e}); suite skipped", path.display());
                None
            }
        }
    })
    .as_ref()
}

/// The type of the documents.
pub fn ty() -> TypeRef {
    TypeRef::Definition("mergeItem".into())
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..600)
}

/// A well-formed `mergeItem` document (testkit's `merge_item_doc`).
pub fn doc() -> impl Strategy<Value = serde_json::Value> {
    bytes().prop_map(|b| smpatch_testkit::from_bytes(&b, |u| smpatch_testkit::merge_item_doc(u, 3)))
}

/// A directive-rich `mergeItem` patch (testkit's `merge_item_patch`).
pub fn patch() -> impl Strategy<Value = serde_json::Value> {
    bytes()
        .prop_map(|b| smpatch_testkit::from_bytes(&b, |u| smpatch_testkit::merge_item_patch(u, 3)))
}

/// Any JSON value (testkit's `json_value`).
pub fn json() -> impl Strategy<Value = serde_json::Value> {
    bytes().prop_map(|b| smpatch_testkit::from_bytes(&b, |u| smpatch_testkit::json_value(u, 4)))
}
