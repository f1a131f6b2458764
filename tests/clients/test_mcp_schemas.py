"""svc-mcp's tool input schemas agree with the API's structs (issue 13 point 2: the `wait`
action's `seconds` had no maximum in the tool schema, 3600 in the struct), read by svc-mcp's own
validator and by a standard JSON Schema validator alike; the tool list stays within the tokens an
agent pays for it on every turn (issue 38); and the shapes of the tools' results, checked on every
successful call of the end-to-end tests (RESULTS)."""

from __future__ import annotations

import re
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import msgspec
import pytest

from agent.api import CaptureBody, ObservationActionsBody
from benchmarks.tokens import compact, tokens
from bridge_protocol.actions import Action, RefAction
from clients.mcp_server.protocol import INSTRUCTIONS, LEGACY, MODERN, Protocol
from clients.mcp_server.schema import Invalid, validate
from clients.mcp_server.tools import ACTION, REF_ACTION, TIMEOUT, TOOLS, WAIT

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

# issue 38: every tool of svc-mcp, as an MCP client holds the list (compact JSON), in cl100k tokens
TOOL_LIST_BUDGET = 3500


# A scroll must move (spec 1 §4): the one rule of the structs that JSON Schema would say only at
# length (not both deltas 0). The union's description says it; the agent answers a scroll that
# does not move with VALIDATION_FAILED (details.field actions[i].delta_y) before anything runs.
MOVES = {"scroll": {"delta_y": -100}}


def _minimal(variant: dict[str, Any]) -> dict[str, Any]:
    props = variant["properties"]
    out = {"action": props["action"]["const"], **MOVES.get(props["action"]["const"], {})}
    for name in variant.get("required", []):
        if name != "action":
            out[name] = SAMPLES[name]
    return out


def _field(union: dict[str, Any], variant: dict[str, Any], name: str) -> dict[str, Any]:
    """A branch's field schema: its own, or the union's where the branch only admits it."""
    prop = variant["properties"][name]
    if prop is True:
        shared: dict[str, Any] = union["properties"][name]
        return shared
    assert isinstance(prop, dict), (name, prop)
    return prop


def _tool_accepts(schema: dict[str, Any], value: Any) -> bool:
    try:
        validate(schema, value)
    except Invalid:
        mine = False
    else:
        mine = True
    # the schema as any JSON Schema client reads it says the same
    assert jsonschema.Draft202012Validator(schema).is_valid(value) == mine, (value, mine)
    return mine


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
    if prop.get("type") == "boolean":
        out += [True, 1, "true"]
    return out


@pytest.mark.parametrize(("schema", "tp"), [(ACTION, Action), (REF_ACTION, RefAction)])
def test_every_action_field_bound_agrees_with_the_struct(schema: dict[str, Any], tp: Any) -> None:
    tags = [v["properties"]["action"]["const"] for v in schema["oneOf"]]
    assert set(tags) == {t.__struct_config__.tag for t in tp.__args__}
    names = {v["properties"]["action"]["const"]: set(v["properties"]) for v in schema["oneOf"]}
    for t in tp.__args__:  # each branch names exactly its struct's fields
        assert names[t.__struct_config__.tag] == {"action", *t.__struct_fields__}, t
    assert not _tool_accepts(schema, {"selector": "#a", "ref": "e1"})  # no tag
    for variant in schema["oneOf"]:
        base = _minimal(variant)
        assert _tool_accepts(schema, base)
        assert _api_accepts(tp, base)
        for name in variant["properties"]:
            for probe in _probes(_field(schema, variant, name)):
                value = {**base, name: probe}
                assert _tool_accepts(schema, value) == _api_accepts(tp, value), (value, name)
        for other in {n for fields in names.values() for n in fields} - set(variant["properties"]):
            value = {**base, other: SAMPLES.get(other, True)}  # another branch's field
            assert not _tool_accepts(schema, value), value
            assert not _api_accepts(tp, value), value


def test_a_scroll_that_does_not_move_is_left_to_the_agent_and_described() -> None:
    for still in ({"action": "scroll"}, {"action": "scroll", "delta_x": 0, "delta_y": 0}):
        assert _tool_accepts(REF_ACTION, still)
        assert not _api_accepts(RefAction, still)
    assert "not both 0" in REF_ACTION["description"]


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
        for key in ("minimum", "maximum", "exclusiveMinimum"):
            assert tool_prop.get(key) == api.get(key), (name, key)
        # their defaults are said once, in the instructions, not in each of seven tools
        assert re.search(rf"{name} \([^)]*default {api['default']:g}\)", INSTRUCTIONS), name
    batch = msgspec.json.schema(ObservationActionsBody)
    actions = batch["$defs"]["ObservationActionsBody"]["properties"]["actions"]
    assert (actions["minItems"], actions["maxItems"]) == (1, 32)


# --- the list an agent pays for -----------------------------------------------------------------


def test_the_tool_list_is_valid_json_schema_within_its_token_budget() -> None:
    """Issue 38: the `tools` array of tools/list as compact JSON, in cl100k_base tokens (what
    `make bench` prints beside Playwright MCP's), at most TOOL_LIST_BUDGET for all 16 tools at
    every revision; every input schema is a valid JSON Schema (2020-12)."""
    server = Protocol("svc-mcp", "0", TOOLS)
    assert len(TOOLS) == 16
    for revision in (*LEGACY, *MODERN):
        listed = [server.listing(tool, revision) for tool in TOOLS]
        cost = tokens(compact(listed))
        assert cost <= TOOL_LIST_BUDGET, (revision, cost)
    for tool in TOOLS:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert "outputSchema" not in server.listing(tool, MODERN[-1])  # shapes: RESULTS, below


def test_annotations_say_each_hint_once() -> None:
    """Hints that differ from MCP's defaults, destructiveHint always for a tool that changes
    things; the title in annotations only before revisions with a tool title."""
    server = Protocol("svc-mcp", "0", TOOLS)
    by_name = {t.name: t for t in TOOLS}
    modern = {t.name: server.listing(t, "2025-06-18") for t in TOOLS}
    assert modern["svc_find"]["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    assert modern["svc_action"]["annotations"] == {"destructiveHint": True}
    assert modern["svc_navigate"]["annotations"] == {"destructiveHint": False}
    assert modern["svc_close_session_group"]["annotations"] == {
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    for name, entry in modern.items():
        assert entry["title"] == by_name[name].title
        assert "title" not in entry["annotations"]
        assert server.listing(by_name[name], "2025-03-26")["annotations"]["title"] == entry["title"]


# --- result shapes ------------------------------------------------------------------------------
# What the agent's API answers for each route (spec 1 §4), as structuredContent carries it: the
# end-to-end tests check every successful result against these (tests/clients/test_mcp_e2e.py).
# They are not listed as outputSchema: the tool list is read on every turn (issue 38), the
# descriptions say the shapes an agent needs. Objects stay open: svc-mcp adds `output_uri`
# beside every `output_path`, and the API may add fields.


def _obj(props: dict[str, Any], *required: str) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required or props)}


_STR = {"type": "string"}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_OPT_INT = {"type": ["integer", "null"]}
_OPT_STR = {"type": ["string", "null"]}
_PAGE = _obj({"id": _STR, "session_id": _STR, "url": _STR})
_CAPTURE = _obj(
    {
        "page": _PAGE,
        "capture": _obj({"output_path": _STR, "bytesize": _INT, "target_http_status": _OPT_INT}),
    }
)
_OBSERVATION = _obj(
    {
        "page": _PAGE,
        "observation": _obj(
            {
                "id": _STR,
                "seq": _INT,
                "at": _STR,
                "vp": {"type": "array", "items": _INT, "minItems": 4, "maxItems": 4},
                "doc": {"type": "array", "items": _INT, "minItems": 2, "maxItems": 2},
                "content": {"type": "array"},
                "elements": {"type": "array"},
                "truncated": _BOOL,
            },
            "id",
            "seq",
            "at",
            "vp",
            "doc",
            "truncated",
        ),
    }
)
_SESSION = _obj({"id": _STR, "name": _STR, "group": _OPT_STR, "lifetime": {"type": "object"}})
_TRUST = {"const": "untrusted_website_content"}

RESULTS: dict[str, dict[str, Any]] = {
    "svc_status": _obj({"overall_status": _STR}, "overall_status"),
    "svc_notifications": _obj(
        {
            "notifications": {
                "type": "array",
                "items": _obj(
                    {
                        "sequence": _INT,
                        "session_id": _STR,
                        "origin": _STR,
                        "title": _STR,
                        "body": _STR,
                        "notification_id": _STR,
                        "persistent": _BOOL,
                        "displayed_at": _STR,
                        "trust": _TRUST,
                    }
                ),
            },
            "trust": _TRUST,
        }
    ),
    "svc_capture": _obj(
        {
            "request_id": _STR,
            "exit_code": {"enum": [0, 1]},
            "events": {
                "type": "array",
                "items": _obj(
                    {
                        "event": _STR,
                        "status": {"enum": ["ok", "error"]},
                        "data": {"type": "object"},
                    }
                ),
            },
        }
    ),
    "svc_page_attach": _CAPTURE,
    "svc_navigate": _OBSERVATION,
    "svc_read": _obj(
        {
            "source_url": _STR,
            "title": _STR,
            "observation_id": _STR,
            "session_id": _STR,
            "query_matched": {"type": ["boolean", "null"]},  # null: no query
            "source_truncated": _BOOL,
            "output_truncated": _BOOL,
        },
        "source_url",
        "observation_id",
        "source_truncated",
        "output_truncated",
    ),
    "svc_page_action": _CAPTURE,
    "svc_take_screenshot": _obj(
        {
            "page": _PAGE,
            "screenshot": _obj(
                {
                    "bytesize": _INT,
                    "format": {"enum": ["png", "jpeg", "webp"]},
                    "mime_type": _STR,
                    "width": _INT,
                    "height": _INT,
                }
            ),
        }
    ),
    "svc_observe": _OBSERVATION,
    "svc_find": _obj(
        {
            "page": _PAGE,
            "observation_id": _STR,
            "content": {"type": "array", "items": {"type": "object"}},
            "elements": {"type": "array", "items": {"type": "object"}},
            "total_matches": _INT,
            "truncated": _BOOL,
        }
    ),
    "svc_action": _OBSERVATION,
    "svc_create_session": _obj({"session": _SESSION}),
    "svc_ping_session": _obj({"session_id": _STR, "lifetime": {"type": "object"}}),
    "svc_list_sessions": _obj({"sessions": {"type": "array", "items": _SESSION}}),
    "svc_close_session_group": _obj(
        {"group": _STR, "deleted_ids": {"type": "array", "items": _STR}}
    ),
    "svc_list_proxies": _obj(
        {"proxies": {"type": "array", "items": _obj({"alias": _STR}, "alias")}}
    ),
}


def check_result(tool: str, value: Any) -> None:
    """A successful result of `tool` has its shape (RESULTS)."""
    jsonschema.validate(value, RESULTS[tool])


def test_result_shapes_are_valid_and_a_broken_observation_fails_its_shape() -> None:
    assert set(RESULTS) == {t.name for t in TOOLS}
    for schema in RESULTS.values():
        jsonschema.Draft202012Validator.check_schema(schema)
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
    check_result("svc_observe", {"page": page, "observation": observation})
    with pytest.raises(jsonschema.ValidationError):
        check_result("svc_observe", {"page": page, "observation": {**observation, "vp": [0, 0]}})
