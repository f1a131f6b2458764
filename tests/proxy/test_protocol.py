"""The sans-I/O parts of the proxy: request classification, header rules, upstream credentials,
managed-provider usernames, diagnostics (redaction, bounds, scoping)."""

from __future__ import annotations

import base64

import h11
import pytest

from proxy.auth import (
    Upstream,
    basic_authorization,
    managed_username,
    providerx_username,
    providery_username,
)
from proxy.diagnostics import TRUNCATED, Diagnostics, authority_of_url, bound, redact, sanitize
from proxy.http import (
    ProxyRequestError,
    Target,
    classify,
    client_headers,
    parse_authority,
    refused_status,
    rejection_text,
    upstream_headers,
    with_authorization,
)


def request(method: bytes, target: bytes, *headers: tuple[bytes, bytes]) -> h11.Request:
    return h11.Request(method=method, target=target, headers=[(b"host", b"x"), *headers])


# --- request classification ----------------------------------------------------------------


def test_connect_takes_an_authority_target() -> None:
    r = classify(request(b"CONNECT", b"Example.COM:443", (b"user-agent", b"ua")))
    assert r.is_connect
    assert r.target == Target("example.com", 443)
    assert r.request_target == b"example.com:443"
    assert (b"user-agent", b"ua") in r.headers


def test_a_connect_without_host_gets_one_for_the_upstream() -> None:
    # HTTP/1.0 allows it; the upstream gets an HTTP/1.1 CONNECT, which needs Host (it used to
    # fail in h11 and the listener closed the connection without an answer)
    r = classify(h11.Request(method=b"CONNECT", target=b"example.com:443", headers=[],
                             http_version=b"1.0"))  # fmt: skip
    assert r.headers == [(b"Host", b"example.com:443")]
    client = h11.Connection(h11.CLIENT)
    assert client.send(h11.Request(method=b"CONNECT", target=r.request_target, headers=r.headers))


def test_connect_to_ipv6() -> None:
    r = classify(request(b"CONNECT", b"[::1]:8443"))
    assert r.target == Target("::1", 8443)
    assert r.target.authority == "[::1]:8443"


@pytest.mark.parametrize(
    "target",
    [
        b"example.com",
        b"example.com:",
        b"example.com:0",
        b"example.com:70000",
        b"a:b:443",
        b"[::1",
        b"[nothost]:443",
        b"user@example.com:443",
        b":443",
        b"example.com:4x3",
    ],
)
def test_malformed_connect_targets_are_400(target: bytes) -> None:
    with pytest.raises(ProxyRequestError) as caught:
        classify(request(b"CONNECT", target))
    assert caught.value.status == 400


def test_forward_requests_need_an_absolute_http_target() -> None:
    r = classify(request(b"GET", b"http://Example.com:8080/a/b?q=1#frag"))
    assert not r.is_connect
    assert r.target == Target("example.com", 8080)
    assert r.request_target == b"http://example.com:8080/a/b?q=1"
    r = classify(request(b"GET", b"http://example.com?x"))
    assert (r.target.port, r.request_target) == (80, b"http://example.com/?x")
    for bad in (b"/relative", b"https://example.com/", b"ftp://example.com/"):
        with pytest.raises(ProxyRequestError) as caught:
            classify(request(b"GET", bad))
        assert caught.value.status == 400


def test_unknown_methods_are_405() -> None:
    with pytest.raises(ProxyRequestError) as caught:
        classify(request(b"BREW", b"http://example.com/"))
    assert caught.value.status == 405


def test_a_missing_host_header_is_added_from_the_target() -> None:
    r = classify(
        h11.Request(method=b"GET", target=b"http://a.test:81/", headers=[], http_version=b"1.0")
    )
    assert (b"Host", b"a.test:81") in r.headers


# --- header rules ---------------------------------------------------------------------------


def test_the_upstream_gets_the_browsers_header_names_as_it_wrote_them() -> None:
    """h11 lowercases the names it parses; a plain-HTTP request relayed with those reached the
    site as no browser sends it (Chrome writes `Host` and `User-Agent`, `sec-ch-ua` in lower
    case): the names go on as the browser wrote them, in its order."""
    server = h11.Connection(h11.SERVER)
    server.receive_data(
        b"GET http://a.test/p HTTP/1.1\r\nHost: a.test\r\nProxy-Connection: keep-alive\r\n"
        b'sec-ch-ua: "Chromium"\r\nUser-Agent: UA\r\nAccept-Language: de\r\n\r\n'
    )
    event = server.next_event()
    assert isinstance(event, h11.Request)
    r = classify(event)
    names = [name for name, _ in with_authorization(r.headers, b"Basic abc")]
    assert names == [
        b"Host",
        b"sec-ch-ua",
        b"User-Agent",
        b"Accept-Language",
        b"Proxy-Authorization",
    ]
    client = h11.Connection(h11.CLIENT)
    wire = client.send(h11.Request(method=b"GET", target=r.request_target, headers=r.headers))
    assert wire is not None
    assert b'\r\nHost: a.test\r\nsec-ch-ua: "Chromium"\r\nUser-Agent: UA\r\n' in wire


def test_hop_by_hop_and_client_credentials_never_go_upstream() -> None:
    headers = [
        (b"host", b"a.test"),
        (b"connection", b"keep-alive, x-private"),
        (b"proxy-connection", b"keep-alive"),
        (b"keep-alive", b"300"),
        (b"proxy-authorization", b"Basic Y2xpZW50OnNlY3JldA=="),
        (b"x-private", b"1"),
        (b"te", b"trailers"),
        (b"upgrade", b"websocket"),
        (b"content-length", b"3"),
        (b"accept", b"*/*"),
    ]
    out = upstream_headers(headers)
    assert out == [(b"host", b"a.test"), (b"content-length", b"3"), (b"accept", b"*/*")]
    with_auth = with_authorization(out, b"Basic abc")
    assert with_auth[-1] == (b"Proxy-Authorization", b"Basic abc")
    assert with_authorization(out, None) == out


def test_framing_headers_stay_on_requests_but_transfer_encoding_leaves_responses() -> None:
    req = [(b"transfer-encoding", b"chunked"), (b"connection", b"transfer-encoding")]
    assert upstream_headers(req) == [(b"transfer-encoding", b"chunked")]
    resp = [
        (b"transfer-encoding", b"chunked"),
        (b"content-type", b"text/html"),
        (b"proxy-authenticate", b"Basic"),
        (b"connection", b"close"),
    ]
    assert client_headers(resp) == [(b"content-type", b"text/html")]


def test_refusals_never_reach_the_browser_as_407() -> None:
    assert refused_status(407) == 502
    assert refused_status(403) == 403
    assert refused_status(503) == 503
    assert refused_status(302) == 502
    assert refused_status(600) == 502


def test_rejection_text_keeps_the_status_line_and_diagnostic_headers_only() -> None:
    response = h11.Response(
        status_code=407,
        reason=b"Proxy Authentication Required",
        headers=[
            (b"proxy-status", b"upstream; error=auth_required"),
            (b"x-providerx-error", b"bad credentials"),
            (b"X-ProviderY-Err-Code", b"auth_failed"),
            (b"proxy-authenticate", b'Basic realm="x"'),
            (b"set-cookie", b"a=b"),
            (b"content-length", b"0"),
        ],
    )
    text = rejection_text(b"CONNECT", Target("example.com", 443), response)
    assert text.splitlines() == [
        "upstream proxy refused CONNECT example.com:443: HTTP/1.1 407 Proxy Authentication Required",
        "Proxy-Status: upstream; error=auth_required",
        "X-Providerx-Error: bad credentials",
        "X-Providery-Err-Code: auth_failed",
    ]


def test_parse_authority_default_port() -> None:
    assert parse_authority("a.test", 80) == Target("a.test", 80)
    assert parse_authority("[::1]", 80) == Target("::1", 80)


# --- credentials and managed usernames --------------------------------------------------------


def test_basic_authorization() -> None:
    value = basic_authorization("usér", "pa:ss")
    assert value is not None
    assert base64.b64decode(value.removeprefix(b"Basic ")).decode() == "usér:pa:ss"
    assert basic_authorization(None, "x") is None
    assert basic_authorization("u", None) == b"Basic " + base64.b64encode(b"u:")


def test_upstream_repr_hides_the_password_and_secrets_cover_every_form() -> None:
    up = Upstream("h.test", 8080, "px", "user1", "hunter2-pass")
    assert "hunter2" not in repr(up)
    token = base64.b64encode(b"user1:hunter2-pass").decode()
    assert set(up.secrets()) == {"user1", "hunter2-pass", token}
    assert Upstream("h.test", 1, "px").secrets() == ()
    short = Upstream("h.test", 1, "px", "ab", "pw")
    assert set(short.secrets()) == {"pw", base64.b64encode(b"ab:pw").decode()}
    assert Upstream("::1", 3128, "px").address == "[::1]:3128"


def test_provider_x_usernames() -> None:
    assert providerx_username("cust", "cc", "US", "0123abcd") == "cust-cc-US-sessid-0123abcd"
    assert providerx_username("cust", "st", "us_ca", "s1") == "cust-st-us_ca-sessid-s1"
    assert providerx_username("cust", None, None, "s1") == "cust-sessid-s1"


def test_provider_y_usernames_in_spec_order() -> None:
    full = providery_username("base", "s1", country="us", state="ny", city="newyork", asn="7922")
    assert full == "base-country-us-state-ny-city-newyork-asn-7922-session-s1"
    assert providery_username("base", "s1") == "base-session-s1"
    assert providery_username("base", "s1", asn="1") == "base-asn-1-session-s1"
    # state and city need a country (the agent refuses them without one anyway)
    assert providery_username("base", "s1", state="ny") == "base-session-s1"


def test_managed_username_follows_the_enabled_provider() -> None:
    px = {"enabled": True, "location_parameter": "country", "location_value": "de"}
    py_off = {"enabled": False, "country": "fr", "state": None, "city": None, "asn": None}
    assert managed_username("u", {"providerx": px, "providery": py_off}, "id") == (
        "u-country-de-sessid-id"
    )
    py_on = dict(py_off, enabled=True)
    assert managed_username("u", {"providery": py_on}, "id") == "u-country-fr-session-id"
    assert managed_username("u", {"providery": py_off}, "id") == "u"
    assert managed_username("u", {}, "id") == "u"


# --- diagnostics ------------------------------------------------------------------------------


def test_redaction_takes_the_longest_secret_first_and_bounds_add_a_marker() -> None:
    assert redact("user user:pw pw", ["pw", "user:pw", "user", ""]) == (
        "[redacted] [redacted] [redacted]"
    )
    assert bound("x" * 8192) == "x" * 8192
    assert bound("x" * 9000) == "x" * 8192 + TRUNCATED
    assert sanitize("secret" + "y" * 9000, ["secret"]).startswith("[redacted]yyy")
    assert len(sanitize("y" * 20000, [])) == 8192 + len(TRUNCATED)


def test_authority_of_url() -> None:
    assert authority_of_url("https://Example.com/x") == "example.com:443"
    assert authority_of_url("http://a.test:8080/") == "a.test:8080"
    assert authority_of_url("http://[::1]/") == "[::1]:80"
    assert authority_of_url("about:blank") is None
    assert authority_of_url("http://a.test:99999/") is None


def test_diagnostics_are_scoped_and_bounded() -> None:
    d = Diagnostics(max_entries=2)
    d.record(1, "PX", "a.test:443", "refused with pw", at=10.0, secrets=["pw"])
    failure = d.latest(1, "px", "A.test:443", since=5.0)
    assert failure is not None
    assert failure.source == "refused with [redacted]"
    assert failure.alias == "PX"
    assert d.latest(1, "px", "a.test:443", since=11.0) is None  # older than the attempt
    assert d.latest(2, "px", "a.test:443", since=0) is None  # another session
    assert d.latest(1, "other", "a.test:443", since=0) is None  # another proxy
    assert d.latest(1, "px", "b.test:443", since=0) is None  # another destination
    d.record(1, "px", "b.test:443", "b", at=11.0)
    d.record(2, "px", "c.test:443", "c", at=12.0)
    assert len(d) == 2
    assert d.latest(1, "px", "a.test:443", since=0) is None  # evicted, oldest first
    d.forget_session(2)
    assert len(d) == 1


def test_the_proxy_package_imports_no_agent_and_no_qt() -> None:
    import subprocess
    import sys

    code = "import sys, proxy; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.split()
    roots = {name.split(".")[0] for name in out}
    assert "agent" not in roots
    assert not {r for r in roots if r.startswith("PyQt")}
    assert {"trio", "h11"} <= roots
