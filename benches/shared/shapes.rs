//! Kubernetes-shaped documents at a chosen size, and the operations run on
//! them, for the `shapes` bench and the `shapes` example (each includes
//! this file with `#[path]`). Every shape grows one dimension (containers,
//! volumes, ports, data keys, labels, list items, nesting levels, list
//! entries, kilobytes of one string, managers) to `n` elements; the
//! operations go through the facade (`*_bytes`, the pipeline of
//! `smpatch::ops`, batch lines), and each has a serde_json baseline on the
//! same bytes: parse every input and write the expected result.

use serde_json::Value as Json;
use smpatch::batch::{handle_line_bytes, BatchState};
use smpatch::fieldsets::{ExtractOptions, FieldsOptions};
use smpatch::ops::{run, Op};
use smpatch::{
    parse_document, ApplyOptions, Arena, CreateOptions, OnConflict, Schema, ThreeWayDocs, TypeRef,
    UnionOptions,
};
use smpatch_value::{parse_yaml_single, to_json_string, to_yaml_string, ParseOptions};
use std::hint::black_box;

/// Every shape, by name.
pub const SHAPES: [&str; 15] = [
    "pod-containers",
    "pod-volumes",
    "service-ports",
    "node-status",
    "configmap-wide",
    "configmap-long",
    "labels",
    "pod-list",
    "deep",
    "finalizers",
    "args",
    "retainkeys-wide",
    "managers",
    "list-of-lists",
    "setorder-containers",
];

/// Every operation, by name.
pub const OPS: [&str; 8] = [
    "apply",
    "create2",
    "create3",
    "fields",
    "normalize",
    "yaml",
    "batch",
    "extract",
];

/// A schema with what the built-in one has no example of: `$retainKeys`
/// on a wide object (a map of strings under the `retainKeys` strategy).
const WIDE_SCHEMA: &str = r#"{"swagger": "2.0", "definitions": {"Wide": {"type": "object",
  "properties": {"spec": {"type": "object", "additionalProperties": {"type": "string"},
  "x-kubernetes-patch-strategy": "retainKeys"}}}}}"#;

/// One shape at one size: its type and documents (compact JSON).
pub struct Case {
    pub shape: &'static str,
    pub n: usize,
    pub schema: Schema,
    pub ty: TypeRef,
    pub original: String,
    pub modified: String,
    /// The live object (`original` with a server-set field).
    pub current: String,
    /// The patch apply takes: create2's answer, or one written with the
    /// directives the shape is about.
    pub patch: String,
    /// `original` as YAML.
    pub yaml: String,
    /// The batch request line of apply.
    pub batch_line: Vec<u8>,
    /// The manager [`Op::Extract`] reads (`managers` only).
    pub manager: Option<String>,
}

fn join(n: usize, f: impl Fn(usize) -> String) -> String {
    let items: Vec<String> = (0..n).map(f).collect();
    items.join(",")
}

fn pod(spec: &str) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","namespace":"d"}},"spec":{spec}}}"#
    )
}

fn container(i: usize, rev: &str) -> String {
    format!(
        r#"{{"name":"c{i}","image":"reg.example/app{i}:v{rev}","env":[{{"name":"A","value":"{i}{rev}"}},{{"name":"B","value":"x"}},{{"name":"POD","valueFrom":{{"fieldRef":{{"fieldPath":"metadata.name"}}}}}}],"ports":[{{"containerPort":8080,"name":"http","protocol":"TCP"}},{{"containerPort":9090,"protocol":"UDP"}}],"volumeMounts":[{{"name":"v0","mountPath":"/etc/a"}},{{"name":"v1","mountPath":"/etc/b","readOnly":true}}]}}"#
    )
}

/// A long string value with JSON escapes and non-ASCII text, `kb` KiB.
fn long_string(kb: usize, tail: &str) -> String {
    let unit = r#"line \"quoted\"\ttab\\ é 日本語 ✓ 🚀 \u0001 plain ascii text for the rest\n"#;
    let mut s = String::with_capacity(kb * 1024 + 64);
    while s.len() < kb * 1024 {
        s.push_str(unit);
    }
    s.push_str(tail);
    s
}

/// `(original, modified, explicit patch)` of `shape` with `n` elements.
fn documents(shape: &str, n: usize) -> (String, String, Option<String>) {
    let cm = |body: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c","namespace":"d"{body}"#
        )
    };
    match shape {
        "pod-containers" => {
            let spec =
                |rev: &str| format!(r#"{{"containers":[{}]}}"#, join(n, |i| container(i, rev)));
            (pod(&spec("1")), pod(&spec("2")), None)
        }
        // Volumes, every other one switching its source (`$retainKeys`).
        "pod-volumes" => {
            let vol = |i: usize, m: bool| match (m, i % 2) {
                (true, 0) => format!(r#"{{"name":"v{i}","secret":{{"secretName":"s{i}"}}}}"#),
                (true, _) => {
                    format!(r#"{{"name":"v{i}","configMap":{{"name":"cm{i}","defaultMode":256}}}}"#)
                }
                _ => {
                    format!(r#"{{"name":"v{i}","configMap":{{"name":"cm{i}","defaultMode":420}}}}"#)
                }
            };
            let spec = |m: bool| {
                format!(
                    r#"{{"containers":[{}],"volumes":[{}]}}"#,
                    container(0, "1"),
                    join(n, |i| vol(i, m))
                )
            };
            (pod(&spec(false)), pod(&spec(true)), None)
        }
        // Ports of both protocols (server-side apply keys them by port and
        // protocol; strategic merge by port alone, so each port is unique).
        "service-ports" => {
            let svc = |t: usize| {
                let ports = join(n, |i| {
                    let proto = if i % 2 == 0 { "TCP" } else { "UDP" };
                    format!(
                        r#"{{"name":"p{i}","port":{},"protocol":"{proto}","targetPort":{}}}"#,
                        1000 + i,
                        t + i
                    )
                });
                format!(
                    r#"{{"apiVersion":"v1","kind":"Service","metadata":{{"name":"s"}},"spec":{{"type":"ClusterIP","ports":[{ports}]}}}}"#
                )
            };
            (svc(1), svc(2), None)
        }
        // Images (an atomic list), conditions and addresses (keyed by type).
        "node-status" => {
            let node = |t: &str, extra: bool| {
                let conds = join(n / 10 + 1, |i| {
                    format!(
                        r#"{{"type":"Cond{i}","status":"False","lastHeartbeatTime":"{t}","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"Fine","message":"all good"}}"#
                    )
                });
                let images = join(n + usize::from(extra), |i| {
                    format!(
                        r#"{{"names":["registry.example/team/image{i}@sha256:{i:064x}","registry.example/team/image{i}:v1.{i}"],"sizeBytes":{}}}"#,
                        1_000_000 + i
                    )
                });
                format!(
                    r#"{{"apiVersion":"v1","kind":"Node","metadata":{{"name":"n"}},"status":{{"conditions":[{conds}],"addresses":[{{"type":"InternalIP","address":"10.0.0.1"}},{{"type":"Hostname","address":"n"}}],"images":[{images}]}}}}"#
                )
            };
            (
                node("2026-01-01T00:00:00Z", false),
                node("2026-01-01T00:00:10Z", true),
                None,
            )
        }
        "configmap-wide" => {
            let doc = |v: &str| {
                cm(&format!(
                    r#"}},"data":{{{}}}}}"#,
                    join(n, |i| format!(r#""key-{i}.conf":"value {i} {v}""#))
                ))
            };
            (doc("a"), doc("b"), None)
        }
        // One value of `n` KiB (escapes, non-ASCII), changed at its end.
        "configmap-long" => {
            let doc = |t: &str| {
                cm(&format!(
                    r#"}},"data":{{"big":"{}","small":"x"}}}}"#,
                    long_string(n, t)
                ))
            };
            (doc("a"), doc("b"), None)
        }
        "labels" => {
            let doc = |v: &str| {
                let labels = join(n, |i| format!(r#""example.com/label-{i}":"v{i}{v}""#));
                let ann = join(n / 2, |i| format!(r#""note.example.com/a{i}":"text {i}""#));
                cm(&format!(
                    r#","labels":{{{labels}}},"annotations":{{{ann}}}}},"data":{{"k":"v"}}}}"#
                ))
            };
            (doc("a"), doc("b"), None)
        }
        // A v1 PodList (`items` is atomic).
        "pod-list" => {
            let list = |rev: &str| {
                let items = join(n, |i| {
                    format!(
                        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p{i}","labels":{{"app":"a{i}"}}}},"spec":{{"containers":[{{"name":"c","image":"img:{i}{rev}"}}]}}}}"#
                    )
                });
                format!(
                    r#"{{"apiVersion":"v1","kind":"PodList","metadata":{{}},"items":[{items}]}}"#
                )
            };
            (list("1"), list("2"), None)
        }
        // `n` nested levels, two members each, the leaf changed.
        "deep" => {
            let doc = |v: usize| {
                let mut s = format!(r#"{{"leaf":{v}}}"#);
                for i in 0..n {
                    s = format!(r#"{{"l{i}":{s},"s{i}":"x"}}"#);
                }
                format!(r#"{{"apiVersion":"example.com/v1","kind":"Deep","spec":{s}}}"#)
            };
            (doc(1), doc(2), None)
        }
        // A merge list of strings: reorder, delete half, add some.
        "finalizers" => {
            let fin = |i: usize| format!(r#""example.com/finalizer-{i}""#);
            let orig = cm(&format!(
                r#","finalizers":[{}]}},"data":{{"k":"v"}}}}"#,
                join(n, fin)
            ));
            // Modified: the odd ones, reversed, then n/10 new ones.
            let kept: Vec<usize> = (0..n).rev().filter(|i| i % 2 == 1).collect();
            let added: Vec<usize> = (n..n + n / 10).collect();
            let all: Vec<String> = kept.iter().chain(&added).map(|&i| fin(i)).collect();
            let modified = cm(&format!(
                r#","finalizers":[{}]}},"data":{{"k":"v"}}}}"#,
                all.join(",")
            ));
            let dels: Vec<String> = (0..n).filter(|i| i % 2 == 0).map(fin).collect();
            let adds: Vec<String> = added.iter().map(|&i| fin(i)).collect();
            let patch = format!(
                r#"{{"metadata":{{"$setElementOrder/finalizers":[{}],"$deleteFromPrimitiveList/finalizers":[{}],"finalizers":[{}]}}}}"#,
                all.join(","),
                dels.join(","),
                adds.join(",")
            );
            (orig, modified, Some(patch))
        }
        // An atomic list of strings (container args): one changed.
        "args" => {
            let spec = |last: &str| {
                let args = join(n, |i| {
                    if i + 1 == n {
                        format!(r#""--last={last}""#)
                    } else {
                        format!(r#""--flag-{i}=value""#)
                    }
                });
                format!(r#"{{"containers":[{{"name":"c","image":"i","args":[{args}]}}]}}"#)
            };
            (pod(&spec("a")), pod(&spec("b")), None)
        }
        // `$retainKeys` naming half of a wide object's keys.
        "retainkeys-wide" => {
            let doc = |keys: &mut dyn Iterator<Item = usize>| {
                let m: Vec<String> = keys.map(|i| format!(r#""k{i}":"v{i}""#)).collect();
                format!(r#"{{"spec":{{{}}}}}"#, m.join(","))
            };
            let retained: Vec<String> = (0..n)
                .filter(|i| i % 2 == 0)
                .map(|i| format!(r#""k{i}""#))
                .collect();
            let patch = format!(
                r#"{{"spec":{{"$retainKeys":[{}],"k0":"v0"}}}}"#,
                retained.join(",")
            );
            (
                doc(&mut (0..n)),
                doc(&mut (0..n).filter(|i| i % 2 == 0)),
                Some(patch),
            )
        }
        // `n` managers, each owning one data key (and one applying).
        "managers" => {
            let doc = |v: &str| {
                let mf = join(n, |i| {
                    let op = if i % 2 == 0 { "Apply" } else { "Update" };
                    format!(
                        r#"{{"manager":"m{i}","operation":"{op}","apiVersion":"v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{{"f:data":{{"f:key{i}":{{}}}},"f:metadata":{{"f:labels":{{"f:l{i}":{{}}}}}}}}}}"#
                    )
                });
                let data = join(n, |i| format!(r#""key{i}":"{v}{i}""#));
                let labels = join(n, |i| format!(r#""l{i}":"x""#));
                cm(&format!(
                    r#","labels":{{{labels}}},"managedFields":[{mf}]}},"data":{{{data}}}}}"#
                ))
            };
            (doc("a"), doc("b"), None)
        }
        // Schemaless lists of lists (atomic).
        "list-of-lists" => {
            let doc = |v: &str| {
                let rows = join(n, |i| format!(r#"[{i},"{v}",[true,null,1.5]]"#));
                format!(r#"{{"apiVersion":"example.com/v1","kind":"Grid","rows":[{rows}]}}"#)
            };
            (doc("a"), doc("b"), None)
        }
        // Containers reversed: create2 writes `$setElementOrder` of n keys.
        "setorder-containers" => {
            let c = |i: usize| format!(r#"{{"name":"c{i}","image":"i{i}"}}"#);
            let orig = pod(&format!(r#"{{"containers":[{}]}}"#, join(n, c)));
            let modified = pod(&format!(
                r#"{{"containers":[{}]}}"#,
                join(n, |i| c(n - 1 - i))
            ));
            (orig, modified, None)
        }
        _ => panic!("unknown shape {shape}"),
    }
}

impl Case {
    /// Builds `shape` with `n` elements and checks that apply of its patch
    /// gives `modified` (with the shapes' explicit patches too).
    pub fn new(shape: &'static str, n: usize) -> Case {
        let (original, modified, explicit) = documents(shape, n);
        let embedded = smpatch::embedded_schema().unwrap();
        let (schema, ty, batch_schema) = match shape {
            "retainkeys-wide" => (
                embedded
                    .clone()
                    .merge(Schema::from_bytes(WIDE_SCHEMA.as_bytes(), "wide.json").unwrap()),
                TypeRef::Definition("Wide".into()),
                String::from(r#"{"none":true}"#),
            ),
            "deep" | "list-of-lists" => (
                embedded.clone(),
                TypeRef::Schemaless,
                String::from(r#"{"none":true}"#),
            ),
            _ => (
                embedded.clone(),
                TypeRef::Detect,
                String::from(r#"{"builtin":"detect"}"#),
            ),
        };
        let copts = CreateOptions::default();
        let aopts = ApplyOptions::default();
        let patch = match explicit {
            Some(p) => p,
            None => String::from_utf8(
                smpatch::create_two_way_bytes(
                    original.as_bytes(),
                    modified.as_bytes(),
                    &schema,
                    &ty,
                    &copts,
                )
                .unwrap(),
            )
            .unwrap(),
        };
        let applied =
            smpatch::apply_bytes(original.as_bytes(), patch.as_bytes(), &schema, &ty, &aopts)
                .unwrap();
        let json = |b: &[u8]| serde_json::from_slice::<Json>(b).unwrap();
        assert!(
            json(&applied) == json(modified.as_bytes()),
            "apply(patch) of {shape} n={n}"
        );
        // The live object: a server-set field beside original.
        let mut cur = json(original.as_bytes());
        let top = cur.as_object_mut().unwrap();
        match top.get_mut("metadata").and_then(Json::as_object_mut) {
            Some(meta) => meta.insert("resourceVersion".into(), "12345".into()),
            None => top.insert("status".into(), serde_json::json!({"phase": "Live"})),
        };
        let current = serde_json::to_string(&cur).unwrap();
        let yaml = {
            let arena = Arena::new();
            let v =
                smpatch_value::parse_json(&arena, original.as_bytes(), &ParseOptions::default())
                    .unwrap();
            to_yaml_string(&v)
        };
        // A batch request has no built-in "detect": leave the schema out.
        let schema_member = if batch_schema.contains("detect") {
            String::new()
        } else {
            format!(r#","schema":{batch_schema}"#)
        };
        let batch_line = format!(
            r#"{{"id":1,"op":"apply"{schema_member},"original":{original},"patch":{patch}}}"#
        )
        .into_bytes();
        let manager = (shape == "managers").then(|| format!("m{}", (n / 2) & !1));
        Case {
            shape,
            n,
            schema,
            ty,
            original,
            modified,
            current,
            patch,
            yaml,
            batch_line,
            manager,
        }
    }

    /// Whether `op` is measured on this shape.
    pub fn has(&self, op: &str) -> bool {
        match op {
            "extract" => self.manager.is_some(),
            "fields" => !matches!(self.ty, TypeRef::Schemaless),
            "normalize" => !matches!(self.ty, TypeRef::Definition(_)),
            _ => true,
        }
    }

    /// The input documents of `op`.
    pub fn inputs(&self, op: &str) -> Vec<&[u8]> {
        let (o, m, c, p) = (&self.original, &self.modified, &self.current, &self.patch);
        let docs: Vec<&String> = match op {
            "apply" => vec![o, p],
            "create2" => vec![o, m],
            "create3" => vec![o, m, c],
            "normalize" => vec![m, o],
            "yaml" => vec![&self.yaml],
            _ => vec![o],
        };
        let mut v: Vec<&[u8]> = docs.into_iter().map(String::as_bytes).collect();
        if op == "batch" {
            v = vec![&self.batch_line];
        }
        v
    }

    /// Runs `op` once through the facade: the result's bytes.
    pub fn run(&self, op: &str) -> Vec<u8> {
        let (s, ty) = (&self.schema, &self.ty);
        let (o, m, c, p) = (
            self.original.as_bytes(),
            self.modified.as_bytes(),
            self.current.as_bytes(),
            self.patch.as_bytes(),
        );
        let (aopts, copts) = (ApplyOptions::default(), CreateOptions::default());
        match op {
            "apply" => smpatch::apply_bytes(o, p, s, ty, &aopts).unwrap(),
            "create2" => smpatch::create_two_way_bytes(o, m, s, ty, &copts).unwrap(),
            "create3" => smpatch::create_three_way_bytes(
                ThreeWayDocs::new(o, m, c),
                s,
                ty,
                OnConflict::Fail,
                &copts,
            )
            .unwrap(),
            "fields" => smpatch::fields_bytes(o, s, ty, &FieldsOptions::default()).unwrap(),
            "extract" => {
                let mgr = self.manager.as_deref().unwrap();
                smpatch::extract_bytes(o, s, ty, mgr, &ExtractOptions::default()).unwrap()
            }
            // The pipeline's own normalize (no bytes form in the facade).
            "normalize" => {
                let arena = Arena::new();
                let op = Op::Normalize {
                    options: UnionOptions::default(),
                    create: false,
                };
                let new = parse_document(&arena, m, &op, "new").unwrap();
                let old = parse_document(&arena, o, &op, "old").unwrap();
                let out = run(&arena, &op, &[new, old], &[s], ty).unwrap();
                to_json_string(&out.into_value()).into_bytes()
            }
            // YAML in and out: parse original's YAML, write it as YAML.
            "yaml" => {
                let arena = Arena::new();
                let v = parse_yaml_single(&arena, &self.yaml, &ParseOptions::default()).unwrap();
                to_yaml_string(&v).into_bytes()
            }
            "batch" => {
                let mut state = BatchState::new();
                let out = handle_line_bytes(&mut state, &self.batch_line);
                assert!(
                    out.contains(r#""ok":"#),
                    "{}: {}",
                    self.shape,
                    &out[..out.len().min(300)]
                );
                out.into_bytes()
            }
            _ => panic!("unknown op {op}"),
        }
    }

    /// The serde_json baseline of `op`: parse every input of `op` (the
    /// YAML op's JSON original) and write `expected`.
    pub fn serde(&self, op: &str, expected: &Json) -> usize {
        let inputs = if op == "yaml" {
            vec![self.original.as_bytes()]
        } else {
            self.inputs(op)
        };
        for doc in inputs {
            black_box(serde_json::from_slice::<Json>(doc).unwrap());
        }
        serde_json::to_string(expected).unwrap().len()
    }

    /// The expected result of `op` as serde_json (for the baseline).
    pub fn expected(&self, op: &str) -> Json {
        if op == "yaml" {
            return serde_json::from_str(&self.original).unwrap();
        }
        serde_json::from_slice(&self.run(op)).unwrap()
    }
}
