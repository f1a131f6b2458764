"""A local HTTP server for one test module: `with serving(handler) as base_url: ...`."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def serving(handler: Callable[..., BaseHTTPRequestHandler] | Any) -> Iterator[str]:
    """Serve `handler` on a free loopback port in a thread; the base URL; stopped after."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
