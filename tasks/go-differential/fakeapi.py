#!/usr/bin/env python3
"""A tiny fake Kubernetes API server (stdlib only) that lets `kubectl edit` and
`kubectl apply` (client-side) run and records the strategic merge patches they
send.

    python3 fakeapi.py [--port 0] [--portfile FILE]

Serves legacy discovery for Pod/Service/ConfigMap/Secret/PersistentVolumeClaim/
ServiceAccount/Endpoints (v1), Deployment/StatefulSet/DaemonSet (apps/v1),
Job/CronJob (batch/v1), Ingress/NetworkPolicy (networking.k8s.io/v1),
Role/RoleBinding (rbac.authorization.k8s.io/v1), HorizontalPodAutoscaler
(autoscaling/v2) and PodDisruptionBudget (policy/v1), all namespaced, plus
the kinds of realshapes.py (`MORE`; cluster-scoped ones keyed by namespace
`_` in the internal endpoints); 404 for /openapi/* (so kubectl falls
back to the Go struct tags of its built-in scheme) unless `OPENAPI_V3` maps
group-version paths (`api/v1`, `apis/batch/v1`) to OpenAPI v3 files, which
/openapi/v3 then serves (`run.py --openapi-v3`), and answers aggregated
discovery requests with the legacy documents (content type application/json,
which client-go accepts as legacy).

Objects live in one dict keyed by (resource, namespace, name); cases use unique
names so they can run in parallel. Internal endpoints (not Kubernetes):

    PUT    /_objects/<resource>/<ns>/<name>   body = object JSON (the live object)
    GET    /_patches/<resource>/<ns>/<name>   → [{"contentType": …, "body": …, "query": …}]
    DELETE /_objects/<resource>/<ns>/<name>   forget object and recorded patches

Every PATCH to a stored object is recorded (body as text) and answered with the
stored object (unchanged: the patch is not applied).
"""

import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

RESOURCES = {
    "v1": [
        ("pods", "pod", "Pod", ["po"]),
        ("services", "service", "Service", ["svc"]),
        ("configmaps", "configmap", "ConfigMap", ["cm"]),
        ("secrets", "secret", "Secret", []),
        ("persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", ["pvc"]),
        ("serviceaccounts", "serviceaccount", "ServiceAccount", ["sa"]),
        ("endpoints", "endpoints", "Endpoints", ["ep"]),
    ],
    "apps/v1": [
        ("deployments", "deployment", "Deployment", ["deploy"]),
        ("statefulsets", "statefulset", "StatefulSet", ["sts"]),
        ("daemonsets", "daemonset", "DaemonSet", ["ds"]),
    ],
    "batch/v1": [("jobs", "job", "Job", []), ("cronjobs", "cronjob", "CronJob", ["cj"])],
    "networking.k8s.io/v1": [
        ("ingresses", "ingress", "Ingress", ["ing"]),
        ("networkpolicies", "networkpolicy", "NetworkPolicy", ["netpol"]),
    ],
    "rbac.authorization.k8s.io/v1": [
        ("roles", "role", "Role", []),
        ("rolebindings", "rolebinding", "RoleBinding", []),
    ],
    "autoscaling/v2": [("horizontalpodautoscalers", "horizontalpodautoscaler", "HorizontalPodAutoscaler", ["hpa"])],
    "policy/v1": [("poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", ["pdb"])],
}
# The kinds of realshapes.py: (group/version, plural, Kind, namespaced).
MORE = [
    ("v1", "podtemplates", "PodTemplate", True), ("v1", "replicationcontrollers", "ReplicationController", True),
    ("v1", "limitranges", "LimitRange", True), ("v1", "resourcequotas", "ResourceQuota", True),
    ("v1", "events", "Event", True), ("v1", "persistentvolumes", "PersistentVolume", False),
    ("v1", "namespaces", "Namespace", False), ("v1", "nodes", "Node", False),
    ("apps/v1", "replicasets", "ReplicaSet", True), ("apps/v1", "controllerrevisions", "ControllerRevision", True),
    ("coordination.k8s.io/v1", "leases", "Lease", True),
    ("discovery.k8s.io/v1", "endpointslices", "EndpointSlice", True),
    ("storage.k8s.io/v1", "csistoragecapacities", "CSIStorageCapacity", True),
    ("storage.k8s.io/v1", "storageclasses", "StorageClass", False), ("storage.k8s.io/v1", "csidrivers", "CSIDriver", False),
    ("storage.k8s.io/v1", "csinodes", "CSINode", False), ("storage.k8s.io/v1", "volumeattachments", "VolumeAttachment", False),
    ("admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", False),
    ("admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", False),
    ("admissionregistration.k8s.io/v1", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", False),
    ("scheduling.k8s.io/v1", "priorityclasses", "PriorityClass", False),
    ("flowcontrol.apiserver.k8s.io/v1", "flowschemas", "FlowSchema", False),
    ("flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations", "PriorityLevelConfiguration", False),
    ("certificates.k8s.io/v1", "certificatesigningrequests", "CertificateSigningRequest", False),
    ("networking.k8s.io/v1", "ingressclasses", "IngressClass", False),
    ("node.k8s.io/v1", "runtimeclasses", "RuntimeClass", False),
    ("rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding", False),
    # schemagen.py's create cases (tasks/kubectl-differential/schemagen.py).
    ("rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", False),
    ("v1", "componentstatuses", "ComponentStatus", False),
    # A custom resource: kubectl has no Go type for it, so `kubectl apply`
    # sends a JSON merge patch (crates/cli/tests/kubectl/apply_merge_differential.py).
    ("example.com/v1", "widgets", "Widget", True),
]
CLUSTER = set()
for _gv, _plural, _kind, _namespaced in MORE:
    RESOURCES.setdefault(_gv, []).append((_plural, _kind.lower(), _kind, []))
    if not _namespaced:
        CLUSTER.add(_plural)
KIND_RESOURCE = {k: r for rs in RESOURCES.values() for r, _s, k, _sh in rs}
VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


def resource_list(gv):
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": gv,
        "resources": [
            {
                "name": plural,
                "singularName": singular,
                "namespaced": plural not in CLUSTER,
                "kind": kind,
                "verbs": VERBS,
                "shortNames": short,
            }
            for plural, singular, kind, short in RESOURCES[gv]
        ],
    }


def group_list():
    groups = []
    for gv in RESOURCES:
        if "/" not in gv:
            continue
        g, v = gv.split("/")
        ver = {"groupVersion": gv, "version": v}
        groups.append({"name": g, "versions": [ver], "preferredVersion": ver})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


# {"api/v1": PATH, ...}: OpenAPI v3 documents served under /openapi/v3 (empty: 404).
OPENAPI_V3 = {}

STATE = {"objects": {}, "patches": {}}
LOCK = threading.Lock()


def object_key(parts):
    """(resource, ns, name) for /api/v1/namespaces/NS/RES/NAME or
    /apis/G/V/namespaces/NS/RES/NAME, else None."""
    if len(parts) == 6 and parts[0] == "api" and parts[2] == "namespaces":
        return (parts[4], parts[3], parts[5])
    if len(parts) == 7 and parts[0] == "apis" and parts[3] == "namespaces":
        return (parts[5], parts[4], parts[6])
    # Cluster-scoped: /api/v1/RES/NAME, /apis/G/V/RES/NAME (namespace "_").
    if len(parts) == 4 and parts[0] == "api" and parts[2] in CLUSTER:
        return (parts[2], "_", parts[3])
    if len(parts) == 5 and parts[0] == "apis" and parts[3] in CLUSTER:
        return (parts[3], "_", parts[4])
    return None


def status(code, reason, message):
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def send_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def not_found(self, what="the server could not find the requested resource"):
        self.send_json(404, status(404, "NotFound", what))

    def do_GET(self):
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        if url.path == "/version":
            return self.send_json(
                200,
                {"major": "1", "minor": "32", "gitVersion": "v1.32.0", "platform": "linux/amd64"},
            )
        if url.path == "/api":
            return self.send_json(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})
        if url.path == "/apis":
            return self.send_json(200, group_list())
        if url.path == "/api/v1":
            return self.send_json(200, resource_list("v1"))
        if len(parts) == 3 and parts[0] == "apis" and f"{parts[1]}/{parts[2]}" in RESOURCES:
            return self.send_json(200, resource_list(f"{parts[1]}/{parts[2]}"))
        if url.path == "/openapi/v3" and OPENAPI_V3:
            return self.send_json(200, {"paths": {gv: {"serverRelativeURL": f"/openapi/v3/{gv}?hash=0"}
                                                  for gv in OPENAPI_V3}})
        if url.path.startswith("/openapi/v3/") and url.path[len("/openapi/v3/"):] in OPENAPI_V3:
            body = open(OPENAPI_V3[url.path[len("/openapi/v3/"):]], "rb").read()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None
        if parts[:1] == ["_patches"] and len(parts) == 4:
            with LOCK:
                rec = list(STATE["patches"].get(tuple(parts[1:]), []))
            return self.send_json(200, rec)
        key = object_key(parts)
        if key:
            with LOCK:
                obj = STATE["objects"].get(key)
            if obj is None:
                return self.not_found(f'{key[0]} "{key[2]}" not found')
            return self.send_json(200, obj)
        return self.not_found()  # includes /openapi/v2 and /openapi/v3

    def do_PUT(self):
        parts = [p for p in urlsplit(self.path).path.split("/") if p]
        if parts[:1] == ["_objects"] and len(parts) == 4:
            obj = json.loads(self.body())
            with LOCK:
                STATE["objects"][tuple(parts[1:])] = obj
                STATE["patches"].pop(tuple(parts[1:]), None)
            return self.send_json(200, {"ok": True})
        self.body()
        return self.send_json(405, status(405, "MethodNotAllowed", "no"))

    def do_DELETE(self):
        parts = [p for p in urlsplit(self.path).path.split("/") if p]
        if parts[:1] == ["_objects"] and len(parts) == 4:
            with LOCK:
                STATE["objects"].pop(tuple(parts[1:]), None)
                STATE["patches"].pop(tuple(parts[1:]), None)
            return self.send_json(200, {"ok": True})
        return self.send_json(405, status(405, "MethodNotAllowed", "no"))

    def do_PATCH(self):
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        body = self.body()
        key = object_key(parts)
        if not key:
            return self.not_found()
        with LOCK:
            obj = STATE["objects"].get(key)
            STATE["patches"].setdefault(key, []).append(
                {
                    "contentType": self.headers.get("Content-Type"),
                    "body": body.decode("utf-8", "surrogateescape"),
                    "query": url.query,
                }
            )
        if obj is None:
            return self.not_found(f'{key[0]} "{key[2]}" not found')
        return self.send_json(200, obj)

    def do_POST(self):
        self.body()
        return self.send_json(405, status(405, "MethodNotAllowed", "no"))


def serve(port=0):
    """Starts the server in a daemon thread; returns (server, port)."""
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    return srv, srv.server_address[1]


def write_kubeconfig(workdir, port):
    """Writes a kubeconfig for this server (namespace `default`) into
    `workdir`; returns its path."""
    path = os.path.join(workdir, "kubeconfig")
    with open(path, "w") as f:
        f.write(
            "apiVersion: v1\nkind: Config\nclusters:\n"
            f"- cluster: {{server: 'http://127.0.0.1:{port}'}}\n  name: fake\n"
            "contexts:\n- context: {cluster: fake, namespace: default, user: u}\n  name: fake\n"
            "current-context: fake\nusers:\n- name: u\n  user: {}\n"
        )
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--portfile")
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    port = srv.server_address[1]
    print(f"listening on http://127.0.0.1:{port}", flush=True)
    if a.portfile:
        with open(a.portfile, "w") as f:
            f.write(str(port))
    srv.serve_forever()


if __name__ == "__main__":
    main()
