"""The dict path (Python objects read straight into the engine's arena, the
answer built straight from it) against the bytes path (JSON text in, JSON
text out) on the same documents: same answers, same errors, inputs never
changed, and the conversion edge cases (ints of any size, floats, bool vs
int, None, tuples, subclasses, non-str keys, depth)."""

from __future__ import annotations

import collections
import copy
import enum
import json
import math

import pytest

import smpatch
from conftest import strict_eq

NONE = smpatch.Schema.schemaless()
DEPLOY = "apps/v1/Deployment"


def text(doc) -> bytes:
    """The document as JSON text (what the bytes path is given)."""
    return json.dumps(doc, allow_nan=False).encode()


def deployment(images: list[str], replicas=2) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}, "annotations": {"big": 2**70}},
        "spec": {
            "replicas": replicas,
            "template": {"spec": {"containers": [
                {"name": f"c{i}", "image": image, "env": [{"name": "A", "value": "1"}],
                 "resources": {"limits": {"cpu": 0.5}}}
                for i, image in enumerate(images)
            ]}},
        },
    }


ORIGINAL = deployment(["nginx:1", "envoy:1", "redis:7"])
MODIFIED = deployment(["nginx:2", "redis:7"], replicas=3)
CURRENT = deployment(["nginx:1", "envoy:1", "redis:7", "extra:1"], replicas=5)
PATCH = {"spec": {"template": {"spec": {"containers": [{"name": "c0", "image": "nginx:3"}]}}}}

# (function, documents, keyword arguments)
CALLS = [
    (smpatch.apply, (ORIGINAL, PATCH), {}),
    (smpatch.apply, (ORIGINAL, {"spec": {"replicas": None}}), {}),
    (smpatch.create_two_way, (ORIGINAL, MODIFIED), {}),
    (smpatch.create_two_way, (ORIGINAL, MODIFIED), {"ignore_deletions": True}),
    (smpatch.create_three_way, (ORIGINAL, MODIFIED, CURRENT), {}),
    (smpatch.compose, (PATCH, {"spec": {"replicas": 9}}), {}),
    (smpatch.conflicts, (PATCH, {"spec": {"replicas": 9}}), {}),
    (smpatch.server_apply, (ORIGINAL, PATCH), {}),
    (smpatch.normalize, (ORIGINAL,), {}),
    (smpatch.normalize, (MODIFIED, ORIGINAL), {}),
]


@pytest.mark.parametrize("fn, docs, kwargs", CALLS, ids=lambda x: getattr(x, "__name__", None))
def test_dict_path_answers_as_the_bytes_path(fn, docs, kwargs):
    before = copy.deepcopy(docs)
    texts = [text(d) for d in docs]
    by_bytes = fn(*texts, type=DEPLOY, **kwargs)
    by_dict = fn(*docs, type=DEPLOY, **kwargs)
    assert strict_eq(by_dict, by_bytes)
    if fn is not smpatch.conflicts:
        # as_bytes: the same compact JSON from dicts and from text
        assert fn(*docs, type=DEPLOY, as_bytes=True, **kwargs) == fn(*texts, type=DEPLOY, as_bytes=True, **kwargs)
        # mixed: text and dicts in one call
        mixed = [texts[0], *docs[1:]]
        assert strict_eq(fn(*mixed, type=DEPLOY, **kwargs), by_bytes)
    assert strict_eq(list(docs), list(before)), "an input was changed"


def test_answer_shares_no_container_with_the_inputs():
    original = copy.deepcopy(ORIGINAL)
    merged = smpatch.apply(original, {}, type=DEPLOY)
    assert strict_eq(merged, ORIGINAL)
    merged["metadata"]["labels"]["x"] = "y"
    merged["spec"]["template"]["spec"]["containers"].clear()
    assert strict_eq(original, ORIGINAL)


BIG = [0, -1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64, 10**40 + 7, -(10**100) - 3, 2**1000 + 1]
FLOATS = [0.0, -0.0, 0.1, 1.0, -2.5, 1e300, 5e-324, 1.7976931348623157e308, 1e16, 1e-7, 2.0**53, 0.30000000000000004]


@pytest.mark.parametrize("value", BIG + FLOATS, ids=repr)
def test_numbers_as_the_bytes_path(value):
    doc = {"v": value, "l": [value, {"n": value}]}
    out = smpatch.apply(doc, {"w": value}, schema=NONE)
    assert strict_eq(out, {"v": value, "l": [value, {"n": value}], "w": value})
    assert repr(out["v"]) == repr(value)
    from_text = smpatch.apply(text(doc), text({"w": value}), schema=NONE)
    assert strict_eq(out, from_text)
    # create: the same number on both sides is no change, a different kind is
    assert smpatch.create_two_way(doc, copy.deepcopy(doc), schema=NONE) == {}


def test_bool_is_not_int_and_int_is_not_float():
    o = {"a": 1, "b": 1.0, "c": True, "d": 0, "e": False, "f": None}
    m = {"a": True, "b": 1, "c": 1, "d": False, "e": 0, "f": None}
    p = smpatch.create_two_way(o, m, schema=NONE)
    assert strict_eq(p, {"a": True, "b": 1, "c": 1, "d": False, "e": 0})
    assert strict_eq(p, smpatch.create_two_way(text(o), text(m), schema=NONE))
    assert strict_eq(smpatch.apply(o, p, schema=NONE), m)
    assert smpatch.apply(o, {}, schema=NONE, as_bytes=True) == b'{"a":1,"b":1.0,"c":true,"d":0,"e":false,"f":null}'


def test_none_documents_are_empty_objects():
    assert smpatch.create_two_way(None, {"a": 1}, schema=NONE) == {"a": 1}
    assert smpatch.apply(None, {"a": 1}, schema=NONE) == {"a": 1}
    assert smpatch.create_three_way(None, {"a": 1}, None, schema=NONE) == {"a": 1}


class MyDict(dict):
    def items(self):  # not used: the dict's own entries are read
        raise AssertionError("items() called")

    def __iter__(self):
        raise AssertionError("__iter__ called")


class MyList(list):
    def __iter__(self):
        raise AssertionError("__iter__ called")


class MyStr(str):
    def __str__(self):
        return "not used"


class MyInt(int):
    def __repr__(self):
        return "not used"


class MyFloat(float):
    def __repr__(self):
        return "not used"


class Color(str, enum.Enum):
    RED = "red"


class Port(enum.IntEnum):
    HTTP = 80
    HUGE = 2**70


def test_subclasses_are_read_as_their_base_type():
    doc = MyDict({
        MyStr("key"): MyStr("value"),
        "list": MyList([MyInt(7), MyFloat(2.5), Color.RED, Port.HTTP, Port.HUGE, True]),
        "ordered": collections.OrderedDict([("z", 1), ("a", 2)]),
        "default": collections.defaultdict(list, {"x": [1]}),
        "tuple": (1, (2, "x")),
    })
    expected = {"key": "value", "list": [7, 2.5, "red", 80, 2**70, True], "ordered": {"z": 1, "a": 2},
                "default": {"x": [1]}, "tuple": [1, [2, "x"]]}
    out = smpatch.apply(doc, {}, schema=NONE)
    assert strict_eq(out, expected)
    assert list(out["ordered"]) == ["z", "a"], "member order is kept"
    assert smpatch.create_two_way(doc, expected, schema=NONE) == {}


@pytest.mark.parametrize(
    "bad, path, fragment",
    [
        ({"a": {1: "x"}}, "/a", "keys must be str, not int"),
        ({"a": [{None: 1}]}, "/a/0", "keys must be str, not NoneType"),
        ({"a": {True: 1}}, "/a", "keys must be str, not bool"),
        ({"a": {("t",): 1}}, "/a", "keys must be str, not tuple"),
        ({"a": {"b": math.nan}}, "/a/b", "not a JSON number"),
        ({"a": [0, -math.inf]}, "/a/1", "not a JSON number"),
        ({"k/~": [object()]}, "/k~1~0/0", "object is not a JSON value"),
        ({"a": "\udc00x"}, "/a", "lone surrogate"),
        ({"a": {"\ud800": 1}}, "/a", "lone surrogate"),
    ],
)
@pytest.mark.parametrize("role", [0, 1, 2])
def test_bad_values_name_document_and_path(bad, path, fragment, role):
    docs = [{}, {}, {}]
    docs[role] = bad
    with pytest.raises(smpatch.Error) as info:
        smpatch.create_three_way(*docs, schema=NONE)
    e = info.value
    assert (e.kind, e.path) == ("invalid_document", path), repr(e)
    assert fragment in e.message and ["original", "modified", "current"][role] in e.message


def nested(levels: int):
    doc: dict = {}
    node = doc
    for _ in range(levels):
        node["a"] = {}
        node = node["a"]
    return doc


@pytest.mark.parametrize("fn", [smpatch.apply, smpatch.create_two_way, smpatch.compose, smpatch.normalize])
def test_depth_limit_on_every_tree_operation(fn):
    args = (nested(255),) if fn is smpatch.normalize else (nested(255), {})
    assert fn(*args, schema=NONE) is not None
    deep = (nested(300),) if fn is smpatch.normalize else ({}, nested(300))
    with pytest.raises(smpatch.Error) as info:
        fn(*deep, schema=NONE)
    assert (info.value.kind, info.value.path) == ("too_deep", "/a" * 256)


def test_cycles_through_lists_tuples_and_dicts_are_too_deep():
    d: dict = {}
    d["l"] = [(d,)]
    with pytest.raises(smpatch.Error) as info:
        smpatch.create_two_way({}, d, schema=NONE)
    assert info.value.kind == "too_deep" and info.value.path.startswith("/l/0/0/l/0/0/")


def test_engine_max_depth_applies_to_dicts():
    doc = nested(20)
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply({}, doc, schema=NONE, max_depth=10)
    assert info.value.kind == "too_deep"
    with pytest.raises(smpatch.Error) as by_text:
        smpatch.apply(b"{}", text(doc), schema=NONE, max_depth=10)
    assert (info.value.kind, info.value.path) == (by_text.value.kind, by_text.value.path)


def test_top_level_that_is_not_an_object():
    for doc in ([1], 5, "x", 1.5, True, (1,)):
        if isinstance(doc, str):
            continue
        with pytest.raises(smpatch.Error) as info:
            smpatch.create_two_way({}, doc, schema=NONE)
        assert info.value.kind == "invalid_document" and "top level" in info.value.message


def test_unicode_and_escapes_round_trip():
    keys = ["", "é", "𝄞", "a\"b", "\\", "\n\t\x00\x1f\x7f", "\u2028", "~/"]
    doc = {k: {k: [k]} for k in keys}
    out = smpatch.apply(doc, {}, schema=NONE)
    assert strict_eq(out, doc)
    assert strict_eq(json.loads(smpatch.apply(doc, {}, schema=NONE, as_bytes=True)), doc)


def test_answer_keys_are_str():
    out = smpatch.apply({MyStr("k"): 1}, {"j": 2}, schema=NONE)
    assert [type(k) for k in out] == [str, str] and out == {"k": 1, "j": 2}
    assert type(smpatch.apply({"v": MyStr("s")}, {}, schema=NONE)["v"]) is str


@pytest.mark.parametrize("depth", [8, 9, 10, 11, 12])
@pytest.mark.parametrize("which", ["original", "modified"])
def test_max_depth_holds_for_every_document_as_for_text(depth, which):
    # max_depth is the engine's limit (text is parsed with the default depth,
    # raised but never lowered to it): a dict document gives the outcome its
    # text gives, whichever document is deep.
    doc = nested(depth)
    docs = {"original": {}, "modified": {}}
    docs[which] = doc

    def outcome(as_text):
        args = {k: (text(v) if as_text else v) for k, v in docs.items()}
        try:
            return smpatch.create_two_way(args["original"], args["modified"],
                                          schema=NONE, max_depth=10)
        except smpatch.Error as e:
            return (e.kind, e.path)

    assert outcome(False) == outcome(True)


def test_first_bad_document_in_argument_order_is_reported():
    bad_dict = {"a": float("nan")}
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply(bad_dict, "a: [", schema=NONE)
    assert "original" in str(info.value)
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply("a: [", bad_dict, schema=NONE)
    assert "original" in str(info.value)


def test_bytearray_text_takes_the_bytes_path():
    doc = deployment(["a"])
    out = smpatch.apply(bytearray(text(doc)), bytearray(b"{}"), as_bytes=True, schema=NONE)
    assert json.loads(out) == json.loads(text(doc))
