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


# --- output schemas -------------------------------------------------------------------------------


def test_output_schemas_are_valid_and_listed_only_from_2025_06_18() -> None:
    """Each declared outputSchema is a valid JSON Schema; older protocol versions, which know no
    outputSchema, never see one. What real results look like against them is checked by the
    official SDK client in tests/clients/test_mcp_e2e.py (it validates every successful call)."""
    import jsonschema  # type: ignore[import-untyped]

    from clients.mcp_server.protocol import Protocol
    from clients.mcp_server.tools import TOOLS

    declared = {t.name: t.output_schema for t in TOOLS if t.output_schema is not None}
    assert "svc_read" not in declared  # Markdown text with metadata: no fixed shape
    assert len(declared) == 15
    for schema in declared.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    server = Protocol("svc-mcp", "0", TOOLS)
    for tool in TOOLS:
        modern = server.listing(tool, "2025-06-18")
        assert ("outputSchema" in modern) == (tool.name in declared)
        assert "outputSchema" not in server.listing(tool, "2025-03-26")


def test_an_observation_result_matches_its_output_schema_and_a_broken_one_does_not() -> None:
    import jsonschema

    from clients.mcp_server import outputs

    page = {"id": "page_1", "session_id": "Session1", "url": "https://example.test/"}
    observation = {
        "id": "obs_1",
        "seq": 1,
        "at": "2026-05-01T12:00:00.123Z",
        "vp": [0, 0, 1920, 947],
        "doc": [1920, 947],
        "content": [["text", "hello"]],
        "truncated": False,
    }
    jsonschema.validate({"page": page, "observation": observation}, outputs.OBSERVATION)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"page": page, "observation": {**observation, "vp": [0, 0]}}, outputs.OBSERVATION
        )
