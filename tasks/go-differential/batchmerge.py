#!/usr/bin/env python3
"""The batch protocol's `options.patch_type` ("merge", "auto") on
`create3` and `apply` against kubectl v1.32.

    python3 tasks/go-differential/batchmerge.py --n 400 --seed 1 --jobs 2 \
        --smpatch target/debug/smpatch [--out /tmp/batchmerge]

Per case a last-applied configuration, a manifest and a live object with
fields of its own (random nested objects, lists, nulls, numbers, text
Go's encoder escapes), of the custom resource `example.com/v1` `Widget`
(kubectl has no Go type for it and sends a JSON merge patch) or, for one
case in six, a ConfigMap (a built-in type: `auto` must take the
strategic merge patch kubectl sends). `kubectl apply` runs against
`fakeapi.py`, which records its PATCH (none sent = `{}`).

* `create3`: `original` = the live last-applied annotation (`{}` when
  absent, as `CreateThreeWayJSONMergePatch` takes an empty one),
  `modified` = the manifest plus the last-applied annotation kubectl
  writes (read from its PATCH; the live one when it sends none),
  `current` = the live object; `patch_type` "merge" (Widgets only) or
  "auto"; must equal kubectl's patch. (kubectl's preconditions on
  apiVersion, kind and name cannot fail here: they name the object it
  reads.)
* `apply`: kubectl's patch, and a random JSON merge patch, applied to the
  live object by `patch_type` "merge" (Widgets) or "auto" must equal
  `kubectl patch --local --type merge|strategic -o json`.

Values compare as in run.py (numbers numerically, list order kept).
Outcomes: agree, both-error, MISMATCH, ERR-ONLY-GO, ERR-ONLY-OURS;
OUT/mismatches.jsonl holds the rest with inputs and both answers.
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fakeapi  # noqa: E402
import run as gdrun  # noqa: E402  (norm)

LA = "kubectl.kubernetes.io/last-applied-configuration"
norm = gdrun.norm
TEXTS = ["a", "b", "", "x<y>&z", "caf\u00e9", "\u2028", "0", "true", "null"]
NUMBERS = [0, 1, 2, -3, 1.5, 0.25, 1e3, 123456789012]


def value(depth, r):
    c = r.random()
    if depth <= 0 or c < 0.4:
        return r.choice([None, True, False, r.choice(NUMBERS), r.choice(TEXTS)])
    if c < 0.6:
        return [value(depth - 1, r) for _ in range(r.randint(0, 3))]
    return {r.choice("abcde"): value(depth - 1, r) for _ in range(r.randint(0, 4))}


def spec(r, depth=3):
    return {r.choice("abcdef"): value(depth, r) for _ in range(r.randint(0, 5))}


def edit(v, r):
    """A nearby version of `v`: members dropped, changed, added, nulled."""
    if not isinstance(v, dict):
        return value(2, r) if r.random() < 0.5 else v
    out = {}
    for k, x in v.items():
        p = r.random()
        if p < 0.15:
            continue
        if p < 0.25:
            out[k] = None
        elif p < 0.55 and isinstance(x, dict):
            out[k] = edit(x, r)
        elif p < 0.65:
            out[k] = value(2, r)
        else:
            out[k] = copy.deepcopy(x)
    for _ in range(r.randint(0, 2)):
        out[r.choice("abcdefg")] = value(2, r)
    return out


def widget(name, s, annotations=None):
    meta = {"name": name, "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta, "spec": s}


def configmap(name, s, annotations=None):
    meta = {"name": name, "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    data = {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in s.items()}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def make_case(seed, i):
    r = random.Random(seed * 1_000_003 + i)
    name = f"w{seed}-{i}"
    cm = r.random() < 1 / 6
    mk = configmap if cm else widget
    body = "data" if cm else "spec"
    last_spec = spec(r)
    man_spec = edit(last_spec, r) if r.random() < 0.8 else spec(r)
    if cm:
        man_spec = {k: v for k, v in man_spec.items() if v is not None}
    last = mk(name, last_spec)
    manifest = mk(name, man_spec)
    if r.random() < 0.1:
        manifest["metadata"]["labels"] = {"l": r.choice(TEXTS)}
    if r.random() < 0.1:
        manifest["metadata"]["annotations"] = {"note": r.choice(TEXTS)}
    live = copy.deepcopy(last)
    extra = spec(r, 2)
    if cm:
        extra = configmap(name, extra)["data"]
    live[body].update({k: v for k, v in extra.items() if r.random() < 0.5 and (v is not None or not cm)})
    if r.random() < 0.85:
        text = json.dumps(last, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        live["metadata"]["annotations"] = {LA: gdrun.go_json(last) + "\n" if r.random() < 0.8 else text}
    if r.random() < 0.2:
        live["metadata"].setdefault("annotations", {})["other"] = "keep"
    merge_patch = {body: edit(live[body], r)} if r.random() < 0.9 else {"metadata": {"labels": {"q": None}}}
    ptype = "auto" if cm or r.random() < 0.4 else "merge"
    return {"name": name, "cm": cm, "manifest": manifest, "live": live, "patch_type": ptype,
            "merge_patch": merge_patch}


class Runner:
    def __init__(self, smpatch, work, port):
        self.smpatch = smpatch
        self.work = work
        kubeconfig = fakeapi.write_kubeconfig(work, port)
        self.env = dict(os.environ, KUBECONFIG=kubeconfig, HOME=work)

    def file(self, name, doc):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            json.dump(doc, f, ensure_ascii=False)
        return path

    def kubectl_apply(self, case):
        resource = "configmaps" if case["cm"] else "widgets"
        key = (resource, "default", case["name"])
        with fakeapi.LOCK:
            fakeapi.STATE["objects"][key] = case["live"]
            fakeapi.STATE["patches"].pop(key, None)
        mf = self.file(case["name"] + ".m.json", case["manifest"])
        k = subprocess.run(["kubectl", "apply", "--validate=false", "-f", mf],
                           env=self.env, capture_output=True, text=True)
        with fakeapi.LOCK:
            sent = list(fakeapi.STATE["patches"].get(key, []))
            fakeapi.STATE["objects"].pop(key, None)
        if k.returncode != 0:
            return ("err", k.stderr.strip()[:400])
        if not sent:
            return ("ok", {}, None)
        want = "application/strategic-merge-patch+json" if case["cm"] else "application/merge-patch+json"
        if sent[0]["contentType"] != want:
            return ("err", "content type " + str(sent[0]["contentType"]))
        return ("ok", json.loads(sent[0]["body"]), sent[0]["body"])

    def kubectl_patch(self, case, patch, tag):
        lf = self.file(case["name"] + f".{tag}.live.json", case["live"])
        ty = "strategic" if case["cm"] else "merge"
        k = subprocess.run(["kubectl", "patch", "--local", "--type", ty, "-p", json.dumps(patch),
                            "-f", lf, "-o", "json", "--show-managed-fields"],
                           env=self.env, capture_output=True, text=True)
        if k.returncode != 0:
            return ("err", k.stderr.strip()[:400])
        return ("ok", json.loads(k.stdout))

    def batch(self, requests):
        lines = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in requests)
        p = subprocess.run([self.smpatch, "batch"], input=lines, capture_output=True, text=True)
        out = [json.loads(x) for x in p.stdout.split("\n") if x.strip()]
        if len(out) != len(requests):
            raise RuntimeError(f"smpatch batch answered {len(out)} of {len(requests)}: {p.stderr[:400]}")
        return [("ok", o["ok"]) if "ok" in o else ("err", o["error"]) for o in out]


def classify(theirs, ours):
    if theirs[0] == "err" and ours[0] == "err":
        return "both-error"
    if theirs[0] == "ok" and ours[0] == "ok":
        return "agree" if norm(theirs[1]) == norm(ours[1]) else "MISMATCH"
    return "ERR-ONLY-GO" if theirs[0] == "err" else "ERR-ONLY-OURS"


def run_case(runner, case):
    results = []
    k = runner.kubectl_apply(case)
    live = case["live"]
    requests, labels, refs = [], [], []
    if k[0] == "ok":
        annotations = copy.deepcopy(case["manifest"]["metadata"].get("annotations") or {})
        sent_la = ((k[1].get("metadata") or {}).get("annotations") or {}).get(LA)
        live_la = (live["metadata"].get("annotations") or {}).get(LA)
        if sent_la is None and live_la is None:
            # kubectl always writes the annotation; no PATCH means it was there.
            raise RuntimeError("no annotation")
        annotations[LA] = sent_la if sent_la is not None else live_la
        modified = copy.deepcopy(case["manifest"])
        modified["metadata"]["annotations"] = annotations
    else:
        # kubectl failed: ours must fail too, with the annotation it would
        # have written.
        modified = copy.deepcopy(case["manifest"])
        modified["metadata"].setdefault("annotations", {})[LA] = gdrun.go_json(case["manifest"]) + "\n"
    live_la = (live["metadata"].get("annotations") or {}).get(LA)
    original = json.loads(live_la) if live_la else {}
    requests.append({"id": 0, "op": "create3", "original": original, "modified": modified,
                     "current": live, "options": {"patch_type": case["patch_type"]}})
    labels.append("create3-" + case["patch_type"] + ("-cm" if case["cm"] else ""))
    refs.append(k[:2])
    patches = [("apply-merge-patch", case["merge_patch"])]
    if k[0] == "ok":
        patches.append(("apply-kubectl-patch", k[1]))
    for tag, patch in patches:
        ref = runner.kubectl_patch(case, patch, tag)
        requests.append({"id": len(requests), "op": "apply", "original": live, "patch": patch,
                         "options": {"patch_type": case["patch_type"]}})
        labels.append(tag + "-" + case["patch_type"] + ("-cm" if case["cm"] else ""))
        refs.append(ref)
    ours = runner.batch(requests)
    for label, ref, q, o in zip(labels, refs, requests, ours):
        results.append((label, classify(ref, o), q, ref, o))
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--smpatch", default="target/debug/smpatch")
    ap.add_argument("--out", default="/tmp/batchmerge")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    server, port = fakeapi.serve()
    work = tempfile.mkdtemp(prefix="batchmerge-")
    runner = Runner(os.path.abspath(args.smpatch), work, port)
    tally = collections.defaultdict(collections.Counter)
    with open(os.path.join(args.out, "mismatches.jsonl"), "w") as mm, \
            cf.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_case, runner, make_case(args.seed, i)) for i in range(args.n)]
        for f in cf.as_completed(futures):
            for label, cls, q, ref, o in f.result():
                tally[label][cls] += 1
                if cls != "agree":
                    mm.write(json.dumps({"label": label, "class": cls, "request": q,
                                         "kubectl": ref, "ours": o}, ensure_ascii=False) + "\n")
    server.shutdown()
    for label in sorted(tally):
        print(label, json.dumps(dict(tally[label]), sort_keys=True))
    bad = sum(n for t in tally.values() for c, n in t.items() if c not in ("agree", "both-error"))
    print(f"not agreeing (besides both-error): {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
