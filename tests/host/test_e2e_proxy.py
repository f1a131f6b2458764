"""A proxied session end to end: the real headless app and agent, the engine's traffic through
the agent's profile proxy listener to a local upstream proxy (Basic auth), then the origin."""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from ..httpserver import serving
from ..proxy.servers import Origin, UpstreamProxy
from .hostproc import HostApp

pytestmark = pytest.mark.e2e

USER, PASSWORD = "e2euser", "e2e-secret-pw"


@pytest.fixture
def upstream() -> Iterator[UpstreamProxy]:
    with UpstreamProxy(USER, PASSWORD) as proxy:
        yield proxy


@pytest.fixture
def origin() -> Iterator[Origin]:
    with Origin() as server:
        yield server


def test_a_proxied_session_loads_through_the_upstream_with_stored_credentials(
    host: HostApp, upstream: UpstreamProxy, origin: Origin
) -> None:
    alias = "e2eproxy"
    host.new_proxy(alias, upstream)
    sid = host.new_session(proxy_alias=alias)
    try:
        url = origin.url("/page")
        data = host.ok("POST", "/v1/navigate", {"url": url, "session_id": sid, "wait": 0})
        assert data["capture"]["target_http_status"] == 200
        html = Path(data["capture"]["output_path"]).read_text(encoding="utf-8")
        assert "Through the proxy" in html
        page_loads = [s for s in upstream.seen if s.target == url]
        assert page_loads, [s.target for s in upstream.seen]
        assert all(
            (s.method, s.username, s.password) == ("GET", USER, PASSWORD) for s in page_loads
        )
        assert all(s.authorized for s in upstream.seen)
        # the engine got only the loopback listener, never the credentials
        prefs = host.data_dir / "Browser" / f"Tab-{sid.removeprefix('Session')}" / "user_prefs.json"
        text = prefs.read_text()
        assert f"127.0.0.1:{upstream.port}" not in text
        assert PASSWORD not in text
        assert base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode() not in text

        # a wrong stored password: the relay answers 502 and the error names the proxy's cause
        host.ok("PATCH", f"/v1/proxies/{alias}", {"password": "wrong-password"})
        # the host applies a proxy change lazily; a new session picks up the proxy afresh
        sid2 = host.new_session(proxy_alias=alias)
        try:
            _, error = host.error(
                "POST", "/v1/navigate", {"url": origin.url("/page2"), "session_id": sid2, "wait": 0}
            )
        finally:
            host.client.delete(f"/v1/sessions/{sid2}")
        assert error["id"] == "UPSTREAM_UNAVAILABLE"
        assert error["details"]["error_source"] == "proxy"
        assert error["details"]["proxy_alias"] == alias
        assert "407 Proxy Authentication Required" in error["details"]["source_error"]
        assert "wrong-password" not in str(error)
    finally:
        host.client.delete(f"/v1/sessions/{sid}")
        host.client.delete(f"/v1/proxies/{alias}")


BUSY_PAGE = b"""<!doctype html><html><head><title>Busy</title></head><body><p id=box>busy</p>
<script>setInterval(function(){fetch('/tick?'+Date.now()).then(function(r){return r.text()})
.then(function(t){document.getElementById('box').textContent=t})},20);
setTimeout(function(){var d=document.createElement('div');d.id='late';
d.textContent='rendered late';document.body.appendChild(d)},300)</script></body></html>"""


class _HeldPage(BaseHTTPRequestHandler):
    """`/held` answers only once the test releases it (the navigation is pending until then);
    its page fetches `/tick` every 20 ms for as long as it is open."""

    requested = threading.Event()
    release = threading.Event()

    def log_message(self, *_: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/held"):
            type(self).requested.set()
            type(self).release.wait(30)
            body, kind = BUSY_PAGE, "text/html"
        else:
            body, kind = b"tick", "text/plain"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_a_proxy_change_during_the_first_capture_does_not_swap_the_page_it_reads(
    host: HostApp, upstream: UpstreamProxy
) -> None:
    """Issue 12 ("empty capture"): settings that need a new browser context (a proxy change
    while the browser is still empty) reached the host while the session's first capture was
    loading (pause and play send the session's settings outside the scheduler's slot) and
    replaced the page under that capture (which then timed out waiting on a blank page). The
    renewal waits for the operation and never swaps its page; since issue 14 the session's
    network is held from the moment the settings arrive, so that capture cannot finish by the
    old (direct) route: its attempt ends at once, REQUEST_CANCELLED (`route_changed`,
    retryable), and the retry loads the page by the new route."""
    alias = "e2eswap"
    host.new_proxy(alias, upstream)
    _HeldPage.requested.clear()
    _HeldPage.release.clear()
    sid = host.new_session()
    result: dict[str, list[dict[str, object]]] = {}
    try:
        with serving(_HeldPage) as base:
            body = {
                "session_id": sid,
                "url": f"{base}/held",
                "actions": [{"action": "wait-for", "selector": "#late", "timeout": 10}],
                "wait": 0.3,
                "timeout": 10,
                "retry": 1,
                "retry_delay": 0,
            }
            capture = threading.Thread(
                target=lambda: result.update(lines=host.stream("/v1/captures", body))
            )
            capture.start()
            try:
                # the host's capture holds the session, its navigation pending
                assert _HeldPage.requested.wait(20)
                host.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": alias})
                host.ok("POST", f"/v1/sessions/{sid}/play")  # sends the new settings now
            finally:
                _HeldPage.release.set()
                capture.join(40)
            assert not capture.is_alive()
            events: dict[str, Any] = {str(line["event"]): line for line in result["lines"]}
            retrying = events["capture.retrying"]["data"]["error"]
            assert (retrying["id"], retrying["details"]["reason"]) == (
                "REQUEST_CANCELLED",
                "route_changed",
            ), retrying
            completed = events["capture.completed"]["data"]
            assert completed["target_http_status"] == 200, result["lines"]
            assert any(s.target == f"{base}/held" for s in upstream.seen)

            # the browser is not empty: the navigation rebuilds its context on the new route
            # first (docs/decisions.md "Proxy preference")
            url = f"{base}/held?again"
            again = host.ok("POST", "/v1/navigate", {"url": url, "session_id": sid, "wait": 0})
            assert again["capture"]["target_http_status"] == 200
            assert any(s.target == url for s in upstream.seen)
    finally:
        _HeldPage.release.set()
        host.client.delete(f"/v1/sessions/{sid}")
        host.client.delete(f"/v1/proxies/{alias}")


def test_a_site_sees_a_proxied_sessions_request_headers_as_a_direct_sessions(
    host: HostApp, upstream: UpstreamProxy, origin: Origin
) -> None:
    """A plain-HTTP request of a proxied session crosses the agent's listener: its header names
    reach the site as the engine wrote them, in its order (h11's lowercased names did before:
    `host`, `user-agent`, where a browser writes `Host`, `User-Agent`)."""
    alias = "casing"
    host.new_proxy(alias, upstream)
    direct, proxied = host.new_session(), host.new_session(proxy_alias=alias)
    try:
        for sid, path in ((direct, "/page-direct"), (proxied, "/page-proxied")):
            url = origin.url(path)
            host.ok("POST", "/v1/navigate", {"url": url, "session_id": sid, "wait": 0})
        seen: dict[str, list[str]] = {}
        for r in origin.requests:
            got = r["names"]
            assert isinstance(got, list)
            seen[str(r["path"])] = [str(n) for n in got]

        def names(path: str) -> list[str]:
            # the hop-by-hop Connection is each hop's own (the test upstream says close)
            return [n for n in seen[path] if n != "Connection"]

        assert "User-Agent" in names("/page-direct")
        assert names("/page-proxied") == names("/page-direct")
    finally:
        for sid in (direct, proxied):
            host.client.delete(f"/v1/sessions/{sid}")
        host.client.delete(f"/v1/proxies/{alias}")
