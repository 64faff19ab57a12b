#!/usr/bin/env python3
"""Print the smpatch / serde_json_baseline ratio of every criterion group as a
markdown table, from the estimates criterion wrote under
$CARGO_TARGET_DIR/criterion (default: target/criterion).

    python3 benches/scripts/ratios.py [PREFIX ...]   # e.g. apply create2 create3

Times are criterion's median estimates. For env-N cases the "per element"
column is our time / N and "vs 1k" is that divided by the 1k case's value ("baseline vs 1k": the same
for the baseline, i.e. what the machine's caches do to a linear algorithm).
"""
import json
import os
import re
import sys

root = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "criterion")
prefixes = sys.argv[1:] or ["apply", "create2", "create3"]


def median(group, func):
    d = os.path.join(root, group, func)
    if not os.path.isdir(d):
        return None
    for param in os.listdir(d):
        p = os.path.join(d, param, "new", "estimates.json")
        if os.path.exists(p):
            with open(p) as f:
                return json.load(f)["median"]["point_estimate"]
    return None


def fmt(ns):
    for unit, div in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= div:
            return f"{ns / div:.3g} {unit}"
    return f"{ns:.3g} ns"


ORDER = ["small-image-bump", "120KB-50c-10-elems"] + [
    f"env-{n}-{k}" for k in ("all", "one") for n in (1000, 4000, 16000)
]
for prefix in prefixes:
    print(f"\n| {prefix} case | baseline | smpatch | ratio | per element | vs 1k | baseline vs 1k |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    per1k, base1k = {}, {}
    for case in ORDER:
        group = f"{prefix}_{case}"
        base, ours = median(group, "serde_json_baseline"), median(group, "smpatch")
        if base is None or ours is None:
            continue
        m = re.match(r"env-(\d+)-(\w+)", case)
        per, scale, bscale = "", "", ""
        if m:
            n, kind = int(m.group(1)), m.group(2)
            pe = ours / n
            per = f"{pe:.0f} ns"
            if n == 1000:
                per1k[kind], base1k[kind] = pe, base / n
            if kind in per1k:
                scale = f"{pe / per1k[kind]:.2f}×"
                bscale = f"{base / n / base1k[kind]:.2f}×"
        print(f"| {case} | {fmt(base)} | {fmt(ours)} | {ours / base:.2f} | {per} | {scale} | {bscale} |")
