"""Clearing the caches (issue 15 point 4, for the Settings window of issue 17): the engine's
`clear_shared_cache` and `clear_private_caches` on the real engine, each leaving the other
alone, and the app switch turning the shared cache off for the next request. The engine starts
with the settings of a first start (none saved): the shared cache is on by default, bounded at
512 MiB with entries of at most 32 MiB (spec 1 §1 "Shared asset cache", §8).

No bridge command reaches these (the Settings window calls them), so an in-process Engine runs
in a child process started as svc-app starts it (schemes registered before the QApplication)."""

from __future__ import annotations

import json
import sys
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from . import inengine
from .inengine import child_result, configure, run_child, run_scenario, start_engine

pytestmark = pytest.mark.e2e

# the shared image at one URL for every session, the other new on each load (no renderer's
# memory cache in the way)
PAGE = """<!doctype html><html><head><title>p</title></head><body>
<img src="/pub.png"><img src="/own.png?{query}"></body></html>"""
# a 1x1 PNG
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf000000020001e221bc330000000049454e44ae426082"
)


class _Site(BaseHTTPRequestHandler):
    hits: ClassVar[Counter[str]] = Counter()
    encodings: ClassVar[dict[str, str]] = {}

    def log_message(self, *_: object) -> None:
        pass

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        self.hits[path] += 1
        self.encodings[path] = self.headers.get("Accept-Encoding", "")
        body, kind, cc = PAGE.format(query=query).encode(), "text/html", "no-store"
        if path == "/pub.png":
            body, kind, cc = PNG, "image/png", "public, max-age=600"
        elif path == "/own.png":
            body, kind, cc = PNG, "image/png", "max-age=600"  # the private cache's only
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Cache-Control", cc)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_clearing_the_shared_and_the_private_caches(tmp_path: Path) -> None:
    proc = run_child("tests.host.test_e2e_cache_clearing", str(tmp_path), timeout=120)
    out = child_result(proc, tmp_path / "child.stderr")
    # no settings saved: the shared cache is on, so two direct sessions fetch the public image
    # once between them
    assert out["shared_on_at_first_start"] is True, out
    assert out["shared_first"] == 1, out
    # its bounds: an entry of 32 MiB is kept, one byte more is not; 512 MiB in all
    assert out["entry_of_32_mib"] == [True, False], out
    assert out["max_bytes"] == 512 * 1024 * 1024, out
    assert out["shared_entries_before"] >= 1, out
    # the private caches cleared: the session's cache files go, the shared cache stays
    assert out["private_files_before"] > 0, out
    assert out["private_files_after"] == 0, out
    assert out["shared_entries_after_private_clear"] == out["shared_entries_before"], out
    # the shared cache cleared: a third session fetches the public image again
    assert out["shared_entries_after_clear"] == 0, out
    assert out["pub_after_clear"] == 1, out
    # the switch off: the next request is the engine's own
    assert out["encoding_switched_off"] != "identity", out


# --- the child process ---------------------------------------------------------------------------


def _cache_files(storage: Path) -> int:
    return sum(1 for p in (storage / "Cache").rglob("*_0") if p.is_file())


def run(data_dir: Path) -> dict[str, Any]:
    from host_app.engine.session_browser import SessionBrowser
    from host_app.logic.settings import AppSettings

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    assert not (data_dir / "app-settings.json").exists()
    # the settings of a first start, as svc-app loads them
    app, engine = start_engine(data_dir, "svc-app-cache-test", schemes=True)
    out: dict[str, Any] = {"shared_on_at_first_start": engine.settings.shared_asset_cache}
    bound = engine.shared_assets
    out["entry_of_32_mib"] = [
        bound.put("bounds", f"https://h/{size}", "image/png", bytes(size), 60)
        for size in (32 * 1024 * 1024, 32 * 1024 * 1024 + 1)
    ]
    out["max_bytes"] = bound.max_bytes
    bound.clear("bounds")

    def browser(n: int) -> SessionBrowser:
        return engine.browser(configure(engine, n))

    async def load(b: SessionBrowser, url: str) -> bool:
        return await inengine.load(engine, b, url, settle=0.3)

    async def scenario() -> None:
        b1, b2 = browser(1), browser(2)
        await load(b1, base + "/?1")
        await load(b2, base + "/?2")
        out["shared_first"] = _Site.hits["/pub.png"]
        out["shared_entries_before"] = len(engine.shared_assets)
        # the private cache holds what the engine fetched itself (the page is no-store): let
        # the switch off for one load so the engine caches /own.png in session 1
        engine.apply_app_settings(AppSettings(shared_asset_cache=False))
        await load(b1, base + "/?3")
        out["encoding_switched_off"] = _Site.encodings.get("/own.png", "")
        await inengine.until(engine, lambda: _cache_files(b1.storage) > 0, 5)
        out["private_files_before"] = _cache_files(b1.storage)
        engine.clear_private_caches()
        await inengine.until(engine, lambda: _cache_files(b1.storage) == 0, 10)
        out["private_files_after"] = _cache_files(b1.storage)
        out["shared_entries_after_private_clear"] = len(engine.shared_assets)
        engine.apply_app_settings(AppSettings(shared_asset_cache=True))
        engine.clear_shared_cache()
        out["shared_entries_after_clear"] = len(engine.shared_assets)
        before = _Site.hits["/pub.png"]
        await load(browser(3), base + "/?4")
        out["pub_after_clear"] = _Site.hits["/pub.png"] - before

    error = run_scenario(app, scenario())
    engine.shutdown()
    server.shutdown()
    if error is not None:
        raise error
    return out


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]))))
