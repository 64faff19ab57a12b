//! Helpers shared by the fuzz targets: the conformance schema, loaded once.
//!
//! The schema is read at start-up from `$SMPATCH_SHARED/conformance/schemas/
//! merge-item.v2.json` (default: `../shared` beside the repository); when the
//! folder is missing the embedded Kubernetes schema is used instead, with
//! `v1/Pod` as the type, so the targets still run.

use smpatch::{Schema, TypeRef};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The schema and type the patch targets use.
pub struct Target {
    /// The compiled schema.
    pub schema: &'static Schema,
    /// The type of the documents.
    pub ty: TypeRef,
}

fn shared_dir() -> PathBuf {
    match std::env::var_os("SMPATCH_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// The conformance `mergeItem` schema, or the embedded one when missing.
pub fn target() -> &'static Target {
    static T: OnceLock<Target> = OnceLock::new();
    T.get_or_init(|| {
        let path = shared_dir().join("conformance/schemas/merge-item.v2.json");
        match smpatch::load_schema(&path) {
            Ok(s) => Target {
                schema: Box::leak(Box::new(s)),
                ty: TypeRef::Definition("mergeItem".into()),
            },
            Err(e) => {
                eprintln!(
                    "fuzz: {} not loaded ({e}); using the embedded schema",
                    path.display()
                );
                Target {
                    schema: smpatch::embedded_schema().expect("embedded schema compiles"),
                    ty: TypeRef::Gvk("v1/Pod".into()),
                }
            }
        }
    })
}

/// Splits fuzz input in two at the first `0xFF` byte (never valid UTF-8),
/// or in the middle when there is none.
pub fn split2(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => data.split_at(data.len() / 2),
    }
}

/// Directive keys (`$patch`, `$retainKeys`, …) anywhere in a value.
pub fn has_directive_keys(v: &serde_json::Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    if k.starts_with('$') {
                        return true;
                    }
                    stack.push(v);
                }
            }
            serde_json::Value::Array(l) => stack.extend(l),
            _ => {}
        }
    }
    false
}

/// Deep equality up to the YAML writer's documented number changes
/// (`to_yaml_string`: integral floats read back as integers, integers beyond
/// `u64` as floats): numbers compare by their `f64` value, and a number
/// beyond `f64` (`1e400`, only our parser keeps those) may read back as the
/// string of its literal, as kubectl's YAML reader does.
pub fn eq_yaml(a: &smpatch_value::Value<'_>, b: &smpatch_value::Value<'_>) -> bool {
    use smpatch_value::Value as V;
    let mut stack = vec![(*a, *b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (V::Number(x), V::Number(y)) => {
                if !(x.same_value(&y) || x.as_f64() == y.as_f64()) {
                    return false;
                }
            }
            (V::Number(x), V::String(y)) if !x.as_f64().is_finite() && x.literal() == y => {}
            (V::Array(x), V::Array(y)) if x.len() == y.len() => {
                stack.extend(x.iter().copied().zip(y.iter().copied()));
            }
            (V::Object(x), V::Object(y)) if x.len() == y.len() => {
                for (k, v) in x.iter() {
                    match y.get(k) {
                        Some(w) => stack.push((v, w)),
                        None => return false,
                    }
                }
            }
            (V::Array(_) | V::Object(_), _) | (_, V::Array(_) | V::Object(_)) => return false,
            (x, y) => {
                if !x.deep_eq(&y) {
                    return false;
                }
            }
        }
    }
    true
}
