#!/usr/bin/env python3
"""Long keyed lists for the differentials: Deployments whose container has
9,000-20,000 `env` entries (merge key `name`) and up to 12,000 `ports`
(merge key `containerPort`), edited by reorders (shuffles, reversals,
swaps), deletions, additions and value edits (`value` → `valueFrom`,
protocol changes), without `$patch` in the inputs. These reach what short
random lists do not: pairing by sorting (from 8,192 elements) and the
three-way walk composing long keyed lists itself.

    python3 tasks/go-differential/longlists.py create --seed 31 --n2 4 --n3 3 --n3c 3 OUT.jsonl
    python3 tasks/go-differential/run.py --replay OUT.jsonl --jobs 1 --smpatch target/release/smpatch
    python3 tasks/go-differential/longlists.py apply --seed 31 --n 8 OUT.json
    python3 tasks/kubectl-differential/run.py --cases OUT.json --jobs 1 --smpatch target/release/smpatch

`create` writes `run.py --replay` lines (create2, create3, create3c with
the `reapply` and `first` scenarios; a few cases hold duplicate `env`
names). `apply` writes `kubectl-differential/run.py --cases` input: the
live Deployment and a patch with value edits, `$patch: delete` elements,
new elements and, mostly, a `$setElementOrder/env` (and sometimes
`$setElementOrder/ports`) reordering the list. The Go reference is slow on
these (its apply looks each patch element up linearly): a handful of cases
per run.
"""

import argparse
import copy
import json
import random


def deployment(env, ports):
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "x", "namespace": "default", "labels": {"app": "x"}},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "x"}},
                 "template": {"metadata": {"labels": {"app": "x"}},
                              "spec": {"containers": [{"name": "c", "image": "i:1", "env": env, "ports": ports}]}}},
    }


def reorder(rng, out):
    r = rng.random()
    if r < 0.15:
        rng.shuffle(out)
    elif r < 0.3:
        out.reverse()
    elif r < 0.8:
        for _ in range(rng.randrange(1, 50)):
            a, b = rng.randrange(len(out)), rng.randrange(len(out))
            out[a], out[b] = out[b], out[a]


def edit(rng, lst, key, tag, rate, drops=True):
    out = copy.deepcopy(lst)
    n = len(out)
    for _ in range(int(n * rate * rng.random()) if drops else 0):
        if out:
            del out[rng.randrange(len(out))]
    for _ in range(int(n * rate * rng.random())):
        e = out[rng.randrange(len(out))]
        if key == "name":
            r = rng.random()
            if r < 0.6:
                e["value"] = "w" + str(rng.randrange(10**6))
            elif r < 0.8:
                e.pop("value", None)
                e["valueFrom"] = {"fieldRef": {"fieldPath": "metadata.name"}}
            else:
                e.pop("value", None)
        else:
            e["protocol"] = rng.choice(["TCP", "UDP", "SCTP"])
            if rng.random() < 0.3:
                e["name"] = "p" + str(rng.randrange(1000))
    for _ in range(int(n * rate * rng.random())):
        i = rng.randrange(10**6)
        e = {"name": f"{tag}{i}", "value": "n"} if key == "name" else {"containerPort": 100000 + i}
        out.insert(rng.randrange(len(out) + 1), e)
    reorder(rng, out)
    return out


def dedup(lst, key):
    seen, out = set(), []
    for e in lst:
        if e.get(key) not in seen:
            seen.add(e.get(key))
            out.append(e)
    return out


def create_cases(rng, n2, n3, n3c, lo=9000, hi=20000, appended=False):
    for op, count in (("create2", n2), ("create3", n3), ("create3c", n3c)):
        for _ in range(count):
            n = rng.randint(lo, hi)
            env = [{"name": f"E{i}", "value": f"v{i}"} for i in range(n)]
            dups = rng.random() < 0.15
            for _ in range(3 if dups else 0):
                env.insert(rng.randrange(len(env)), {"name": env[rng.randrange(n)]["name"], "value": "dup"})
            pn = rng.choice([3, 50, rng.randint(hi * 41 // 100, hi * 3 // 5)])
            o = deployment(env, [{"containerPort": 1000 + i, "protocol": "TCP"} for i in range(pn)])
            # Without drops every element of original keeps a partner in
            # modified: create3 then composes the long lists while it walks them.
            m_drops = rng.random() < 0.6

            def edited(tag, rate, drops=True):
                d = copy.deepcopy(o)
                c = d["spec"]["template"]["spec"]["containers"][0]
                c["env"] = edit(rng, c["env"], "name", tag, rate, drops)
                if not dups:
                    c["env"] = dedup(c["env"], "name")
                c["ports"] = dedup(edit(rng, c["ports"], "containerPort", tag, rate), "containerPort")
                return d

            m = edited("M", rng.choice([0.001, 0.01, 0.1]), m_drops)
            if op == "create2":
                yield {"op": op, "original": o, "modified": m}
                continue
            if appended and rng.random() < 0.5:
                # Another writer only appended its own elements.
                cur = copy.deepcopy(o)
                c = cur["spec"]["template"]["spec"]["containers"][0]
                c["env"] += [{"name": f"C{i}", "value": "c"} for i in range(rng.randint(1, 40))]
            else:
                cur = edited("C", rng.choice([0.001, 0.01, 0.05]))
            rec = {"op": op, "original": o, "modified": m, "manifest": m, "current_plain": cur}
            if op == "create3c":
                rec["scenario"] = rng.choice(["reapply", "first"])
                if rec["scenario"] == "first":
                    rec["original"] = None
            yield rec


def apply_case(rng):
    n = rng.randint(9000, 20000)
    env = [{"name": f"E{i}", "value": f"v{i}"} for i in range(n)]
    ports = [{"containerPort": 1000 + i} for i in range(rng.choice([5, 9000]))]
    live = deployment(env, ports)
    del live["metadata"]["namespace"]
    names = [e["name"] for e in env]
    # order: the order list reorders; same-order: it keeps the live order
    # (new elements last); no-order: no order list.
    mode = rng.choice(["order", "same-order", "no-order", "live-duplicates"])
    if mode == "live-duplicates":
        for _ in range(3):
            env.insert(rng.randrange(len(env)), {"name": names[rng.randrange(n)], "value": "dup"})
    rate = rng.choice([0.0005, 0.01, 0.2])
    dels = set(rng.sample(names, int(n * rate * rng.random())))
    changed = set(rng.sample(names, int(n * rate * rng.random()) + 1)) - dels
    new = list(dict.fromkeys(f"N{rng.randrange(10**7)}" for _ in range(int(n * rate * rng.random()))))
    newset = set(new)
    final = [x for x in names if x not in dels] + new
    if mode in ("order", "live-duplicates"):
        if rng.random() < 0.6:
            reorder(rng, final)
        else:  # new elements interleaved with the live ones
            final = [x for x in final if x not in newset]
            for x in new:
                final.insert(rng.randrange(len(final) + 1), x)
    plist = []
    for x in final:
        if x in changed:
            plist.append({"name": x, "value": "w" + str(rng.randrange(1000))} if rng.random() < 0.7
                         else {"name": x, "value": None, "valueFrom": {"fieldRef": {"fieldPath": "a"}}})
        elif x in newset:
            plist.append({"name": x, "value": "n"})
    for x in dels:
        plist.insert(rng.randrange(len(plist) + 1), {"name": x, "$patch": "delete"})
    c = {"name": "c", "env": plist}
    if mode != "no-order":
        c["$setElementOrder/env"] = [{"name": x} for x in final]
    if rng.random() < 0.5 and len(ports) > 100:
        ps = [p["containerPort"] for p in ports]
        rng.shuffle(ps)
        c["$setElementOrder/ports"] = [{"containerPort": p} for p in ps]
        c["ports"] = [{"containerPort": ps[k], "name": "p"} for k in sorted(rng.sample(range(len(ps)), 20))]
    patch = {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "c"}], "containers": [c]}}}}
    return {"live": live, "patch": patch}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["create", "apply"])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n2", type=int, default=4)
    ap.add_argument("--n3", type=int, default=3)
    ap.add_argument("--n3c", type=int, default=3)
    ap.add_argument("--n", type=int, default=8, help="apply cases")
    ap.add_argument("--min-len", type=int, default=9000, help="create: fewest env entries")
    ap.add_argument("--max-len", type=int, default=20000, help="create: most env entries")
    ap.add_argument("--appended", action="store_true",
                    help="create3/create3c: half of the live objects only append env entries of their own")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with open(args.out, "w") as f:
        if args.what == "create":
            for rec in create_cases(rng, args.n2, args.n3, args.n3c, args.min_len, args.max_len,
                                    args.appended):
                f.write(json.dumps(rec) + "\n")
        else:
            json.dump([apply_case(rng) for _ in range(args.n)], f)


if __name__ == "__main__":
    main()
