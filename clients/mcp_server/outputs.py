"""The `outputSchema` of the tools whose results have a fixed shape (MCP 2025-06-18 and later).

Each schema states what the agent's API answers for that route (spec 1 §4), as `structuredContent`
carries it: required keys and their types. Objects stay open (`additionalProperties` allowed):
svc-mcp adds `output_uri` beside every `output_path`, and the API may add fields; a client that
validates (the official SDKs do, on every successful call) must not fail on those. Results with
`isError` are not checked against them (the error envelope is the spec's).
"""

from __future__ import annotations

from typing import Any


def _obj(props: dict[str, Any], *required: str) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required or props)}


_STR = {"type": "string"}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_OPT_INT = {"type": ["integer", "null"]}
_OPT_STR = {"type": ["string", "null"]}

PAGE = _obj({"id": _STR, "session_id": _STR, "url": _STR})

CAPTURE = _obj(
    {
        "page": PAGE,
        "capture": _obj({"output_path": _STR, "bytesize": _INT, "target_http_status": _OPT_INT}),
    }
)

OBSERVATION = _obj(
    {
        "page": PAGE,
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

SCREENSHOT = _obj(
    {
        "page": PAGE,
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
)

FIND = _obj(
    {
        "page": PAGE,
        "observation_id": _STR,
        "content": {"type": "array", "items": {"type": "object"}},
        "elements": {"type": "array", "items": {"type": "object"}},
        "total_matches": _INT,
        "truncated": _BOOL,
    }
)

CAPTURE_RUN = _obj(
    {
        "request_id": _STR,
        "exit_code": {"enum": [0, 1]},
        "events": {
            "type": "array",
            "items": _obj(
                {"event": _STR, "status": {"enum": ["ok", "error"]}, "data": {"type": "object"}}
            ),
        },
    }
)

NOTIFICATIONS = _obj(
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
                    "trust": {"const": "untrusted_website_content"},
                }
            ),
        },
        "trust": {"const": "untrusted_website_content"},
    }
)

_SESSION = _obj({"id": _STR, "name": _STR, "group": _OPT_STR, "lifetime": {"type": "object"}})

SESSION = _obj({"session": _SESSION})
SESSIONS = _obj({"sessions": {"type": "array", "items": _SESSION}})
PING = _obj({"session_id": _STR, "lifetime": {"type": "object"}})
CLOSED_GROUP = _obj({"group": _STR, "deleted_ids": {"type": "array", "items": _STR}})
PROXIES = _obj({"proxies": {"type": "array", "items": _obj({"alias": _STR}, "alias")}})
STATUS = _obj({"overall_status": _STR}, "overall_status")
