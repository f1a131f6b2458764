"""Test doubles on real loopback sockets: an upstream HTTP proxy that requires Basic auth, and an
origin server. Each runs in threads of the test process; `stop()` closes every socket it opened.

`UpstreamProxy` speaks just enough HTTP/1.1 for a forward proxy: absolute-form requests (relayed
to the origin, one request per connection) and CONNECT (a byte tunnel). It records what it saw,
with the credentials decoded, so tests can check what the agent sent upstream. It answers 407
(with Proxy-Authenticate and Proxy-Status) without valid credentials, or `refuse` when set.
"""

from __future__ import annotations

import base64
import contextlib
import json
import select
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self
from urllib.parse import urlsplit

from ..httpserver import QUICK_SHUTDOWN

HEAD_LIMIT = 64 * 1024


@dataclass
class Seen:
    method: str
    target: str
    headers: dict[str, str]
    username: str | None
    password: str | None
    authorized: bool


@dataclass
class Refusal:
    status: int
    reason: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b"refused by the upstream test proxy\n"


def _read_head(conn: socket.socket) -> tuple[bytes, bytes] | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > HEAD_LIMIT:
            return None
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _pipe(a: socket.socket, b: socket.socket) -> None:
    """Copy both ways until either side closes."""
    sockets = [a, b]
    while True:
        readable, _, _ = select.select(sockets, [], [], 10)
        if not readable:
            return
        for s in readable:
            try:
                data = s.recv(65536)
            except OSError:
                return
            if not data:
                return
            (b if s is a else a).sendall(data)


class _Running:
    """`with Server(...) as server:` starts it and always stops it."""

    def start(self) -> object:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ThreadedServer(_Running):
    """A loopback TCP server: one thread per connection, each given to `handle`."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = int(self.sock.getsockname()[1])
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stopped = False
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        t = threading.Thread(target=self._accept, daemon=True)
        t.start()
        self._threads.append(t)

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self._lock:
                if self._stopped:
                    conn.close()
                    return
                self._open.add(conn)
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()
            self._threads.append(t)

    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(10)
            self.handle(conn)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(conn)
            conn.close()

    def handle(self, conn: socket.socket) -> None:
        raise NotImplementedError

    def track(self, s: socket.socket) -> None:
        with self._lock:
            self._open.add(s)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            opened = list(self._open)
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        for s in opened:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        for t in self._threads:
            t.join(5)


class UpstreamProxy(ThreadedServer):
    def __init__(self, username: str | None = "upuser", password: str = "up-secret-pw") -> None:
        super().__init__()
        self.username = username  # None: any username with the right password
        self.password = password
        self.refuse: Refusal | None = None
        self.seen: list[Seen] = []

    @property
    def address(self) -> tuple[str, int]:
        return "127.0.0.1", self.port

    def _credentials(self, headers: dict[str, str]) -> tuple[str | None, str | None]:
        value = headers.get("proxy-authorization", "")
        if not value.startswith("Basic "):
            return None, None
        user, _, password = base64.b64decode(value[6:]).decode().partition(":")
        return user, password

    # PLR0912: one branch per scripted behaviour
    def handle(self, conn: socket.socket) -> None:  # noqa: PLR0912
        got = _read_head(conn)
        if got is None:
            return
        head, rest = got
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        user, password = self._credentials(headers)
        authorized = password == self.password and (self.username is None or user == self.username)
        self.seen.append(Seen(method, target, headers, user, password, authorized))
        if self.refuse is not None:
            self._answer(conn, self.refuse)
            return
        if not authorized:
            self._answer(
                conn,
                Refusal(
                    407,
                    "Proxy Authentication Required",
                    [
                        ("Proxy-Authenticate", 'Basic realm="test"'),
                        ("Proxy-Status", "testproxy; error=auth_required"),
                        ("X-Unrelated", "dropped"),
                    ],
                ),
            )
            return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            try:
                origin = socket.create_connection((host, int(port)), timeout=5)
            except OSError:
                self._answer(
                    conn,
                    Refusal(
                        502,
                        "Bad Gateway",
                        [("Proxy-Status", "testproxy; error=destination_unavailable")],
                    ),
                )
                return
            self.track(origin)
            with origin:
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if rest:
                    origin.sendall(rest)
                _pipe(conn, origin)
            return
        url = urlsplit(target)
        assert url.scheme == "http", target
        origin = socket.create_connection((url.hostname or "", url.port or 80), timeout=5)
        self.track(origin)
        with origin:
            path = url.path or "/"
            if url.query:
                path += "?" + url.query
            out = [f"{method} {path} HTTP/1.1"]
            for line in lines[1:]:
                name = line.partition(":")[0].strip().lower()
                if name.startswith("proxy-") or name == "connection":
                    continue
                out.append(line)
            out.append("Connection: close")
            origin.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
            length = int(headers.get("content-length", "0"))
            body = rest
            while len(body) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                body += chunk
            origin.sendall(body)
            while data := origin.recv(65536):
                conn.sendall(data)

    def _answer(self, conn: socket.socket, refusal: Refusal) -> None:
        head = f"HTTP/1.1 {refusal.status} {refusal.reason}\r\n"
        for name, value in refusal.headers:
            head += f"{name}: {value}\r\n"
        head += f"Content-Length: {len(refusal.body)}\r\nConnection: close\r\n\r\n"
        conn.sendall(head.encode("latin-1") + refusal.body)


class Origin(_Running):
    """An HTTP origin answering every GET/POST with JSON of what it received."""

    def __init__(self) -> None:
        self.requests: list[dict[str, object]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _reply(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                seen: dict[str, object] = {
                    "method": self.command,
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "names": list(self.headers.keys()),  # as the client wrote them, in order
                    "body": body,
                }
                outer.requests.append(seen)
                if self.path.startswith("/page"):
                    data = b"<!doctype html><html><head><title>Through the proxy</title></head><body><h1>proxied</h1></body></html>"
                    ctype = "text/html; charset=utf-8"
                else:
                    data = json.dumps(seen).encode()
                    ctype = "application/json"
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = _reply
            do_POST = _reply

            def log_message(self, format: str, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs=QUICK_SHUTDOWN, daemon=True
        )

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    @property
    def authority(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> Origin:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(5)
