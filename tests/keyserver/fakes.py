"""Local stand-ins for GitHub, Reddit, Twitter and HTTPS proof hosts, on one loopback server.

The key server's per-service base URLs point here: `<base>/github`, `<base>/reddit`,
`<base>/twitter`, and `<base>` itself for https proofs, which arrive with `Host: <domain>`.
A test sets what a path answers; unknown paths answer 404.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    # When set, the answer waits for it (a check that is still running).
    gate: threading.Event | None = None
    # Close the connection without answering (a transport failure).
    drop: bool = False


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]


@dataclass
class FakeServices:
    url: str = ""
    routes: dict[tuple[str | None, str], Route] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def set(self, path: str, route: Route, host: str | None = None) -> None:
        with self.lock:
            self.routes[(host, path)] = route

    def lookup(self, host: str | None, path: str) -> Route | None:
        with self.lock:
            return self.routes.get((host, path)) or self.routes.get((None, path))

    def requests_to(self, path: str) -> list[Seen]:
        with self.lock:
            return [s for s in self.seen if s.path == path]


def _handler(fakes: FakeServices) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            with fakes.lock:
                fakes.seen.append(Seen("GET", self.path, headers))
            host = headers.get("host", "").rsplit(":", 1)[0] or None
            route = fakes.lookup(host, self.path)
            if route is None:
                route = Route(404, b'{"message":"Not Found"}')
            if route.gate is not None:
                route.gate.wait(30)
            if route.drop:
                self.close_connection = True
                return
            self.send_response(route.status)
            self.send_header("Content-Type", route.content_type)
            self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            self.wfile.write(route.body)

    return Handler


@contextmanager
def running_fakes() -> Iterator[FakeServices]:
    fakes = FakeServices()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fakes))
    server.daemon_threads = True
    fakes.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="fake-services", daemon=True)
    thread.start()
    try:
        yield fakes
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
