#!/usr/bin/env python3
"""Schema-driven random objects and strategic merge patches for every
built-in kind of the real OpenAPI documents in ../shared/openapi (read at run
time, never copied): the OpenAPI v3 documents of core/v1, batch/v1 and
apiextensions.k8s.io/v1 (v1.24) and, for every other group, the v1.27
swagger (v2). Kinds present in both are drawn from either form (`--source`).

    python3 tasks/kubectl-differential/schemagen.py kinds        # what is covered, and why not
    python3 tasks/kubectl-differential/schemagen.py apply --seed 1 --n 3000 --out /tmp/sg
    python3 tasks/kubectl-differential/schemagen.py create --seed 1 --n2 300 --n3 300 --out /tmp/sg

`apply` writes OUT/apply.json and runs `run.py --cases` (kubectl patch
--local); `create` writes OUT/create.jsonl (edited copies of the objects)
and runs `../go-differential/run.py --replay` (kubectl edit / kubectl apply
against fakeapi.py, whose discovery serves `fakeapi_resources()`).

Objects (`build`): every property of a struct is type-correct (strings,
int32/int64, numbers, booleans, bytes, Quantity, IntOrString, Time,
RawExtension, FieldsV1, JSON), maps from `additionalProperties`, lists by
their patch metadata: keyed lists (`x-kubernetes-patch-strategy: merge` and
`x-kubernetes-patch-merge-key`) take keys from small pools so patches
collide; lists whose `x-kubernetes-list-map-keys` has more keys than the
merge key get elements sharing the merge key and differing in the others
(ports 53/TCP and 53/UDP, topology spread constraints per
whenUnsatisfiable); primitive merge lists; atomic lists. Depth is bounded
(JSONSchemaProps recurses). Fields kubectl v1.32 has no struct tag for
(read from its binary) are left out, except the deliberate unknown fields
of patches.

Patches (`patch_for`): walk the live value with its schema and emit, per
field, one of: new scalars, `null`, nested partial patches, `$patch:
replace|delete` objects, `$retainKeys` (where the strategy says retainKeys,
and sometimes where it does not), keyed list edits (partial elements,
`{key, $patch: delete}`, new elements, `{$patch: replace}`, elements without
the merge key, `$setElementOrder/f` whole, partial, with absent keys or
extra keys), primitive list edits (`$deleteFromPrimitiveList/f`,
`$setElementOrder/f`, `{$patch: replace}` lists), atomic list replacements,
type changes, and unknown fields (scalars, objects, lists).
"""

import argparse
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
OPENAPI = os.path.normpath(os.path.join(REPO, "..", "shared", "openapi"))

V3_FILES = ["kubernetes-v1.24.api.v1.v3.json", "kubernetes-v1.24.batch.v1.v3.json",
            "kubernetes-v1.24.apiextensions.k8s.io.v1.v3.json"]
V2_FILE = "kubernetes-v1.27.swagger.json"

_DOCS = None


def docs():
    """{'v3': definitions, 'v2': definitions}, loaded once."""
    global _DOCS
    if _DOCS is None:
        v3 = {}
        for f in V3_FILES:
            v3.update(json.load(open(os.path.join(OPENAPI, f)))["components"]["schemas"])
        v2 = json.load(open(os.path.join(OPENAPI, V2_FILE)))["definitions"]
        _DOCS = {"v3": v3, "v2": v2}
    return _DOCS


def kubectl_fields():
    """JSON field names kubectl knows (its struct tags, read from the binary)."""
    exe = shutil.which("kubectl")
    if not exe:
        return None
    data = open(exe, "rb").read()
    return {m.decode() for m in re.findall(rb'json:"([A-Za-z0-9_$]+)', data)}


KNOWN = None

# Kinds kubectl v1.32 cannot strategic-merge locally (no Go type in its
# scheme: `kubectl patch --local --type strategic` refuses them), or that the
# documents have but kubectl v1.32 / the embedded v1.37 schema no longer
# serve. Filled by `probe` (see `kinds`), listed here so runs need no probe.
EXCLUDED = {
    "CustomResourceDefinition": "no Go type in kubectl's scheme: strategic merge refused locally",
    "APIService": "no Go type in kubectl's scheme: strategic merge refused locally",
}

# Fields of the documents that kubectl v1.32's structs no longer have (their
# names live on elsewhere, so KNOWN keeps them): both sides refuse maps and
# lists under them ("unable to find api field"), which says nothing.
GONE = {("io.k8s.api.networking.v1.NetworkPolicy", "status"),
        ("io.k8s.api.core.v1.PodResourceClaim", "source")}

pick = lambda rng, xs: xs[rng.randrange(len(xs))]  # noqa: E731

KEY_POOLS = {
    "name": ["app", "sidecar", "web", "db", "metrics"],
    "containerPort": [80, 443, 53, 8080],
    "port": [80, 443, 53, 8080],
    "mountPath": ["/data", "/etc/config", "/var/log", "/tmp"],
    "devicePath": ["/dev/xvda", "/dev/xvdb", "/dev/sdc"],
    "ip": ["10.0.0.1", "10.0.0.2", "fd00::1"],
    "uid": ["0a9d2b9e-779e-11e7-b422-42010a8001be", "1b8e3c0f-0000-4000-8000-000000000001",
            "2c7f4d1a-0000-4000-8000-000000000002"],
    "topologyKey": ["kubernetes.io/hostname", "topology.kubernetes.io/zone"],
    "type": ["Ready", "Available", "Progressing", "Failed", "Initialized"],
    "key": ["k1", "k2", "k3"],
    "rule": ["r1", "r2", "r3"],
    "protocol": ["TCP", "UDP", "SCTP"],
    "whenUnsatisfiable": ["DoNotSchedule", "ScheduleAnyway"],
}
PRIMS = ["a", "b", "c", "d", "e"]
FINALIZERS = ["kubernetes.io/pvc-protection", "foregroundDeletion", "example.com/cleanup", "orphan"]
JUNK = ["zzUnknown", "extraField", "x-custom"]
STRINGS = ["a", "b", "x-1", "v2", "héllo", "some value", "<&>", ""]

SPECIAL = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": lambda rng: pick(rng, ["100m", "1", "2Gi", "500Mi", "0.5", 3]),
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": lambda rng: pick(rng, [1, 8080, "25%", "http"]),
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": lambda rng: pick(rng, ["2025-01-02T03:04:05Z",
                                                                         "2026-11-24T00:00:00Z"]),
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": lambda rng: "2025-01-02T03:04:05.123456Z",
    "io.k8s.apimachinery.pkg.runtime.RawExtension": lambda rng: {"apiVersion": "v1", "kind": "ConfigMap",
                                                                 "data": {"a": "1"}},
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": lambda rng: {"f:metadata": {"f:labels": {"f:app": {}}}},
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON": lambda rng: pick(
        rng, [1, "x", {"a": [1, 2]}, [True, None]]),
    "io.k8s.apimachinery.pkg.apis.meta.v1.Fields": lambda rng: {"f:a": {}},
}
META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


class Node:
    """A schema node with its document (refs resolve inside it)."""

    def __init__(self, doc, s, name=None):
        self.doc, self.s, self.name = doc, s, name

    def deref(self):
        s, name = self.s, self.name
        for _ in range(8):
            if "$ref" in s:
                name = s["$ref"].split("/")[-1]
                s = docs()[self.doc][name]
            elif "allOf" in s and len(s["allOf"]) == 1:
                s = s["allOf"][0]
            else:
                break
        return Node(self.doc, s, name)

    def child(self, s):
        return Node(self.doc, s).deref()

    def props(self):
        return self.s.get("properties", {})

    def kind(self):
        """'special', 'meta', 'struct', 'map', 'list', 'free' or 'scalar'."""
        if self.name in SPECIAL:
            return "special"
        if self.name == META:
            return "meta"
        t = self.s.get("type")
        if t == "array":
            return "list"
        if "properties" in self.s:
            return "struct"
        if t == "object" and isinstance(self.s.get("additionalProperties"), dict):
            return "map"
        if t == "object" or t is None:
            return "free"
        return "scalar"

    def field(self, k):
        ps = self.props().get(k)
        return self.child(ps) if ps is not None else None


def list_meta(n):
    """(strategy, merge key, map keys): 'keyed' / 'prim' / 'atomic'."""
    s = n.s
    strat = (s.get("x-kubernetes-patch-strategy") or "").split(",")
    key = s.get("x-kubernetes-patch-merge-key")
    mk = s.get("x-kubernetes-list-map-keys") or ([key] if key else [])
    if "merge" in strat:
        return ("keyed" if key else "prim", key, mk, "retainKeys" in strat)
    return ("atomic", None, mk, "retainKeys" in strat)


def retain(n):
    return "retainKeys" in (n.s.get("x-kubernetes-patch-strategy") or "")


# ---------------------------------------------------------------- kinds ----

def all_kinds():
    """{kind: [(doc, definition name, apiVersion, namespaced?)]}: top-level
    kinds (with ObjectMeta), newest group-version per document; namespaced is
    a guess from the document's paths."""
    out = {}
    for doc, defs in docs().items():
        for name, s in defs.items():
            gvks = s.get("x-kubernetes-group-version-kind")
            if not gvks or "metadata" not in s.get("properties", {}) or name.endswith("List"):
                continue
            md = s["properties"]["metadata"]
            if META not in json.dumps(md):
                continue
            g = gvks[0]
            av = f"{g['group']}/{g['version']}" if g["group"] else g["version"]
            out.setdefault(g["kind"], []).append((doc, name, av))
    return out


def namespaced_map():
    """kind -> namespaced, from the v1.27 swagger's paths."""
    sw = json.load(open(os.path.join(OPENAPI, V2_FILE)))
    res = {}
    for path, ops in sw["paths"].items():
        for op in ops.values():
            if not isinstance(op, dict):
                continue
            gvk = op.get("x-kubernetes-group-version-kind")
            if gvk and op.get("x-kubernetes-action") in ("get", "patch"):
                res.setdefault(gvk["kind"], "/namespaces/{namespace}/" in path)
    return res


GA = re.compile(r"^(v1|v2)$")
# Kinds the documents hold only in a beta form whose GA version kubectl v1.32
# and the embedded v1.37 schema serve with the same shape.
ALIAS = {"FlowSchema": "flowcontrol.apiserver.k8s.io/v1",
         "PriorityLevelConfiguration": "flowcontrol.apiserver.k8s.io/v1"}


def chosen_kinds(kubectl_ok=None):
    """kind -> [(doc, def, apiVersion)] limited to GA versions (what kubectl
    v1.32 and the embedded v1.37 schema both serve)."""
    res = {}
    for kind, forms in all_kinds().items():
        if kind in EXCLUDED:
            continue
        ga = [f for f in forms if GA.match(f[2].split("/")[-1])]
        if not ga and kind in ALIAS:
            newest = max(f[2] for f in forms)
            ga = [(f[0], f[1], ALIAS[kind]) for f in forms if f[2] == newest]
        if not ga:
            continue
        # one apiVersion per kind: the v3 form's if present, else v2's newest GA
        avs = sorted({f[2] for f in ga})
        av = [f[2] for f in ga if f[0] == "v3"][0] if any(f[0] == "v3" for f in ga) else avs[-1]
        res[kind] = [f for f in ga if f[2] == av]
    if kubectl_ok is not None:
        res = {k: v for k, v in res.items() if k in kubectl_ok}
    return res


# ------------------------------------------------------------- objects ----

def scalar(rng, n, field):
    s = n.s
    if "enum" in s:
        return pick(rng, s["enum"])
    t, fmt = s.get("type"), s.get("format")
    if fmt == "int-or-string":
        return pick(rng, [1, 8080, "25%", "http"])
    if t == "integer":
        return pick(rng, [0, 1, 2, 3, 30, 80] + ([2147483647] if fmt == "int32" else [9007199254740993]))
    if t == "number":
        return pick(rng, [0.5, 1, 2.5, 1e-3])
    if t == "boolean":
        return rng.random() < 0.5
    if fmt == "byte":
        return pick(rng, ["aGVsbG8=", "d29ybGQ="])
    if fmt == "date-time":
        return "2025-01-02T03:04:05Z"
    if field in KEY_POOLS and isinstance(KEY_POOLS[field][0], str):
        return pick(rng, KEY_POOLS[field])
    return pick(rng, STRINGS) + (str(rng.randrange(9)) if rng.random() < 0.3 else "")


def meta(rng, name, ns):
    m = {"name": name}
    if ns:
        m["namespace"] = "default"
    if rng.random() < 0.7:
        m["labels"] = {k: pick(rng, ["1", "x", "web"]) for k in rng.sample(["app", "tier", "env", "x"], rng.randrange(1, 3))}
    if rng.random() < 0.4:
        m["annotations"] = {k: pick(rng, ["v", "{}", "héllo"]) for k in rng.sample(["a", "b", "c/d"], rng.randrange(1, 3))}
    if rng.random() < 0.3:
        m["finalizers"] = rng.sample(FINALIZERS, rng.randrange(1, 3))
    if rng.random() < 0.15:
        m["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs" + str(i),
                                 "uid": KEY_POOLS["uid"][i], "controller": i == 0}
                                for i in range(rng.randrange(1, 3))]
    return m


def build(rng, n, field="", depth=0):
    k = n.kind()
    if k == "special":
        return SPECIAL[n.name](rng)
    if k == "meta":
        return meta(rng, "m" + str(rng.randrange(100)), False)
    if k == "struct":
        out = {}
        props = [p for p in n.props() if (KNOWN is None or p in KNOWN or p in ("apiVersion", "kind"))
                 and (n.name, p) not in GONE]
        req = set(n.s.get("required", []))
        budget = [99, 10, 8, 7, 6, 5, 4, 3, 2, 1][depth] if depth < 10 else 0
        opt = [p for p in props if p not in req and p not in ("apiVersion", "kind")]
        rng.shuffle(opt)
        chosen = opt[:rng.randrange(min(len(opt), budget) // 2, min(len(opt), budget) + 1)]
        if depth == 0:
            chosen += [p for p in ("spec", "template", "data", "rules", "webhooks") if p in opt and p not in chosen]
        for p in [p for p in props if p in req] + chosen:
            v = build(rng, n.field(p), p, depth + 1)
            if v is not None:
                out[p] = v
        return out
    if k == "map":
        ap = n.child(n.s["additionalProperties"])
        cnt = rng.randrange(0, 3) if depth < 8 else 0
        return {pick(rng, ["cpu", "memory", "app", "tier", "x"]) + str(i): build(rng, ap, "", depth + 1)
                for i in range(cnt)}
    if k == "free":
        return {"free": pick(rng, [1, "x", [1, {"y": None}]])} if rng.random() < 0.5 else {}
    if k == "list":
        return build_list(rng, n, field, depth)
    return scalar(rng, n, field)


def key_value(rng, key, i=None):
    pool = KEY_POOLS.get(key, ["k1", "k2", "k3", "k4"])
    return pool[i % len(pool)] if i is not None else pick(rng, pool)


def build_list(rng, n, field, depth, count=None):
    strat, key, mk, _ = list_meta(n)
    items = n.child(n.s.get("items", {}))
    if count is None:
        count = rng.randrange(0 if rng.random() < 0.2 else 1, 5) if depth < 8 else 0
    if field == "finalizers":
        return rng.sample(FINALIZERS, min(count, len(FINALIZERS)))
    if strat == "prim" or items.kind() == "scalar":
        if strat == "prim":
            return rng.sample(PRIMS, min(count, 5))
        return [scalar(rng, items, field) for _ in range(count)]
    out = []
    if strat == "keyed":
        pool = list(range(len(KEY_POOLS.get(key, [0] * 4))))
        rng.shuffle(pool)
        for i in pool[:count]:
            e = build(rng, items, "", depth)
            if isinstance(e, dict):
                e[key] = key_value(rng, key, i)
                out.append(e)
        extra = [x for x in mk if x != key]
        if extra and out and rng.random() < 0.4:
            # Same merge key, other map keys (53/TCP beside 53/UDP): one merge
            # key for the reference's struct tags.
            twin = copy.deepcopy(rng.choice(out))
            for x in extra:
                twin[x] = pick(rng, KEY_POOLS.get(x, ["o1", "o2"]))
            out.insert(rng.randrange(len(out) + 1), twin)
        return out
    for _ in range(count):
        out.append(build(rng, items, "", depth))
    return out


def live_object(rng, kind, forms, name, namespaced, source):
    if source in ("v2", "v3"):
        forms = [f for f in forms if f[0] == source] or forms
    doc, dname, av = pick(rng, forms)
    n = Node(doc, docs()[doc][dname], dname)
    obj = build(rng, n, "", 0)
    obj["apiVersion"], obj["kind"] = av, kind
    obj["metadata"] = meta(rng, name, namespaced)
    return obj, n


# ------------------------------------------------------------- patches ----

def new_scalar(rng, v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return pick(rng, [v + 1, 0, -1, 7, 9223372036854775807])
    if isinstance(v, float):
        return v * 2
    return pick(rng, STRINGS) + "p"


def patch_for(rng, n, live, depth=0, retain_here=False):
    """A random patch object for the live struct/map `live` (a dict)."""
    p = {}
    k = n.kind()
    if k == "map":
        ap = n.child(n.s["additionalProperties"])
        for key in list(live):
            r = rng.random()
            if r < 0.25:
                p[key] = None
            elif r < 0.5:
                p[key] = build(rng, ap, "", depth + 1)
        if rng.random() < 0.5:
            p["new" + str(rng.randrange(3))] = build(rng, ap, "", depth + 1)
        if rng.random() < 0.04:
            p["$patch"] = pick(rng, ["replace", "delete", "merge"])
        return p
    if k != "struct":
        return {"free": new_scalar(rng, "x")}
    props = [x for x in n.props() if (KNOWN is None or x in KNOWN) and (n.name, x) not in GONE]
    present = [x for x in props if x in live]
    absent = [x for x in props if x not in live and x not in ("apiVersion", "kind")]
    if depth == 0 and "spec" in present and rng.random() < 0.7:
        fields = ["spec"] + (["metadata"] if rng.random() < 0.3 else [])
    else:
        fields = rng.sample(present, min(len(present), rng.randrange(1, 5))) if present else []
    if absent and rng.random() < 0.4:
        fields.append(pick(rng, absent))
    for f in fields:
        fn = n.field(f)
        if depth == 0 and f in ("apiVersion", "kind"):
            continue
        if depth == 0 and f == "metadata":
            p[f] = patch_meta(rng, live.get(f, {}))
            continue
        v = live.get(f)
        r = rng.random()
        if r < 0.08:
            p[f] = None
            continue
        fk = fn.kind()
        if fk == "list":
            patch_list(rng, fn, f, v if isinstance(v, list) else None, p, depth)
        elif fk in ("struct", "map") and isinstance(v, dict) and r < 0.9:
            sub = patch_for(rng, fn, v, depth + 1, retain(fn))
            if rng.random() < 0.05:
                sub["$patch"] = pick(rng, ["replace", "delete", "replace"])
            p[f] = sub
        elif fk in ("struct", "map", "free", "special", "meta"):
            p[f] = build(rng, fn, f, depth + 1)
            if rng.random() < 0.15:
                sprinkle_nulls(rng, p[f])
        else:
            p[f] = new_scalar(rng, v) if v is not None else build(rng, fn, f, depth + 1)
        if rng.random() < 0.02:
            p[f] = pick(rng, ["str", 5, [1], {"o": 1}, True])  # type change
    if rng.random() < 0.06:
        j = pick(rng, JUNK)
        p[j] = pick(rng, ["v", 1, {"a": "b"}, ["x"], None, {"a": {"$patch": "delete"}}])
    if (retain_here and rng.random() < 0.5) or rng.random() < 0.02:
        keys = [x for x in set(live) | set(p) if not x.startswith("$")]
        rng.shuffle(keys)
        rk = keys[:rng.randrange(0, len(keys) + 1)]
        if rng.random() < 0.1:
            rk.append(pick(rng, ["missing", 1, None]))
        p["$retainKeys"] = rk
    if rng.random() < 0.02:
        p["$patch"] = pick(rng, ["replace", "delete", "merge", "bogus"])
    return p


def patch_meta(rng, m):
    p = {}
    r = rng.random()
    if r < 0.4:
        p["labels"] = {"app": pick(rng, ["2", None]), "new": "1"}
    elif r < 0.6:
        p["finalizers"] = rng.sample(FINALIZERS, rng.randrange(0, 3))
        if rng.random() < 0.5:
            p["$deleteFromPrimitiveList/finalizers"] = rng.sample(FINALIZERS, 1)
        if rng.random() < 0.4:
            p["$setElementOrder/finalizers"] = rng.sample(FINALIZERS, rng.randrange(0, 4))
    elif r < 0.75:
        refs = m.get("ownerReferences", [])
        p["ownerReferences"] = [{"uid": KEY_POOLS["uid"][0], "$patch": "delete"}] + [
            {"uid": KEY_POOLS["uid"][2], "apiVersion": "v1", "kind": "Pod", "name": "p"}]
        if refs and rng.random() < 0.5:
            p["$setElementOrder/ownerReferences"] = [{"uid": u} for u in
                                                     rng.sample(KEY_POOLS["uid"], rng.randrange(0, 4))]
    else:
        p["annotations"] = {"a": None, "z": "1"}
    return p


def sprinkle_nulls(rng, v):
    """Nulls and `$patch` objects deep inside a new value (Q6/Q10)."""
    if isinstance(v, dict):
        for k in list(v):
            if rng.random() < 0.2:
                v[k] = None
            elif rng.random() < 0.05:
                v[k] = {"$patch": "delete"}
            else:
                sprinkle_nulls(rng, v[k])
    elif isinstance(v, list):
        for x in v:
            sprinkle_nulls(rng, x)


def elem_key(e, key):
    return e.get(key) if isinstance(e, dict) else None


def patch_list(rng, n, f, live, p, depth):
    strat, key, mk, ret = list_meta(n)
    items = n.child(n.s.get("items", {}))
    live = live or []
    r = rng.random()
    if strat == "atomic" or (strat != "prim" and items.kind() == "scalar"):
        if r < 0.1:
            p[f] = []
        else:
            p[f] = build_list(rng, n, f, depth + 1, rng.randrange(0, 3))
        return
    if strat == "prim":
        vals = rng.sample(PRIMS + FINALIZERS[:1], rng.randrange(0, 3))
        if rng.random() < 0.08:
            vals.append({"$patch": "replace"})
        p[f] = vals
        if rng.random() < 0.4:
            p["$deleteFromPrimitiveList/" + f] = rng.sample(list(live) + PRIMS[:2], min(2, len(live) + 2))[
                :rng.randrange(1, 3)]
        if rng.random() < 0.4:
            order = list(dict.fromkeys(list(live) + [v for v in vals if isinstance(v, str)]))
            rng.shuffle(order)
            p["$setElementOrder/" + f] = order if rng.random() < 0.7 else order[:1]
        return
    # keyed list
    out = []
    for e in live:
        if not isinstance(e, dict) or key not in e:
            continue
        x = rng.random()
        if x < 0.25:
            out.append({key: e[key], "$patch": "delete"})
        elif x < 0.6:
            sub = patch_for(rng, items, e, depth + 1, ret)
            sub[key] = e[key]
            for other in mk:
                if other != key and other in e and rng.random() < 0.7:
                    sub[other] = e[other]
            out.append(sub)
    for _ in range(rng.randrange(0, 3)):
        e = build(rng, items, "", depth + 2)
        if isinstance(e, dict):
            e[key] = key_value(rng, key)
            if rng.random() < 0.15:
                sprinkle_nulls(rng, e)
            out.append(e)
    extra = [x for x in mk if x != key]
    if extra and rng.random() < 0.3:
        # Two elements with one merge key and different other map keys (the
        # reference pairs by the merge key only: both merge into one element).
        kv = key_value(rng, key)
        for pv in rng.sample(KEY_POOLS.get(extra[0], ["o1", "o2"]), 2):
            out.append({key: kv, extra[0]: pv})
    x = rng.random()
    if x < 0.04:
        out.append({"$patch": "replace"})
    elif x < 0.06:
        out.append({"$patch": "delete"})
    elif x < 0.08:
        out.append({"noKey": "v"})  # element without the merge key
    elif x < 0.1:
        out.append({key: None, "v": 1})
    if rng.random() < 0.03:
        out.append(copy.deepcopy(out[0]) if out else {key: key_value(rng, key)})  # duplicate key
    rng.shuffle(out) if rng.random() < 0.3 else None
    p[f] = out
    if rng.random() < 0.45:
        keys = [e[key] for e in live if isinstance(e, dict) and key in e]
        keys += [e[key] for e in out if isinstance(e, dict) and key in e and e.get("$patch") != "delete"]
        keys = list(dict.fromkeys(json.dumps(k) for k in keys))
        rng.shuffle(keys)
        y = rng.random()
        if y < 0.2:
            keys = keys[:max(0, len(keys) - 1)]
        elif y < 0.3:
            keys.append(json.dumps(key_value(rng, key)))
        p["$setElementOrder/" + f] = [{key: json.loads(k)} for k in keys]
        if extra and rng.random() < 0.3:
            for o in p["$setElementOrder/" + f]:
                o[extra[0]] = pick(rng, KEY_POOLS.get(extra[0], ["o1"]))
        if rng.random() < 0.05:
            p["$setElementOrder/" + f].append("scalar")
    if rng.random() < 0.05:
        p.pop(f)  # order list alone


# ---------------------------------------------------------------- cases ----

_KINDS = None
_NS = None


def kind_table():
    global _KINDS, _NS, KNOWN
    if _KINDS is None:
        KNOWN = kubectl_fields()
        _KINDS = chosen_kinds()
        _NS = namespaced_map()
    return _KINDS


# Kinds with deep schemas (nested keyed lists, retainKeys, multi-key lists):
# half of the cases draw from these.
RICH = ["Pod", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicaSet", "ReplicationController",
        "PodTemplate", "Node", "PersistentVolume", "Service", "EndpointSlice", "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration", "FlowSchema", "PriorityLevelConfiguration", "ClusterRole", "Ingress",
        "NetworkPolicy", "ResourceQuota", "LimitRange", "HorizontalPodAutoscaler", "Endpoints", "CSINode"]


def pick_kind(rng, kt):
    rich = [k for k in RICH if k in kt]
    return pick(rng, rich) if rng.random() < 0.5 else pick(rng, sorted(kt))


def apply_case(rng, kind=None, source="mix", tag="x"):
    kt = kind_table()
    kind = kind or pick_kind(rng, kt)
    live, n = live_object(rng, kind, kt[kind], tag, _NS.get(kind, True), source)
    patch = patch_for(rng, n, live)
    if not patch:
        patch = {"metadata": {"labels": {"p": "1"}}}
    return live, patch


def strip_directives(v):
    if isinstance(v, dict):
        if v.get("$patch") in ("delete",):
            return None
        return {k: strip_directives(x) for k, x in v.items() if not k.startswith("$") and x is not None}
    if isinstance(v, list):
        return [strip_directives(x) for x in v if not (isinstance(x, dict) and "$patch" in x)]
    return v


def edited(rng, n, live):
    """A `kubectl edit`-style modified copy: a directive-free random patch
    merged naively (lists replaced), plus reorders of keyed lists."""
    m = copy.deepcopy(live)

    def walk(node, v, depth):
        if node.kind() not in ("struct",) or not isinstance(v, dict):
            return
        for f in list(v):
            fn = node.field(f)
            if fn is None or (depth == 0 and f in ("apiVersion", "kind", "metadata")):
                continue
            x = rng.random()
            fk = fn.kind()
            if x < 0.08:
                del v[f]
            elif fk == "list" and isinstance(v[f], list):
                items = fn.child(fn.s.get("items", {}))
                r = rng.random()
                if r < 0.3:
                    rng.shuffle(v[f])
                elif r < 0.45 and v[f]:
                    v[f].pop(rng.randrange(len(v[f])))
                elif r < 0.6:
                    e = build(rng, items, f, depth + 2) if items.kind() != "scalar" else scalar(rng, items, f)
                    key = list_meta(fn)[1]
                    if key and isinstance(e, dict) and rng.random() < 0.9:
                        e[key] = key_value(rng, key)  # mostly a new key, sometimes a duplicate
                    v[f].append(e)
                for e in v[f]:
                    if rng.random() < 0.3:
                        walk(items, e, depth + 1)
            elif fk in ("struct",) and isinstance(v[f], dict):
                walk(fn, v[f], depth + 1)
            elif fk == "map" and isinstance(v[f], dict):
                if v[f] and rng.random() < 0.4:
                    del v[f][pick(rng, sorted(v[f]))]
                if rng.random() < 0.4:
                    v[f]["e" + str(rng.randrange(3))] = build(rng, fn.child(fn.s["additionalProperties"]), "", 9)
            elif x < 0.3 and fk == "scalar":
                v[f] = new_scalar(rng, v[f])
        props = [p for p in node.props() if p not in v and (KNOWN is None or p in KNOWN)
                 and p not in ("apiVersion", "kind", "status")]
        if props and rng.random() < 0.3:
            p = pick(rng, props)
            v[p] = build(rng, node.field(p), p, depth + 1)

    for _ in range(3):
        walk(n, m, 0)
        if m != live:
            break
    if rng.random() < 0.3:
        m["metadata"].setdefault("labels", {})["edited"] = "1"
    return m


def create_lines(seed, n2, n3, kind=None, source="mix", n3c=0, napply=0):
    sys.path.insert(0, os.path.join(HERE, "..", "go-differential"))
    import fakeapi
    kt = {k: v for k, v in kind_table().items() if k in fakeapi.KIND_RESOURCE and k != "Widget"}
    if source == "v3":
        kt = {k: v for k, v in kt.items() if any(f[0] == "v3" for f in v)}
    lines = []
    for op, cnt, off in (("create2", n2, 0), ("create3", n3, 500_000)):
        for i in range(cnt):
            rng = random.Random(seed * 1_000_003 + 900_000 + off + i)
            k = kind or pick_kind(rng, kt)
            name = f"sg{seed}-{op[-1]}-{i}"
            o, n = live_object(rng, k, kt[k], name, _NS.get(k, True), source)
            m = edited(rng, n, o)
            if op == "create2":
                lines.append({"op": op, "original": o, "modified": m})
            else:
                c = edited(rng, n, o)
                c["metadata"] = o["metadata"] | {k2: v for k2, v in c["metadata"].items() if k2 == "labels"}
                lines.append({"op": op, "original": None if rng.random() < 0.1 else o, "modified": m,
                              "current_plain": c})
    for i in range(n3c):
        # kubectl apply --overwrite=false: another writer changed the live
        # object (current) where the manifest may change it too.
        rng = random.Random(seed * 1_000_003 + 970_000 + i)
        k = kind or pick_kind(rng, kt)
        o, n = live_object(rng, k, kt[k], f"sg{seed}-c-{i}", _NS.get(k, True), source)
        c = edited(rng, n, o) if rng.random() < 0.6 else copy.deepcopy(o)
        c["metadata"] = copy.deepcopy(o["metadata"])
        m = edited(rng, n, o) if rng.random() < 0.5 else copy.deepcopy(o)
        scen = pick(rng, ["reapply", None]) if _NS.get(k, True) else None
        lines.append({"op": "create3c", "original": None if rng.random() < 0.15 else o, "manifest": m,
                      "modified": m, "current_plain": c, "scenario": scen})
    for i in range(napply):
        # `smpatch apply` end to end (annotation text, --show-patch, object)
        rng = random.Random(seed * 1_000_003 + 990_000 + i)
        k = kind or pick_kind(rng, kt)
        o, n = live_object(rng, k, kt[k], f"sg{seed}-p-{i}", _NS.get(k, True), source)
        c = edited(rng, n, o)
        c["metadata"] = copy.deepcopy(o["metadata"])
        m = edited(rng, n, o)
        if rng.random() < 0.5:
            m["metadata"].pop("namespace", None)
        lines.append({"op": "cli-apply", "original": o, "manifest": m, "current_plain": c})
    return lines


def fakeapi_resources():
    """(group/version, plural, Kind, namespaced) for every chosen kind."""
    sw = json.load(open(os.path.join(OPENAPI, V2_FILE)))
    plur = {}
    for path, ops in sw["paths"].items():
        for op in ops.values():
            if isinstance(op, dict) and op.get("x-kubernetes-action") == "get":
                gvk = op.get("x-kubernetes-group-version-kind")
                seg = [s for s in path.split("/") if s and not s.startswith("{")]
                if gvk and seg:
                    av = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
                    plur.setdefault((av, gvk["kind"]), seg[-1] if "{name}" in path else None)
    out = []
    for kind, forms in kind_table().items():
        av = forms[0][2]
        pl = plur.get((av, kind))
        if pl:
            out.append((av, pl, kind, _NS.get(kind, True)))
    return out


# ------------------------------------------------------------------ cli ----

def probe(smpatch):
    """Which chosen kinds kubectl patches locally and smpatch's builtin schema knows."""
    import tempfile
    d = tempfile.mkdtemp(prefix="sgprobe-")
    res = {}
    for kind, forms in sorted(kind_table().items()):
        av = forms[0][2]
        obj = {"apiVersion": av, "kind": kind, "metadata": {"name": "x"}}
        lp = os.path.join(d, "l.json")
        json.dump(obj, open(lp, "w"))
        r = subprocess.run(["kubectl", "patch", "--local", "-f", lp, "--type", "strategic", "-p",
                            '{"metadata":{"labels":{"a":"b"}}}', "-o", "json"], capture_output=True, text=True)
        req = json.dumps({"id": 0, "op": "apply", "schema": {"builtin": f"{av}/{kind}"}, "original": obj,
                          "patch": {"metadata": {"labels": {"a": "b"}}}})
        o = subprocess.run([smpatch, "batch"], input=req + "\n", capture_output=True, text=True)
        res[kind] = (av, r.returncode == 0 or r.stderr.strip()[:120], '"ok"' in o.stdout or o.stdout[:120])
    return res


def schema_forms(args):
    """Our apply with three schemas for the same case: the v1.24 OpenAPI v3
    document, the same group-version's v2 document (schema file +
    definition) and the embedded v1.37 schema (builtin). No kubectl: the
    loaders must give the same patch metadata (v2 = v3 exactly; builtin
    differs only where the types changed since v1.24)."""
    import collections
    files = {"v1": "kubernetes-v1.24.api.v1", "batch/v1": "kubernetes-v1.24.batch.v1"}
    kt = {k: v for k, v in kind_table().items() if v[0][2] in files}
    reqs = {"v3": [], "v2": [], "builtin": []}
    cases = []
    for i in range(args.n):
        rng = random.Random(args.seed * 1_000_003 + 600_000 + i)
        kind = pick(rng, sorted(kt))
        forms = [f for f in kt[kind] if f[0] == "v3"] or kt[kind]
        live, n = live_object(rng, kind, forms, f"f{i}", _NS.get(kind, True), "v3")
        patch = patch_for(rng, n, live)
        base = files[live["apiVersion"]]
        dname = forms[0][1]
        cases.append((live, patch))
        for form in ("v3", "v2"):
            reqs[form].append({"id": i, "op": "apply", "original": live, "patch": patch, "schema": {
                "file": os.path.join(OPENAPI, f"{base}.{form}.json"), "definition": dname}})
        reqs["builtin"].append({"id": i, "op": "apply", "original": live, "patch": patch,
                                "schema": {"builtin": f"{live['apiVersion']}/{kind}"}})
    outs = {}
    for form, rs in reqs.items():
        out = subprocess.run([args.smpatch, "batch"], input="".join(json.dumps(r) + "\n" for r in rs),
                             capture_output=True, text=True, check=True).stdout
        outs[form] = {r["id"]: r.get("ok", {"error": r.get("error", {}).get("kind")})
                      for r in map(json.loads, filter(None, out.split("\n")))}
    tally = collections.Counter()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "schema-forms.jsonl"), "w") as f:
        for i, (live, patch) in enumerate(cases):
            a, b, c = outs["v3"].get(i), outs["v2"].get(i), outs["builtin"].get(i)
            tally["v2==v3" if a == b else "V2!=V3"] += 1
            tally["builtin==v3" if a == c else "builtin!=v3"] += 1
            if a != b or a != c:
                f.write(json.dumps({"i": i, "live": live, "patch": patch, "v3": a, "v2": b, "builtin": c}) + "\n")
    print(json.dumps(dict(tally), sort_keys=True))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["kinds", "apply", "create", "cases", "schema-forms"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--n2", type=int, default=0)
    ap.add_argument("--n3", type=int, default=0)
    ap.add_argument("--n3c", type=int, default=0, help="kubectl apply --overwrite=false cases")
    ap.add_argument("--napply", type=int, default=0, help="smpatch apply end-to-end cases")
    ap.add_argument("--kind")
    ap.add_argument("--source", choices=["mix", "v2", "v3"], default="mix")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--smpatch", default=os.path.join(REPO, "target", "debug", "smpatch"))
    ap.add_argument("--out", default="/tmp/schemagen")
    ap.add_argument("--openapi-v3", action="store_true",
                    help="create: kubectl apply reads patch metadata from the v3 documents (fakeapi serves them; "
                         "implies --source v3, core/v1 and batch/v1 kinds)")
    args = ap.parse_args()
    if args.openapi_v3:
        args.source = "v3"
    if args.what == "schema-forms":
        kind_table()
        return schema_forms(args)
    if args.what == "kinds":
        for kind, (av, k, s) in probe(args.smpatch).items():
            print(f"{kind:34} {av:40} kubectl={k} smpatch={s}")
        for kind, why in EXCLUDED.items():
            print(f"{kind:34} excluded: {why}")
        return
    os.makedirs(args.out, exist_ok=True)
    py = sys.executable
    if args.what in ("apply", "cases"):
        cases = []
        for i in range(args.n):
            rng = random.Random(args.seed * 1_000_003 + i)
            live, patch = apply_case(rng, args.kind, args.source, f"sg{args.seed}-{i}")
            cases.append({"live": live, "patch": patch})
        path = os.path.join(args.out, "apply.json")
        json.dump(cases, open(path, "w"))
        if args.what == "apply":
            subprocess.run([py, os.path.join(HERE, "run.py"), "--cases", path, "--jobs", str(args.jobs),
                            "--smpatch", args.smpatch, "--out", os.path.join(args.out, "apply")], check=True)
    if args.what in ("create", "cases"):
        lines = create_lines(args.seed, args.n2, args.n3, args.kind, args.source, args.n3c, args.napply)
        path = os.path.join(args.out, "create.jsonl")
        with open(path, "w") as f:
            for c in lines:
                f.write(json.dumps(c) + "\n")
        if args.what == "create":
            subprocess.run([py, os.path.join(HERE, "..", "go-differential", "run.py"), "--replay", path,
                            "--jobs", str(args.jobs), "--smpatch", args.smpatch,
                            "--out", os.path.join(args.out, "create")]
                           + (["--openapi-v3"] if args.openapi_v3 else []), check=True)


if __name__ == "__main__":
    main()
