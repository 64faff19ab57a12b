"""Threads: the merge runs without the GIL and a Schema is shared. Eight
threads run mixed operations on shared schemas and check every result
against the answer computed on one thread beforehand."""

from __future__ import annotations

import copy
import threading

import smpatch
from conftest import REPO, strict_eq

THREADS = 8
ROUNDS = 40


def deployment(n_containers: int, image: str) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": 3,
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": f"c{i}",
                            "image": f"{image}:{i}",
                            "env": [{"name": f"E{j}", "value": str(j * 2**70)} for j in range(20)],
                        }
                        for i in range(n_containers)
                    ]
                }
            },
        },
    }


def operations(embedded: smpatch.Schema, loaded: smpatch.Schema):
    """(name, thunk) pairs; each thunk returns a result (or the exception it raised)."""
    base = deployment(10, "nginx")
    changed = copy.deepcopy(base)
    changed["spec"]["template"]["spec"]["containers"][3]["image"] = "nginx:new"
    del changed["spec"]["template"]["spec"]["containers"][7]
    changed["spec"]["replicas"] = 2**64
    live = copy.deepcopy(base)
    live["spec"]["replicas"] = 5
    patch = smpatch.create_two_way(base, changed, schema=embedded)
    cm = "v1/ConfigMap"
    plc = (REPO / "testdata" / "unions" / "k8s" / "plc-limited.yaml").read_text()
    plc_both = (REPO / "testdata" / "unions" / "k8s" / "plc-limited-and-exempt.yaml").read_text()
    owned = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": [
        {"manager": "m", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {"f:a": {}}}}]}, "data": {"a": str(2**80), "b": "2"}}

    def catch(fn, *a, **k):
        try:
            return fn(*a, **k)
        except smpatch.Error as e:
            return (type(e).__name__, e.kind, e.path)

    return [
        ("apply", lambda: smpatch.apply(base, patch, schema=embedded)),
        ("apply_bytes", lambda: smpatch.apply(base, patch, schema=embedded, as_bytes=True)),
        ("create2", lambda: smpatch.create_two_way(base, changed, schema=embedded)),
        ("create3", lambda: smpatch.create_three_way(base, changed, live, schema=embedded)),
        ("conflict", lambda: catch(smpatch.create_three_way, {"data": {"a": "1"}}, {"data": {"a": "2"}},
                                   {"data": {"a": "3"}}, schema=embedded, type=cm, overwrite=False)),
        ("conflicts", lambda: smpatch.conflicts(patch, {"spec": {"replicas": 1}}, schema=embedded,
                                                type="apps/v1/Deployment")),
        ("compose", lambda: smpatch.compose({"data": {"a": "1"}}, {"data": {"b": 2**90}}, schema=embedded, type=cm)),
        ("loaded", lambda: smpatch.apply({"items": [{"id": 1, "a": 1}, {"id": 2}]}, {"items": [{"id": 1, "b": 2}]},
                                         schema=loaded, type="Widget")),
        ("error", lambda: catch(smpatch.apply, base, {"spec": {"$patch": "nope"}}, schema=embedded)),
        ("default_schema", lambda: smpatch.apply(base, patch)),
        ("server_apply", lambda: smpatch.server_apply(plc, {"spec": {"type": "Exempt", "exempt": {}}},
                                                      schema=embedded)),
        ("normalize_invalid", lambda: catch(smpatch.normalize, plc_both, plc, schema=embedded)),
        ("validate", lambda: smpatch.validate(plc_both, schema=embedded)),
        ("fields", lambda: smpatch.fields(base, schema=embedded)),
        ("extract", lambda: smpatch.extract(owned, "m", schema=embedded)),
    ]


def test_eight_threads_of_mixed_operations_share_schemas():
    embedded = smpatch.Schema.embedded()
    loaded = smpatch.Schema.load(REPO / "testdata/schemas/widget.v2.json")
    ops = operations(embedded, loaded)
    expected = {name: fn() for name, fn in ops}
    assert expected["conflict"][:2] == ("Conflict", "conflict")
    assert expected["error"][1] == "unknown_patch_type"
    assert expected["loaded"] == {"items": [{"id": 1, "a": 1, "b": 2}, {"id": 2}]}
    barrier = threading.Barrier(THREADS)
    failures: list[str] = []
    counts = [0] * THREADS

    def worker(index: int) -> None:
        barrier.wait()
        for r in range(ROUNDS):
            name, fn = ops[(index + r) % len(ops)]
            try:
                got = fn()
            except BaseException as e:  # noqa: BLE001 - every failure is reported
                failures.append(f"thread {index} round {r} {name}: raised {e!r}")
                continue
            if not strict_eq(got, expected[name]):
                failures.append(f"thread {index} round {r} {name}: wrong result")
            counts[index] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert counts == [ROUNDS] * THREADS
