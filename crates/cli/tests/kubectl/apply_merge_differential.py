"""Differential of `smpatch apply --type merge` against real `kubectl apply`.

kubectl computes its three-way JSON merge patch for a custom resource only
while talking to an API server, so this script runs a fake one on
127.0.0.1: discovery for `example.com/v1` `widgets`, a GET answering the
live object, and a PATCH handler that records the body kubectl sends
(`application/merge-patch+json`): tasks/go-differential/fakeapi.py. For each seeded random case (last-applied
configuration, manifest, live object with fields of its own; a quarter of
the cases re-apply onto smpatch's own result, so the patch is often `{}`),
kubectl's patch (none sent = `{}`) must equal `smpatch apply --type merge
--show-patch`.

Usage: python3 apply_merge_differential.py SMPATCH_BINARY [CASES]
Exit status 0 when every case agrees, 1 otherwise. Needs kubectl on PATH.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

# The fake API server the Go differentials use (its `MORE` list serves the
# custom resource `example.com/v1` `widgets`).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "tasks", "go-differential"))
import fakeapi  # noqa: E402

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
KEY = ("widgets", "default", "w")


def value(depth, r):
    c = r.random()
    if depth <= 0 or c < 0.45:
        return r.choice([None, True, 0, 1, 2, "a", "b", ""])
    if c < 0.6:
        return [value(depth - 1, r) for _ in range(r.randint(0, 2))]
    return {r.choice("abc"): value(depth - 1, r) for _ in range(r.randint(0, 3))}


def spec(r):
    return {r.choice("abcd"): value(3, r) for _ in range(r.randint(0, 4))}


def widget(s, annotations=None):
    meta = {"name": "w", "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta, "spec": s}


def main():
    smpatch = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    server, port = fakeapi.serve()
    work = tempfile.mkdtemp(prefix="smpatch-apply-merge-")
    kubeconfig = fakeapi.write_kubeconfig(work, port)
    env = dict(os.environ, KUBECONFIG=kubeconfig, HOME=work)
    manifest_file, live_file = os.path.join(work, "m.json"), os.path.join(work, "l.json")

    def write(path, doc):
        with open(path, "w") as f:
            json.dump(doc, f)

    def smpatch_apply(*extra):
        return subprocess.run([smpatch, "apply", "--type", "merge", "-f", manifest_file,
                               "--live", live_file, *extra], capture_output=True, text=True)

    agree, differ, empty = 0, 0, 0
    try:
        for seed in range(cases):
            r = random.Random(seed)
            last = widget(spec(r))
            manifest = widget(spec(r) if r.random() < 0.7 else json.loads(json.dumps(last["spec"])))
            live_spec = json.loads(json.dumps(last["spec"]))
            live_spec.update({k: v for k, v in spec(r).items() if r.random() < 0.5})
            annotations = ({LAST_APPLIED: json.dumps(last, separators=(",", ":"), sort_keys=True) + "\n"}
                           if r.random() < 0.85 else None)
            live = widget(live_spec, annotations)
            write(manifest_file, manifest)
            if r.random() < 0.25:
                # A second apply, onto smpatch's own result.
                write(live_file, live)
                live = json.loads(smpatch_apply().stdout)
                live["spec"].update({k: v for k, v in spec(r).items() if r.random() < 0.3})
            write(live_file, live)
            with fakeapi.LOCK:
                fakeapi.STATE["objects"][KEY] = live
                fakeapi.STATE["patches"].pop(KEY, None)
            k = subprocess.run(["kubectl", "apply", "--validate=false", "-f", manifest_file],
                               env=env, capture_output=True, text=True)
            s = smpatch_apply("--show-patch")
            if k.returncode != 0 or s.returncode != 0:
                differ += 1
                print(f"seed {seed}: kubectl {k.returncode} {k.stderr.strip()[:300]}; "
                      f"smpatch {s.returncode} {s.stderr.strip()[:300]}")
                continue
            theirs = {}
            with fakeapi.LOCK:
                sent = list(fakeapi.STATE["patches"].get(KEY, []))
            if sent:
                content_type = sent[0]["contentType"]
                assert content_type == "application/merge-patch+json", content_type
                theirs = json.loads(sent[0]["body"])
            ours = json.loads(s.stdout)
            if ours == theirs:
                agree += 1
                empty += theirs == {}
            else:
                differ += 1
                print(f"seed {seed}: the patches differ\n  last-applied {json.dumps(last['spec'])}\n"
                      f"  manifest {json.dumps(manifest['spec'])}\n  live {json.dumps(live['spec'])}\n"
                      f"  kubectl {json.dumps(theirs)}\n  smpatch {json.dumps(ours)}")
    finally:
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    print(f"apply --type merge vs kubectl apply: {agree} agree ({empty} with an empty patch), {differ} differ")
    return 0 if differ == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
