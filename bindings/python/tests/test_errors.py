"""Errors: one exception family (smpatch.Error, a ValueError) with a stable
kind, a JSON pointer and a message; bad Python input is located too."""

from __future__ import annotations

import math
import pickle

import pytest

import smpatch

NONE = smpatch.Schema.schemaless()
DEPLOY = "apps/v1/Deployment"


def raises(kind: str, path: str, fn, *args, **kwargs) -> smpatch.Error:
    with pytest.raises(smpatch.Error) as info:
        fn(*args, **kwargs)
    e = info.value
    assert (e.kind, e.path) == (kind, path), repr(e)
    assert isinstance(e, ValueError)
    assert e.message and str(e) == f"{path or '/'}: {e.message}"
    return e


def test_patch_error_names_kind_and_pointer():
    patch = {"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}
    live = {"spec": {"template": {"spec": {"containers": [{"name": "web"}]}}}}
    e = raises("missing_merge_key", "/spec/template/spec/containers/0", smpatch.apply, live, patch, type=DEPLOY)
    assert "does not contain declared merge key" in e.message


def test_unknown_patch_type():
    raises("unknown_patch_type", "/spec/$patch", smpatch.apply,
           {"spec": {"replicas": 1}}, {"spec": {"$patch": "frobnicate"}}, type=DEPLOY)


def test_unknown_type_and_undetectable_type():
    raises("unknown_type", "", smpatch.apply, {}, {}, type="example.com/v1/Nope")
    raises("unknown_type", "", smpatch.apply, {"a": 1}, {})
    raises("unknown_type", "", smpatch.apply, {"apiVersion": "x/v1", "kind": "Nope"}, {})


def test_top_level_must_be_an_object():
    raises("invalid_document", "", smpatch.apply, [1, 2], {}, schema=NONE)
    raises("invalid_document", "", smpatch.apply, 5, {}, schema=NONE)
    raises("invalid_document", "", smpatch.apply, '"text"', {}, schema=NONE)


def test_empty_text_is_an_error_for_apply():
    raises("invalid_document", "", smpatch.apply, "", {}, schema=NONE)
    raises("invalid_document", "", smpatch.apply, "  \n", {}, schema=NONE)


def test_invalid_json_and_yaml_text():
    e = raises("invalid_document", "/a/1", smpatch.apply, '{"a": [1, }', {}, schema=NONE)
    assert "original" in e.message
    raises("invalid_document", "", smpatch.apply, "a: 1\n---\nb: 2\n", {}, schema=NONE)
    e = raises("invalid_document", "", smpatch.apply, b"a: \xff\n", {}, schema=NONE)
    assert "UTF-8" in e.message


@pytest.mark.parametrize(
    "bad, path, fragment",
    [
        ({"a": {"b": math.nan}}, "/a/b", "not a JSON number"),
        ({"a": [1, math.inf]}, "/a/1", "not a JSON number"),
        ({"a": {1: "x"}}, "/a", "keys must be str"),
        ({"a/b": {"c~d": {1, 2}}}, "/a~1b/c~0d", "set is not a JSON value"),
        ({"a": [b"bytes"]}, "/a/0", "bytes is not a JSON value"),
        ({"a": "\ud800"}, "/a", "lone surrogate"),
    ],
)
def test_bad_python_values_are_located(bad, path, fragment):
    for fn, args in ((smpatch.apply, (bad, {})), (smpatch.apply, ({}, bad)), (smpatch.create_two_way, ({}, bad))):
        e = raises("invalid_document", path, fn, *args, schema=NONE)
        assert fragment in e.message


def test_deep_and_cyclic_structures_are_refused_not_crashing():
    deep: dict = {}
    node = deep
    for _ in range(300):
        node["a"] = {}
        node = node["a"]
    e = raises("too_deep", "/a" * 256, smpatch.apply, deep, {}, schema=NONE)
    assert "256" in e.message
    cyclic: dict = {}
    cyclic["self"] = cyclic
    raises("too_deep", "/self" * 256, smpatch.apply, {}, cyclic, schema=NONE)
    loop: list = []
    loop.append(loop)
    raises("too_deep", "/x" + "/0" * 255, smpatch.apply, {"x": loop}, {}, schema=NONE)


def test_depth_at_the_limit_is_fine():
    doc: dict = {}
    node = doc
    for _ in range(255):
        node["a"] = {}
        node = node["a"]
    assert smpatch.apply(doc, {}, schema=NONE) == doc


def test_python_errors_from_inside_values_propagate():
    import sys

    if not hasattr(sys, "set_int_max_str_digits"):
        pytest.skip("no int digit limit before Python 3.11")
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(1000)
    try:
        with pytest.raises(ValueError):
            smpatch.apply({"a": 10**2000}, {}, schema=NONE)
    finally:
        sys.set_int_max_str_digits(old)


def test_schema_load_errors():
    raises("io", "/no/such/schema.json", smpatch.Schema.load, "/no/such/schema.json")
    with pytest.raises(TypeError):
        smpatch.Schema.load(42)


def test_conflict_is_an_error_and_pickles():
    with pytest.raises(smpatch.Conflict) as info:
        smpatch.create_three_way({"data": {"a": "1"}}, {"data": {"a": "2"}}, {"data": {"a": "3"}},
                                 type="v1/ConfigMap", overwrite=False)
    e = info.value
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is smpatch.Conflict and (again.kind, again.path, again.message) == (e.kind, e.path, e.message)
    assert "Conflict(" in repr(e)


def test_errors_leave_inputs_untouched():
    live = {"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "1"}]}}}}
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "2"}, {"image": "3"}]}}}}
    before = (repr(live), repr(patch))
    raises("missing_merge_key", "/spec/template/spec/containers/1", smpatch.apply, live, patch, type=DEPLOY)
    assert (repr(live), repr(patch)) == before


def test_unknown_type_names_the_keyword_arguments():
    # A document without apiVersion/kind: Python's fix, not the Rust TypeRef forms.
    e = raises("unknown_type", "", smpatch.apply, {"spec": {}}, {})
    assert e.message.startswith("cannot tell the document's type: no apiVersion and kind; add them"), e.message
    assert 'type="group/version/Kind"' in e.message and "Schema.schemaless()" in e.message, e.message
    assert "TypeRef" not in e.message, e.message
    # A kind no schema defines: the keyword arguments that add or name it.
    e = raises("unknown_type", "", smpatch.apply, {"apiVersion": "x.io/v1", "kind": "Nope"}, {})
    assert "Schema.load(path, builtin=True)" in e.message, e.message


def test_yaml_errors_say_the_pointer_once():
    e = raises("invalid_document", "/not/1", smpatch.apply, "not: [valid", {}, schema=NONE)
    assert e.message.count("/not/1") == 0, e.message
    assert "line 1 column 12" in e.message, e.message
    e = raises("invalid_document", "", smpatch.apply, 5, {}, schema=NONE)
    assert "not an int" in e.message, e.message
