#!/usr/bin/env python3
"""Print the per-element table of the scaling bench (benches/benches/scaling.rs)
from the estimates criterion wrote under $CARGO_TARGET_DIR/criterion (default:
target/criterion).

    python3 benches/scripts/scaling.py

Per element = criterion's median / n; "vs 1k" divides by the 1k figure of the
same operation (target: at most 1.2 at every size); the baseline columns do
the same for serde_json (what the machine's caches do to a linear parse);
the floor columns for the streaming floor (every input copied, the result's
text copied: no parsing), what this machine's memory charges any linear pass
over the same bytes, measured in the same run. The floor is context for the
growth, not a target.
"""
import json
import os

root = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "criterion")
SIZES = [1000, 4000, 16000, 64000, 256000]
OPS = ["apply-all", "apply-one", "create2", "create3"]


def median(op, func, n):
    p = os.path.join(root, f"scaling_{op}", func, str(n), "new", "estimates.json")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)["median"]["point_estimate"]


print(
    "| op | n | smpatch per element | vs 1k | baseline per element | baseline vs 1k | ratio "
    "| floor per element | floor vs 1k |"
)
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for op in OPS:
    ref = None
    for n in SIZES:
        ours, base = median(op, "smpatch", n), median(op, "serde_json_baseline", n)
        floor = median(op, "streaming_floor", n)
        if ours is None or base is None:
            continue
        pe, be = ours / n, base / n
        fe = floor / n if floor is not None else None
        if ref is None:
            ref = (pe, be, fe)
        if fe is not None and ref[2] is not None:
            floor_cols = f"{fe:.1f} ns | {fe / ref[2]:.2f}"
        else:
            floor_cols = "- | -"
        print(
            f"| {op} | {n} | {pe:.0f} ns | {pe / ref[0]:.2f} | {be:.0f} ns | "
            f"{be / ref[1]:.2f} | {ours / base:.2f} | {floor_cols} |"
        )
