"""Issue 12, the empty capture, on the real app: while other sessions keep pages that fetch
without pause, a new session's first capture of such a page (with a wait-for action) wrote
`<html><head></head><body></body></html>` (39 bytes), or waited to its deadline and failed.
The engine's serialization of a page's first document often answers that skeleton here (a
quarter of first captures once proxied sessions are open, measured by `make bench
BENCH=first_capture`; none with direct sessions only); every capture must still write the
whole rendered document before its deadline (how fast: the bench)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..httpserver import serving
from ..proxy.servers import UpstreamProxy
from .busy_pages import BUSY, Busy
from .hostproc import HostApp

pytestmark = pytest.mark.e2e

BUSY_SESSIONS = 4
# five, not ten: the whole test took 74 s with ten; how often a first capture meets the
# engine's skeleton is `make bench BENCH=first_capture`'s figure, not this test's
FIRST_CAPTURES = 5
USER, PASSWORD = "busyuser", "busy-secret"


@pytest.fixture(scope="module")
def busy_site() -> Iterator[str]:
    with serving(Busy) as base:
        yield base


@pytest.fixture
def proxy(host: HostApp) -> Iterator[str]:
    with UpstreamProxy(USER, PASSWORD) as upstream:
        alias = "busy-upstream"
        host.new_proxy(alias, upstream)
        try:
            yield alias
        finally:
            host.client.delete(f"/v1/proxies/{alias}")


# Each capture has its own 30 s deadline, so pytest's default bound (120 s) fits four slow
# captures, not ten: on a loaded CI machine the ten once took longer than 120 s in all (one
# capture took 25.8 s), which read like a hang although no capture outlived its deadline.
@pytest.mark.timeout(30 + FIRST_CAPTURES * 35)
def test_first_captures_among_busy_sessions_hold_the_whole_document(
    host: HostApp, busy_site: str, proxy: str
) -> None:
    routes: list[dict[str, str]] = [{}, {"proxy_alias": proxy}]
    busy = [host.new_session(**routes[i % 2]) for i in range(BUSY_SESSIONS)]
    took: list[float] = []  # seconds per capture, in the failure's message
    try:
        for sid in busy:
            host.ok("POST", "/v1/navigate", {"url": f"{busy_site}/busy", "session_id": sid})
        for n in range(FIRST_CAPTURES):
            sid = host.new_session(**routes[n % 2])
            try:
                started = time.monotonic()
                lines = host.stream(
                    "/v1/captures",
                    {
                        "session_id": sid,
                        "url": f"{busy_site}/busy?{n}",
                        "actions": [{"action": "wait-for", "selector": "#late", "timeout": 10}],
                        "wait": 0.2,
                        "timeout": 30,
                        "retry": 0,
                    },
                )
                took.append(round(time.monotonic() - started, 1))
                # the capture answers by its own deadline, whatever the load (slack for the
                # answer's way back)
                assert took[-1] < 30 + 5, took
                events = {str(line["event"]): line for line in lines}
                # it used to wait for a first load that never ended and fail at the deadline;
                # how long a capture takes under load is `make bench BENCH=first_capture`'s
                assert "capture.completed" in events, (took, json.dumps(lines)[:1500])
                html = Path(events["capture.completed"]["data"]["output_path"]).read_text("utf-8")
                assert len(html) > len(BUSY) // 2, html[:200]
                assert "<h1>Busy page</h1>" in html
                assert 'id="late"' in html
            finally:
                host.client.delete(f"/v1/sessions/{sid}")
    finally:
        for sid in busy:
            host.client.delete(f"/v1/sessions/{sid}")
