"""A local HTTP server for one test module: `with serving(handler) as base_url: ...`."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# serve_forever looks for shutdown() every poll_interval (0.5 s by default): a server stopped at
# the end of each test would cost each test half a second.
QUICK_SHUTDOWN = {"poll_interval": 0.02}


@contextmanager
def serving(handler: Callable[..., BaseHTTPRequestHandler] | Any) -> Iterator[str]:
    """Serve `handler` on a free loopback port in a thread; the base URL; stopped after."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs=QUICK_SHUTDOWN, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def reply(
    handler: BaseHTTPRequestHandler,
    body: bytes,
    content_type: str,
    headers: dict[str, str] | None = None,
) -> None:
    """A 200 with `body`, its type and length, and `headers`."""
    handler.send_response(200)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)
