"""The asset scheme's network fetch (no Qt): one GET of the original URL, blocking, run in a
worker thread, by the session's route: straight to the origin for a direct session, through its
loopback proxy listener for a proxied one (absolute-form for http, CONNECT for https), so a
proxied session's asset never leaves any other way. `abort()` from another thread closes the
socket: a request the engine cancelled stops downloading at once.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from .logic.assets import over_limit

CHUNK = 64 * 1024
TIMEOUT = 30.0
# Headers of the engine's request that are not forwarded: hop-by-hop ones, and the encodings
# (the fetch asks for identity: it has no brotli/zstd decoder and must know the real size).
_DROPPED = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "upgrade",
    "host",
    "accept-encoding",
}


class Aborted(Exception):
    """The fetch was aborted (the engine cancelled the request, or the app is closing)."""


@dataclass(frozen=True, slots=True)
class FetchRoute:
    proxy_port: int | None = None
    extra_roots_pem: str | None = None  # a proxied session's extra trust, PEM


@dataclass(slots=True)
class Fetched:
    status: int
    headers: dict[str, str]  # lower-case names, repeated ones joined with ", "
    set_cookies: list[str] = field(default_factory=list)
    body: bytes = b""
    location: str | None = None  # absolute, for a redirect
    dropped: bool = False  # an image over the limit: its body was not read (beyond the limit)
    read: int = 0
    hit: bool = False  # served by the shared asset cache, no network


def _context(route: FetchRoute) -> ssl.SSLContext:
    # the system store (SSL_CERT_FILE honoured), plus the session's extra roots if any
    ctx = ssl.create_default_context()
    if route.extra_roots_pem:
        ctx.load_verify_locations(cadata=route.extra_roots_pem)
    return ctx


class Fetch:
    def __init__(
        self,
        url: str,
        headers: dict[str, str],
        route: FetchRoute,
        *,
        limit_bytes: int | None = None,
        timeout: float = TIMEOUT,
    ) -> None:
        self.url = url
        self.headers = {k: v for k, v in headers.items() if k.lower() not in _DROPPED}
        self.headers["Accept-Encoding"] = "identity"
        self.route = route
        self.limit_bytes = limit_bytes
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None
        self._aborted = threading.Event()
        self._lock = threading.Lock()

    def abort(self) -> None:
        self._aborted.set()
        with self._lock:
            conn = self._conn
        if conn is not None and conn.sock is not None:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)

    def _connect(self) -> tuple[http.client.HTTPConnection, str]:
        parts = urlsplit(self.url)
        https = parts.scheme == "https"
        host = parts.hostname or ""
        port = parts.port or (443 if https else 80)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        proxy = self.route.proxy_port
        conn: http.client.HTTPConnection
        if https:
            ctx = _context(self.route)
            if proxy is None:
                conn = http.client.HTTPSConnection(host, port, timeout=self.timeout, context=ctx)
            else:
                ua = next((v for k, v in self.headers.items() if k.lower() == "user-agent"), "")
                conn = _TunnelConnection(proxy, host, port, ua, timeout=self.timeout, context=ctx)
        elif proxy is None:
            conn = http.client.HTTPConnection(host, port, timeout=self.timeout)
        else:
            conn = http.client.HTTPConnection("127.0.0.1", proxy, timeout=self.timeout)
            target = self.url.split("#", 1)[0]  # absolute form to a forward proxy
        return conn, target

    def run(self) -> Fetched:
        """The response; raises Aborted, or OSError/HTTPException for a failed fetch."""
        if self._aborted.is_set():
            raise Aborted
        conn, target = self._connect()
        with self._lock:
            self._conn = conn
        try:
            conn.request("GET", target, headers=self.headers)
            resp = conn.getresponse()
            headers: dict[str, str] = {}
            set_cookies: list[str] = []
            for name, value in resp.getheaders():
                low = name.lower()
                if low == "set-cookie":
                    set_cookies.append(value)
                headers[low] = f"{headers[low]}, {value}" if low in headers else value
            out = Fetched(resp.status, headers, set_cookies)
            if 300 <= resp.status < 400 and "location" in headers:
                out.location = urljoin(self.url, headers["location"])
                return out
            length = _length(headers)
            limit = self.limit_bytes
            if limit is not None and over_limit(length, 0, limit):
                out.dropped = True
                return out
            chunks: list[bytes] = []
            while True:
                want = CHUNK if limit is None else min(CHUNK, limit + 1 - out.read)
                chunk = resp.read(want) if want > 0 else b""
                if not chunk:
                    break
                chunks.append(chunk)
                out.read += len(chunk)
                if limit is not None and over_limit(None, out.read, limit):
                    out.dropped = True
                    return out
            out.body = b"".join(chunks)
            return out
        except (OSError, http.client.HTTPException):
            if self._aborted.is_set():
                raise Aborted from None
            raise
        finally:
            with self._lock:
                self._conn = None
            conn.close()


class _TunnelConnection(http.client.HTTPSConnection):
    """TLS to `host:port` inside a CONNECT tunnel through the loopback listener. Python 3.11's
    own tunnel (`set_tunnel`) sends `CONNECT ... HTTP/1.0` without a Host header, which the
    agent's listener closes unanswered (measured); this one sends what the engine sends."""

    def __init__(
        self,
        proxy_port: int,
        host: str,
        port: int,
        user_agent: str,
        *,
        timeout: float,
        context: ssl.SSLContext,
    ) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self._proxy_port = proxy_port
        self._user_agent = user_agent
        self._ctx = context

    def connect(self) -> None:
        raw = socket.create_connection(("127.0.0.1", self._proxy_port), self.timeout)
        try:
            _open_tunnel(raw, self.host, self.port, self._user_agent)
            self.sock = self._ctx.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


def _open_tunnel(raw: socket.socket, host: str, port: int, user_agent: str) -> None:
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    head = f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n"
    if user_agent:
        head += f"User-Agent: {user_agent}\r\n"
    raw.sendall((head + "\r\n").encode("latin-1"))
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = raw.recv(4096)
        if not chunk or len(answer) > 64 * 1024:
            raise OSError("the proxy listener closed the tunnel unanswered")
        answer += chunk
    status_line = answer.split(b"\r\n", 1)[0].decode("latin-1")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[1].startswith("2"):
        raise OSError(f"tunnel refused: {status_line}")


def _length(headers: dict[str, str]) -> int | None:
    try:
        return int(headers["content-length"].split(",")[0])
    except (KeyError, ValueError):
        return None
