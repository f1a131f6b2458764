"""Closing the HTTP connection stops the navigation, a `wait` action and a wait-for action within
one second (issue 4 item 8), measured from the client's close to the host's `engine.cancelled`
record and, for the navigation, to the fixture site seeing the browser drop its request."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from typing import Any

import pytest

from .hostproc import HostApp
from .site import Site

pytestmark = pytest.mark.e2e

DEADLINE = 1.0  # seconds: the spec's functional deadline, not a speed target


def poll(check: Callable[[], Any], what: str, timeout: float = 10) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def open_request(host: HostApp, path: str, body: dict[str, Any]) -> socket.socket:
    """Send a request on a raw connection that the test closes itself."""
    data = json.dumps(body).encode()
    conn = socket.create_connection(("127.0.0.1", host.port))
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{host.port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        "Connection: close\r\n\r\n"
    )
    conn.sendall(head.encode() + data)
    return conn


def cancelled_at(host: HostApp, session: str) -> float | None:
    """time.time() of the host's record that browser work on `session` was cancelled."""
    path = host.data_dir / "Logs" / "global.ndjson"
    for line in path.read_text("utf-8").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        data = rec.get("data") or {}
        if rec.get("category") == "engine.cancelled" and data.get("session_id") == session:
            return float(rec["created_at"]) / 1000
    return None


def still_working(host: HostApp, site: Site, session: str, pid: int) -> None:
    data = host.ok(
        "POST", "/v1/navigate", {"url": site.url("/table"), "session_id": session, "wait": 0}
    )
    assert data["page"]["url"] == site.url("/table")
    assert data["capture"]["target_http_status"] == 200
    assert host.agent_pid() == pid  # the agent was not restarted
    assert host.proc is not None
    assert host.proc.poll() is None  # nor the app


def test_closing_the_connection_stops_a_navigation_within_a_second(
    host: HostApp, site: Site, session: str
) -> None:
    host.ok("POST", "/v1/navigate", {"url": site.url("/"), "session_id": session, "wait": 0})
    pid = host.agent_pid()
    held = "/hold?s=30&cancel=navigate"
    conn = open_request(host, "/v1/navigate", {"url": site.url(held), "session_id": session})
    poll(lambda: site.hits(held) == 1, "the navigation to reach the site")
    closed = time.time()
    conn.close()
    host_stopped = poll(lambda: cancelled_at(host, session), "the cancel record", 5)
    site_dropped = poll(lambda: site.aborted_at(held), "the browser to drop the request", 5)
    print(f"navigation: host {host_stopped - closed:.3f} s, site {site_dropped - closed:.3f} s")
    assert host_stopped - closed < DEADLINE
    assert site_dropped - closed < DEADLINE
    still_working(host, site, session, pid)


@pytest.mark.parametrize(
    "action",
    [{"action": "wait", "seconds": 60}, {"action": "wait-for", "selector": "#never"}],
    ids=["wait", "wait-for"],
)
def test_closing_the_connection_stops_an_action_within_a_second(
    host: HostApp, site: Site, session: str, action: dict[str, Any]
) -> None:
    host.ok("POST", "/v1/navigate", {"url": site.url("/"), "session_id": session, "wait": 0})
    pid = host.agent_pid()
    before = site.hits("/form")
    # the click's navigation to /form shows the batch running; the action under test follows
    actions = [{"action": "click", "selector": "#to-form"}, action]
    conn = open_request(
        host, "/v1/perform", {"session_id": session, "actions": actions, "timeout": 120}
    )
    poll(lambda: site.hits("/form") > before, "the batch to start")
    closed = time.time()
    conn.close()
    host_stopped = poll(lambda: cancelled_at(host, session), "the cancel record", 5)
    print(f"{action['action']}: host {host_stopped - closed:.3f} s")
    assert host_stopped - closed < DEADLINE
    still_working(host, site, session, pid)
