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
