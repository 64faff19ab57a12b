"""SMPATCH_REQUIRE_SHARED=1 turns a missing shared folder from a skip into a
failure, here as in the Rust tests (crates/testkit/src/shared.rs)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

import conftest

HERE = pathlib.Path(__file__).resolve().parent


def test_shared_dir_is_found(tmp_path, monkeypatch):
    monkeypatch.setenv(conftest.SHARED_ENV, str(tmp_path))
    monkeypatch.setenv(conftest.REQUIRE_ENV, "1")
    assert conftest.shared_dir() == tmp_path


def test_missing_shared_dir_is_skipped_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv(conftest.SHARED_ENV, str(tmp_path / "absent"))
    monkeypatch.delenv(conftest.REQUIRE_ENV, raising=False)
    assert conftest.shared_dir() is None
    assert str(tmp_path / "absent") in conftest.skip_notice(conftest.shared_location())


def test_missing_shared_dir_fails_when_required(tmp_path, monkeypatch):
    monkeypatch.setenv(conftest.SHARED_ENV, str(tmp_path / "absent"))
    monkeypatch.setenv(conftest.REQUIRE_ENV, "1")
    with pytest.raises(conftest.SharedSuiteMissing, match="SMPATCH_REQUIRE_SHARED=1"):
        conftest.shared_dir()


@pytest.mark.parametrize("required, outcome", [("0", "skipped"), ("1", "failed")])
def test_conformance_run_honours_the_switch(tmp_path, required, outcome):
    # The whole conformance module, run as CI runs it, with the folder missing: one
    # skip (the notice) without the switch, a failed run (collection error) with it.
    env = dict(os.environ)
    env[conftest.SHARED_ENV] = str(tmp_path / "absent")
    env[conftest.REQUIRE_ENV] = required
    env["SMPATCH_CASE"] = "no case has this name"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", str(HERE / "test_conformance.py"), "-q", "-rs",
         "-p", "no:cacheprovider", "-k", "shared_suite_present"],
        env=env, capture_output=True, text=True, timeout=300,
    )
    text = run.stdout + run.stderr
    if outcome == "skipped":
        assert run.returncode == 0, text
        assert "1 skipped" in text and "notice: shared reference suite not found" in text, text
    else:
        assert run.returncode != 0, text
        assert "SharedSuiteMissing" in text, text
