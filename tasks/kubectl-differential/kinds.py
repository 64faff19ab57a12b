"""Real-shaped objects of many built-in kinds, and patches for them.

`case(rng)` returns `(live, patch)` like `gen.case`, over Pod (every PodSpec
list: containers, initContainers, ephemeralContainers, volumes with their
retainKeys sources, tolerations, imagePullSecrets, hostAliases,
topologySpreadConstraints, resourceClaims, schedulingGates, readinessGates;
status conditions / podIPs / hostIPs), Deployment, StatefulSet
(volumeClaimTemplates), DaemonSet (updateStrategy), Job (podFailurePolicy),
CronJob, Service (ports keyed by port, protocols), Node (taints, podCIDRs,
addresses, conditions), ConfigMap/Secret (maps), Ingress, NetworkPolicy,
Role/ClusterRole/RoleBinding, HorizontalPodAutoscaler (v2), PodDisruptionBudget,
PersistentVolumeClaim, ServiceAccount, Endpoints.

Patches come from `gen.patch_object` (keyed / primitive / atomic list edits,
every directive, nulls, type changes) plus the shapes `extra_shapes` adds:
`$patch` at object and list level anywhere, `$retainKeys`, empty lists and
objects, duplicate elements, unicode, big integers and floats written as
`1.0` / `1e3` (numbers kept as literals: see `dumps`).

`gen.LISTS` is extended with the list metadata of the new fields (Go struct
tags of kubectl v1.32); the generator only uses it to choose plausible
directives, the verdict is always kubectl's.
"""

import copy
import json
import re

import gen

pick = gen.pick
sample = gen.sample

gen.LISTS.update({
    "ephemeralContainers": ("keyed", "name"),
    "resourceClaims": ("keyed", "name"),
    "schedulingGates": ("keyed", "name"),
    "conditions": ("keyed", "type"),
    "podIPs": ("keyed", "ip"),
    "hostIPs": ("keyed", "ip"),
    "addresses": ("keyed", "type"),
    "podCIDRs": ("prim",),
    "taints": ("atomic",),
    "subjects": ("atomic",),
    "rules": ("atomic",),
    "tls": ("atomic",),
    "metrics": ("atomic",),
    "policies": ("atomic",),
    "accessModes": ("atomic",),
    "volumeClaimTemplates": ("atomic",),
    "secrets": ("keyed", "name"),
    "subsets": ("atomic",),
    "resizePolicy": ("atomic",),
    "policyTypes": ("atomic",),
    "ingress": ("atomic",),
    "egress": ("atomic",),
    "clusterIPs": ("atomic",),
    "ipFamilies": ("atomic",),
    "verbs": ("atomic",),
})

# Literal numbers: a string "\x00NUM:<text>" is written as the bare literal.
NUM_RE = re.compile(r'"\\u0000NUM:([^"\\]*)"')


def lit(text):
    return "\x00NUM:" + text


# run.py --compact: no whitespace and no \u escapes but control characters
# (the value parser keeps the text of large compact objects).
COMPACT = False


def dumps(v):
    """JSON text with `lit` numbers written as their literal."""
    text = json.dumps(v, separators=(",", ":"), ensure_ascii=False) if COMPACT else json.dumps(v)
    return NUM_RE.sub(lambda m: m.group(1), text)


def loads_lits(v):
    """The value with `lit` numbers decoded (for reasoning in Python)."""
    return json.loads(dumps(v))


UNICODE = ["héllo", "日本語", "emoji 😀", "a\u2028b", "<&>", "tab\t"]
BIG = ["9223372036854775807", "-9223372036854775808", "12345678901234567890", "1.0", "1e3", "2.50",
       "0.1", "1E-2", "-0.0", "100000000000000000000000"]


def meta(rng, name, namespaced=True):
    m = gen.metadata(rng, name)
    if namespaced and rng.random() < 0.5:
        m["namespace"] = "default"
    return m


def container(rng, name, ephemeral=False):
    c = gen.container(rng, name)
    if ephemeral:
        for k in ("ports", "resources", "livenessProbe"):
            c.pop(k, None)
        if rng.random() < 0.5:
            c["targetContainerName"] = pick(rng, gen.NAMES)
        return c
    if rng.random() < 0.2:
        c["volumeDevices"] = [{"name": pick(rng, gen.NAMES), "devicePath": p}
                              for p in sample(rng, ["/dev/a", "/dev/b"], 1, 2)]
    if rng.random() < 0.2:
        c["envFrom"] = [{"configMapRef": {"name": "cm"}}, {"prefix": "P_", "secretRef": {"name": "s"}}][: rng.randint(1, 2)]
    if rng.random() < 0.15:
        c["resizePolicy"] = [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]
    if rng.random() < 0.15:
        c["lifecycle"] = {"preStop": {"exec": {"command": ["sleep", "5"]}}}
    if rng.random() < 0.15:
        c["readinessProbe"] = {"tcpSocket": {"port": pick(rng, [80, "http"])}, "initialDelaySeconds": 3}
    return c


def volume(rng, name):
    v = gen.volume(rng, name)
    r = rng.random()
    if r < 0.15:
        v = {"name": name, "projected": {"sources": [{"configMap": {"name": "cm"}},
                                                     {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}]}}
    elif r < 0.25:
        v = {"name": name, "downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}}
    elif r < 0.3:
        v = {"name": name, "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
                                                                          "resources": {"requests": {"storage": "1Gi"}}}}}}
    elif r < 0.35:
        v = {"name": name, "csi": {"driver": "d", "volumeAttributes": {"a": "1"}}}
    return v


def pod_spec(rng):
    s = gen.pod_spec(rng)
    s["containers"] = [container(rng, n) for n in sample(rng, gen.NAMES, 1, 3)]
    if rng.random() < 0.3:
        s["initContainers"] = [container(rng, n) for n in sample(rng, ["init", "setup", "a"], 1, 2)]
    if rng.random() < 0.2:
        s["ephemeralContainers"] = [container(rng, n, True) for n in sample(rng, ["dbg", "dbg2"], 1, 2)]
    if "volumes" in s or rng.random() < 0.3:
        s["volumes"] = [volume(rng, n) for n in sample(rng, gen.NAMES, 0, 3)]
    if rng.random() < 0.2:
        s["resourceClaims"] = [
            {"name": n, **({"resourceClaimName": "rc"} if rng.random() < 0.5 else {"resourceClaimTemplateName": "t"})}
            for n in sample(rng, ["gpu", "fpga", "a"], 1, 2)
        ]
    if rng.random() < 0.15:
        s["schedulingGates"] = [{"name": n} for n in sample(rng, ["g1", "g2", "g3"], 1, 2)]
    if rng.random() < 0.15:
        s["readinessGates"] = [{"conditionType": "x/ready"}]
    if rng.random() < 0.2:
        s["securityContext"] = {"runAsUser": 1000, "fsGroup": 2000,
                                "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}]}
    if rng.random() < 0.2:
        s["serviceAccountName"] = "sa"
    if rng.random() < 0.1:
        s["overhead"] = {"cpu": "10m"}
    return s


def template(rng):
    return {"metadata": {"labels": {"app": "x"}, **({"annotations": {"a": "1"}} if rng.random() < 0.3 else {})},
            "spec": pod_spec(rng)}


def conditions(rng, types):
    return [{"type": t, "status": pick(rng, ["True", "False"]),
             **({"reason": "R", "lastTransitionTime": "2024-01-01T00:00:00Z"} if rng.random() < 0.5 else {})}
            for t in sample(rng, types, 1, 3)]


def selector(rng):
    s = {"matchLabels": {"app": "x"}}
    if rng.random() < 0.3:
        s["matchExpressions"] = [{"key": "tier", "operator": "In", "values": sample(rng, ["a", "b", "c"], 1, 3)}]
    return s


def pvc_spec(rng):
    return {"accessModes": sample(rng, ["ReadWriteOnce", "ReadOnlyMany"], 1, 2),
            "resources": {"requests": {"storage": pick(rng, ["1Gi", "10Gi"])}},
            **({"storageClassName": "fast"} if rng.random() < 0.5 else {})}


def obj_pod(rng):
    o = {"spec": pod_spec(rng)}
    if rng.random() < 0.4:
        o["status"] = {"phase": "Running",
                       "conditions": conditions(rng, ["Ready", "PodScheduled", "Initialized", "ContainersReady"]),
                       "podIPs": [{"ip": ip} for ip in sample(rng, gen.IPS, 1, 2)],
                       **({"hostIPs": [{"ip": "192.168.0.1"}]} if rng.random() < 0.5 else {}),
                       **({"containerStatuses": [{"name": "a", "ready": True, "restartCount": 0, "image": "x",
                                                  "imageID": "", "state": {"running": {}}}]}
                          if rng.random() < 0.3 else {})}
    return o


def obj_workload(kind):
    def mk(rng):
        spec = {"selector": selector(rng), "template": template(rng)}
        if kind == "Deployment":
            if rng.random() < 0.5:
                spec["replicas"] = pick(rng, [1, 3])
            if rng.random() < 0.6:
                spec["strategy"] = pick(rng, [{"type": "Recreate"},
                                              {"type": "RollingUpdate",
                                               "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}}])
        elif kind == "StatefulSet":
            spec["serviceName"] = "svc"
            if rng.random() < 0.6:
                spec["volumeClaimTemplates"] = [{"metadata": {"name": n}, "spec": pvc_spec(rng)}
                                                for n in sample(rng, ["data", "logs"], 1, 2)]
            if rng.random() < 0.4:
                spec["updateStrategy"] = pick(rng, [{"type": "OnDelete"},
                                                    {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}])
            if rng.random() < 0.3:
                spec["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": "Retain", "whenScaled": "Delete"}
            if rng.random() < 0.3:
                spec["podManagementPolicy"] = "Parallel"
        elif kind == "DaemonSet":
            if rng.random() < 0.7:
                spec["updateStrategy"] = pick(rng, [{"type": "OnDelete"},
                                                    {"type": "RollingUpdate",
                                                     "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}])
        o = {"spec": spec}
        if rng.random() < 0.3:
            o["status"] = {"replicas": 1, "conditions": conditions(rng, ["Available", "Progressing", "ReplicaFailure"])}
        return o
    return mk


def job_spec(rng):
    spec = {"template": template(rng)}
    spec["template"]["spec"]["restartPolicy"] = "Never"
    if rng.random() < 0.5:
        spec["backoffLimit"] = 3
    if rng.random() < 0.3:
        spec["completions"] = 5
        spec["parallelism"] = 2
    if rng.random() < 0.3:
        spec["podFailurePolicy"] = {"rules": [
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1, 2]}},
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}][: rng.randint(1, 2)]}
    return spec


def obj_job(rng):
    o = {"spec": job_spec(rng)}
    if rng.random() < 0.3:
        o["status"] = {"conditions": conditions(rng, ["Complete", "Failed", "Suspended"]), "succeeded": 1}
    return o


def obj_cronjob(rng):
    return {"spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": job_spec(rng)},
                     **({"concurrencyPolicy": "Forbid"} if rng.random() < 0.5 else {}),
                     **({"suspend": False} if rng.random() < 0.3 else {})}}


def obj_service(rng):
    spec = {"selector": {"app": "x"}}
    ports = []
    for _ in range(rng.randint(0, 4)):
        p = {"port": pick(rng, [80, 443, 53, 8080]), "protocol": pick(rng, ["TCP", "UDP", "SCTP"])}
        if rng.random() < 0.6:
            p["name"] = pick(rng, ["http", "dns", "tls", "dns-tcp"])
        if rng.random() < 0.5:
            p["targetPort"] = pick(rng, [8080, "http", 53])
        if rng.random() < 0.2:
            p["nodePort"] = pick(rng, [30080, 30443])
        ports.append(p)
    spec["ports"] = ports
    if rng.random() < 0.4:
        spec["type"] = pick(rng, ["ClusterIP", "NodePort", "LoadBalancer"])
    if rng.random() < 0.3:
        spec["clusterIPs"] = ["10.96.0.10"]
        spec["ipFamilies"] = ["IPv4"]
    if rng.random() < 0.2:
        spec["externalIPs"] = sample(rng, gen.IPS, 1, 2)
    if rng.random() < 0.2:
        spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10800}}
    o = {"spec": spec}
    if rng.random() < 0.2:
        o["status"] = {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]},
                       "conditions": [{"type": "Ready", "status": "True", "reason": "R", "message": "",
                                       "lastTransitionTime": "2024-01-01T00:00:00Z"}]}
    return o


def obj_node(rng):
    spec = {}
    if rng.random() < 0.7:
        spec["taints"] = [{"key": k, "effect": pick(rng, ["NoSchedule", "NoExecute", "PreferNoSchedule"]),
                           **({"value": "v"} if rng.random() < 0.5 else {})}
                          for k in sample(rng, ["k1", "k2", "node.kubernetes.io/unreachable"], 0, 3)]
    if rng.random() < 0.5:
        spec["podCIDR"] = "10.244.0.0/24"
        spec["podCIDRs"] = sample(rng, ["10.244.0.0/24", "fd00::/64"], 1, 2)
    if rng.random() < 0.3:
        spec["unschedulable"] = True
    o = {"spec": spec}
    if rng.random() < 0.6:
        o["status"] = {"addresses": [{"type": t, "address": a}
                                     for t, a in sample(rng, [("InternalIP", "10.0.0.5"), ("Hostname", "n1"),
                                                              ("ExternalIP", "1.1.1.1")], 1, 3)],
                       "conditions": conditions(rng, ["Ready", "MemoryPressure", "DiskPressure"]),
                       "capacity": {"cpu": "4", "memory": "8Gi"}}
        if rng.random() < 0.3:
            o["status"]["images"] = [{"names": ["nginx:1"], "sizeBytes": 123}]
    return o


def obj_configmap(rng):
    o = {"data": {k: pick(rng, ["1", "2", "x", "", "multi\nline"]) for k in sample(rng, ["a", "b", "c", "d.conf"], 0, 4)}}
    if rng.random() < 0.2:
        o["binaryData"] = {"bin": "AAEC"}
    if rng.random() < 0.2:
        o["immutable"] = False
    return o


def obj_secret(rng):
    o = {"type": pick(rng, ["Opaque", "kubernetes.io/tls"]),
         "data": {k: pick(rng, ["YQ==", "Yg==", ""]) for k in sample(rng, ["a", "tls.crt", "tls.key"], 0, 3)}}
    if rng.random() < 0.3:
        o["stringData"] = {"s": "plain"}
    return o


def obj_ingress(rng):
    rules = [{"host": h, "http": {"paths": [{"path": "/", "pathType": "Prefix",
                                             "backend": {"service": {"name": "svc", "port": {"number": 80}}}}]}}
             for h in sample(rng, ["a.example", "b.example"], 0, 2)]
    spec = {"rules": rules}
    if rng.random() < 0.4:
        spec["tls"] = [{"hosts": ["a.example"], "secretName": "tls"}]
    if rng.random() < 0.4:
        spec["ingressClassName"] = "nginx"
    if rng.random() < 0.2:
        spec["defaultBackend"] = {"service": {"name": "def", "port": {"name": "http"}}}
    return {"spec": spec}


def obj_netpol(rng):
    spec = {"podSelector": selector(rng) if rng.random() < 0.7 else {},
            "policyTypes": sample(rng, ["Ingress", "Egress"], 1, 2)}
    if rng.random() < 0.7:
        spec["ingress"] = [{"from": [{"podSelector": {"matchLabels": {"role": "fe"}}},
                                     {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}}],
                            "ports": [{"protocol": "TCP", "port": pick(rng, [80, "http"])}]}]
    if rng.random() < 0.4:
        spec["egress"] = [{"to": [{"namespaceSelector": {}}], "ports": [{"port": 53, "protocol": "UDP"}]}]
    return {"spec": spec}


def rbac_rules(rng):
    return [{"apiGroups": [g], "resources": sample(rng, ["pods", "services", "configmaps"], 1, 2),
             "verbs": sample(rng, ["get", "list", "watch", "create"], 1, 3)}
            for g in sample(rng, ["", "apps", "batch"], 0, 2)]


def obj_role(rng):
    return {"rules": rbac_rules(rng)}


def obj_clusterrole(rng):
    o = {"rules": rbac_rules(rng)}
    if rng.random() < 0.3:
        o["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {"agg": "true"}}]}
    return o


def obj_rolebinding(rng):
    return {"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
            "subjects": [{"kind": k, "name": n, **({"namespace": "default"} if k == "ServiceAccount" else {}),
                          **({"apiGroup": "rbac.authorization.k8s.io"} if k != "ServiceAccount" else {})}
                         for k, n in sample(rng, [("ServiceAccount", "sa"), ("User", "alice"), ("Group", "devs")], 0, 3)]}


def obj_hpa(rng):
    spec = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
            "minReplicas": 1, "maxReplicas": pick(rng, [5, 10]),
            "metrics": [{"type": "Resource", "resource": {"name": r, "target": {"type": "Utilization",
                                                                               "averageUtilization": 80}}}
                        for r in sample(rng, ["cpu", "memory"], 0, 2)]}
    if rng.random() < 0.4:
        spec["behavior"] = {"scaleDown": {"stabilizationWindowSeconds": 300,
                                          "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}}
    o = {"spec": spec}
    if rng.random() < 0.3:
        o["status"] = {"currentReplicas": 1, "desiredReplicas": 1,
                       "conditions": conditions(rng, ["AbleToScale", "ScalingActive", "ScalingLimited"])}
    return o


def obj_pdb(rng):
    spec = {"selector": selector(rng)}
    spec[pick(rng, ["minAvailable", "maxUnavailable"])] = pick(rng, [1, "50%"])
    o = {"spec": spec}
    if rng.random() < 0.4:
        o["status"] = {"currentHealthy": 1, "desiredHealthy": 1, "disruptionsAllowed": 0, "expectedPods": 1,
                       "conditions": [{"type": "DisruptionAllowed", "status": "False", "reason": "R", "message": "",
                                       "lastTransitionTime": "2024-01-01T00:00:00Z"}]}
    return o


def obj_pvc(rng):
    return {"spec": pvc_spec(rng)}


def obj_sa(rng):
    o = {}
    if rng.random() < 0.6:
        o["secrets"] = [{"name": n} for n in sample(rng, ["s1", "s2", "s3"], 1, 3)]
    if rng.random() < 0.5:
        o["imagePullSecrets"] = [{"name": n} for n in sample(rng, ["p1", "p2"], 1, 2)]
    return o


def obj_endpoints(rng):
    return {"subsets": [{"addresses": [{"ip": ip} for ip in sample(rng, gen.IPS, 1, 2)],
                         "ports": [{"port": 80, "protocol": "TCP"}]}]}


KINDS = {
    "Pod": ("v1", obj_pod, True),
    "Deployment": ("apps/v1", obj_workload("Deployment"), True),
    "StatefulSet": ("apps/v1", obj_workload("StatefulSet"), True),
    "DaemonSet": ("apps/v1", obj_workload("DaemonSet"), True),
    "Job": ("batch/v1", obj_job, True),
    "CronJob": ("batch/v1", obj_cronjob, True),
    "Service": ("v1", obj_service, True),
    "Node": ("v1", obj_node, False),
    "ConfigMap": ("v1", obj_configmap, True),
    "Secret": ("v1", obj_secret, True),
    "Ingress": ("networking.k8s.io/v1", obj_ingress, True),
    "NetworkPolicy": ("networking.k8s.io/v1", obj_netpol, True),
    "Role": ("rbac.authorization.k8s.io/v1", obj_role, True),
    "ClusterRole": ("rbac.authorization.k8s.io/v1", obj_clusterrole, False),
    "RoleBinding": ("rbac.authorization.k8s.io/v1", obj_rolebinding, True),
    "HorizontalPodAutoscaler": ("autoscaling/v2", obj_hpa, True),
    "PodDisruptionBudget": ("policy/v1", obj_pdb, True),
    "PersistentVolumeClaim": ("v1", obj_pvc, True),
    "ServiceAccount": ("v1", obj_sa, True),
    "Endpoints": ("v1", obj_endpoints, True),
}


def live_object(rng, kind=None):
    kind = kind or pick(rng, list(KINDS))
    api, mk, namespaced = KINDS[kind]
    obj = {"apiVersion": api, "kind": kind, "metadata": meta(rng, "o", namespaced)}
    obj.update(mk(rng))
    return obj


# ----- extra patch shapes -----------------------------------------------------


def walk_paths(v, path=()):
    """Every (path, value) of containers in `v` (objects and lists)."""
    yield path, v
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, (dict, list)):
                yield from walk_paths(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            if isinstance(x, (dict, list)):
                yield from walk_paths(x, path + (i,))


def get(v, path):
    for p in path:
        if isinstance(v, dict) and isinstance(p, str) and p in v:
            v = v[p]
        elif isinstance(v, list) and isinstance(p, int) and p < len(v):
            v = v[p]
        else:
            return None
    return v


def live_lists(live, path=()):
    """(path, field, list) of every list in the live object, paths by names only
    (keyed list elements addressed by their merge key when they have one)."""
    out = []
    if isinstance(live, dict):
        for k, x in live.items():
            if isinstance(x, list):
                out.append((path, k, x))
                kind = gen.list_kind(list(path), k)
                if kind[0] == "keyed":
                    for e in x:
                        if isinstance(e, dict) and isinstance(e.get(kind[1]), (str, int)):
                            out.extend(live_lists(e, path + (k, ("key", kind[1], e[kind[1]]))))
            elif isinstance(x, dict):
                out.extend(live_lists(x, path + (k,)))
    return out


def at(patch, path):
    """The patch object at `path`, creating objects and keyed elements."""
    cur = patch
    i = 0
    while i < len(path):
        step = path[i]
        if not isinstance(cur, dict):
            return None
        if i + 1 < len(path) and isinstance(path[i + 1], tuple):
            lst = cur.get(step)
            if lst is None:
                lst = cur[step] = []
            if not isinstance(lst, list):
                return None
            _, key, val = path[i + 1]
            for e in lst:
                if isinstance(e, dict) and e.get(key) == val and "$patch" not in e:
                    cur = e
                    break
            else:
                e = {key: val}
                lst.append(e)
                cur = e
            i += 2
            continue
        nxt = cur.get(step)
        if nxt is None:
            nxt = cur[step] = {}
        cur = nxt
        i += 1
    return cur if isinstance(cur, dict) else None


def odd_scalar(rng):
    r = rng.random()
    if r < 0.4:
        return pick(rng, UNICODE)
    if r < 0.8:
        return lit(pick(rng, BIG))
    return pick(rng, ["", 0, False, -1])


def extra_shapes(rng, live, patch):
    """Adds one or two of the shapes `gen.patch_object` rarely makes."""
    lists = live_lists(live)
    objs = [p for p, v in walk_paths(live) if isinstance(v, dict) and not any(isinstance(s, int) for s in p)]
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        r = rng.random()
        if r < 0.25 and lists:
            path, field, lst = pick(rng, lists)
            obj = at(patch, path)
            if obj is None:
                continue
            kind = gen.list_kind(list(path), field)
            s = rng.random()
            if s < 0.2:
                obj[field] = [{"$patch": pick(rng, ["replace", "delete", "merge"])}] + copy.deepcopy(lst[:1])
            elif s < 0.35:
                obj[field] = []
            elif s < 0.5 and lst:
                obj[field] = copy.deepcopy(lst) + copy.deepcopy(lst[-1:])  # duplicate element
            elif s < 0.65 and kind[0] == "keyed" and lst:
                obj["$setElementOrder/" + field] = [{kind[1]: e.get(kind[1])} for e in reversed(lst)
                                                    if isinstance(e, dict)]
            elif s < 0.75 and lst and not isinstance(lst[0], dict):
                obj["$deleteFromPrimitiveList/" + field] = lst[:1] + ["absent"]
            elif s < 0.85 and kind[0] == "keyed" and lst and isinstance(lst[0], dict):
                e = copy.deepcopy(lst[0])
                e["$patch"] = pick(rng, ["replace", "delete"])
                obj[field] = [e]
            else:
                obj[field] = None
        elif r < 0.45 and objs:
            path = pick(rng, objs)
            # a path through list indexes is not addressable in a patch
            obj = at(patch, tuple(path))
            if obj is None:
                continue
            s = rng.random()
            if s < 0.4:
                obj["$patch"] = pick(rng, ["replace", "delete", "merge", "replace"])
            elif s < 0.8:
                lv = get(live, path) or {}
                keys = [k for k, v in obj.items() if v is not None and not k.startswith("$")]
                keys += [k for k in lv if rng.random() < 0.4]
                obj["$retainKeys"] = sorted(set(keys))
            else:
                obj[pick(rng, ["zz", "emptyObj"])] = pick(rng, [{}, [], {"a": {}}])
        elif r < 0.8 and objs:
            path = pick(rng, objs)
            obj = at(patch, tuple(path))
            lv = get(live, path)
            if obj is None or not isinstance(lv, dict):
                continue
            scal = [k for k, v in lv.items() if not isinstance(v, (dict, list))]
            k = pick(rng, scal) if scal and rng.random() < 0.7 else pick(rng, ["note", "x", "ünï"])
            obj[k] = odd_scalar(rng)
        else:
            # Maps: labels / annotations / data with odd values and nulls.
            md = patch.setdefault("metadata", {})
            if not isinstance(md, dict):
                continue
            tgt = pick(rng, ["labels", "annotations"])
            m = md.setdefault(tgt, {})
            if isinstance(m, dict):
                m[pick(rng, ["app", "new", "ключ", "a/b"])] = pick(rng, [None, "v", "日本", ""])
            if "data" in live and rng.random() < 0.5:
                d = patch.setdefault("data", {})
                if isinstance(d, dict):
                    d[pick(rng, ["a", "b", "new"])] = pick(rng, [None, "z", "ü"])


NEW_LISTS = {
    # field: (parent path, element maker)
    "podIPs": (("status",), lambda r: {"ip": pick(r, gen.IPS)}),
    "conditions": (("status",), lambda r: {"type": pick(r, ["Ready", "New"]), "status": "True"}),
    "podCIDRs": (("spec",), lambda r: pick(r, ["10.244.0.0/24", "fd00::/64", "10.1.0.0/16"])),
    "taints": (("spec",), lambda r: {"key": pick(r, ["k1", "k9"]), "effect": "NoSchedule"}),
    "finalizers": (("metadata",), lambda r: pick(r, gen.FINALIZERS)),
    "ownerReferences": (("metadata",), lambda r: {"apiVersion": "v1", "kind": "X", "name": "o",
                                                  "uid": pick(r, ["u1", "u9"])}),
    "ports": (("spec",), lambda r: {"port": pick(r, [80, 53, "80", 80.0]), "protocol": pick(r, ["TCP", "UDP"])}),
    "secrets": ((), lambda r: {"name": pick(r, ["s1", "s9"])}),
}


def new_list(rng, live, patch):
    """A list the live object may not have, with directives around it."""
    field = pick(rng, list(NEW_LISTS))
    parent, mk = NEW_LISTS[field]
    obj = at(patch, parent)
    if obj is None:
        return
    elems = [mk(rng) for _ in range(rng.randint(0, 3))]
    r = rng.random()
    if r < 0.2 and elems and isinstance(elems[0], dict):
        elems.append({**elems[0], "$patch": "delete"})
    elif r < 0.3:
        elems.insert(0, {"$patch": "replace"})
    elif r < 0.35:
        elems.append(None)
    obj[field] = elems
    kind = gen.list_kind(list(parent), field)
    r = rng.random()
    if r < 0.3:
        if kind[0] == "keyed":
            obj["$setElementOrder/" + field] = [{kind[1]: e[kind[1]]} for e in elems
                                                if isinstance(e, dict) and kind[1] in e and "$patch" not in e]
        else:
            obj["$setElementOrder/" + field] = [e for e in elems if not isinstance(e, dict)][::-1]
    elif r < 0.45:
        obj["$deleteFromPrimitiveList/" + field] = [mk(rng)]
    elif r < 0.5:
        obj["$retainKeys"] = [field]


def case(rng, kind=None):
    live = live_object(rng, kind)
    if rng.random() < 0.15:
        # A whole other object of the kind as the patch (kubectl patch -p "$(cat manifest)").
        patch = live_object(rng, live["kind"])
        patch.pop("metadata", None) if rng.random() < 0.5 else None
    else:
        patch = gen.patch_object(rng, live, [])
    if rng.random() < 0.6:
        extra_shapes(rng, live, patch)
    if rng.random() < 0.2:
        new_list(rng, live, patch)
    if rng.random() < 0.05:
        md = live.pop("metadata")
        live = gen.recase(rng, live, 0.15)
        live["metadata"] = md
        patch = gen.recase(rng, patch, 0.1)
    if not patch:
        patch["metadata"] = {"labels": {"p": "1"}}
    return live, patch
