#!/usr/bin/env python3
"""Random differential of `--type merge` (RFC 7386) and `--type json` (RFC 6902):
`kubectl patch --local -f LIVE --type merge|json --patch-file P -o json`
against `smpatch patch -f LIVE --type merge|json --patch-file P -o json`, on
custom-resource objects without a schema (kubectl cannot patch those with
`--type strategic` locally; it uses JSON merge patch for them) and on built-in
kinds from `kinds.py`.

    python3 tasks/kubectl-differential/rfc.py --n 1000 --seed 1 --jobs 2 \
        [--type merge|json|both] [--smpatch target/debug/smpatch] [--out /tmp/krfc]

Values compare as in run.py (numbers numerically). Outcomes: agree,
agree-error, MISMATCH, ERR-ONLY-KUBECTL, ERR-ONLY-OURS, skip-kubectl-decode,
skip-kubectl-items (a merge patch setting a top-level `items`: kubectl then
decodes the result as a List);
non-agreeing cases go to OUT/mismatches.jsonl with their inputs. Big integers
(beyond int64) are decoded as float64 by kubectl and kept exactly by smpatch
(docs/DIVERGENCES.md): `norm` compares them as floats.
"""

import argparse
import collections
import concurrent.futures as cf
import copy
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
import kinds  # noqa: E402
from run import norm  # noqa: E402

pick = gen.pick
KEYS = ["a", "b", "c", "spec", "items", "x/y", "m~n", "", "ü", "0", "-"]


def scalar(rng):
    return pick(rng, [1, 0, -3, 2.5, kinds.lit("1.0"), kinds.lit("1e3"), kinds.lit("12345678901234567890"),
                      "s", "", "日本", True, False, None])


def value(rng, depth=0):
    r = rng.random()
    if depth > 3 or r < 0.45:
        return scalar(rng)
    if r < 0.75:
        return {pick(rng, KEYS): value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return [value(rng, depth + 1) for _ in range(rng.randint(0, 3))]


def cr_object(rng):
    obj = {"apiVersion": "example.com/v1", "kind": pick(rng, ["Widget", "Gadget"]),
           "metadata": {"name": "w", **({"labels": {"a": "1"}} if rng.random() < 0.5 else {})}}
    obj["spec"] = {pick(rng, KEYS): value(rng, 1) for _ in range(rng.randint(1, 4))}
    if rng.random() < 0.3:
        obj["status"] = {"conditions": [{"type": "Ready", "status": "True"}]}
    return obj


def merge_patch(rng, live, depth=0):
    """An RFC 7386 patch for `live` (any JSON value)."""
    if not isinstance(live, dict) or depth > 4 or rng.random() < 0.1:
        return value(rng, depth)
    p = {}
    for k, v in live.items():
        if depth == 0 and k in ("apiVersion", "kind") or rng.random() > 0.5:
            continue
        r = rng.random()
        if r < 0.2:
            p[k] = None
        elif r < 0.6 and isinstance(v, dict):
            p[k] = merge_patch(rng, v, depth + 1)
        elif r < 0.75:
            # new objects / arrays with nulls inside (pruned or kept?)
            p[k] = pick(rng, [{"n": None, "o": {"p": None, "q": 1}}, [None, {"r": None, "s": 2}], [1, None],
                              {"t": [{"u": None}]}])
        else:
            p[k] = value(rng, depth + 1)
    for _ in range(rng.choice([0, 0, 1, 2])):
        p[pick(rng, KEYS)] = value(rng, depth + 1) if rng.random() < 0.7 else {"v": None, "w": [None]}
    if depth == 0 and "metadata" not in p and rng.random() < 0.1:
        p["metadata"] = {"labels": {"p": None, "q": "1"}}
    return p


def pointers(v, path=""):
    out = [path]
    if isinstance(v, dict):
        for k, x in v.items():
            out += pointers(x, path + "/" + k.replace("~", "~0").replace("/", "~1"))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += pointers(x, f"{path}/{i}")
    return out


def json_patch(rng, live):
    ptrs = [p for p in pointers(live) if p not in ("", "/apiVersion", "/kind", "/metadata", "/metadata/name")]
    ops = []
    for _ in range(rng.randint(1, 4)):
        path = pick(rng, ptrs) if ptrs and rng.random() < 0.8 else pick(
            rng, ["/spec/new", "/spec/a/-", "/spec/items/0", "/spec/x~1y", "/spec/m~0n", "/missing/x", "/spec/a/-1",
                  "/spec/a/01", "/spec/a/9", "spec", "/spec/", "/spec/~2"])
        r = rng.random()
        if r < 0.3:
            op = {"op": "add", "path": path, "value": value(rng, 2)}
            if rng.random() < 0.3 and "/" in path[1:]:
                op["path"] = path.rsplit("/", 1)[0] + "/" + pick(rng, ["-", "0", "1", "-1"])
        elif r < 0.5:
            op = {"op": "remove", "path": path}
        elif r < 0.65:
            op = {"op": "replace", "path": path, "value": value(rng, 2)}
        elif r < 0.75:
            op = {"op": "test", "path": path,
                  "value": copy.deepcopy(get_ptr(live, path)) if rng.random() < 0.6 else value(rng, 2)}
        elif r < 0.85:
            op = {"op": pick(rng, ["move", "copy"]), "from": pick(rng, ptrs) if ptrs else "/spec", "path": path}
        elif r < 0.9:
            op = {"op": pick(rng, ["add", "replace"]), "path": path}  # no value
        elif r < 0.95:
            op = {"op": pick(rng, ["bogus", "ADD", None]), "path": path, "value": 1}
        else:
            op = {"op": "add", "path": path, "value": None}
        ops.append(op)
    return ops


def get_ptr(v, ptr):
    if ptr == "":
        return v
    for t in ptr.split("/")[1:]:
        t = t.replace("~1", "/").replace("~0", "~")
        if isinstance(v, dict) and t in v:
            v = v[t]
        elif isinstance(v, list) and t.isdigit() and int(t) < len(v):
            v = v[int(t)]
        else:
            return None
    return v


def case(rng, typ):
    live = cr_object(rng) if rng.random() < 0.7 else kinds.live_object(rng)
    if typ == "merge":
        return live, merge_patch(rng, live)
    return live, json_patch(rng, live)


def run_one(smpatch, workdir, i, typ, live, patch):
    lp, pp = os.path.join(workdir, f"l{i}.json"), os.path.join(workdir, f"p{i}.json")
    with open(lp, "w") as f:
        f.write(kinds.dumps(live))
    with open(pp, "w") as f:
        f.write(kinds.dumps(patch))
    res = []
    for cmd in (["kubectl", "patch", "--local", "-f", lp, "--type", typ, "--patch-file", pp, "-o", "json"],
                [smpatch, "patch", "-f", lp, "--type", typ, "--patch-file", pp, "-o", "json"]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            try:
                res.append(("ok", json.loads(r.stdout)))
            except ValueError:
                res.append(("err", "unparsable: " + r.stdout[:200]))
        else:
            res.append(("err", r.stderr.strip()[:500]))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--type", choices=["merge", "json", "both"], default="both")
    ap.add_argument("--smpatch", default="/work/target-diff/release/smpatch")
    ap.add_argument("--out", default="/tmp/krfc")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    types = ["merge", "json"] if args.type == "both" else [args.type]
    cases = []
    for i in range(args.n):
        rng = random.Random(args.seed * 1_000_003 + i)
        typ = types[i % len(types)]
        cases.append((typ,) + case(rng, typ))
    workdir = tempfile.mkdtemp(prefix="krfc-")
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(lambda ic: run_one(args.smpatch, workdir, ic[0], *ic[1]), enumerate(cases)))
    tally = collections.Counter()
    with open(os.path.join(args.out, "mismatches.jsonl"), "w") as mism:
        for i, ((typ, live, patch), (t, o)) in enumerate(zip(cases, results)):
            if t[0] == "err" and "unable to decode" in t[1]:
                cls = "skip-kubectl-decode"
            elif typ == "merge" and isinstance(patch, dict) and "items" in patch:
                # kubectl reads a result with a top-level `items` as a List
                # (decodeList) after the merge: not the merge's doing.
                cls = "skip-kubectl-items"
            elif t[0] == "err" and o[0] == "err":
                cls = "agree-error"
            elif t[0] == "ok" and o[0] == "ok":
                cls = "agree" if norm(t[1]) == norm(o[1]) else "MISMATCH"
            elif t[0] == "err":
                cls = "ERR-ONLY-KUBECTL"
            else:
                cls = "ERR-ONLY-OURS"
            tally[(typ, cls)] += 1
            if cls not in ("agree", "agree-error", "skip-kubectl-decode"):
                mism.write(json.dumps({"i": i, "type": typ, "class": cls, "live": live, "patch": patch,
                                       "kubectl": t, "ours": o}) + "\n")
    for typ in types:
        print(typ, json.dumps({k[1]: v for k, v in sorted(tally.items()) if k[0] == typ}))


if __name__ == "__main__":
    main()
