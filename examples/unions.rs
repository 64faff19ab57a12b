//! Union (one-of) normalization and validation, as an API server does after
//! merging a patch (KEP-1027 for unions, KEP-2887 for enums).
//!
//! A PriorityLevelConfiguration's `spec.type` is the discriminator of the
//! union `limited` / `exempt`. A patch that switches `type` to `Exempt`
//! and adds `exempt` leaves `limited` in place after a plain strategic
//! merge; the server pipeline clears it (the discriminator changed) and
//! then validates the result. The CLI: `smpatch patch --normalize-unions`
//! and `smpatch validate`.
//!
//! `cargo run -p smpatch-examples --example unions`

use serde_json::json;
use smpatch::{
    apply_json, server_apply_json, validate_json, ApplyOptions, PipelineError, TypeRef,
    UnionOptions,
};

fn main() -> Result<(), smpatch::Error> {
    let schema = smpatch::embedded_schema()?;
    let ty = TypeRef::Detect;
    let live = json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration", "metadata": {"name": "batch"},
        "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 10}}});
    let patch = json!({"spec": {"type": "Exempt", "exempt": {}}});

    // The strategic merge alone keeps both members ...
    let merged = apply_json(&live, &patch, schema, &ty, &ApplyOptions::default())?;
    assert!(merged["spec"].get("limited").is_some());
    // ... which breaks the union: validation says which rule and where.
    let violations = validate_json(Some(&live), &merged, schema, &ty, &UnionOptions::default())?;
    for v in &violations {
        println!("violation: {v}");
    }
    assert!(!violations.is_empty());

    // The server pipeline: merge, normalize against the live object, validate.
    let out = server_apply_json(
        &live,
        &patch,
        schema,
        &ty,
        &ApplyOptions::default(),
        &UnionOptions::default(),
    )
    .map_err(|e| e.to_error())?;
    println!(
        "{}\ncleared: {:?}",
        serde_json::to_string_pretty(&out.object).unwrap_or_default(),
        out.cleared
    );
    assert_eq!(out.object["spec"], json!({"type": "Exempt", "exempt": {}}));
    assert_eq!(out.cleared, ["/spec/limited"]);

    // A request that names a member the discriminator does not select, and
    // leaves the discriminator alone, is not normalized but refused.
    let bad = json!({"spec": {"exempt": {}}});
    match server_apply_json(
        &live,
        &bad,
        schema,
        &ty,
        &ApplyOptions::default(),
        &UnionOptions::default(),
    ) {
        Err(PipelineError::Invalid(v)) => {
            println!("refused: {}", v[0]);
            assert!(v.iter().any(|v| v.path == "/spec"), "{v:?}");
        }
        other => panic!("expected a validation error, got {other:?}"),
    }
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
