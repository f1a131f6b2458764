"""The asset scheme's requests while their sessions go (host_app/engine/asset_scheme.py), on the real
engine. The app died of SIGSEGV when busy sessions were deleted (one CI run in five; once in
about 80 rounds of deleting four busy sessions under CPU load, with a core dump): the handler
had connected a Python callable to the engine's job, the collector cleared that callable along
with the job's wrapper (a garbage cycle through an aborted fetch), and the job's deletion then
ran the cleared function. The crash depends on when the collector runs, so this test does not
reproduce it at will (the old code passes it too); it drives the same path (sessions deleted
with fetches aborted and garbage collected) and the sweep that replaced the callable: a request
the engine drops has its fetch aborted (fails without the sweep).

An in-process Engine in a child process (a crash kills the child, not pytest)."""

from __future__ import annotations

import contextlib
import gc
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest

from ..httpserver import reply, serving
from . import inengine
from .inengine import child_result, configure, run_child, run_scenario, start_engine

pytestmark = pytest.mark.e2e

PAGE = (
    b"<!doctype html><html><head><title>p</title></head><body><img src='/held.png'></body></html>"
)
ROUNDS = 3


def test_a_session_goes_while_its_asset_requests_are_under_way(tmp_path: Path) -> None:
    proc = run_child("tests.host.test_e2e_asset_jobs", str(tmp_path), timeout=120)
    out = child_result(proc, tmp_path / "child.stderr")
    assert "error" not in out, out
    # the app lived through each session's deletion after its fetch was aborted and the
    # garbage collected (the child exited cleanly: child_result)
    assert out["deleted_while_fetching"] == ROUNDS, out
    # a request the engine dropped (its page went elsewhere) has its fetch aborted, not left
    # waiting for a server that never answers
    assert out["dropped_fetch_aborted"] is True, out


# --- the child process ---------------------------------------------------------------------------


class _Held(BaseHTTPRequestHandler):
    """The page answers at once; its image waits until the test ends (`release`)."""

    release: ClassVar[threading.Event] = threading.Event()

    def log_message(self, *_: object) -> None:
        pass

    def handle(self) -> None:
        with contextlib.suppress(OSError):  # a fetch that was aborted
            super().handle()

    def do_GET(self) -> None:
        if self.path.startswith("/held"):
            self.release.wait(60)
            body, kind = b"", "image/png"
        else:
            body, kind = PAGE, "text/html"
        reply(self, body, kind, {"Cache-Control": "no-store"})


def run(data_dir: Path) -> dict[str, Any]:
    with serving(_Held) as base:
        return _scenario(data_dir, base)


def _scenario(data_dir: Path, base: str) -> dict[str, Any]:
    from host_app.engine import asset_scheme
    from host_app.logic import aio
    from host_app.logic.settings import AppSettings

    app, engine = start_engine(
        data_dir, "svc-app-asset-jobs", settings=AppSettings(shared_asset_cache=True), schemes=True
    )
    out: dict[str, Any] = {"deleted_while_fetching": 0}

    def fetching() -> bool:
        return any(f.url.endswith("/held.png") for f in asset_scheme._ACTIVE)

    async def scenario() -> None:
        for n in range(1, ROUNDS + 1):
            b = engine.browser(configure(engine, n))
            b.load(f"{base}/?{n}")
            assert await inengine.until(engine, fetching), "the image never reached the scheme"
            # the fetch ends Aborted while its job lives (as when a session's connections are
            # closed), the job is failed, and garbage is collected before the engine deletes it
            for fetch in list(asset_scheme._ACTIVE):
                fetch.abort()
            await inengine.until(engine, lambda: not fetching(), 5)
            gc.collect()
            engine.close_session(f"Session{n}")
            await aio.sleep(engine.loop, 1.0)  # the pages and jobs go
            gc.collect()
            out["deleted_while_fetching"] += 1
        # a page that goes elsewhere while its image is fetched: the engine drops the request
        b = engine.browser(configure(engine, ROUNDS + 1))
        b.load(f"{base}/?last")
        assert await inengine.until(engine, fetching), "the image never reached the scheme"
        b.load("about:blank")
        out["dropped_fetch_aborted"] = await inengine.until(engine, lambda: not fetching(), 5)

    error = run_scenario(app, scenario())
    _Held.release.set()
    engine.shutdown()
    if error is not None:
        out["error"] = repr(error)
    return out


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]))))
