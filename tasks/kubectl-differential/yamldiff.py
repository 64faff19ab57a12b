#!/usr/bin/env python3
"""YAML differential: `smpatch patch -f LIVE.yaml --patch-file PATCH.yaml -o
json` against `kubectl patch --local` of the same files. Objects and patches
come from schemagen.py (every built-in kind); each is written as YAML in a
random style, so both YAML readers (ours: crates/value/src/yaml.rs; the
reference: sigs.k8s.io/yaml over go-yaml v2) meet:

* scalars in every spelling: plain, single- and double-quoted (with `\\u`,
  `\\x` and `\\t` escapes), literal and folded blocks; integers as hex, octal
  (`0o`, leading 0), binary, with `_` and `+`; floats as `1e3`, `1.0`, `.5`;
  booleans and nulls in their YAML 1.1 spellings (`yes`, `Off`, `~`, empty);
  strings that look like numbers/booleans written plain (so both readers
  must resolve them the same way) or quoted;
* `!!str`, `!!int`, `!!float`, `!!bool`, `!!binary` tags, float and integer
  mapping keys;
* flow and block collections, anchors and aliases, `<<` merge keys (before
  and after explicit keys, lists of sources, two `<<` in one mapping),
  comments, `---` and `...` markers.

    python3 tasks/kubectl-differential/yamldiff.py --n 1000 --seed 1 --jobs 2 --out /tmp/yamldiff

Classes: `agree`, `agree-error`, `MISMATCH`, `ERR-ONLY-KUBECTL`,
`ERR-ONLY-OURS`, `bigint` (an integer beyond int64: kubectl re-decodes its
JSON into float64, we keep the digits, docs/DIVERGENCES.md), plus run.py's
recognised apply divergences (leaks of Q6/Q7/Q9/Q10/Q30). Mismatches go to
OUT/mismatches.jsonl with both YAML texts.
"""

import argparse
import base64
import collections
import concurrent.futures as cf
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as kd  # noqa: E402
import schemagen  # noqa: E402

pick = schemagen.pick
PLAIN_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./")


class Y:
    """A random YAML writer; `anchors` holds mappings available for aliases."""

    def __init__(self, rng):
        self.rng = rng
        self.n = 0
        self.anchors = []

    def scalar(self, v):
        rng = self.rng
        if v is None:
            return pick(rng, ["null", "~", "Null", "NULL", ""])
        if isinstance(v, bool):
            return pick(rng, ["true", "True", "TRUE", "yes", "on", "Y"] if v else
                        ["false", "False", "no", "Off", "n", "NO"])
        if isinstance(v, int):
            if abs(v) > 2**62 or rng.random() < 0.5:
                return str(v)
            a, s = abs(v), "-" if v < 0 else pick(rng, ["", "", "+"])
            return s + pick(rng, [str(a), hex(a), "0o" + format(a, "o"), "0" + format(a, "o") if a else "0",
                                  "0b" + format(a, "b"), "{:_}".format(a) if a > 999 else str(a)])
        if isinstance(v, float):
            r = repr(v)
            if v == int(v) and abs(v) < 1e15 and rng.random() < 0.5:
                return pick(rng, [f"{int(v)}.0", f"{int(v)}.", f"{v:e}"])
            return r
        return self.string(v)

    def string(self, s):
        rng = self.rng
        r = rng.random()
        plain_ok = s and all(c in PLAIN_SAFE for c in s) and s[0] not in "-." and \
            schemagen_resolves_str(s)
        if plain_ok and r < 0.5:
            return s
        if r < 0.65 and "'" not in s and "\n" not in s:
            return "'" + s + "'"
        if r < 0.75 and s and "\n" not in s:
            return "!!str " + json.dumps(s)
        if r < 0.8 and s and not s.endswith("\n") and "\r" not in s:
            return "!!binary " + base64.b64encode(s.encode()).decode()
        out = []
        for c in s:
            o = ord(c)
            if c == '"' or c == "\\":
                out.append("\\" + c)
            elif o < 0x20 or (o > 0x7e and rng.random() < 0.3):
                out.append("\\u%04x" % o if o <= 0xFFFF else "\\U%08x" % o)
            elif c == "a" and rng.random() < 0.1:
                out.append("\\x61")
            else:
                out.append(c)
        return '"' + "".join(out) + '"'

    def key(self, k):
        if all(c in PLAIN_SAFE for c in k) and k and schemagen_resolves_str(k) and self.rng.random() < 0.8:
            return k
        return json.dumps(k) if self.rng.random() < 0.5 else ("'" + k + "'" if "'" not in k else json.dumps(k))

    def flow(self, v):
        if isinstance(v, dict):
            return "{" + ", ".join(f"{self.key(k)}: {self.flow(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(self.flow(x) for x in v) + "]"
        s = self.scalar(v)
        if s == "" or s.startswith("!!binary"):
            return "null" if s == "" else json.dumps(base64.b64decode(s.split()[1]).decode())
        return s

    def block(self, v, ind):
        """Lines for value v as the body of a key at indent `ind`; returns
        (inline, lines)."""
        rng = self.rng
        sp = " " * ind
        if isinstance(v, dict):
            if not v:
                return " {}", []
            if rng.random() < 0.08 and len(json.dumps(v)) < 200 and "$" not in json.dumps(v):
                return " " + self.flow(v), []
            lines = []
            items = list(v.items())
            merge_at = None
            if self.anchors and rng.random() < 0.1:
                merge_at = rng.randrange(len(items) + 1)
            if rng.random() < 0.05:
                lines.append(sp + "# a comment")
            for i, (k, x) in enumerate(items):
                if i == merge_at:
                    lines += self.merge_lines(sp, v)
                inline, sub = self.block(x, ind + 2)
                lines.append(f"{sp}{self.key(k)}:{inline}")
                lines += sub
            if merge_at == len(items):
                lines += self.merge_lines(sp, v)
            if rng.random() < 0.1 and len(items) > 0:
                self.n += 1
                name = f"a{self.n}"
                self.anchors.append((name, v))
                return f" &{name}", lines
            return "", lines
        if isinstance(v, list):
            if not v:
                return " []", []
            lines = []
            dash_ind = ind if rng.random() < 0.5 else max(ind - 2, 0)
            for x in v:
                if isinstance(x, dict) and x:
                    inline, sub = self.block(x, dash_ind + 2)
                    if inline.strip().startswith("&"):
                        # "- &a" then the mapping (an anchor before "k: v" on
                        # the dash line would name the key, not the mapping)
                        lines.append(" " * dash_ind + "- " + inline.strip())
                        lines += sub
                    elif inline.strip() == "" and sub and not sub[0].lstrip().startswith("#"):
                        # "- k: v" compact form
                        lines.append(" " * dash_ind + "- " + sub[0].strip())
                        lines += sub[1:]
                    else:
                        lines.append(" " * dash_ind + "-" + inline)
                else:
                    inline, sub = self.block(x, dash_ind + 2)
                    lines.append(" " * dash_ind + "-" + inline)
                    lines += sub
            return "", lines
        if isinstance(v, str) and "\n" in v and not v.startswith(" ") and rng.random() < 0.7 and \
                all(ord(c) >= 0x20 or c == "\n" for c in v):
            chomp = "" if v.endswith("\n") and not v.endswith("\n\n") else ("-" if not v.endswith("\n") else "+")
            body = v[:-1] if v.endswith("\n") else v
            if chomp == "+":
                return " " + self.scalar(v), []
            return " |" + chomp, [(" " * ind + ln) if ln else "" for ln in body.split("\n")]
        return " " + self.scalar(v), []

    def merge_lines(self, sp, v):
        """A `<<` entry: one anchor, a list of them, sometimes two entries."""
        rng = self.rng
        names = [n for n, _a in self.anchors]
        r = rng.random()
        if r < 0.6 or len(names) < 2:
            return [f"{sp}<<: *{pick(rng, names)}"]
        two = rng.sample(names, 2)
        if r < 0.85:
            return [f"{sp}<<: [*{two[0]}, *{two[1]}]"]
        return [f"{sp}<<: *{two[0]}", f"{sp}<<: *{two[1]}"]


def schemagen_resolves_str(s):
    """Whether the plain scalar s stays a string for go-yaml v2 (else quote)."""
    import re
    if s in ("y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False",
             "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~", "<<"):
        return False
    if re.match(r"^[-+]?(\.[0-9]|[0-9])", s) or s.startswith("."):
        return False
    return True


def to_yaml(rng, v):
    y = Y(rng)
    v = json.loads(json.dumps(v))
    inline, lines = y.block(v, 0)
    if not lines:
        lines = [inline.strip() or "{}"]
    head = pick(rng, ["", "", "---\n", "# doc\n---\n"])
    tail = pick(rng, ["", "", "...\n", "---\n"])
    return head + "\n".join(lines) + "\n" + tail, v


def run_pair(workdir, i, smpatch, live_y, patch_y):
    lp, pp = os.path.join(workdir, f"l{i}.yaml"), os.path.join(workdir, f"p{i}.yaml")
    open(lp, "w").write(live_y)
    open(pp, "w").write(patch_y)
    k = subprocess.run(["kubectl", "patch", "--local", "-f", lp, "--type", "strategic", "--patch-file", pp,
                        "-o", "json", "--show-managed-fields"], capture_output=True, text=True)
    o = subprocess.run([smpatch, "patch", "-f", lp, "--patch-file", pp, "-o", "json"], capture_output=True, text=True)

    def res(r):
        pre = "error: Object 'Kind' is missing in '"
        err = r.stderr.strip()
        if r.returncode != 0 and err.startswith(pre) and err.endswith("'"):
            try:
                return ("ok", json.loads(err[len(pre):-1]))  # run.py: the quoted SMP result
            except ValueError:
                pass
        if r.returncode == 0:
            try:
                return ("ok", json.loads(r.stdout))
            except ValueError:
                return ("err", "unparsable " + r.stdout[:200])
        return ("err", r.stderr.strip()[:1500])
    return res(k), res(o)


def has_bigint(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return abs(v) >= 2**63
    if isinstance(v, dict):
        return any(has_bigint(x) for x in v.values())
    if isinstance(v, list):
        return any(has_bigint(x) for x in v)
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--kind")
    ap.add_argument("--smpatch", default=os.path.join(schemagen.REPO, "target", "debug", "smpatch"))
    ap.add_argument("--out", default="/tmp/yamldiff")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    cases = []
    for i in range(args.n):
        rng = random.Random(args.seed * 1_000_003 + 300_000 + i)
        live, patch = schemagen.apply_case(rng, args.kind, "mix", f"y{args.seed}-{i}")
        ly, live2 = to_yaml(rng, live)
        py, patch2 = to_yaml(rng, patch)
        cases.append((ly, py, live2, patch2))
    workdir = tempfile.mkdtemp(prefix="yamldiff-")
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        res = list(ex.map(lambda ic: run_pair(workdir, ic[0], args.smpatch, ic[1][0], ic[1][1]), enumerate(cases)))
    tally = collections.Counter()
    bykind = collections.defaultdict(collections.Counter)
    mism = open(os.path.join(args.out, "mismatches.jsonl"), "w")
    for i, ((ly, py, live, patch), (t, o)) in enumerate(zip(cases, res)):
        if t[0] == "ok" and o[0] == "ok":
            if kd.norm(t[1]) == kd.norm(o[1]):
                cls = "agree"
            elif kd.has_leak(t[1]) and kd.norm(kd.strip_leaks(t[1])) == kd.norm(kd.strip_leaks(o[1])):
                cls = "leak(Q6/Q7/Q9/Q10/Q30)"
            elif has_bigint(o[1]):
                cls = "bigint"
            elif kd.has_q13(patch) and any(
                    r[0] == "ok" and kd.norm(r[1]) == kd.norm(o[1])
                    for r in (run_pair(workdir, f"r{i}-{j}", args.smpatch, ly, py)[0] for j in range(24))):
                cls = "q13"  # Go's random map order: a kubectl re-run gives our result
            else:
                cls = "MISMATCH"
        elif t[0] == "err" and "unable to decode" in t[1]:
            cls = "skip-kubectl-decode"  # kubectl's typed decoding of the live file (ObjectMeta)
        elif t[0] == "err" and o[0] == "err":
            cls = "agree-error"
        elif t[0] == "err":
            cls = "ERR-ONLY-KUBECTL"
        else:
            cls = "ERR-ONLY-OURS"
        tally[cls] += 1
        bykind[live.get("kind") if isinstance(live, dict) else "?"][cls] += 1
        if cls not in ("agree", "agree-error", "leak(Q6/Q7/Q9/Q10/Q30)", "bigint", "skip-kubectl-decode"):
            mism.write(json.dumps({"i": i, "class": cls, "live_yaml": ly, "patch_yaml": py, "kubectl": t,
                                   "ours": o}) + "\n")
    print(json.dumps(dict(tally), indent=1, sort_keys=True))
    for k, c in sorted(bykind.items()):
        print(f"  {k:34} {json.dumps(dict(sorted(c.items())))}")


if __name__ == "__main__":
    main()
