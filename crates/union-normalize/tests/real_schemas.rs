//! Unions and enums of real Kubernetes OpenAPI documents (the shared
//! `openapi/` folder: v1.24 as OpenAPI v2 and v3, v1.27 swagger), so that
//! the declarations as Kubernetes publishes them (struct-level lists, enums
//! with a `default` beside them, v3 `allOf` wrappers) give the decisions of
//! docs/UNIONS.md. The folder is found through `SMPATCH_SHARED` (default:
//! `shared` beside the repository root); without it the test says so and
//! checks nothing else.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may unwrap

use smpatch_schema::Schema;
use smpatch_union_normalize::{normalize, validate, Options};
use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
use std::path::PathBuf;

fn openapi() -> Option<PathBuf> {
    let shared = std::env::var_os("SMPATCH_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = shared.join("openapi");
    dir.is_dir().then_some(dir)
}

/// `(new after normalization, cleared, [(pointer, rule)])`.
fn run(
    schema: &Schema,
    ty: &str,
    old: &str,
    new: &str,
) -> (String, Vec<String>, Vec<(String, String)>) {
    let arena = Arena::new();
    let p = |s: &str| {
        parse_json(
            &arena,
            arena.alloc_str(s).as_bytes(),
            &ParseOptions::default(),
        )
        .unwrap()
    };
    let cursor = schema.cursor(ty).expect("type");
    let opts = Options::default();
    let old = p(old);
    let n = normalize(&arena, Some(old), p(new), cursor, &opts).unwrap();
    let found = validate(Some(old), n.value, cursor, &opts).unwrap();
    (
        to_json_string(&n.value),
        n.cleared,
        found
            .into_iter()
            .map(|v| (v.path, v.rule.name().to_owned()))
            .collect(),
    )
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn seccomp_profile_in_v1_24_v2_and_v3() {
    let Some(dir) = openapi() else {
        eprintln!("real_schemas: the shared openapi folder is missing (set SMPATCH_SHARED)");
        return;
    };
    for file in [
        "kubernetes-v1.24.batch.v1.v2.json",
        "kubernetes-v1.24.batch.v1.v3.json",
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let schema = Schema::from_bytes(&bytes, file).unwrap();
        let ty = "io.k8s.api.core.v1.SeccompProfile";
        // An unknown value is V1 against the declared enum.
        let (_, cleared, found) = run(
            &schema,
            ty,
            r#"{"type":"Localhost","localhostProfile":"a"}"#,
            r#"{"type":"Bogus","localhostProfile":"a"}"#,
        );
        assert_eq!(
            (cleared, found),
            (vec![], pairs(&[("/type", "V1")])),
            "{file}"
        );
        // RuntimeDefault matches no member (the member value is the Go
        // name LocalhostProfile): nothing cleared, valid.
        let (out, cleared, found) = run(
            &schema,
            ty,
            r#"{"type":"Localhost","localhostProfile":"a"}"#,
            r#"{"type":"RuntimeDefault","localhostProfile":"a"}"#,
        );
        assert_eq!(
            out, r#"{"type":"RuntimeDefault","localhostProfile":"a"}"#,
            "{file}"
        );
        assert_eq!((cleared, found), (vec![], vec![]), "{file}");
        // Enums elsewhere in a Job, by kind: 1 is not "Always".
        let (_, _, found) = run(
            &schema,
            "io.k8s.api.batch.v1.Job",
            "{}",
            r#"{"spec":{"template":{"spec":{"containers":[{"name":"c","imagePullPolicy":1},{"name":"d","imagePullPolicy":"Never"}]}}}}"#,
        );
        assert_eq!(
            found,
            pairs(&[("/spec/template/spec/containers/0/imagePullPolicy", "enum")]),
            "{file}"
        );
    }
}

#[test]
fn flowcontrol_v1beta3_in_v1_27() {
    let Some(dir) = openapi() else {
        eprintln!("real_schemas: the shared openapi folder is missing (set SMPATCH_SHARED)");
        return;
    };
    let file = "kubernetes-v1.27.swagger.json";
    let bytes = std::fs::read(dir.join(file)).unwrap();
    let schema = Schema::from_bytes(&bytes, file).unwrap();
    // v1beta3 declares only limited -> Limited: Exempt matches no member,
    // so switching to it clears nothing and only V3 applies.
    let plc = "io.k8s.api.flowcontrol.v1beta3.PriorityLevelConfigurationSpec";
    let (out, cleared, found) = run(
        &schema,
        plc,
        r#"{"type":"Limited","limited":{}}"#,
        r#"{"type":"Exempt","limited":{}}"#,
    );
    assert_eq!(
        (out.as_str(), cleared, found),
        (r#"{"type":"Exempt","limited":{}}"#, vec![], vec![])
    );
    // Back to Limited without limited: the member is not optional (V4).
    let (_, _, found) = run(
        &schema,
        plc,
        r#"{"type":"Exempt"}"#,
        r#"{"type":"Limited"}"#,
    );
    assert_eq!(found, pairs(&[("/limited", "V4")]));
    // Subject: switching kind clears the old member; two members with the
    // kind unchanged are V3 and V5.
    let subject = "io.k8s.api.flowcontrol.v1beta3.Subject";
    let (out, cleared, found) = run(
        &schema,
        subject,
        r#"{"kind":"User","user":{"name":"u"}}"#,
        r#"{"kind":"Group","user":{"name":"u"},"group":{"name":"g"}}"#,
    );
    assert_eq!(
        (out.as_str(), cleared, found),
        (
            r#"{"kind":"Group","group":{"name":"g"}}"#,
            vec!["/user".to_owned()],
            vec![]
        )
    );
    let (_, cleared, found) = run(
        &schema,
        subject,
        r#"{"kind":"User","user":{"name":"u"}}"#,
        r#"{"kind":"User","user":{"name":"u"},"group":{"name":"g"}}"#,
    );
    assert_eq!(
        (cleared, found),
        (vec![], pairs(&[("", "V3"), ("/group", "V5")]))
    );
}
