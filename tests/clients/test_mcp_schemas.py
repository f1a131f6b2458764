"""svc-mcp's tool input schemas agree with the API's structs (issue 13 point 2: the `wait`
action's `seconds` had no maximum in the tool schema, 3600 in the struct)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from agent.api import CaptureBody, ObservationActionsBody
from bridge_protocol.actions import Action, RefAction
from clients.mcp_server.schema import Invalid, validate
from clients.mcp_server.tools import ACTION, REF_ACTION, TIMEOUT, WAIT

SAMPLES: dict[str, Any] = {
    "selector": "#a",
    "ref": "e1",
    "text": "x",
    "value": "v",
    "key": "Enter",
    "link": "https://example.com/",
    "match": {"type": "fuzzy-link", "threshold": 0.5},
    "seconds": 1,
}


def _minimal(variant: dict[str, Any]) -> dict[str, Any]:
    props = variant["properties"]
    out = {"action": props["action"]["const"]}
    for name in variant.get("required", []):
        if name != "action":
            out[name] = SAMPLES[name]
    return out


def _tool_accepts(schema: dict[str, Any], value: Any) -> bool:
    try:
        validate(schema, value)
    except Invalid:
        return False
    return True


def _api_accepts(tp: Any, value: Any) -> bool:
    try:
        msgspec.convert(value, tp)
    except msgspec.ValidationError:
        return False
    return True


def _probes(prop: dict[str, Any]) -> list[Any]:
    """Values at and just past each numeric bound, and an out-of-enum string."""
    out: list[Any] = []
    for key in ("minimum", "maximum", "exclusiveMinimum"):
        if key in prop:
            b = prop[key]
            out += [b, b - 1, b + 1, b - 0.5, b + 0.5]
    if "enum" in prop:
        out += [prop["enum"][0], "not-a-member"]
    if "pattern" in prop or "minLength" in prop:
        out += ["", "e1", "x"]
    return out


@pytest.mark.parametrize(("schema", "tp"), [(ACTION, Action), (REF_ACTION, RefAction)])
def test_every_action_field_bound_agrees_with_the_struct(schema: dict[str, Any], tp: Any) -> None:
    assert {v["properties"]["action"]["const"] for v in schema["oneOf"]} == {
        t.__struct_config__.tag for t in tp.__args__
    }
    for variant in schema["oneOf"]:
        base = _minimal(variant)
        assert _tool_accepts(schema, base)
        assert _api_accepts(tp, base)
        for name, prop in variant["properties"].items():
            for probe in _probes(prop):
                value = {**base, name: probe}
                assert _tool_accepts(schema, value) == _api_accepts(tp, value), (value, prop)


def test_the_wait_action_has_the_structs_maximum() -> None:
    [wait] = [v for v in ACTION["oneOf"] if v["properties"]["action"]["const"] == "wait"]
    assert wait["properties"]["seconds"]["maximum"] == 3600
    [ref_wait] = [v for v in REF_ACTION["oneOf"] if v["properties"]["action"]["const"] == "wait"]
    assert ref_wait["properties"]["seconds"]["maximum"] == 60


def test_timeout_and_wait_bounds_agree_with_the_bodies() -> None:
    body = msgspec.json.schema(CaptureBody)
    props = body["$defs"]["CaptureBody"]["properties"]
    for tool_prop, name in ((TIMEOUT, "timeout"), (WAIT, "wait")):
        api = props[name]
        for key in ("minimum", "maximum", "exclusiveMinimum", "default"):
            assert tool_prop.get(key) == api.get(key), (name, key)
    batch = msgspec.json.schema(ObservationActionsBody)
    actions = batch["$defs"]["ObservationActionsBody"]["properties"]["actions"]
    assert (actions["minItems"], actions["maxItems"]) == (1, 32)
