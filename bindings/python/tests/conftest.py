"""Shared helpers of the smpatch Python tests."""

from __future__ import annotations

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
"""The repository root (bindings/python/tests/ is three levels down)."""


SHARED_ENV = "SMPATCH_SHARED"
"""Environment variable naming the shared folder (default: ``shared`` beside the repository)."""

REQUIRE_ENV = "SMPATCH_REQUIRE_SHARED"
"""Set to ``1`` (``.ci/run`` does), a missing shared folder fails the run instead of being
skipped, as in the Rust tests (crates/testkit/src/shared.rs)."""


class SharedSuiteMissing(RuntimeError):
    """The shared folder is missing and SMPATCH_REQUIRE_SHARED=1."""


def shared_location() -> pathlib.Path:
    """Where the shared reference material is expected: $SMPATCH_SHARED, else ../shared
    beside the repository. The folder may not exist."""
    env = os.environ.get(SHARED_ENV)
    return pathlib.Path(env) if env else REPO.parent / "shared"


def skip_notice(location: pathlib.Path) -> str:
    """The notice of a skipped shared suite (the Rust tests print the same line)."""
    return f"notice: shared reference suite not found at {location}: skipped (set {SHARED_ENV})"


def shared_dir() -> pathlib.Path | None:
    """The shared folder when it exists; else ``None`` (the caller skips what needs it and
    says so with :func:`skip_notice`), but with SMPATCH_REQUIRE_SHARED=1 a missing folder
    raises :class:`SharedSuiteMissing`, which fails the test or the collection."""
    location = shared_location()
    if location.is_dir():
        return location
    if os.environ.get(REQUIRE_ENV) == "1":
        raise SharedSuiteMissing(
            f"shared reference suite not found at {location} and {REQUIRE_ENV}=1 (set {SHARED_ENV})"
        )
    return None


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
