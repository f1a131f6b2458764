"""A small local HTTP server whose answers a test module writes itself (pages with dialogs,
downloads with chosen headers, a download whose connection drops, redirects); a POST is
answered by the same route as a GET."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Reply:
    body: bytes
    ctype: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    drop_after: int | None = None  # announce the whole body, send this many bytes, then close
    stall: float = 0.0  # with drop_after: wait this long before closing
    status: int = 200
    delay: float = 0.0  # seconds before the status line (a server slow to answer)


def html(text: str) -> Reply:
    return Reply(text.encode())


def redirect(location: str) -> Reply:
    return Reply(b"", headers={"Location": location}, status=302)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        # a route answers a form's post as it answers a GET; the body is read and dropped
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.do_GET()

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        route = self.server.routes.get(path)
        with self.server.lock:
            self.server.hits[path] = self.server.hits.get(path, 0) + 1
        if route is None:
            reply = Reply(b"not found", "text/plain")
            self.send_response(404)
        else:
            reply = route()
            time.sleep(reply.delay)
            self.send_response(reply.status)
        self.send_header("Content-Type", reply.ctype)
        self.send_header("Content-Length", str(len(reply.body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        try:
            if reply.drop_after is None:
                self.wfile.write(reply.body)
                return
            self.wfile.write(reply.body[: reply.drop_after])
            self.wfile.flush()
            time.sleep(reply.stall)
            self.close_connection = True
            self.connection.shutdown(2)
        except OSError:
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    routes: dict[str, Callable[[], Reply]]
    hits: dict[str, int]
    lock: threading.Lock


class Routes:
    """`with Routes({"/page": lambda: html("...")}) as site: site.url("/page")`"""

    def __init__(self, routes: dict[str, Callable[[], Reply]]) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.routes = dict(routes)
        self._server.hits = {}
        self._server.lock = threading.Lock()
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self._server.server_port}{path}"

    def hits(self, path: str) -> int:
        with self._server.lock:
            return self._server.hits.get(path, 0)

    def __enter__(self) -> Routes:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
