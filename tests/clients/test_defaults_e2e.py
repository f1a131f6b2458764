"""The clients' defaults against a real agent process with a scripted engine host
(tests/agent/agentproc.py): what `svc` and `svc-mcp` run when an option is left out (spec 2 §4
option rules, §8: timeout 90 s, wait 1 s, retry 1, retry_delay 3 s), and `svc status`'s exit
status when the agent answers but is not ok (spec 2 §7)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import bridge_protocol as bp
from tests.agent.agentproc import AgentProcess
from tests.agent.fakebrowser import FakeBrowser, error

from .conftest import Run, svc
from .mcpraw import RawMcp

pytestmark = pytest.mark.e2e


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[tuple[AgentProcess, FakeBrowser]]:
    agent = AgentProcess(tmp_path / "agent").start()
    fake = FakeBrowser()
    assert agent.host is not None
    agent.host.answer = fake
    try:
        yield agent, fake
    finally:
        agent.close()


def test_a_capture_left_to_its_defaults(scripted: tuple[AgentProcess, FakeBrowser]) -> None:
    """`svc URL` and svc_capture {url}, run side by side on an engine that fails every capture
    with a retryable error: each is tried twice, 3 s apart, with a 90 s deadline and a 1 s
    settle."""
    agent, fake = scripted
    fake.script["capture"] = lambda p: (0.0, error(bp.ErrorId.UPSTREAM_UNAVAILABLE, "hung up"))
    cli: list[Run] = []
    thread = threading.Thread(target=lambda: cli.append(svc(agent.port, "cli.test")))
    thread.start()
    mcp = RawMcp(agent.port)
    try:
        mcp.initialize("2025-06-18")
        reply = mcp.call(1, "tools/call", {"name": "svc_capture", "arguments": {"url": "mcp.test"}})
    finally:
        mcp.close()
        thread.join(60)
    [run] = cli
    assert run.code == 1  # the capture's exit code
    runs = {
        "cli": [json.loads(line) for line in run.err.splitlines()],
        "mcp": reply["result"]["structuredContent"]["events"],
    }
    assert reply["result"]["isError"] is True
    for client, events in runs.items():
        names = [e["event"] for e in events]
        assert names.count("capture.browser_requested") == 2, (client, names)  # retry 1
        [retrying] = [e for e in events if e["event"] == "capture.retrying"]
        assert retrying["data"]["retry_delay"] == 3, client
        assert events[-1]["data"] == {"exit_code": 1}, client
    for host in ("cli.test", "mcp.test"):
        sent = [op for op in fake.named("capture") if host in op.params.url]
        assert len(sent) == 2, host
        assert sent[1].at - sent[0].at >= 3, host  # slept, not only reported
        for op in sent:
            params: Any = op.params
            assert 89 < params.timeout <= 90, host
            assert params.wait == 1.0, host


def test_status_exits_1_when_the_agent_is_not_ok(tmp_path: Path) -> None:
    """An agent without its app (no engine bridge) answers health, and status says degraded."""
    agent = AgentProcess(tmp_path / "agent", env={"SVC_BROWSER_BRIDGE": "none"}).start()
    try:
        health = svc(agent.port, "health")
        assert (health.code, health.err) == (0, "")
        status = svc(agent.port, "status")
        report = json.loads(status.out)
        assert report["overall_status"] == "degraded"
        down = {c["id"] for c in report["checks"] if not c["running"]}
        assert down == {"svc_app", "engine_bridge"}
        assert (status.code, status.err) == (1, "")
    finally:
        agent.close()
