"""Navigation end to end: the real headless app, the real agent, the fixture site."""

from __future__ import annotations

import time

import pytest

from .hostproc import HostApp
from .site import Site

pytestmark = pytest.mark.e2e


def test_navigate_reports_final_url_title_and_status(
    host: HostApp, site: Site, session: str
) -> None:
    data = host.ok("POST", "/v1/navigate", {"url": site.url("/"), "session_id": session, "wait": 0})
    assert data["page"]["session_id"] == session
    assert data["page"]["url"] == site.url("/")
    assert data["capture"]["target_http_status"] == 200
    assert data["capture"]["bytesize"] > 0


@pytest.mark.parametrize(("path", "status"), [("/missing", 404), ("/broken", 500)])
def test_error_status_is_upstream_unavailable_and_page_stays(
    host: HostApp, site: Site, session: str, path: str, status: int
) -> None:
    t0 = time.monotonic()
    code, error = host.error("POST", "/v1/navigate", {"url": site.url(path), "session_id": session})
    assert time.monotonic() - t0 < 5
    assert code == 502
    assert error["id"] == "UPSTREAM_UNAVAILABLE"
    assert error["details"]["url"] == site.url(path)
    assert error["details"]["target_http_status"] == status
    # the page stays selected: capture without session_id reads it
    data = host.ok("POST", "/v1/capture", {"session_id": session, "wait": 0})
    assert data["page"]["url"] == site.url(path)
    assert data["capture"]["target_http_status"] == status


def test_redirect_chain_lands_on_final_url(host: HostApp, site: Site, session: str) -> None:
    data = host.ok(
        "POST", "/v1/navigate", {"url": site.url("/redirect?n=3"), "session_id": session, "wait": 0}
    )
    assert data["page"]["url"] == site.url("/table")
    assert data["capture"]["target_http_status"] == 200


def test_background_loading_and_subframes_do_not_delay(
    host: HostApp, site: Site, session: str
) -> None:
    for path in ("/background", "/iframes"):
        t0 = time.monotonic()
        data = host.ok(
            "POST", "/v1/navigate", {"url": site.url(path), "session_id": session, "wait": 0}
        )
        assert time.monotonic() - t0 < 5, path
        assert data["page"]["url"] == site.url(path)


def test_wait_restarts_when_the_page_navigates_itself(
    host: HostApp, site: Site, session: str
) -> None:
    data = host.ok(
        "POST", "/v1/navigate", {"url": site.url("/selfnav"), "session_id": session, "wait": 1}
    )
    assert data["page"]["url"] == site.url("/table")


def test_fragment_and_history_moves_keep_the_document(
    host: HostApp, site: Site, session: str
) -> None:
    host.ok("POST", "/v1/navigate", {"url": site.url("/table"), "session_id": session, "wait": 0})
    data = host.ok(
        "POST", "/v1/navigate", {"url": site.url("/table#t"), "session_id": session, "wait": 0}
    )
    assert data["page"]["url"] == site.url("/table#t")
    assert data["capture"]["target_http_status"] == 200


def test_slow_page_times_out(host: HostApp, site: Site, session: str) -> None:
    t0 = time.monotonic()
    _, error = host.error(
        "POST", "/v1/navigate", {"url": site.url("/slow?s=5"), "session_id": session, "timeout": 1}
    )
    assert error["id"] == "TIMEOUT", error
    assert time.monotonic() - t0 < 4
    # the session keeps working
    data = host.ok("POST", "/v1/navigate", {"url": site.url("/"), "session_id": session, "wait": 0})
    assert data["capture"]["target_http_status"] == 200


def test_connection_failure_is_upstream_unavailable(host: HostApp, session: str) -> None:
    _, error = host.error(
        "POST", "/v1/navigate", {"url": "http://127.0.0.1:9/", "session_id": session, "timeout": 20}
    )
    assert error["id"] == "UPSTREAM_UNAVAILABLE", error


def test_challenge_page_gets_time_to_continue(host: HostApp, site: Site, session: str) -> None:
    data = host.ok(
        "POST",
        "/v1/navigate",
        {"url": site.url("/challenge-403"), "session_id": session, "wait": 0},
    )
    assert data["page"]["url"] == site.url("/table")
