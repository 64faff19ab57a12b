//! Type names for `explain` and `--type-name` the way kubectl users write them: a definition
//! name or a GVK as before, and also a kind without its group
//! (`Deployment`), its plural (`deployments`) or kubectl's short name
//! (`deploy`, `svc`, `po`, ...), in any case.

use smpatch::Schema;

/// kubectl's short names of built-in resources and their kinds, as
/// `kubectl api-resources` lists them.
const SHORT_NAMES: &[(&str, &str)] = &[
    ("cm", "ConfigMap"),
    ("cj", "CronJob"),
    ("crd", "CustomResourceDefinition"),
    ("crds", "CustomResourceDefinition"),
    ("cs", "ComponentStatus"),
    ("csr", "CertificateSigningRequest"),
    ("deploy", "Deployment"),
    ("ds", "DaemonSet"),
    ("ep", "Endpoints"),
    ("ev", "Event"),
    ("hpa", "HorizontalPodAutoscaler"),
    ("ing", "Ingress"),
    ("limits", "LimitRange"),
    ("netpol", "NetworkPolicy"),
    ("no", "Node"),
    ("ns", "Namespace"),
    ("pc", "PriorityClass"),
    ("pdb", "PodDisruptionBudget"),
    ("po", "Pod"),
    ("pv", "PersistentVolume"),
    ("pvc", "PersistentVolumeClaim"),
    ("quota", "ResourceQuota"),
    ("rc", "ReplicationController"),
    ("rs", "ReplicaSet"),
    ("sa", "ServiceAccount"),
    ("sc", "StorageClass"),
    ("sts", "StatefulSet"),
    ("svc", "Service"),
];

/// True when `word` names `kind`: the kind itself, or its lower-case plural
/// (`deployments`, `ingresses`, `networkpolicies`), in any case.
fn names_kind(word: &str, kind: &str) -> bool {
    let (w, k) = (word.to_ascii_lowercase(), kind.to_ascii_lowercase());
    w == k
        || w == format!("{k}s")
        || w == format!("{k}es")
        || k.strip_suffix('y')
            .is_some_and(|stem| w == format!("{stem}ies"))
}

/// Orders versions as Kubernetes does: GA before beta before alpha, higher
/// numbers first (`v2` > `v1` > `v1beta2` > `v1beta1` > `v1alpha1`).
fn version_rank(v: &str) -> (u8, u32, u32) {
    let rest = v.strip_prefix('v').unwrap_or(v);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let major = digits.parse().unwrap_or(0);
    let tail = &rest[digits.len()..];
    let (level, minor) = if tail.is_empty() {
        (3, 0)
    } else if let Some(n) = tail.strip_prefix("beta") {
        (2, n.parse().unwrap_or(0))
    } else if let Some(n) = tail.strip_prefix("alpha") {
        (1, n.parse().unwrap_or(0))
    } else {
        (0, 0)
    };
    (level, major, minor)
}

/// The name to look `word` up by: `word` itself when a schema knows it
/// (a definition name or a GVK); otherwise the GVK of the kind it names.
/// Several groups with that kind: the core group wins, else the choice is
/// the user's (the error lists the candidates). Within a group the most
/// stable, newest version wins.
pub(crate) fn resolve(schemas: &[&Schema], word: &str) -> Result<String, String> {
    if schemas.iter().any(|s| s.cursor(word).is_some()) {
        return Ok(word.to_owned());
    }
    let kind = SHORT_NAMES
        .iter()
        .find(|(short, _)| short.eq_ignore_ascii_case(word))
        .map_or(word, |(_, kind)| kind);
    let mut found: Vec<(String, String, String)> = schemas
        .iter()
        .flat_map(|s| s.gvks())
        .filter(|g| names_kind(kind, &g.kind))
        .map(|g| {
            (
                g.group.to_string(),
                g.version.to_string(),
                g.kind.to_string(),
            )
        })
        .collect();
    // Ties (versions of equal rank, two kinds one word names) fall to the
    // version and kind texts, so the answer never depends on the order the
    // schema's (hash-keyed) tables list them in.
    found.sort_by(|a, b| {
        (a.0.as_str(), version_rank(&b.1), &a.1, &a.2).cmp(&(
            b.0.as_str(),
            version_rank(&a.1),
            &b.1,
            &b.2,
        ))
    });
    found.dedup();
    let gvk = |(g, v, k): &(String, String, String)| {
        if g.is_empty() {
            format!("{v}/{k}")
        } else {
            format!("{g}/{v}/{k}")
        }
    };
    let mut groups: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
    groups.dedup();
    match (found.first(), groups.as_slice()) {
        (None, _) => Err(format!(
            "no schema defines this type{} (give a definition name, a GVK such as \
             apps/v1/Deployment, a kind such as Deployment or a kubectl short name such as \
             deploy; a custom resource needs --schema CRD_FILE) [unknown_type]",
            closest_kind(schemas, word)
                .map(|k| format!(": did you mean \"{k}\"?"))
                .unwrap_or_default()
        )),
        (Some(first), [_]) => Ok(gvk(first)),
        (Some(first), _) if first.0.is_empty() => Ok(gvk(first)),
        (Some(_), _) => {
            let mut options: Vec<String> = Vec::new();
            for g in &groups {
                if let Some(f) = found.iter().find(|f| f.0 == *g) {
                    options.push(gvk(f));
                }
            }
            Err(format!(
                "several groups define this kind; name one: {}",
                options.join(", ")
            ))
        }
    }
}

/// The kind of `schemas` closest to a mistyped `word` (case ignored), when
/// one is within a third of its length in edits (at least one edit).
fn closest_kind(schemas: &[&Schema], word: &str) -> Option<String> {
    // A kind within a third of the word's length in edits is at least two
    // thirds as long; kinds are short (the longest built-in one has 32
    // characters), so a word over 64 is not compared at all, which also
    // keeps a huge mistaken argument from costing length x kinds work.
    if word.len() > 64 {
        return None;
    }
    let w = word.to_ascii_lowercase();
    let budget = (w.chars().count() / 3).max(1);
    schemas
        .iter()
        .flat_map(|s| s.gvks())
        .map(|g| g.kind.to_string())
        .map(|k| (edit_distance(&w, &k.to_ascii_lowercase()), k))
        .filter(|(d, _)| *d <= budget)
        .min()
        .map(|(_, k)| k)
}

/// Levenshtein distance over characters (two rows).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != *cb);
            row[j + 1] = substitute.min(prev[j + 1] + 1).min(row[j] + 1);
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_like_kubernetes() {
        let mut v = ["v1beta1", "v1", "v1alpha1", "v2", "v1beta2", "v2beta1"];
        v.sort_by_key(|v| std::cmp::Reverse(version_rank(v)));
        assert_eq!(v, ["v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1"]);
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("deploymnt", "deployment"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn closest_kinds_and_long_words() {
        let schema = smpatch::embedded_schema().unwrap();
        assert_eq!(
            closest_kind(&[schema], "Deploymnt").as_deref(),
            Some("Deployment")
        );
        assert_eq!(closest_kind(&[schema], &"Deployment".repeat(7)), None);
    }

    #[test]
    fn plurals_and_kinds() {
        assert!(names_kind("deployments", "Deployment"));
        assert!(names_kind("DEPLOYMENT", "Deployment"));
        assert!(names_kind("ingresses", "Ingress"));
        assert!(names_kind("networkpolicies", "NetworkPolicy"));
        assert!(!names_kind("deploy", "Deployment"));
    }
}
