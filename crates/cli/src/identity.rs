//! Which object a document is: `diff` compares two versions of one object,
//! so it refuses documents of different kinds, names or namespaces unless
//! `--force` says the mismatch is meant.

use smpatch_value::Value;

/// The `kind/name` (with `namespace/` in front when set) of a document, for
/// messages.
fn describe(kind: &str, namespace: &str, name: &str) -> String {
    let kind = if kind.is_empty() { "(no kind)" } else { kind };
    let name = if name.is_empty() { "(no name)" } else { name };
    if namespace.is_empty() {
        format!("{kind}/{name}")
    } else {
        format!("{kind} {namespace}/{name}")
    }
}

fn parts<'a>(doc: &Value<'a>) -> (&'a str, &'a str, &'a str) {
    let s = |v: Option<Value<'a>>| v.and_then(|v| v.as_str()).unwrap_or("");
    let meta = doc.get("metadata");
    (
        s(doc.get("kind")),
        s(meta.and_then(|m| m.get("namespace"))),
        s(meta.and_then(|m| m.get("name"))),
    )
}

/// `None` when `original` and `modified` are the same object (same kind,
/// name and namespace, a missing field matching anything); otherwise the
/// message saying how they differ.
pub(crate) fn mismatch(original: &Value<'_>, modified: &Value<'_>) -> Option<String> {
    let (o, m) = (parts(original), parts(modified));
    let differ = |a: &str, b: &str| !a.is_empty() && !b.is_empty() && a != b;
    if differ(o.0, m.0) || differ(o.1, m.1) || differ(o.2, m.2) {
        Some(format!(
            "the documents are different objects ({} and {}); pass --force to diff them anyway",
            describe(o.0, o.1, o.2),
            describe(m.0, m.1, m.2)
        ))
    } else {
        None
    }
}
