"""The API surface: every operation, every document form, schemas and types,
and the README examples (executed as written)."""

from __future__ import annotations

import copy
import json
import re

import pytest

import smpatch
from conftest import REPO, strict_eq

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {
        "replicas": 2,
        "template": {
            "spec": {
                "containers": [
                    {"name": "web", "image": "nginx:1.25", "ports": [{"containerPort": 80}]},
                    {"name": "sidecar", "image": "envoy:1"},
                ]
            }
        },
    },
}


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown, flags=re.S)


@pytest.mark.parametrize("readme", ["README.md", "bindings/python/README.md"])
def test_readme_examples_run(readme):
    text = (REPO / readme).read_text()
    if readme == "README.md":
        text = text[text.index("## Python") :]
    blocks = python_blocks(text)
    assert blocks, f"{readme} has no python example"
    for block in blocks:
        exec(compile(block, readme, "exec"), {})


def test_apply_merges_by_merge_key_and_keeps_inputs():
    original = copy.deepcopy(DEPLOYMENT)
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}}
    patch_before = copy.deepcopy(patch)
    merged = smpatch.apply(original, patch)
    containers = merged["spec"]["template"]["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [("web", "nginx:1.27"), ("sidecar", "envoy:1")]
    assert containers[0]["ports"] == [{"containerPort": 80}]
    assert original == DEPLOYMENT and patch == patch_before


def test_apply_directives():
    live = {"metadata": {"finalizers": ["a", "b", "c"]}}
    patch = {"metadata": {"$deleteFromPrimitiveList/finalizers": ["b"]}}
    assert smpatch.apply(live, patch, type="v1/ConfigMap") == {"metadata": {"finalizers": ["a", "c"]}}
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}}}}
    merged = smpatch.apply(DEPLOYMENT, patch)
    assert [c["name"] for c in merged["spec"]["template"]["spec"]["containers"]] == ["web"]


def test_documents_as_json_yaml_bytes_and_none():
    as_json = json.dumps(DEPLOYMENT)
    as_yaml = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports: [{containerPort: 80}]
      - {name: sidecar, image: envoy:1}
"""
    patch_yaml = "spec:\n  replicas: 3\n"
    want = smpatch.apply(DEPLOYMENT, {"spec": {"replicas": 3}})
    for doc in (as_json, as_json.encode(), bytearray(as_json.encode()), as_yaml, as_yaml.encode()):
        assert strict_eq(smpatch.apply(doc, patch_yaml), want)
    assert smpatch.apply(None, {"a": 1}, schema=smpatch.Schema.schemaless()) == {"a": 1}
    # Empty text is {} for patch creation (and an error for apply, see test_errors).
    assert smpatch.create_two_way("", {"data": {"a": "1"}}, type="v1/ConfigMap") == {"data": {"a": "1"}}


def test_as_bytes_is_compact_json():
    out = smpatch.apply({"spec": {"replicas": 1}}, '{"spec":{"replicas":12345678901234567890}}',
                        type="apps/v1/Deployment", as_bytes=True)
    assert out == b'{"spec":{"replicas":12345678901234567890}}'
    assert isinstance(smpatch.compose({"a": 1}, {"b": 2}, schema=smpatch.Schema.schemaless(), as_bytes=True), bytes)


def test_create_two_way():
    o = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1", "b": "2"}}
    m = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1", "c": "3"}}
    assert smpatch.create_two_way(o, m) == {"data": {"b": None, "c": "3"}}
    assert smpatch.create_two_way(o, m, ignore_deletions=True) == {"data": {"c": "3"}}
    assert smpatch.create_two_way(o, m, ignore_changes_and_additions=True) == {"data": {"b": None}}


def test_create_two_way_then_apply_round_trips():
    modified = copy.deepcopy(DEPLOYMENT)
    modified["spec"]["template"]["spec"]["containers"].reverse()
    modified["spec"]["template"]["spec"]["containers"][0]["image"] = "envoy:2"
    del modified["metadata"]["labels"]
    patch = smpatch.create_two_way(DEPLOYMENT, modified)
    assert strict_eq(smpatch.apply(DEPLOYMENT, patch), modified)


def test_create_three_way_and_conflict():
    o = {"data": {"a": "1", "b": "2"}}
    m = {"data": {"a": "1"}}
    c = {"data": {"a": "1", "b": "2", "c": "3"}}
    assert smpatch.create_three_way(o, m, c, type="v1/ConfigMap") == {"data": {"b": None}}
    o, m, c = {"data": {"a": "1"}}, {"data": {"a": "2"}}, {"data": {"a": "3"}}
    assert smpatch.create_three_way(o, m, c, type="v1/ConfigMap") == {"data": {"a": "2"}}
    with pytest.raises(smpatch.Conflict) as info:
        smpatch.create_three_way(o, m, c, type="v1/ConfigMap", overwrite=False)
    assert info.value.kind == "conflict" and info.value.path == "/data/a"
    assert isinstance(info.value, smpatch.Error) and isinstance(info.value, ValueError)


def test_conflicts_and_compose():
    ty = "apps/v1/Deployment"
    assert smpatch.conflicts({"spec": {"replicas": 2}}, {"spec": {"replicas": 3}}, type=ty) is True
    assert smpatch.conflicts({"spec": {"replicas": 2}}, {"spec": {"paused": True}}, type=ty) is False
    p = smpatch.compose({"spec": {"replicas": 2}}, {"spec": {"paused": True}}, type=ty)
    assert p == {"spec": {"replicas": 2, "paused": True}}


def test_types_by_definition_gvk_and_detection():
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "x"}]}}}}
    bare = {k: v for k, v in DEPLOYMENT.items() if k not in ("apiVersion", "kind")}
    want = smpatch.apply(DEPLOYMENT, patch)["spec"]
    for ty in ("apps/v1/Deployment", "io.k8s.api.apps.v1.Deployment"):
        assert smpatch.apply(bare, patch, type=ty)["spec"] == want
    # Without a schema type the list is replaced (schemaless: lists are atomic).
    out = smpatch.apply(bare, patch, schema=smpatch.Schema.schemaless())
    assert out["spec"]["template"]["spec"]["containers"] == [{"name": "web", "image": "x"}]


def test_schema_objects(repo):
    embedded = smpatch.Schema.embedded()
    assert "apps/v1/Deployment" in embedded and "io.k8s.api.core.v1.Pod" in embedded
    assert "example.com/v1/Widget" not in embedded
    assert smpatch.Schema.embedded() is not None and repr(embedded) == "Schema.embedded()"
    path = repo / "testdata" / "schemas" / "widget.v2.json"
    for arg in (str(path), path, [path], (str(path),)):
        s = smpatch.Schema.load(arg)
        assert "apps/v1/Deployment" not in s
    both = smpatch.Schema.load(path, builtin=True)
    assert "apps/v1/Deployment" in both
    assert "v1/Pod" not in smpatch.Schema.schemaless()


def test_loaded_schema_drives_merge(repo):
    s = smpatch.Schema.load(repo / "testdata" / "schemas" / "widget.v2.json")
    live = {"items": [{"id": 1, "a": 1}, {"id": 2}]}
    patch = {"items": [{"id": 1, "b": 2}]}
    assert smpatch.apply(live, patch, schema=s, type="Widget") == {"items": [{"id": 1, "a": 1, "b": 2}, {"id": 2}]}
    # The same patch without the schema replaces the list.
    assert smpatch.apply(live, patch, schema=smpatch.Schema.schemaless()) == patch


def test_options_are_keyword_only_with_rust_names():
    live = {"spec": {"template": {"spec": {"containers": [{"name": "a"}, {"name": "a", "image": "x"}]}}}}
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "y"}]}}}}
    smpatch.apply(live, patch, type="apps/v1/Deployment")
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply(live, patch, type="apps/v1/Deployment", reject_duplicate_keys=True)
    assert info.value.kind == "duplicate_merge_key"
    with pytest.raises(TypeError):
        smpatch.apply(live, patch, "apps/v1/Deployment")  # type is keyword-only
    with pytest.raises(TypeError):
        smpatch.apply(live, patch, no_such_option=True)
    with pytest.raises(TypeError):
        smpatch.create_three_way({}, {}, {}, ignore_deletions=True)  # two-way only


def test_max_depth_option():
    deep = {"a": {"b": {"c": {"d": 1}}}}
    ty = {"schema": smpatch.Schema.schemaless()}
    assert smpatch.apply(deep, deep, **ty) == deep
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply(deep, {"a": {"b": {"c": {"d": 2}}}}, max_depth=2, **ty)
    assert info.value.kind == "too_deep"


CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              parts:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [id]
                items:
                  type: object
                  properties:
                    id: {type: string}
                    size: {type: integer}
"""


def test_crd_directory_with_builtin_types(tmp_path):
    (tmp_path / "widget-crd.yaml").write_text(CRD)
    schema = smpatch.Schema.load(tmp_path, builtin=True)
    assert "example.com/v1/Widget" in schema and "apps/v1/Deployment" in schema
    live = {"apiVersion": "example.com/v1", "kind": "Widget",
            "spec": {"parts": [{"id": "a", "size": 1}, {"id": "b", "size": 2}]}}
    merged = smpatch.apply(live, {"spec": {"parts": [{"id": "b", "size": 3}]}}, schema=schema)
    assert merged["spec"]["parts"] == [{"id": "a", "size": 1}, {"id": "b", "size": 3}]
    # The built-in types still work with the same schema object.
    assert smpatch.apply(DEPLOYMENT, {"spec": {"replicas": 5}}, schema=schema)["spec"]["replicas"] == 5
    # Without builtin=True only the CRD is known.
    assert "apps/v1/Deployment" not in smpatch.Schema.load(tmp_path / "widget-crd.yaml")


def test_version_is_the_installed_distribution():
    """`smpatch.__version__` is what pip installed (pyproject.toml's version)."""
    import importlib.metadata

    assert smpatch.__version__ == importlib.metadata.version("smpatch")
    pyproject = (REPO / "bindings" / "python" / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{smpatch.__version__}"' in pyproject
