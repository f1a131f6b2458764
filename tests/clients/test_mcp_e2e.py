"""svc-mcp against the real app headless: the official MCP SDK client in its auto, legacy and
2026-07-28 modes, concurrency and cancellation over raw lines, and the MCP Inspector CLI."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning

from tests.host.economy_pages import LINKS, MENU, SIGNIN
from tests.host.hostproc import HostApp
from tests.host.site import Site

from .conftest import SVC_MCP, client_env, svc
from .mcpraw import RawMcp
from .test_mcp_schemas import check_result

pytestmark = pytest.mark.e2e

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"


def _text(result: Any) -> str:
    return str(result.content[0].text)


def _structured(result: Any) -> dict[str, Any]:
    """structuredContent, which the text block holds as compact JSON (issue 38 point 2)."""
    value: dict[str, Any] = result.structured_content
    assert result.content[0].text == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return value


async def _call(client: Client, name: str, arguments: dict[str, Any]) -> Any:
    """A tool call through the SDK client; a successful result has its tool's shape."""
    result = await client.call_tool(name, arguments)
    if not result.is_error and result.structured_content is not None:
        check_result(name, result.structured_content)
    return result


@pytest.mark.parametrize("mode", ["auto", "legacy", "2026-07-28"])
async def test_sdk_client_modes(host: HostApp, site: Site, mode: str, tmp_path: Path) -> None:
    params = StdioServerParameters(command=SVC_MCP, env=client_env(host.port))
    async with Client(params, mode=mode) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        listed = await client.list_tools()
        assert len(listed.tools) == 16
        by_name = {t.name: t for t in listed.tools}
        assert by_name["svc_find"].annotations is not None
        assert by_name["svc_find"].annotations.read_only_hint is True
        closing = by_name["svc_close_session_group"].annotations
        assert closing is not None
        assert closing.destructive_hint is True
        assert by_name["svc_read"].input_schema["properties"]["max_chars"]["maximum"] == 32768

        status = await _call(client, "svc_status", {})
        assert not status.is_error
        assert _structured(status)["overall_status"] == "ok"

        created = await _call(client, "svc_create_session", {"group": f"mcp-{mode}"})
        sid = _structured(created)["session"]["id"]

        read = await _call(
            client,
            "svc_read",
            {"url": site.url("/table"), "session_id": sid, "query": "fig", "wait": 0},
        )
        assert not read.is_error
        assert "| Fig | 3 |" in _text(read)
        meta = read.structured_content
        assert meta is not None
        assert (meta["query_matched"], meta["title"], meta["session_id"]) == (True, "Table", sid)

        observed = await _call(client, "svc_observe", {"session_id": sid})
        observation_id = _structured(observed)["observation"]["id"]
        found = await _call(client, "svc_find", {"observation_id": observation_id, "query": "pear"})
        assert _structured(found)["total_matches"] >= 1

        out = tmp_path / f"cap {mode}.html"
        captured = await _call(
            client,
            "svc_capture",
            {"url": site.url("/missing"), "session_id": sid, "wait": 0, "output_uri": out.as_uri()},
        )
        assert captured.is_error  # a target 404: exit code 1
        value = _structured(captured)
        assert value["exit_code"] == 1
        assert value["request_id"].startswith("req_")
        assert value["events"][-1]["event"] == "capture.finished"
        completed = next(e for e in value["events"] if e["event"] == "capture.completed")
        assert completed["data"]["output_uri"] == out.as_uri()
        assert "%20" in completed["data"]["output_uri"]
        links = [b for b in captured.content if b.type == "resource_link"]
        assert [(str(b.uri), b.mime_type) for b in links] == [(out.as_uri(), "text/html")]
        assert out.exists()

        shot = await _call(client, "svc_take_screenshot", {"session_id": sid})
        images = [b for b in shot.content if b.type == "image"]
        assert len(images) == 1
        assert base64.b64decode(images[0].data)[:8] == b"\x89PNG\r\n\x1a\n"
        assert "output_path" not in _structured(shot)["screenshot"]
        shot_path = tmp_path / "shot.jpeg"
        shot = await _call(
            client,
            "svc_take_screenshot",
            {"session_id": sid, "format": "jpeg", "output_uri": shot_path.as_uri()},
        )
        assert [b.type for b in shot.content] == ["text", "resource_link"]
        assert shot_path.read_bytes()[:2] == b"\xff\xd8"

        missing = await _call(client, "svc_ping_session", {"session_id": "Session999999"})
        assert missing.is_error
        error = _structured(missing)["error"]
        assert (error["id"], error["code"], error["retryable"]) == (
            "SESSION_NOT_FOUND",
            10100,
            False,
        )
        assert error["details"] == {"id": "Session999999"}

        sessions = _structured(await _call(client, "svc_list_sessions", {}))["sessions"]
        assert sid in [s["id"] for s in sessions]
        # proxies with passwords are listed without them (spec 2 §4, §5), only password_set
        secret = f"pw-{mode}-never-listed"
        aliases = {f"mcp-{mode}-pw": secret, f"mcp-{mode}-none": None}
        for alias, password in aliases.items():
            body = {"alias": alias, "upstream_host": "127.0.0.1", "upstream_port": 9}
            host.ok("POST", "/v1/proxies", body | {"username": "user", "password": password})
        try:
            listed_proxies = await _call(client, "svc_list_proxies", {})
        finally:
            for alias in aliases:
                host.ok("DELETE", f"/v1/proxies/{alias}")
        assert not listed_proxies.is_error
        proxies = {p["alias"]: p for p in _structured(listed_proxies)["proxies"]}
        assert set(proxies) == set(aliases)
        for alias, password in aliases.items():
            assert proxies[alias]["password_set"] is (password is not None), proxies[alias]
            assert proxies[alias]["username"] == "user"
            assert "password" not in proxies[alias]
        assert secret not in listed_proxies.model_dump_json()  # nowhere in the result
        notes = _structured(await _call(client, "svc_notifications", {}))
        assert notes["trust"] == "untrusted_website_content"
        closed = await _call(client, "svc_close_session_group", {"group": f"mcp-{mode}"})
        assert _structured(closed)["deleted_ids"] == [sid]
        if mode == "legacy":  # the SDK refuses ping at 2026-07-28; test_mcp_raw covers it
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.send_ping()


def test_page_tools_and_ref_actions(host: HostApp, site: Site) -> None:
    mcp = RawMcp(host.port)
    try:
        mcp.initialize("2025-06-18")

        def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result = mcp.call(name, "tools/call", {"name": name, "arguments": arguments})["result"]
            assert not result.get("isError"), result
            value: dict[str, Any] = result["structuredContent"]
            check_result(name, value)
            return value

        attached = call("svc_page_attach", {"url": site.url("/form"), "wait": 0, "group": "raw"})
        page_id = attached["page"]["id"]
        assert attached["capture"]["output_uri"].startswith("file:///")
        acted = call(
            "svc_page_action",
            {"page_id": page_id, "action": {"action": "click", "selector": "#far"}, "wait": 0},
        )
        assert acted["page"]["id"] == page_id
        observed = call("svc_observe", {"page_id": page_id, "mode": "hybrid"})
        assert observed["observation"]["image"]["output_uri"].startswith("file:///")
        navigated = call("svc_navigate", {"url": site.url("/form"), "wait": 0})
        obs = navigated["observation"]
        # the wire form (docs/observations.md): [ref, role, ...] arrays and context markers
        box = next(e for e in obs["elements"] if isinstance(e, list) and e[1] == "textbox")
        after = call(
            "svc_action",
            {
                "observation_id": obs["id"],
                "actions": [{"action": "type", "ref": box[0], "text": "k"}],
            },
        )
        assert after["observation"]["id"] != obs["id"]
        back = call("svc_navigate", {"navigation": "reload", "wait": 0})
        assert back["page"]["url"] == site.url("/form")
        assert "url" not in back["observation"]  # sent once, in page.url

        # issue 11 point 8: relative destinations; find and read give them back absolute
        menu = call("svc_navigate", {"url": site.url(LINKS), "wait": 0})
        links = [e for e in menu["observation"]["elements"] if isinstance(e, list)]
        assert [e[3] for e in links if e[1] == "link"] == [sent for _, _, sent in MENU]
        found = call("svc_find", {"observation_id": menu["observation"]["id"], "query": "sitemap"})
        assert [e["dest"] for e in found["elements"]] == [site.url("/econ/menu/sitemap")]
        found = call("svc_find", {"observation_id": menu["observation"]["id"], "role": "link"})
        assert found["elements"][0]["dest"] == site.url(LINKS) + "#"
        read = call("svc_read", {"url": site.url(SIGNIN), "wait": 0})
        assert (read["source_url"], read["title"]) == (site.url(SIGNIN), "Sign in")
        assert (read["link_count"], read["source_truncated"]) == (2, False)
        call("svc_close_session_group", {"group": "raw"})
    finally:
        assert mcp.close() == 0


async def test_sessions_are_chosen_as_svc_chooses(fresh: HostApp, site: Site) -> None:
    """Spec 2 §1 for every tool that targets a session, as `svc` applies it (issue 38 point 5):
    the explicit session_id, then SVC_SESSION_ID from svc-mcp's environment, then the newest
    session, creating one only when none exists (once, for calls that ask at the same moment);
    profile or group ask for a new session. `svc` chooses the same session each time."""
    url = site.url("/table")
    nav = {"url": url, "wait": 0}

    def sessions() -> list[str]:
        return [s["id"] for s in fresh.ok("GET", "/v1/sessions")["sessions"]]

    def cli_observes(**env: str) -> str:
        run = svc(fresh.port, "observe", "--wait", "0", env=env)
        assert run.code == 0, run.err
        return str(json.loads(run.out)["page"]["session_id"])

    plain = StdioServerParameters(command=SVC_MCP, env=client_env(fresh.port))
    async with Client(plain) as client:
        # none exists: two calls at once create one session between them
        pages: list[str] = []

        async def navigate() -> None:
            pages.append(
                _structured(await _call(client, "svc_navigate", nav))["page"]["session_id"]
            )

        async with trio.open_nursery() as nursery:
            nursery.start_soon(navigate)
            nursery.start_soon(navigate)
        [first] = sessions()
        assert pages == [first, first]
        # the newest session, not the first nor the one navigated last
        newest = fresh.ok("POST", "/v1/sessions", {})["session"]["id"]
        observed = _structured(await _call(client, "svc_navigate", nav))["page"]["session_id"]
        assert observed == newest
        assert cli_observes() == newest
        captured = await _call(client, "svc_capture", nav)
        [done] = [e for e in _structured(captured)["events"] if e["event"] == "capture.completed"]
        assert done["data"]["session_id"] == newest
        # a group asks for a new session: no implicit one
        grouped = await _call(client, "svc_capture", {**nav, "group": "mcp-precedence"})
        [done] = [e for e in _structured(grouped)["events"] if e["event"] == "capture.completed"]
        assert done["data"]["session_id"] not in (first, newest)
        fresh.ok("POST", "/v1/sessions/close", {"group": "mcp-precedence"})

    # SVC_SESSION_ID before the newest session, for every tool that targets a session
    chosen = StdioServerParameters(
        command=SVC_MCP, env=client_env(fresh.port, SVC_SESSION_ID=first)
    )
    async with Client(chosen) as client:
        navigated = _structured(await _call(client, "svc_navigate", nav))
        assert navigated["page"]["session_id"] == first
        observed = _structured(await _call(client, "svc_observe", {"wait": 0}))
        assert observed["page"]["session_id"] == first
        read = await _call(client, "svc_read", {"wait": 0})
        assert read.structured_content["session_id"] == first
        shot = _structured(await _call(client, "svc_take_screenshot", {"wait": 0}))
        assert shot["page"]["session_id"] == first
        captured = await _call(client, "svc_capture", nav)
        [done] = [e for e in _structured(captured)["events"] if e["event"] == "capture.completed"]
        assert done["data"]["session_id"] == first
        attached = _structured(await _call(client, "svc_page_attach", nav))
        assert attached["page"]["session_id"] == first  # its current page, not a new session
        assert cli_observes(SVC_SESSION_ID=first) == first
        # an explicit session_id before SVC_SESSION_ID
        explicit = {"session_id": newest, "wait": 0}
        observed = _structured(await _call(client, "svc_observe", explicit))
        assert observed["page"]["session_id"] == newest
        assert sorted(sessions()) == sorted([first, newest])  # none created on the way


def test_tool_calls_run_concurrently_and_cancellation_only_suppresses(
    host: HostApp, site: Site, tmp_path: Path
) -> None:
    mcp = RawMcp(host.port)
    try:
        mcp.initialize("2025-06-18")
        out = tmp_path / "slow.html"
        mcp.request(
            "slow",
            "tools/call",
            {
                "name": "svc_capture",
                "arguments": {
                    "url": site.url("/slow?s=2"),
                    "wait": 0,
                    "group": "cancel",
                    "output_uri": out.as_uri(),
                },
            },
        )
        started = time.monotonic()
        assert mcp.call("p", "ping") == {"jsonrpc": "2.0", "id": "p", "result": {}}
        assert time.monotonic() - started < 1.5  # not behind the capture
        mcp.send(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow"}}
        )
        # The work goes on: the file appears, but no result for "slow" is ever written.
        deadline = time.monotonic() + 30
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert out.exists()
        time.sleep(0.5)
        assert mcp.nothing_pending()
    finally:
        assert mcp.close() == 0
        host.ok("POST", "/v1/sessions/close", {"group": "cancel"})


def test_closing_stdin_cancels_agent_work(host: HostApp, site: Site, tmp_path: Path) -> None:
    mcp = RawMcp(host.port)
    out = tmp_path / "never.html"
    try:
        mcp.initialize("2025-06-18")
        mcp.request(
            1,
            "tools/call",
            {
                "name": "svc_capture",
                "arguments": {
                    "url": site.url("/slow?s=2"),
                    "wait": 0,
                    "group": "eof",
                    "output_uri": out.as_uri(),
                },
            },
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not host.ok("GET", "/v1/sessions")["sessions"]:
            time.sleep(0.05)
        started = time.monotonic()
    finally:
        assert mcp.close() == 0
    assert time.monotonic() - started < 2
    time.sleep(3)  # the slow page would have answered and been captured by now
    assert not out.exists()
    host.ok("POST", "/v1/sessions/close", {"group": "eof"})


def test_mcp_inspector_cli_lists_and_calls_tools(host: HostApp) -> None:
    # `make test` installs nodejs; a missing npx is a setup failure, not a reason to skip.
    assert shutil.which("npx") is not None, "npx missing: the Makefile installs Debian's nodejs"
    env = client_env(host.port)
    name = f"inspector-{host.port}"
    host.ok("POST", "/v1/sessions", {"name": name})
    # The Inspector starts the server with its own small environment: the port must be passed
    # with -e, or svc-mcp would talk to (and cold-start) an app on the default port.
    base = ["npx", "-y", INSPECTOR, "--cli", "-e", f"SVC_AGENT_PORT={host.port}", SVC_MCP]
    listed = subprocess.run(
        [*base, "--method", "tools/list"],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )
    assert listed.returncode == 0, listed.stderr
    names = {t["name"] for t in json.loads(listed.stdout)["tools"]}
    assert len(names) == 16
    assert {"svc_status", "svc_read", "svc_capture", "svc_list_proxies"} <= names
    called = subprocess.run(
        [*base, "--method", "tools/call", "--tool-name", "svc_list_sessions"],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)
    names = {s["name"] for s in result["structuredContent"]["sessions"]}
    assert name in names  # the call reached this test's app
