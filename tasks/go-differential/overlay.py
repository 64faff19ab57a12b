#!/usr/bin/env python3
"""Short patches over long keyed lists, for the apply differential: the
paths where patch-apply merges a patch of at most 16 elements without
deletions over the live list (`merge::list::Overlay`) and the cases that
just miss it (17 elements, a `$patch: delete` element, a `$patch: replace`
element, appended elements, an order list, duplicate live keys).

Live Pods and Services hold one list of 20 to 40,000 elements: a
container's `env` (merge key `name`) or `ports` (`containerPort`; the
OpenAPI list keys are `containerPort`+`protocol`, kubectl's struct tags
only `containerPort`), `volumes` (`name`, `retainKeys`), `containers`
(`name`), `hostAliases` (`ip`), a Service's `ports` (`port`). Patches of 1
to 17 elements: in live order, reversed, shuffled, repeated keys, new
elements, `null` merge keys, `$patch: replace|delete|merge` elements,
`$retainKeys` inside elements, `$setElementOrder` (absent, the patch's
keys, the whole live order, reversed), `$deleteFromPrimitiveList/finalizers`
beside, elements equal to the live ones.

    python3 tasks/go-differential/overlay.py --seed 1 --n 1000 OUT.json
    python3 tasks/kubectl-differential/run.py --cases OUT.json --jobs 2 --smpatch target/debug/smpatch
"""

import argparse
import copy
import json
import random


def sizes(rng):
    r = rng.random()
    # The reference is slow on long lists (kubectl decodes the typed
    # object): a few long ones per run.
    if r < 0.65:
        return rng.randint(20, 200)
    if r < 0.92:
        return rng.randint(200, 2000)
    if r < 0.98:
        return rng.randint(2000, 10000)
    return rng.randint(10000, 40000)


def pod(spec):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "x", "finalizers": ["a/x", "b/y", "c/z"], "labels": {"app": "x"}},
            "spec": spec}


# Each shape: (name, make live list of n, key of element i, make a patch
# value for a key, where the list lives).
def env_elem(i, rng):
    return {"name": f"E{i}", "value": f"v{i}"}


def env_key(e):
    return e.get("name")


def port_elem(i, rng):
    return {"containerPort": 1000 + i, "protocol": "TCP", "name": f"p{i}"}


def vol_elem(i, rng):
    if rng.random() < 0.5:
        return {"name": f"v{i}", "configMap": {"name": f"cm{i}"}}
    return {"name": f"v{i}", "emptyDir": {}}


def ctr_elem(i, rng):
    return {"name": f"c{i}", "image": f"img:{i}"}


def host_elem(i, rng):
    return {"ip": f"10.{i // 65536}.{(i // 256) % 256}.{i % 256}", "hostnames": [f"h{i}"]}


def svc_port_elem(i, rng):
    return {"port": 1000 + i, "protocol": "TCP", "targetPort": 2000 + i}


SHAPES = {
    "env": ("name", env_elem),
    "cports": ("containerPort", port_elem),
    "volumes": ("name", vol_elem),
    "containers": ("name", ctr_elem),
    "hostAliases": ("ip", host_elem),
    "svcports": ("port", svc_port_elem),
}


def place(shape, lst):
    """(live object, path of the list's parent inside a patch builder)."""
    if shape == "env":
        return pod({"containers": [{"name": "c", "image": "i", "env": lst}]})
    if shape == "cports":
        return pod({"containers": [{"name": "c", "image": "i", "ports": lst}]})
    if shape == "volumes":
        return pod({"containers": [{"name": "c", "image": "i"}], "volumes": lst})
    if shape == "containers":
        return pod({"containers": lst})
    if shape == "hostAliases":
        return pod({"containers": [{"name": "c", "image": "i"}], "hostAliases": lst})
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x", "finalizers": ["a/x", "b/y"]},
            "spec": {"selector": {"app": "x"}, "ports": lst}}


def wrap(shape, field, body):
    """The patch holding `body` (a dict with `field` and directives) at the list's parent."""
    if shape in ("env", "cports"):
        c = {"name": "c"}
        c.update(body)
        return {"spec": {"containers": [c]}}
    if shape == "svcports":
        return {"spec": body}
    return {"spec": body}


FIELD = {"env": "env", "cports": "ports", "volumes": "volumes", "containers": "containers",
         "hostAliases": "hostAliases", "svcports": "ports"}


def changed(shape, e, rng, i):
    """A patch element for live element `e` (keyed), changed or not."""
    key = SHAPES[shape][0]
    p = {key: e[key]}
    r = rng.random()
    if r < 0.2:
        return copy.deepcopy(e)  # unchanged by the patch
    if shape == "env":
        r = rng.random()
        if r < 0.5:
            p["value"] = f"w{i}"
        elif r < 0.7:
            p["value"] = None
            p["valueFrom"] = {"fieldRef": {"fieldPath": "metadata.name"}}
        elif r < 0.85:
            p["value"] = e.get("value")  # the same value
        else:
            p["$retainKeys"] = ["name"]
    elif shape == "cports":
        r = rng.random()
        if r < 0.4:
            p["name"] = f"q{i}"
        elif r < 0.6:
            p["protocol"] = "UDP"
        elif r < 0.8:
            p["hostPort"] = 80 + i
        else:
            p["name"] = None
    elif shape == "volumes":
        r = rng.random()
        if r < 0.4:
            p["$retainKeys"] = ["name", "secret"]
            p["secret"] = {"secretName": f"s{i}"}
        elif r < 0.6:
            p["emptyDir"] = {"medium": "Memory"}
        elif r < 0.8:
            p["$retainKeys"] = ["name", "configMap"]
            p["configMap"] = {"name": f"cm{i}"}
        else:
            p["configMap"] = None
    elif shape == "containers":
        r = rng.random()
        if r < 0.5:
            p["image"] = f"new:{i}"
        elif r < 0.7:
            p["env"] = [{"name": "A", "value": str(i)}]
        else:
            p["args"] = ["x", str(i)]
    elif shape == "hostAliases":
        p["hostnames"] = [f"n{i}"]
    else:
        r = rng.random()
        if r < 0.5:
            p["targetPort"] = 3000 + i
        elif r < 0.75:
            p["name"] = f"n{i}"
        else:
            p["protocol"] = "UDP"
    return p


def new_elem(shape, rng, i):
    key, mk = SHAPES[shape]
    e = mk(1_000_000 + rng.randrange(10**5), rng)
    if shape == "hostAliases":
        e["ip"] = f"192.168.{rng.randrange(256)}.{rng.randrange(256)}"
    return e


def case(rng, shape=None, long=False):
    shape = shape or rng.choice(list(SHAPES))
    key, mk = SHAPES[shape]
    n = rng.randint(10000, 40000) if long else sizes(rng)
    if shape in ("hostAliases", "volumes"):
        n = min(n, 2000)  # the reference is quadratic on long retainKeys lists
    elif shape != "env":
        n = min(n, 8000)  # and minutes long on 30k-element port lists
    live = [mk(i, rng) for i in range(n)]
    # Live duplicates.
    if rng.random() < 0.12:
        for _ in range(rng.randint(1, 3)):
            d = copy.deepcopy(live[rng.randrange(n)])
            if shape == "env":
                d["value"] = "dup"
            live.insert(rng.randrange(len(live) + 1), d)
    # A live element with a null or missing key (reference: no identity).
    if rng.random() < 0.04:
        e = copy.deepcopy(live[rng.randrange(len(live))])
        e[key] = None
        live.insert(rng.randrange(len(live) + 1), e)
    npatch = rng.choice([1, 1, 2, 3, 4, 5, 8, 12, 15, 16, 16, 17, rng.randint(1, 17)])
    near = rng.random() < 0.3  # the touched elements close together
    if near:
        s = rng.randrange(len(live))
        idx = [min(len(live) - 1, s + k) for k in range(npatch)]
    else:
        idx = [rng.randrange(len(live)) for _ in range(npatch)]
    how = rng.choice(["live", "reversed", "shuffled", "as-drawn"])
    if how == "live":
        idx.sort()
    elif how == "reversed":
        idx.sort(reverse=True)
    elif how == "shuffled":
        rng.shuffle(idx)
    elems = []
    for k, i in enumerate(idx):
        e = live[i]
        if not isinstance(e.get(key), (str, int)):
            continue
        r = rng.random()
        if r < 0.04:
            elems.append({key: e[key], "$patch": "delete"})
        elif r < 0.045:
            elems.append({key: e[key], "$patch": "merge"})
        else:
            elems.append(changed(shape, e, rng, k))
    # Repeated keys in the patch.
    if elems and rng.random() < 0.15:
        x = copy.deepcopy(rng.choice(elems))
        if "$patch" not in x and rng.random() < 0.5:
            x = changed(shape, {key: x[key], **{k: v for k, v in x.items() if k == key}}, rng, 99)
        elems.insert(rng.randrange(len(elems) + 1), x)
    # New elements appended (or inserted).
    if rng.random() < 0.25:
        for _ in range(rng.randint(1, 3)):
            e = new_elem(shape, rng, len(elems))
            elems.insert(rng.randrange(len(elems) + 1) if rng.random() < 0.5 else len(elems), e)
    # An element whose merge key is null.
    if rng.random() < 0.05:
        e = new_elem(shape, rng, 0)
        e[key] = None
        elems.insert(rng.randrange(len(elems) + 1), e)
    if rng.random() < 0.03:
        elems.append({"$patch": "replace"})
    if rng.random() < 0.01:
        elems = elems[:1] + [{"$patch": "merge"}]
    elems = elems[:17] if rng.random() < 0.9 else elems
    body = {FIELD[shape]: elems}
    r = rng.random()
    if r < 0.15:
        body["$setElementOrder/" + FIELD[shape]] = [{key: e[key]} for e in elems
                                                     if "$patch" not in e and e.get(key) is not None]
    elif r < 0.22:
        order = [{key: e[key]} for e in live if isinstance(e.get(key), (str, int))]
        order = list({json.dumps(o): o for o in order}.values())
        if rng.random() < 0.5:
            order.reverse()
        for e in elems:
            if "$patch" not in e and e.get(key) is not None and {key: e[key]} not in order:
                order.append({key: e[key]})
        body["$setElementOrder/" + FIELD[shape]] = order
    obj = place(shape, live)
    patch = wrap(shape, FIELD[shape], body)
    if rng.random() < 0.1:
        patch["metadata"] = {"$deleteFromPrimitiveList/finalizers": [rng.choice(obj["metadata"]["finalizers"])]}
    if shape in ("env", "cports") and rng.random() < 0.3:
        # The container itself unchanged otherwise; a $setElementOrder of containers.
        patch["spec"]["$setElementOrder/containers"] = [{"name": "c"}]
    return {"live": obj, "patch": patch, "shape": shape, "n": len(live), "np": len(elems)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--shape", choices=sorted(SHAPES), help="only this list")
    ap.add_argument("--long", action="store_true", help="live lists of 10,000 to 40,000 elements (env: seconds a case)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with open(args.out, "w") as f:
        json.dump([case(rng, args.shape, args.long) for _ in range(args.n)], f)


if __name__ == "__main__":
    main()
