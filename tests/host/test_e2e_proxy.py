"""A proxied session end to end: the real headless app and agent, the engine's traffic through
the agent's profile proxy listener to a local upstream proxy (Basic auth), then the origin."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

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
    host.ok(
        "POST",
        "/v1/proxies",
        {
            "alias": alias,
            "upstream_host": "127.0.0.1",
            "upstream_port": upstream.port,
            "username": USER,
            "password": PASSWORD,
        },
    )
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
