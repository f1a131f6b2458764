"""Shared asset cache benchmark: a real documentation site (Debian's python3-doc HTML, served
locally with `Cache-Control: public, max-age=3600` on every file so the cache engages) loaded by
svc-app with the shared cache off and on: capture time with wait 0 of a fresh session's first
load (cold: the session's private cache is empty) for several pages, then the same pages in a
second fresh session (the shared cache warm when on). Prints medians and the origin's request
counts; then, cache on, the downloaded bytes each page's capture reports beside the bytes the
origin wrote for it (docs/decisions.md "Downloaded bytes (issue 37)").
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path("/usr/share/doc/python3-doc/html")
PAGES = [
    "/index.html",
    "/library/stdtypes.html",
    "/library/functions.html",
    "/tutorial/classes.html",
    "/library/os.html",
    "/reference/datamodel.html",
]


class _Written:
    """A connection's writer that counts every byte the origin writes."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def write(self, data: bytes) -> int:
        with _Docs.lock:
            _Docs.wrote += len(data)
        return int(self.raw.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


class _Docs(SimpleHTTPRequestHandler):
    hits: ClassVar[Counter[str]] = Counter()
    wrote: ClassVar[int] = 0
    lock = threading.Lock()

    def log_message(self, *_: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.wfile = _Written(self.wfile)  # type: ignore[assignment]

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "public, max-age=3600")
        super().end_headers()

    def do_GET(self) -> None:
        with self.lock:
            self.hits[self.path.split("?")[0]] += 1
        super().do_GET()


def _run(shared: bool, base: str) -> dict[str, list[float]]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.host.hostproc import HostApp

    data_dir = Path(tempfile.mkdtemp(prefix="svc-assets-bench-"))
    host = HostApp(data_dir, env={"_SETTINGS": json.dumps({"shared_asset_cache": shared})})
    host.start()
    out: dict[str, list[float]] = {"first": [], "second": []}
    try:
        for label in ("first", "second"):
            sid = host.new_session()
            for page in PAGES:
                t0 = time.perf_counter()
                host.ok("POST", "/v1/navigate", {"url": base + page, "session_id": sid, "wait": 0})
                out[label].append((time.perf_counter() - t0) * 1000)
            host.client.delete(f"/v1/sessions/{sid}")
    finally:
        host.stop()
    return out


def _traffic(base: str) -> list[tuple[int, int]]:
    """(reported, written) per page of one fresh session, cache on; each capture waits 1 s."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.host.hostproc import HostApp

    data_dir = Path(tempfile.mkdtemp(prefix="svc-assets-bench-"))
    host = HostApp(data_dir, env={"_SETTINGS": json.dumps({"shared_asset_cache": True})})
    host.start()
    out = []
    try:
        sid = host.new_session()
        for page in PAGES:
            with _Docs.lock:
                _Docs.wrote = 0
            lines = host.stream("/v1/captures", {"url": base + page, "session_id": sid})
            done = [x["data"] for x in lines if x["event"] == "capture.completed"]
            time.sleep(0.5)  # what the origin still writes is in its count
            out.append((int(done[0]["proxy_traffic"]["bytes"]) if done else -1, _Docs.wrote))
    finally:
        host.stop()
    return out


def main() -> None:
    if not ROOT.is_dir():
        print(f"  {ROOT} missing: skipped")
        return
    handler = partial(_Docs, directory=str(ROOT))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for shared in (True, False, True, False):
            _Docs.hits.clear()
            got = _run(shared, base)
            first, second = got["first"], got["second"]
            print(
                f"  shared cache {'on ' if shared else 'off'}: first session median "
                f"{statistics.median(first):.0f} ms (max {max(first):.0f}), second session "
                f"median {statistics.median(second):.0f} ms (max {max(second):.0f}); origin "
                f"requests {sum(_Docs.hits.values())}"
            )
            print("    per page ms, first:", " ".join(f"{v:.0f}" for v in first))
            print("    per page ms, second:", " ".join(f"{v:.0f}" for v in second))
        pairs = _traffic(base)
        print(
            "  downloaded bytes a capture reports / the origin wrote, per page (cache on, one "
            "session): " + " ".join(f"{r:,}/{w:,}" for r, w in pairs)
        )
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    main()
