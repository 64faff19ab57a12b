#!/usr/bin/env python3
"""Assembles fuzz seeds at run time (scripts/fuzz calls this).

Usage: seeds.py OUT_DIR REPO_ROOT SHARED_DIR

Writes OUT_DIR/<target>/<n> from the repository's testdata/ and the shared
conformance cases. Nothing here is copied into the repository: the seeds
live only in OUT_DIR, which scripts/fuzz keeps outside version control.
"""
import glob
import json
import os
import sys

out, repo, shared = sys.argv[1], sys.argv[2], sys.argv[3]
seeds = {t: [] for t in ["json_roundtrip", "yaml_parse", "schema_load", "apply_raw",
                         "apply_structured", "create2_roundtrip", "create3", "compose",
                         "batch_line", "normalize",
                         "fieldsv1_read", "fieldsets_extract", "json_merge3"]}


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def case_files():
    files = sorted(glob.glob(os.path.join(shared, "conformance", "*.json")))
    files += sorted(glob.glob(os.path.join(repo, "testdata", "*", "*.json")))
    return files


line_id = 0
for path in case_files():
    doc = load(path)
    if doc is None:
        continue
    cases = doc.get("cases", []) if isinstance(doc, dict) else doc
    if not isinstance(cases, list):
        continue
    for case in cases:
        if not isinstance(case, dict):
            continue
        # value-crate cases: raw inputs for the parsers.
        if isinstance(case.get("input"), str):
            target = "yaml_parse" if "yaml" in os.path.basename(path) else "json_roundtrip"
            seeds[target].append(case["input"].encode())
        for check in case.get("checks", []):
            if not isinstance(check, dict):
                continue
            docs = {k: check[k] for k in ("original", "patch", "modified", "current") if k in check}
            for v in docs.values():
                if not isinstance(v, str):
                    seeds["json_roundtrip"].append(compact(v))
            exp = check.get("expect", {})
            if isinstance(exp, dict) and "ok" in exp:
                seeds["json_roundtrip"].append(compact(exp["ok"]))
            op = check.get("op")
            if op == "apply" and "original" in check and "patch" in check:
                o, p = check["original"], check["patch"]
                ob = o.encode() if isinstance(o, str) else compact(o)
                pb = p.encode() if isinstance(p, str) else compact(p)
                seeds["apply_raw"].append(b"\x00" + ob + b"\xff" + pb)
                seeds["apply_raw"].append(b"\x01" + ob + b"\xff" + pb)
            if not check.get("rawInputs"):
                line_id += 1
                req = {"id": line_id, "op": op, "schema": {"none": True}}
                req.update({k: v for k, v in docs.items()})
                if "overwrite" in check:
                    req["overwrite"] = check["overwrite"]
                seeds["batch_line"].append(compact(req))

for path in sorted(glob.glob(os.path.join(repo, "testdata", "cli", "*.jsonl"))):
    with open(path, "rb") as f:
        seeds["batch_line"].extend(l.rstrip(b"\n") for l in f if l.strip())
for path in sorted(glob.glob(os.path.join(repo, "testdata", "examples", "*.yaml"))) + \
        sorted(glob.glob(os.path.join(repo, "testdata", "cli", "*.yaml"))):
    with open(path, "rb") as f:
        seeds["yaml_parse"].append(f.read())
schema_files = sorted(glob.glob(os.path.join(shared, "conformance", "schemas", "*.json")))
schema_files += sorted(glob.glob(os.path.join(repo, "testdata", "schemas", "*.json")))
schema_files += sorted(glob.glob(os.path.join(shared, "openapi", "crds", "*.json")))
for path in schema_files:
    with open(path, "rb") as f:
        seeds["schema_load"].append(f.read())

# FieldsV1 sets: the expected sets of testdata/fieldsets and the managed
# fields of its live objects, plus the shared real set.
for path in sorted(glob.glob(os.path.join(repo, "testdata", "fieldsets", "*.json"))):
    doc = load(path) or {}
    for key in ("apply_set", "update_set"):
        if isinstance(doc.get(key), str):
            seeds["fieldsv1_read"].append(doc[key].encode())
    for obj in [doc.get("object")] + [x.get("object") for x in doc.get("extract", [])]:
        meta = obj.get("metadata", {}) if isinstance(obj, dict) else {}
        for e in meta.get("managedFields", []) if isinstance(meta, dict) else []:
            if isinstance(e, dict) and "fieldsV1" in e:
                seeds["fieldsv1_read"].append(compact(e["fieldsV1"]))
# Live objects of testdata/fieldsets for fieldsets_extract: byte 0 picks the
# embedded type (ConfigMap, Service, Deployment, Pod), the object follows.
kinds = {"ConfigMap": 0, "Service": 1, "Deployment": 2, "Pod": 3}
for path in sorted(glob.glob(os.path.join(repo, "testdata", "fieldsets", "*.json"))):
    doc = load(path) or {}
    for obj in [doc.get("object")] + [x.get("object") for x in doc.get("extract", [])]:
        if isinstance(obj, dict) and obj.get("kind") in kinds:
            seeds["fieldsets_extract"].append(bytes([kinds[obj["kind"]]]) + compact(obj))
podset = os.path.join(shared, "fieldsets", "podset.json")
if os.path.exists(podset):
    with open(podset, "rb") as f:
        seeds["fieldsv1_read"].append(f.read())

# Byte-driven targets: a few fixed byte strings to start from.
for t in ("apply_structured", "create2_roundtrip", "create3", "compose", "normalize",
          "json_merge3"):
    seeds[t] += [bytes(range(i, i + 64)) for i in range(0, 192, 16)]

for target, items in seeds.items():
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    for i, data in enumerate(items):
        with open(os.path.join(d, "seed-%05d" % i), "wb") as f:
            f.write(data)
    print("%s: %d seeds" % (target, len(items)))
