"""Python call vs Rust facade call, same documents, same run.

Times ``smpatch.apply`` on the small and the large Deployment patch cases of
benches/ (``small-image-bump``: one container; ``120KB-50c-10-elems``: 50
containers, 10 image bumps) and, in the same process, the Rust facade's
``apply_bytes`` (bytes in, bytes out) and ``apply_json`` (serde_json values
in and out, parsed outside the timing) on the same documents.

Python calls timed:
- ``dict``: dicts in, dict out (what a kubernetes-client user does);
- ``bytes``: JSON bytes in, ``as_bytes=True`` out;
- ``json floor``: the standard library's C ``json.dumps`` of both input
  dicts plus ``json.loads`` of the answer, i.e. what turning dicts into
  bytes and back costs without smpatch (a reference for the dict column).

Run from the repository root with a release build installed::

    pip install ./bindings/python            # or: maturin develop --release
    python bindings/python/bench/bench.py    # needs cargo for the inputs

Prints a Markdown table (medians of several rounds; ratio = Python / Rust).
"""

from __future__ import annotations

import json
import pathlib
import statistics
import subprocess
import sys
import time

import smpatch
from smpatch import _native

REPO = pathlib.Path(__file__).resolve().parents[3]
ROUNDS = 7


def cases() -> list[dict]:
    out = subprocess.run(
        ["cargo", "run", "-q", "-p", "smpatch-benches", "--example", "bench_cases"],
        cwd=REPO, check=True, capture_output=True, text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def per_call(fn, iterations: int) -> float:
    start = time.perf_counter()
    for _ in range(iterations):
        fn()
    return (time.perf_counter() - start) / iterations


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main() -> int:
    build = getattr(_native, "_build", "unknown")
    if build == "debug":
        print("bench: this is a debug build; install a release build first", file=sys.stderr)
        return 1
    rows = []
    for case in cases():
        o_text, p_text = case["original"].encode(), case["patch"].encode()
        o_dict, p_dict = json.loads(o_text), json.loads(p_text)
        expected = smpatch.apply(o_text, p_text, as_bytes=True)
        assert json.loads(expected) == smpatch.apply(o_dict, p_dict)
        iterations = max(20, int(0.2 / max(per_call(lambda: smpatch.apply(o_dict, p_dict), 5), 1e-7)))
        samples = {"dict": [], "bytes": [], "rust_bytes": [], "rust_json": [], "json": []}
        for _ in range(ROUNDS):
            samples["dict"].append(per_call(lambda: smpatch.apply(o_dict, p_dict), iterations))
            samples["bytes"].append(per_call(lambda: smpatch.apply(o_text, p_text, as_bytes=True), iterations))
            samples["json"].append(
                per_call(lambda: (json.dumps(o_dict), json.dumps(p_dict), json.loads(expected)), iterations)
            )
            rb, rj = _native._time_facade_apply(o_text, p_text, iterations)
            samples["rust_bytes"].append(rb)
            samples["rust_json"].append(rj)
        m = {k: statistics.median(v) for k, v in samples.items()}
        rows.append((case["label"], len(o_text), m))
    print(f"build: {build}, Python {sys.version.split()[0]}, {ROUNDS} rounds, medians\n")
    print("| case | Rust apply_bytes | Rust apply_json | Python bytes→bytes | ratio vs apply_bytes "
          "| Python dict→dict | ratio vs apply_bytes | ratio vs apply_json | json floor "
          "| dict→dict vs apply_bytes + json floor |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, size, m in rows:
        print(
            f"| {label} ({size // 1000} KB) | {fmt(m['rust_bytes'])} | {fmt(m['rust_json'])} "
            f"| {fmt(m['bytes'])} | {m['bytes'] / m['rust_bytes']:.2f} "
            f"| {fmt(m['dict'])} | {m['dict'] / m['rust_bytes']:.2f} | {m['dict'] / m['rust_json']:.2f} "
            f"| {fmt(m['json'])} | {m['dict'] / (m['rust_bytes'] + m['json']):.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
