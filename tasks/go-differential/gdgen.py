"""Random (original, modified[, current]) documents of built-in kinds for the
patch-CREATION differential (`kubectl edit` = two-way, `kubectl apply` =
three-way).

Base objects come from `tasks/kubectl-differential/gen.py` (imported, not
modified); this module adds *mutations* that turn one object into an edited
version: deletions, nulls, type changes, scalar changes, keyed-list element
adds/drops/edits/reorders (containers, env, ports, volumeMounts, volumes,
imagePullSecrets, hostAliases, topologySpreadConstraints, ownerReferences,
pod status conditions), primitive merge list (finalizers) adds/drops/reorders,
retainKeys switches (volume sources, deployment strategy), atomic list edits.

`case2(rng, name)` → (original, modified); `case3(rng, name)` → (original,
modified, current) where original may be None (never applied before).
All documents are in Go's canonical number form (integral floats → ints), as
kubectl re-encodes what it reads.
"""

import copy
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kubectl-differential"))
import gen  # noqa: E402
import kinds  # noqa: E402  (extends gen.LISTS with the metadata of more kinds)

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
pick = gen.pick
DUP_SKIP = 0.9  # probability of avoiding duplicate merge keys (set to 0 for more)
# Base objects: None = gen.live_object (workloads); else a list of kinds.py kinds
# (namespaced ones: the fake API server addresses objects by namespace).
KINDS = None
NAMESPACED_KINDS = [k for k, (_, _, ns) in kinds.KINDS.items() if ns]

CONDITIONS = ["Ready", "PodScheduled", "Initialized", "ContainersReady"]


def go_norm(v):
    """Integral floats become ints (Go encodes float64(2) as `2`)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, float):
        return int(v) if v.is_integer() and abs(v) < 2**53 else v
    if isinstance(v, int):
        return v
    if isinstance(v, list):
        return [go_norm(x) for x in v]
    return {k: go_norm(x) for k, x in v.items()}


def list_kind(path, field):
    if field == "conditions":
        return ("keyed", "type")
    return gen.list_kind(path, field)


def protected(path, k):
    if path == [] and k in ("apiVersion", "kind", "metadata"):
        return True
    if path == ["metadata"] and k in ("name", "namespace", "uid"):
        return True
    return False


def type_change(rng, v):
    if isinstance(v, dict):
        return pick(rng, ["str", 3, [], ["x"]])
    if isinstance(v, list):
        return pick(rng, ["str", 3, {}, {"a": "b"}])
    return pick(rng, [{"t": 1}, [1, 2], "s", 5, True])


# Scalars/maps a field may gain (by the last path component of the parent).
NEW_FIELDS = {
    "metadata": [("labels", lambda r: {"app": "x", pick(r, ["new", "tier"]): pick(r, ["1", "2"])}),
                 ("annotations", lambda r: {"note": pick(r, ["n", "m"])}),
                 ("finalizers", lambda r: gen.sample(r, gen.FINALIZERS, 1, 3)),
                 ("generateName", lambda r: "g-")],
    "containers": [("imagePullPolicy", lambda r: pick(r, ["Always", "IfNotPresent"])),
                   ("workingDir", lambda r: "/w"),
                   ("terminationMessagePath", lambda r: "/dev/termination-log"),
                   ("stdin", lambda r: True),
                   ("resources", lambda r: {"limits": {"cpu": "1"}}),
                   ("securityContext", lambda r: {"privileged": False})],
    "spec": [("restartPolicy", lambda r: pick(r, ["Always", "Never"])),
             ("dnsPolicy", lambda r: "ClusterFirst"),
             ("serviceAccountName", lambda r: pick(r, ["sa", "default"])),
             ("nodeSelector", lambda r: {"disk": pick(r, ["ssd", "hdd"])}),
             ("schedulerName", lambda r: "default-scheduler"),
             ("revisionHistoryLimit", lambda r: pick(r, [10, 2])),
             ("minReadySeconds", lambda r: 5),
             ("paused", lambda r: True),
             ("terminationGracePeriodSeconds", lambda r: 30),
             ("securityContext", lambda r: {"runAsNonRoot": True})],
}

SERVER_DEFAULTS = {
    "containers": {"imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log",
                   "terminationMessagePolicy": "File", "resources": {}},
    "podspec": {"restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler",
                "securityContext": {}, "terminationGracePeriodSeconds": 30},
}


def new_element(rng, path, field, key):
    if field == "conditions":
        return {"type": pick(rng, CONDITIONS + ["New"]), "status": pick(rng, ["True", "False"])}
    e = gen.new_element(rng, path, field, key)
    return e


def mutate_list(rng, v, path, k, rate):
    kind = list_kind(path, k)
    if kind[0] == "keyed":
        key = kind[1]
        out = []
        for e in v:
            if not isinstance(e, dict):
                out.append(copy.deepcopy(e))
                continue
            r = rng.random()
            if r < 0.2:
                continue  # dropped
            if r < 0.6:
                m = mutate_obj(rng, e, path + [k], rate, keep=(key,))
                if rng.random() < 0.03:
                    meta = path and path[0] == "metadata"
                    m[key] = pick(rng, ["renamed"] if meta else ["renamed", 1, "1"])  # key change
                out.append(m)
            else:
                out.append(copy.deepcopy(e))
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
            e = new_element(rng, path, k, key)
            if path and path[0] == "metadata" and not isinstance(e.get(key), str):
                continue  # ObjectMeta is typed
            if any(isinstance(x, dict) and x.get(key) == e.get(key) for x in out) and rng.random() < DUP_SKIP:
                continue  # keep duplicate merge keys rare (pairing differs: see dedupe)
            out.insert(rng.randint(0, len(out)), e)
        r = rng.random()
        if r < 0.25:
            rng.shuffle(out)
        elif r < 0.3 - 0.05 * DUP_SKIP and out:
            out.append(copy.deepcopy(pick(rng, out)))  # duplicate merge key
        elif r < 0.31:
            out.append({"$patch": pick(rng, ["replace", "delete"])})  # directive inside modified
        elif r < 0.32:
            out = []
        return out
    if kind[0] == "prim":
        out = [x for x in v if rng.random() > 0.3]
        for _ in range(rng.choice([0, 0, 1, 2])):
            out.insert(rng.randint(0, len(out)), pick(rng, gen.FINALIZERS + ["n/new"]))
        r = rng.random()
        if r < 0.25:
            rng.shuffle(out)
        elif r < 0.35:
            out.sort()
        elif r < 0.4:
            out = list(reversed(v))
        return out
    # atomic
    r = rng.random()
    if v and isinstance(v[0], dict):
        out = [mutate_obj(rng, e, path + [k], rate) if isinstance(e, dict) and rng.random() < 0.4 else copy.deepcopy(e)
               for e in v if rng.random() > 0.2]
        if k == "tolerations" and rng.random() < 0.4:
            out.append(gen.toleration(rng))
        if r < 0.2:
            rng.shuffle(out)
        return out
    if r < 0.3:
        return list(reversed(v))
    if r < 0.5:
        return []
    return gen.sample(rng, ["--a", "--b", "-v", "x", "new"], 0, 3)


def meta_scalar(rng, v):
    """ObjectMeta is decoded into its Go struct by kubectl: keep string types."""
    if isinstance(v, str):
        return pick(rng, [v + "2", "", "z", "changed"])
    return v


def mutate_obj(rng, obj, path, rate=0.35, keep=()):
    meta = bool(path) and path[0] == "metadata"
    out = {}
    keys = list(obj.keys())
    if rng.random() < 0.2:
        rng.shuffle(keys)
    for k in keys:
        v = obj[k]
        if protected(path, k) or k in keep:
            if path == [] and k == "metadata" and isinstance(v, dict):
                out[k] = mutate_obj(rng, v, ["metadata"], rate)
            else:
                out[k] = copy.deepcopy(v)
            continue
        if rng.random() > rate:
            out[k] = copy.deepcopy(v)
            continue
        r = rng.random()
        if r < 0.12:
            continue  # deleted
        if r < 0.16:
            out[k] = None
            continue
        if r < 0.19 and not meta:
            out[k] = type_change(rng, v)
            continue
        if isinstance(v, dict):
            if path and path[-1] == "volumes" or k == "strategy":
                out[k] = copy.deepcopy(v)  # handled below
            else:
                out[k] = mutate_obj(rng, v, path + [k], rate)
        elif isinstance(v, list):
            out[k] = mutate_list(rng, v, path, k, rate)
        elif meta:
            out[k] = meta_scalar(rng, v)
        else:
            out[k] = gen.perturb_scalar(rng, v)
    last = path[-1] if path else ""
    # New fields.
    ctx = "spec" if last in ("spec",) else last
    if ctx in NEW_FIELDS and rng.random() < 0.3:
        name, mk = pick(rng, NEW_FIELDS[ctx])
        if name not in out:
            out[name] = mk(rng)
    if rng.random() < 0.15:
        for lk in gen.list_fields_for(path, out):
            if lk not in out and rng.random() < 0.5:
                kind = list_kind(path, lk)
                if kind[0] == "keyed":
                    out[lk] = [new_element(rng, path, lk, kind[1]) for _ in range(rng.randint(0, 2))]
                elif kind[0] == "prim":
                    out[lk] = gen.sample(rng, gen.FINALIZERS, 0, 2)
                else:
                    out[lk] = ["x", "y"]
    if rng.random() < 0.04 and path and not meta:
        out[pick(rng, gen.JUNK)] = pick(rng, [{"q": 2}, "s", None])  # unknown field
    # retainKeys: switch the volume source / the deployment strategy.
    if last == "volumes" and rng.random() < 0.5:
        for src in ("configMap", "secret", "emptyDir", "hostPath", "persistentVolumeClaim"):
            if rng.random() < 0.7:
                out.pop(src, None)
        extra = gen.volume(rng, out.get("name", "x"))
        extra.pop("name", None)
        out.update(extra)
    if "strategy" in out and isinstance(out["strategy"], dict) and rng.random() < 0.5:
        out["strategy"] = pick(rng, [
            {"type": "Recreate"},
            {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": pick(rng, [1, "50%"])}},
            {"type": "RollingUpdate"},
            {"rollingUpdate": {"maxUnavailable": 2}},
        ])
    return out


def dedupe(v, path=()):
    """Drops later duplicates from keyed lists and finalizers."""
    if isinstance(v, list):
        return [dedupe(x, path) for x in v]
    if not isinstance(v, dict):
        return v
    out = {}
    for k, x in v.items():
        if isinstance(x, list):
            kind = list_kind(list(path), k)
            seen, keep = set(), []
            for e in x:
                ident = json.dumps(e.get(kind[1]) if kind[0] == "keyed" and isinstance(e, dict) else e)
                if kind[0] != "atomic" and ident in seen:
                    continue
                seen.add(ident)
                keep.append(dedupe(e, tuple(path) + (k,)))
            out[k] = keep
        else:
            out[k] = dedupe(x, tuple(path) + (k,))
    return out


def base_object(rng, name):
    obj = kinds.live_object(rng, pick(rng, KINDS)) if KINDS else gen.live_object(rng)
    if rng.random() < DUP_SKIP:
        obj = dedupe(obj)
    if obj["kind"] == "Pod" and rng.random() < 0.3:
        obj["status"] = {
            "phase": "Running",
            "conditions": [{"type": t, "status": "True"} for t in gen.sample(rng, CONDITIONS, 1, 3)],
        }
    if rng.random() < 0.05:
        # Q23: Go struct lookups fold case (not inside metadata: typed there).
        md = obj.pop("metadata")
        obj = gen.recase(rng, obj, 0.1)
        obj["metadata"] = md
    obj["metadata"]["name"] = name
    obj["metadata"]["namespace"] = "default"
    enrich(rng, obj)
    if KINDS and rng.random() < 0.2:
        # Text Go's encoder escapes (<, >, &, U+2028/9) or keeps (non-ASCII).
        ann = obj["metadata"].setdefault("annotations", {})
        if isinstance(ann, dict):
            ann["text"] = pick(rng, kinds.UNICODE)
    return obj


def enrich(rng, obj):
    """More retainKeys fields and primitive merge lists than gen.py gives."""
    md = obj["metadata"]
    if "finalizers" not in md and rng.random() < 0.4:
        md["finalizers"] = gen.sample(rng, gen.FINALIZERS, 1, 4)
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if obj["kind"] == "Deployment" and "strategy" not in spec and rng.random() < 0.6:
        spec["strategy"] = pick(rng, [{"type": "Recreate"}, {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}])
    t = spec.get("template")
    pod = t.get("spec") if isinstance(t, dict) else spec if "containers" in spec else None
    if isinstance(pod, dict) and "volumes" not in pod and rng.random() < 0.5:
        pod["volumes"] = [gen.volume(rng, n) for n in gen.sample(rng, gen.NAMES, 1, 3)]


def serverize(rng, obj):
    """What the server may add/change: defaults, status, other writers."""
    cur = copy.deepcopy(obj)
    spec = cur.get("spec") if isinstance(cur.get("spec"), dict) else None
    pod = None
    if spec is not None:
        t = spec.get("template")
        pod = t.get("spec") if isinstance(t, dict) and isinstance(t.get("spec"), dict) else (
            spec if "containers" in spec else None)
    if pod is not None and rng.random() < 0.6:
        for k, v in SERVER_DEFAULTS["podspec"].items():
            if rng.random() < 0.6:
                pod.setdefault(k, copy.deepcopy(v))
        cs = pod.get("containers")
        if isinstance(cs, list):
            for c in cs:
                if isinstance(c, dict):
                    for k, v in SERVER_DEFAULTS["containers"].items():
                        if rng.random() < 0.6:
                            c.setdefault(k, copy.deepcopy(v))
                    ps = c.get("ports")
                    if isinstance(ps, list):
                        for p in ps:
                            if isinstance(p, dict) and rng.random() < 0.7:
                                p.setdefault("protocol", "TCP")
    if cur.get("kind") == "Deployment" and isinstance(spec, dict) and rng.random() < 0.5:
        spec.setdefault("strategy", {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
        spec.setdefault("replicas", 1)
    if rng.random() < 0.5:
        cur["metadata"].setdefault("uid", "0000-1111")
        cur["metadata"]["resourceVersion"] = "12"
    if rng.random() < 0.5:
        cur = mutate_obj(rng, cur, [], 0.15)  # someone else's edits
    return cur


def differ(a, b):
    return json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True)


def case2(rng, name):
    original = base_object(rng, name)
    if rng.random() < 0.2:
        original = serverize(rng, original)
    for _ in range(5):
        modified = mutate_obj(rng, original, [], pick(rng, [0.2, 0.35, 0.5]))
        if differ(go_norm(original), go_norm(modified)):
            break
    else:
        modified = copy.deepcopy(original)
        modified["metadata"].setdefault("labels", {})
        if isinstance(modified["metadata"]["labels"], dict):
            modified["metadata"]["labels"]["forced"] = "1"
    return go_norm(original), go_norm(modified)


def case3(rng, name):
    """original (None: never applied), modified (the manifest, without the
    last-applied annotation), current (without the annotation; the runner adds
    it)."""
    original = base_object(rng, name)
    if rng.random() < 0.3:
        original["metadata"]["annotations"] = {**(original["metadata"].get("annotations") or {})}
    current = serverize(rng, original)
    src = original
    if rng.random() < 0.2:
        # The user copied the live object into the manifest and edited it.
        src = copy.deepcopy(current)
        for k in ("uid", "resourceVersion"):
            src["metadata"].pop(k, None)
    modified = mutate_obj(rng, src, [], pick(rng, [0.2, 0.35, 0.5]))
    if rng.random() < 0.1:
        original = None
    for doc in (modified, current):
        ann = doc["metadata"].get("annotations")
        if isinstance(ann, dict):
            ann.pop(LAST_APPLIED, None)
    return (None if original is None else go_norm(original)), go_norm(modified), go_norm(current)


# ----- conflicts (kubectl apply --overwrite=false) ---------------------------


def converge(rng, cur, man, p):
    """Another writer who set some leaves (scalars, lists) to the manifest's
    value (same value on both sides: never a conflict)."""
    if not (isinstance(cur, dict) and isinstance(man, dict)):
        return
    for k in list(cur.keys()):
        if k not in man or k in ("apiVersion", "kind"):
            continue
        if isinstance(cur[k], dict):
            converge(rng, cur[k], man[k], p)
        elif json.dumps(cur[k], sort_keys=True) != json.dumps(man[k], sort_keys=True) and rng.random() < p:
            cur[k] = copy.deepcopy(man[k])


def atomic_scalar_edits(rng, obj, path=()):
    """Another writer reordering / duplicating atomic scalar lists (args,
    command, …): equal-length lists that are the same set do not conflict."""
    if isinstance(obj, list):
        for e in obj:
            atomic_scalar_edits(rng, e, path)
        return
    if not isinstance(obj, dict):
        return
    for k, v in obj.items():
        if isinstance(v, list) and v and all(isinstance(x, str) for x in v) \
                and list_kind(list(path), k)[0] == "atomic" and rng.random() < 0.5:
            r = rng.random()
            if r < 0.5:
                rng.shuffle(v)
            elif r < 0.8:
                v[rng.randrange(len(v))] = pick(rng, v)  # a duplicate, same length
            else:
                v.reverse()
        else:
            atomic_scalar_edits(rng, v, tuple(path) + (k,))


def rival(rng, cur, man, rate):
    """The live object after another writer: random edits of the paths the
    object already has (the manifest's fields among them), sometimes the
    manifest's own values, sometimes only reorders of atomic lists."""
    r = rng.random()
    if r < 0.08:
        out = copy.deepcopy(cur)  # no other writer
    elif r < 0.25:
        out = copy.deepcopy(cur)
        atomic_scalar_edits(rng, out)
    else:
        out = mutate_obj(rng, cur, [], rate)
        if rng.random() < 0.3:
            atomic_scalar_edits(rng, out)
    if rng.random() < 0.4:
        converge(rng, out, man, pick(rng, [0.3, 0.6, 1.0]))
    out["metadata"]["name"] = cur["metadata"]["name"]
    out["metadata"]["namespace"] = "default"
    return out


def case3c(rng, name):
    """A `kubectl apply --overwrite=false` case: (scenario, original,
    manifest, current). Scenarios:

    * reapply: the live object's last-applied annotation is exactly what
      kubectl writes for the manifest (so the annotation is not in the patch)
      and original is that configuration; current diverged (another writer,
      or an older configuration). The only scenario where the patch's fields
      other than the annotation decide.
    * first: never applied (no annotation): changed = all of current.
    * changed: the manifest changed since the last apply: the new
      annotation itself conflicts with the old one (always a conflict unless
      an error comes first).
    Original is None for first and reapply (the runner fills reapply in)."""
    r = rng.random()
    scen = "reapply" if r < 0.5 else "first" if r < 0.8 else "changed"
    o = base_object(rng, name)
    if rng.random() < 0.3:
        o["metadata"]["annotations"] = {**(o["metadata"].get("annotations") or {})}
    m = mutate_obj(rng, o, [], pick(rng, [0.05, 0.2, 0.35]))
    if scen == "reapply":
        # Current from the old configuration or from the manifest itself.
        src = o if rng.random() < 0.5 else m
        cur = rival(rng, serverize(rng, src), m, pick(rng, [0.05, 0.15, 0.3]))
        orig = None
    elif scen == "first":
        cur = rival(rng, serverize(rng, o), m, pick(rng, [0.05, 0.15, 0.3]))
        orig = None
    else:
        cur = rival(rng, serverize(rng, o), m, pick(rng, [0.05, 0.15, 0.3]))
        orig = o
    for doc in (m, cur):
        ann = doc["metadata"].get("annotations")
        if isinstance(ann, dict):
            ann.pop(LAST_APPLIED, None)
    return scen, (None if orig is None else go_norm(orig)), go_norm(m), go_norm(cur)
