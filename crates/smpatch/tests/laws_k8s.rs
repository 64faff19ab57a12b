//! Algebraic laws (I1 two-way round trip, I4 three-way with overwrite, I5
//! three-way from the original; each stated at its test) on real
//! Kubernetes types of the embedded schema, through the facade: generated
//! `apps/v1/Deployment` and `v1/Service` documents. (crates/smpatch/tests/laws.rs and
//! crates/patch-create/tests/laws.rs state the laws on the conformance
//! `mergeItem` and the widget schemas.)
//!
//! The generators cover the patch strategies these types use: keyed lists
//! (containers and env by `name`, container ports by `containerPort`,
//! volumeMounts by `mountPath`, Service ports by `port`), a
//! `merge,retainKeys` list of one-of sources (volumes), atomic lists
//! (args, command, tolerations), a primitive merge list
//! (metadata.finalizers), string maps (labels, annotations, nodeSelector,
//! selectors) and a `retainKeys` object (spec.strategy). Documents are
//! well-formed: unique merge keys, no nulls, no `$` keys, primitive
//! merge lists of distinct strings. Fixed case count: 128 each.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use proptest::prelude::*;
use serde_json::{json, Map, Value as J};
use smpatch::{ApplyOptions, CreateOptions, OnConflict, Schema, ThreeWayDocs, TypeRef};

const CASES: u32 = 128;

// ---------------------------------------------------------------- generators

fn pick(options: &'static [&'static str]) -> impl Strategy<Value = J> + Clone {
    prop::sample::select(options).prop_map(|s| J::String(s.to_owned()))
}

/// Distinct values from `pool`, in random order.
fn unique<T: Clone + std::fmt::Debug + 'static>(
    pool: &'static [T],
    max: usize,
) -> impl Strategy<Value = Vec<T>> {
    prop::sample::subsequence(pool, 0..=max.min(pool.len())).prop_shuffle()
}

fn opt<T: std::fmt::Debug + Clone>(
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = Option<T>> {
    prop::option::weighted(0.6, s)
}

/// Mostly present: the path to the deep fields.
fn often<T: std::fmt::Debug + Clone>(
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = Option<T>> {
    prop::option::weighted(0.9, s)
}

fn put(m: &mut Map<String, J>, k: &str, v: Option<J>) {
    if let Some(v) = v {
        m.insert(k.to_owned(), v);
    }
}

fn obj(fields: Vec<(&str, Option<J>)>) -> J {
    let mut m = Map::new();
    for (k, v) in fields {
        put(&mut m, k, v);
    }
    J::Object(m)
}

fn string_map(keys: &'static [&'static str]) -> impl Strategy<Value = J> + Clone {
    prop::collection::btree_map(prop::sample::select(keys), pick(&["1", "2"]), 0..3)
        .prop_map(|m| J::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

/// A keyed list: distinct keys from `keys` (stored under `key`), each
/// element's other fields from `element`.
fn keyed<K>(
    keys: &'static [K],
    key: &'static str,
    element: impl Strategy<Value = J> + 'static,
) -> BoxedStrategy<J>
where
    K: Clone + std::fmt::Debug + Into<J> + 'static,
{
    let element = element.boxed();
    unique(keys, 3)
        .prop_flat_map(move |ks| {
            let n = ks.len();
            (Just(ks), prop::collection::vec(element.clone(), n)).prop_map(move |(ks, es)| {
                J::Array(
                    ks.into_iter()
                        .zip(es)
                        .map(|(k, e)| {
                            let mut m = Map::new();
                            m.insert(key.to_owned(), k.into());
                            if let J::Object(e) = e {
                                m.extend(e);
                            }
                            J::Object(m)
                        })
                        .collect(),
                )
            })
        })
        .boxed()
}

fn metadata() -> impl Strategy<Value = J> {
    (
        opt(pick(&["web", "api"])),
        opt(string_map(&["app", "tier", "team"])),
        opt(string_map(&["note", "owner"])),
        // Primitive merge list: distinct strings (the Q1 law needs orders
        // that are not sorted too, so shuffled).
        opt(unique(&["b.io/f", "a.io/f", "kubernetes", "c"], 4).prop_map(|v| json!(v))),
    )
        .prop_map(|(name, labels, annotations, finalizers)| {
            obj(vec![
                ("name", name),
                ("labels", labels),
                ("annotations", annotations),
                ("finalizers", finalizers),
            ])
        })
}

fn atomic_strings() -> impl Strategy<Value = J> + Clone {
    // Atomic lists may repeat values.
    prop::collection::vec(pick(&["-v", "--x", "run"]), 0..3).prop_map(J::Array)
}

fn container() -> impl Strategy<Value = J> {
    let env = keyed(
        &["A", "B", "C"],
        "name",
        opt(pick(&["1", "2"])).prop_map(|v| obj(vec![("value", v)])),
    );
    let ports = keyed(
        &[80i64, 443, 8080],
        "containerPort",
        (opt(pick(&["http", "https"])), opt(pick(&["TCP", "UDP"])))
            .prop_map(|(n, p)| obj(vec![("name", n), ("protocol", p)])),
    );
    let mounts = keyed(
        &["/a", "/b", "/c"],
        "mountPath",
        (
            opt(pick(&["v1", "v2"])),
            opt(any::<bool>().prop_map(J::Bool)),
        )
            .prop_map(|(n, r)| obj(vec![("name", n), ("readOnly", r)])),
    );
    (
        opt(pick(&["nginx:1", "nginx:2"])),
        opt(atomic_strings()),
        opt(atomic_strings()),
        often(env),
        often(ports),
        often(mounts),
    )
        .prop_map(|(image, args, command, env, ports, mounts)| {
            obj(vec![
                ("image", image),
                ("args", args),
                ("command", command),
                ("env", env),
                ("ports", ports),
                ("volumeMounts", mounts),
            ])
        })
}

fn volume() -> impl Strategy<Value = J> {
    // One-of sources: at most one per volume.
    let source = prop_oneof![
        pick(&["c1", "c2"]).prop_map(|n| json!({"configMap": {"name": n}})),
        pick(&["s1", "s2"]).prop_map(|n| json!({"secret": {"secretName": n}})),
        opt(pick(&["Memory"])).prop_map(|m| json!({"emptyDir": obj(vec![("medium", m)])})),
    ];
    opt(source).prop_map(|s| s.unwrap_or_else(|| json!({})))
}

fn toleration() -> impl Strategy<Value = J> {
    (
        opt(pick(&["k1", "k2"])),
        opt(pick(&["Exists", "Equal"])),
        opt(pick(&["NoSchedule"])),
    )
        .prop_map(|(k, o, e)| obj(vec![("key", k), ("operator", o), ("effect", e)]))
}

fn deployment() -> impl Strategy<Value = J> {
    let pod_spec = (
        often(keyed(&["app", "side"], "name", container())),
        often(keyed(&["v1", "v2", "v3"], "name", volume())),
        opt(prop::collection::vec(toleration(), 0..3).prop_map(J::Array)),
        opt(string_map(&["zone", "disk"])),
        opt(pick(&["Always", "Never"])),
    )
        .prop_map(|(c, v, t, ns, rp)| {
            obj(vec![
                ("containers", c),
                ("volumes", v),
                ("tolerations", t),
                ("nodeSelector", ns),
                ("restartPolicy", rp),
            ])
        });
    let template = (
        opt(string_map(&["app", "tier"]).prop_map(|l| json!({ "labels": l }))),
        often(pod_spec),
    )
        .prop_map(|(m, s)| obj(vec![("metadata", m), ("spec", s)]));
    let int_or_string = prop_oneof![(0i64..3).prop_map(J::from), pick(&["25%", "50%"]),];
    let strategy = (
        opt(pick(&["RollingUpdate", "Recreate"])),
        opt((opt(int_or_string.clone()), opt(int_or_string))
            .prop_map(|(s, u)| obj(vec![("maxSurge", s), ("maxUnavailable", u)]))),
    )
        .prop_map(|(t, r)| obj(vec![("type", t), ("rollingUpdate", r)]));
    let spec = (
        opt((0i64..4).prop_map(J::from)),
        opt(string_map(&["app", "tier"]).prop_map(|l| json!({ "matchLabels": l }))),
        opt(strategy),
        often(template),
    )
        .prop_map(|(r, sel, st, t)| {
            obj(vec![
                ("replicas", r),
                ("selector", sel),
                ("strategy", st),
                ("template", t),
            ])
        });
    (often(metadata()), often(spec)).prop_map(|(md, spec)| {
        let mut d = obj(vec![("metadata", md), ("spec", spec)]);
        d["apiVersion"] = json!("apps/v1");
        d["kind"] = json!("Deployment");
        d
    })
}

fn service() -> impl Strategy<Value = J> {
    let port = (
        opt(pick(&["http", "https"])),
        opt(prop_oneof![Just(json!(8080)), pick(&["web"])]),
        opt(pick(&["TCP", "UDP"])),
        opt(prop_oneof![Just(json!(30080)), Just(json!(30443))]),
    )
        .prop_map(|(n, t, p, np)| {
            obj(vec![
                ("name", n),
                ("targetPort", t),
                ("protocol", p),
                ("nodePort", np),
            ])
        });
    let spec = (
        opt(pick(&["ClusterIP", "NodePort"])),
        opt(string_map(&["app", "tier"])),
        often(keyed(&[80i64, 443, 8443], "port", port)),
    )
        .prop_map(|(t, sel, ports)| obj(vec![("type", t), ("selector", sel), ("ports", ports)]));
    (often(metadata()), often(spec)).prop_map(|(md, spec)| {
        let mut d = obj(vec![("metadata", md), ("spec", spec)]);
        d["apiVersion"] = json!("v1");
        d["kind"] = json!("Service");
        d
    })
}

/// Two documents of one type where, in half the cases, the second's
/// `metadata.finalizers` is the first's in sorted order (the Q1 condition,
/// rare among independent documents).
fn pairs() -> impl Strategy<Value = (&'static str, Vec<J>)> {
    (docs(2), any::<bool>()).prop_map(|((ty, mut d), sort)| {
        if let (true, Some(J::Array(f))) = (sort, d[0].pointer("/metadata/finalizers")) {
            let mut f = f.clone();
            f.sort_by_key(|v| v.as_str().map(str::to_owned));
            d[1]["metadata"]["finalizers"] = J::Array(f);
        }
        (ty, d)
    })
}

/// `n` documents of one type (Deployment or Service) and that type.
fn docs(n: usize) -> impl Strategy<Value = (&'static str, Vec<J>)> {
    prop_oneof![
        prop::collection::vec(deployment(), n).prop_map(|v| ("apps/v1/Deployment", v)),
        prop::collection::vec(service(), n).prop_map(|v| ("v1/Service", v)),
    ]
}

// ------------------------------------------------------------ path strategy

/// The patch strategy of a field, by its path of field names (list
/// elements add no segment). Mirrors the embedded schema for the fields the
/// generators produce.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// `patchStrategy: merge` list keyed by the merge key; `retain` for
    /// `merge,retainKeys`.
    Keyed(&'static str, bool),
    /// Primitive merge list.
    PrimitiveMerge,
    /// Atomic list or scalar: compared whole.
    Whole,
    /// `patchStrategy: retainKeys` object.
    RetainKeys,
    /// Object or map: merged key by key.
    Object,
}

fn kind(path: &[&str], v: &J) -> Kind {
    let last = path.last().copied().unwrap_or("");
    let parent = path.len().checked_sub(2).map_or("", |i| path[i]);
    match (parent, last) {
        ("spec", "containers") => Kind::Keyed("name", false),
        ("containers", "env") => Kind::Keyed("name", false),
        ("containers", "ports") => Kind::Keyed("containerPort", false),
        ("containers", "volumeMounts") => Kind::Keyed("mountPath", false),
        ("spec", "volumes") => Kind::Keyed("name", true),
        ("spec", "ports") => Kind::Keyed("port", false),
        ("metadata", "finalizers") => Kind::PrimitiveMerge,
        ("spec", "strategy") => Kind::RetainKeys,
        _ if v.is_object() => Kind::Object,
        _ => Kind::Whole,
    }
}

fn find<'v>(list: &'v J, key: &str, k: &J) -> Option<&'v J> {
    list.as_array()?.iter().find(|e| e.get(key) == Some(k))
}

// -------------------------------------------------------------------- checks

fn schema() -> &'static Schema {
    smpatch::embedded_schema().unwrap()
}

fn opts(fix_quirks: bool) -> (ApplyOptions, CreateOptions) {
    (
        ApplyOptions::default().with_fix_quirks(fix_quirks),
        CreateOptions::default().with_fix_quirks(fix_quirks),
    )
}

/// `apply(a, two_way(a, b))`, and the patch.
fn round_trip(ty: &str, a: &J, b: &J, fix_quirks: bool) -> Result<(J, J), String> {
    let (aopts, copts) = opts(fix_quirks);
    let ty = TypeRef::Gvk(ty.into());
    let p = smpatch::create_two_way_json(a, b, schema(), &ty, &copts)
        .map_err(|e| format!("create: {e}"))?;
    let r = smpatch::apply_json(a, &p, schema(), &ty, &aopts)
        .map_err(|e| format!("apply: {e}; patch {p}"))?;
    Ok((r, p))
}

/// Quirk Q1 (docs/QUIRKS.md#q1): when `m`'s `metadata.finalizers` is the
/// rendering-sorted `o` list (and differs from it), the reorder is lost and
/// the result keeps `o`'s order. Answers `r` with that list put back into
/// `m`'s order when (and only when) the Q1 condition holds.
fn excuse_q1(o: &J, m: &J, r: &J) -> J {
    let path = "/metadata/finalizers";
    let (Some(J::Array(ol)), Some(J::Array(ml))) = (o.pointer(path), m.pointer(path)) else {
        return r.clone();
    };
    let mut sorted = ol.clone();
    sorted.sort_by_key(|v| v.as_str().map(str::to_owned));
    let mut r = r.clone();
    if &sorted == ml && ol != ml && r.pointer(path) == Some(&J::Array(ol.clone())) {
        r["metadata"]["finalizers"] = J::Array(ml.clone());
    }
    r
}

/// Every path `m` specifies has `m`'s value in `r` (merge lists: `m`'s
/// elements are in `r`, by merge key or value).
fn keeps_modified(m: &J, r: &J, path: &mut Vec<String>) -> Result<(), String> {
    let (J::Object(mo), J::Object(ro)) = (m, r) else {
        return if m == r {
            Ok(())
        } else {
            Err(format!("/{}: {r} != {m}", path.join("/")))
        };
    };
    for (k, mv) in mo {
        path.push(k.clone());
        let names: Vec<&str> = path.iter().map(String::as_str).collect();
        let rv = ro
            .get(k)
            .ok_or_else(|| format!("/{} missing", path.join("/")))?;
        match kind(&names, mv) {
            Kind::Keyed(key, _) => {
                for me in mv.as_array().into_iter().flatten() {
                    let re = find(rv, key, &me[key])
                        .ok_or_else(|| format!("/{} lacks {}", path.join("/"), me[key]))?;
                    keeps_modified(me, re, path)?;
                }
            }
            Kind::PrimitiveMerge => {
                let rl = rv.as_array().cloned().unwrap_or_default();
                if let Some(x) = mv
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|x| !rl.contains(x))
                {
                    return Err(format!("/{} lacks {x}", path.join("/")));
                }
            }
            Kind::RetainKeys | Kind::Object => keeps_modified(mv, rv, path)?,
            Kind::Whole if mv != rv => {
                return Err(format!("/{}: {rv} != {mv}", path.join("/")));
            }
            Kind::Whole => {}
        }
        path.pop();
    }
    Ok(())
}

/// Paths of `c` that neither `o` nor `m` mention survive in `r` unchanged,
/// except inside atomic lists and `retainKeys` objects/elements that `m`
/// specifies; paths `o` has and `m` removed are absent from `r`.
fn keeps_unmentioned(
    o: Option<&J>,
    m: &J,
    c: &J,
    r: Option<&J>,
    path: &mut Vec<String>,
) -> Result<(), String> {
    let here = |path: &[String], k: &str| format!("/{}/{k}", path.join("/"));
    let (Some(J::Object(mo)), Some(J::Object(co))) = (Some(m), Some(c)) else {
        return Ok(());
    };
    let oo = o.and_then(J::as_object);
    let ro = r.and_then(J::as_object);
    let rget = |k: &str| ro.and_then(|r| r.get(k));
    // Removed between `o` and `m`.
    for k in oo.into_iter().flat_map(|o| o.keys()) {
        if !mo.contains_key(k) && rget(k).is_some() {
            return Err(format!("{} removed by m but kept", here(path, k)));
        }
    }
    for (k, cv) in co {
        let ov = oo.and_then(|o| o.get(k));
        let Some(mv) = mo.get(k) else {
            if ov.is_none() && rget(k) != Some(cv) {
                return Err(format!("{} of current lost: {:?}", here(path, k), rget(k)));
            }
            continue;
        };
        path.push(k.clone());
        let names: Vec<&str> = path.iter().map(String::as_str).collect();
        match kind(&names, mv) {
            Kind::Keyed(key, retain) => {
                let rv = rget(k);
                for ce in cv.as_array().into_iter().flatten() {
                    let id = &ce[key];
                    let oe = ov.and_then(|l| find(l, key, id));
                    let me = find(mv, key, id);
                    let re = rv.and_then(|l| find(l, key, id));
                    match (oe, me) {
                        (None, None) if re != Some(ce) => {
                            return Err(format!("/{} element {id} of current lost", path.join("/")))
                        }
                        (Some(_), None) if re.is_some() => {
                            return Err(format!(
                                "/{} element {id} removed but kept",
                                path.join("/")
                            ))
                        }
                        (_, Some(me)) if !retain => keeps_unmentioned(oe, me, ce, re, path)?,
                        _ => {}
                    }
                }
            }
            Kind::PrimitiveMerge => {
                let rl = rget(k).and_then(J::as_array).cloned().unwrap_or_default();
                let has =
                    |l: Option<&J>, x: &J| l.and_then(J::as_array).is_some_and(|l| l.contains(x));
                for x in cv.as_array().into_iter().flatten() {
                    if !has(ov, x) && !has(Some(mv), x) && !rl.contains(x) {
                        return Err(format!("/{} lost {x} of current", path.join("/")));
                    }
                    if has(ov, x) && !has(Some(mv), x) && rl.contains(x) {
                        return Err(format!("/{} kept removed {x}", path.join("/")));
                    }
                }
            }
            Kind::Object => keeps_unmentioned(ov, mv, cv, rget(k), path)?,
            Kind::RetainKeys | Kind::Whole => {}
        }
        path.pop();
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

    /// I1 with `fix_quirks`: `apply(a, two_way(a, b)) == b`.
    #[test]
    fn k8s_two_way_round_trips_with_fixes((ty, d) in pairs()) {
        let (r, p) = round_trip(ty, &d[0], &d[1], true).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&r, &d[1], "patch {}", p);
    }

    /// I1 by default, except quirk Q1 (metadata.finalizers reordered into
    /// its sorted order keeps the old order).
    #[test]
    fn k8s_two_way_round_trips_by_default_except_q1((ty, d) in pairs()) {
        let (r, p) = round_trip(ty, &d[0], &d[1], false).map_err(TestCaseError::fail)?;
        prop_assert_eq!(excuse_q1(&d[0], &d[1], &r), d[1].clone(), "patch {} result {}", p, r);
    }

    /// I4: `apply(c, three_way(o, m, c, overwrite))` keeps every path of
    /// `m`, drops the paths `m` removed from `o`, and keeps the paths of `c`
    /// neither mentions.
    #[test]
    fn k8s_three_way_keeps_modified_and_unmentioned((ty, d) in docs(3)) {
        let (o, m, c) = (&d[0], &d[1], &d[2]);
        let (aopts, copts) = opts(false);
        let t = TypeRef::Gvk(ty.into());
        let p = smpatch::create_three_way_json(ThreeWayDocs::new(o, m, c), schema(), &t, OnConflict::Overwrite, &copts)
            .map_err(|e| TestCaseError::fail(format!("create: {e}")))?;
        let r = smpatch::apply_json(c, &p, schema(), &t, &aopts)
            .map_err(|e| TestCaseError::fail(format!("apply: {e}; patch {p}")))?;
        if let Err(e) = keeps_modified(m, &r, &mut Vec::new()) {
            prop_assert!(false, "{}: patch {} result {}", e, p, r);
        }
        if let Err(e) = keeps_unmentioned(Some(o), m, c, Some(&r), &mut Vec::new()) {
            prop_assert!(false, "{}: patch {} result {}", e, p, r);
        }
    }

    /// I5: `three_way(o, m, o)` applied to `o` equals `two_way(o, m)` applied
    /// to `o`, and never reports a conflict (overwrite off).
    #[test]
    fn k8s_three_way_on_unchanged_current((ty, d) in docs(2)) {
        let (o, m) = (&d[0], &d[1]);
        let (aopts, copts) = opts(false);
        let t = TypeRef::Gvk(ty.into());
        let p3 = smpatch::create_three_way_json(ThreeWayDocs::new(o, m, o), schema(), &t, OnConflict::Fail, &copts)
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let r3 = smpatch::apply_json(o, &p3, schema(), &t, &aopts).unwrap();
        let (r2, p2) = round_trip(ty, o, m, false).map_err(TestCaseError::fail)?;
        prop_assert_eq!(r3, r2, "three-way {} two-way {}", p3, p2);
    }
}
