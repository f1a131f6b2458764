"""Issue 12 point 3: a session's renderer does not keep every document it left. QtWebEngine's
renderers never collected them (+77 MiB per navigation of this page, no plateau); the host
asks for a collection once the renderer grew by the bound (host_app/engine/memory.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from tests.httpserver import serving

from .hostproc import HostApp

pytestmark = pytest.mark.e2e

BIG = b"<!doctype html><title>big</title><h1>A large page</h1>" + b"".join(
    b"<p>paragraph %d of a long document</p>" % i for i in range(20_000)
)


class _Big(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(BIG)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(BIG)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def big() -> Iterator[str]:
    with serving(_Big) as base:
        yield f"{base}/big"


def test_documents_left_behind_are_collected(host: HostApp, session: str, big: str) -> None:
    """A fingerprinted session (the default profile): collected through its page's own
    devtools channel (host_app/engine/worker_cdp.py)."""
    _collected_after_ten_pages(host, session, big)


def test_a_native_sessions_documents_are_collected_too(host: HostApp, big: str) -> None:
    """Without a fingerprint the page has no devtools channel: a short-lived frontend makes the
    collection."""
    host.ok("POST", "/v1/profiles", {"name": "Native memory", "fingerprint_profile": None})
    sid = host.new_session(profile="Native memory")
    try:
        _collected_after_ten_pages(host, sid, big)
    finally:
        host.client.delete(f"/v1/sessions/{sid}")


def _collected_after_ten_pages(host: HostApp, session: str, big: str) -> None:
    for n in range(10):
        host.ok("POST", "/v1/navigate", {"url": f"{big}?n={n}", "session_id": session, "wait": 0})
    # an operation after the last collection (it waits for the session's lock)
    data = host.ok("POST", "/v1/observe", {"session_id": session})
    assert data["observation"]["title"] == "big"
    number = session.removeprefix("Session")
    log = host.data_dir / "Logs" / "sessions" / f"{number}.ndjson"
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    collected = [r["data"] for r in records if r["category"] == "engine.memory"]
    assert collected, [r["category"] for r in records]
    freed = [c["pss_before_kib"] - c["pss_after_kib"] for c in collected]
    assert all(f > 100 * 1024 for f in freed), collected  # each freed what the pages left
