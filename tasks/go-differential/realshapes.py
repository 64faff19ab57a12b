#!/usr/bin/env python3
"""Real-shaped differential: objects built from the embedded schema (every
field of ~30 built-in kinds the earlier generators never reached) and the real
pods of ../shared/fieldsets, edited the way a user edits them, compared with
the Go reference (kubectl v1.32) for apply, create2 and create3.

    python3 tasks/go-differential/realshapes.py all --seed 1 --n 1500 --n2 400 --n3 400 \
        --smpatch target/debug/smpatch --out /tmp/realshapes

`all` writes the cases and runs the existing runners on them:

* apply: `OUT/apply.json` ([{live, patch}]) through
  `tasks/kubectl-differential/run.py --cases` (kubectl patch --local);
* create2/create3: `OUT/create.jsonl` through
  `tasks/go-differential/run.py --replay` (kubectl edit / kubectl apply
  against fakeapi.py, which serves every kind below, cluster-scoped ones too);
* round trip: our create2 patch applied by `kubectl patch --local` must give
  `modified` (OUT/roundtrip-mismatches.jsonl).

`apply`, `create` and `roundtrip` run one part. Everything is seeded.

Objects. `schema_object` fills a kind's definition of
crates/schema/data/k8s-v1.37.0.json (the embedded schema; patch strategies and
merge keys read from it) with plausible values: merge keys from small pools
(so edits collide), enums, quantities, times, int-or-string, and real-shaped
overrides (Service/container ports with the same port on TCP and UDP, which
are one merge key for the reference; EndpointSlice multi-key endpoints; volume
sources under retainKeys; finalizers; ownerReferences). The real pods of
../shared/fieldsets (read at run time, never copied) are bases too, with the
managedFields entries of that directory attached.

Edits (`edit`): what `kubectl edit` / a changed manifest does: reorder keyed
and primitive lists, rename a merge key, delete/insert elements, switch a
retainKeys union member (volume source, Deployment strategy), change and
delete scalars, maps and nested keyed lists (containers[].ports[],
env[].valueFrom), duplicate elements (rare).

Patches (`patchify`): the patch a user writes for such an edit: partial
objects, `{key, $patch: delete}` elements, `$setElementOrder`,
`$deleteFromPrimitiveList`, `$retainKeys`, nulls (deep inside new values
too), `$patch: replace` of objects and lists and `$patch: delete` of objects
at every level.
"""

import argparse
import copy
import glob
import json
import os
import random
import string
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared"))
SCHEMA = json.load(open(os.path.join(REPO, "crates", "schema", "data", "k8s-v1.37.0.json")))["definitions"]

# kind -> (definition, namespaced). Kinds kubectl v1.32 patches locally.
KINDS = {
    "PodTemplate": ("io.k8s.api.core.v1.PodTemplate", True),
    "ReplicaSet": ("io.k8s.api.apps.v1.ReplicaSet", True),
    "ReplicationController": ("io.k8s.api.core.v1.ReplicationController", True),
    "LimitRange": ("io.k8s.api.core.v1.LimitRange", True),
    "ResourceQuota": ("io.k8s.api.core.v1.ResourceQuota", True),
    "Lease": ("io.k8s.api.coordination.v1.Lease", True),
    "EndpointSlice": ("io.k8s.api.discovery.v1.EndpointSlice", True),
    "Event": ("io.k8s.api.core.v1.Event", True),
    "ControllerRevision": ("io.k8s.api.apps.v1.ControllerRevision", True),
    "CSIStorageCapacity": ("io.k8s.api.storage.v1.CSIStorageCapacity", True),
    "Pod": ("io.k8s.api.core.v1.Pod", True),
    "Deployment": ("io.k8s.api.apps.v1.Deployment", True),
    "StatefulSet": ("io.k8s.api.apps.v1.StatefulSet", True),
    "Service": ("io.k8s.api.core.v1.Service", True),
    "StorageClass": ("io.k8s.api.storage.v1.StorageClass", False),
    "CSIDriver": ("io.k8s.api.storage.v1.CSIDriver", False),
    "CSINode": ("io.k8s.api.storage.v1.CSINode", False),
    "ValidatingWebhookConfiguration": ("io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration", False),
    "MutatingWebhookConfiguration": ("io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration", False),
    "ValidatingAdmissionPolicy": ("io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy", False),
    "PriorityClass": ("io.k8s.api.scheduling.v1.PriorityClass", False),
    "FlowSchema": ("io.k8s.api.flowcontrol.v1.FlowSchema", False),
    "PriorityLevelConfiguration": ("io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration", False),
    "PersistentVolume": ("io.k8s.api.core.v1.PersistentVolume", False),
    "Namespace": ("io.k8s.api.core.v1.Namespace", False),
    "VolumeAttachment": ("io.k8s.api.storage.v1.VolumeAttachment", False),
    "CertificateSigningRequest": ("io.k8s.api.certificates.v1.CertificateSigningRequest", False),
    "IngressClass": ("io.k8s.api.networking.v1.IngressClass", False),
    "RuntimeClass": ("io.k8s.api.node.v1.RuntimeClass", False),
    "ClusterRoleBinding": ("io.k8s.api.rbac.v1.ClusterRoleBinding", False),
    "Node": ("io.k8s.api.core.v1.Node", False),
}

# Resource names for fakeapi.py / run.py: kind -> (group/version, plural).
def api_version(kind):
    g = SCHEMA[KINDS[kind][0]]["x-kubernetes-group-version-kind"][0]
    return f"{g['group']}/{g['version']}" if g["group"] else g["version"]


def plural(kind):
    k = kind.lower()
    if k.endswith("s"):
        return k + "es"
    if k.endswith("y"):
        return k[:-1] + "ies"
    return k + "s"


def kubectl_fields():
    """JSON field names kubectl v1.32 knows (its struct tags, read from the
    binary): fields of the v1.37 schema that kubectl lacks make the
    reference fail its struct lookup, so the generator leaves them out."""
    import re
    import shutil

    exe = shutil.which("kubectl")
    if not exe:
        return None
    data = open(exe, "rb").read()
    return {m.decode() for m in re.findall(rb'json:"([A-Za-z0-9_$]+)', data)}


KNOWN = kubectl_fields()

pick = lambda rng, xs: xs[rng.randrange(len(xs))]  # noqa: E731

KEY_POOLS = {
    "name": ["app", "sidecar", "web", "db", "metrics", "proxy", "cache"],
    "containerPort": [80, 443, 53, 8080, 9090],
    "port": [80, 443, 53, 8080, 9090],
    "mountPath": ["/data", "/etc/config", "/var/log", "/tmp"],
    "devicePath": ["/dev/xvda", "/dev/xvdb"],
    "ip": ["10.0.0.1", "10.0.0.2", "fd00::1"],
    "uid": ["0a9d2b9e-779e-11e7-b422-42010a8001be", "1b8e3c0f-0000-4000-8000-000000000001",
            "2c7f4d1a-0000-4000-8000-000000000002"],
    "topologyKey": ["kubernetes.io/hostname", "topology.kubernetes.io/zone"],
    "type": ["Ready", "Available", "Progressing", "PodScheduled", "Initialized"],
    "key": ["k1", "k2", "k3"],
    "scopeName": ["PriorityClass", "Terminating", "BestEffort"],
}
FINALIZERS = ["kubernetes.io/pvc-protection", "foregroundDeletion", "example.com/cleanup", "orphan", "a/b"]
SPECIAL = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": lambda rng: pick(rng, ["100m", "1", "2Gi", "500Mi", "0.5", "3"]),
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": lambda rng: pick(rng, [1, 8080, "25%", "http"]),
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": lambda rng: pick(rng, ["2025-01-02T03:04:05Z", "2026-11-24T00:00:00Z"]),
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": lambda rng: "2025-01-02T03:04:05.123456Z",
    "io.k8s.apimachinery.pkg.runtime.RawExtension": lambda rng: {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"}},
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": lambda rng: {"f:metadata": {"f:labels": {"f:app": {}}}},
}


def deref(s):
    while isinstance(s, dict) and "$ref" in s:
        name = s["$ref"].split("/")[-1]
        s = dict(SCHEMA[name], _name=name)
    if isinstance(s, dict) and "allOf" in s and len(s["allOf"]) == 1:
        return deref(s["allOf"][0])
    return s


def ref_name(s):
    return s["$ref"].split("/")[-1] if isinstance(s, dict) and "$ref" in s else None


def list_meta(prop):
    """('keyed', key) / ('prim',) / ('atomic',) and whether retainKeys, from the schema."""
    strat = (prop.get("x-kubernetes-patch-strategy") or "").split(",")
    key = prop.get("x-kubernetes-patch-merge-key")
    if "merge" in strat:
        return ("keyed", key) if key else ("prim",)
    return ("atomic",)


def scalar(rng, s, field):
    if "enum" in s:
        return pick(rng, s["enum"])
    t = s.get("type")
    if t == "integer":
        return pick(rng, [0, 1, 2, 3, 10, 30, 80])
    if t == "number":
        return pick(rng, [0.5, 1, 2.5])
    if t == "boolean":
        return rng.random() < 0.5
    if s.get("format") == "byte":
        return pick(rng, ["aGVsbG8=", "d29ybGQ="])
    if field in KEY_POOLS and isinstance(KEY_POOLS[field][0], str):
        return pick(rng, KEY_POOLS[field])
    return pick(rng, ["a", "b", "x-1", "v2", "héllo", "some value"]) + (str(rng.randrange(9)) if rng.random() < 0.3 else "")


def build(rng, s, field="", depth=0):
    """A random value for schema node `s`."""
    name = ref_name(s)
    if name in SPECIAL:
        return SPECIAL[name](rng)
    if name == "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":
        return meta(rng)
    s = deref(s)
    t = s.get("type")
    if t == "object" and "properties" in s:
        out = {}
        req = set(s.get("required", []))
        p = 0.75 if depth < 3 else 0.45 if depth < 6 else 0.2 if depth < 8 else 0.0
        for k, ps in s["properties"].items():
            if k in ("apiVersion", "kind", "status") and depth == 0:
                continue
            if KNOWN is not None and k not in KNOWN:
                continue
            if k in req or rng.random() < p or (depth == 0 and k in ("spec", "template", "data")):
                v = build_field(rng, ps, k, depth + 1)
                if v is not None:
                    out[k] = v
        return out
    if t == "object" and "additionalProperties" in s:
        ap = s["additionalProperties"]
        n = rng.randrange(0, 3) if depth < 6 else 0
        return {pick(rng, ["cpu", "memory", "app", "tier", "x"]) + str(i): build(rng, ap, "", depth + 1) for i in range(n)}
    if t == "object":
        return {}
    if t == "array":
        return build_list(rng, s, field, depth)
    return scalar(rng, s, field)


def build_field(rng, ps, k, depth):
    if ps.get("type") == "array":
        return build_list(rng, ps, k, depth)
    return build(rng, ps, k, depth)


def build_list(rng, ps, field, depth, n=None):
    meta_ = list_meta(ps)
    items = ps.get("items", {})
    if n is None:
        n = rng.randrange(0, 4) if depth < 7 else 0
    if field == "finalizers":
        return rng.sample(FINALIZERS, min(n, len(FINALIZERS)))
    out = []
    if meta_[0] == "keyed":
        key = meta_[1]
        pool = list(KEY_POOLS.get(key, ["k1", "k2", "k3", "k4"]))
        rng.shuffle(pool)
        for i in range(min(n, len(pool))):
            e = build(rng, items, "", depth)
            if isinstance(e, dict):
                e[key] = pool[i]
                out.append(e)
        if field in ("ports",) and key in ("containerPort", "port") and rng.random() < 0.35:
            # The same port on TCP and UDP (kube-dns): one merge key for the
            # reference's struct tags (the list-map keys are port+protocol).
            out = [e for e in out if e.get(key) != 53]
            out.insert(rng.randrange(len(out) + 1), {key: 53, "protocol": "UDP", "name": "dns"})
            out.insert(rng.randrange(len(out) + 1), {key: 53, "protocol": "TCP", "name": "dns-tcp"})
        return out
    if meta_[0] == "prim":
        return rng.sample(["a", "b", "c", "d", "e"], min(n, 5))
    for _ in range(n):
        out.append(build(rng, items, field, depth))
    return out


def meta(rng, name="x"):
    m = {"name": name}
    if rng.random() < 0.7:
        m["labels"] = {k: pick(rng, ["web", "v1", "prod"]) for k in rng.sample(["app", "tier", "env", "version"], rng.randrange(1, 4))}
    if rng.random() < 0.5:
        m["annotations"] = {k: pick(rng, ["1", "true", "some text", "héllo"]) for k in rng.sample(["a.io/x", "b.io/y", "note"], rng.randrange(1, 3))}
    if rng.random() < 0.5:
        m["finalizers"] = rng.sample(FINALIZERS, rng.randrange(1, 4))
    if rng.random() < 0.3:
        m["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs-" + u[:4], "uid": u, "controller": i == 0}
            for i, u in enumerate(rng.sample(KEY_POOLS["uid"], rng.randrange(1, 3)))
        ]
    if rng.random() < 0.2:
        m["managedFields"] = managed_fields(rng)
    return m


_MF = None


def managed_fields(rng):
    global _MF
    if _MF is None:
        _MF = []
        for f in sorted(glob.glob(os.path.join(SHARED, "fieldsets", "managedfields_test.roundtrip-*.yaml"))):
            v = yaml.safe_load(open(f))
            if isinstance(v, list):
                _MF.append(v)
    return copy.deepcopy(pick(rng, _MF)) if _MF else []


def real_pods():
    out = []
    for f in sorted(glob.glob(os.path.join(SHARED, "fieldsets", "*"))):
        if f.endswith(".md"):
            continue
        try:
            v = yaml.safe_load(open(f))
        except Exception:  # noqa: BLE001 (not a document we can use)
            continue
        if isinstance(v, dict) and v.get("kind") and v.get("apiVersion"):
            out.append(v)
    return out


def volume_sources(rng):
    return pick(rng, [
        {"emptyDir": {}}, {"emptyDir": {"medium": "Memory"}},
        {"configMap": {"name": "cm", "items": [{"key": "a", "path": "a"}]}},
        {"secret": {"secretName": "s", "defaultMode": 420}},
        {"hostPath": {"path": "/var/log", "type": "Directory"}},
        {"persistentVolumeClaim": {"claimName": "data"}},
        {"projected": {"sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}]}},
    ])


def realify(rng, obj, path=()):
    """Real-shaped overrides on a schema-built object (in place)."""
    if isinstance(obj, dict):
        for k, v in list(obj.items()):
            if k == "volumes" and isinstance(v, list):
                obj[k] = [dict({"name": e.get("name", "v%d" % i)}, **volume_sources(rng)) for i, e in enumerate(v)]
            elif k == "strategy" and isinstance(v, dict) and "Deployment" in path:
                obj[k] = pick(rng, [{"type": "Recreate"}, {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}}])
            elif k == "env" and isinstance(v, list):
                for e in v:
                    e.pop("value", None) if "valueFrom" in e else None
            else:
                realify(rng, v, path + (k,))
    elif isinstance(obj, list):
        for x in obj:
            realify(rng, x, path)


def schema_object(rng, kind, name):
    d, namespaced = KINDS[kind]
    obj = {"apiVersion": api_version(kind), "kind": kind}
    body = build(rng, {"$ref": "#/definitions/" + d})
    obj.update(body)
    obj["metadata"] = meta(rng, name)
    if namespaced:
        obj["metadata"]["namespace"] = "default"
    realify(rng, obj, (kind,))
    return obj


def base(rng, name):
    if not ONLY and rng.random() < 0.12:
        obj = copy.deepcopy(pick(rng, real_pods_cached()))
        obj["metadata"]["name"] = name
        obj["metadata"]["namespace"] = "default"
        return obj
    kind = pick(rng, ONLY or sorted(KINDS))
    return schema_object(rng, kind, name)


ONLY = []  # --kinds


_RP = None


def real_pods_cached():
    global _RP
    if _RP is None:
        _RP = real_pods()
    return _RP


# ----- schema-aware walking ---------------------------------------------------


def field_schema(parent_schema, k):
    s = deref(parent_schema) if parent_schema else None
    if not isinstance(s, dict):
        return None
    if "properties" in s and k in s["properties"]:
        return s["properties"][k]
    if "additionalProperties" in s and isinstance(s["additionalProperties"], dict):
        return s["additionalProperties"]
    return None


def kind_schema(obj):
    k = obj.get("kind")
    return {"$ref": "#/definitions/" + KINDS[k][0]} if k in KINDS else None


def is_retain_keys(ps):
    return "retainKeys" in (ps or {}).get("x-kubernetes-patch-strategy", "")


# ----- edits (kubectl edit / changed manifest) -------------------------------


# Metadata an edit leaves alone: the object's identity (kubectl edit
# refuses a changed uid: "no original object found"), server-set fields.
IDENTITY = ("name", "namespace", "uid", "resourceVersion", "generateName", "selfLink", "creationTimestamp",
            "generation", "deletionTimestamp", "deletionGracePeriodSeconds")


def edit(rng, v, s, rate, depth=0, field=""):
    """An edited copy of `v` (schema node `s`)."""
    if isinstance(v, dict):
        out = {}
        sd = deref(s) if s else None
        for k, x in v.items():
            if depth == 0 and k in ("apiVersion", "kind"):
                out[k] = x
                continue
            if depth == 1 and field == "metadata" and k in IDENTITY:
                out[k] = x
                continue
            ps = field_schema(s, k)
            r = rng.random()
            if r < rate * 0.15 and not (depth == 0):
                continue  # delete the field
            if isinstance(x, (dict, list)) and r < rate * 1.8:
                out[k] = edit(rng, x, ps, rate, depth + 1, k)
            elif not isinstance(x, (dict, list)) and r < rate:
                out[k] = build(rng, ps, k, 5) if ps else pick(rng, ["changed", 7, True])
            else:
                out[k] = copy.deepcopy(x)
        if isinstance(sd, dict) and rng.random() < rate * 0.5:
            if "properties" in sd:
                missing = [k for k in sd["properties"] if k not in out and k not in ("status", "apiVersion", "kind")
                           and (KNOWN is None or k in KNOWN) and not (field == "metadata" and k in IDENTITY)]
                if missing:
                    k = pick(rng, missing)
                    out[k] = build_field(rng, sd["properties"][k], k, max(depth, 3) + 1)
            elif isinstance(sd.get("additionalProperties"), dict) and depth > 0:
                out[pick(rng, ["new", "app", "x0", "tier"])] = build(rng, sd["additionalProperties"], "", 6)
        return out
    if isinstance(v, list):
        lm = list_meta(s or {})
        items = (s or {}).get("items", {})
        out = [copy.deepcopy(x) for x in v]
        ops = rng.randrange(1, 3)
        for _ in range(ops):
            r = rng.random()
            if r < 0.2 and len(out) > 1:
                rng.shuffle(out)
            elif r < 0.35 and out:
                out.pop(rng.randrange(len(out)))
            elif r < 0.55:
                if field == "finalizers" or lm[0] == "prim":
                    new = pick(rng, FINALIZERS + ["z"]) if field == "finalizers" else pick(rng, ["a", "b", "f", "g"])
                    if new not in out or rng.random() < 0.05:
                        out.insert(rng.randrange(len(out) + 1), new)
                else:
                    e = build_list(rng, s or {}, field, 5, 1) if s else []
                    if e:
                        e = e[0] if len(e) == 1 or lm[0] != "keyed" else e[0]
                        if lm[0] == "keyed":
                            used = {json.dumps(x.get(lm[1])) for x in out if isinstance(x, dict)}
                            pool = [k for k in KEY_POOLS.get(lm[1], ["k1", "k2", "k3", "k4", "k5"]) if json.dumps(k) not in used]
                            if pool and rng.random() > 0.04:
                                e[lm[1]] = pick(rng, pool)
                        out.insert(rng.randrange(len(out) + 1), e)
            elif r < 0.65 and out and lm[0] == "keyed" and isinstance(out[0], dict):
                # rename a merge key
                i = rng.randrange(len(out))
                if isinstance(out[i], dict):
                    out[i][lm[1]] = pick(rng, KEY_POOLS.get(lm[1], ["k1", "k2", "k3", "k9"]))
            elif r < 0.68 and out:
                out.insert(rng.randrange(len(out) + 1), copy.deepcopy(pick(rng, out)))  # duplicate
            elif out:
                i = rng.randrange(len(out))
                if isinstance(out[i], (dict, list)):
                    out[i] = edit(rng, out[i], items, rate + 0.1, depth + 1, field)
                elif lm[0] == "atomic":
                    out[i] = scalar(rng, deref(items) if items else {}, field)
        return out
    return v


def retain_switch(rng, v, s, field=""):
    """Switch a retainKeys union member (volume source, strategy)."""
    if isinstance(v, dict):
        for k, x in v.items():
            ps = field_schema(s, k)
            if is_retain_keys(ps) and rng.random() < 0.5:
                if isinstance(x, list):
                    for i, e in enumerate(x):
                        if isinstance(e, dict) and rng.random() < 0.5:
                            nm = e.get("name")
                            x[i] = dict({"name": nm} if nm else {}, **volume_sources(rng))
                elif isinstance(x, dict):
                    if x.get("type") == "Recreate":
                        v[k] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}
                    else:
                        v[k] = {"type": "Recreate"}
            elif isinstance(x, (dict, list)):
                retain_switch(rng, x, ps, k)
    elif isinstance(v, list):
        for x in v:
            retain_switch(rng, x, (s or {}).get("items"), field)


def edited(rng, obj):
    s = kind_schema(obj)
    for _ in range(5):
        m = edit(rng, obj, s, pick(rng, [0.15, 0.3, 0.45]))
        if rng.random() < 0.3:
            retain_switch(rng, m, s)
        if json.dumps(m, sort_keys=True) != json.dumps(obj, sort_keys=True):
            return m
    m = copy.deepcopy(obj)
    m["metadata"].setdefault("labels", {})["forced"] = "1"
    return m


# ----- user-written patches -------------------------------------------------


def noisy(rng, v):
    """A new value as a user writes it: sometimes nulls inside."""
    v = copy.deepcopy(v)
    if isinstance(v, dict) and v and rng.random() < 0.1:
        v[pick(rng, list(v))] = None
    return v


def patchify(rng, b, m, s, field=""):
    """A user-written patch turning b into m (schema node s); the verdict is
    kubectl's, not this function's."""
    if isinstance(b, dict) and isinstance(m, dict):
        r = rng.random()
        if r < 0.05 and field:
            return dict(copy.deepcopy(m), **{"$patch": "replace"})
        if r < 0.07 and field and field not in ("metadata", "spec"):
            return {"$patch": "delete"}
        p = {}
        for k, x in m.items():
            ps = field_schema(s, k)
            if k not in b:
                p[k] = noisy(rng, x)
            elif json.dumps(b[k], sort_keys=True) != json.dumps(x, sort_keys=True):
                p[k] = patchify(rng, b[k], x, ps, k)
                if isinstance(p[k], dict) and is_retain_keys(ps) and isinstance(x, dict) and rng.random() < 0.6:
                    p[k]["$retainKeys"] = sorted(x)
            elif rng.random() < 0.03:
                p[k] = copy.deepcopy(x)
        for k in b:
            if k not in m:
                p[k] = None
        if field and rng.random() < 0.03:
            # `$retainKeys` where the schema has no retainKeys strategy (the
            # reference honours it in any object)
            p["$retainKeys"] = sorted(k for k in m if rng.random() < 0.8)
        if rng.random() < 0.03:
            # a deep null inside an unchanged subtree
            ks = [k for k, x in b.items() if isinstance(x, dict) and x]
            if ks:
                k = pick(rng, ks)
                p.setdefault(k, {})
                if isinstance(p[k], dict):
                    p[k][pick(rng, list(b[k]))] = None
        return p
    if isinstance(b, list) and isinstance(m, list):
        lm = list_meta(s or {})
        if lm[0] == "keyed" and all(isinstance(x, dict) for x in b + m):
            return keyed_patch(rng, b, m, s, lm[1])
        if lm[0] == "prim" and field and all(not isinstance(x, (dict, list)) for x in b + m):
            return ("prim", b, m)
        if rng.random() < 0.05:
            return [{"$patch": "replace"}] + copy.deepcopy(m)
        return copy.deepcopy(m)
    return copy.deepcopy(m)


def keyed_patch(rng, b, m, s, key):
    items = (s or {}).get("items")
    bk = {json.dumps(x.get(key)): x for x in b}
    mk = [json.dumps(x.get(key)) for x in m]
    r = rng.random()
    if r < 0.08:
        return [{"$patch": "replace"}] + copy.deepcopy(m)
    out = []
    for x in m:
        k = json.dumps(x.get(key))
        if k not in bk:
            out.append(noisy(rng, x))
        elif json.dumps(bk[k], sort_keys=True) != json.dumps(x, sort_keys=True):
            e = patchify(rng, bk[k], x, items, "")
            if isinstance(e, dict):
                e[key] = x.get(key)
                if is_retain_keys(s) and rng.random() < 0.5:
                    # volumes: the element's source switch, as kubectl
                    # apply writes it
                    e["$retainKeys"] = sorted(x) if rng.random() < 0.9 else sorted(x)[1:]
            out.append(e)
        elif rng.random() < 0.1:
            out.append({key: x.get(key)})
    for k, x in bk.items():
        if k not in mk:
            out.append({key: x.get(key), "$patch": "delete"})
    if rng.random() < 0.04 and out:
        out.append(copy.deepcopy(pick(rng, out)))
    rng.shuffle(out) if rng.random() < 0.2 else None
    return ("keyed", out, [{key: x.get(key)} for x in m])


def finish(rng, p):
    """Turn the ('prim' / 'keyed', ...) markers into lists and directives."""
    if isinstance(p, dict):
        out = {}
        for k, x in p.items():
            if isinstance(x, tuple) and x[0] == "prim":
                _, b, m = x
                new = [v for v in m if v not in b]
                gone = [v for v in b if v not in m]
                if rng.random() < 0.1:
                    out[k] = [{"$patch": "replace"}] + list(m) if rng.random() < 0.3 else list(m)
                    continue
                if new or rng.random() < 0.3:
                    out[k] = new
                if gone:
                    out["$deleteFromPrimitiveList/" + k] = gone
                if b != m and rng.random() < 0.6:
                    out["$setElementOrder/" + k] = list(m)
            elif isinstance(x, tuple) and x[0] == "keyed":
                _, lst, order = x
                out[k] = [finish(rng, e) for e in lst]
                if rng.random() < 0.5:
                    out["$setElementOrder/" + k] = order
            else:
                out[k] = finish(rng, x)
        return out
    if isinstance(p, list):
        return [finish(rng, x) for x in p]
    return p


def user_patch(rng, b, m):
    p = finish(rng, patchify(rng, b, m, kind_schema(b)))
    p.pop("apiVersion", None) if rng.random() < 0.7 else None
    p.pop("kind", None) if rng.random() < 0.7 else None
    if rng.random() < 0.05:
        p.setdefault("metadata", {})
        if isinstance(p["metadata"], dict):
            p["metadata"]["$patch"] = "replace"
            p["metadata"].update({k: v for k, v in m["metadata"].items() if k not in p["metadata"]})
    return p


# ----- three-way inputs ------------------------------------------------------


def serverized(rng, obj):
    cur = copy.deepcopy(obj)
    md = cur["metadata"]
    if rng.random() < 0.6:
        md["uid"] = "0000-1111"
        md["resourceVersion"] = "12"
        md["creationTimestamp"] = "2025-01-02T03:04:05Z"
    if rng.random() < 0.3:
        md["managedFields"] = managed_fields(rng)
    if rng.random() < 0.5:
        cur = edit(rng, cur, kind_schema(cur), 0.15)  # another writer / controller
    return cur


def drop_la(doc):
    ann = doc.get("metadata", {}).get("annotations")
    if isinstance(ann, dict):
        ann.pop("kubectl.kubernetes.io/last-applied-configuration", None)


# ----- drivers ---------------------------------------------------------------


def gen_apply(seed, n):
    cases = []
    for i in range(n):
        rng = random.Random(seed * 1_000_003 + 900_000 + i)
        b = base(rng, f"r{seed}-{i}")
        m = edited(rng, b)
        p = user_patch(rng, b, m)
        if rng.random() < 0.4:
            # the live object drifted since the patch was written (another
            # writer, a controller): deletions of missing elements, order
            # lists naming elements the live list lacks or not naming new ones
            b = edit(rng, b, kind_schema(b), pick(rng, [0.15, 0.3]))
        cases.append({"live": b, "patch": p})
    return cases


def gen_create(seed, n2, n3, napply=0, n3c=0):
    lines = []
    for i in range(n2):
        rng = random.Random(seed * 1_000_003 + 950_000 + i)
        o = base(rng, "x")
        m = edited(rng, o)
        # `kubectl edit` never sends managedFields changes (it drops the
        # field from both sides, --show-managed-fields or not): keep them.
        m["metadata"].pop("managedFields", None)
        if "managedFields" in o["metadata"]:
            m["metadata"]["managedFields"] = copy.deepcopy(o["metadata"]["managedFields"])
        lines.append({"op": "create2", "original": o, "modified": m})
    for i in range(n3):
        rng = random.Random(seed * 1_000_003 + 980_000 + i)
        o = base(rng, "x")
        drop_la(o)
        c = serverized(rng, o)
        src = c if rng.random() < 0.2 else o
        m = edited(rng, src)
        for k in ("uid", "resourceVersion", "creationTimestamp", "managedFields"):
            if src is c:
                m["metadata"].pop(k, None)
        drop_la(m)
        lines.append({"op": "create3", "original": None if rng.random() < 0.1 else o, "manifest": m,
                      "modified": m, "current_plain": c})
    for i in range(n3c):
        # kubectl apply --overwrite=false: the conflict check
        rng = random.Random(seed * 1_000_003 + 970_000 + i)
        o = base(rng, "x")
        drop_la(o)
        c = serverized(rng, o)
        if rng.random() < 0.5:
            # another writer changed fields the manifest also changes
            c = edit(rng, c, kind_schema(c), 0.3)
            c["metadata"]["name"] = o["metadata"]["name"]
        m = edited(rng, o)
        drop_la(m)
        namespaced = KINDS.get(o["kind"], ("", True))[1]
        scen = pick(rng, ["reapply", None]) if namespaced else None
        lines.append({"op": "create3c", "original": None if rng.random() < 0.15 else o, "manifest": m,
                      "modified": m, "current_plain": c, "scenario": scen})
    for i in range(napply):
        # `smpatch apply` end to end (run.py's cli-apply: annotation text,
        # --show-patch and the object against kubectl apply + kubectl patch)
        rng = random.Random(seed * 1_000_003 + 990_000 + i)
        o = base(rng, "x")
        drop_la(o)
        c = serverized(rng, o)
        m = edited(rng, o)
        drop_la(m)
        if rng.random() < 0.5:
            m["metadata"].pop("namespace", None)
        lines.append({"op": "cli-apply", "original": o, "manifest": m, "current_plain": c})
    return lines


def kubectl_patch(workdir, i, live, patch):
    lp, pp = os.path.join(workdir, f"l{i}.json"), os.path.join(workdir, f"p{i}.json")
    json.dump(live, open(lp, "w"))
    json.dump(patch, open(pp, "w"))
    r = subprocess.run(["kubectl", "patch", "--local", "-f", lp, "--type", "strategic", "--patch-file", pp,
                        "-o", "json", "--show-managed-fields"], capture_output=True, text=True)
    return ("ok", json.loads(r.stdout)) if r.returncode == 0 else ("err", r.stderr.strip())


def inexpressible(v, s, nulls=True):
    """Whether `v` holds what no strategic merge patch can produce: a `null`
    value, duplicates in a merge list, or a keyed-list element without its
    merge key (the reference pairs such lists by key; its patch can only
    name each key once)."""
    if isinstance(v, dict):
        for k, x in v.items():
            if x is None and nulls:
                return True
            ps = field_schema(s, k)
            if isinstance(x, list) and ps is not None:
                lm = list_meta(ps)
                if lm[0] == "keyed":
                    if any(not isinstance(e, dict) or lm[1] not in e for e in x):
                        return True
                    ks = [json.dumps(e[lm[1]]) for e in x]
                    if len(set(ks)) < len(ks):
                        return True
                elif lm[0] == "prim" or k == "finalizers":
                    ks = [json.dumps(e) for e in x]
                    if len(set(ks)) < len(ks):
                        return True
                if any(inexpressible(e, ps.get("items"), nulls) for e in x):
                    return True
            elif inexpressible(x, ps, nulls):
                return True
    elif isinstance(v, list):
        return any(inexpressible(e, None, nulls) for e in v)
    return False


def roundtrip(args, lines):
    """Our create2 patch, applied by kubectl, must give modified."""
    import concurrent.futures as cf
    sys.path.insert(0, os.path.join(HERE, "..", "kubectl-differential"))
    import importlib.util
    spec = importlib.util.spec_from_file_location("kd_run", os.path.join(HERE, "..", "kubectl-differential", "run.py"))
    kd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kd)
    norm = kd.norm
    reqs = []
    cases = [c for c in lines if c["op"] == "create2"]
    for i, c in enumerate(cases):
        gvk = f"{c['original']['apiVersion']}/{c['original']['kind']}"
        reqs.append(json.dumps({"id": i, "op": "create2", "schema": {"builtin": gvk}, "original": c["original"],
                                "modified": c["modified"], "options": {"fix_quirks": True}}) + "\n")
    out = subprocess.run([args.smpatch, "batch"], input="".join(reqs), capture_output=True, text=True, check=True)
    ours = {}
    for line in out.stdout.splitlines():
        r = json.loads(line)
        ours[r["id"]] = r
    workdir = tempfile.mkdtemp(prefix="rs-rt-")
    todo = [(i, c) for i, c in enumerate(cases) if "ok" in ours.get(i, {})]
    with cf.ThreadPoolExecutor(min(args.jobs, 2)) as ex:
        res = list(ex.map(lambda ic: kubectl_patch(workdir, ic[0], ic[1]["original"], ours[ic[0]]["ok"]), todo))
    tally = {"cases": len(cases), "our-error": len(cases) - len(todo), "agree": 0, "inexpressible": 0, "dup-keys-original": 0,
             "MISMATCH": 0,
             "kubectl-error": 0}
    with open(os.path.join(args.out, "roundtrip-mismatches.jsonl"), "w") as f:
        for (i, c), t in zip(todo, res):
            if t[0] == "err":
                tally["kubectl-error"] += 1
                f.write(json.dumps({"i": i, "case": c, "patch": ours[i]["ok"], "kubectl": t}) + "\n")
            elif norm(t[1]) == norm(c["modified"]):
                tally["agree"] += 1
            elif inexpressible(c["modified"], kind_schema(c["modified"])):
                tally["inexpressible"] += 1
            elif inexpressible(c["original"], kind_schema(c["original"]), nulls=False):
                # Duplicate merge keys in the original: which element a
                # patch element pairs with is unspecified (Q4).
                tally["dup-keys-original"] += 1
            else:
                tally["MISMATCH"] += 1
                f.write(json.dumps({"i": i, "case": c, "patch": ours[i]["ok"], "kubectl": t}) + "\n")
    print("roundtrip (create2 with fix_quirks, applied by kubectl):", json.dumps(tally))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["all", "apply", "create", "roundtrip", "cases"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=1000, help="apply cases")
    ap.add_argument("--n2", type=int, default=300)
    ap.add_argument("--n3", type=int, default=300)
    ap.add_argument("--n3c", type=int, default=0, help="kubectl apply --overwrite=false cases")
    ap.add_argument("--napply", type=int, default=0, help="`smpatch apply` CLI end-to-end cases")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--smpatch", default=os.path.join(REPO, "target", "debug", "smpatch"))
    ap.add_argument("--out", default="/tmp/realshapes")
    ap.add_argument("--kinds", help="comma list: only these kinds (and no fieldsets pods)")
    ap.add_argument("--compact", action="store_true", help="both runners' --compact (request lines and files as compact JSON)")
    args = ap.parse_args()
    if args.kinds:
        ONLY[:] = args.kinds.split(",")
        assert all(k in KINDS for k in ONLY), f"unknown kind in {ONLY}"
    os.makedirs(args.out, exist_ok=True)
    py = sys.executable
    if args.what in ("all", "apply", "cases"):
        cases = gen_apply(args.seed, args.n)
        path = os.path.join(args.out, "apply.json")
        json.dump(cases, open(path, "w"))
        if args.what != "cases":
            print("== apply (kubectl patch --local) ==", flush=True)
            subprocess.run([py, os.path.join(HERE, "..", "kubectl-differential", "run.py"), "--cases", path,
                            "--jobs", str(min(args.jobs, 2)), "--smpatch", args.smpatch,
                            "--out", os.path.join(args.out, "apply")] + (["--compact"] if args.compact else []),
                           check=True)
    if args.what in ("all", "create", "roundtrip", "cases"):
        lines = gen_create(args.seed, args.n2, args.n3, args.napply, args.n3c)
        path = os.path.join(args.out, "create.jsonl")
        with open(path, "w") as f:
            for c in lines:
                f.write(json.dumps(c) + "\n")
        if args.what in ("all", "create"):
            print("== create2 / create3 (kubectl edit / kubectl apply) ==", flush=True)
            subprocess.run([py, os.path.join(HERE, "run.py"), "--replay", path, "--seed", str(args.seed),
                            "--jobs", str(min(args.jobs, 2)), "--smpatch", args.smpatch,
                            "--out", os.path.join(args.out, "create")] + (["--compact"] if args.compact else []),
                           check=True)
        if args.what in ("all", "roundtrip"):
            print("== round trip ==", flush=True)
            roundtrip(args, lines)


if __name__ == "__main__":
    main()
