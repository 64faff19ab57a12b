//! Deterministic Kubernetes-shaped inputs for the criterion benches.
//!
//! Everything here is a pure function of its arguments (a fixed-seed LCG
//! supplies the variety), so every bench run sees the same bytes.
//!
//! ```
//! let doc = smpatch_benches::k8s_doc(1_000);
//! assert!(doc.len() >= 1_000 && doc.starts_with('{'));
//! assert_eq!(doc, smpatch_benches::k8s_doc(1_000));
//! ```
#![deny(missing_docs)]

use std::fmt::Write;

pub mod objects;

/// A 64-bit linear congruential generator (Knuth's MMIX constants).
#[derive(Clone, Debug)]
pub struct Lcg(u64);

impl Lcg {
    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> Self {
        Lcg(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next pseudo-random number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 11
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// One element of `items`.
    pub fn pick<'s>(&mut self, items: &[&'s str]) -> &'s str {
        items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "web", "api", "worker", "cache", "db", "frontend", "backend", "auth", "billing", "search",
    "queue", "metrics", "gateway", "proxy", "sidecar", "batch",
];
const IMAGES: &[&str] = &[
    "nginx:1.25.3",
    "registry.k8s.io/pause:3.9",
    "ghcr.io/example/api:v2.14.0",
    "docker.io/library/redis:7.2-alpine",
    "quay.io/prometheus/node-exporter:v1.7.0",
];

fn name(rng: &mut Lcg) -> String {
    format!("{}-{}", rng.pick(WORDS), rng.below(10_000))
}

/// A JSON list of `n` container env vars (`{"name":…,"value":…}` and a few
/// `valueFrom` references).
pub fn env_list(n: usize) -> String {
    env_list_with(&mut Lcg::new(n as u64), n)
}

fn env_list_with(rng: &mut Lcg, n: usize) -> String {
    let mut out = String::from("[");
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        let key = format!("{}_{}_{i}", rng.pick(WORDS), rng.below(100)).to_uppercase();
        match rng.below(8) {
            0 => {
                let _ = write!(
                    out,
                    r#"{{"name":"{key}","valueFrom":{{"secretKeyRef":{{"name":"{}","key":"password"}}}}}}"#,
                    name(rng)
                );
            }
            1 => {
                let _ = write!(
                    out,
                    r#"{{"name":"{key}","valueFrom":{{"fieldRef":{{"apiVersion":"v1","fieldPath":"status.podIP"}}}}}}"#
                );
            }
            2 => {
                let _ = write!(
                    out,
                    r#"{{"name":"{key}","value":"line one\nline \"two\"\t{}"}}"#,
                    rng.below(1000)
                );
            }
            _ => {
                let _ = write!(
                    out,
                    r#"{{"name":"{key}","value":"http://{}.svc.cluster.local:{}/v1"}}"#,
                    name(rng),
                    8000 + rng.below(1000)
                );
            }
        }
    }
    out.push(']');
    out
}

fn container(rng: &mut Lcg, env: usize) -> String {
    let cname = name(rng);
    let port = 80 + rng.below(9000);
    format!(
        concat!(
            r#"{{"name":"{cname}","image":"{image}","imagePullPolicy":"IfNotPresent","#,
            r#""args":["--port={port}","--log-level=info","--enable-feature=x"],"#,
            r#""ports":[{{"name":"http","containerPort":{port},"protocol":"TCP"}},{{"name":"metrics","containerPort":9090,"protocol":"TCP"}}],"#,
            r#""env":{env},"#,
            r#""resources":{{"limits":{{"cpu":"{cpu}m","memory":"{mem}Mi"}},"requests":{{"cpu":"{rcpu}m","memory":"{rmem}Mi"}}}},"#,
            r#""readinessProbe":{{"httpGet":{{"path":"/healthz","port":{port}}},"initialDelaySeconds":5,"periodSeconds":10,"successThreshold":1,"failureThreshold":3,"timeoutSeconds":1}},"#,
            r#""volumeMounts":[{{"name":"config","mountPath":"/etc/{cname}","readOnly":true}}],"#,
            r#""terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}}"#
        ),
        cname = cname,
        image = rng.pick(IMAGES),
        port = port,
        env = env_list_with(rng, env),
        cpu = 100 * (1 + rng.below(20)),
        mem = 128 * (1 + rng.below(16)),
        rcpu = 50 * (1 + rng.below(10)),
        rmem = 64 * (1 + rng.below(16)),
    )
}

fn labels(rng: &mut Lcg, app: &str) -> String {
    format!(
        r#"{{"app":"{app}","app.kubernetes.io/name":"{app}","app.kubernetes.io/version":"1.{}.{}","tier":"{}"}}"#,
        rng.below(30),
        rng.below(10),
        rng.pick(WORDS)
    )
}

fn deployment_with(rng: &mut Lcg, containers: usize, env: usize) -> String {
    let app = name(rng);
    let labels = labels(rng, &app);
    let cs: Vec<String> = (0..containers).map(|_| container(rng, env)).collect();
    format!(
        concat!(
            r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"{app}","namespace":"default","#,
            r#""labels":{labels},"annotations":{{"deployment.kubernetes.io/revision":"{rev}","note":"owner <team-{rev}@example.com> & on-call"}},"#,
            r#""uid":"5c6f{rev:04}-1e2d-4c1b-9a7e-12ab34cd56ef","resourceVersion":"{rv}","generation":{rev}}},"#,
            r#""spec":{{"replicas":{replicas},"revisionHistoryLimit":10,"progressDeadlineSeconds":600,"#,
            r#""selector":{{"matchLabels":{{"app":"{app}"}}}},"#,
            r#""strategy":{{"type":"RollingUpdate","rollingUpdate":{{"maxSurge":"25%","maxUnavailable":"25%"}}}},"#,
            r#""template":{{"metadata":{{"labels":{labels}}},"spec":{{"containers":[{containers}],"#,
            r#""volumes":[{{"name":"config","configMap":{{"name":"{app}-config","defaultMode":420}}}}],"#,
            r#""restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","schedulerName":"default-scheduler","securityContext":{{}}}}}}}},"#,
            r#""status":{{"observedGeneration":{rev},"replicas":{replicas},"readyReplicas":{replicas},"conditions":[{{"type":"Available","status":"True","lastUpdateTime":"2024-01-0{d}T10:00:00Z","reason":"MinimumReplicasAvailable","message":"Deployment has minimum availability."}}]}}}}"#
        ),
        app = app,
        labels = labels,
        rev = 1 + rng.below(50),
        rv = 100_000 + rng.below(900_000),
        replicas = 1 + rng.below(5),
        containers = cs.join(","),
        d = 1 + rng.below(9),
    )
}

/// A Deployment with `containers` containers of `env_per_container` env vars each.
pub fn deployment(containers: usize, env_per_container: usize) -> String {
    deployment_with(
        &mut Lcg::new((containers * 1000 + env_per_container) as u64),
        containers,
        env_per_container,
    )
}

/// A Kubernetes-shaped JSON document of at least `target_bytes` bytes (and
/// not much more): a single small Deployment for targets up to about 2 KB,
/// otherwise a `v1` `List` of Deployments with varied containers and env.
pub fn k8s_doc(target_bytes: usize) -> String {
    let mut rng = Lcg::new(target_bytes as u64);
    if target_bytes <= 2_048 {
        let mut env = 0;
        loop {
            let d = deployment_with(&mut Lcg::new(7), 1, env);
            if d.len() >= target_bytes || env > 64 {
                return d;
            }
            env += 1;
        }
    }
    let mut out = String::from(
        r#"{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":["#,
    );
    let mut first = true;
    while out.len() + 2 < target_bytes {
        if !first {
            out.push(',');
        }
        first = false;
        let containers = 1 + rng.below(3) as usize;
        let env = rng.below(12) as usize;
        out.push_str(&deployment_with(&mut rng, containers, env));
    }
    out.push_str("]}");
    out
}

/// One patch benchmark input, all JSON text: a live object, a strategic merge
/// patch for it (shaped as `kubectl` would send it), the object the patch
/// produces, and a "current" object for three-way diffs (`original` plus
/// fields a server adds).
///
/// `modified` is built independently of the patch code, so a bench can check
/// `apply(original, patch) == modified` once before timing anything.
#[derive(Clone, Debug)]
pub struct PatchCase {
    /// Short label of the case (used as the criterion parameter).
    pub label: String,
    /// Number of list elements the case is about (for per-element scaling).
    pub elements: usize,
    /// The object before the change (also the last-applied configuration).
    pub original: String,
    /// The strategic merge patch (Deployment schema).
    pub patch: String,
    /// The object after the change.
    pub modified: String,
    /// `original` plus server-side fields (timestamps, managedFields, status).
    pub current: String,
}

fn parse(doc: &str) -> serde_json::Value {
    serde_json::from_str(doc).unwrap_or(serde_json::Value::Null)
}

fn pod_spec(doc: &mut serde_json::Value) -> &mut serde_json::Value {
    &mut doc["spec"]["template"]["spec"]
}

fn containers(doc: &mut serde_json::Value) -> &mut Vec<serde_json::Value> {
    let cs = &mut pod_spec(doc)["containers"];
    if !cs.is_array() {
        *cs = serde_json::Value::Array(Vec::new());
    }
    match cs {
        serde_json::Value::Array(a) => a,
        _ => unreachable!("made an array above"),
    }
}

fn name_of(v: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({ "name": v["name"].clone() })
}

fn server_side(doc: &serde_json::Value) -> serde_json::Value {
    let mut cur = doc.clone();
    let meta = &mut cur["metadata"];
    meta["creationTimestamp"] = "2024-01-01T09:00:00Z".into();
    meta["managedFields"] = serde_json::json!([{
        "manager": "kube-controller-manager", "operation": "Update", "apiVersion": "apps/v1",
        "time": "2024-01-01T10:00:00Z", "fieldsType": "FieldsV1",
        "fieldsV1": {"f:status": {"f:replicas": {}, "f:updatedReplicas": {}}}
    }]);
    let ps = pod_spec(&mut cur);
    ps["serviceAccountName"] = "default".into();
    ps["serviceAccount"] = "default".into();
    cur["status"]["updatedReplicas"] = 1.into();
    cur["status"]["availableReplicas"] = 1.into();
    cur
}

fn finish(
    label: String,
    elements: usize,
    original: &serde_json::Value,
    patch: serde_json::Value,
    modified: &serde_json::Value,
) -> PatchCase {
    PatchCase {
        label,
        elements,
        original: original.to_string(),
        patch: patch.to_string(),
        modified: modified.to_string(),
        current: server_side(original).to_string(),
    }
}

/// Container patches for the listed container indexes: each sets a new image
/// (the element's merge key first, as `kubectl` writes it).
fn image_bumps(doc: &serde_json::Value, which: &[usize]) -> (serde_json::Value, serde_json::Value) {
    let mut modified = doc.clone();
    let cs = containers(&mut modified);
    let order: Vec<_> = cs.iter().map(name_of).collect();
    let mut elems = Vec::new();
    for &i in which {
        let image = format!("registry.example.com/bumped/app-{i}:v2.0.{i}");
        cs[i]["image"] = image.clone().into();
        elems.push(serde_json::json!({ "name": cs[i]["name"].clone(), "image": image }));
    }
    let patch = serde_json::json!({"spec": {"template": {"spec": {
        "$setElementOrder/containers": order,
        "containers": elems,
    }}}});
    (patch, modified)
}

/// A small Deployment (one container, 5 env vars) and an image bump.
pub fn case_image_bump() -> PatchCase {
    let original = parse(&deployment(1, 5));
    let (patch, modified) = image_bumps(&original, &[0]);
    finish("small-image-bump".into(), 1, &original, patch, &modified)
}

/// A ~120 KB Deployment (50 containers of 27 env vars, unique names) and a
/// patch changing the image of 10 of its containers.
pub fn case_deployment_50() -> PatchCase {
    let mut original = parse(&deployment(50, 27));
    // Make container names unique whatever the generator drew.
    for (i, c) in containers(&mut original).iter_mut().enumerate() {
        let n = format!("{}-c{i}", c["name"].as_str().unwrap_or("c"));
        c["name"] = n.into();
    }
    let which: Vec<usize> = (0..10).map(|k| k * 5 + 2).collect();
    let (patch, modified) = image_bumps(&original, &which);
    finish("120KB-50c-10-elems".into(), 50, &original, patch, &modified)
}

fn env_deployment(n: usize) -> (serde_json::Value, Vec<serde_json::Value>) {
    let original = parse(&deployment(1, n));
    let mut o = original.clone();
    let env = match &containers(&mut o)[0]["env"] {
        serde_json::Value::Array(a) => a.clone(),
        _ => Vec::new(),
    };
    (original, env)
}

fn env_patch(
    original: &serde_json::Value,
    order: Option<Vec<serde_json::Value>>,
    elems: Vec<serde_json::Value>,
) -> serde_json::Value {
    let mut o = original.clone();
    let cs = containers(&mut o);
    let mut c = serde_json::json!({ "name": cs[0]["name"].clone() });
    if let Some(order) = order {
        c["$setElementOrder/env"] = serde_json::Value::Array(order);
    }
    c["env"] = serde_json::Value::Array(elems);
    serde_json::json!({"spec": {"template": {"spec": {
        "$setElementOrder/containers": [name_of(&cs[0])],
        "containers": [c],
    }}}})
}

/// A Deployment whose one container has `n` env vars, and a patch that
/// changes every one of them (`valueFrom` entries become plain values) and
/// reverses their order with `$setElementOrder/env`.
pub fn case_env_all(n: usize) -> PatchCase {
    let (original, env) = env_deployment(n);
    let mut new_env = Vec::with_capacity(n);
    let mut patch_elems = Vec::with_capacity(n);
    for (i, e) in env.iter().enumerate().rev() {
        let value = format!("changed-{i}");
        new_env.push(serde_json::json!({ "name": e["name"].clone(), "value": value }));
        let mut p = serde_json::json!({ "name": e["name"].clone(), "value": value });
        if e.get("valueFrom").is_some() {
            p["valueFrom"] = serde_json::Value::Null;
        }
        patch_elems.push(p);
    }
    let order: Vec<_> = new_env.iter().map(name_of).collect();
    let patch = env_patch(&original, Some(order), patch_elems);
    let mut modified = original.clone();
    containers(&mut modified)[0]["env"] = serde_json::Value::Array(new_env);
    finish(format!("env-{n}-all"), n, &original, patch, &modified)
}

/// A Deployment whose one container has `n` env vars, and a patch that
/// changes the value of the middle one.
pub fn case_env_one(n: usize) -> PatchCase {
    let (original, env) = env_deployment(n);
    let mid = n / 2;
    let elem = serde_json::json!({ "name": env[mid]["name"].clone(), "value": "changed" });
    let patch = env_patch(&original, None, vec![elem]);
    let mut modified = original.clone();
    containers(&mut modified)[0]["env"][mid]["value"] = "changed".into();
    finish(format!("env-{n}-one"), n, &original, patch, &modified)
}

/// Every patch bench case, small to large: the image bump, the 50-container
/// Deployment, and env lists of 1k, 4k and 16k entries patched all over and
/// at one element.
pub fn patch_cases() -> Vec<PatchCase> {
    let mut cases = vec![case_image_bump(), case_deployment_50()];
    for n in [1_000, 4_000, 16_000] {
        cases.push(case_env_all(n));
    }
    for n in [1_000, 4_000, 16_000] {
        cases.push(case_env_one(n));
    }
    cases
}

/// List sizes of the scaling benches (`benches/benches/scaling.rs` and the
/// memory bench's per-element rows): 1k to 256k env vars.
pub const SCALING_SIZES: [usize; 5] = [1_000, 4_000, 16_000, 64_000, 256_000];

/// `text` (a JSON document) as `kubectl get -o json` writes it: four spaces
/// per level, `": "` after keys. Built from serde_json's pretty form (two
/// spaces) with each line's indentation doubled; JSON strings hold no raw
/// newline, so every line starts outside one.
///
/// # Panics
/// When `text` is not JSON (the bench inputs are generated, never read).
pub fn kubectl_pretty(text: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
    let two = serde_json::to_string_pretty(&v).expect("serializable");
    let lines: Vec<String> = two
        .lines()
        .map(|l| {
            let body = l.trim_start_matches(' ');
            format!("{}{body}", " ".repeat(2 * (l.len() - body.len())))
        })
        .collect();
    lines.join("\n")
}
