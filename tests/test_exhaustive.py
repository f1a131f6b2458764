"""Exhaustive by construction (issue 39 point 5): a member added to a union of bridge requests,
engine commands or actions that no branch handles fails loudly at run time (`assert_never`)
instead of doing nothing; mypy's `exhaustive-match` (pyproject.toml, run by `make lint` and so
by `make test`) makes the same omission a type error. No Qt, no process."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

from bridge_protocol.messages import PROTOCOL_VERSION, ActionRequest
from clients.mcp_server.protocol import Batch
from clients.mcp_server.server import Server
from host_app.core import actions, dispatch, operations
from tests.host.fakepage import El, FakePage

ROOT = Path(__file__).resolve().parent.parent
UNREACHABLE = "Expected code to be unreachable"


class Unknown(msgspec.Struct, tag="unknown-kind"):
    """A kind nobody handles, as a new action or command is before its branch is written."""

    selector: str = "#go"
    session_id: str = "Session1"


def test_mypy_reports_a_match_that_misses_a_member() -> None:
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert "exhaustive-match" in mypy["enable_error_code"]


def test_an_unknown_bridge_request_is_an_error() -> None:
    with pytest.raises(AssertionError, match=UNREACHABLE):
        dispatch.dispatch(Unknown(), None)  # type: ignore[arg-type]


def test_an_unknown_engine_command_is_an_error() -> None:
    request = ActionRequest(version=PROTOCOL_VERSION, id="r1", command=Unknown())  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match=UNREACHABLE):
        dispatch.dispatch(request, None)  # type: ignore[arg-type]


def test_an_unknown_selector_action_is_an_error() -> None:
    page = FakePage([El("html"), El("button", {"id": "go"}, sig="button|button|Go")])
    with pytest.raises(AssertionError, match=UNREACHABLE):
        page._loop.run(operations.run_action(page, Unknown(), deadline=60.0))  # type: ignore[arg-type]


def test_an_unknown_targeted_action_is_an_error() -> None:
    page = FakePage([El("html")])
    with pytest.raises(AssertionError, match=UNREACHABLE):
        page._loop.run(actions.act(None, Unknown(), deadline=60.0))  # type: ignore[arg-type]


class _Receives:
    def __init__(self, *actions: Any) -> None:
        self.actions = list(actions)

    def receive(self, line: bytes) -> list[Any]:
        return self.actions


def test_an_unknown_mcp_message_is_an_error() -> None:
    async def main() -> None:
        server = Server(_Receives(Unknown()), None, None, None)  # type: ignore[arg-type]
        async with trio.open_nursery() as nursery:
            with pytest.raises(AssertionError, match=UNREACHABLE):
                await server.handle(b"{}", nursery)
        with pytest.raises(AssertionError, match=UNREACHABLE):
            await server.run_batch(Batch(items=[Unknown()]))  # type: ignore[list-item]

    trio.run(main)
