//! The corpus operations of `benches/benches/objects.rs`, once, for the
//! bench and the `objects_profile` example (each includes this file with
//! `#[path]`): preparing a case of `smpatch_benches::objects` (schema, live
//! object, checks) and running one facade call on it.

use serde_json::Value as Json;
use smpatch::apply_flow::{client_apply_bytes, client_apply_json, ClientApplyOptions};
use smpatch::fieldsets::FieldsOptions;
use smpatch::{
    ApplyOptions, CreateOptions, OnConflict, Schema, ThreeWayDocs, TypeRef, UnionOptions,
};
use smpatch_benches::objects::ObjectCase;
use std::hint::black_box;

/// The operations of the bench, by group name.
pub const OPS: [&str; 6] = [
    "apply",
    "create2",
    "create3",
    "client_apply",
    "server_apply",
    "fields",
];

/// How a call takes and gives its documents.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    /// serde_json parse of every input and write of the result (baseline).
    Serde,
    /// The facade's `*_bytes` call.
    Bytes,
    /// The facade's `*_json` call on values parsed beforehand.
    Json,
}

/// One case, prepared: its schema, type and every document as bytes and
/// as serde_json values.
pub struct Prepared {
    pub label: &'static str,
    pub schema: Schema,
    pub ty: TypeRef,
    /// Input bytes per operation (for throughput).
    docs: [Vec<u8>; 5],
    values: [Json; 5],
    /// The expected result of each operation (the baseline writes it).
    results: Vec<Json>,
}

const O: usize = 0;
const M: usize = 1;
/// The live object: `original` plus the server's fields.
const CUR: usize = 2;
/// The live object as `kubectl apply` left it: the last-applied
/// annotation of `original` and the server's fields.
const LIVE: usize = 3;
/// The change as a strategic merge patch (create2's answer).
const PATCH: usize = 4;

pub fn json(bytes: &[u8]) -> Json {
    serde_json::from_slice(bytes).unwrap()
}

/// The options of every call.
#[derive(Default)]
pub struct Opts {
    pub apply: ApplyOptions,
    pub create: CreateOptions,
    /// kubectl's default (`--overwrite`): without it the new annotation
    /// itself conflicts with the live one, as in the reference.
    pub flow: ClientApplyOptions,
    pub unions: UnionOptions,
    pub fields: FieldsOptions,
}

/// Builds the documents of `case` and checks the results once: apply of
/// create2's patch gives the edit; create3's patch applied to the live
/// object gives the edit plus the server's fields; so does the kubectl
/// flow.
pub fn prepare(case: &ObjectCase) -> Prepared {
    let embedded = smpatch::embedded_schema().unwrap();
    let schema = match &case.crd {
        Some(crd) => embedded
            .clone()
            .merge(Schema::from_bytes(crd.as_bytes(), "crd.json").unwrap()),
        None => embedded.clone(),
    };
    let ty = TypeRef::Gvk(case.type_name.into());
    let opts = Opts::default();
    let (aopts, copts, flow) = (&opts.apply, &opts.create, &opts.flow);
    let (o, m, s) = (
        case.original.as_bytes(),
        case.modified.as_bytes(),
        case.server.as_bytes(),
    );
    let current = smpatch::apply_bytes(o, s, &schema, &ty, aopts).unwrap();
    let expected_live = smpatch::apply_bytes(m, s, &schema, &ty, aopts).unwrap();
    let patch = smpatch::create_two_way_bytes(o, m, &schema, &ty, copts).unwrap();
    let applied = smpatch::apply_bytes(o, &patch, &schema, &ty, aopts).unwrap();
    assert_eq!(json(&applied), json(m), "apply(create2) of {}", case.label);
    let docs = ThreeWayDocs::new(o, m, &current[..]);
    let p3 = smpatch::create_three_way_bytes(docs, &schema, &ty, OnConflict::Fail, copts).unwrap();
    let after = smpatch::apply_bytes(&current, &p3, &schema, &ty, aopts).unwrap();
    assert_eq!(
        json(&after),
        json(&expected_live),
        "apply(create3) of {}",
        case.label
    );
    // The kubectl flow: the object created by applying `original`, then
    // the server's fields; applying `modified` to it.
    let created = client_apply_bytes(o, None, &schema, &ty, flow).unwrap();
    let live = smpatch::apply_bytes(&created.merged, s, &schema, &ty, aopts).unwrap();
    let fresh = client_apply_bytes(m, None, &schema, &ty, flow).unwrap();
    let want = smpatch::apply_bytes(&fresh.merged, s, &schema, &ty, aopts).unwrap();
    let got = client_apply_bytes(m, Some(&live), &schema, &ty, flow).unwrap();
    assert!(got.warning.is_none(), "{}", case.label);
    assert_eq!(
        json(&got.merged),
        json(&want),
        "client apply of {}",
        case.label
    );
    let docs = [o.to_vec(), m.to_vec(), current, live, patch];
    let values = [
        json(&docs[0]),
        json(&docs[1]),
        json(&docs[2]),
        json(&docs[3]),
        json(&docs[4]),
    ];
    let mut p = Prepared {
        label: case.label,
        schema,
        ty,
        docs,
        values,
        results: Vec::new(),
    };
    let results: Vec<Json> = OPS
        .iter()
        .map(|op| json(&run(&p, op, Form::Bytes, &opts).1))
        .collect();
    p.results = results;
    p
}

impl Prepared {
    /// The input documents of `op`.
    pub fn inputs(&self, op: &str) -> Vec<&[u8]> {
        let idx: &[usize] = match op {
            "apply" | "server_apply" => &[CUR, PATCH],
            "create2" => &[O, M],
            "create3" => &[O, M, CUR],
            "client_apply" => &[M, LIVE],
            "fields" => &[CUR],
            _ => panic!("unknown op {op}"),
        };
        idx.iter().map(|&i| &self.docs[i][..]).collect()
    }
}

/// Runs `op` on `p` in `form`: a size of the result, and (for
/// [`Form::Bytes`], else empty) the result's bytes.
pub fn run(p: &Prepared, op: &str, form: Form, opts: &Opts) -> (usize, Vec<u8>) {
    let (schema, ty) = (&p.schema, &p.ty);
    let d = |i: usize| &p.docs[i][..];
    let v = |i: usize| &p.values[i];
    let (aopts, copts, fail) = (&opts.apply, &opts.create, OnConflict::Fail);
    if form == Form::Serde {
        let i = OPS.iter().position(|o| *o == op).unwrap();
        for doc in p.inputs(op) {
            black_box(serde_json::from_slice::<Json>(doc).unwrap());
        }
        return (
            serde_json::to_string(&p.results[i]).unwrap().len(),
            Vec::new(),
        );
    }
    let bytes = |b: Vec<u8>| (b.len(), b);
    let value = |j: Json| (black_box(j).is_object() as usize, Vec::new());
    match (op, form) {
        ("apply", Form::Bytes) => {
            bytes(smpatch::apply_bytes(d(CUR), d(PATCH), schema, ty, aopts).unwrap())
        }
        ("apply", _) => value(smpatch::apply_json(v(CUR), v(PATCH), schema, ty, aopts).unwrap()),
        ("create2", Form::Bytes) => {
            bytes(smpatch::create_two_way_bytes(d(O), d(M), schema, ty, copts).unwrap())
        }
        ("create2", _) => {
            value(smpatch::create_two_way_json(v(O), v(M), schema, ty, copts).unwrap())
        }
        ("create3", Form::Bytes) => {
            let docs = ThreeWayDocs::new(d(O), d(M), d(CUR));
            bytes(smpatch::create_three_way_bytes(docs, schema, ty, fail, copts).unwrap())
        }
        ("create3", _) => {
            let docs = ThreeWayDocs::new(v(O), v(M), v(CUR));
            value(smpatch::create_three_way_json(docs, schema, ty, fail, copts).unwrap())
        }
        ("client_apply", Form::Bytes) => bytes(
            client_apply_bytes(d(M), Some(d(LIVE)), schema, ty, &opts.flow)
                .unwrap()
                .merged,
        ),
        ("client_apply", _) => value(
            client_apply_json(v(M), Some(v(LIVE)), schema, ty, &opts.flow)
                .unwrap()
                .merged,
        ),
        // No bytes form in the facade: the bytes variant parses the inputs
        // with serde_json and writes the result, as a server holding bytes
        // would.
        ("server_apply", Form::Bytes) => {
            let (c, pa) = (json(d(CUR)), json(d(PATCH)));
            let r = smpatch::server_apply_json(&c, &pa, schema, ty, aopts, &opts.unions).unwrap();
            bytes(serde_json::to_vec(&r.object).unwrap())
        }
        ("server_apply", _) => {
            let r = smpatch::server_apply_json(v(CUR), v(PATCH), schema, ty, aopts, &opts.unions)
                .unwrap();
            value(r.object)
        }
        ("fields", Form::Bytes) => {
            bytes(smpatch::fields_bytes(d(CUR), schema, ty, &opts.fields).unwrap())
        }
        ("fields", _) => value(smpatch::fields_json(v(CUR), schema, ty, &opts.fields).unwrap()),
        _ => panic!("unknown op {op}"),
    }
}
