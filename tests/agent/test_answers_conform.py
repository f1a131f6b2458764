"""The answers the agent sends conform to docs/openapi.yaml's schemas of them, which are generated
from the answer structs (issue 39 point 3): one in-process walk through the routes (the real app
and services, a FakeBrowser on the bridge), each success data checked against its route's
schema, absent-versus-null included (every answer schema is closed)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from .inprocess import InProcessAgent, in_process_agent
from .test_openapi import OPENAPI, conforms, operations

DOC: dict[str, Any] = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))


@pytest.fixture
async def inproc(tmp_path: Path) -> AsyncIterator[InProcessAgent]:
    async with in_process_agent(tmp_path / "data") as agent_:
        yield agent_


def _route(method: str, path: str) -> dict[str, Any]:
    """The 200 content of the route that serves `path` (a concrete path; its own template first)."""
    found = {}
    for m, template, operation in operations(DOC):
        pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
        if m == method and re.match(pattern, path):
            found[template] = operation["responses"]["200"]["content"]
    content: dict[str, Any] = found.get(path) or found[min(found)]
    return content


async def checked(agent_: InProcessAgent, method: str, path: str, body: Any = None) -> Any:
    data = await agent_.ok(method, path, body)
    schema = _route(method, path)["application/json"]["schema"]["properties"]["data"]
    assert conforms(schema, data, DOC), (method, path, data)
    assert not conforms(schema, {**data, "unknown": 1}, DOC), (method, path)  # closed
    return data


async def test_every_answer_conforms_to_its_generated_schema(inproc: InProcessAgent) -> None:
    await checked(inproc, "GET", "/v1/health")
    await checked(inproc, "GET", "/v1/status")
    await checked(inproc, "GET", "/v1/notifications")

    plain = await checked(
        inproc,
        "POST",
        "/v1/proxies",
        {"alias": "plain", "upstream_host": "p.test", "upstream_port": 8080},
    )
    assert "providerx" not in plain["proxy"]  # absent, not null
    managed = await checked(
        inproc,
        "POST",
        "/v1/proxies",
        {
            "alias": "managed",
            "upstream_host": "m.test",
            "upstream_port": 8080,
            "username": "user",
            "password": "secret",
            "providerx_enabled": True,
            "providerx_location_parameter": "cc",
            "providerx_location_value": "de",
        },
    )
    assert managed["proxy"]["providerx"]["enabled"] is True
    await checked(inproc, "GET", "/v1/proxies")
    await checked(inproc, "GET", "/v1/proxies/plain")
    await checked(inproc, "PATCH", "/v1/proxies/plain", {"locale": "de-DE"})
    await checked(inproc, "POST", "/v1/proxies/managed/rotate-session")
    exported = await checked(
        inproc,
        "POST",
        "/v1/proxy-transfers/export",
        {"alias": "plain", "include_credentials": False},
    )
    await checked(
        inproc,
        "POST",
        "/v1/proxy-transfers/import",
        {"contents_base64": exported["contents_base64"], "alias": "copy"},
    )

    profile = await checked(
        inproc, "POST", "/v1/profiles", {"name": "Quiet", "proxy_alias": "plain"}
    )
    pid = profile["profile"]["id"]
    await checked(inproc, "GET", "/v1/profiles")
    await checked(inproc, "PATCH", f"/v1/profiles/{pid}", {"adblock_enabled": False})
    archive = await checked(inproc, "POST", "/v1/profile-transfers/export", {"name": "Quiet"})
    await checked(
        inproc,
        "POST",
        "/v1/profile-transfers/import",
        {"contents_base64": archive["contents_base64"], "name": "Quiet copy"},
    )

    created = await checked(
        inproc, "POST", "/v1/sessions", {"group": "walk", "proxy_alias": "plain"}
    )
    sid = created["session"]["id"]
    await checked(inproc, "GET", "/v1/sessions")
    await checked(inproc, "GET", f"/v1/sessions/{sid}")
    await checked(inproc, "PATCH", f"/v1/sessions/{sid}", {"name": "Walker"})
    await checked(inproc, "POST", f"/v1/sessions/{sid}/ping")
    await checked(inproc, "POST", f"/v1/sessions/{sid}/pause")
    await checked(inproc, "POST", f"/v1/sessions/{sid}/play")

    await checked(
        inproc, "POST", "/v1/navigate", {"url": "walk.test", "session_id": sid, "wait": 0}
    )
    await checked(inproc, "POST", "/v1/capture", {"session_id": sid, "wait": 0})
    await checked(
        inproc,
        "POST",
        "/v1/perform",
        {"session_id": sid, "actions": [{"action": "wait", "seconds": 0}], "wait": 0},
    )
    await checked(inproc, "POST", "/v1/screenshot", {"session_id": sid, "wait": 0})
    observed = await checked(
        inproc, "POST", "/v1/observe", {"session_id": sid, "mode": "hybrid", "wait": 0}
    )
    oid = observed["observation"]["id"]
    await checked(inproc, "GET", f"/v1/observations/{oid}")
    await checked(inproc, "POST", f"/v1/observations/{oid}/find", {"query": "go"})
    await checked(
        inproc,
        "POST",
        "/v1/navigate/observe",
        {"url": "walk.test/next", "session_id": sid, "wait": 0},
    )
    page = await checked(
        inproc, "POST", "/v1/pages", {"url": "walk.test/next", "session_id": sid, "wait": 0}
    )
    page_id = page["page"]["id"]
    await checked(
        inproc,
        "POST",
        f"/v1/pages/{page_id}/actions",
        {"action": {"action": "wait", "seconds": 0}, "wait": 0},
    )
    await checked(inproc, "POST", f"/v1/pages/{page_id}/screenshot", {"wait": 0})
    await checked(inproc, "POST", f"/v1/pages/{page_id}/observe", {"wait": 0})

    response = await inproc.stream(
        "/v1/captures", {"url": "walk.test", "session_id": sid, "wait": 0}
    )
    line_schema = _route("POST", "/v1/captures")["application/x-ndjson"]["schema"]
    lines = response.lines()
    assert lines
    for line in lines:
        assert conforms(line_schema, line, DOC), line

    await checked(inproc, "DELETE", "/v1/proxies/copy")
    await checked(inproc, "DELETE", f"/v1/profiles/{pid}")
    await checked(inproc, "DELETE", f"/v1/sessions/{sid}")
    await checked(inproc, "POST", "/v1/sessions/close", {"group": "walk"})
