"""Issue 12 point 4: decoders are total. A deeply nested bridge frame or HTTP body gets a
protocol error or the envelope; neither the agent nor its bridge goes down."""

from __future__ import annotations

import os

import pytest

import bridge_protocol as bp

from .agentproc import AgentProcess

pytestmark = pytest.mark.e2e

DEPTH = 100_000


def test_a_deeply_nested_body_gets_the_envelope(agent: AgentProcess) -> None:
    bodies = (
        b"[" * DEPTH,
        b'{"name":' + b"[" * DEPTH + b"]" * DEPTH + b"}",
        b'{"actions":[' + b"{" * DEPTH,
        b'{"actions":[{"action":"click","selector":' + b"[" * DEPTH + b"]" * DEPTH + b"}]}",
    )
    paths = ("/v1/sessions", "/v1/sessions", "/v1/perform", "/v1/perform")
    for path, body in zip(paths, bodies, strict=True):
        r = agent.client.post(path, content=body, headers={"Content-Type": "application/json"})
        assert r.status_code in (400, 422), r.text[:300]
        assert r.json()["error"]["id"] in ("INVALID_REQUEST", "VALIDATION_FAILED")
    assert agent.ok("POST", "/v1/sessions", {})["session"]["id"]


def test_a_deeply_nested_frame_from_the_host_does_not_kill_the_agent(agent: AgentProcess) -> None:
    assert agent.host is not None
    deep = b'{"version":4,"id":"x","status":"ok","data":{"a":' + b"[" * DEPTH + b"]" * DEPTH
    deep += b"}}"
    os.write(agent.host._write_fd, bp.encode_frame(deep))
    # the agent is alive and its bridge still carries work
    sid = agent.ok("POST", "/v1/sessions", {})["session"]["id"]
    before = len(agent.host.requests)
    agent.ok("POST", f"/v1/sessions/{sid}/pause")
    last = agent.host.requests[-1]
    assert isinstance(last, bp.ActionRequest)
    assert isinstance(last.command, bp.Pause)
    assert len(agent.host.requests) > before
    log = (agent.data_dir / "Logs" / "global.ndjson").read_text()
    assert "nested too deeply" in log
    assert agent.proc is not None
    assert agent.proc.poll() is None
