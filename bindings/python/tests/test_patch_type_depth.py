"""`patch_type=` of `apply` and `create_three_way` (the names and meaning of
`smpatch apply --type`: strategic, merge, auto; kubectl's three-way JSON
merge patch for kinds without a Go type, kubernetes/kubernetes#58414), and
the depth limit of documents given as Python objects (the call's
`max_depth` when above the default of 256): a clean `too_deep` error naming
the path and the limit on both sides of it, on every thread."""

from __future__ import annotations

import copy
import json
import sys
import threading

import pytest

import smpatch
from conftest import strict_eq

NONE = smpatch.Schema.schemaless()


def widget(spec: dict) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


def deployment(containers: list) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"template": {"spec": {"containers": containers}}}}


def text(doc) -> bytes:
    return json.dumps(doc).encode()


# The documents as dicts and as text (the arena path and the bytes path).
FORMS = [lambda d: d, text]


@pytest.mark.parametrize("form", FORMS)
def test_create_three_way_merge_is_kubectls_three_way_json_merge_patch(form):
    o = widget({"a": 1, "tags": ["x"]})
    m = widget({"tags": ["y"]})
    c = widget({"a": 1, "b": 2, "tags": ["x", "z"]})
    docs = [copy.deepcopy(d) for d in (o, m, c)]
    want = {"spec": {"a": None, "tags": ["y"]}}
    for patch_type in ("merge", "auto"):
        for as_bytes in (False, True):
            out = smpatch.create_three_way(form(o), form(m), form(c), patch_type=patch_type,
                                           as_bytes=as_bytes)
            assert (json.loads(out) if as_bytes else out) == want, (patch_type, as_bytes)
    assert [o, m, c] == docs, "inputs unchanged"
    # Strategic (the default) on a kind the embedded schema lacks.
    for kwargs in ({}, {"patch_type": "strategic"}):
        with pytest.raises(smpatch.Error) as info:
            smpatch.create_three_way(form(o), form(m), form(c), **kwargs)
        assert info.value.kind == "unknown_type"
    # No conflict check in merge mode: overwrite does not apply (as kubectl).
    drifted = widget({"a": 5})
    assert smpatch.create_three_way(form(widget({"a": 1})), form(widget({"a": 2})), form(drifted),
                                    overwrite=False, patch_type="merge") == {"spec": {"a": 2}}


@pytest.mark.parametrize("form", FORMS)
def test_auto_is_strategic_for_builtin_kinds(form):
    c = lambda name, image: {"name": name, "image": image}  # noqa: E731
    o = deployment([c("a", "1")])
    m = deployment([c("a", "2")])
    cur = deployment([c("a", "1"), c("b", "1")])
    auto = smpatch.create_three_way(form(o), form(m), form(cur), patch_type="auto")
    assert auto == smpatch.create_three_way(form(o), form(m), form(cur))
    merge = smpatch.create_three_way(form(o), form(m), form(cur), patch_type="merge")
    assert merge == {"spec": {"template": {"spec": {"containers": [c("a", "2")]}}}}
    assert auto != merge
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"}}
    assert smpatch.apply(form(cm), form({"data": {"b": "2"}}), patch_type="auto")["data"] == {"a": "1", "b": "2"}


@pytest.mark.parametrize("form", FORMS)
def test_apply_merge_is_the_api_servers_json_merge(form):
    live = widget({"l": [1, 2], "a": 1, "b": {"c": 1, "d": 2}})
    patch = {"spec": {"l": [3], "a": None, "b": {"c": None}}}
    want = widget({"l": [3], "b": {"d": 2}})
    for patch_type in ("merge", "auto"):
        assert smpatch.apply(form(live), form(patch), patch_type=patch_type) == want
    # No schema read, no type needed: a document without apiVersion/kind.
    assert smpatch.apply(form({"x": [1]}), form({"x": [{"y": None, "z": 1}]}),
                         patch_type="auto") == {"x": [{"z": 1}]}
    # Big integers stay exact.
    out = smpatch.apply(form({"n": 1}), form({"n": 12345678901234567890123}), patch_type="merge",
                        as_bytes=True)
    assert out == b'{"n":12345678901234567890123}'


@pytest.mark.parametrize("bad", ["json", "Merge", "", "strategic "])
def test_unknown_patch_type_is_an_error(bad):
    for call in (lambda: smpatch.apply({}, {}, patch_type=bad),
                 lambda: smpatch.create_three_way({}, {}, {}, patch_type=bad)):
        with pytest.raises(smpatch.Error) as info:
            call()
        e = info.value
        assert (e.kind, e.path) == ("invalid_request", "")
        assert repr(bad) in e.message or json.dumps(bad) in e.message
        assert "strategic, merge or auto" in e.message
        assert isinstance(e, ValueError)
    with pytest.raises(TypeError):
        smpatch.apply({}, {}, patch_type=None)


def test_server_apply_and_other_calls_take_no_patch_type():
    for call in (lambda: smpatch.server_apply({}, {}, patch_type="merge"),
                 lambda: smpatch.create_two_way({}, {}, patch_type="merge")):
        with pytest.raises(TypeError):
            call()


def nested(levels: int) -> dict:
    doc: dict = {}
    node = doc
    for _ in range(levels):
        node["a"] = {}
        node = node["a"]
    return doc


def depth_error(call) -> smpatch.Error:
    with pytest.raises(smpatch.Error) as info:
        call()
    return info.value


def test_the_default_limit_is_256_levels():
    assert smpatch.apply(nested(255), {}, schema=NONE) == nested(255)
    e = depth_error(lambda: smpatch.apply({}, nested(256), schema=NONE))
    assert (e.kind, e.path) == ("too_deep", "/a" * 256)
    assert "256" in e.message and "max_depth" in e.message


@pytest.mark.parametrize("limit", [300, 2000])
def test_max_depth_above_the_default_raises_the_limit_of_dicts(limit):
    # Every tree call (merge, create, union normalization) and the bytes-only
    # ones (fields) follow the call's max_depth, on both sides of it.
    calls = {
        "apply": lambda d: smpatch.apply({}, d, schema=NONE, max_depth=limit),
        "create_two_way": lambda d: smpatch.create_two_way({}, d, schema=NONE, max_depth=limit),
        "create_three_way": lambda d: smpatch.create_three_way({}, d, {}, schema=NONE,
                                                               max_depth=limit),
        "merge": lambda d: smpatch.apply({}, d, patch_type="merge", max_depth=limit),
    }
    if limit <= 512:
        # Field sets stop at 512 levels whatever max_depth says (their own cap).
        calls["fields"] = lambda d: smpatch.fields(d, schema=NONE, max_depth=limit)
    for name, call in calls.items():
        # At the limit: fine (a created patch may add no level here).
        assert call(nested(limit - 1)) is not None, name
        e = depth_error(lambda: call(nested(limit + 5)))
        assert e.kind == "too_deep", (name, e)
        assert e.path.startswith("/a" * min(limit, 200)), name
        if name != "fields":
            # The reader's own error: at the limit, naming it.
            assert e.path == "/a" * limit and str(limit) in e.message, (name, e.message)


def test_max_depth_below_the_default_is_the_engines_limit_as_for_text():
    doc = nested(20)
    by_dict = depth_error(lambda: smpatch.apply({}, doc, schema=NONE, max_depth=10))
    by_text = depth_error(lambda: smpatch.apply(b"{}", text(doc), schema=NONE, max_depth=10))
    assert (by_dict.kind, by_dict.path) == (by_text.kind, by_text.path) == ("too_deep", by_text.path)


def test_cycles_are_refused_at_a_raised_limit():
    # A structure that contains itself is refused once it passes the default
    # depth of 256, whatever max_depth allows (with max_depth=10**9 it used to
    # be read until memory ran out; review finding).
    cyclic: dict = {}
    cyclic["self"] = cyclic
    for limit in (3000, 10**9):
        e = depth_error(lambda: smpatch.apply({}, cyclic, schema=NONE, max_depth=limit))
        assert (e.kind, e.path) == ("invalid_document", "/self" * 257)
        assert "a dict that contains itself" in e.message
    loop: list = []
    loop.append(loop)
    e = depth_error(lambda: smpatch.create_two_way({"x": loop}, {}, schema=NONE, max_depth=10**9))
    assert (e.kind, e.path) == ("invalid_document", "/x" + "/0" * 256)
    assert "a list that contains itself" in e.message
    # Under the default limit a cycle is still too deep at 256 levels.
    e = depth_error(lambda: smpatch.apply({}, cyclic, schema=NONE))
    assert (e.kind, e.path) == ("too_deep", "/self" * 256)
    # The same dict twice, side by side, is no cycle.
    shared = {"a": 1}
    deep = shared
    for _ in range(300):
        deep = {"d": deep, "e": shared}
    assert smpatch.apply({}, deep, schema=NONE, max_depth=1000)["e"] == {"a": 1}


def test_deep_documents_do_not_overflow_a_small_thread_stack():
    # 20,000 levels read, merged and built back on a thread with a 256 KiB
    # stack: the walks grow their stack instead of overflowing it.
    levels = 20_000
    doc = nested(levels)
    results: list = []

    def run():
        try:
            out = smpatch.apply({}, doc, schema=NONE, max_depth=levels + 1)
            depth, node = 0, out
            while node:
                node, depth = node["a"], depth + 1
            results.append(depth)
            results.append(depth_error(
                lambda: smpatch.apply({}, nested(levels + 1), schema=NONE, max_depth=levels)).kind)
        except BaseException as e:  # noqa: BLE001 - reported below
            results.append(e)

    old = threading.stack_size(256 * 1024)
    try:
        t = threading.Thread(target=run)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert results == [levels, "too_deep"]
    del doc
    assert sys.getrecursionlimit() > 0
