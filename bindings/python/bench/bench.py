"""The dict path against the bytes path, same documents, same run.

Cases: the small and the large Deployment patch cases of benches/
(``small-image-bump``: one container; ``120KB-50c-10-elems``: 50 containers,
10 image bumps; ``cargo run -p smpatch-benches --example bench_cases`` prints
them) and ``env-16000-all``, built here with the shape of benches'
``case_env_all``: the small Deployment whose first container has 16,000 env
vars, a patch changing every value and reversing their order with
``$setElementOrder/env``, the modified object, and a live object with a
``status``. Operations: ``apply(original, patch)``,
``create_two_way(original, modified)``,
``create_three_way(original, modified, current)``.

Calls timed, interleaved round by round:

- ``bytes``: JSON bytes in, ``as_bytes=True`` out (the engine's bytes API);
- ``dict``: dicts in, dict out (what a kubernetes-client user does);
- ``json``: the workaround a user could write: ``json.dumps`` of each input
  dict, the bytes call, ``json.loads`` of the answer.

With ``--facade`` it also prints, for ``apply``, the Rust facade's
``apply_bytes`` and ``apply_json`` timed inside the extension on the same
bytes (``_native._time_facade_apply``).

Run from the repository root with a release build installed::

    pip install ./bindings/python            # or: maturin develop --release
    python bindings/python/bench/bench.py    # needs cargo for the inputs

Prints a Markdown table: medians of several rounds, ratios of medians.
"""

from __future__ import annotations

import argparse
import copy
import json
import pathlib
import statistics
import subprocess
import sys
import time

import smpatch
from smpatch import _native

REPO = pathlib.Path(__file__).resolve().parents[3]
ENV_N = 16_000


def bench_cases() -> list[dict]:
    out = subprocess.run(
        ["cargo", "run", "-q", "-p", "smpatch-benches", "--example", "bench_cases"],
        cwd=REPO, check=True, capture_output=True, text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def env_case(small: dict, n: int) -> dict:
    """``case_env_all(n)``'s shape on the small case's Deployment."""
    original = json.loads(small["original"])
    containers = original["spec"]["template"]["spec"]["containers"]
    first = containers[0]
    first["env"] = [{"name": f"VAR_{i:06d}", "value": f"value-{i}"} for i in range(n)]
    changed = [{"name": f"VAR_{i:06d}", "value": f"changed-{i}"} for i in reversed(range(n))]
    patch = {"spec": {"template": {"spec": {
        "$setElementOrder/containers": [{"name": c["name"]} for c in containers],
        "containers": [{
            "name": first["name"],
            "$setElementOrder/env": [{"name": e["name"]} for e in changed],
            "env": changed,
        }],
    }}}}
    modified = copy.deepcopy(original)
    modified["spec"]["template"]["spec"]["containers"][0]["env"] = changed
    current = copy.deepcopy(original)
    current["status"] = {"observedGeneration": 5, "replicas": 3, "readyReplicas": 3}
    return {
        "label": f"env-{n}-all",
        "original": json.dumps(original, separators=(",", ":")),
        "patch": json.dumps(patch, separators=(",", ":")),
        "modified": json.dumps(modified, separators=(",", ":")),
        "current": json.dumps(current, separators=(",", ":")),
    }


OPS = {
    "apply": (smpatch.apply, ("original", "patch")),
    "create2": (smpatch.create_two_way, ("original", "modified")),
    "create3": (smpatch.create_three_way, ("original", "modified", "current")),
}


def per_call(fn, iterations: int) -> float:
    start = time.perf_counter()
    for _ in range(iterations):
        fn()
    return (time.perf_counter() - start) / iterations


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def thunks(op: str, case: dict):
    fn, roles = OPS[op]
    texts = [case[r].encode() for r in roles]
    dicts = [json.loads(t) for t in texts]
    expected = fn(*texts, as_bytes=True)
    got = fn(*dicts)
    assert got == json.loads(expected), f"{op} {case['label']}: dict and bytes answers differ"
    assert fn(*dicts, as_bytes=True) == expected, f"{op} {case['label']}: bytes answers differ"
    dumps, loads = json.dumps, json.loads
    return {
        "bytes": lambda: fn(*texts, as_bytes=True),
        "dict": lambda: fn(*dicts),
        "json": lambda: loads(fn(*[dumps(d).encode() for d in dicts], as_bytes=True)),
    }, texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.15, help="per sample")
    parser.add_argument("--facade", action="store_true", help="also time the Rust facade's apply")
    parser.add_argument("--only", default="", help="substring of 'op case' rows to run")
    args = parser.parse_args()
    build = getattr(_native, "_build", "unknown")
    if build == "debug":
        print("bench: this is a debug build; install a release build first", file=sys.stderr)
        return 1
    cases = bench_cases()
    cases.append(env_case(cases[0], ENV_N))
    rows = []
    for op in OPS:
        for case in cases:
            name = f"{op} {case['label']}"
            if args.only not in name:
                continue
            calls, texts = thunks(op, case)
            iterations = max(3, int(args.seconds / max(per_call(calls["dict"], 3), 1e-7)))
            samples: dict[str, list[float]] = {k: [] for k in calls}
            facade: list[tuple[float, float]] = []
            for _ in range(args.rounds):
                for k, fn in calls.items():
                    samples[k].append(per_call(fn, iterations))
                if args.facade and op == "apply":
                    facade.append(_native._time_facade_apply(texts[0], texts[1], iterations))
            m = {k: statistics.median(v) for k, v in samples.items()}
            if facade:
                m["rust_bytes"] = statistics.median(f[0] for f in facade)
                m["rust_json"] = statistics.median(f[1] for f in facade)
            rows.append((op, case["label"], sum(map(len, texts)), m))
            print(f"  {name}: done", file=sys.stderr)
    print(f"build: {build}, Python {sys.version.split()[0]}, {args.rounds} rounds, medians\n")
    print("| op | case (input bytes) | bytes→bytes | dict→dict | json.dumps + bytes + json.loads "
          "| dict / bytes | dict / json |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for op, label, size, m in rows:
        print(
            f"| {op} | {label} ({size // 1000} KB) | {fmt(m['bytes'])} | {fmt(m['dict'])} "
            f"| {fmt(m['json'])} | {m['dict'] / m['bytes']:.2f} | {m['dict'] / m['json']:.2f} |"
        )
    if args.facade:
        print("\n| apply case | Rust apply_bytes | Rust apply_json | Python bytes→bytes | Python dict→dict "
              "| dict / apply_bytes | dict / apply_json |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for op, label, size, m in rows:
            if "rust_bytes" in m:
                print(
                    f"| {label} | {fmt(m['rust_bytes'])} | {fmt(m['rust_json'])} | {fmt(m['bytes'])} "
                    f"| {fmt(m['dict'])} | {m['dict'] / m['rust_bytes']:.2f} "
                    f"| {m['dict'] / m['rust_json']:.2f} |"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
