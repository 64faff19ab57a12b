#!/usr/bin/env python3
"""Random differential test of APPLY: `kubectl patch --local --type strategic`
(the Go reference, struct tags) against `smpatch batch` (embedded schema).

    python3 tasks/kubectl-differential/run.py --n 3000 --seed 1 --jobs 2 \
        [--smpatch /work/target-diff/release/smpatch] [--out /tmp/kdiff]

Each mismatch is classified. Known, intended divergences (docs/DIVERGENCES.md)
are recognised and verified:

* leak       — the reference stores directive keys / nulls (Q6, Q7, Q9, Q10,
               Q30): equal after stripping directive keys and nulls from the
               reference result, which must actually contain such a leak;
* q13        — (also `q13-error`: our error, which a kubectl re-run gives too)
               the patch holds `f` and `$deleteFromPrimitiveList/f` without
               `$setElementOrder/f`: kubectl is re-run (Go map order is random
               per process) until one of its results equals ours;
* dup-order  — the live object has a primitive merge list with duplicates
               (undefined in the reference, docs/DIVERGENCES.md "Live
               primitive list with duplicates"): equal after sorting those lists;
* nondet     — any other mismatch where a kubectl re-run produces our result.

Anything else is `MISMATCH` (written to OUT/mismatches.jsonl with inputs).
Error/no-error disagreements are `ERR-ONLY-KUBECTL` / `ERR-ONLY-OURS`.
"""

import argparse
import collections
import concurrent.futures as cf
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
import kinds  # noqa: E402

DIRECTIVE_PREFIXES = ("$patch", "$retainKeys", "$setElementOrder/", "$deleteFromPrimitiveList/")


def norm(v):
    """JSON value with numbers normalised (kubectl re-encodes them)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return ("num", float(v))
    if isinstance(v, list):
        return [norm(x) for x in v]
    return {k: norm(x) for k, x in v.items()}


def strip_leaks(v):
    """Drop directive keys, null members and `$patch` objects (what our
    cleaning removes from stored values)."""
    if isinstance(v, list):
        return [strip_leaks(x) for x in v if not (isinstance(x, dict) and "$patch" in x)]
    if isinstance(v, dict):
        return {
            k: strip_leaks(x)
            for k, x in v.items()
            if x is not None
            and not k.startswith(DIRECTIVE_PREFIXES)
            and not (isinstance(x, dict) and "$patch" in x)
        }
    return v


def has_leak(v):
    if isinstance(v, list):
        return any(has_leak(x) for x in v)
    if isinstance(v, dict):
        return any(x is None or k.startswith(DIRECTIVE_PREFIXES) or has_leak(x) for k, x in v.items())
    return False


def sort_prim_lists(v):
    if isinstance(v, list):
        xs = [sort_prim_lists(x) for x in v]
        if all(isinstance(x, str) for x in xs):
            return sorted(xs)
        return xs
    if isinstance(v, dict):
        return {k: sort_prim_lists(x) for k, x in v.items()}
    return v


def has_dup_prim_list(live):
    if isinstance(live, dict):
        for k, x in live.items():
            if k == "finalizers" and isinstance(x, list) and len(set(map(json.dumps, x))) < len(x):
                return True
            if has_dup_prim_list(x):
                return True
    elif isinstance(live, list):
        return any(has_dup_prim_list(x) for x in live)
    return False


def has_q13(patch):
    if isinstance(patch, dict):
        for k in patch:
            if k.startswith("$deleteFromPrimitiveList/"):
                f = k.split("/", 1)[1]
                if f in patch and ("$setElementOrder/" + f) not in patch:
                    return True
        return any(has_q13(x) for x in patch.values())
    if isinstance(patch, list):
        return any(has_q13(x) for x in patch)
    return False


def kubectl(workdir, i, live, patch):
    lp = os.path.join(workdir, f"l{i}.json")
    pp = os.path.join(workdir, f"p{i}.json")
    with open(lp, "w") as f:
        f.write(kinds.dumps(live))
    with open(pp, "w") as f:
        f.write(kinds.dumps(patch))
    r = subprocess.run(
        ["kubectl", "patch", "--local", "-f", lp, "--type", "strategic", "--patch-file", pp, "-o", "json",
         "--show-managed-fields"],
        capture_output=True,
        text=True,
    )
    if r.returncode == 0:
        try:
            return ("ok", json.loads(r.stdout))
        except ValueError:
            return ("err", "unparsable stdout: " + r.stdout[:200])
    err = r.stderr.strip()
    # kubectl decodes the merged object afterwards; without kind/apiVersion it
    # fails, quoting the SMP result, which is what we compare.
    pre = "error: Object 'Kind' is missing in '"
    if err.startswith(pre) and err.endswith("'"):
        try:
            return ("ok", json.loads(err[len(pre):-1]))
        except ValueError:
            pass
    return ("err", err)


def api_kind(live):
    return f"{live['apiVersion']}/{live['kind']}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--smpatch", default="/work/target-diff/release/smpatch")
    ap.add_argument("--out", default="/tmp/kdiff")
    ap.add_argument("--reruns", type=int, default=8)
    ap.add_argument("--cases", help="JSON file of [{live, patch}] to run instead of generating")
    ap.add_argument("--gen", choices=["gen", "kinds"], default="gen",
                    help="generator: gen.py (workloads) or kinds.py (many built-in kinds, odd numbers)")
    ap.add_argument("--kind", help="kinds.py: only this kind (e.g. Node)")
    ap.add_argument("--compact", action="store_true",
                    help="write the request lines as compact JSON (no whitespace, no \\u escapes)")
    args = ap.parse_args()
    kinds.COMPACT = args.compact
    os.makedirs(args.out, exist_ok=True)

    if args.cases:
        cases = [(c["live"], c["patch"]) for c in json.load(open(args.cases))]
    else:
        cases = []
        for i in range(args.n):
            rng = random.Random(args.seed * 1_000_003 + i)
            cases.append(kinds.case(rng, args.kind) if args.gen == "kinds" else gen.case(rng))

    reqs = "".join(
        kinds.dumps(
            {"id": i, "op": "apply", "schema": {"builtin": api_kind(l)}, "original": l, "patch": p}
        )
        + "\n"
        for i, (l, p) in enumerate(cases)
    )
    out = subprocess.run([args.smpatch, "batch"], input=reqs, capture_output=True, text=True, check=True)
    ours = {}
    for line in out.stdout.split("\n"):
        if not line:
            continue
        r = json.loads(line)
        ours[r["id"]] = ("ok", r["ok"]) if "ok" in r else ("err", r["error"])

    workdir = tempfile.mkdtemp(prefix="kdiff-")
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        theirs = list(ex.map(lambda ic: kubectl(workdir, ic[0], *ic[1]), enumerate(cases)))

    tally = collections.Counter()
    errpairs = collections.Counter()
    mism = open(os.path.join(args.out, "mismatches.jsonl"), "w")
    errex = open(os.path.join(args.out, "error-examples.jsonl"), "w")
    def classify(i, live, patch, t, o):
        if t[0] == "err" and "unable to decode" in t[1]:
            # kubectl rejects the live file itself (typed decoding), before SMP.
            tally["skip-kubectl-decode"] += 1
            return
        if t[0] == "err" and o[0] == "err":
            tally["agree-error"] += 1
            msg = t[1].replace("error: ", "")
            short = msg.split(":")[0][:60] if "unable to find api field" not in msg else "unable to find api field"
            for key in ("doesn't match", "does not contain declared merge key", "unknown patch type",
                        "invalid patch format", "list element types are not identical",
                        "merging lists cannot yet be specified", "expected a", "no elements",
                        "cannot merge lists without merge key", "unable to find api field",
                        "lists of lists", "invalid character", "panic"):
                if key in msg:
                    short = key
                    break
            errpairs[(short, o[1]["kind"])] += 1
            if errpairs[(short, o[1]["kind"])] == 1:
                errex.write(json.dumps({"i": i, "pair": [short, o[1]["kind"]], "live": live, "patch": patch,
                                        "kubectl": t[1][:2000], "ours": o[1]}) + "\n")
            return
        if t[0] == "ok" and o[0] == "ok":
            if norm(t[1]) == norm(o[1]):
                tally["agree"] += 1
                return
            cat = None
            if has_leak(t[1]) and norm(strip_leaks(t[1])) == norm(strip_leaks(o[1])):
                cat = "leak(Q6/Q7/Q9/Q10/Q30)"
            elif has_dup_prim_list(live) and norm(sort_prim_lists(t[1])) == norm(sort_prim_lists(o[1])):
                cat = "dup-order"
            else:
                for _ in range(args.reruns if has_q13(patch) else 3):
                    t2 = kubectl(workdir, f"r{i}", live, patch)
                    if t2[0] == "ok" and (
                        norm(t2[1]) == norm(o[1]) or norm(strip_leaks(t2[1])) == norm(strip_leaks(o[1]))
                    ):
                        cat = "q13" if has_q13(patch) else "nondet"
                        break
            if cat:
                tally[cat] += 1
                return
            tally["MISMATCH"] += 1
        elif t[0] == "err":
            # Nondeterministic errors (map order): re-run a few times.
            cat = None
            for _ in range(3):
                t2 = kubectl(workdir, f"r{i}", live, patch)
                if t2[0] == "ok" and norm(t2[1]) == norm(o[1]):
                    cat = "nondet-error"
                    break
            if cat:
                tally[cat] += 1
                return
            tally["ERR-ONLY-KUBECTL"] += 1
        else:
            if has_q13(patch):
                # Q13: kubectl visits `f` and `$deleteFromPrimitiveList/f` in
                # random order; we merge `f` first, which may fail where the
                # other order skips the deletion list. Re-run kubectl.
                for _ in range(args.reruns):
                    t2 = kubectl(workdir, f"r{i}", live, patch)
                    if t2[0] == "err":
                        tally["q13-error"] += 1
                        return
            tally["ERR-ONLY-OURS"] += 1
        mism.write(json.dumps({"i": i, "live": live, "patch": patch, "kubectl": t, "ours": o}) + "\n")

    bykind = collections.defaultdict(collections.Counter)
    for i, (live, patch) in enumerate(cases):
        before = dict(tally)
        classify(i, live, patch, theirs[i], ours.get(i, ("err", {"kind": "no_response"})))
        for k, v in tally.items():
            if v != before.get(k, 0):
                bykind[live.get("kind")][k] += 1
    mism.close()
    print(json.dumps(dict(tally), indent=1, sort_keys=True))
    print("per kind:")
    for k, c in sorted(bykind.items()):
        print(f"  {k:26} {json.dumps(dict(sorted(c.items())))}")
    print("error pairs (kubectl message, our kind):")
    for (a, b), n in sorted(errpairs.items(), key=lambda x: -x[1]):
        print(f"  {n:5d}  {a!r:50} -> {b}")


if __name__ == "__main__":
    main()
