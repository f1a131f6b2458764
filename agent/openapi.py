"""docs/openapi.yaml's request schemas and the answers' objects that are structs, generated
from those structs (issue 39 point 3).

The request bodies (agent/api.py) and what they hold (the actions, the lifetimes, a proxy's
settings, a fingerprint) are described by `msgspec.json.schema_components`; each action union
becomes one named component (`Action`, `RefAction`) that every body refers to instead of a copy
of its members. The answers' objects built from structs (agent/responses.py) are generated
likewise. The routes and the other answers stay written in the file;
`make openapi` (scripts/openapi.py, which reads and writes the YAML) rewrites the generated part
in place and tests/agent/test_openapi.py fails while the file differs from the structs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from bridge_protocol import Action, Observation, RefAction

from . import (
    api,
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
# The `data` of the answers, each named as the routes refer to it; what they hold is found from
# them. The others are still written in the file.
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

# Structs whose schema is written in the file, not generated: the observation's compact wire form
# says more than its items' types (int | str | list[Any]) can. tests/agent/test_openapi.py keeps
# its fields and its required fields the struct's.
WRITTEN: dict[str, type[msgspec.Struct]] = {"Observation": Observation}


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


def components(bodies: list[type[msgspec.Struct]]) -> dict[str, Any]:
    """The generated `components.schemas` entries: the bodies, the answers' objects, what they
    refer to, the unions."""
    types: list[Any] = [*bodies, *RESPONSES, *UNIONS.values()]
    out, found = msgspec.json.schema_components(types, ref_template=REF)
    unions = dict(zip(UNIONS, out[len(bodies) + len(RESPONSES) :], strict=True))
    generated = {name: _named(_untitled(schema), unions) for name, schema in found.items()}
    generated.update(unions)
    # what the roots reach without going through a written schema (its own parts stay written)
    reached: set[str] = set()
    todo = [*_refs(out), *unions]
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
