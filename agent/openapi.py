"""docs/openapi.yaml's schemas of the requests and of the answers, generated from their structs
(issue 39 point 3).

The request bodies (agent/api.py) and what they hold (the actions, the lifetimes, a proxy's
settings, a fingerprint) and the `data` of every answer (agent/responses.py and the modules
beside it: proxy_responses, health_responses, page_responses, observation_responses) are
described by `msgspec.json.schema_components`; each union becomes one named component
(`Action`, `RefAction`, `Lifetime`) that every schema refers to instead of a copy of its members.
The capture stream's line is made from the events of agent/capture_events.py. Written in the
file stay the routes (paths, summaries, the success envelope around each answer, the error
responses), the error envelope and two schemas whose wire form says more than their struct's
types (WRITTEN). `make openapi` (scripts/openapi.py, which reads and writes the YAML) rewrites the
generated part in place and drops the schemas no route uses any more;
tests/agent/test_openapi.py fails while the file differs from the structs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from bridge_protocol import Action, ApiError, Observation, RefAction

from . import (
    api,
    capture_events,
    health_responses,
    observation_responses,
    page_responses,
    proxy_responses,
    responses,
)
from .notification_log import Notifications

PREFIX = "#/components/schemas/"
REF = PREFIX + "{name}"
UNIONS: dict[str, Any] = {
    "Action": Action,
    "RefAction": RefAction,
    "Lifetime": responses.LifetimeShown,
}
# The `data` of every route's answer, each named as the routes refer to it
# (test_every_answer_is_a_generated_schema); what they hold is found from them.
RESPONSES: tuple[type[msgspec.Struct], ...] = (
    responses.SessionList,
    responses.SessionResult,
    responses.SessionsClosed,
    responses.SessionDeleted,
    responses.SessionPing,
    responses.NetworkState,
    responses.ProfileList,
    responses.ProfileResult,
    responses.ProfileDeleted,
    responses.ProfileImported,
    responses.TransferArchive,
    proxy_responses.ProxyList,
    proxy_responses.ProxyResult,
    proxy_responses.ProxyDeleted,
    proxy_responses.ProxyLocation,
    health_responses.Health,
    health_responses.Status,
    page_responses.PageOperation,
    page_responses.ScreenshotResult,
    Notifications,
    observation_responses.ObservationResult,
    observation_responses.FindResult,
)

# Structs whose schema is written in the file (under the name given here), not generated: the
# observation's compact wire form says more than its items' types (int | str | list[Any]) can, and
# the error object lists the error table's ids and codes. tests/agent/test_openapi.py keeps their
# fields and required fields the structs'.
WRITTEN: dict[str, type[msgspec.Struct]] = {"Observation": Observation, "ErrorObject": ApiError}


def request_bodies(doc: dict[str, Any]) -> list[type[msgspec.Struct]]:
    """The structs the routes of `doc` take as their bodies (by the names they refer to)."""
    names = {
        operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/")[-1]
        for item in doc["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "requestBody" in operation
    }
    return [getattr(api, name) for name in sorted(names)]


def _untitled(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without msgspec's title, its description (a docstring) on one line."""
    out = {k: v for k, v in schema.items() if k != "title"}
    if isinstance(out.get("description"), str):
        out["description"] = " ".join(out["description"].split())
    return out


def _named(node: Any, unions: dict[str, Any]) -> Any:
    """`node` with every inline copy of a named union replaced by a reference to it."""
    for name, union in unions.items():
        if node == union:
            return {"$ref": REF.format(name=name)}
    if isinstance(node, dict):
        return {k: _named(v, unions) for k, v in node.items()}
    if isinstance(node, list):
        return [_named(v, unions) for v in node]
    return node


def _capture_line(status: str, event: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "status": {"enum": [status]},
            "request_id": {"type": "string"},
            "event": {"enum": [event]},
            "data": data,
        },
        "required": ["status", "request_id", "event", "data"],
        "additionalProperties": False,
    }


def capture_stream_line(data: list[dict[str, Any]]) -> dict[str, Any]:
    """One line of the capture stream: each event of agent/capture_events.py with its data
    (`data`: their schemas, in EVENTS' order), and capture.failed with the error object."""
    lines = [
        _capture_line("ok", event.EVENT, schema)
        for event, schema in zip(capture_events.EVENTS, data, strict=True)
    ]
    failed = _capture_line("error", capture_events.FAILED, {"$ref": REF.format(name="ErrorObject")})
    lines.insert(-1, failed)  # before capture.finished, the last line
    return {
        "description": "One line of the application/x-ndjson capture stream (spec 1 §6): an "
        "event and its data.",
        "anyOf": lines,
    }


def _renamed(node: Any, names: dict[str, str]) -> Any:
    """`node` with its references to the schemas `names` maps made to their new names."""
    if isinstance(node, dict):
        return {
            k: REF.format(name=names[v.removeprefix(PREFIX)])
            if k == "$ref" and v.removeprefix(PREFIX) in names
            else _renamed(v, names)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_renamed(v, names) for v in node]
    return node


def components(bodies: list[type[msgspec.Struct]]) -> dict[str, Any]:
    """The generated `components.schemas` entries: the bodies, the answers' objects, what they
    refer to, the unions, the capture stream's line."""
    roots: list[Any] = [*bodies, *RESPONSES, *UNIONS.values()]
    types = [*roots, *capture_events.EVENTS]
    out, found = msgspec.json.schema_components(types, ref_template=REF)
    written = {struct.__name__: name for name, struct in WRITTEN.items()}
    out = _renamed(list(out), written)
    unions = dict(zip(UNIONS, out[len(bodies) + len(RESPONSES) : len(roots)], strict=True))
    generated = {
        name: _named(_untitled(_renamed(schema, written)), unions) for name, schema in found.items()
    }
    generated.update(unions)
    generated["CaptureStreamLine"] = capture_stream_line(out[len(roots) :])
    # what the roots reach without going through a written schema (its own parts stay written)
    reached: set[str] = set()
    todo = [*_refs(out), *unions, "CaptureStreamLine"]
    while todo:
        name = todo.pop()
        if name not in reached and name not in WRITTEN:
            reached.add(name)
            todo.extend(_refs(generated[name]))
    return {name: schema for name, schema in generated.items() if name in reached}


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(PREFIX):
                yield value.removeprefix(PREFIX)
            else:
                yield from _refs(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _refs(value)


def referenced(doc: dict[str, Any]) -> set[str]:
    """The schemas the routes use, directly or through other schemas."""
    schemas = doc["components"]["schemas"]
    seen: set[str] = set()
    todo = [*_refs(doc["paths"]), *_refs(doc["components"].get("responses", {}))]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_refs(schemas.get(name, {})))
    return seen


def regenerated(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with its generated schemas rewritten, and those no route uses any more (a written
    one the generated part replaced) dropped."""
    schemas = doc["components"]["schemas"]
    schemas.update(components(request_bodies(doc)))
    used = referenced(doc)
    doc["components"]["schemas"] = {k: v for k, v in sorted(schemas.items()) if k in used}
    return doc
