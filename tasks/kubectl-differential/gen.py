"""Random live objects and strategic merge patches for built-in kinds.

`case(rng)` returns `(live, patch)`; both plausible Kubernetes objects/patches,
rich in keyed merge lists, primitive merge lists, atomic lists, retainKeys
fields and every directive (valid and invalid). Fields are chosen from those
that exist in kubectl v1.32 and in the embedded 1.37 schema.
"""

import copy
import random

# Lists by field name: ("keyed", merge key) | ("prim",) | ("atomic",).
# Context-dependent ones (ports) are resolved in list_kind().
LISTS = {
    "containers": ("keyed", "name"),
    "initContainers": ("keyed", "name"),
    "env": ("keyed", "name"),
    "volumeMounts": ("keyed", "mountPath"),
    "volumeDevices": ("keyed", "devicePath"),
    "volumes": ("keyed", "name"),
    "imagePullSecrets": ("keyed", "name"),
    "hostAliases": ("keyed", "ip"),
    "topologySpreadConstraints": ("keyed", "topologyKey"),
    "ownerReferences": ("keyed", "uid"),
    "finalizers": ("prim",),
    "args": ("atomic",),
    "command": ("atomic",),
    "tolerations": ("atomic",),
    "externalIPs": ("atomic",),
    "hostnames": ("atomic",),
    "claims": ("atomic",),
    "envFrom": ("atomic",),
    "items": ("atomic",),
    "matchExpressions": ("atomic",),
    "values": ("atomic",),
    "readinessGates": ("atomic",),
    "nameservers": ("atomic",),
    "searches": ("atomic",),
}

NAMES = ["a", "b", "c", "d", "web", "side"]
ENV = ["A", "B", "C", "D", "E"]
IMAGES = ["nginx:1", "nginx:2", "busybox", "redis:7"]
PATHS = ["/data", "/etc/cfg", "/tmp", "/var/log"]
FINALIZERS = ["f/a", "f/b", "f/c", "kubernetes.io/pv-protection", "x"]
IPS = ["10.0.0.1", "10.0.0.2", "10.0.0.3"]
TOPO = ["zone", "host", "rack"]
JUNK = ["zz", "extra", "unknownField"]


def list_kind(path, field, elems=None):
    if field == "ports":
        if path and path[-1] == "spec" and "containers" not in path:
            return ("keyed", "port")  # Service ports
        return ("keyed", "containerPort")
    return LISTS.get(field, ("atomic",))


def pick(rng, xs):
    return xs[rng.randrange(len(xs))]


def sample(rng, xs, lo=0, hi=None):
    hi = len(xs) if hi is None else min(hi, len(xs))
    n = rng.randint(lo, hi)
    return rng.sample(xs, n)


def num(rng):
    return pick(rng, [1, 2, 3, 80, 443, 1.5, 2.0, "3", 0, -1, 10])


# ----- live objects -------------------------------------------------------


def env_var(rng, name):
    r = rng.random()
    if r < 0.7:
        return {"name": name, "value": pick(rng, ["1", "x", "", "yes"])}
    if r < 0.9:
        return {
            "name": name,
            "valueFrom": {"configMapKeyRef": {"name": "cm", "key": pick(rng, ["k", "j"])}},
        }
    return {"name": name}


def cport(rng):
    p = {"containerPort": pick(rng, [80, 443, 53, 8080])}
    if rng.random() < 0.6:
        p["protocol"] = pick(rng, ["TCP", "UDP"])
    if rng.random() < 0.5:
        p["name"] = pick(rng, ["http", "dns", "metrics"])
    return p


def container(rng, name):
    c = {"name": name, "image": pick(rng, IMAGES)}
    if rng.random() < 0.4:
        c["args"] = sample(rng, ["--a", "--b", "-v", "x"], 0, 3)
    if rng.random() < 0.3:
        c["command"] = sample(rng, ["sh", "-c", "run"], 1, 3)
    if rng.random() < 0.7:
        names = sample(rng, ENV, 0, 4)
        if names and rng.random() < 0.1:
            names.append(names[0])  # duplicate merge key in live
        c["env"] = [env_var(rng, n) for n in names]
    if rng.random() < 0.6:
        ps = [cport(rng) for _ in range(rng.randint(0, 3))]
        c["ports"] = ps
    if rng.random() < 0.5:
        c["volumeMounts"] = [
            {"name": pick(rng, NAMES), "mountPath": p, **({"readOnly": True} if rng.random() < 0.3 else {})}
            for p in sample(rng, PATHS, 0, 3)
        ]
    if rng.random() < 0.5:
        res = {}
        if rng.random() < 0.7:
            res["limits"] = {"cpu": pick(rng, ["1", "500m"]), "memory": "1Gi"}
        if rng.random() < 0.5:
            res["requests"] = {"cpu": "100m"}
        if rng.random() < 0.2:
            res["claims"] = [{"name": n} for n in sample(rng, NAMES, 1, 2)]
        c["resources"] = res
    if rng.random() < 0.2:
        c["securityContext"] = {"runAsUser": 1000, "capabilities": {"add": ["NET_ADMIN"]}}
    if rng.random() < 0.2:
        c["livenessProbe"] = {"httpGet": {"path": "/", "port": 80}, "periodSeconds": 10}
    return c


def volume(rng, name):
    r = rng.random()
    v = {"name": name}
    if r < 0.3:
        v["configMap"] = {"name": "cm", **({"defaultMode": 420} if rng.random() < 0.5 else {})}
    elif r < 0.5:
        v["secret"] = {"secretName": "s"}
    elif r < 0.7:
        v["emptyDir"] = {} if rng.random() < 0.5 else {"medium": "Memory"}
    elif r < 0.85:
        v["hostPath"] = {"path": "/x", "type": "Directory"}
    else:
        v["persistentVolumeClaim"] = {"claimName": "pvc"}
    return v


def toleration(rng):
    t = {"key": pick(rng, ["k1", "k2"]), "operator": pick(rng, ["Exists", "Equal"])}
    if rng.random() < 0.5:
        t["effect"] = pick(rng, ["NoSchedule", "NoExecute"])
    return t


def pod_spec(rng):
    s = {"containers": [container(rng, n) for n in sample(rng, NAMES, 1, 3)]}
    if rng.random() < 0.2:
        s["initContainers"] = [container(rng, n) for n in sample(rng, NAMES, 1, 2)]
    if rng.random() < 0.5:
        s["volumes"] = [volume(rng, n) for n in sample(rng, NAMES, 0, 3)]
    if rng.random() < 0.4:
        s["tolerations"] = [toleration(rng) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.3:
        s["imagePullSecrets"] = [{"name": n} for n in sample(rng, NAMES, 0, 3)]
    if rng.random() < 0.3:
        s["hostAliases"] = [
            {"ip": ip, "hostnames": sample(rng, ["h1", "h2", "h3"], 1, 2)} for ip in sample(rng, IPS, 0, 2)
        ]
    if rng.random() < 0.3:
        s["topologySpreadConstraints"] = [
            {"topologyKey": t, "maxSkew": pick(rng, [1, 2]), "whenUnsatisfiable": "DoNotSchedule"}
            for t in sample(rng, TOPO, 0, 2)
        ]
    if rng.random() < 0.4:
        s["nodeSelector"] = {"disk": "ssd", **({"zone": "a"} if rng.random() < 0.5 else {})}
    if rng.random() < 0.3:
        s["restartPolicy"] = pick(rng, ["Always", "Never", "OnFailure"])
    if rng.random() < 0.2:
        s["dnsConfig"] = {"nameservers": ["1.1.1.1"], "searches": ["a.local"]}
    if rng.random() < 0.2:
        s["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]}
                    ]
                }
            }
        }
    return s


def metadata(rng, name):
    m = {"name": name}
    if rng.random() < 0.6:
        m["labels"] = {"app": "x", **({"tier": "web"} if rng.random() < 0.5 else {})}
    if rng.random() < 0.4:
        m["annotations"] = {"note": "n"}
    if rng.random() < 0.4:
        fs = sample(rng, FINALIZERS, 0, 3)
        if fs and rng.random() < 0.15:
            fs.append(fs[0])  # duplicate in a primitive merge list
        m["finalizers"] = fs
    if rng.random() < 0.15:
        m["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "X", "name": "o", "uid": u} for u in sample(rng, ["u1", "u2", "u3"], 1, 2)
        ]
    return m


def template(rng):
    return {"metadata": {"labels": {"app": "x"}}, "spec": pod_spec(rng)}


def live_object(rng):
    kind = pick(rng, ["Deployment", "Pod", "Service", "ConfigMap", "DaemonSet", "Job", "StatefulSet", "Pod", "Deployment"])
    api = {"Deployment": "apps/v1", "DaemonSet": "apps/v1", "StatefulSet": "apps/v1", "Job": "batch/v1"}.get(kind, "v1")
    obj = {"apiVersion": api, "kind": kind, "metadata": metadata(rng, "o")}
    if kind == "Pod":
        obj["spec"] = pod_spec(rng)
    elif kind == "Service":
        spec = {"selector": {"app": "x"}}
        ports = []
        for _ in range(rng.randint(0, 3)):
            p = {"port": pick(rng, [80, 443, 53]), "protocol": pick(rng, ["TCP", "UDP"])}
            if rng.random() < 0.5:
                p["name"] = pick(rng, ["http", "dns", "tls"])
            if rng.random() < 0.5:
                p["targetPort"] = pick(rng, [8080, "http"])
            ports.append(p)
        spec["ports"] = ports
        if rng.random() < 0.3:
            spec["type"] = pick(rng, ["ClusterIP", "NodePort"])
        if rng.random() < 0.2:
            spec["externalIPs"] = sample(rng, IPS, 1, 2)
        obj["spec"] = spec
    elif kind == "ConfigMap":
        obj["data"] = {k: pick(rng, ["1", "2", "x"]) for k in sample(rng, ["a", "b", "c"], 0, 3)}
    else:
        spec = {"selector": {"matchLabels": {"app": "x"}}, "template": template(rng)}
        if kind == "Deployment":
            if rng.random() < 0.5:
                spec["replicas"] = pick(rng, [1, 3])
            if rng.random() < 0.5:
                spec["strategy"] = (
                    {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}}
                    if rng.random() < 0.6
                    else {"type": "Recreate"}
                )
        if kind == "DaemonSet" and rng.random() < 0.5:
            spec["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}}
        if kind == "Job":
            del spec["selector"]
            spec["template"]["spec"]["restartPolicy"] = "Never"
            if rng.random() < 0.4:
                spec["backoffLimit"] = 3
        if kind == "StatefulSet":
            spec["serviceName"] = "svc"
        obj["spec"] = spec
    if rng.random() < 0.05 and "spec" in obj:
        obj["spec"][pick(rng, JUNK)] = {"q": 0, "r": [1]}  # unknown to the schema
    return obj


# ----- patches --------------------------------------------------------------


def new_element(rng, path, field, key):
    """A new element for a keyed list field (with a fresh-ish key)."""
    if field in ("containers", "initContainers"):
        e = container(rng, pick(rng, NAMES + ["new"]))
    elif field == "env":
        e = env_var(rng, pick(rng, ENV + ["NEW"]))
    elif field == "ports" and key == "containerPort":
        e = cport(rng)
    elif field == "ports":
        e = {"port": pick(rng, [80, 443, 53, 8443]), "protocol": pick(rng, ["TCP", "UDP"])}
    elif field == "volumeMounts":
        e = {"name": pick(rng, NAMES), "mountPath": pick(rng, PATHS + ["/new"])}
    elif field == "volumes":
        e = volume(rng, pick(rng, NAMES + ["new"]))
    elif field == "hostAliases":
        e = {"ip": pick(rng, IPS + ["10.9.9.9"]), "hostnames": ["h9"]}
    elif field == "topologySpreadConstraints":
        e = {"topologyKey": pick(rng, TOPO + ["new"]), "maxSkew": 1, "whenUnsatisfiable": "ScheduleAnyway"}
    elif field == "ownerReferences":
        e = {"apiVersion": "v1", "kind": "X", "name": "o", "uid": pick(rng, ["u1", "u2", "u9"])}
    else:
        e = {key: pick(rng, NAMES + ["new"])}
    r = rng.random()
    if r < 0.08:
        e[pick(rng, ["image", "value", "readOnly", "zz"])] = None  # null inside an inserted value
    elif r < 0.12:
        e["nested"] = {"$patch": "delete"} if rng.random() < 0.5 else {"x": None, "y": 1}
    elif r < 0.15 and key in e:
        e[key] = pick(rng, [1, 1.0, "1", 80.0, "80", True])  # key type variations
    return e


def perturb_scalar(rng, v):
    r = rng.random()
    if r < 0.5:
        if isinstance(v, bool):
            return not v
        if isinstance(v, (int, float)):
            return pick(rng, [v + 1, float(v), str(v), 7])
        if isinstance(v, str):
            return pick(rng, [v + "2", "", "z", 5])
    if r < 0.6:
        return {"t": 1}  # scalar -> object
    if r < 0.65:
        return [1, 2]
    return pick(rng, ["changed", 42, 1.25, False])


def patch_object(rng, live, path, depth=0):
    """A patch for the object `live` (which may be None: creating)."""
    live = live if isinstance(live, dict) else {}
    p = {}
    keys = list(live.keys())
    rng.shuffle(keys)
    for k in keys:
        if path == [] and k in ("apiVersion", "kind"):
            continue
        if path == ["metadata"] and k == "name":
            continue
        if rng.random() > 0.45:
            continue
        v = live[k]
        r = rng.random()
        if r < 0.08:
            p[k] = None
            continue
        if r < 0.11:
            p[k] = pick(rng, ["str", 3, [], {}])  # type change (object -> string, ...)
            continue
        if isinstance(v, dict):
            sub = patch_object(rng, v, path + [k], depth + 1)
            if sub or rng.random() < 0.1:
                p[k] = sub
        elif isinstance(v, list):
            patch_list_field(rng, live, p, path, k)
        else:
            p[k] = perturb_scalar(rng, v)
    # New keys.
    if rng.random() < 0.2:
        p[pick(rng, ["note", "labels", "zz"]) if depth else "zz"] = pick(
            rng, ["v", {"a": "1", "b": None}, {"n": {"m": None, "o": 1}}, [1, None]]
        )
    if rng.random() < 0.05 and depth < 4:
        # An unknown field holding an object; kubectl errors if live holds one too.
        p[pick(rng, JUNK)] = {"q": 1}
    if rng.random() < 0.15 and isinstance(live, dict):
        for lk in list_fields_for(path, live):
            if lk not in live and rng.random() < 0.5:
                kind = list_kind(path, lk)
                if kind[0] == "keyed":
                    p[lk] = [new_element(rng, path, lk, kind[1]) for _ in range(rng.randint(0, 2))]
                    if rng.random() < 0.3:
                        p["$setElementOrder/" + lk] = [{kind[1]: e.get(kind[1])} for e in p[lk] if kind[1] in e]
                elif kind[0] == "prim":
                    p[lk] = sample(rng, FINALIZERS, 0, 2)
                else:
                    p[lk] = ["x", "y"]
    object_directives(rng, p, live)
    return p


def list_fields_for(path, live):
    last = path[-1] if path else ""
    if last == "metadata":
        return ["finalizers", "ownerReferences"]
    if "containers" in live:
        return ["volumes", "tolerations", "imagePullSecrets", "hostAliases", "topologySpreadConstraints", "initContainers"]
    if last in ("containers", "initContainers"):
        return ["env", "ports", "volumeMounts", "args", "command"]
    if "selector" in live and "template" not in live:
        return ["ports", "externalIPs"]
    return []


def object_directives(rng, p, live):
    r = rng.random()
    if r < 0.03:
        p["$patch"] = pick(rng, ["replace", "delete", "merge", "bogus", "replace"])
    elif r < 0.09:
        # $retainKeys: valid (every non-null patch key plus some live keys) or invalid.
        keys = [k for k, v in p.items() if v is not None and not k.startswith("$")]
        extra = [k for k in live if rng.random() < 0.5]
        lst = sorted(set(keys + extra))
        if rng.random() < 0.2 and lst:
            lst.remove(pick(rng, lst))  # invalid when a patch key is missing
        if rng.random() < 0.05:
            lst = "notalist"
        p["$retainKeys"] = lst


def element_key(e, key):
    return e.get(key) if isinstance(e, dict) else None


def patch_list_field(rng, parent_live, p, path, k):
    v = parent_live.get(k)
    kind = list_kind(path, k, v)
    if kind[0] == "atomic":
        r = rng.random()
        if r < 0.5:
            if v and isinstance(v[0], dict):
                nv = copy.deepcopy(v)[: rng.randint(0, len(v))]
                if k == "tolerations" and rng.random() < 0.5:
                    nv.append(toleration(rng))
                if rng.random() < 0.2:
                    nv.append({"key": "z", "operator": None})
                p[k] = nv
            else:
                p[k] = sample(rng, ["--a", "--b", "-v", "x", "new"], 0, 3)
        elif r < 0.6:
            p[k] = []
        elif r < 0.7 and v and not isinstance(v[0], dict):
            p["$deleteFromPrimitiveList/" + k] = sample(rng, list(v) + ["absent"], 1, 2)
        elif r < 0.75 and v and isinstance(v[0], dict):
            p[k] = [{"$patch": "replace"}, toleration(rng)]
        elif r < 0.8:
            p["$setElementOrder/" + k] = list(reversed(v or []))
            if rng.random() < 0.5:
                p[k] = list(v or [])
        else:
            p[k] = copy.deepcopy(v)
        return
    if kind[0] == "prim":
        r = rng.random()
        if r < 0.4:
            p[k] = sample(rng, FINALIZERS, 0, 3)
        if rng.random() < 0.35:
            p["$deleteFromPrimitiveList/" + k] = sample(rng, FINALIZERS, 0, 2)
        if rng.random() < 0.3:
            base = list(dict.fromkeys(list(v or []) + list(p.get(k, []))))
            rng.shuffle(base)
            if rng.random() < 0.3 and base:
                base.pop()
            if rng.random() < 0.2:
                base.append("absent")
            p["$setElementOrder/" + k] = base
        if rng.random() < 0.03:
            p[k] = pick(rng, [[1, 2], ["a", 1], [None], [{"$patch": "replace"}]])
        return
    key = kind[1]
    live_elems = [e for e in (v or []) if isinstance(e, dict)]
    out = []
    for e in live_elems:
        if rng.random() < 0.5:
            continue
        kv = element_key(e, key)
        if kv is None:
            continue
        r = rng.random()
        if r < 0.15:
            out.append({key: kv, "$patch": "delete"})
        elif r < 0.18:
            out.append({key: kv, "$patch": pick(rng, ["merge", "bogus", "replace"])})
        else:
            sub = patch_object(rng, e, path + [k], len(path) + 1)
            sub.pop("$patch", None) if rng.random() < 0.7 else None
            sub[key] = kv
            out.append(sub)
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        out.append(new_element(rng, path, k, key))
    r = rng.random()
    if r < 0.04:
        out.insert(rng.randint(0, len(out)), {"$patch": "replace"})
    elif r < 0.06:
        out.append({"noKey": 1})  # element without the merge key
    elif r < 0.07:
        out.append(None)  # Q14
    elif r < 0.08:
        out.append("scalar")
    rng.shuffle(out) if rng.random() < 0.3 else None
    if out or rng.random() < 0.1:
        p[k] = out
    r = rng.random()
    if r < 0.35:
        ids = [element_key(e, key) for e in out if isinstance(e, dict) and "$patch" not in e and key in e]
        order = [{key: i} for i in ids]
        extras = [element_key(e, key) for e in live_elems if element_key(e, key) is not None]
        for x in extras:
            if rng.random() < 0.5:
                order.insert(rng.randint(0, len(order)), {key: x})
        q = rng.random()
        if q < 0.15:
            rng.shuffle(order)  # possibly inconsistent
        elif q < 0.22:
            order.append({key: "absentItem"})
        elif q < 0.27:
            order = []
        elif q < 0.29:
            order = [pick(rng, ["x", 1])]
        p["$setElementOrder/" + k] = order


def recase(rng, v, p=0.05):
    """Upper-cases the first letter of some keys (Go struct lookups fold case)."""
    if isinstance(v, list):
        return [recase(rng, x, p) for x in v]
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k[:1].islower() and k not in ("apiVersion", "kind", "metadata", "name") and rng.random() < p:
                k = k[0].upper() + k[1:]
            out[k] = recase(rng, x, p)
        return out
    return v


def case(rng):
    live = live_object(rng)
    if rng.random() < 0.1:
        live = recase(rng, live, 0.15)
    patch = patch_object(rng, live, [])
    if not patch or rng.random() < 0.03:
        patch["metadata"] = {"labels": {"p": "1"}}
    return live, patch
