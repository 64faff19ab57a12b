"""The options of the union pass (``ratcheting``, ``check_enums``,
``non_discriminated_update``, ``max_depth``) mean in Python what they mean at
every other entry point: the cases of testdata/unions/options.json (shared
with the Rust facade, batch and CLI tests) through ``server_apply``, through
``apply`` then ``normalize``, and through ``validate``; and depth: the same
default (256) for reading dicts, text and the union pass, ``too_deep``
naming the path and the limit, raised by ``max_depth`` without a crash."""

from __future__ import annotations

import copy
import json

import pytest

import smpatch
from conftest import REPO

UNIONS = REPO / "testdata" / "unions"
DOC = json.loads((UNIONS / "options.json").read_text())
SCHEMA = smpatch.Schema.load(UNIONS / DOC["schema"])
TYPE = DOC["definition"]
CASES = DOC["cases"]


def answer(call):
    """The case's expected shape of a call's result or error."""
    try:
        obj, cleared = call()
    except smpatch.Error as e:
        out = {"error": e.kind, "path": e.path}
        if e.violations:
            out["violations"] = [[v["path"], v["rule"]] for v in e.violations]
        return out
    return {"ok": obj, "cleared": cleared}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case_through_server_apply_and_apply_then_normalize(case):
    live, patch, opts = case["live"], case["patch"], case["options"]
    before = copy.deepcopy((live, patch))
    got = answer(lambda: smpatch.server_apply(live, patch, schema=SCHEMA, type=TYPE, **opts))
    assert got == case["expect"]

    def two_steps():
        depth = {k: v for k, v in opts.items() if k == "max_depth"}
        merged = smpatch.apply(live, patch, schema=SCHEMA, type=TYPE, **depth)
        return smpatch.normalize(merged, live, schema=SCHEMA, type=TYPE, **opts)

    assert answer(two_steps) == case["expect"]
    assert (live, patch) == before, "inputs unchanged"


@pytest.mark.parametrize("case", [c for c in CASES if c["expect"].get("cleared") == []
                                  or c["expect"].get("error") == "validation"],
                         ids=lambda c: c["name"])
def test_case_through_validate(case):
    # validate judges the merged object as written: where the pass clears
    # nothing, it answers what the pipeline does.
    merged = smpatch.apply(case["live"], case["patch"], schema=SCHEMA, type=TYPE)
    found = smpatch.validate(merged, case["live"], schema=SCHEMA, type=TYPE, **case["options"])
    assert [[v["path"], v["rule"]] for v in found] == case["expect"].get("violations", [])


RECURSIVE = {"swagger": "2.0", "definitions": {"Node": {"type": "object", "properties": {
    "type": {"type": "string", "enum": ["A", "B", ""],
             "x-kubernetes-unions": {"fieldMembers": {"A": {"name": "a", "optional": True},
                                                      "B": {"name": "b", "optional": True},
                                                      "": None}}},
    "a": {"$ref": "#/definitions/Node"}, "b": {"$ref": "#/definitions/Node"}}}}}


def chain(depth: int) -> dict:
    node = {"type": "B", "b": {}}
    for _ in range(depth - 1):
        node = {"type": "A", "a": node}
    return node


@pytest.fixture(scope="module")
def recursive(tmp_path_factory):
    path = tmp_path_factory.mktemp("unions") / "recursive.json"
    path.write_text(json.dumps(RECURSIVE))
    return smpatch.Schema.load(path)


@pytest.mark.parametrize("form", ["dict", "text"])
def test_union_depth_default_is_256_for_dicts_and_text(recursive, form):
    deep = chain(300)
    doc = deep if form == "dict" else json.dumps(deep)
    for call in (lambda **kw: smpatch.normalize(doc, schema=recursive, type="Node", **kw),
                 lambda **kw: smpatch.validate(doc, schema=recursive, type="Node", **kw),
                 lambda **kw: smpatch.server_apply({}, doc, schema=recursive, type="Node", **kw)):
        with pytest.raises(smpatch.Error) as info:
            call()
        assert info.value.kind == "too_deep"
        assert "256" in str(info.value)
        if form == "dict":
            assert info.value.path.startswith("/a/a/a/")
        call(max_depth=1000)  # raised: walked all the way


def test_union_depth_below_the_default_is_the_walks_own_limit(recursive):
    with pytest.raises(smpatch.Error) as info:
        smpatch.normalize(chain(10), schema=recursive, type="Node", max_depth=5)
    assert info.value.kind == "too_deep"
    assert info.value.path == "/a/a/a/a/a"
    assert "limit of 5 levels" in str(info.value)


def test_union_depth_far_above_the_default_does_not_crash(recursive):
    n = 20_000  # as text: json.dumps would pass Python's own recursion limit
    deep = '{"type":"A","a":' * (n - 1) + '{"type":"B","b":{}}' + "}" * (n - 1)
    assert smpatch.validate(deep, schema=recursive, type="Node", max_depth=30_000) == []
    obj, cleared = smpatch.normalize(deep, schema=recursive, type="Node", max_depth=30_000,
                                     as_bytes=True)
    assert cleared == [] and obj == deep.encode()
