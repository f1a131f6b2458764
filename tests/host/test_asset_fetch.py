"""The asset fetch on its own (host_app/engine/asset_fetch.py) against a local server, and the scheme's
worker step on canned answers: a whole answer, the image limit, a redirect, the environment's
proxy ignored, a transfer cut under way counting as aborted (never as a short answer), and a
stylesheet naming relative URLs left to the engine. No engine runs here."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import cast

import pytest

from host_app.engine import asset_fetch
from host_app.engine.asset_fetch import Aborted, Fetch, Fetched, FetchRoute
from host_app.engine.asset_scheme import _work
from host_app.engine.shared_assets import SharedAssets

from ..httpserver import reply, serving

BODY = b"x" * 50_000


class _Site(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    started = threading.Event()

    def log_message(self, *_: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/whole":
            return reply(self, BODY, "image/png", {"Cache-Control": "public, max-age=60"})
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/whole")
            self.send_header("Content-Length", "0")
            return self.end_headers()
        if self.path == "/slow":
            # a body that trickles: the test cuts the transfer under way
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(BODY)))
            self.end_headers()
            try:
                self.wfile.write(BODY[:1000])
                self.wfile.flush()
                self.started.set()
                for start in range(1000, len(BODY), 1000):
                    time.sleep(0.05)
                    self.wfile.write(BODY[start : start + 1000])
                    self.wfile.flush()
            except OSError:
                pass
            return None
        self.send_error(404)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serving(_Site) as base:
        yield base


def _fetch(url: str, owner: str, **kw: int) -> Fetch:
    return Fetch(url, [("User-Agent", "test")], FetchRoute(owner=owner), **kw)


def test_a_whole_answer(site: str) -> None:
    got = _fetch(f"{site}/whole", "t-whole").run()
    assert (got.status, got.body, got.headers["content-type"]) == (200, BODY, "image/png")


def test_an_image_over_the_limit_is_dropped_and_a_redirect_is_not_followed(site: str) -> None:
    assert _fetch(f"{site}/whole", "t-limit", limit_bytes=1000).run().dropped
    moved = _fetch(f"{site}/moved", "t-limit").run()
    assert (moved.status, moved.location) == (302, f"{site}/whole")


def test_the_environments_proxy_is_not_used(site: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A direct session's fetch goes straight to the origin, whatever the environment names
    (curl reads http_proxy and friends unless told not to)."""
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    assert _fetch(f"{site}/whole", "t-env").run().body == BODY


def test_a_transfer_cut_under_way_is_aborted_not_short(site: str) -> None:
    """Closing a session's connections (route hold, pause, the session going) ends its
    transfers; curl_cffi resolves them as if finished, which must not pass for an answer."""
    assert _cut_under_way(site, "t-cut", lambda _: asset_fetch.forget("t-cut")) == ["aborted"]


def test_abort_ends_a_transfer_at_once(site: str) -> None:
    assert _cut_under_way(site, "t-abort", Fetch.abort) == ["aborted"]


def _cut_under_way(site: str, owner: str, cut: Callable[[Fetch], None]) -> list[object]:
    """What `run()` gave for a slow body cut by `cut` after its first bytes arrived."""
    _Site.started.clear()
    fetch = _fetch(f"{site}/slow", owner)
    outcome: list[object] = []
    runner = threading.Thread(target=lambda: outcome.append(_outcome(fetch)), daemon=True)
    runner.start()
    assert _Site.started.wait(10)
    cut(fetch)
    runner.join(10)
    return outcome


def _outcome(fetch: Fetch) -> object:
    try:
        got = fetch.run()
    except Aborted:
        return "aborted"
    return len(got.body)


class _Canned:
    """A fetch that answers a given response (the scheme's worker step, without a network)."""

    url = "http://127.0.0.1:9/s.css"

    def __init__(self, got: Fetched) -> None:
        self.got = got

    def run(self) -> Fetched:
        return self.got


@pytest.mark.parametrize("stored", [True, False])
def test_a_stylesheet_naming_relative_urls_is_left_to_the_engine(
    tmp_path: Path, stored: bool
) -> None:
    """Served by the scheme, its relative URLs would resolve under the scheme's name. It was
    left to the engine only on the path that stores; a stylesheet whose request headers kept
    it out of the store (no-cache, a validator) was served by the scheme all the same."""
    css = Fetched(200, {"cache-control": "public, max-age=60"}, body=b"a{b:url(x.png)}")
    store = SharedAssets(tmp_path) if stored else None
    got = _work(cast(Fetch, _Canned(css)), store, "direct", "stylesheet")
    assert got.native
    assert store is None or store.get("direct", _Canned.url) is None
    plain = Fetched(200, {}, body=b"p{color:red}")
    assert not _work(cast(Fetch, _Canned(plain)), None, "direct", "stylesheet").native
