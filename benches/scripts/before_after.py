#!/usr/bin/env python3
"""Before/after comparison of two trees measured in one session.

    # every criterion bench: AFTER/BEFORE median ratio per benchmark, and the
    # ratio to the serde_json baseline of the same group in each tree
    python3 benches/scripts/before_after.py compare BEFORE_CRITERION AFTER_CRITERION

    # the scaling table from the `profile` example, runs interleaved
    # (BEFORE then AFTER for every op and size, ROUNDS times); wall medians
    python3 benches/scripts/before_after.py scaling BEFORE_PROFILE AFTER_PROFILE [ROUNDS]

BEFORE_CRITERION / AFTER_CRITERION are `target/criterion` directories (or
copies holding only the `*/new/estimates.json` files); times are criterion's
median estimates. BEFORE_PROFILE / AFTER_PROFILE are the two builds of
benches/examples/profile.rs (`cargo build --profile bench -p smpatch-benches
--example profile`).
"""
import json
import os
import re
import statistics
import subprocess
import sys


def estimates(root):
    """Map "group/function/param" to criterion's median, in ns."""
    out = {}
    for d, _, files in os.walk(root):
        if "estimates.json" in files and os.path.basename(d) == "new":
            key = os.path.relpath(os.path.dirname(d), root)
            with open(os.path.join(d, "estimates.json")) as f:
                out[key] = json.load(f)["median"]["point_estimate"]
    return out


def fmt(ns):
    for unit, div in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= div:
            return f"{ns / div:.3g} {unit}"
    return f"{ns:.3g} ns"


def is_baseline(function):
    return "serde_json" in function or "baseline" in function


def baseline_of(key, table):
    """The baseline (serde_json, or list_shapes' string keys) of the same
    group: the one with the same parameter, else the group's only one."""
    parts = key.split("/")
    if len(parts) < 2 or is_baseline(parts[1]):
        return None
    found = [(k.split("/"), v) for k, v in table.items()
             if k.split("/")[0] == parts[0] and is_baseline(k.split("/")[1])]
    same = [v for p, v in found if p[2:] == parts[2:]]
    if same:
        return same[0]
    return found[0][1] if len(found) == 1 else None


def compare(before_root, after_root):
    before, after = estimates(before_root), estimates(after_root)
    print("| benchmark | before | after | after/before | vs serde_json before | vs serde_json after | after/before of that |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for key in sorted(set(before) | set(after)):
        b, a = before.get(key), after.get(key)
        if b is None or a is None:
            print(f"| {key} | {fmt(b) if b else 'new'} | {fmt(a) if a else 'gone'} | | | | |")
            continue
        bb, ab = baseline_of(key, before), baseline_of(key, after)
        extra = "| | | |"
        if bb and ab:
            extra = f"| {b / bb:.2f} | {a / ab:.2f} | {(a / ab) / (b / bb):.3f} |"
        print(f"| {key} | {fmt(b)} | {fmt(a)} | {a / b:.3f} {extra}")


PROFILE_RE = re.compile(r"median ([\d.]+) ms.* ([\d.]+) MB/s")


def run_profile(binary, op, n, reps):
    r = subprocess.run([binary, op, str(n), str(reps)], capture_output=True, text=True, check=True)
    m = PROFILE_RE.search(r.stderr)
    return float(m.group(1)) * 1e6, float(m.group(2))


def scaling(before_bin, after_bin, rounds=3):
    sizes = [1000, 4000, 16000, 64000, 256000]
    ops = ["apply-all", "apply-one", "create2", "create3"]
    res = {}
    for _ in range(rounds):
        for op in ops:
            for n in sizes:
                reps = max(5, 500_000 // n)
                for tree, binary in (("before", before_bin), ("after", after_bin)):
                    res.setdefault((op, n, tree), []).append(run_profile(binary, op, n, reps)[0])
        for op in ("deploy-apply", "deploy-create2", "deploy-create3", "parse", "parse-serde"):
            for tree, binary in (("before", before_bin), ("after", after_bin)):
                res.setdefault((op, 0, tree), []).append(run_profile(binary, op, 1, 200))
    print("| op | n | before ns/element | before vs 1k | after ns/element | after vs 1k | after/before |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for op in ops:
        ref = {}
        for n in sizes:
            cells = []
            for tree in ("before", "after"):
                pe = statistics.median(res[(op, n, tree)]) / n
                ref.setdefault(tree, pe)
                cells.append((pe, pe / ref[tree]))
            print(f"| {op} | {n // 1000}k | {cells[0][0]:.0f} | {cells[0][1]:.2f} | "
                  f"{cells[1][0]:.0f} | {cells[1][1]:.2f} | {cells[1][0] / cells[0][0]:.3f} |")
    print()
    print("| Deployment op | before | after | after/before |")
    print("|---|---:|---:|---:|")
    med = {}
    for op in ("deploy-apply", "deploy-create2", "deploy-create3", "parse", "parse-serde"):
        for tree in ("before", "after"):
            runs = res[(op, 0, tree)]
            med[(op, tree)] = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
        b, a = med[(op, "before")], med[(op, "after")]
        if op.startswith("parse"):
            print(f"| {op} (MB/s) | {b[1]:.0f} | {a[1]:.0f} | {a[1] / b[1]:.3f} (throughput) |")
        else:
            print(f"| {op} (ms) | {b[0] / 1e6:.3f} | {a[0] / 1e6:.3f} | {a[0] / b[0]:.3f} |")
    for tree in ("before", "after"):
        c3, c2 = med[("deploy-create3", tree)][0], med[("deploy-create2", tree)][0]
        p, s = med[("parse", tree)][1], med[("parse-serde", tree)][1]
        print(f"\n{tree}: create3/create2 = {c3 / c2:.2f}; parse/parse-serde throughput = {p / s:.2f}")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "scaling":
        scaling(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 3)
    else:
        sys.exit(__doc__)
