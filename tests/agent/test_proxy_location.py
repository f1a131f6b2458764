"""GET /v1/sessions/{id}/proxy-location in the real agent process (spec 1 §4, §7 rule 5, §8): the
lookup goes through a local upstream proxy that requires Basic auth to a local geolocation
service (SVC_GEOLOCATION_URL in the agent's environment), never directly."""

from __future__ import annotations

import base64
import json
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..proxy.geoservice import BERLIN, GeoService, tls_for_localhost
from ..proxy.servers import UpstreamProxy
from .agentproc import SVC_APP, AgentProcess
from .test_proxies import new_alias, sticky_ids

USER, PASSWORD = "locuser", "loc-secret-pw"
TIMEOUT = 2  # SVC_GEOLOCATION_TIMEOUT of this module's agent (the default is 10)


@pytest.fixture(scope="module")
def geo() -> Iterator[GeoService]:
    with GeoService() as service:
        yield service


@pytest.fixture(scope="module")
def located_agent(
    tmp_path_factory: pytest.TempPathFactory, geo: GeoService
) -> Iterator[AgentProcess]:
    env = {
        "SVC_GEOLOCATION_URL": geo.url("/json?token=geo-token"),
        "SVC_GEOLOCATION_TIMEOUT": str(TIMEOUT),
    }
    agent = AgentProcess(tmp_path_factory.mktemp("located"), env=env).start()
    try:
        yield agent
    finally:
        agent.close()


@pytest.fixture
def agent(located_agent: AgentProcess, geo: GeoService) -> AgentProcess:
    geo.answer, geo.stall = (200, BERLIN), False
    geo.seen.clear()
    return located_agent


@pytest.fixture
def upstream() -> Iterator[UpstreamProxy]:
    proxy = UpstreamProxy(None, PASSWORD)  # any username: tests read what was sent
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()


def proxied_session(agent: AgentProcess, port: int, **fields: Any) -> tuple[str, str]:
    alias = new_alias("loc")
    body = {
        "alias": alias,
        "upstream_host": "127.0.0.1",
        "upstream_port": port,
        "username": USER,
        "password": PASSWORD,
    } | fields
    agent.ok("POST", "/v1/proxies", body)
    sid = str(agent.ok("POST", "/v1/sessions", {"proxy_alias": alias})["session"]["id"])
    return alias, sid


def location(agent: AgentProcess, sid: str) -> dict[str, Any]:
    return agent.ok("GET", f"/v1/sessions/{sid}/proxy-location")


def lookup_error(agent: AgentProcess, sid: str) -> dict[str, Any]:
    status, error = agent.error("GET", f"/v1/sessions/{sid}/proxy-location")
    assert (status, error["id"], error["retryable"]) == (502, "UPSTREAM_UNAVAILABLE", True)
    return error


def no_secrets(text: str) -> None:
    assert PASSWORD not in text
    assert base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode() not in text


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_lookup_through_the_upstream_and_cached_per_route(
    agent: AgentProcess, upstream: UpstreamProxy, geo: GeoService
) -> None:
    alias, sid = proxied_session(agent, upstream.port)
    assert location(agent, sid) == {"country": "DE", "timezone": "Europe/Berlin"}
    (seen,) = upstream.seen
    assert (seen.method, seen.target) == ("GET", geo.url("/json?token=geo-token"))
    assert (seen.username, seen.password, seen.authorized) == (USER, PASSWORD, True)
    assert [s.path for s in geo.seen] == ["/json?token=geo-token"]
    # a second call within 30 minutes: from the cache, nothing sent
    geo.answer = (200, json.dumps({"country": "FR", "timezone": "Europe/Paris"}).encode())
    assert location(agent, sid) == {"country": "DE", "timezone": "Europe/Berlin"}
    assert (len(upstream.seen), len(geo.seen)) == (1, 1)
    # another session on the same proxy has its own entry
    other = agent.ok("POST", "/v1/sessions", {"proxy_alias": alias})["session"]["id"]
    assert location(agent, other) == {"country": "FR", "timezone": "Europe/Paris"}
    assert len(geo.seen) == 2
    # a changed username is another route: a new lookup, for each session on the proxy, made
    # while the PATCH pushed their settings to the host (the GET then reads the cache)
    agent.ok("PATCH", f"/v1/proxies/{alias}", {"username": "otheruser"})
    assert len(geo.seen) == 4
    assert location(agent, sid) == {"country": "FR", "timezone": "Europe/Paris"}
    assert upstream.seen[-1].username == "otheruser"
    assert len(geo.seen) == 4
    for s in (sid, other):
        agent.ok("DELETE", f"/v1/sessions/{s}")


def test_managed_username_and_rotation_change_the_route(
    agent: AgentProcess, upstream: UpstreamProxy, geo: GeoService
) -> None:
    alias, sid = proxied_session(
        agent, upstream.port, providery={"enabled": True, "country": "de", "city": "berlin"}
    )
    assert location(agent, sid) == {"country": "DE", "timezone": "Europe/Berlin"}
    sticky = sticky_ids(agent, alias)[sid]
    assert upstream.seen[-1].username == f"{USER}-country-de-city-berlin-session-{sticky}"
    assert upstream.seen[-1].password == PASSWORD
    location(agent, sid)
    assert len(geo.seen) == 1
    # (the rotation and the edit below look the new route up already, pushing the settings)
    geo.answer = (200, json.dumps({"country": "DE", "timezone": "Europe/Busingen"}).encode())
    agent.ok("POST", f"/v1/proxies/{alias}/rotate-session")
    assert location(agent, sid) == {"country": "DE", "timezone": "Europe/Busingen"}
    rotated = sticky_ids(agent, alias)[sid]
    assert rotated != sticky
    assert upstream.seen[-1].username == f"{USER}-country-de-city-berlin-session-{rotated}"
    assert len(geo.seen) == 2
    # a location edit keeps the sticky id but changes the username: a new lookup too
    geo.answer = (200, json.dumps({"country": "AT", "timezone": "Europe/Vienna"}).encode())
    agent.ok("PATCH", f"/v1/proxies/{alias}", {"providery": {"enabled": True, "country": "at"}})
    assert location(agent, sid) == {"country": "AT", "timezone": "Europe/Vienna"}
    assert upstream.seen[-1].username == f"{USER}-country-at-session-{rotated}"
    assert len(geo.seen) == 3
    agent.ok("DELETE", f"/v1/sessions/{sid}")


def test_failed_connection_and_refusal_carry_proxy_diagnostics(
    agent: AgentProcess, upstream: UpstreamProxy, geo: GeoService
) -> None:
    port = closed_port()
    alias, sid = proxied_session(agent, port)
    error = lookup_error(agent, sid)
    details = error["details"]
    assert set(details) == {"error_source", "proxy_alias", "source_error"}
    assert (details["error_source"], details["proxy_alias"]) == ("proxy", alias)
    assert details["source_error"].startswith(f"cannot connect to upstream proxy 127.0.0.1:{port}")
    assert details["source_error"] in error["message"]
    no_secrets(json.dumps(error))
    # a wrong password: the upstream's 407 with its Proxy-Status, credentials excluded
    agent.ok(
        "PATCH",
        f"/v1/proxies/{alias}",
        {"upstream_port": upstream.port, "password": "wrong-" + PASSWORD},
    )
    error = lookup_error(agent, sid)
    assert error["details"]["error_source"] == "proxy"
    assert error["details"]["source_error"].splitlines() == [
        f"upstream proxy refused GET 127.0.0.1:{geo.port}: "
        "HTTP/1.1 407 Proxy Authentication Required",
        "Proxy-Status: testproxy; error=auth_required",
    ]
    assert upstream.seen[-1].password == "wrong-" + PASSWORD
    no_secrets(json.dumps(error))
    # never retried directly: the service saw nothing; failures are not cached
    assert geo.seen == []
    agent.ok("PATCH", f"/v1/proxies/{alias}", {"password": PASSWORD})
    assert location(agent, sid) == {"country": "DE", "timezone": "Europe/Berlin"}
    agent.ok("DELETE", f"/v1/sessions/{sid}")


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ((200, b"<html>busy</html>"), "is not JSON"),
        ((429, b'{"error":"rate limited"}'), "is HTTP 429"),
        ((200, b'{"country":"XX","timezone":"Europe/Berlin"}'), "not an ISO 3166-1 alpha-2"),
        ((200, b'{"country":"DE","timezone":"Europe/Nowhere"}'), "not an IANA time zone"),
        ((200, b'{"country":"DE"}'), "names no timezone"),
    ],
)
def test_an_invalid_answer_is_upstream_unavailable(
    agent: AgentProcess,
    upstream: UpstreamProxy,
    geo: GeoService,
    answer: tuple[int, bytes],
    why: str,
) -> None:
    geo.answer = answer
    alias, sid = proxied_session(agent, upstream.port)
    error = lookup_error(agent, sid)
    assert error["details"]["error_source"] == "geolocation"
    assert error["details"]["proxy_alias"] == alias
    assert why in error["details"]["source_error"]
    assert "invalid answer from 127.0.0.1" in error["message"]
    assert "geo-token" not in json.dumps(error)  # the URL (maybe with a token) is not repeated
    assert len(geo.seen) == 1
    agent.ok("DELETE", f"/v1/sessions/{sid}")


def test_the_lookup_timeout_bounds_the_call(
    agent: AgentProcess, upstream: UpstreamProxy, geo: GeoService
) -> None:
    geo.stall = True
    _, sid = proxied_session(agent, upstream.port)
    started = time.monotonic()
    error = lookup_error(agent, sid)
    elapsed = time.monotonic() - started
    assert TIMEOUT - 0.5 <= elapsed < TIMEOUT + 5
    assert error["details"]["error_source"] == "proxy"
    assert f"did not finish within {TIMEOUT} s" in error["details"]["source_error"]
    # the agent stays responsive afterwards
    agent.ok("GET", "/v1/health")
    geo.stall = False
    agent.ok("DELETE", f"/v1/sessions/{sid}")


def test_no_proxy_and_detection_off_are_refused_before_any_lookup(
    agent: AgentProcess, upstream: UpstreamProxy, geo: GeoService
) -> None:
    direct = agent.ok("POST", "/v1/sessions")["session"]["id"]
    status, error = agent.error("GET", f"/v1/sessions/{direct}/proxy-location")
    assert (status, error["id"], error["details"]) == (
        404,
        "PROXY_NOT_FOUND",
        {"id": direct, "alias": None},
    )
    alias, sid = proxied_session(agent, upstream.port, detect_exit_locale=False)
    status, error = agent.error("GET", f"/v1/sessions/{sid}/proxy-location")
    assert (status, error["id"]) == (409, "CONFLICT")
    assert error["details"] == {"alias": alias, "detect_exit_locale": False}
    assert (upstream.seen, geo.seen) == ([], [])
    for s in (direct, sid):
        agent.ok("DELETE", f"/v1/sessions/{s}")


def test_https_lookup_tunnels_and_trusts_the_proxy_certificates(
    make_agent: Callable[..., AgentProcess], upstream: UpstreamProxy, tmp_path: Path
) -> None:
    server_tls, ca_pem = tls_for_localhost(tmp_path)
    service = GeoService(server_tls).start()
    try:
        agent = make_agent(env={"SVC_GEOLOCATION_URL": service.url("/json")})
        _, sid = proxied_session(agent, upstream.port, tls={"certificates": ca_pem})
        assert location(agent, sid) == {"country": "DE", "timezone": "Europe/Berlin"}
        (seen,) = upstream.seen
        assert (seen.method, seen.target) == ("CONNECT", f"127.0.0.1:{service.port}")
        assert (seen.username, seen.password) == (USER, PASSWORD)
        assert [s.path for s in service.seen] == ["/json"]
        # system trust alone does not know the local CA: the TLS failure is the proxy route's
        other = new_alias("loc")
        agent.ok(
            "POST",
            "/v1/proxies",
            {
                "alias": other,
                "upstream_host": "127.0.0.1",
                "upstream_port": upstream.port,
                "username": USER,
                "password": PASSWORD,
            },
        )
        agent.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": other})
        error = lookup_error(agent, sid)
        assert error["details"]["error_source"] == "proxy"
        assert "CERTIFICATE_VERIFY_FAILED" in error["details"]["source_error"]
        assert len(service.seen) == 1
    finally:
        service.stop()


BAD_LOOKUP_SETTINGS = [
    ("SVC_GEOLOCATION_URL", "ftp://geo.example/json"),
    ("SVC_GEOLOCATION_URL", "https://user:pw@geo.example/json"),
    ("SVC_GEOLOCATION_TIMEOUT", "0"),
    ("SVC_GEOLOCATION_TIMEOUT", "soon"),
]


@pytest.fixture(scope="module")
def bad_start_ups(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    """`svc-app --agent` with each bad lookup setting: (its exit code, its stderr). The four
    start at once: each is a process's start-up (seconds under load), and they wait for nothing
    of each other."""
    procs: dict[tuple[str, str], subprocess.Popen[bytes]] = {}
    try:
        for name, value in BAD_LOOKUP_SETTINGS:
            agent = AgentProcess(tmp_path_factory.mktemp("bad_lookup"), env={name: value})
            procs[(name, value)] = subprocess.Popen(
                [SVC_APP, "--agent"],
                env=agent.env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        ends = {}
        for key, p in procs.items():
            _, stderr = p.communicate(timeout=30)
            ends[key] = (p.returncode, stderr)
        return ends
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.communicate()


@pytest.mark.parametrize(("name", "value"), BAD_LOOKUP_SETTINGS)
def test_bad_lookup_settings_stop_start_up_with_one_line(
    bad_start_ups: dict[tuple[str, str], Any], name: str, value: str
) -> None:
    returncode, stderr = bad_start_ups[(name, value)]
    assert returncode != 0
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert name in lines[0]
    assert "configuration error" in lines[0]
    assert "pw" not in lines[0].replace(name, "")
