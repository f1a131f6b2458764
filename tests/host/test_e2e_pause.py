"""Pause and play (spec §3) through the HTTP API against the real app: what the fixture site sees
(requests per path, aborted connections) and what the session shows afterwards."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ..wsserver import SocketServer
from .hostproc import HostApp
from .site import Site

pytestmark = pytest.mark.e2e


def poll(check: Callable[[], bool], what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


class Background:
    """One API request on its own thread (the test pauses the session meanwhile)."""

    def __init__(self, host: HostApp, path: str, body: dict[str, Any]) -> None:
        self.envelope: dict[str, Any] | None = None
        self.thread = threading.Thread(target=self._run, args=(host, path, body), daemon=True)
        self.thread.start()

    def _run(self, host: HostApp, path: str, body: dict[str, Any]) -> None:
        self.envelope = host.client.post(path, json=body).json()

    def join(self, timeout: float = 15) -> dict[str, Any]:
        self.thread.join(timeout)
        assert self.envelope is not None, "the request did not finish"
        return self.envelope


def capture(host: HostApp, session: str, wait: float = 0) -> tuple[str, str]:
    """The session's live page: (url, html)."""
    data = host.ok("POST", "/v1/capture", {"session_id": session, "wait": wait})
    return data["page"]["url"], Path(data["capture"]["output_path"]).read_text()


def test_pause_before_commit_restores_the_previous_page_and_play_does_not_reload(
    host: HostApp, site: Site, session: str
) -> None:
    home = "/table?case=a"
    held = "/hold?s=10&case=a"  # the response headers never come before the pause
    host.ok("POST", "/v1/navigate", {"url": site.url(home), "session_id": session, "wait": 0})
    assert site.hits(home) == 1
    nav = Background(host, "/v1/navigate", {"url": site.url(held), "session_id": session})
    poll(lambda: site.hits(held) == 1, "the held request")
    host.ok("POST", f"/v1/sessions/{session}/pause")
    envelope = nav.join()
    assert envelope["status"] == "error"
    assert envelope["error"]["id"] == "NETWORK_PAUSED"
    # pause cancelled the active request: the site sees the browser drop the connection
    poll(lambda: site.aborted_at(held) is not None, "the held request to be aborted", 5)
    url, html = capture(host, session)
    assert url == site.url(home)  # the previous URL ...
    assert "<caption>Prices</caption>" in html  # ... and its live document are back
    host.ok("POST", f"/v1/sessions/{session}/play")
    # a reload would start at once; the 1 s settle wait of this capture would see it
    url, html = capture(host, session, wait=1.0)
    assert url == site.url(home)
    assert "<caption>Prices</caption>" in html
    assert site.hits(home) == 1  # no reload of the restored page
    assert site.hits(held) == 1  # and the cancelled navigation is not retried


def test_pause_of_a_loading_document_then_play_reloads_it(
    host: HostApp, site: Site, session: str
) -> None:
    stream = "/stream?s=8&case=b"  # commits at once, then its body takes 8 s
    host.ok(
        "POST", "/v1/navigate", {"url": site.url("/table?case=b"), "session_id": session, "wait": 0}
    )
    nav = Background(host, "/v1/navigate", {"url": site.url(stream), "session_id": session})
    # the document's own image request shows it committed and is being parsed
    poll(lambda: site.hits("/committed?s=8&case=b") == 1, "the streamed document to commit")
    host.ok("POST", f"/v1/sessions/{session}/pause")
    envelope = nav.join()
    assert envelope["status"] == "error"
    assert envelope["error"]["id"] == "NETWORK_PAUSED"
    poll(lambda: site.aborted_at(stream) is not None, "the streamed body to be aborted", 5)
    url, html = capture(host, session)
    assert url == site.url(stream)  # the committed, partial document stays
    assert 'id="first"' in html or "id=first" in html
    assert 'id="last"' not in html
    assert site.hits(stream) == 1
    host.ok("POST", f"/v1/sessions/{session}/play")
    # play reloads the interrupted page: the site sees it requested again
    poll(lambda: site.hits(stream) == 2, "the reload after play")


def test_pause_with_nothing_loading_then_play_does_not_reload(
    host: HostApp, site: Site, session: str
) -> None:
    home = "/table?case=c"
    host.ok("POST", "/v1/navigate", {"url": site.url(home), "session_id": session, "wait": 0})
    host.ok("POST", f"/v1/sessions/{session}/pause")
    url, _ = capture(host, session)
    assert url == site.url(home)
    host.ok("POST", f"/v1/sessions/{session}/play")
    url, html = capture(host, session, wait=1.0)
    assert url == site.url(home)
    assert "<caption>Prices</caption>" in html
    assert site.hits(home) == 1


def test_navigation_deferred_by_pause_is_reloaded_at_play(
    host: HostApp, site: Site, session: str
) -> None:
    target = "/table?case=d"
    later = f"/later?ms=600&to={target}"  # the page navigates itself 0.6 s after loading
    host.ok("POST", "/v1/navigate", {"url": site.url(later), "session_id": session, "wait": 0})
    host.ok("POST", f"/v1/sessions/{session}/pause")
    # the page's own navigation is attempted while paused: blocked, it never reaches the site
    poll(lambda: capture(host, session)[0] != site.url(later), "the page to try to navigate")
    assert site.hits(target) == 0
    host.ok("POST", f"/v1/sessions/{session}/play")
    # play reloads: the deferred navigation now reaches the site and its page is shown
    poll(lambda: site.hits(target) == 1, "the deferred navigation after play")
    poll(lambda: capture(host, session)[0] == site.url(target), "the deferred page")
    assert site.hits(later) == 1


def test_pause_closes_what_a_loaded_page_holds_open_and_keeps_the_document(
    host: HostApp, site: Site, session: str
) -> None:
    """Pause cancels active requests (spec 1 §3): a loaded page's open WebSocket went on
    talking while the session was paused. It is closed now; the document stays, and play does
    not reload it (nothing was interrupted)."""
    with SocketServer() as sockets:
        url = site.url(f"/socket?port={sockets.port}")
        host.ok("POST", "/v1/navigate", {"url": url, "session_id": session, "wait": 0})
        poll(sockets.opened, "the page's socket to open")
        paused_at = time.monotonic()
        host.ok("POST", f"/v1/sessions/{session}/pause")
        try:
            poll(lambda: sockets.closed_after(paused_at), "the socket to close")
            now, html = capture(host, session)
            assert now == url
            assert "<title>closed 1006</title>" in html, html
        finally:
            host.ok("POST", f"/v1/sessions/{session}/play")
        hits = site.hits("/socket")
        now, _ = capture(host, session, wait=0.3)
        assert now == url
        assert site.hits("/socket") == hits  # not reloaded
