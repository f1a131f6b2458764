"""svc-mcp with raw JSON lines and no agent: the legacy handshakes, 2026-07-28 discovery, and
every JSON-RPC error case. Nothing here starts the app (svc_status and invalid arguments never
do), which the tests check on a private data folder."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import SVC_MCP, free_port
from .mcpraw import META, RawMcp

LEGACY = ["2024-11-05", "2025-03-26", "2025-06-18"]


@pytest.fixture
def mcp(tmp_path: Path) -> Iterator[RawMcp]:
    client = RawMcp(free_port(), SVC_DATA_DIR=str(tmp_path / "data"))
    try:
        yield client
    finally:
        assert client.close() == 0
        assert not (tmp_path / "data").exists()  # no app was started


@pytest.mark.parametrize("version", LEGACY)
def test_legacy_handshake_and_shapes(mcp: RawMcp, version: str) -> None:
    reply = mcp.initialize(version)
    assert reply["id"] == 0
    result = reply["result"]
    assert result["protocolVersion"] == version
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"] == {"name": "svc-mcp", "version": "0.1.0"}
    assert set(result) == {"protocolVersion", "capabilities", "serverInfo", "instructions"}
    assert mcp.call(1, "ping") == {"jsonrpc": "2.0", "id": 1, "result": {}}
    tools = mcp.call(2, "tools/list")["result"]
    assert set(tools) == {"tools"}
    assert len(tools["tools"]) == 16
    for tool in tools["tools"]:
        keys = {"name", "description", "inputSchema"}
        if version >= "2025-03-26":
            keys.add("annotations")
        if version >= "2025-06-18":
            keys.add("title")  # no outputSchema: the descriptions say the shapes (issue 38)
        assert set(tool) == keys, tool["name"]
        assert tool["inputSchema"]["type"] == "object"
        if version >= "2025-03-26":  # the title once: in annotations only without a tool title
            assert ("title" in tool["annotations"]) == (version < "2025-06-18"), tool["name"]
    status = mcp.call("s", "tools/call", {"name": "svc_status", "arguments": {}})["result"]
    assert status["isError"] is True
    expected = {"content", "isError"} | (
        {"structuredContent"} if version >= "2025-06-18" else set()
    )
    assert set(status) == expected
    error = json.loads(status["content"][0]["text"])["error"]
    assert (error["id"], error["code"], error["retryable"]) == ("BROWSER_UNAVAILABLE", 10301, True)
    assert error["details"]["reason"] == "agent_unreachable"
    if version >= "2025-06-18":
        assert status["structuredContent"] == json.loads(status["content"][0]["text"])
    # the text block is compact JSON (issue 38 point 2)
    assert status["content"][0]["text"] == json.dumps(
        json.loads(status["content"][0]["text"]), ensure_ascii=False, separators=(",", ":")
    )


def test_unknown_legacy_version_gets_the_latest(mcp: RawMcp) -> None:
    assert mcp.initialize("2023-01-01")["result"]["protocolVersion"] == "2025-11-25"
    assert mcp.initialize("2024-11-05")["error"]["code"] == -32600  # already initialized


def _error(mcp: RawMcp, raw: object) -> dict[str, Any]:
    mcp.send(raw if isinstance(raw, bytes) else json.dumps(raw).encode())
    reply = mcp.recv()
    assert set(reply) == {"jsonrpc", "id", "error"}, reply
    return reply


def test_every_jsonrpc_error_case(mcp: RawMcp) -> None:
    assert _error(mcp, b"{not json")["error"]["code"] == -32700
    assert _error(mcp, b"\xff\xfe")["error"]["code"] == -32700
    for raw, rid in (
        ([], None),
        ([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], None),
        (42, None),
        ({"id": 3, "method": "ping"}, 3),
        ({"jsonrpc": "1.0", "id": 4, "method": "ping"}, 4),
        ({"jsonrpc": "2.0", "id": 5, "method": 7}, 5),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": 6, "method": "ping", "params": "x"}, 6),
        ({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}, 7),  # before the protocol flow
    ):
        reply = _error(mcp, raw)
        assert (reply["id"], reply["error"]["code"]) == (rid, -32600), raw
    reply = _error(mcp, {"jsonrpc": "2.0", "id": "m", "method": "resources/list"})
    assert (reply["id"], reply["error"]["code"]) == ("m", -32601)
    mcp.initialize("2025-06-18")
    for method in ("prompts/list", "logging/setLevel", "server/discover", "nope"):
        assert _error(mcp, {"jsonrpc": "2.0", "id": 8, "method": method})["error"]["code"] == -32601
    reply = _error(
        mcp, {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "x"}}
    )
    assert reply["error"]["code"] == -32602
    assert "x" in reply["error"]["message"]
    reply = _error(mcp, {"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": [1]})
    assert reply["error"]["code"] == -32602
    reply = _error(
        mcp,
        {
            "jsonrpc": "2.0",
            "id": 11,
            "method": "tools/call",
            "params": {"name": "svc_find", "arguments": 3},
        },
    )
    assert reply["error"]["code"] == -32602
    reply = _error(
        mcp, {"jsonrpc": "2.0", "id": 12, "method": "tools/list", "params": {"_meta": META}}
    )
    assert reply["error"]["code"] == -32600  # a 2026-07-28 envelope on a legacy connection
    # Notifications (known or not) and responses never get an answer.
    mcp.send({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {}})
    mcp.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}})
    mcp.send({"jsonrpc": "2.0", "id": 5, "result": {}})
    assert mcp.nothing_pending()


def test_invalid_arguments_are_tool_errors(mcp: RawMcp) -> None:
    mcp.initialize("2025-06-18")
    cases = [
        ("svc_capture", {}, "url"),
        ("svc_capture", {"url": "x.org", "retry": 101}, "retry"),
        ("svc_capture", {"url": "x.org", "timeout": 0}, "timeout"),
        ("svc_capture", {"url": "x.org", "actions": [{"action": "hover"}]}, "actions[0]"),
        ("svc_capture", {"url": "x.org", "output_uri": "file://host/x"}, "output_uri"),
        ("svc_capture", {"url": "x.org", "session_id": "Session1", "group": "g"}, "group"),
        ("svc_read", {"max_chars": 511}, "max_chars"),
        ("svc_read", {"max_sections": 0}, "max_sections"),
        ("svc_read", {"profile": "p"}, "profile"),
        ("svc_navigate", {}, "url"),
        ("svc_navigate", {"navigation": "back", "url": "x.org"}, "url"),
        ("svc_find", {"observation_id": "obs_1"}, "query"),
        ("svc_find", {"observation_id": "obs_1", "query": "a", "limit": 101}, "limit"),
        ("svc_action", {"observation_id": "o", "actions": []}, "actions"),
        ("svc_take_screenshot", {"page_id": "p", "session_id": "Session1"}, "session_id"),
        ("svc_take_screenshot", {"quality": 101}, "quality"),
        ("svc_close_session_group", {"group": "x" * 129}, "group"),
        (
            "svc_create_session",
            {"lifetime": {"type": "inactivity", "timeout_seconds": 0}},
            "lifetime.timeout_seconds",
        ),
        ("svc_list_sessions", {"extra": 1}, "extra"),
        ("svc_ping_session", {"session_id": "nope"}, "session_id"),
    ]
    for i, (name, arguments, field) in enumerate(cases):
        result = mcp.call(i, "tools/call", {"name": name, "arguments": arguments})["result"]
        assert result["isError"] is True, (name, arguments)
        error = result["structuredContent"]["error"]
        assert (error["id"], error["code"], error["retryable"]) == (
            "VALIDATION_FAILED",
            10005,
            False,
        )
        assert error["details"]["field"] == field, (name, arguments, error)
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_2026_07_28_discovery_and_envelopes(mcp: RawMcp) -> None:
    reply = mcp.call(1, "server/discover", {"_meta": META})
    result = reply["result"]
    assert result["supportedVersions"] == ["2026-07-28"]
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert (result["resultType"], result["cacheScope"]) == ("complete", "public")
    assert result["ttlMs"] > 0
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "svc-mcp"
    tools = mcp.call(2, "tools/list", {"_meta": META})["result"]
    assert len(tools["tools"]) == 16
    assert tools["resultType"] == "complete"
    assert tools["cacheScope"] == "public"
    assert tools["ttlMs"] > 0
    assert all({"title", "annotations"} <= set(t) for t in tools["tools"])
    ping = mcp.call(3, "ping", {"_meta": META})["result"]
    assert ping["resultType"] == "complete"
    # Every request needs the envelope; an unknown version is -32022 naming the supported ones.
    assert mcp.call(4, "tools/list")["error"]["code"] == -32602
    missing = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    assert mcp.call(5, "tools/list", missing)["error"]["code"] == -32602
    other = {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}
    error = mcp.call(6, "tools/list", other)["error"]
    assert error["code"] == -32022
    assert error["data"] == {"supported": ["2026-07-28"], "requested": "2099-01-01"}
    error = mcp.call(7, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})[
        "error"
    ]
    assert error["code"] == -32022
    assert error["data"]["supported"] == ["2026-07-28"]
    status = mcp.call(8, "tools/call", {"name": "svc_status", "arguments": {}, "_meta": META})
    assert status["result"]["isError"] is True
    assert status["result"]["resultType"] == "complete"
    assert mcp.call(9, "nope/nope", {"_meta": META})["error"]["code"] == -32601


def test_discover_at_an_unknown_version_names_every_version(mcp: RawMcp) -> None:
    other = {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}
    error = mcp.call(1, "server/discover", other)["error"]
    assert error["code"] == -32022
    assert "2024-11-05" in error["data"]["supported"]
    assert "2026-07-28" in error["data"]["supported"]
    # Nothing was decided: a legacy handshake still works.
    assert mcp.initialize("2025-03-26")["result"]["protocolVersion"] == "2025-03-26"


def test_closing_stdin_exits_at_once(tmp_path: Path) -> None:
    client = RawMcp(free_port(), SVC_DATA_DIR=str(tmp_path))
    client.initialize("2025-06-18")
    started = time.monotonic()
    assert client.close() == 0
    assert time.monotonic() - started < 3


def test_help_version_and_options() -> None:
    for args in (["--help"], ["-h"]):
        r = subprocess.run(
            check=False, args=[SVC_MCP, *args], capture_output=True, text=True, timeout=30
        )
        assert r.returncode == 0
        assert "mcpServers" in r.stdout
    r = subprocess.run(
        check=False, args=[SVC_MCP, "--version"], capture_output=True, text=True, timeout=30
    )
    assert (r.returncode, r.stdout) == (0, "svc-mcp 0.1.0\n")
    r = subprocess.run(
        check=False, args=[SVC_MCP, "--stdio"], capture_output=True, text=True, timeout=30
    )
    assert r.returncode == 1
    assert r.stderr.startswith("svc-mcp:")


def test_batches_on_2025_03_26_and_only_there(mcp: RawMcp) -> None:
    mcp.initialize("2025-03-26")
    mcp.send(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/whatever"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "svc_status"}},
            42,
            {"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {}},
        ]
    )
    replies: Any = mcp.recv()  # one line holding one array
    assert isinstance(replies, list)
    assert [r.get("id") for r in replies] == [1, 2, 3, None, 4]
    assert replies[0]["result"] == {}
    assert len(replies[1]["result"]["tools"]) == 16
    assert replies[2]["result"]["isError"] is True  # the agent is not running: a tool error
    assert replies[3]["error"]["code"] == -32600
    assert replies[4]["error"]["code"] == -32600  # initialize cannot be batched
    # A batch of notifications only gets no answer; an empty batch is one error object.
    mcp.send([{"jsonrpc": "2.0", "method": "notifications/whatever"}])
    assert mcp.nothing_pending()
    assert _error(mcp, [])["error"]["code"] == -32600


def test_batches_are_refused_on_later_revisions(mcp: RawMcp) -> None:
    mcp.initialize("2025-06-18")
    reply = _error(mcp, [{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert (reply["id"], reply["error"]["code"]) == (None, -32600)
