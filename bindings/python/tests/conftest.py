"""Shared helpers of the smpatch Python tests."""

from __future__ import annotations

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
"""The repository root (bindings/python/tests/ is three levels down)."""


def shared_dir() -> pathlib.Path:
    """The shared reference material: $SMPATCH_SHARED, else ../shared beside the repository."""
    env = os.environ.get("SMPATCH_SHARED")
    return pathlib.Path(env) if env else REPO.parent / "shared"


def strict_eq(a, b) -> bool:
    """Deep equality that, unlike ``==``, tells ``True`` from ``1`` and ``1`` from ``1.0``
    (the engine's equality: integers and floats are different kinds)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_eq(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_eq(x, y) for x, y in zip(a, b))
    return a == b


@pytest.fixture(scope="session")
def repo() -> pathlib.Path:
    return REPO
