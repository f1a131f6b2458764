"""The exit-location lookup (proxy/geolocation.py): answer rules, URL rules and the cache without
I/O; then real loopback sockets: an upstream proxy with Basic auth, a geolocation service plain
(absolute-form request) and over TLS (CONNECT, then TLS inside the tunnel)."""

from __future__ import annotations

import base64
import json
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from proxy import Upstream
from proxy.geolocation import (
    Location,
    LocationCache,
    LookupFailed,
    fetch_location,
    parse_location,
    parse_url,
    route_key,
)

from .geoservice import GeoService, tls_for_localhost
from .servers import Refusal, UpstreamProxy

USER, PASSWORD = "geouser", "geo-secret-pw"


def ok(payload: object) -> Location:
    return parse_location(200, "OK", json.dumps(payload).encode())


def refused_why(status: int, body: bytes) -> str:
    with pytest.raises(LookupFailed) as caught:
        parse_location(status, "Reason", body)
    assert caught.value.kind == "response"
    return caught.value.source


# --- without I/O -----------------------------------------------------------------------------


def test_the_answer_fields_of_common_services() -> None:
    berlin = Location("DE", "Europe/Berlin")
    assert ok({"country": "DE", "timezone": "Europe/Berlin"}) == berlin  # ipinfo.io, ipapi.co
    assert ok({"countryCode": "de", "timezone": "Europe/Berlin"}) == berlin  # ip-api.com
    assert (
        ok({"country": "Germany", "country_code": "DE", "timezone": {"id": "Europe/Berlin"}})
        == berlin
    )  # ipwho.is
    assert ok({"country": " us ", "timezone": "America/New_York"}).as_dict() == {
        "country": "US",
        "timezone": "America/New_York",
    }


@pytest.mark.parametrize(
    ("status", "body", "why"),
    [
        (429, b'{"country":"DE","timezone":"Europe/Berlin"}', "is HTTP 429 Reason"),
        (200, b"<html>rate limited</html>", "is not JSON"),
        (200, b"\xff\xfe", "is not JSON"),
        (200, b'["DE"]', "is not a JSON object"),
        (200, b'{"timezone":"Europe/Berlin"}', "names no country"),
        (200, b'{"country":"ZZ","timezone":"Europe/Berlin"}', 'country "ZZ", not an ISO'),
        (200, b'{"country":"Germany","timezone":"Europe/Berlin"}', "not an ISO 3166-1"),
        (200, b'{"country":7,"timezone":"Europe/Berlin"}', "has country 7"),
        (200, b'{"country":"DE"}', "names no timezone"),
        (200, b'{"country":"DE","timezone":"Mars/Olympus"}', "not an IANA time zone"),
        (200, b'{"country":"DE","timezone":"../../etc/passwd"}', "not an IANA time zone"),
        (200, b'{"country":"DE","timezone":"+02:00"}', "not an IANA time zone"),
    ],
)
def test_invalid_answers(status: int, body: bytes, why: str) -> None:
    assert why in refused_why(status, body)


def test_lookup_urls() -> None:
    url = parse_url("https://ipinfo.io/json")
    assert (url.scheme, url.host, url.port, url.path, url.authority) == (
        "https",
        "ipinfo.io",
        443,
        "/json",
        "ipinfo.io:443",
    )
    plain = parse_url("http://127.0.0.1:8080/geo?fields=cc")
    assert plain.absolute == "http://127.0.0.1:8080/geo?fields=cc"
    assert plain.host_header == "127.0.0.1:8080"
    assert parse_url("http://[::1]/").authority == "[::1]:80"
    for bad, why in (
        ("ftp://x/", "not an http:// or https:// URL with a host"),
        ("https:///json", "not an http:// or https:// URL with a host"),
        ("http://u:p@host/", "must not carry credentials"),
        ("http://host:99999/", "not a valid URL"),
        ("http://höst/", "must be ASCII"),
    ):
        with pytest.raises(ValueError, match=why):
            parse_url(bad)


def test_the_cache_is_per_session_and_route_and_expires() -> None:
    now = [1000.0]
    cache = LocationCache(ttl=1800, max_entries=3, clock=lambda: now[0])
    up = Upstream("proxy.test", 8080, "Px", "user-session-aaaa", "pw")
    here = Location("DE", "Europe/Berlin")
    cache.put(route_key("Session1", up), here)
    assert cache.get(route_key("Session1", up)) == here
    # another session, another username as sent (rotation), another alias or port: a miss
    rotated = Upstream("proxy.test", 8080, "Px", "user-session-bbbb", "pw")
    assert cache.get(route_key("Session2", up)) is None
    assert cache.get(route_key("Session1", rotated)) is None
    assert cache.get(route_key("Session1", Upstream("proxy.test", 8081, "Px", up.username))) is None
    # the alias is case-insensitive; the password is not part of the route
    assert cache.get(route_key("Session1", Upstream("proxy.test", 8080, "px", up.username))) == here
    now[0] += 1799
    assert cache.get(route_key("Session1", up)) == here
    now[0] += 1
    assert cache.get(route_key("Session1", up)) is None
    assert len(cache) == 0
    # bounded; a session's entries can be forgotten
    for n in range(5):
        cache.put(route_key(f"Session{n}", up), here)
    assert len(cache) == 3
    cache.forget_session("Session4")
    assert [cache.get(route_key(f"Session{n}", up)) for n in (2, 3, 4)] == [here, here, None]


# --- real sockets ----------------------------------------------------------------------------


@pytest.fixture
def upstream() -> Iterator[UpstreamProxy]:
    with UpstreamProxy(USER, PASSWORD) as proxy:
        yield proxy


@pytest.fixture
def geo() -> Iterator[GeoService]:
    with GeoService() as service:
        yield service


def through(proxy: UpstreamProxy, username: str = USER, password: str = PASSWORD) -> Upstream:
    return Upstream("127.0.0.1", proxy.port, "Geo", username, password)


def no_secrets(text: str) -> None:
    assert PASSWORD not in text
    assert base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode() not in text


async def test_plain_http_goes_through_the_upstream_with_its_credentials(
    upstream: UpstreamProxy, geo: GeoService
) -> None:
    found = await fetch_location(through(upstream), geo.url("/json?token=t"), seconds=5)
    assert found == Location("DE", "Europe/Berlin")
    (seen,) = upstream.seen
    assert (seen.method, seen.target) == ("GET", geo.url("/json?token=t"))
    assert (seen.username, seen.password, seen.authorized) == (USER, PASSWORD, True)
    (got,) = geo.seen
    assert got.path == "/json?token=t"
    assert "proxy-authorization" not in got.headers  # the upstream keeps it


async def test_https_goes_through_connect_then_tls(upstream: UpstreamProxy, tmp_path: Path) -> None:
    server_tls, ca_pem = tls_for_localhost(tmp_path)
    service = GeoService(server_tls).start()
    try:
        trust = ssl.create_default_context()
        trust.load_verify_locations(cadata=ca_pem)
        found = await fetch_location(
            through(upstream), service.url("/json"), seconds=5, ssl_context=trust
        )
        assert found == Location("DE", "Europe/Berlin")
        (seen,) = upstream.seen
        assert (seen.method, seen.target) == ("CONNECT", f"127.0.0.1:{service.port}")
        assert (seen.username, seen.password, seen.authorized) == (USER, PASSWORD, True)
        assert [s.path for s in service.seen] == ["/json"]
        # without that trust (system trust only) the handshake fails: a proxy-side failure
        with pytest.raises(LookupFailed) as caught:
            await fetch_location(through(upstream), service.url("/json"), seconds=5)
        assert caught.value.kind == "proxy"
        assert "TLS with 127.0.0.1:" in caught.value.source
        assert "CERTIFICATE_VERIFY_FAILED" in caught.value.source
    finally:
        service.stop()


async def test_refusals_and_failures_are_proxy_failures_without_credentials(
    upstream: UpstreamProxy, geo: GeoService, tmp_path: Path
) -> None:
    # wrong password: the upstream's 407 on the absolute-form request
    with pytest.raises(LookupFailed) as caught:
        await fetch_location(through(upstream, password="wrong-" + PASSWORD), geo.url())
    assert caught.value.kind == "proxy"
    assert caught.value.source.splitlines() == [
        f"upstream proxy refused GET 127.0.0.1:{geo.port}: "
        "HTTP/1.1 407 Proxy Authentication Required",
        "Proxy-Status: testproxy; error=auth_required",
    ]
    # a refused tunnel keeps the status line and diagnostic headers, never the password
    upstream.refuse = Refusal(403, "Forbidden", [("Proxy-Status", f"t; details={PASSWORD}")])
    with pytest.raises(LookupFailed) as caught:
        await fetch_location(through(upstream), "https://127.0.0.1:1/json")
    assert caught.value.kind == "proxy"
    assert "refused CONNECT 127.0.0.1:1: HTTP/1.1 403 Forbidden" in caught.value.source
    no_secrets(caught.value.source)
    # nothing listens where the upstream should be
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(LookupFailed) as caught:
        await fetch_location(Upstream("127.0.0.1", port, "Geo", USER, PASSWORD), geo.url())
    assert caught.value.kind == "proxy"
    assert caught.value.source.startswith(f"cannot connect to upstream proxy 127.0.0.1:{port}")
    # never a direct connection: the service saw none of these
    assert geo.seen == []


async def test_the_deadline_bounds_the_whole_lookup(
    upstream: UpstreamProxy, geo: GeoService
) -> None:
    geo.stall = True
    started = trio.current_time()
    with pytest.raises(LookupFailed) as caught:
        await fetch_location(through(upstream), geo.url(), seconds=0.5)
    assert trio.current_time() - started < 5
    assert caught.value.kind == "proxy"
    assert "did not finish within 0.5 s (waiting for the answer of 127.0.0.1:" in (
        caught.value.source
    )


async def test_an_oversized_answer_is_invalid(upstream: UpstreamProxy, geo: GeoService) -> None:
    geo.answer = (200, b"{" + b" " * (64 * 1024) + b"}")
    with pytest.raises(LookupFailed) as caught:
        await fetch_location(through(upstream), geo.url())
    assert (caught.value.kind, caught.value.source) == (
        "response",
        "the geolocation service's answer is longer than 65536 bytes",
    )
