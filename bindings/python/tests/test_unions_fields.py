"""The union operations (normalize, validate, server_apply; KEP-1027 and
KEP-2887) and the field-set operations (fields, extract; KEP-2155) through
the Python API, on the repository's testdata (testdata/unions/k8s,
testdata/fieldsets)."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

import smpatch
from conftest import REPO

K8S = REPO / "testdata" / "unions" / "k8s"
FIELDSETS = REPO / "testdata" / "fieldsets"


def text(name: str) -> str:
    return (K8S / name).read_text()


def fieldset_case(name: str) -> dict:
    return json.loads((FIELDSETS / name).read_text())


PLC_LIMITED = text("plc-limited.yaml")
PLC_BOTH = text("plc-limited-and-exempt.yaml")
TO_EXEMPT = {"spec": {"type": "Exempt", "exempt": {}}}


# --- normalize ---------------------------------------------------------------


def test_normalize_clears_the_member_a_changed_discriminator_deselects():
    old = smpatch.apply(PLC_LIMITED, {"metadata": {"labels": {"x": "1"}}})
    new = smpatch.apply(old, TO_EXEMPT)
    assert "limited" in new["spec"]  # the merge alone keeps both members
    before = copy.deepcopy(new)
    obj, cleared = smpatch.normalize(new, old)
    assert cleared == ["/spec/limited"]
    assert obj["spec"] == {"type": "Exempt", "exempt": {}}
    assert obj["metadata"]["labels"] == {"x": "1"}
    assert new == before  # inputs unchanged


def test_normalize_as_bytes_and_text_documents():
    old = smpatch.apply(PLC_LIMITED, {"metadata": {"labels": {"x": "1"}}}, as_bytes=True)
    new = smpatch.apply(old, TO_EXEMPT, as_bytes=True)
    obj, cleared = smpatch.normalize(new, old, as_bytes=True)
    assert isinstance(obj, bytes)
    assert cleared == ["/spec/limited"]
    assert json.loads(obj)["spec"] == {"type": "Exempt", "exempt": {}}


def test_normalize_on_create_keeps_the_selected_member_only():
    obj, cleared = smpatch.normalize(PLC_LIMITED)
    assert cleared == []
    assert obj["spec"]["type"] == "Limited"
    obj, cleared = smpatch.normalize(PLC_BOTH)
    assert cleared == ["/spec/exempt"]
    assert "exempt" not in obj["spec"] and "limited" in obj["spec"]


def test_normalize_raises_validation_with_every_violation():
    with pytest.raises(smpatch.Error) as info:
        smpatch.normalize(PLC_BOTH, PLC_LIMITED)
    e = info.value
    assert e.kind == "validation"
    assert isinstance(e, ValueError)
    assert [(v["path"], v["rule"]) for v in e.violations] == [
        ("/spec", "V3"),
        ("/spec/exempt", "V5"),
    ]
    assert all(v["message"] for v in e.violations)
    assert "V3" in e.message
    # pickling (multiprocessing) keeps the violations
    again = pickle.loads(pickle.dumps(e))
    assert (again.kind, again.violations) == (e.kind, e.violations)


def test_other_errors_have_no_violations():
    with pytest.raises(smpatch.Error) as info:
        smpatch.normalize({"spec": {}}, type="no.such.Type")
    assert info.value.kind != "validation"
    assert info.value.violations == []


def test_normalize_bad_input_names_the_document():
    with pytest.raises(smpatch.Error) as info:
        smpatch.normalize("{not json", PLC_LIMITED)
    assert info.value.kind == "invalid_document"
    assert "(new)" in info.value.message
    with pytest.raises(smpatch.Error) as info:
        smpatch.validate(PLC_LIMITED, {"spec": {1: 2}})
    assert (info.value.kind, info.value.path) == ("invalid_document", "/spec")
    assert "(old)" in info.value.message


# --- validate ----------------------------------------------------------------


def test_validate_lists_violations_without_raising():
    found = smpatch.validate(PLC_BOTH)
    assert [(v["path"], v["rule"]) for v in found] == [("/spec", "V3"), ("/spec/exempt", "V5")]
    assert set(found[0]) == {"path", "rule", "message"}


def test_validate_valid_objects():
    assert smpatch.validate(PLC_LIMITED) == []
    # SeccompProfile: `type: Localhost` selects no member field, nothing is wrong.
    assert smpatch.validate(text("pod-seccomp.yaml")) == []


def test_validate_against_old_changes_the_advice():
    on_create = smpatch.validate(PLC_BOTH)
    on_update = smpatch.validate(PLC_BOTH, PLC_LIMITED)
    assert [v["rule"] for v in on_update] == ["V3", "V5"]
    assert on_create[0]["message"] != on_update[0]["message"]
    assert "change the discriminator" in on_update[0]["message"]


def test_validate_enums_and_check_enums_option_with_a_loaded_schema():
    schema = smpatch.Schema.load(REPO / "testdata" / "unions" / "fieldMembers.v2.json")
    src = {"type": "Git", "git": {"url": "g"}, "mode": "Medium"}
    found = smpatch.validate(src, schema=schema, type="com.example.Src")
    assert [(v["path"], v["rule"]) for v in found] == [("/mode", "enum")]
    assert smpatch.validate(src, schema=schema, type="com.example.Src", check_enums=False) == []
    # a discriminator value outside the union's values: V1
    bad = smpatch.validate({"type": "Ftp"}, schema=schema, type="com.example.Src")
    assert "V1" in [v["rule"] for v in bad]
    # and normalize through the same schema
    obj, cleared = smpatch.normalize(
        {"type": "Http", "git": {"url": "g"}, "http": {"url": "h"}},
        {"type": "Git", "git": {"url": "g"}},
        schema=schema,
        type="com.example.Src",
    )
    assert (obj, cleared) == ({"type": "Http", "http": {"url": "h"}}, ["/git"])


# --- server_apply ------------------------------------------------------------


def test_server_apply_merges_then_normalizes():
    obj, cleared = smpatch.server_apply(PLC_LIMITED, TO_EXEMPT)
    assert cleared == ["/spec/limited"]
    assert obj["spec"] == {"type": "Exempt", "exempt": {}}
    # plain apply keeps both members
    assert "limited" in smpatch.apply(PLC_LIMITED, TO_EXEMPT)["spec"]


def test_server_apply_refuses_an_invalid_result():
    with pytest.raises(smpatch.Error) as info:
        smpatch.server_apply(PLC_LIMITED, {"spec": {"exempt": {}}})
    assert info.value.kind == "validation"
    assert {v["rule"] for v in info.value.violations} >= {"V5"}


# --- fields ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["01-configmap-maps.json", "04-finalizers-set.json"])
def test_fields_match_the_testdata_sets(name):
    case = fieldset_case(name)
    got = smpatch.fields(case["object"], type=case["type"], as_bytes=True)
    assert got.decode() == case["apply_set"]
    assert smpatch.fields(case["object"], type=case["type"]) == json.loads(case["apply_set"])


def test_fields_options():
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}
    assert smpatch.fields(cm) == {"f:data": {"f:k": {}}}
    kept = smpatch.fields(cm, strip_server_fields=False)
    assert "f:kind" in kept and "f:metadata" in kept


# --- extract -----------------------------------------------------------------


def test_extract_matches_the_testdata_configuration():
    case = fieldset_case("14-extract-set-and-map.json")
    live = case["object"]
    before = copy.deepcopy(live)
    for want in case["extract"]:
        got = smpatch.extract(live, want["manager"], type=case["type"])
        assert got == want["expected"]
        raw = smpatch.extract(json.dumps(live), want["manager"], as_bytes=True)
        assert json.loads(raw) == want["expected"]
    assert live == before


def test_extract_unknown_manager():
    live = fieldset_case("14-extract-set-and-map.json")["object"]
    with pytest.raises(smpatch.Error) as info:
        smpatch.extract(live, "nobody")
    assert info.value.kind == "no_apply_entry"
    assert info.value.path == "/metadata/managedFields"
    # client-go's behaviour: the identity fields only
    assert smpatch.extract(live, "nobody", reference=True) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "guard", "namespace": "ops"},
    }


def test_extract_subresource_selects_its_entry():
    live = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "c",
            "managedFields": [
                {"manager": "m", "operation": "Apply", "apiVersion": "v1",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}},
                {"manager": "m", "operation": "Apply", "apiVersion": "v1", "subresource": "status",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:b": {}}}},
            ],
        },
        "data": {"a": "1", "b": "2"},
    }
    assert smpatch.extract(live, "m")["data"] == {"a": "1"}
    assert smpatch.extract(live, "m", subresource="status")["data"] == {"b": "2"}


def test_extract_keeps_big_numbers_exact():
    big = 2**70 + 1
    live = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "c",
            "annotations": {"a": "x"},
            "managedFields": [
                {"manager": "m", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:metadata": {"f:annotations": {"f:a": {}}}}},
            ],
        },
    }
    assert smpatch.extract(live, "m")["metadata"]["annotations"] == {"a": "x"}
    obj, _ = smpatch.normalize({"spec": {"n": big, "f": 0.1}}, type=None, schema=smpatch.Schema.schemaless())
    assert obj["spec"]["n"] == big and type(obj["spec"]["n"]) is int
    assert obj["spec"]["f"] == 0.1


# --- limits ------------------------------------------------------------------


def nested(levels: int) -> dict:
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "data": {}}
    node = doc["data"]
    for _ in range(levels):
        node["x"] = {}
        node = node["x"]
    return doc


@pytest.mark.parametrize(
    "call",
    [
        lambda d: smpatch.normalize(d),
        lambda d: smpatch.validate(d),
        lambda d: smpatch.server_apply(d, {}),
        lambda d: smpatch.fields(d),
        lambda d: smpatch.extract(d, "m"),
    ],
    ids=["normalize", "validate", "server_apply", "fields", "extract"],
)
def test_too_deep_is_an_error_never_a_crash(call):
    with pytest.raises(smpatch.Error) as info:
        call(nested(400))
    assert info.value.kind == "too_deep"
    assert info.value.path.startswith("/data/x/x/x")


def test_max_depth_option_of_the_field_set_operations():
    doc = nested(20)
    free = smpatch.Schema.schemaless()
    for call in (smpatch.fields, lambda d, **k: smpatch.extract(d, "m", **k)):
        with pytest.raises(smpatch.Error) as info:
            call(doc, schema=free, max_depth=5)
        assert (info.value.kind, info.value.path) == ("too_deep", "/data/x/x/x/x")
    assert smpatch.fields(doc, schema=free, max_depth=64)["f:data"]["f:x"]
