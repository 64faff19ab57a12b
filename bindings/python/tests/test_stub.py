"""The typed surface (`smpatch/__init__.pyi`) agrees with the compiled
functions: the stub's `__all__` is the package's, every public function and
`Schema` method has a stub, and every stub (each `@overload` of it) names the
runtime parameters in the same order (keyword-only ones in any order), with
the same kind and the same default. The one allowed difference: an overload
that types ``as_bytes: Literal[True]`` gives it no default (that is how the
overload is chosen)."""

from __future__ import annotations

import ast
import inspect
import pathlib

import pytest

import smpatch

STUB = pathlib.Path(smpatch.__file__).with_name("__init__.pyi")

FUNCTIONS = [n for n in smpatch.__all__ if n[0].islower()]
SCHEMA_METHODS = ["embedded", "load", "schemaless"]


def stub_defs() -> dict[str, list[ast.FunctionDef]]:
    """Stub definitions by name (`Schema.load` for methods), overloads in order."""
    found: dict[str, list[ast.FunctionDef]] = {}
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found.setdefault(f"{node.name}.{item.name}", []).append(item)
    return found


NO_DEFAULT = object()

# The flags that choose an overload's return type: an overload for each
# combination of their values, where one typed ``Literal[True]`` has no
# default (that is how the overload is chosen).
SELECTORS = ("as_bytes", "normalize_unions")


def stub_params(fn: ast.FunctionDef) -> list[tuple[str, str, object, str]]:
    """(name, kind, default, annotation) of each parameter, as written."""
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = []
    for p, d in zip(positional, defaults):
        out.append((p.arg, "POSITIONAL_OR_KEYWORD", d, ast.unparse(p.annotation or ast.Constant(None))))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, "KEYWORD_ONLY", d, ast.unparse(p.annotation or ast.Constant(None))))
    return [
        (name, kind, NO_DEFAULT if d is None else ast.literal_eval(d), ann)
        for name, kind, d, ann in out
    ]


def runtime_params(fn) -> list[tuple[str, str, object]]:
    sig = inspect.signature(fn)
    return [
        (p.name, p.kind.name, NO_DEFAULT if p.default is inspect.Parameter.empty else p.default)
        for p in sig.parameters.values()
    ]


def shape(params) -> tuple[list[str], set[str]]:
    """The positional names in order and the keyword-only names (their order
    does not matter to a caller)."""
    positional = [p[0] for p in params if p[1] != "KEYWORD_ONLY"]
    return positional, {p[0] for p in params if p[1] == "KEYWORD_ONLY"}


def check(name: str, runtime, stubs: dict[str, list[ast.FunctionDef]]) -> None:
    assert name in stubs, f"{name} has no stub in {STUB.name}"
    want = runtime_params(runtime)
    for stub in stubs[name]:
        got = stub_params(stub)
        assert shape(got) == shape(want), (
            f"{name} (stub line {stub.lineno}): parameters {shape(got)}, runtime {shape(want)}"
        )
        runtime_defaults = {w[0]: w[2] for w in want}
        for pname, _, default, ann in got:
            runtime_default = runtime_defaults[pname]
            if default is NO_DEFAULT and ann == "Literal[True]" and pname in SELECTORS:
                continue
            assert default == runtime_default and type(default) is type(runtime_default), (
                f"{name}({pname}) stub line {stub.lineno}: default {default!r}, runtime {runtime_default!r}"
            )
    selectors = [w[0] for w in want if w[0] in SELECTORS]
    assert len(stubs[name]) == 2 ** len(selectors), (
        f"{name}: {len(stubs[name])} stub definitions; expected one overload per value of "
        f"{' and '.join(selectors)}"
        if selectors
        else f"{name}: {len(stubs[name])} stub definitions; expected one"
    )


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_stub_matches_runtime(name):
    check(name, getattr(smpatch, name), stub_defs())


@pytest.mark.parametrize("name", SCHEMA_METHODS)
def test_schema_stub_matches_runtime(name):
    check(f"Schema.{name}", getattr(smpatch.Schema, name), stub_defs())


def test_stub_lists_no_other_function():
    stubs = {n for n in stub_defs() if "." not in n}
    assert stubs == set(FUNCTIONS)


def test_check_catches_a_drifted_stub():
    # The check itself can fail: a stub with a wrong default is refused.
    stub = ast.parse("def apply(original, patch, *, schema=None, type=None, as_bytes=False, "
                     "fix_quirks=True, compound_keys=False, reject_duplicate_keys=False, "
                     "max_depth=None): ...").body[0]
    with pytest.raises(AssertionError, match="fix_quirks"):
        check("apply", smpatch.apply, {"apply": [stub, stub]})


def test_stub_all_matches_the_package():
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    (stub_all,) = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets)
    ]
    assert stub_all == smpatch.__all__
