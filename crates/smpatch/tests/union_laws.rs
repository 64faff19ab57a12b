//! Laws of union normalization (KEP-1027), on random old/new pairs of the
//! `testdata/unions/` schemas (both declaration formats, OpenAPI v2 and v3):
//! normalization is idempotent; after a discriminator change at most the
//! selected member is set; objects whose type declares no union come back
//! unchanged; validating a normalized object whose discriminator changed
//! reports no V3 or V5 for that union.

use proptest::prelude::*;
use serde_json::Value as J;
use smpatch::{normalize_json, validate_json, Rule, Schema, TypeRef, UnionOptions};
use std::path::PathBuf;
use std::sync::OnceLock;

fn schemas() -> &'static [(bool, Schema)] {
    static S: OnceLock<Vec<(bool, Schema)>> = OnceLock::new();
    S.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/unions");
        let mut out = Vec::new();
        for (struct_level, stem) in [(false, "fieldMembers"), (true, "struct-level")] {
            for v in [2, 3] {
                let s = smpatch::load_schema(dir.join(format!("{stem}.v{v}.json")))
                    .expect("test schema loads");
                out.push((struct_level, s));
            }
        }
        out
    })
}

fn host() -> TypeRef {
    TypeRef::Definition("com.example.Host".into())
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..200)
}

fn doc() -> impl Strategy<Value = J> {
    bytes().prop_map(|b| smpatch_testkit::from_bytes(&b, smpatch_testkit::union_host))
}

fn disc(v: &J) -> Option<&str> {
    v.get("type").and_then(J::as_str)
}

/// The `Src` unions of a Host as (pointer, old, new) with old paired as the
/// normalizer pairs it (`src` directly, `sources` by `name`).
fn src_pairs<'a>(old: &'a J, new: &'a J) -> Vec<(String, J, &'a J)> {
    let mut out = Vec::new();
    if let Some(n) = new.get("src") {
        out.push((
            "/src".to_owned(),
            old.get("src").cloned().unwrap_or(J::Null),
            n,
        ));
    }
    if let Some(list) = new.get("sources").and_then(J::as_array) {
        for (i, e) in list.iter().enumerate() {
            let o = old
                .get("sources")
                .and_then(J::as_array)
                .and_then(|l| l.iter().find(|x| x.get("name") == e.get("name")))
                .cloned()
                .unwrap_or(J::Null);
            out.push((format!("/sources/{i}"), o, e));
        }
    }
    out
}

/// True when normalization must have acted on this union: its
/// discriminator changed (struct-level: to a value naming a member).
fn changed(struct_level: bool, old: &J, new: &J) -> bool {
    if struct_level {
        disc(old) != disc(new) && matches!(disc(new), Some("Git" | "Http"))
    } else {
        disc(old).unwrap_or("") != disc(new).unwrap_or("")
    }
}

fn set(v: &J, f: &str) -> bool {
    v.get(f).is_some_and(|x| !x.is_null())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn normalization_is_idempotent(old in doc(), new in doc(), nd in any::<bool>()) {
        let opts = UnionOptions { non_discriminated_update: nd, ..UnionOptions::default() };
        for (_, s) in schemas() {
            let once = normalize_json(Some(&old), &new, s, &host(), &opts).expect("normalize");
            let twice = normalize_json(Some(&old), &once.object, s, &host(), &opts).expect("normalize");
            prop_assert_eq!(&twice.object, &once.object);
            prop_assert!(twice.cleared.is_empty(), "cleared again: {:?}", twice.cleared);
        }
    }

    #[test]
    fn after_a_discriminator_change_at_most_the_selected_member_is_set(old in doc(), new in doc()) {
        for (struct_level, s) in schemas() {
            let n = normalize_json(Some(&old), &new, s, &host(), &UnionOptions::default()).expect("normalize");
            let found = validate_json(Some(&old), &n.object, s, &host(), &UnionOptions::default()).expect("validate");
            for (at, o, before) in src_pairs(&old, &new) {
                if !changed(*struct_level, &o, before) {
                    continue;
                }
                let after = src_pairs(&old, &n.object)
                    .into_iter()
                    .find(|(p, _, _)| *p == at)
                    .map(|(_, _, v)| v.clone())
                    .unwrap_or(J::Null);
                let selected = match disc(before) { Some("Git") => "git", Some("Http") => "http", _ => "" };
                for m in ["git", "http"] {
                    prop_assert!(m == selected || !set(&after, m), "{} still has {} after type {:?}", at, m, disc(before));
                }
                // Validation of the normalized object: no V3/V5 for it.
                for v in &found {
                    let mine = v.path == at || v.path.starts_with(&format!("{at}/"));
                    prop_assert!(!(mine && matches!(v.rule, Rule::V3 | Rule::V5)), "{:?}", v);
                }
            }
        }
    }

    #[test]
    fn types_without_unions_come_back_unchanged(old in doc(), new in doc(), any_json in bytes()) {
        let other = smpatch_testkit::from_bytes(&any_json, |u| smpatch_testkit::json_value(u, 4));
        let repo = TypeRef::Definition("com.example.Repo".into());
        for (_, s) in schemas() {
            // Repo declares no union and no enum.
            let doc = serde_json::json!({"url": other.clone(), "x": other.clone()});
            let n = normalize_json(None, &doc, s, &repo, &UnionOptions::default()).expect("normalize");
            prop_assert_eq!(&n.object, &doc);
            prop_assert!(n.cleared.is_empty());
            // NonDisc unions are left alone without the opt-in update rule.
            let n = normalize_json(Some(&old), &new, s, &host(), &UnionOptions::default()).expect("normalize");
            prop_assert_eq!(n.object.get("plain"), new.get("plain"));
            prop_assert_eq!(n.object.get("plains"), new.get("plains"));
        }
    }
}
