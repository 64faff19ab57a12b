"""Options the batch protocol and the CLI have, through the Python API by the
same names: `apply(normalize_unions=...)` with the union options, `fields(shape=...)`,
`extract(missing_entry=...)`."""

from __future__ import annotations

import copy
import json

import pytest

import smpatch
from conftest import REPO

K8S = REPO / "testdata" / "unions" / "k8s"
FIELDSETS = REPO / "testdata" / "fieldsets"

PLC_LIMITED = (K8S / "plc-limited.yaml").read_text()
TO_EXEMPT = {"spec": {"type": "Exempt", "exempt": {}}}


# --- apply(normalize_unions=...) ---------------------------------------------


def test_apply_normalize_unions_is_server_apply():
    got = smpatch.apply(PLC_LIMITED, TO_EXEMPT, normalize_unions=True)
    assert got == smpatch.server_apply(PLC_LIMITED, TO_EXEMPT)
    obj, cleared = got
    assert cleared == ["/spec/limited"]
    assert obj["spec"] == {"type": "Exempt", "exempt": {}}
    raw, cleared = smpatch.apply(PLC_LIMITED, TO_EXEMPT, normalize_unions=True, as_bytes=True)
    assert json.loads(raw) == obj and cleared == ["/spec/limited"]
    # without it: the merge alone, both members kept
    assert "limited" in smpatch.apply(PLC_LIMITED, TO_EXEMPT)["spec"]


def test_apply_normalize_unions_validates():
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply(PLC_LIMITED, {"spec": {"exempt": {}}}, normalize_unions=True)
    assert info.value.kind == "validation"
    assert {v["rule"] for v in info.value.violations} >= {"V5"}


def test_apply_union_options_reach_the_union_pass():
    schema = smpatch.Schema.load(REPO / "testdata" / "unions" / "fieldMembers.v2.json")
    src = {"type": "Git", "git": {"url": "g"}}
    bad_enum = {"mode": "Medium"}
    kw = {"schema": schema, "type": "com.example.Src", "normalize_unions": True}
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply(src, bad_enum, **kw)
    assert info.value.kind == "validation"
    assert [(v["path"], v["rule"]) for v in info.value.violations] == [("/mode", "enum")]
    obj, cleared = smpatch.apply(src, bad_enum, check_enums=False, **kw)
    assert obj == {"type": "Git", "git": {"url": "g"}, "mode": "Medium"} and cleared == []
    # a changed discriminator clears the member it deselects
    obj, cleared = smpatch.apply(src, {"type": "Http", "http": {"url": "h"}}, **kw)
    assert (obj, cleared) == ({"type": "Http", "http": {"url": "h"}}, ["/git"])
    # the same answers as server_apply with the same options
    for kw in ({"ratcheting": True}, {"non_discriminated_update": True}, {"check_enums": False}):
        assert smpatch.apply(PLC_LIMITED, TO_EXEMPT, normalize_unions=True, **kw) == \
            smpatch.server_apply(PLC_LIMITED, TO_EXEMPT, **kw)


@pytest.mark.parametrize("option", ["ratcheting", "check_enums", "non_discriminated_update"])
@pytest.mark.parametrize("value", [True, False])
def test_union_option_without_normalize_unions_is_refused(option, value):
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply(PLC_LIMITED, TO_EXEMPT, **{option: value})
    assert info.value.kind == "invalid_request"
    assert option in info.value.message and "normalize_unions" in info.value.message
    with pytest.raises(smpatch.Error):
        smpatch.apply(PLC_LIMITED, TO_EXEMPT, normalize_unions=False, **{option: value})


@pytest.mark.parametrize("patch_type", ["merge", "auto"])
def test_normalize_unions_needs_a_strategic_patch(patch_type):
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply(PLC_LIMITED, TO_EXEMPT, normalize_unions=True, patch_type=patch_type)
    assert info.value.kind == "invalid_request"
    assert "patch_type" in info.value.message
    obj, _ = smpatch.apply(PLC_LIMITED, TO_EXEMPT, normalize_unions=True, patch_type="strategic")
    assert "limited" not in obj["spec"]


def test_apply_normalize_unions_max_depth_is_one_limit():
    deep = {"spec": {"type": "Exempt", "exempt": {}}}
    with pytest.raises(smpatch.Error) as info:
        smpatch.apply(PLC_LIMITED, deep, normalize_unions=True, max_depth=2)
    assert info.value.kind == "too_deep"


def test_apply_normalize_unions_leaves_the_inputs_alone():
    live = {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
            "metadata": {"name": "x"},
            "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5}}}
    before, patch_before = copy.deepcopy(live), copy.deepcopy(TO_EXEMPT)
    obj, cleared = smpatch.apply(live, TO_EXEMPT, normalize_unions=True)
    assert cleared == ["/spec/limited"] and "limited" not in obj["spec"]
    assert live == before and TO_EXEMPT == patch_before


# --- fields(shape=...) --------------------------------------------------------


def fieldset_case(name: str) -> dict:
    return json.loads((FIELDSETS / name).read_text())


@pytest.mark.parametrize("name", ["01-configmap-maps.json", "11-duplicate-keys.json",
                                  "12-apply-vs-update.json"])
def test_fields_update_shape_matches_the_testdata_sets(name):
    case = fieldset_case(name)
    got = smpatch.fields(case["object"], type=case["type"], shape="update", as_bytes=True)
    assert got.decode() == case["update_set"]
    text = json.dumps(case["object"])
    assert smpatch.fields(text, type=case["type"], shape="update") == json.loads(case["update_set"])


def test_fields_apply_shape_is_the_default():
    case = fieldset_case("12-apply-vs-update.json")
    got = smpatch.fields(case["object"], type=case["type"], shape="apply", as_bytes=True)
    assert got.decode() == case["apply_set"]
    assert smpatch.fields(case["object"], type=case["type"]) == json.loads(case["apply_set"])


def test_fields_update_shape_allows_duplicates_unless_told_not_to():
    case = fieldset_case("11-duplicate-keys.json")
    with pytest.raises(smpatch.Error) as info:
        smpatch.fields(case["object"], type=case["type"])
    assert info.value.kind == case["apply_error"]["kind"]
    with pytest.raises(smpatch.Error):
        smpatch.fields(case["object"], type=case["type"], shape="update", allow_duplicates=False)
    # and the apply shape takes allow_duplicates=True as before
    smpatch.fields(case["object"], type=case["type"], allow_duplicates=True)


def test_fields_update_shape_keeps_strip_server_fields():
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}
    assert smpatch.fields(cm, shape="update") == {"f:data": {".": {}, "f:k": {}}}
    kept = smpatch.fields(cm, shape="update", strip_server_fields=False)
    assert "f:kind" in kept and "f:name" in kept["f:metadata"]


def test_fields_unknown_shape():
    with pytest.raises(smpatch.Error) as info:
        smpatch.fields({"apiVersion": "v1", "kind": "ConfigMap"}, shape="mine")
    assert info.value.kind == "invalid_request"
    assert info.value.message == 'unknown shape "mine"; expected apply or update'


# --- extract(missing_entry=...) -----------------------------------------------


def test_extract_missing_entry():
    live = fieldset_case("14-extract-set-and-map.json")["object"]
    with pytest.raises(smpatch.Error) as info:
        smpatch.extract(live, "nobody", missing_entry="error")
    assert info.value.kind == "no_apply_entry"
    got = smpatch.extract(live, "nobody", missing_entry="identity")
    meta = {k: v for k, v in live["metadata"].items() if k in ("name", "namespace")}
    assert got == {"apiVersion": live["apiVersion"], "kind": live["kind"], "metadata": meta}
    # reference=True answers the identity too, and missing_entry="error" overrides it
    assert smpatch.extract(live, "nobody", reference=True) == got
    with pytest.raises(smpatch.Error):
        smpatch.extract(live, "nobody", reference=True, missing_entry="error")
    with pytest.raises(smpatch.Error) as info:
        smpatch.extract(live, "nobody", missing_entry="maybe")
    assert info.value.kind == "invalid_request"


# --- owners --------------------------------------------------------------------


LIVE = (REPO / "crates" / "cli" / "testdata" / "fields-live.yaml").read_text()


def test_owners_lists_every_managed_path():
    table = smpatch.owners(LIVE)
    assert table and [row["path"] for row in table] == sorted(row["path"] for row in table)
    by_path = {row["path"]: row["owners"] for row in table}
    assert all(set(o) <= {"manager", "operation", "subresource", "apiVersion"}
               for owners in by_path.values() for o in owners)
    managers = {o["manager"] for owners in by_path.values() for o in owners}
    assert {"orders-operator", "scaler"} <= managers
    raw = smpatch.owners(LIVE, as_bytes=True)
    assert json.loads(raw) == table


def test_owners_of_a_dict_and_its_subresource():
    live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": [
        {"manager": "a", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {"f:x": {}}}},
        {"manager": "b", "operation": "Update", "apiVersion": "v1", "subresource": "status",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:x": {}, "f:y": {}}}}]},
        "data": {"x": "1", "y": "2"}}
    before = copy.deepcopy(live)
    assert smpatch.owners(live) == [
        {"path": "f:data.f:x", "owners": [
            {"manager": "a", "operation": "Apply", "apiVersion": "v1"},
            {"manager": "b", "operation": "Update", "subresource": "status", "apiVersion": "v1"}]},
        {"path": "f:data.f:y", "owners": [
            {"manager": "b", "operation": "Update", "subresource": "status", "apiVersion": "v1"}]},
    ]
    assert live == before
    assert smpatch.owners({"metadata": {}}) == []


def test_owners_errors():
    with pytest.raises(smpatch.Error) as info:
        smpatch.owners({"metadata": {"managedFields": [{"manager": 7}]}})
    assert info.value.kind == "malformed_managed_fields"
    assert info.value.path.startswith("/metadata/managedFields/0")
    with pytest.raises(smpatch.Error) as info:
        smpatch.owners("[1, 2]")
    assert info.value.kind == "invalid_document"
    deep: dict = {}
    node = deep
    for _ in range(300):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(smpatch.Error) as info:
        smpatch.owners(deep)
    assert info.value.kind == "too_deep"


def test_owners_max_depth():
    # As the batch op `owners` and the other functions: a lower limit
    # raises too_deep at the first node past it, a higher one lets a
    # document deeper than the default 256 through.
    live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}
    before = copy.deepcopy(live)
    for doc in (live, json.dumps(live), "kind: ConfigMap\nmetadata: {name: c}\n"):
        with pytest.raises(smpatch.Error) as info:
            smpatch.owners(doc, max_depth=1)
        assert (info.value.kind, info.value.path) == ("too_deep", "/metadata")
    assert smpatch.owners(live, max_depth=2) == []
    assert live == before
    deep: dict = {}
    node = deep
    for _ in range(300):
        node["a"] = {}
        node = node["a"]
    assert smpatch.owners(deep, max_depth=400) == []
    assert smpatch.owners(json.dumps(deep), max_depth=400, as_bytes=True) == b"[]"
    with pytest.raises(smpatch.Error) as info:
        smpatch.owners(deep, max_depth=299)
    assert info.value.kind == "too_deep"
    assert info.value.path == "/a" * 299
