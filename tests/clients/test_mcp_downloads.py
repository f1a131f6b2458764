"""A download through svc-mcp (issue 11, point 3): the official MCP SDK client clicks a download
link by ref; the saved file comes back as a `file:///` resource link, like other outputs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
import trio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.host.download_pages import NOTES, ROUTES
from tests.host.hostproc import HostApp
from tests.host.routes import Routes

from .conftest import SVC_MCP, client_env

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def files() -> Iterator[Routes]:
    with Routes(ROUTES) as server:
        yield server


def _structured(result: Any) -> dict[str, Any]:
    value: dict[str, Any] = result.structured_content
    assert json.loads(result.content[0].text) == value
    return value


async def test_a_downloaded_file_is_a_resource_link(host: HostApp, files: Routes) -> None:
    params = StdioServerParameters(command=SVC_MCP, env=client_env(host.port))
    async with Client(params) as client:
        created = await client.call_tool("svc_create_session", {"group": "mcp-downloads"})
        sid = _structured(created)["session"]["id"]
        navigated = await client.call_tool(
            "svc_navigate", {"url": files.url("/downloads"), "session_id": sid, "wait": 0}
        )
        obs = _structured(navigated)["observation"]
        ref = next(e[0] for e in obs["elements"] if isinstance(e, list) and e[2] == "Notes")
        acted = await client.call_tool(
            "svc_action",
            {"observation_id": obs["id"], "actions": [{"action": "click", "ref": ref}]},
        )
        assert not acted.is_error
        after = _structured(acted)["observation"]
        # the wire form: ["download", text, {details}], first in content
        kind, _text, details = after["content"][0]
        assert kind == "download"
        assert details["state"] == "completed"
        saved = Path(details["output_path"])
        assert saved == host.data_dir / "Downloads" / sid / "notes.txt"
        assert details["output_uri"] == saved.as_uri()
        links = [b for b in acted.content if b.type == "resource_link"]
        assert [(str(b.uri), b.mime_type, b.name) for b in links] == [
            (saved.as_uri(), "text/plain", "notes.txt")
        ]
        linked = trio.Path(unquote(urlsplit(str(links[0].uri)).path))
        assert await linked.read_bytes() == NOTES
        await client.call_tool("svc_close_session_group", {"group": "mcp-downloads"})
