#!/usr/bin/env python3
"""Random differential of patch CREATION: `smpatch batch` create2/create3
against the patches the Go reference (kubectl v1.32, struct-tag metadata)
sends to a fake API server.

    python3 tasks/go-differential/run.py --n2 500 --n3 500 --seed 1 --jobs 2 \
        [--smpatch /work/target-godiff/release/smpatch] [--out /tmp/godiff]
    python3 tasks/go-differential/run.py --replay /tmp/godiff/mismatches.jsonl

* create2: the live object (original) is served; `kubectl edit` runs with
  KUBE_EDITOR="cp MODIFIED"; kubectl PATCHes CreateTwoWayMergePatch(original,
  modified, versionedStruct).
* create3: the live object (current) carries the last-applied annotation
  JSON(original); `kubectl apply --openapi-patch=false` computes
  CreateThreeWayMergePatch(original, modified+its new annotation, current,
  struct meta, overwrite=true). Our `modified` is the manifest plus
  namespace, annotations and the last-applied annotation exactly as kubectl
  writes it (checked against the annotation in the PATCH when present). No
  PATCH + "unchanged" means kubectl's patch was `{}`.

Patches are compared as JSON values (numbers numerically, key order ignored,
list order significant). Outcomes: agree, both-error, MISMATCH,
ERR-ONLY-GO, ERR-ONLY-OURS, skip-* (kubectl failed before the diff, or
produced no patch for another reason). Mismatches are sub-classified:
dup-keys (duplicate merge keys or duplicate primitive-list values in an input:
pairing/ordering unspecified, documented divergences), nondet (a kubectl
re-run gives our answer), struct-slice-lookup (conflict check: a list in the
patch at a non-pointer struct field of a built-in type; documented divergence). Everything not agreeing goes to OUT/mismatches.jsonl.
"""

import argparse
import collections
import concurrent.futures as cf
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fakeapi  # noqa: E402
import gdgen  # noqa: E402

LA = gdgen.LAST_APPLIED
CONFLICT_TEXT = "conflicts with changes made from original to current"
RESOURCE = {
    "Pod": "pods", "Service": "services", "ConfigMap": "configmaps", "Deployment": "deployments",
    "StatefulSet": "statefulsets", "DaemonSet": "daemonsets", "Job": "jobs",
    "Secret": "secrets", "PersistentVolumeClaim": "persistentvolumeclaims", "ServiceAccount": "serviceaccounts",
    "Endpoints": "endpoints", "CronJob": "cronjobs", "Ingress": "ingresses", "NetworkPolicy": "networkpolicies",
    "Role": "roles", "RoleBinding": "rolebindings", "HorizontalPodAutoscaler": "horizontalpodautoscalers",
    "PodDisruptionBudget": "poddisruptionbudgets",
}


# JSON values with numbers normalised (kubectl re-encodes them): the apply
# differential's `norm`, loaded under its own name (both scripts are `run.py`).
_kd_spec = importlib.util.spec_from_file_location(
    "kubectl_differential_run", os.path.join(HERE, "..", "kubectl-differential", "run.py")
)
_kd = importlib.util.module_from_spec(_kd_spec)
_kd_spec.loader.exec_module(_kd)
norm = _kd.norm


def go_json(v):
    """encoding/json of an unstructured map: sorted keys, compact, HTML-escaped."""
    s = json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


class Api:
    def __init__(self, port, workdir):
        self.base = f"http://127.0.0.1:{port}"
        self.workdir = workdir
        self.kubeconfig = fakeapi.write_kubeconfig(workdir, port)
        self.cache = os.path.join(workdir, "cache")

    def req(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        r = urllib.request.Request(self.base + path, data=data, method=method)
        with urllib.request.urlopen(r) as resp:
            return json.loads(resp.read())

    def kubectl(self, args, env=None):
        e = dict(os.environ, **(env or {}))
        return subprocess.run(
            ["kubectl", "--kubeconfig", self.kubeconfig, "--cache-dir", self.cache] + args,
            capture_output=True, text=True, env=e, timeout=60,
        )

    def run_case(self, tag, op, original, modified, current):
        """Returns (outcome, value, extra) where outcome is ok/err/skip (and,
        for create3c, conflict/panic)."""
        live = original if op == "create2" else current
        res = RESOURCE.get(live["kind"]) or fakeapi.KIND_RESOURCE[live["kind"]]
        name = live["metadata"]["name"]
        ns = "_" if res in fakeapi.CLUSTER else "default"
        key = f"/_objects/{res}/{ns}/{name}"
        self.req("PUT", key, live)
        mfile = os.path.join(self.workdir, f"m-{tag}.json")
        with open(mfile, "w") as f:
            # One member a line: `kubectl edit` reads the edited file with a
            # bufio.Scanner (64 KiB a line; "token too long" on long lists).
            json.dump(modified, f, indent=1)
        try:
            if op == "create2":
                r = self.kubectl(["edit", f"{res}/{name}", "--validate=false", "--show-managed-fields"],
                                 {"KUBE_EDITOR": f"cp {mfile}"})
            else:
                extra = ["--overwrite=false"] if op == "create3c" else []
                extra += [] if fakeapi.OPENAPI_V3 else ["--openapi-patch=false"]
                r = self.kubectl(["apply", "-f", mfile, "--validate=false"] + extra)
            patches = self.req("GET", f"/_patches/{res}/{ns}/{name}")
        finally:
            self.req("DELETE", key)
            os.unlink(mfile)
        text = (r.stdout + r.stderr).strip()
        warn = "error calculating patch from openapi v3 spec"
        if fakeapi.OPENAPI_V3 and op != "create2" and warn in text:
            # The reference failed on the v3 metadata (kubectl then warns and
            # retries with its struct tags): its answer is that error, a
            # conflict when the warning names one.
            first = text.split(warn, 1)[1].split("\nerror: ")[0]
            return ("conflict" if CONFLICT_TEXT in first else "err", text, text)
        if patches:
            p = patches[-1]
            if p["contentType"] != "application/strategic-merge-patch+json":
                return ("skip", "content-type " + p["contentType"], text)
            return ("ok", json.loads(p["body"]), text)
        if r.returncode == 0 and op in ("create3", "create3c") and "unchanged" in text:
            return ("ok", {}, text)
        if r.returncode != 0 and CONFLICT_TEXT in text:
            return ("conflict", text, text)
        if r.returncode != 0 and "panic:" in text:
            return ("panic", text, text)
        if r.returncode == 0:
            return ("skip", "no-patch", text)
        return ("err", text, text)


def cluster_scoped(obj):
    res = RESOURCE.get(obj.get("kind")) or fakeapi.KIND_RESOURCE.get(obj.get("kind"))
    return res in fakeapi.CLUSTER


def full_modified(manifest):
    """The modified document of `kubectl apply` (GetModifiedConfiguration)."""
    m = json.loads(json.dumps(manifest))
    md = m["metadata"]
    ann = md.get("annotations")
    # Unstructured.GetAnnotations is nil unless every value is a string.
    ann = dict(ann) if isinstance(ann, dict) and all(isinstance(x, str) for x in ann.values()) else {}
    ann.pop(LA, None)
    md["annotations"] = ann
    text = go_json(m) + "\n"
    md["annotations"] = dict(ann, **{LA: text})
    return m


def with_annotation(current, original):
    cur = json.loads(json.dumps(current))
    if original is not None:
        ann = cur["metadata"].get("annotations")
        ann = dict(ann) if isinstance(ann, dict) else {}
        ann[LA] = go_json(original)
        cur["metadata"]["annotations"] = ann
    return cur


def keyed_dups(v, path=()):
    """True if any keyed list (by gdgen's metadata) or finalizers list holds duplicates."""
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, list):
                kind = gdgen.list_kind(list(path), k)
                if kind[0] == "keyed":
                    ks = [json.dumps(e.get(kind[1])) for e in x if isinstance(e, dict)]
                    if len(set(ks)) < len(ks):
                        return True
                elif kind[0] == "prim":
                    ks = [json.dumps(e) for e in x]
                    if len(set(ks)) < len(ks):
                        return True
                for e in x:
                    if keyed_dups(e, tuple(path) + (k,)):
                        return True
            elif keyed_dups(x, tuple(path) + (k,)):
                return True
    return False


def features(p, acc=None):
    """Which directive kinds a patch contains."""
    acc = set() if acc is None else acc
    if isinstance(p, dict):
        for k, v in p.items():
            if k.startswith("$"):
                acc.add(k.split("/")[0] + (":" + v if k == "$patch" and isinstance(v, str) else ""))
            if v is None:
                acc.add("null")
            features(v, acc)
    elif isinstance(p, list):
        for x in p:
            features(x, acc)
    return acc


# `--compact`: request lines and `smpatch apply` files are written as Go's
# encoder writes them (sorted keys, no whitespace) but without \u escapes,
# so the parser keeps the compact text of large objects and create3 skips
# subtrees the three documents share.
COMPACT = False
COMPACT_MIN = 256  # value::parse_json::COMPACT_SOURCE_MIN


def dumps(v):
    if COMPACT:
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    return json.dumps(v)


def shared_texts(docs, counts):
    """Counts, for `--compact`, where create3's one-text skip can fire:
    objects of at least COMPACT_MIN bytes of escape-free compact text at the
    same path in every document of `docs` with the same text."""
    def walk(vs, top):
        if not all(isinstance(v, dict) for v in vs) and not all(isinstance(v, list) for v in vs):
            return 0
        if all(isinstance(v, dict) for v in vs):
            t = dumps(vs[0])
            if len(t) >= COMPACT_MIN and "\\" not in t and all(dumps(v) == t for v in vs[1:]):
                return 1
            return sum(walk([v[k] for v in vs], False) for k in vs[0] if all(k in v for v in vs))
        if len({len(v) for v in vs}) != 1:
            return 0
        return sum(walk(list(x), False) for x in zip(*vs))
    n = walk(docs, True)
    if n:
        counts["cases"] += 1
        counts["subtrees"] += n


BIG_PATHS = [("metadata", "labels"), ("metadata", "annotations"), ("spec", "template", "metadata", "labels"),
             ("spec", "template", "spec", "nodeSelector"), ("spec", "nodeSelector")]


def grow(rng, docs):
    """`--big`: string maps of 12-20 entries (300-600 bytes compact) at the
    label, annotation and nodeSelector paths the manifest has, the same in
    all three documents or changed in one or two of them (another writer,
    the manifest, an older configuration), so that create3's one-text skip
    and current standing for original meet large subtrees."""
    o, m, c = docs
    for path in BIG_PATHS:
        parent = m
        for k in path[:-1]:
            parent = parent.get(k) if isinstance(parent, dict) else None
        if path == ("spec", "nodeSelector") and m.get("kind") != "Pod":
            continue
        if not isinstance(parent, dict) or rng.random() < 0.3:
            continue
        base = {f"big.example.com/k{j}": f"value-{rng.randrange(10 ** 6)}" for j in range(rng.randrange(12, 21))}
        how = pick(rng, ["all", "all", "all", "oc", "om", "mc", "one-each"])
        vals = [dict(base), dict(base), dict(base)]
        if how != "all":
            for d in {"oc": [1], "om": [2], "mc": [0], "one-each": [0, 1, 2]}[how]:
                k = pick(rng, sorted(vals[d]))
                if rng.random() < 0.5:
                    vals[d][k] = "changed"
                else:
                    del vals[d][k]
        for doc, v in zip(docs, vals):
            if doc is None:
                continue
            q = doc
            for k in path[:-1]:
                q = q.get(k) if isinstance(q, dict) else None
            if isinstance(q, dict):
                old = q.get(path[-1])
                q[path[-1]] = {**old, **v} if isinstance(old, dict) else v


def pick(rng, xs):
    return xs[rng.randrange(len(xs))]


def ours_batch(smpatch, reqs):
    out = subprocess.run([smpatch, "batch"], input="".join(dumps(r) + "\n" for r in reqs),
                         capture_output=True, text=True, check=True)
    res = {}
    for line in out.stdout.split("\n"):
        if not line:
            continue
        r = json.loads(line)
        res[r["id"]] = ("ok", r["ok"]) if "ok" in r else ("err", r["error"])
    return res


# --openapi-v3: "apiVersion/Kind" -> (v3 file, definition) for create3 (what
# kubectl apply's patch metadata comes from when /openapi/v3 serves the file).
V3_DEFS = {}
V3_FILES = {"api/v1": "kubernetes-v1.24.api.v1.v3.json", "apis/batch/v1": "kubernetes-v1.24.batch.v1.v3.json"}


def use_openapi_v3():
    shared = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "openapi"))
    for gv, f in V3_FILES.items():
        path = os.path.join(shared, f)
        fakeapi.OPENAPI_V3[gv] = path
        for name, s in json.load(open(path))["components"]["schemas"].items():
            for g in s.get("x-kubernetes-group-version-kind", []):
                av = f"{g['group']}/{g['version']}" if g["group"] else g["version"]
                if gv.endswith(av) and "metadata" in s.get("properties", {}):
                    V3_DEFS[f"{av}/{g['kind']}"] = (path, name)


def request(i, op, original, modified, current):
    gvk = f"{modified['apiVersion']}/{modified['kind']}"
    wire = "create3" if op == "create3c" else op
    schema = {"builtin": gvk}
    if V3_DEFS and wire == "create3" and gvk in V3_DEFS:
        schema = {"file": V3_DEFS[gvk][0], "definition": V3_DEFS[gvk][1]}
    r = {"id": i, "op": wire, "schema": schema, "original": original or {}, "modified": modified}
    if wire == "create3":
        r["current"] = current
        r["overwrite"] = op != "create3c"
    return r


def case_name(op, seed, i):
    return f"{'e' if op == 'create2' else 'a'}{seed}-{i}"


def three_way_inputs(name, scen, o, m, c):
    """(original, manifest, live) exactly as kubectl sees them. `reapply`:
    the live annotation is the text kubectl writes for this manifest and
    original is its parse."""
    m = json.loads(json.dumps(m))
    c = json.loads(json.dumps(c))
    m["metadata"]["name"] = c["metadata"]["name"] = name
    if scen == "reapply":
        m2 = json.loads(json.dumps(m))
        m2["metadata"]["namespace"] = "default"
        text = full_modified(m2)["metadata"]["annotations"][LA]
        o = json.loads(text)
        ann = c["metadata"].get("annotations")
        ann = dict(ann) if isinstance(ann, dict) else {}
        ann[LA] = text
        c["metadata"]["annotations"] = ann
        return o, m, c
    return o, m, with_annotation(c, o)


def classify_pair(t, us):
    """Outcome class of one (kubectl, ours) pair (before the dup/nondet checks)."""
    if t[0] == "skip":
        return "skip-" + t[1].split()[0]
    if t[0] == "err" and ("unable to decode" in t[1] or "no valid changes were saved" in t[1]):
        return "skip-kubectl-decode"  # kubectl rejected a document before diffing
    if t[0] == "panic":
        # Q18: the reference indexes past a de-duplicated right list.
        return "go-panic" + ("" if us[0] == "err" and us[1]["kind"] == "conflict" else "-OURS-NOT-CONFLICT")
    if t[0] == "conflict":
        if us[0] == "err" and us[1]["kind"] == "conflict":
            return "both-conflict"
        return "CONFLICT-ONLY-GO"
    if us[0] == "err" and us[1]["kind"] == "conflict":
        if t[0] == "err" and "expected slice or array type, but got: struct" in t[1]:
            # The patch holds a list where a built-in type has a struct
            # field: Go's struct metadata fails the list lookup of the
            # conflict check for non-pointer struct fields; the embedded
            # (OpenAPI) schema has no pointer information and, like the
            # OpenAPI-based reference, answers conflict (DIVERGENCES.md).
            return "struct-slice-lookup"
        return "CONFLICT-ONLY-OURS"
    if t[0] == "err" and us[0] == "err":
        return "both-error"
    if t[0] == "ok" and us[0] == "ok":
        return "agree" if norm(t[1]) == norm(us[1]) else "MISMATCH"
    if t[0] == "err":
        return "ERR-ONLY-GO"
    return "ERR-ONLY-OURS"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n2", type=int, default=300)
    ap.add_argument("--n3", type=int, default=300)
    ap.add_argument("--n3c", type=int, default=0, help="kubectl apply --overwrite=false cases (create3c)")
    ap.add_argument("--napply", type=int, default=0, help="`smpatch apply` CLI end-to-end cases")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--smpatch", default="/work/target-godiff/release/smpatch")
    ap.add_argument("--out", default="/tmp/godiff")
    ap.add_argument("--replay", help="a mismatches.jsonl to re-run instead of generating")
    ap.add_argument("--dup-skip", type=float, default=gdgen.DUP_SKIP,
                    help="probability of avoiding duplicate merge keys (0: many duplicates)")
    ap.add_argument("--kinds", nargs="?", const="all",
                    help="base objects from kubectl-differential/kinds.py: 'all' namespaced kinds or a comma list")
    ap.add_argument("--compact", action="store_true",
                    help="write request lines and apply files as compact JSON (create3's one-text skip)")
    ap.add_argument("--big", action="store_true",
                    help="large string maps shared by or differing between the three documents (see grow)")
    ap.add_argument("--openapi-v3", action="store_true",
                    help="serve ../shared/openapi's v3 documents (core/v1, batch/v1): kubectl apply takes its "
                         "patch metadata from them, our create3 the same file (schema file + definition)")
    args = ap.parse_args()
    if args.openapi_v3:
        use_openapi_v3()
    global COMPACT
    COMPACT = args.compact
    gdgen.DUP_SKIP = args.dup_skip
    if args.kinds:
        gdgen.KINDS = gdgen.NAMESPACED_KINDS if args.kinds == "all" else args.kinds.split(",")
    os.makedirs(args.out, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="godiff-")
    _srv, port = fakeapi.serve()
    api = Api(port, workdir)

    cases = []  # (op, original, modified(manifest for create3*), current, scenario)
    apply_cases = []
    if args.replay:
        for line in open(args.replay):
            c = json.loads(line)
            if c["op"] == "cli-apply":
                apply_cases.append((c["original"], c["manifest"], c["current_plain"]))
                continue
            cases.append((c["op"], c["original"], c.get("manifest", c["modified"]), c.get("current_plain"),
                          c.get("scenario")))
    else:
        for i in range(args.n2):
            rng = random.Random(args.seed * 1_000_003 + i)
            o, m = gdgen.case2(rng, f"e{args.seed}-{i}")
            cases.append(("create2", o, m, None, None))
        for i in range(args.n3):
            rng = random.Random(args.seed * 1_000_003 + 500_000 + i)
            o, m, c = gdgen.case3(rng, f"a{args.seed}-{i}")
            if args.big:
                grow(rng, (o, m, c))
            cases.append(("create3", o, m, c, None))
        for i in range(args.n3c):
            rng = random.Random(args.seed * 1_000_003 + 700_000 + i)
            scen, o, m, c = gdgen.case3c(rng, f"a{args.seed}-{i}")
            if args.big:
                grow(rng, (o, m, c))
            cases.append(("create3c", o, m, c, scen))
        for i in range(args.napply):
            rng = random.Random(args.seed * 1_000_003 + 800_000 + i)
            o, m, c = gdgen.case3(rng, f"p{args.seed}-{i}")
            if args.big:
                grow(rng, (o, m, c))
            r = rng.random()
            if r < 0.5:
                m["metadata"].pop("namespace", None)  # kubectl fills in the context's namespace
            elif r < 0.55:
                m["metadata"]["annotations"] = gdgen.pick(rng, [None, {"n": 1, "s": "x"}, {"t": True}, "x"])
            apply_cases.append((o, m, c))

    def go(ic):
        i, (op, o, m, c, scen) = ic
        if op in ("create3", "create3c"):
            o2, m2, cur = three_way_inputs(case_name(op, args.seed, i), scen, o, m, c)
            return api.run_case(i, op, o2, m2, cur)
        o = json.loads(json.dumps(o))
        m = json.loads(json.dumps(m))
        o["metadata"]["name"] = m["metadata"]["name"] = case_name(op, args.seed, i)
        return api.run_case(i, op, o, m, None)

    with cf.ThreadPoolExecutor(args.jobs) as ex:
        theirs = list(ex.map(go, enumerate(cases)))

    # Our side, with exactly kubectl's inputs.
    reqs, inputs = [], []
    skips = collections.defaultdict(collections.Counter)
    annot_mismatch = 0
    for i, ((op, o, m, c, scen), t) in enumerate(zip(cases, theirs)):
        if op == "create2":
            o2 = json.loads(json.dumps(o))
            m2 = json.loads(json.dumps(m))
            o2["metadata"]["name"] = m2["metadata"]["name"] = case_name(op, args.seed, i)
            inputs.append((o2, m2, None))
            reqs.append(request(i, op, o2, m2, None))
        else:
            o2, m2, cur = three_way_inputs(case_name(op, args.seed, i), scen, o, m, c)
            if not cluster_scoped(m2):
                m2.setdefault("metadata", {})["namespace"] = "default"
            full = full_modified(m2)
            if t[0] == "ok":
                sent = ((t[1].get("metadata") or {}).get("annotations") or {}).get(LA) \
                    if isinstance(t[1].get("metadata"), dict) and isinstance(t[1]["metadata"].get("annotations"), dict) else None
                if isinstance(sent, str) and sent != full["metadata"]["annotations"][LA]:
                    annot_mismatch += 1
                    with open(os.path.join(args.out, "annotation-diffs.jsonl"), "a") as f:
                        f.write(json.dumps({"i": i, "kubectl": sent, "ours": full["metadata"]["annotations"][LA]}) + "\n")
                    full["metadata"]["annotations"][LA] = sent
            inputs.append((o2, full, cur))
            if COMPACT:
                shared_texts([o2, full, cur], skips[op])
            reqs.append(request(i, op, o2, full, cur))
    ours = ours_batch(args.smpatch, reqs) if reqs else {}
    for op, n in sorted(skips.items()):
        print(f"{op}: --compact cases with a subtree of >= {COMPACT_MIN} bytes whose text all three documents share:"
              f" {n['cases']} ({n['subtrees']} subtrees)")

    tally = collections.Counter()
    mism = open(os.path.join(args.out, "mismatches.jsonl"), "w")
    errpairs = collections.Counter()
    feats = collections.Counter()
    bykind = collections.defaultdict(collections.Counter)
    for i, ((op, o, m, c, scen), t) in enumerate(zip(cases, theirs)):
        us = ours.get(i, ("err", {"kind": "no_response"}))
        oo, mm, cc = inputs[i]
        cls = classify_pair(t, us)
        if cls == "both-error":
            first = t[1].splitlines()[-1][:70] if t[1] else ""
            errpairs[(op, us[1]["kind"], first)] += 1
        if cls == "MISMATCH" and (keyed_dups(oo) or keyed_dups(mm) or (cc and keyed_dups(cc))):
            cls = "dup-keys"
        if cls in ("MISMATCH", "CONFLICT-ONLY-GO", "CONFLICT-ONLY-OURS", "ERR-ONLY-GO", "ERR-ONLY-OURS") \
                and op == "create3c":
            # Go iterates maps in random order: the first conflict or error wins.
            for _ in range(4):
                t2 = go((i, cases[i]))
                if classify_pair(t2, us) in ("agree", "both-conflict", "both-error"):
                    cls = "nondet"
                    break
        elif cls == "MISMATCH":
            for _ in range(2):
                t2 = go((i, cases[i]))
                if t2[0] == "ok" and norm(t2[1]) == norm(us[1]):
                    cls = "nondet"
                    break
        tally[(op, cls)] += 1
        bykind[(op, mm.get("kind"))][cls] += 1
        if scen:
            tally[(op, f"[{scen}] {cls}")] += 1
        if cls == "agree" and (keyed_dups(oo) or keyed_dups(mm) or (cc and keyed_dups(cc))):
            tally[(op, "(agree with duplicate keys)")] += 1
        if t[0] == "ok":
            for f in features(t[1]):
                feats[(op, f)] += 1
        if cls not in ("agree", "both-error", "both-conflict") and not cls.startswith("skip"):
            mism.write(json.dumps({
                "i": i, "op": op, "class": cls, "scenario": scen, "original": oo, "modified": mm, "current": cc,
                "manifest": m, "current_plain": c, "original_plain": o, "go": t[:2], "ours": us,
                "kubectl_output": t[2][-2000:],
            }) + "\n")
        elif cls.startswith("skip"):
            with open(os.path.join(args.out, "skips.jsonl"), "a") as f:
                f.write(json.dumps({"i": i, "op": op, "why": t[1], "out": t[2][-1000:]}) + "\n")

    if apply_cases:
        with cf.ThreadPoolExecutor(args.jobs) as ex:
            res = list(ex.map(lambda ic: cli_apply_case(api, args, *ic), enumerate(apply_cases)))
        for i, ((o, m, c), (cls, detail)) in enumerate(zip(apply_cases, res)):
            tally[("cli-apply", cls)] += 1
            if cls != "agree" and not cls.startswith("skip"):
                mism.write(json.dumps({"i": i, "op": "cli-apply", "class": cls, "original": o, "manifest": m,
                                       "modified": m, "current_plain": c, "detail": detail}) + "\n")
    mism.close()
    print(f"annotation reconstructions corrected from the PATCH: {annot_mismatch}")
    for op in ("create2", "create3", "create3c", "cli-apply"):
        row = {k[1]: v for k, v in sorted(tally.items()) if k[0] == op}
        if row:
            print(op, json.dumps(row))
    print("per op and kind:")
    for (op, kind), c in sorted(bykind.items(), key=lambda x: (x[0][0], str(x[0][1]))):
        print(f"  {op:8} {str(kind):24} {json.dumps(dict(sorted(c.items())))}")
    for op in ("create2", "create3", "create3c"):
        row = {k[1]: v for k, v in sorted(feats.items()) if k[0] == op}
        if row:
            print(op, "Go patches containing:", json.dumps(row))
    print("both-error pairs (op, our kind, kubectl message):")
    for (op, kind, msg), n in sorted(errpairs.items(), key=lambda x: -x[1])[:30]:
        print(f"  {n:5d} {op} {kind:28} {msg}")


def run_cli(smpatch, args):
    r = subprocess.run([smpatch] + args, capture_output=True, text=True)
    if r.returncode != 0:
        return ("err", r.stderr.strip())
    return ("ok", json.loads(r.stdout))


def cli_apply_case(api, args, i, case):
    """`smpatch apply` end to end against `kubectl apply` (overwrite=true) and
    `kubectl patch --local --type strategic` of kubectl's PATCH onto the live
    object. Returns (class, detail)."""
    o, m, c = case
    name = f"p{args.seed}-{i}"
    o2, m2, cur = three_way_inputs(name, None, o, m, c)
    t = api.run_case(f"p{i}", "create3", o2, m2, cur)
    if t[0] == "skip":
        return ("skip-" + t[1].split()[0], None)
    if t[0] == "err" and "unable to decode" in t[1]:
        return ("skip-kubectl-decode", None)
    d = tempfile.mkdtemp(dir=api.workdir)
    mf, lf, pf = (os.path.join(d, x) for x in ("manifest.json", "live.json", "patch.json"))
    with open(mf, "w") as f:
        f.write(dumps(m2))
    with open(lf, "w") as f:
        f.write(dumps(cur))
    ours_obj = run_cli(args.smpatch, ["apply", "-f", mf, "--live", lf, "-o", "json"])
    ours_patch = run_cli(args.smpatch, ["apply", "-f", mf, "--live", lf, "--show-patch", "-o", "json"])
    detail = {"kubectl": t[:2], "ours_object": ours_obj, "ours_patch": ours_patch}
    if t[0] == "err":
        return ("both-error" if ours_obj[0] == "err" else "ERR-ONLY-GO", detail)
    gp = t[1]
    if ours_obj[0] == "err" or ours_patch[0] == "err":
        # kubectl only sends its PATCH; the server applies it. When that
        # patch fails on the live object too, both flows end in an error.
        res = api.kubectl(["patch", "--local", "-f", lf, "--type", "strategic", "-p", json.dumps(gp), "-o", "json"])
        if res.returncode != 0:
            detail["kubectl_patch"] = res.stderr[-1000:]
            return ("both-error(server-side apply of the PATCH)", detail)
        return ("ERR-ONLY-OURS", detail)
    # (c) kubectl's PATCH applied to the live object by kubectl itself.
    res = api.kubectl(["patch", "--local", "-f", lf, "--type", "strategic", "-p", json.dumps(gp), "-o", "json",
                       "--show-managed-fields"])
    if res.returncode != 0:
        detail["kubectl_patch"] = res.stderr[-1000:]
        return ("skip-kubectl-patch-local", detail)
    go_obj = json.loads(res.stdout)
    detail["kubectl_object"] = go_obj
    # (a) the annotation text.
    sent = ((gp.get("metadata") or {}).get("annotations") or {}).get(LA) \
        if isinstance(gp.get("metadata"), dict) and isinstance(gp["metadata"].get("annotations"), dict) else None
    if sent is None:
        sent = cur["metadata"]["annotations"].get(LA) if isinstance(cur["metadata"].get("annotations"), dict) else None
    mine = ((ours_obj[1].get("metadata") or {}).get("annotations") or {}).get(LA)
    bad = []
    if mine != sent:
        bad.append("annotation")
    if norm(ours_patch[1]) != norm(gp):
        bad.append("patch")
    if norm(ours_obj[1]) != norm(go_obj):
        bad.append("object")
    if bad == ["object"] and norm(drop_nulls(ours_obj[1])) == norm(drop_nulls(go_obj)):
        # Q6 (docs/DIVERGENCES.md): the reference appends new keyed-list
        # elements as sent, nulls included; smpatch cleans them.
        return ("q6-new-element-nulls", detail)
    if bad == ["object"] and norm(_kd.strip_leaks(ours_obj[1])) == norm(_kd.strip_leaks(go_obj)):
        # Q6/Q7/Q10 (docs/QUIRKS.md): the reference stores directives and
        # nulls of inserted values as data; smpatch cleans them.
        return ("leak(Q6/Q7/Q10)", detail)
    if bad == ["object"] and keyed_dups(cur):
        # Duplicate keys or finalizers in the live object: pairing and
        # order unspecified (docs/DIVERGENCES.md).
        return ("dup-keys-live", detail)
    return (("MISMATCH-" + "+".join(bad)) if bad else "agree", detail)


def drop_nulls(v):
    if isinstance(v, dict):
        return {k: drop_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [drop_nulls(x) for x in v]
    return v


if __name__ == "__main__":
    main()
