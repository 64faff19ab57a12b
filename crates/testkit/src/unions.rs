//! Byte-driven generators of objects for the union test schemas of
//! `testdata/unions/` (`com.example.Host` and the union types it holds:
//! `Src` with discriminator `type` and members `git`, `http`; `Strict` with
//! a required discriminator `kind` and members `alpha`, `beta`; `NonDisc`
//! without a discriminator, members `a`, `b`). Values are drawn from small
//! pools so that an old and a new object often share or change their
//! discriminators, and include null, unknown and mistyped values.

use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Value as J};

fn maybe(u: &mut Unstructured<'_>, m: &mut Map<String, J>, key: &str, pool: &[J]) -> Result<()> {
    let i = u.int_in_range(0..=pool.len())?;
    if let Some(v) = pool.get(i) {
        m.insert(key.to_owned(), v.clone());
    }
    Ok(())
}

/// A `Src` object: `type` ∈ {absent, Git, Http, Local, "", Ftp, null, 7},
/// `git`/`http` ∈ {absent, object, null, {}}, `mode` ∈ {absent, Fast, Turbo}.
pub fn union_src(u: &mut Unstructured<'_>) -> Result<J> {
    let mut m = Map::new();
    maybe(
        u,
        &mut m,
        "type",
        &[
            json!("Git"),
            json!("Http"),
            json!("Local"),
            json!(""),
            json!("Ftp"),
            J::Null,
            json!(7),
        ],
    )?;
    maybe(u, &mut m, "git", &[json!({"url": "g"}), J::Null, json!({})])?;
    maybe(
        u,
        &mut m,
        "http",
        &[json!({"url": "h"}), J::Null, json!({})],
    )?;
    maybe(u, &mut m, "mode", &[json!("Fast"), json!("Turbo")])?;
    Ok(J::Object(m))
}

/// A `Strict` object (`kind` ∈ {absent, Alpha, Beta, Gamma}).
pub fn union_strict(u: &mut Unstructured<'_>) -> Result<J> {
    let mut m = Map::new();
    maybe(
        u,
        &mut m,
        "kind",
        &[json!("Alpha"), json!("Beta"), json!("Gamma")],
    )?;
    maybe(u, &mut m, "alpha", &[json!(1), J::Null])?;
    maybe(u, &mut m, "beta", &[json!("b"), J::Null])?;
    Ok(J::Object(m))
}

/// A `NonDisc` object (members `a`, `b`).
pub fn union_nondisc(u: &mut Unstructured<'_>) -> Result<J> {
    let mut m = Map::new();
    maybe(u, &mut m, "a", &[json!("x"), json!("y"), J::Null])?;
    maybe(u, &mut m, "b", &[json!("x"), J::Null])?;
    Ok(J::Object(m))
}

/// A `Host` object: unions directly, in a keyed list (`sources`, merge key
/// `name`, names distinct), a map (`strictMap`) and a positional list
/// (`plains`).
pub fn union_host(u: &mut Unstructured<'_>) -> Result<J> {
    let mut m = Map::new();
    if u.arbitrary()? {
        m.insert("src".into(), union_src(u)?);
    }
    if u.arbitrary()? {
        m.insert("strict".into(), union_strict(u)?);
    }
    if u.arbitrary()? {
        m.insert("plain".into(), union_nondisc(u)?);
    }
    if u.arbitrary()? {
        let mut list = Vec::new();
        for name in ["a", "b", "c"] {
            if u.arbitrary()? {
                let mut e = union_src(u)?;
                if let Some(o) = e.as_object_mut() {
                    o.insert("name".into(), json!(name));
                }
                list.push(e);
            }
        }
        m.insert("sources".into(), J::Array(list));
    }
    if u.arbitrary()? {
        let mut map = Map::new();
        for k in ["p", "q"] {
            if u.arbitrary()? {
                map.insert(k.into(), union_strict(u)?);
            }
        }
        m.insert("strictMap".into(), J::Object(map));
    }
    if u.arbitrary()? {
        let n = u.int_in_range(0..=3)?;
        let mut list = Vec::new();
        for _ in 0..n {
            list.push(union_nondisc(u)?);
        }
        m.insert("plains".into(), J::Array(list));
    }
    Ok(J::Object(m))
}
