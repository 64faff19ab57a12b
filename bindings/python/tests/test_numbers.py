"""Exact numbers both ways: ints of any size never pass through a float,
floats come back as the same float, and int, float and bool stay apart."""

from __future__ import annotations

import enum
import math
import random
import struct

import pytest

import smpatch
from conftest import strict_eq

NONE = smpatch.Schema.schemaless()

BIG = [
    0, -1, 2**31 - 1, 2**53 + 1, 2**63 - 1, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**64) - 1,
    10**40 + 7, -(10**100) - 3, 2**1000 + 1,
]


@pytest.mark.parametrize("n", BIG)
def test_ints_of_any_size_round_trip(n):
    out = smpatch.apply({"keep": n, "list": [n]}, {"new": n}, schema=NONE)
    assert strict_eq(out, {"keep": n, "list": [n], "new": n})
    assert smpatch.apply({}, {"new": n}, schema=NONE, as_bytes=True) == f'{{"new":{n}}}'.encode()


def test_int_text_beyond_i64_comes_back_as_int():
    out = smpatch.apply('{"a": 123456789012345678901234567890}', "{}", schema=NONE)
    assert out == {"a": 123456789012345678901234567890} and type(out["a"]) is int


def random_floats(count: int) -> list[float]:
    rng = random.Random(14)
    out = []
    while len(out) < count:
        f = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(f):
            out.append(f)
    return out


FLOATS = [0.0, -0.0, 0.1, 1.0, -2.5, 1e300, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
          3.4028234663852886e38, 1e16, 1e-7, 123456789.125, 2.0**53]


def test_floats_round_trip_exactly():
    values = FLOATS + random_floats(2000)
    out = smpatch.apply({"v": values}, {}, schema=NONE)["v"]
    assert len(out) == len(values)
    for before, after in zip(values, out):
        assert type(after) is float and repr(after) == repr(before)
    # and through bytes: the literal reads back as the same float
    raw = smpatch.apply({"v": values}, {}, schema=NONE, as_bytes=True)
    import json

    assert [repr(f) for f in json.loads(raw)["v"]] == [repr(f) for f in values]


def test_int_float_bool_stay_apart():
    doc = {"i": 1, "f": 1.0, "b": True, "z": 0, "zf": 0.0, "n": False}
    out = smpatch.apply(doc, {}, schema=NONE)
    assert strict_eq(out, doc)
    assert smpatch.apply(doc, {}, schema=NONE, as_bytes=True) == (
        b'{"i":1,"f":1.0,"b":true,"z":0,"zf":0.0,"n":false}'
    )


def test_int_subclasses_are_ints():
    class Port(enum.IntEnum):
        HTTP = 80
        HUGE = 2**70

    out = smpatch.apply({"p": Port.HTTP, "q": Port.HUGE}, {}, schema=NONE)
    assert strict_eq(out, {"p": 80, "q": 2**70})


def test_patch_creation_keeps_big_numbers():
    o = {"data": {"a": 2**80}}
    m = {"data": {"a": 2**80 + 1, "b": 0.30000000000000004}}
    p = smpatch.create_two_way(o, m, schema=NONE)
    assert strict_eq(p, {"data": {"a": 2**80 + 1, "b": 0.30000000000000004}})
    assert strict_eq(smpatch.apply(o, p, schema=NONE), m)


@pytest.mark.parametrize("text", ['{"a": {"b": [1, 1e400]}}', '{"a": {"b": [1, -2.5E+999]}}'])
@pytest.mark.parametrize("role", ["original", "patch"])
def test_json_float_text_beyond_f64_is_refused_at_its_path(text, role):
    # Go's JSON decoder refuses such literals, so smpatch does too, at parse
    # time, instead of passing them through.
    args = (text, "{}") if role == "original" else ("{}", text)
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply(*args, schema=NONE)
    e = info.value
    assert (e.kind, e.path) == ("invalid_document", "/a/b/1"), repr(e)
    assert "beyond the 64-bit float range" in e.message and role in e.message


def test_yaml_float_beyond_f64_is_a_string():
    # YAML resolves as Go's YAML reader does: a plain scalar that does not
    # parse as a finite float is a string.
    out = smpatch.apply("a:\n  b:\n  - 1\n  - 1e400\n", "{}", schema=NONE)
    assert strict_eq(out, {"a": {"b": [1, "1e400"]}})
