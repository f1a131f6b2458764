"""Profile proxy listeners in the real agent process (spec 1 §1, §4 Proxies, §7 rule 5): a local
upstream proxy that requires Basic auth, a local origin, and the test acting as the engine."""

from __future__ import annotations

import base64
import http.client
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

import bridge_protocol as bp

from ..proxy.client import forward, get_in_tunnel, refused, tunnel, wait_until
from ..proxy.servers import Origin, Refusal, UpstreamProxy
from .agentproc import AgentProcess
from .fakebrowser import FakeBrowser
from .test_proxies import new_alias, sticky_ids

USER, PASSWORD = "agentuser", "agent-secret-pw"


@pytest.fixture
def upstream() -> Iterator[UpstreamProxy]:
    with UpstreamProxy(USER, PASSWORD) as proxy:
        yield proxy


@pytest.fixture(scope="module")
def origin() -> Iterator[Origin]:
    with Origin() as server:
        yield server


def add_proxy(agent: AgentProcess, upstream: UpstreamProxy, **fields: Any) -> str:
    alias = new_alias("lp")
    body = {
        "alias": alias,
        "upstream_host": "127.0.0.1",
        "upstream_port": upstream.port,
        "username": USER,
        "password": PASSWORD,
        # These tests read the upstream's log of browser traffic: no exit-location lookups in it
        # (a route change pushes settings, which looks the exit up through the upstream).
        "detect_exit_locale": False,
    } | fields
    agent.ok("POST", "/v1/proxies", body)
    return alias


def port_of(agent: AgentProcess, session_id: str) -> int:
    base = int(agent.ok("GET", "/v1/health")["browser_proxy_port"])
    return base + int(session_id.removeprefix("Session")) - 1


def proxied_session(agent: AgentProcess, alias: str) -> tuple[str, int]:
    sid = str(agent.ok("POST", "/v1/sessions", {"proxy_alias": alias})["session"]["id"])
    port = port_of(agent, sid)
    wait_until(lambda: not refused(port))
    return sid, port


def no_secrets(*texts: str | bytes) -> None:
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    for raw in texts:
        text = raw.decode("latin-1") if isinstance(raw, bytes) else raw
        assert PASSWORD not in text
        assert token not in text


def browser_proxy_check(agent: AgentProcess) -> dict[str, Any]:
    checks = agent.ok("GET", "/v1/status")["checks"]
    (check,) = [c for c in checks if c["id"] == "browser_proxy"]
    return dict(check)


def test_http_and_connect_relay_with_stored_credentials(
    agent: AgentProcess, upstream: UpstreamProxy, origin: Origin
) -> None:
    alias = add_proxy(agent, upstream)
    sid, port = proxied_session(agent, alias)
    answer = forward(port, origin.url("/via-agent"))
    assert answer.status == 200
    assert json.loads(answer.body)["path"] == "/via-agent"
    tunnel_answer, sock = tunnel(port, origin.authority)
    with sock:
        assert tunnel_answer.status == 200
        inside = get_in_tunnel(sock, origin.authority, "/in-tunnel")
    assert json.loads(inside.body)["path"] == "/in-tunnel"
    assert [(s.method, s.target) for s in upstream.seen] == [
        ("GET", origin.url("/via-agent")),
        ("CONNECT", origin.authority),
    ]
    assert all(
        (s.username, s.password, s.authorized) == (USER, PASSWORD, True) for s in upstream.seen
    )
    no_secrets(json.dumps(answer.headers), answer.body, json.dumps(tunnel_answer.headers))
    # the host only ever gets the loopback port; health and status show the listener
    check = browser_proxy_check(agent)
    assert check["running"] is True
    assert check["status"] == "ok"
    assert f"{sid} on {port}" in check["detail"]
    assert check["pids"] == [agent.ok("GET", "/v1/health")["pid"]]
    agent.ok("DELETE", f"/v1/sessions/{sid}")
    wait_until(lambda: refused(port))
    assert f"{sid} on" not in browser_proxy_check(agent)["detail"]


def test_each_connection_reloads_the_assignment(
    agent: AgentProcess, upstream: UpstreamProxy, origin: Origin
) -> None:
    other = UpstreamProxy(None, "other-pw")
    other.start()
    try:
        first = add_proxy(agent, upstream)
        second = add_proxy(agent, other, username="otheruser", password="other-pw")
        sid, port = proxied_session(agent, first)
        assert forward(port, origin.url("/first")).status == 200
        agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": second})
        assert forward(port, origin.url("/second")).status == 200
        assert [s.target for s in upstream.seen] == [origin.url("/first")]
        assert [(s.target, s.username) for s in other.seen] == [
            (origin.url("/second"), "otheruser")
        ]
        # a new password is used by the next connection, too
        agent.ok("PATCH", f"/v1/proxies/{second}", {"password": "changed-pw"})
        assert forward(port, origin.url("/third")).status == 502
        assert other.seen[-1].password == "changed-pw"
        # detached: the listener goes; the proxy back: it listens again
        agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": None})
        wait_until(lambda: refused(port))
        agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": first})
        wait_until(lambda: not refused(port))
        # deleting the proxy detaches it: found by the listeners' poll
        agent.ok("DELETE", f"/v1/proxies/{first}")
        wait_until(lambda: refused(port))
        agent.ok("DELETE", f"/v1/sessions/{sid}")
    finally:
        other.stop()


def test_the_listener_is_bound_when_a_route_change_has_answered(
    agent: AgentProcess, upstream: UpstreamProxy, origin: Origin
) -> None:
    """The host holds the new settings once a PATCH has answered and may connect at once: the
    session's listener must be listening by then, not at the listeners' next poll (a navigation
    right after the PATCH failed with ERR_PROXY_CONNECTION_FAILED in a fresh-clone run)."""
    alias = add_proxy(agent, upstream)
    for _ in range(3):
        sid = agent.ok("POST", "/v1/sessions", {})["session"]["id"]
        port = port_of(agent, sid)
        agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": alias})
        assert not refused(port)
        assert forward(port, origin.url("/at-once")).status == 200
        agent.ok("DELETE", f"/v1/sessions/{sid}")


def test_a_route_change_ends_the_connections_opened_on_the_old_route(
    agent: AgentProcess, upstream: UpstreamProxy, origin: Origin
) -> None:
    """A tunnel or a keep-alive relay keeps the upstream it opened with: after the session's
    proxy (or the proxy's upstream) changes, the agent ends them, so nothing more goes by the
    old route and the engine reconnects by the new one (issue 14 point 3)."""
    other = UpstreamProxy(None, "other-pw")
    other.start()
    try:
        first = add_proxy(agent, upstream)
        second = add_proxy(agent, other, username="otheruser", password="other-pw")
        sid, port = proxied_session(agent, first)
        answer, sock = tunnel(port, origin.authority)
        assert answer.status == 200
        keep = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        assert forward(port, origin.url("/kept"), conn=keep).status == 200
        try:
            agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": second})
            sock.settimeout(5)
            assert sock.recv(1) == b""  # the tunnel by the first upstream is gone
            with pytest.raises((http.client.HTTPException, OSError)):
                forward(port, origin.url("/again"), conn=keep)
        finally:
            sock.close()
            keep.close()
        assert forward(port, origin.url("/new")).status == 200
        assert [s.target for s in other.seen] == [origin.url("/new")]
        # the proxy's own upstream changes: its sessions' open tunnels end too
        answer, sock = tunnel(port, origin.authority)
        assert answer.status == 200
        try:
            agent.ok("PATCH", f"/v1/proxies/{second}", {"upstream_port": upstream.port})
            sock.settimeout(5)
            assert sock.recv(1) == b""
        finally:
            sock.close()
        agent.ok("DELETE", f"/v1/sessions/{sid}")
    finally:
        other.stop()


def test_managed_provider_usernames_carry_the_sticky_id(
    agent: AgentProcess, origin: Origin
) -> None:
    upstream = UpstreamProxy(None, PASSWORD)  # any username: the test reads what was sent
    upstream.start()
    try:
        alias = add_proxy(
            agent,
            upstream,
            providery={"enabled": True, "country": "US", "state": "NY", "asn": "7922"},
        )
        sid, port = proxied_session(agent, alias)
        assert forward(port, origin.url("/y")).status == 200
        sticky = sticky_ids(agent, alias)[sid]
        assert upstream.seen[-1].username == f"{USER}-country-us-state-ny-asn-7922-session-{sticky}"
        agent.ok(
            "PATCH",
            f"/v1/proxies/{alias}",
            {
                "providery": {"enabled": False},
                "providerx_enabled": True,
                "providerx_location_parameter": "cc",
                "providerx_location_value": "DE",
            },
        )
        assert forward(port, origin.url("/x")).status == 200
        sticky = sticky_ids(agent, alias)[sid]
        assert upstream.seen[-1].username == f"{USER}-cc-DE-sessid-{sticky}"
        agent.ok("POST", f"/v1/proxies/{alias}/rotate-session")
        assert forward(port, origin.url("/x2")).status == 200
        rotated = sticky_ids(agent, alias)[sid]
        assert rotated != sticky
        assert upstream.seen[-1].username == f"{USER}-cc-DE-sessid-{rotated}"
        agent.ok("DELETE", f"/v1/sessions/{sid}")
    finally:
        upstream.stop()


def test_a_refused_tunnel_reaches_the_navigation_error(
    agent: AgentProcess, upstream: UpstreamProxy, origin: Origin
) -> None:
    upstream.refuse = Refusal(
        403,
        "Forbidden",
        [
            ("Proxy-Status", f"testproxy; error=destination_ip_prohibited; details={PASSWORD}"),
            ("X-ProviderX-Error", "blocked target"),
            ("Server", "unrelated"),
        ],
    )
    alias = add_proxy(agent, upstream)
    sid, port = proxied_session(agent, alias)
    fake = FakeBrowser()
    url = f"https://{origin.authority}/secure"

    def engine(params: Any) -> tuple[float, bp.ApiError]:
        # The engine's page load: a CONNECT through the listener, refused upstream.
        answer, sock = tunnel(port, origin.authority)
        sock.close()
        assert answer.status == 403
        no_secrets(answer.body, json.dumps(answer.headers))
        return 0.0, bp.ApiError.of(
            bp.ErrorId.UPSTREAM_UNAVAILABLE,
            f"navigation to {url} failed: net::ERR_TUNNEL_CONNECTION_FAILED",
            url=url,
        )

    fake.script["browser_attach"] = engine
    assert agent.host is not None
    agent.host.answer = fake
    _, error = agent.error("POST", "/v1/navigate", {"url": url, "session_id": sid})
    assert error["id"] == "UPSTREAM_UNAVAILABLE"
    details = error["details"]
    assert details["error_source"] == "proxy"
    assert details["proxy_alias"] == alias
    assert details["url"] == url
    assert details["source_error"].splitlines() == [
        f"upstream proxy refused CONNECT {origin.authority}: HTTP/1.1 403 Forbidden",
        "Proxy-Status: testproxy; error=destination_ip_prohibited; details=[redacted]",
        "X-Providerx-Error: blocked target",
    ]
    assert "net::ERR_TUNNEL_CONNECTION_FAILED" in error["message"]
    assert "403 Forbidden" in error["message"]
    no_secrets(json.dumps(error))

    # another destination's failure is not this navigation's cause
    other = "https://elsewhere.test/"

    def unrelated(params: Any) -> tuple[float, bp.ApiError]:
        return 0.0, bp.ApiError.of(
            bp.ErrorId.UPSTREAM_UNAVAILABLE, "navigation failed: net::ERR_FAILED", url=other
        )

    fake.script["browser_attach"] = unrelated
    _, error = agent.error("POST", "/v1/navigate", {"url": other, "session_id": sid})
    assert "error_source" not in error["details"]
    agent.ok("DELETE", f"/v1/sessions/{sid}")
    # the relay logged the refusal, without the password
    logs = [p.read_text() for p in (agent.data_dir / "Logs").rglob("*.ndjson")]
    assert any("proxy.upstream_failed" in text for text in logs)
    no_secrets(*logs)


def test_a_listener_that_cannot_listen_is_the_navigation_error(
    agent: AgentProcess, upstream: UpstreamProxy
) -> None:
    """Session N's listener is at base + N - 1; when another program holds that port, the
    engine only reports ERR_PROXY_CONNECTION_FAILED: the error names the listener's cause."""
    alias = add_proxy(agent, upstream)
    probe = str(agent.ok("POST", "/v1/sessions", {})["session"]["id"])
    taken_port = port_of(agent, f"Session{int(probe.removeprefix('Session')) + 1}")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", taken_port))
        taken.listen()
        sid = str(agent.ok("POST", "/v1/sessions", {"proxy_alias": alias})["session"]["id"])
        assert port_of(agent, sid) == taken_port
        url = "https://example.test/"
        fake = FakeBrowser()
        fake.script["browser_attach"] = lambda params: (
            0.0,
            bp.ApiError.of(
                bp.ErrorId.UPSTREAM_UNAVAILABLE,
                f"navigation to {url} failed: net::ERR_PROXY_CONNECTION_FAILED",
                url=url,
            ),
        )
        assert agent.host is not None
        agent.host.answer = fake
        _, error = agent.error("POST", "/v1/navigate", {"url": url, "session_id": sid})
    assert error["id"] == "UPSTREAM_UNAVAILABLE"
    assert error["details"]["error_source"] == "proxy"
    assert error["details"]["proxy_alias"] == alias
    assert f"cannot listen on port {taken_port}" in error["details"]["source_error"]
    assert "proxy listener cannot listen" in error["message"]
    for s in (probe, sid):
        agent.ok("DELETE", f"/v1/sessions/{s}")


def test_free_plan_sessions_do_not_relay(
    make_agent: Any, upstream: UpstreamProxy, origin: Origin
) -> None:
    agent = make_agent()
    alias = add_proxy(agent, upstream)
    sid, port = proxied_session(agent, alias)
    agent.stop()
    free = make_agent(env={"SVC_PLAN": "free"}, data_dir=agent.data_dir)
    assert free.ok("GET", f"/v1/sessions/{sid}")["session"]["proxy_alias"] == alias
    port = port_of(free, sid)
    wait_until(lambda: not refused(port))
    assert forward(port, origin.url("/free")).status == 502
    assert upstream.seen == []
