//! A corpus of real-shaped Kubernetes objects of several kinds, each with the
//! change a user makes to it: what the `objects` bench runs through the
//! facade (apply, create2, create3, the `kubectl apply` flow, the union
//! pipeline and field sets).
//!
//! Every case is three JSON texts: the manifest last applied (`original`),
//! the edited manifest (`modified`), and a strategic merge patch of what the
//! API server and controllers add to the live object (`server`: status,
//! defaults, managedFields), disjoint from what the manifests set. So the
//! live object is `apply(original, server)`, and the three-way patch must
//! turn it into `apply(modified, server)`: a bench checks that once before
//! timing.
//!
//! ```
//! let cases = smpatch_benches::objects::object_cases();
//! assert!(cases.iter().any(|c| c.label == "pod"));
//! let crd = cases.iter().find(|c| c.crd.is_some()).unwrap();
//! assert_eq!(crd.type_name, "bench.smpatch.dev/v1/Rollout");
//! ```

use serde_json::{json, Value};

/// One object of the corpus and the change made to it (all JSON text).
#[derive(Clone, Debug)]
pub struct ObjectCase {
    /// Short label (the criterion parameter): `pod`, `service`, ….
    pub label: &'static str,
    /// The type as the facade's `TypeRef::Gvk` names it (`v1/Pod`).
    pub type_name: &'static str,
    /// The manifest last applied.
    pub original: String,
    /// The edited manifest.
    pub modified: String,
    /// A strategic merge patch of the fields the server side adds.
    pub server: String,
    /// The CustomResourceDefinition of the type, for a custom resource.
    pub crd: Option<String>,
}

const IMAGES: &[&str] = &[
    "registry.k8s.io/ingress-nginx/controller:v1.9.4",
    "docker.io/library/nginx:1.25.3",
    "ghcr.io/example/api:v2.14.0",
    "quay.io/prometheus/node-exporter:v1.7.0",
    "registry.k8s.io/coredns/coredns:v1.11.1",
    "gcr.io/distroless/static-debian12:nonroot",
];

fn meta(name: &str, app: &str) -> Value {
    json!({
        "name": name,
        "namespace": "shop",
        "labels": {"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "shop",
            "app.kubernetes.io/managed-by": "kustomize", "team": "payments"},
        "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9090",
            "example.com/owner": "payments-oncall@example.com"}
    })
}

fn probe(path: &str, port: i64, delay: i64) -> Value {
    json!({"httpGet": {"path": path, "port": port, "scheme": "HTTP"},
        "initialDelaySeconds": delay, "periodSeconds": 10, "timeoutSeconds": 2,
        "successThreshold": 1, "failureThreshold": 3})
}

fn container(i: usize, image: &str, env: usize) -> Value {
    let name = [
        "app",
        "envoy",
        "log-shipper",
        "metrics",
        "config-reloader",
        "cache",
    ][i % 6];
    let port = 8080 + i as i64;
    let env: Vec<Value> = (0..env)
        .map(|k| match k % 4 {
            0 => json!({"name": format!("FEATURE_{k}"), "value": "enabled"}),
            1 => json!({"name": format!("POD_IP_{k}"),
                "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}}),
            2 => json!({"name": format!("DB_PASSWORD_{k}"),
                "valueFrom": {"secretKeyRef": {"name": "db-credentials", "key": "password"}}}),
            _ => json!({"name": format!("UPSTREAM_{k}"),
                "value": format!("http://svc-{k}.shop.svc.cluster.local:{}", 8000 + k)}),
        })
        .collect();
    json!({
        "name": name,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "command": ["/bin/server"],
        "args": [format!("--listen=:{port}"), "--log-format=json", "--graceful-timeout=25s"],
        "ports": [
            {"name": "http", "containerPort": port, "protocol": "TCP"},
            {"name": format!("metrics-{i}"), "containerPort": 9090 + i as i64, "protocol": "TCP"}
        ],
        "env": env,
        "envFrom": [{"configMapRef": {"name": "shop-settings"}}],
        "resources": {"requests": {"cpu": "250m", "memory": "256Mi"},
            "limits": {"cpu": "1", "memory": "512Mi", "ephemeral-storage": "1Gi"}},
        "livenessProbe": probe("/livez", port, 15),
        "readinessProbe": probe("/readyz", port, 5),
        "startupProbe": {"exec": {"command": ["/bin/check", "--startup"]},
            "failureThreshold": 30, "periodSeconds": 2},
        "volumeMounts": [
            {"name": "config", "mountPath": format!("/etc/{name}"), "readOnly": true},
            {"name": "tmp", "mountPath": "/tmp"},
            {"name": "tls", "mountPath": "/var/run/tls", "readOnly": true}
        ],
        "securityContext": {"runAsNonRoot": true, "runAsUser": 10001,
            "allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
            "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}
    })
}

fn pod_spec(containers: usize, env: usize) -> Value {
    let cs: Vec<Value> = (0..containers)
        .map(|i| container(i, IMAGES[i % IMAGES.len()], env))
        .collect();
    json!({
        "serviceAccountName": "shop-api",
        "priorityClassName": "business-critical",
        "initContainers": [
            {"name": "migrate", "image": "ghcr.io/example/migrate:v2.14.0",
                "args": ["--to=latest"], "envFrom": [{"secretRef": {"name": "db-credentials"}}]},
            {"name": "wait-for-db", "image": "docker.io/library/busybox:1.36",
                "command": ["sh", "-c", "until nc -z db 5432; do sleep 1; done"]}
        ],
        "containers": cs,
        "volumes": [
            {"name": "config", "configMap": {"name": "shop-config", "defaultMode": 420,
                "items": [{"key": "app.yaml", "path": "app.yaml"}, {"key": "log.yaml", "path": "log.yaml"}]}},
            {"name": "tmp", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
            {"name": "tls", "secret": {"secretName": "shop-tls", "defaultMode": 256}},
            {"name": "data", "persistentVolumeClaim": {"claimName": "shop-data"}},
            {"name": "token", "projected": {"sources": [
                {"serviceAccountToken": {"audience": "vault", "expirationSeconds": 3600, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}
            ]}}
        ],
        "tolerations": [
            {"key": "dedicated", "operator": "Equal", "value": "shop", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
        ],
        "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "shop-api"}}}}
        ]}},
        "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "shop-api"}}}
        ],
        "securityContext": {"fsGroup": 10001, "runAsNonRoot": true},
        "terminationGracePeriodSeconds": 30
    })
}

/// What the API server and kubelet add to a pod spec's containers (defaults).
fn container_defaults(spec: &Value) -> Value {
    let cs: Vec<Value> = spec["containers"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    json!({"name": c["name"], "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File"})
                })
                .collect()
        })
        .unwrap_or_default();
    json!({"containers": cs, "restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
        "schedulerName": "default-scheduler", "enableServiceLinks": true})
}

fn managed_fields(manager: &str, api_version: &str) -> Value {
    json!([{"manager": manager, "operation": "Update", "apiVersion": api_version,
        "time": "2024-03-01T10:00:00Z", "fieldsType": "FieldsV1", "subresource": "status",
        "fieldsV1": {"f:status": {".": {}, "f:conditions": {}, "f:observedGeneration": {}}}}])
}

fn server_meta(api_version: &str) -> Value {
    json!({"uid": "0b9d8a3e-8c1f-4f47-9c3a-2f1d6e7a9b10", "resourceVersion": "4812377",
        "generation": 7, "creationTimestamp": "2024-03-01T09:58:12Z",
        "managedFields": managed_fields("kube-controller-manager", api_version)})
}

fn text(v: &Value) -> String {
    v.to_string()
}

/// A Pod: 4 containers (probes, env, mounts, security contexts), 2 init
/// containers, 5 volumes, tolerations, affinity. The change: a new image
/// for one container, an env var added to another, a probe changed, a
/// volume added and a toleration removed.
pub fn pod() -> ObjectCase {
    let mut o = json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta("shop-api-0", "shop-api"),
        "spec": pod_spec(4, 8)});
    let server = json!({"metadata": server_meta("v1"),
    "spec": {"nodeName": "worker-7", "containers": container_defaults(&o["spec"])["containers"],
        "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler"},
    "status": {"phase": "Running", "podIP": "10.12.7.31", "hostIP": "10.0.3.7",
        "startTime": "2024-03-01T09:58:14Z", "qosClass": "Burstable",
        "conditions": [
            {"type": "Initialized", "status": "True", "lastTransitionTime": "2024-03-01T09:58:20Z"},
            {"type": "Ready", "status": "True", "lastTransitionTime": "2024-03-01T09:58:40Z"},
            {"type": "ContainersReady", "status": "True", "lastTransitionTime": "2024-03-01T09:58:40Z"},
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-03-01T09:58:12Z"}
        ]}});
    let mut m = o.clone();
    let s = &mut m["spec"];
    s["containers"][0]["image"] = "ghcr.io/example/api:v2.15.0".into();
    if let Some(env) = s["containers"][1]["env"].as_array_mut() {
        env.push(json!({"name": "NEW_FLAG", "value": "on"}));
    }
    s["containers"][2]["readinessProbe"]["periodSeconds"] = 5.into();
    if let Some(vs) = s["volumes"].as_array_mut() {
        vs.push(json!({"name": "cache", "emptyDir": {}}));
    }
    if let Some(ts) = s["tolerations"].as_array_mut() {
        ts.pop();
    }
    o["metadata"]["labels"]["version"] = "v2.14.0".into();
    m["metadata"]["labels"]["version"] = "v2.15.0".into();
    ObjectCase {
        label: "pod",
        type_name: "v1/Pod",
        original: text(&o),
        modified: text(&m),
        server: text(&server),
        crd: None,
    }
}

/// A Service with 24 ports (TCP and UDP on the same port numbers, as DNS
/// and QUIC services have; the API's list-map keys are `port` and
/// `protocol`). The change: two target ports, one port added, one removed,
/// a selector label and the traffic policy.
pub fn service() -> ObjectCase {
    let mut ports = Vec::new();
    for i in 0..12 {
        let port = [
            53, 443, 8443, 9000, 9001, 9002, 9003, 9004, 9005, 9006, 9007, 9008,
        ][i];
        // TCP and UDP on the first two numbers; the strategic merge key is
        // `port` alone, so only unambiguous entries are changed below.
        ports.push(
            json!({"name": format!("p{i}-tcp"), "port": port, "targetPort": port + 10000,
            "protocol": "TCP"}),
        );
        let udp = if i < 2 { port } else { 20000 + port };
        ports.push(
            json!({"name": format!("p{i}-udp"), "port": udp, "targetPort": udp + 10000,
            "protocol": "UDP"}),
        );
    }
    let o = json!({"apiVersion": "v1", "kind": "Service", "metadata": meta("edge", "edge"),
        "spec": {"type": "LoadBalancer", "ports": ports,
            "selector": {"app.kubernetes.io/name": "edge", "tier": "ingress"},
            "externalTrafficPolicy": "Cluster", "sessionAffinity": "None",
            "loadBalancerSourceRanges": ["10.0.0.0/8", "192.168.0.0/16"]}});
    let server = json!({"metadata": server_meta("v1"),
        "spec": {"clusterIP": "10.96.14.7", "clusterIPs": ["10.96.14.7"], "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster",
            "allocateLoadBalancerNodePorts": true},
        "status": {"loadBalancer": {"ingress": [{"ip": "203.0.113.10", "ipMode": "VIP"}]}}});
    let mut m = o.clone();
    let s = &mut m["spec"];
    s["ports"][4]["targetPort"] = "https-alt".into();
    s["ports"][9]["targetPort"] = 30000.into();
    if let Some(ps) = s["ports"].as_array_mut() {
        ps.remove(20);
        ps.push(
            json!({"name": "grpc", "port": 9443, "targetPort": 19443, "protocol": "TCP",
            "appProtocol": "grpc"}),
        );
    }
    s["selector"]["tier"] = "edge".into();
    s["externalTrafficPolicy"] = "Local".into();
    ObjectCase {
        label: "service",
        type_name: "v1/Service",
        original: text(&o),
        modified: text(&m),
        server: text(&server),
        crd: None,
    }
}

/// A StatefulSet (3 containers, init containers, volumes) with three
/// volumeClaimTemplates. The change: replicas, an image, a claim's storage
/// request (an atomic list: it is sent whole) and the update strategy.
pub fn statefulset() -> ObjectCase {
    let claim = |name: &str, size: &str, class: &str| {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "labels": {"app.kubernetes.io/name": "db"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": class,
                "resources": {"requests": {"storage": size}}}})
    };
    let mut spec = pod_spec(3, 6);
    if let Some(mounts) = spec["containers"][0]["volumeMounts"].as_array_mut() {
        mounts.push(json!({"name": "data", "mountPath": "/var/lib/db"}));
    }
    let o = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta("db", "db"),
        "spec": {"replicas": 3, "serviceName": "db-headless", "podManagementPolicy": "Parallel",
            "selector": {"matchLabels": {"app.kubernetes.io/name": "db"}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Delete"},
            "template": {"metadata": {"labels": {"app.kubernetes.io/name": "db"},
                "annotations": {"checksum/config": "5d41402abc4b2a76b9719d911017c592"}},
                "spec": spec},
            "volumeClaimTemplates": [claim("data", "100Gi", "fast-ssd"),
                claim("wal", "20Gi", "fast-ssd"), claim("backup", "500Gi", "standard")]}});
    let server = json!({"metadata": server_meta("apps/v1"),
        "spec": {"revisionHistoryLimit": 10, "minReadySeconds": 0,
            "template": {"spec": container_defaults(&o["spec"]["template"]["spec"])}},
        "status": {"observedGeneration": 7, "replicas": 3, "readyReplicas": 3, "currentReplicas": 3,
            "updatedReplicas": 3, "availableReplicas": 3, "collisionCount": 0,
            "currentRevision": "db-6d4c9b7f8", "updateRevision": "db-6d4c9b7f8"}});
    let mut m = o.clone();
    let s = &mut m["spec"];
    s["replicas"] = 5.into();
    s["template"]["spec"]["containers"][1]["image"] = "docker.io/library/nginx:1.27.0".into();
    s["template"]["metadata"]["annotations"]["checksum/config"] =
        "7d793037a0760186574b0282f2f435e7".into();
    s["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"] = "200Gi".into();
    s["updateStrategy"]["rollingUpdate"]["partition"] = 2.into();
    ObjectCase {
        label: "statefulset",
        type_name: "apps/v1/StatefulSet",
        original: text(&o),
        modified: text(&m),
        server: text(&server),
        crd: None,
    }
}

/// A line of configuration text, `i`-th of a file.
fn config_line(i: usize) -> String {
    format!(
        "  setting_{i}: \"value {i} with some text, a \\\"quote\\\" and a tab\\t\" # note {}\n",
        i * 7919 % 10_007
    )
}

/// A ConfigMap of 120 keys (~260 KB): mostly small settings, some multi-KB
/// config files. The change: 3 values, 2 keys added, 2 removed.
pub fn configmap() -> ObjectCase {
    let mut data = serde_json::Map::new();
    for k in 0..120 {
        let v = if k % 10 == 0 {
            (0..200).map(config_line).collect::<String>()
        } else {
            format!("value-{k}-{}", k * 31)
        };
        let key = if k % 10 == 0 {
            format!("file-{k}.yaml")
        } else {
            format!("SETTING_{k}")
        };
        data.insert(key, v.into());
    }
    let o = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("shop-config", "shop"),
        "data": data});
    let server = json!({"metadata": server_meta("v1")});
    let mut m = o.clone();
    let d = &mut m["data"];
    d["SETTING_3"] = "changed".into();
    d["file-50.yaml"] = (0..210).map(config_line).collect::<String>().into();
    d["SETTING_77"] = "changed too".into();
    if let Some(d) = d.as_object_mut() {
        d.shift_remove("SETTING_11");
        d.shift_remove("file-90.yaml");
        d.insert("NEW_KEY".into(), "new".into());
        d.insert(
            "file-new.yaml".into(),
            (0..50).map(config_line).collect::<String>().into(),
        );
    }
    ObjectCase {
        label: "configmap",
        type_name: "v1/ConfigMap",
        original: text(&o),
        modified: text(&m),
        server: text(&server),
        crd: None,
    }
}

/// Base64 of deterministic bytes (standard alphabet, padded).
fn base64(len: usize, seed: usize) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(len);
    let mut x = seed as u64 | 1;
    for _ in 0..len / 4 * 4 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        s.push(A[(x >> 58) as usize] as char);
    }
    s
}

/// A TLS Secret with a certificate chain and 30 other keys (~70 KB of
/// base64). The change: the certificate and key rotated, one key added.
pub fn secret() -> ObjectCase {
    let mut data = serde_json::Map::new();
    data.insert("tls.crt".into(), base64(24_000, 1).into());
    data.insert("tls.key".into(), base64(3_200, 2).into());
    data.insert("ca.crt".into(), base64(8_000, 3).into());
    for k in 0..30 {
        data.insert(format!("token-{k}"), base64(1_200, 10 + k).into());
    }
    let o = json!({"apiVersion": "v1", "kind": "Secret", "metadata": meta("shop-tls", "shop"),
        "type": "kubernetes.io/tls", "data": data});
    let server = json!({"metadata": server_meta("v1")});
    let mut m = o.clone();
    m["data"]["tls.crt"] = base64(24_000, 101).into();
    m["data"]["tls.key"] = base64(3_200, 102).into();
    m["data"]["token-new"] = base64(1_200, 103).into();
    ObjectCase {
        label: "secret",
        type_name: "v1/Secret",
        original: text(&o),
        modified: text(&m),
        server: text(&server),
        crd: None,
    }
}

/// The CustomResourceDefinition of the `Rollout` custom resource (JSON): an
/// `openAPIV3Schema` with nested objects, maps, a set, `x-kubernetes-list-type:
/// map` lists with one and with two keys, an atomic list and a
/// preserve-unknown-fields block.
pub fn rollout_crd() -> String {
    let step = json!({"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"},
        "setWeight": {"type": "integer", "format": "int32"},
        "pause": {"type": "object", "properties": {"duration": {"type": "string"}}},
        "analysis": {"type": "object", "properties": {
            "templates": {"type": "array", "x-kubernetes-list-type": "atomic",
                "items": {"type": "object", "properties": {"templateName": {"type": "string"}}}},
            "args": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string"}, "value": {"type": "string"}}}}}}}});
    let target = json!({"type": "object", "required": ["cluster", "region"], "properties": {
        "cluster": {"type": "string"}, "region": {"type": "string"},
        "weight": {"type": "integer"}, "paused": {"type": "boolean"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}}});
    let spec = json!({"type": "object", "properties": {
        "replicas": {"type": "integer", "format": "int32"},
        "revisionHistoryLimit": {"type": "integer"},
        "selector": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {
            "matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}}},
        "image": {"type": "string"},
        "strategy": {"type": "object", "properties": {
            "canary": {"type": "object", "properties": {
                "maxSurge": {"x-kubernetes-int-or-string": true},
                "maxUnavailable": {"x-kubernetes-int-or-string": true},
                "steps": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"], "items": step}}}}},
        "targets": {"type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["cluster", "region"], "items": target},
        "notifications": {"type": "array", "x-kubernetes-list-type": "set",
            "items": {"type": "string"}},
        "settings": {"type": "object", "additionalProperties": {"type": "string"}},
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}});
    let status = json!({"type": "object", "properties": {
        "phase": {"type": "string"}, "observedGeneration": {"type": "integer"},
        "conditions": {"type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"], "items": {"type": "object", "properties": {
                "type": {"type": "string"}, "status": {"type": "string"},
                "reason": {"type": "string"}, "message": {"type": "string"},
                "lastTransitionTime": {"type": "string", "format": "date-time"}}}}}});
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "rollouts.bench.smpatch.dev"},
        "spec": {"group": "bench.smpatch.dev", "scope": "Namespaced",
            "names": {"kind": "Rollout", "listKind": "RolloutList", "plural": "rollouts",
                "singular": "rollout"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                    "metadata": {"type": "object"}, "spec": spec, "status": status}}}}]}});
    text(&crd)
}

/// A `Rollout` custom resource (schema: [`rollout_crd`]): 12 canary steps,
/// 16 targets keyed by cluster and region, settings, notifications. The
/// change: a step's weight, a step added, a target's weight and labels,
/// a target removed, a setting, the image.
pub fn rollout() -> ObjectCase {
    let steps: Vec<Value> = (0..12)
        .map(|i| {
            json!({"name": format!("step-{i}"), "setWeight": (i + 1) * 8,
                "pause": {"duration": format!("{}m", 5 + i)},
                "analysis": {"templates": [{"templateName": "success-rate"}, {"templateName": "latency"}],
                    "args": [{"name": "service", "value": "shop-api"}, {"name": "step", "value": format!("{i}")}]}})
        })
        .collect();
    let regions = ["europe-west1", "us-east1", "us-central1", "asia-east1"];
    let targets: Vec<Value> = (0..16)
        .map(|i| {
            json!({"cluster": format!("prod-{}", i / 4), "region": regions[i % 4],
                "weight": 10 + i, "paused": false,
                "labels": {"env": "prod", "shard": format!("{}", i % 3)}})
        })
        .collect();
    let settings: serde_json::Map<String, Value> = (0..40)
        .map(|i| {
            (
                format!("feature.example.com/flag-{i}"),
                format!("{}", i % 2 == 0).into(),
            )
        })
        .collect();
    let o = json!({"apiVersion": "bench.smpatch.dev/v1", "kind": "Rollout",
        "metadata": meta("shop-api", "shop-api"),
        "spec": {"replicas": 12, "revisionHistoryLimit": 5,
            "selector": {"matchLabels": {"app.kubernetes.io/name": "shop-api"}},
            "image": "ghcr.io/example/api:v2.14.0",
            "strategy": {"canary": {"maxSurge": "25%", "maxUnavailable": 0, "steps": steps}},
            "targets": targets,
            "notifications": ["slack:#deploys", "pagerduty:payments", "email:team@example.com"],
            "settings": settings,
            "extra": {"free": {"form": [1, 2, {"x": "y"}]}}}});
    let server = json!({"metadata": server_meta("bench.smpatch.dev/v1"),
        "status": {"phase": "Healthy", "observedGeneration": 7, "conditions": [
            {"type": "Available", "status": "True", "reason": "AvailableReason",
                "lastTransitionTime": "2024-03-01T10:00:00Z"},
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
                "lastTransitionTime": "2024-03-01T10:02:00Z"}]}});
    let mut m = o.clone();
    let s = &mut m["spec"];
    s["image"] = "ghcr.io/example/api:v2.15.0".into();
    s["strategy"]["canary"]["steps"][3]["setWeight"] = 35.into();
    if let Some(st) = s["strategy"]["canary"]["steps"].as_array_mut() {
        st.push(json!({"name": "step-final", "setWeight": 100}));
    }
    s["targets"][5]["weight"] = 50.into();
    s["targets"][5]["labels"]["canary"] = "true".into();
    if let Some(ts) = s["targets"].as_array_mut() {
        ts.remove(11);
    }
    s["settings"]["feature.example.com/flag-7"] = "true".into();
    s["notifications"] = json!(["slack:#deploys", "email:team@example.com", "webhook:audit"]);
    ObjectCase {
        label: "crd-rollout",
        type_name: "bench.smpatch.dev/v1/Rollout",
        original: text(&o),
        modified: text(&m),
        server: text(&server),
        crd: Some(rollout_crd()),
    }
}

fn node_conditions(beat: &str) -> Vec<Value> {
    let types = [
        ("Ready", "True", "KubeletReady"),
        ("MemoryPressure", "False", "KubeletHasSufficientMemory"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID"),
        ("NetworkUnavailable", "False", "RouteCreated"),
        ("KernelDeadlock", "False", "KernelHasNoDeadlock"),
        ("ReadonlyFilesystem", "False", "FilesystemIsNotReadOnly"),
        (
            "FrequentKubeletRestart",
            "False",
            "NoFrequentKubeletRestart",
        ),
        ("FrequentDockerRestart", "False", "NoFrequentDockerRestart"),
        (
            "FrequentContainerdRestart",
            "False",
            "NoFrequentContainerdRestart",
        ),
        (
            "FrequentUnregisterNetDevice",
            "False",
            "NoFrequentUnregisterNetDevice",
        ),
        ("CorruptDockerOverlay2", "False", "NoCorruptDockerOverlay2"),
    ];
    types
        .iter()
        .map(|(t, s, r)| {
            json!({"type": t, "status": s, "lastHeartbeatTime": beat,
                "lastTransitionTime": "2024-02-20T08:00:00Z", "reason": r,
                "message": format!("node condition {t} is {s} ({r})")})
        })
        .collect()
}

fn node_images(shift: usize) -> Vec<Value> {
    (0..50)
        .map(|i| {
            let k = i + shift;
            let repo = format!("registry.example.com/team-{}/service-{k}", k % 9);
            json!({"names": [
                    format!("{repo}@sha256:{}", base64(64, k).to_lowercase().replace(['+', '/'], "0")),
                    format!("{repo}:v1.{k}.0")],
                "sizeBytes": 10_000_000 + k as u64 * 7_654_321})
        })
        .collect()
}

/// A Node whose status the kubelet updates: 12 conditions, 50 images
/// (two names each), addresses, capacity, allocatable, daemon endpoints,
/// node info, volumes in use. `original`/`modified` are two status
/// reports (heartbeat times, one condition flipped, images changed, a
/// volume attached), as a kubelet's status patch computes them.
pub fn node() -> ObjectCase {
    let status = |beat: &str, shift: usize, vols: usize| {
        json!({
            "capacity": {"cpu": "16", "memory": "65842560Ki", "pods": "110",
                "ephemeral-storage": "203070420Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0"},
            "allocatable": {"cpu": "15890m", "memory": "61141888Ki", "pods": "110",
                "ephemeral-storage": "187149823779", "hugepages-1Gi": "0", "hugepages-2Mi": "0"},
            "conditions": node_conditions(beat),
            "addresses": [{"type": "InternalIP", "address": "10.0.3.7"},
                {"type": "ExternalIP", "address": "203.0.113.77"},
                {"type": "Hostname", "address": "worker-7"},
                {"type": "InternalDNS", "address": "worker-7.c.example.internal"}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": "4c4c4544004b3510804bb4c04f4e3233",
                "systemUUID": "4c4c4544-004b-3510-804b-b4c04f4e3233",
                "bootID": "7b0a1f3e-3c1d-4f1a-9a7c-1e2d3c4b5a69",
                "kernelVersion": "6.1.0-18-cloud-amd64", "osImage": "Debian GNU/Linux 12 (bookworm)",
                "containerRuntimeVersion": "containerd://1.7.13", "kubeletVersion": "v1.29.2",
                "kubeProxyVersion": "v1.29.2", "operatingSystem": "linux", "architecture": "amd64"},
            "images": node_images(shift),
            "volumesInUse": (0..vols).map(|v| format!("kubernetes.io/csi/pd.csi.storage.gke.io^projects/p/zones/z/disks/pvc-{v}")).collect::<Vec<_>>(),
            "volumesAttached": (0..vols).map(|v| json!({"name": format!("kubernetes.io/csi/pd.csi.storage.gke.io^projects/p/zones/z/disks/pvc-{v}"), "devicePath": ""})).collect::<Vec<_>>()
        })
    };
    let base = |beat: &str, shift: usize, vols: usize| {
        json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "worker-7", "labels": {"kubernetes.io/hostname": "worker-7",
                "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                "node.kubernetes.io/instance-type": "n2-standard-16",
                "topology.kubernetes.io/region": "europe-west1",
                "topology.kubernetes.io/zone": "europe-west1-b"},
                "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                    "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
            "spec": {"podCIDR": "10.12.7.0/24", "podCIDRs": ["10.12.7.0/24"],
                "providerID": "gce://p/europe-west1-b/worker-7"},
            "status": status(beat, shift, vols)})
    };
    let o = base("2024-03-01T10:00:00Z", 0, 6);
    let mut m = base("2024-03-01T10:00:40Z", 2, 7);
    m["status"]["conditions"][1]["status"] = "True".into();
    m["status"]["conditions"][1]["reason"] = "KubeletHasInsufficientMemory".into();
    m["status"]["allocatable"]["memory"] = "61141000Ki".into();
    let server = json!({"metadata": {"uid": "9d1c2b3a-4e5f-4a6b-8c7d-0e1f2a3b4c5d",
        "resourceVersion": "99120455", "creationTimestamp": "2024-02-20T07:59:00Z",
        "managedFields": managed_fields("kubelet", "v1")},
        "spec": {"taints": [{"key": "dedicated", "value": "shop", "effect": "NoSchedule"}]}});
    ObjectCase {
        label: "node-status",
        type_name: "v1/Node",
        original: text(&o),
        modified: text(&m),
        server: text(&server),
        crd: None,
    }
}

/// Every case of the corpus, small to large.
pub fn object_cases() -> Vec<ObjectCase> {
    vec![
        service(),
        pod(),
        statefulset(),
        rollout(),
        node(),
        secret(),
        configmap(),
    ]
}
