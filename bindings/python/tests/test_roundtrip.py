"""Round trips through the converters: random JSON-shaped Python documents
(unicode and control characters in keys and strings, ints of any size,
floats, bools, None, nesting) come back strictly equal from an empty
schemaless merge, as dicts and as bytes."""

from __future__ import annotations

import json
import random

import smpatch
from conftest import strict_eq

NONE = smpatch.Schema.schemaless()
ALPHABET = "ab~/\"\\\n\t\x00\x1f\x7fé€𝄞 \u2028"


def text(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 8)))


def scalar(rng: random.Random):
    kind = rng.randrange(7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randrange(-(2**70), 2**70)
    if kind == 3:
        return rng.randrange(-1000, 1000)
    if kind == 4:
        return rng.uniform(-1e6, 1e6) * 10.0 ** rng.randrange(-300, 300)
    return text(rng)


def value(rng: random.Random, depth: int):
    if depth > 5 or rng.random() < 0.4:
        return scalar(rng)
    if rng.random() < 0.5:
        return [value(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    return {text(rng): value(rng, depth + 1) for _ in range(rng.randrange(0, 5))}


def test_random_documents_round_trip():
    rng = random.Random(1414)
    for _ in range(400):
        doc = {text(rng): value(rng, 1) for _ in range(rng.randrange(0, 6))}
        out = smpatch.apply(doc, {}, schema=NONE)
        assert strict_eq(out, doc), (doc, out)
        raw = smpatch.apply(doc, {}, schema=NONE, as_bytes=True)
        assert strict_eq(json.loads(raw), doc)
        # and back in as text
        assert strict_eq(smpatch.apply(raw, b"{}", schema=NONE), doc)


def test_tuples_read_as_lists():
    assert smpatch.apply({"t": (1, (2, "x"))}, {}, schema=NONE) == {"t": [1, [2, "x"]]}
