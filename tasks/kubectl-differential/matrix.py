#!/usr/bin/env python3
"""Exhaustive small matrix of list directives against `kubectl patch --local
--type strategic`: for each list kind (primitive merge list `finalizers`,
atomic list of objects `tolerations`, keyed list `imagePullSecrets`, atomic
scalar list `args`), every combination of the live list (absent, empty, one
element of each shape), the patch list (absent, empty, `$patch` elements,
elements, null, scalars), `$setElementOrder` (absent, empty, scalars,
objects) and `$deleteFromPrimitiveList` (absent, empty, one value).

    python3 tasks/kubectl-differential/matrix.py --smpatch target/debug/smpatch [--out /tmp/kmatrix]

Classes as in run.py (agree, agree-error, leak, q13, MISMATCH, ERR-ONLY-*),
plus `q13` (a kubectl re-run gives our answer, directive keys and nulls
stripped: Go visits `f` and `$deleteFromPrimitiveList/f` in random order, and
smpatch merges `f` first, cleaned as Q9 says), `go-panic` (kubectl crashed: a Go runtime panic; docs/DIVERGENCES.md)
and `go-panic-OURS-OK` (kubectl crashed where smpatch answers).
"""

import argparse
import collections
import concurrent.futures as cf
import itertools
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import has_leak, has_q13, kubectl, norm, strip_leaks  # noqa: E402

FIELDS = {
    # field: (parent, base object, scalar element, object element)
    "finalizers": ("metadata", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "o"}}, "a", {"x": "1"}),
    "tolerations": ("spec", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "o"},
                             "spec": {"containers": [{"name": "c", "image": "i"}]}}, "a", {"key": "k"}),
    "imagePullSecrets": ("spec", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "o"},
                                  "spec": {"containers": [{"name": "c", "image": "i"}]}}, "a", {"name": "n"}),
    "args": ("spec.containers", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "o"},
                                 "spec": {"containers": [{"name": "c", "image": "i"}]}}, "a", {"x": "1"}),
}
ABSENT = object()


def variants(sc, ob):
    live = [ABSENT, [], [sc], [ob], [sc, "b"]]
    plist = [ABSENT, [], [{"$patch": "replace"}], [{"$patch": "delete"}], [sc], [ob], [None],
             [{"$patch": "replace"}, sc], [{**ob, "$patch": "delete"}]]
    order = [ABSENT, [], [sc], [ob]]
    delete = [ABSENT, [], [sc]]
    return live, plist, order, delete


def parent(obj, where):
    cur = obj
    for step in where.split("."):
        cur = cur[step]
        if isinstance(cur, list):
            cur = cur[0]
    return cur


def build(field, lv, pv, ov, dv):
    where, base, _, _ = FIELDS[field]
    live = json.loads(json.dumps(base))
    if lv is not ABSENT:
        parent(live, where)[field] = lv
    inner = {}
    if pv is not ABSENT:
        inner[field] = pv
    if ov is not ABSENT:
        inner["$setElementOrder/" + field] = ov
    if dv is not ABSENT:
        inner["$deleteFromPrimitiveList/" + field] = dv
    if where == "spec.containers":
        patch = {"spec": {"containers": [{"name": "c", **inner}]}}
    else:
        patch = {where: inner}
    return live, patch


def ours(smpatch, cases):
    reqs = "".join(json.dumps({"id": i, "op": "apply", "schema": {"builtin": f"{l['apiVersion']}/{l['kind']}"},
                               "original": l, "patch": p}) + "\n" for i, (l, p) in enumerate(cases))
    out = subprocess.run([smpatch, "batch"], input=reqs, capture_output=True, text=True, check=True)
    res = {}
    for line in out.stdout.split("\n"):
        if line:
            r = json.loads(line)
            res[r["id"]] = ("ok", r["ok"]) if "ok" in r else ("err", r["error"])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smpatch", default="/work/target-diff/release/smpatch")
    ap.add_argument("--out", default="/tmp/kmatrix")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    cases, names = [], []
    for field, (_, _, sc, ob) in FIELDS.items():
        for lv, pv, ov, dv in itertools.product(*variants(sc, ob)):
            if pv is ABSENT and ov is ABSENT and dv is ABSENT:
                continue
            cases.append(build(field, lv, pv, ov, dv))
            names.append(field)
    us = ours(args.smpatch, cases)
    workdir = tempfile.mkdtemp(prefix="kmatrix-")
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        theirs = list(ex.map(lambda ic: kubectl(workdir, ic[0], *ic[1]), enumerate(cases)))
    tally = collections.Counter()
    with open(os.path.join(args.out, "mismatches.jsonl"), "w") as mism:
        for i, ((live, patch), t) in enumerate(zip(cases, theirs)):
            o = us[i]
            panic = t[0] == "err" and "panic:" in t[1]
            if t[0] == "err" and o[0] == "err":
                cls = "go-panic" if panic else "agree-error"
            elif t[0] == "ok" and o[0] == "ok":
                if norm(t[1]) == norm(o[1]):
                    cls = "agree"
                elif has_leak(t[1]) and norm(strip_leaks(t[1])) == norm(strip_leaks(o[1])):
                    cls = "leak"
                else:
                    cls = "MISMATCH"
            elif panic:
                cls = "go-panic-OURS-OK"
            elif t[0] == "err":
                cls = "ERR-ONLY-KUBECTL"
            else:
                cls = "ERR-ONLY-OURS"
            if cls in ("MISMATCH", "ERR-ONLY-KUBECTL", "ERR-ONLY-OURS") and has_q13(patch):
                for _ in range(6):
                    t2 = kubectl(workdir, f"r{i}", live, patch)
                    # Q13 (kubectl's order is random) with Q9 (smpatch cleans an
                    # atomic list before the deletion list sees it).
                    if (t2[0] == "err" and o[0] == "err") or (t2[0] == "ok" and o[0] == "ok" and (
                            norm(t2[1]) == norm(o[1]) or norm(strip_leaks(t2[1])) == norm(strip_leaks(o[1])))):
                        cls = "q13"
                        break
            tally[(names[i], cls)] += 1
            if cls not in ("agree", "agree-error", "leak", "go-panic", "q13"):
                mism.write(json.dumps({"i": i, "class": cls, "live": live, "patch": patch,
                                       "kubectl": [t[0], t[1] if t[0] == "ok" else t[1][:300]], "ours": o}) + "\n")
    for f in FIELDS:
        print(f, json.dumps({k[1]: v for k, v in sorted(tally.items()) if k[0] == f}))


if __name__ == "__main__":
    main()
