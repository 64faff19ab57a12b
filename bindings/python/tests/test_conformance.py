"""The shared reference cases (and the project's own testdata/ cases) driven
through the Python API, as crates/smpatch/tests/conformance.rs drives them
through batch mode: every case against the v2 and the v3 schema of its case
file, compared exactly or with merge lists sorted ("sorted-merge-lists").

The shared folder is $SMPATCH_SHARED, else ../shared beside the repository;
without it only testdata/ runs and `test_shared_suite_present` is skipped with
the notice, unless SMPATCH_REQUIRE_SHARED=1 (set by .ci/run), which makes the
missing folder a failure. SMPATCH_CASE filters cases by name.
"""

from __future__ import annotations

import json
import os
import pathlib

import pytest

import smpatch
from conftest import REPO, shared_dir, shared_location, skip_notice, strict_eq

# Reference message fragments -> our error kinds; the first one a message contains wins
# (the table conformance.rs reads too).
PHRASES = json.loads((REPO / "testdata" / "conformance-phrases.json").read_text())["phrases"]

SHARED = shared_dir()  # raises (fails the collection) when required and missing
CONFORMANCE = (SHARED or shared_location()) / "conformance"


def case_files() -> list[pathlib.Path]:
    files = sorted(p for p in CONFORMANCE.glob("*.json")) if CONFORMANCE.is_dir() else []
    return files + sorted((REPO / "testdata").rglob("*.json"))


def is_case_list(doc) -> bool:
    return (
        isinstance(doc, list)
        and bool(doc)
        and all(isinstance(c, dict) and "checks" in c and "name" in c for c in doc)
    )


def schema_variants(schema, case_dir: pathlib.Path):
    """(label, schema description) pairs: a file in its v2 and v3 forms, a
    builtin type, no schema, or detection with the embedded schema."""
    if schema is None:
        return [("detect", None)]
    if "file" not in schema:
        return [("schema", schema)]

    def resolve(f: str) -> pathlib.Path:
        local = case_dir / f
        return local if local.exists() else CONFORMANCE / f

    file = schema["file"]
    files = [("v2" if ".v2." in file else "schema", resolve(file))]
    if ".v2." in file:
        v3 = resolve(file.replace(".v2.", ".v3."))
        if v3.exists():
            files.append(("v3", v3))
    return [(label, {"file": path, "definition": schema.get("definition")}) for label, path in files]


def collect():
    params = []
    wanted = os.environ.get("SMPATCH_CASE")
    for file in case_files():
        try:
            doc = json.loads(file.read_text())
        except ValueError:
            if file.parent == CONFORMANCE:
                raise
            continue
        if not is_case_list(doc):
            continue
        rel = file.relative_to(CONFORMANCE) if file.parent == CONFORMANCE else file.relative_to(REPO)
        for case in doc:
            if wanted and wanted not in case["name"]:
                continue
            for label, schema in schema_variants(case.get("schema"), file.parent):
                for i, check in enumerate(case["checks"]):
                    params.append(
                        pytest.param(case, check, schema, id=f"{rel}:{case['name']}[{label}]#{i}:{check['op']}")
                    )
    return params


_SCHEMAS: dict = {}


def schema_args(schema) -> dict:
    if schema is None:
        return {}
    if "file" in schema:
        path = schema["file"]
        if path not in _SCHEMAS:
            _SCHEMAS[path] = smpatch.Schema.load(path)
        args = {"schema": _SCHEMAS[path]}
        if schema.get("definition"):
            args["type"] = schema["definition"]
        return args
    if "builtin" in schema:
        return {"type": schema["builtin"]}
    if schema.get("none"):
        return {"schema": smpatch.Schema.schemaless()}
    raise AssertionError(f"unknown schema form {schema!r}")


def sort_lists(v):
    """Sorts every list of objects that all have a name (by name) and every
    list of scalars (by value), recursively."""
    if isinstance(v, dict):
        return {k: sort_lists(x) for k, x in v.items()}
    if isinstance(v, list):
        items = [sort_lists(x) for x in v]
        key = lambda x: (type(x).__name__, json.dumps(x, sort_keys=True))  # noqa: E731
        if items and all(isinstance(x, dict) and "name" in x for x in items):
            items.sort(key=lambda x: key(x["name"]))
        elif all(not isinstance(x, (dict, list)) for x in items):
            items.sort(key=key)
        return items
    return v


def document(check, key: str, raw: bool):
    """A check's document as the API takes it: objects and null as they are,
    raw text as text; any other JSON value as JSON text (so the API sees a
    non-object document, as batch mode does)."""
    v = check.get(key)
    if v is None or isinstance(v, dict) or (raw and isinstance(v, str)):
        return v
    return json.dumps(v)


OPS = {
    "apply": (smpatch.apply, ("original", "patch")),
    "create2": (smpatch.create_two_way, ("original", "modified")),
    "create3": (smpatch.create_three_way, ("original", "modified", "current")),
    "conflicts": (smpatch.conflicts, ("left", "right")),
}


def test_shared_suite_present():
    # Without the shared folder only testdata/ runs; this skip says so in the summary
    # (pytest -rs shows the notice). With SMPATCH_REQUIRE_SHARED=1 the module fails to
    # load instead.
    if SHARED is None:
        pytest.skip(skip_notice(shared_location()))


def test_some_cases_found():
    assert collect(), "no conformance case found (testdata/ and the shared folder)"


@pytest.mark.parametrize("case, check, schema", collect())
def test_case(case, check, schema):
    fn, keys = OPS[check["op"]]
    raw = bool(case.get("rawInputs") or check.get("rawInputs"))
    docs = [document(check, k, raw) for k in keys]
    kwargs = dict(schema_args(schema))
    kwargs.update(check.get("options") or {})
    if check["op"] == "create3" and check.get("overwrite") is not None:
        kwargs["overwrite"] = check["overwrite"]
    if check["op"] == "apply" and kwargs.pop("normalize_unions", False):
        # The batch apply with normalize_unions is Python's server_apply
        # (the same union options); its object is the batch "ok".
        fn = lambda *d, **kw: smpatch.server_apply(*d, **kw)[0]  # noqa: E731
    expect = check["expect"]
    try:
        got = fn(*docs, **kwargs)
    except smpatch.Error as e:
        if e.kind == "unsupported":
            pytest.skip("unsupported by this build")
        if "ok" in expect:
            pytest.fail(f"expected ok {json.dumps(expect['ok'])[:300]}, got {e!r}")
        if expect.get("conflict"):
            assert isinstance(e, smpatch.Conflict) and e.kind == "conflict", repr(e)
            return
        text = expect["error"]
        if text and all(c.islower() or c == "_" for c in text):
            want = text
        else:
            want = next((kind for phrase, kind in PHRASES if phrase in text), None)
        if want is not None:
            assert e.kind == want, f"expected {want} ({text!r}), got {e!r}"
        return
    assert "ok" in expect, f"expected {expect}, got ok {json.dumps(got)[:300]}"
    want = expect["ok"]
    if case.get("compare") == "sorted-merge-lists":
        want, got = sort_lists(want), sort_lists(got)
    assert strict_eq(got, want), f"expected {json.dumps(want)[:300]}\n     got {json.dumps(got)[:300]}"
