"""The asset scheme's network fetch (no Qt): one GET of the original URL by the session's route,
straight to the origin for a direct session, through its loopback proxy listener for a proxied
one (absolute-form for http, CONNECT for https), so a proxied session's asset never leaves any
other way.

It must look, on the wire, like the engine's own request: a site sees the TLS ClientHello and
the HTTP/2 settings of every request, and a Chrome User-Agent over Python's TLS is the textbook
sign of a bot. So the fetch is libcurl built to speak as Chrome does (curl_cffi), with the
engine's headers in the engine's order (`logic.asset_request`). Measured against the engine
(Chromium 140): the same cipher suites, extensions, groups, signature algorithms and ALPN
(tests/host/test_e2e_asset_wire.py).

Fetches run on one asyncio loop in a daemon thread; `run()` blocks the asset pool's thread
until its answer. Each session (`FetchRoute.owner`) has its own curl multi handle, so its own
connections and TLS sessions: two sessions never share a connection a site could link them
by. `abort()` from any thread removes the transfer and closes its connection at once.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import hashlib
import shutil
import ssl
import tempfile
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin

from curl_cffi import Curl, CurlError, CurlHttpVersion, CurlInfo, CurlOpt
from curl_cffi.aio import AsyncCurl
from curl_cffi.curl import CURL_WRITEFUNC_ERROR  # a callback's way to end the transfer

from ..logic.asset_request import ACCEPT_ENCODING
from ..logic.assets import over_limit

# The engine is Chromium 140; curl_cffi's chrome136 target sends its ClientHello and HTTP/2
# settings (measured: tests/host/test_e2e_asset_wire.py fails when they part).
IMPERSONATE = "chrome136"
CONNECT_TIMEOUT = 30
STALL_SECONDS = 30  # a transfer that moves no byte for this long fails
MAX_OWNERS = 64  # sessions whose connections are kept; the least recently used is closed


class Aborted(Exception):
    """The fetch was aborted (the engine cancelled the request, or the app is closing)."""


@dataclass(frozen=True, slots=True)
class FetchRoute:
    proxy_port: int | None = None
    extra_roots_pem: str | None = None  # a proxied session's extra trust, PEM
    owner: str = ""  # the session: its fetches share connections, never another's


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
    # what came from the network: the headers and the body as they came (before decoding)
    received: int = 0
    native: bool = False  # not to be served by the scheme: the engine fetches it itself


class _Roots:
    """CA bundles for curl, which reads trust from a file: the system store as Python's default
    context finds it (SSL_CERT_FILE and SSL_CERT_DIR honoured, read once per process), plus a
    proxied session's extra roots written with the system file into one bundle (certificates
    only, nothing secret) in a folder of this process made by `mkdtemp` (private, never one
    another user could have made first), removed at exit. A bundle is written once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._system: tuple[str, str] | None = None
        self._bundles: dict[str, str] = {}  # extra roots PEM -> its bundle's path
        self._folder: Path | None = None

    def files(self, extra_pem: str | None) -> tuple[str, str]:
        with self._lock:
            if self._system is None:
                paths = ssl.get_default_verify_paths()
                self._system = (paths.cafile or "", paths.capath or "")
            cafile, capath = self._system
            if not extra_pem:
                return cafile, capath
            bundle = self._bundles.get(extra_pem)
            if bundle is None:
                if self._folder is None:
                    self._folder = Path(tempfile.mkdtemp(prefix="svc-asset-roots-"))
                    atexit.register(shutil.rmtree, self._folder, True)
                digest = hashlib.sha256(extra_pem.encode()).hexdigest()[:32]
                target = self._folder / f"{digest}.pem"
                system = Path(cafile).read_text("ascii", "replace") if cafile else ""
                target.write_text(system + "\n" + extra_pem, "ascii")
                bundle = self._bundles[extra_pem] = str(target)
            return bundle, capath


_ROOTS = _Roots()


class _Loop:
    """The fetches' event loop (started with the first fetch) and one multi handle per
    owner, made and used in the loop's thread only."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._multis: OrderedDict[str, AsyncCurl] = OrderedDict()

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="svc-asset-loop", daemon=True
                ).start()
                self._loop = loop
            return self._loop

    def multi(self, owner: str) -> AsyncCurl:
        found = self._multis.get(owner)
        if found is None:
            found = AsyncCurl(loop=asyncio.get_running_loop())
            self._multis[owner] = found
        self._multis.move_to_end(owner)
        while len(self._multis) > MAX_OWNERS:
            _, old = self._multis.popitem(last=False)
            asyncio.get_running_loop().create_task(_closed(old))
        return found

    def forget(self, owner: str) -> None:
        """Close a session's connections (it was deleted or rebuilt on another route)."""
        with self._lock:
            loop = self._loop
        if loop is None:
            return

        def close() -> None:
            multi = self._multis.pop(owner, None)
            if multi is not None:
                loop.create_task(_closed(multi))

        loop.call_soon_threadsafe(close)


_CLOSED: weakref.WeakSet[AsyncCurl] = weakref.WeakSet()  # closed under their transfers


async def _closed(multi: AsyncCurl) -> None:
    # its transfers under way end as if they had finished (curl_cffi resolves them): marked,
    # so that they count as aborted, not as whole answers
    _CLOSED.add(multi)
    await multi.close()  # type: ignore[no-untyped-call]  # curl_cffi leaves it unannotated


_LOOP = _Loop()


def forget(owner: str) -> None:
    _LOOP.forget(owner)


class _Transfer:
    """One transfer's state, filled by curl's callbacks in the loop's thread."""

    def __init__(self, url: str, limit: int | None) -> None:
        self.url = url
        self.limit = limit
        self.status = 0
        self.headers: dict[str, str] = {}
        self.set_cookies: list[str] = []
        self.chunks: list[bytes] = []
        self.read = 0
        self.stopped = False  # we ended it: over the limit, or a redirect needs no body
        self.dropped = False
        self.location: str | None = None
        self.received = 0  # curl's count once the transfer ended

    def header(self, line: bytes) -> int:
        text = line.decode("latin-1").rstrip("\r\n")
        if text.startswith("HTTP/"):
            # a new response (after a 1xx): only the last one counts
            parts = text.split(" ", 2)
            self.status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
            self.headers, self.set_cookies = {}, []
        elif text:
            name, _, value = text.partition(":")
            low, value = name.strip().lower(), value.strip()
            if low == "set-cookie":
                self.set_cookies.append(value)
            self.headers[low] = f"{self.headers[low]}, {value}" if low in self.headers else value
        elif self.status >= 200:  # the end of a final response's headers
            return self._headers_done(len(line))
        return len(line)

    def _headers_done(self, size: int) -> int:
        if 300 <= self.status < 400 and "location" in self.headers:
            self.location = urljoin(self.url, self.headers["location"])
            self.stopped = True
            return CURL_WRITEFUNC_ERROR
        if self.limit is not None and over_limit(_length(self.headers), 0, self.limit):
            self.dropped = self.stopped = True
            return CURL_WRITEFUNC_ERROR
        return size

    def body(self, chunk: bytes) -> int:
        self.read += len(chunk)
        if self.limit is not None and over_limit(None, self.read, self.limit):
            self.dropped = self.stopped = True
            return CURL_WRITEFUNC_ERROR
        self.chunks.append(chunk)
        return len(chunk)

    def result(self) -> Fetched:
        out = Fetched(
            self.status, self.headers, self.set_cookies, read=self.read, received=self.received
        )
        if self.location is not None:
            out.location = self.location
        elif self.dropped:
            out.dropped = True
        else:
            out.body = b"".join(self.chunks)
        return out


class Fetch:
    def __init__(
        self,
        url: str,
        headers: Sequence[tuple[str, str]],
        route: FetchRoute,
        *,
        limit_bytes: int | None = None,
    ) -> None:
        """`headers`: the request's, in wire order (logic.asset_request.engine_headers)."""
        self.url = url
        self.headers = list(headers)
        self.route = route
        self.limit_bytes = limit_bytes
        self._aborted = threading.Event()
        self._lock = threading.Lock()
        self._future: concurrent.futures.Future[Fetched] | None = None

    def abort(self) -> None:
        self._aborted.set()
        with self._lock:
            future = self._future
        if future is not None:
            future.cancel()  # cancels the task in the loop: the transfer is removed

    def run(self) -> Fetched:
        """The response (blocking); raises Aborted, or OSError for a failed fetch."""
        if self._aborted.is_set():
            raise Aborted
        future = asyncio.run_coroutine_threadsafe(self._transfer(), _LOOP.loop())
        with self._lock:
            self._future = future
        if self._aborted.is_set():
            future.cancel()
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise Aborted from None

    def _curl(self, state: _Transfer) -> Curl:
        cafile, capath = _ROOTS.files(self.route.extra_roots_pem)
        curl = Curl(cacert=cafile)
        curl.impersonate(IMPERSONATE, default_headers=False)
        curl.setopt(CurlOpt.URL, self.url.split("#", 1)[0])
        curl.setopt(CurlOpt.HTTPHEADER, [f"{k}: {v}".encode("latin-1") for k, v in self.headers])
        # curl would put Connection last; the engine writes it right after Host
        order = ",".join(["host", *(k.lower() for k, _ in self.headers)])
        curl.setopt(CurlOpt.HTTPHEADER_ORDER, order)
        # decodes what it asked for; the header itself is the one in HTTPHEADER, in its place
        curl.setopt(CurlOpt.ACCEPT_ENCODING, ACCEPT_ENCODING)
        curl.setopt(CurlOpt.FOLLOWLOCATION, 0)
        if self.url[:5].lower() == "http:":
            # HTTP/2 only through TLS's ALPN, as the engine: never an `Upgrade: h2c` attempt
            curl.setopt(CurlOpt.HTTP_VERSION, CurlHttpVersion.V1_1)
        curl.setopt(CurlOpt.NOSIGNAL, 1)
        curl.setopt(CurlOpt.CONNECTTIMEOUT, CONNECT_TIMEOUT)
        curl.setopt(CurlOpt.LOW_SPEED_LIMIT, 1)
        curl.setopt(CurlOpt.LOW_SPEED_TIME, STALL_SECONDS)
        curl.setopt(CurlOpt.PIPEWAIT, 1)  # wait for an HTTP/2 connection to multiplex, as Chrome
        if capath:
            curl.setopt(CurlOpt.CAPATH, capath)
        port = self.route.proxy_port
        if port is None:
            curl.setopt(CurlOpt.PROXY, "")  # never a proxy of the environment
        else:
            curl.setopt(CurlOpt.PROXY, f"http://127.0.0.1:{port}")
            curl.setopt(CurlOpt.SUPPRESS_CONNECT_HEADERS, 1)
            agent = next((v for k, v in self.headers if k.lower() == "user-agent"), "")
            if agent:
                # the CONNECT carries the engine's User-Agent, as the engine's own does
                curl.setopt(CurlOpt.PROXYHEADER, [f"User-Agent: {agent}".encode("latin-1")])
        curl.setopt(CurlOpt.HEADERFUNCTION, state.header)
        curl.setopt(CurlOpt.WRITEFUNCTION, state.body)
        return curl

    async def _transfer(self) -> Fetched:
        state = _Transfer(self.url, self.limit_bytes)
        curl = self._curl(state)
        multi = _LOOP.multi(self.route.owner)
        try:
            await multi.add_handle(curl)
            if multi in _CLOSED:
                raise Aborted
        except CurlError as exc:
            if not state.stopped:
                raise OSError(_message(exc)) from None
        except asyncio.CancelledError:
            multi.remove_handle(curl)
            raise
        finally:
            state.received = _received(curl)
            curl.close()
        return state.result()


def _received(curl: Curl) -> int:
    """The bytes a transfer took from the network: the header lines curl received and the body
    before decoding (measured against a server's count: equal over HTTP/1.1, gzip included)."""
    try:
        headers = curl.getinfo(CurlInfo.HEADER_SIZE)
        body = curl.getinfo(CurlInfo.SIZE_DOWNLOAD_T)
    except CurlError:
        return 0
    return sum(int(n) for n in (headers, body) if isinstance(n, int | float))


def _message(exc: CurlError) -> str:
    # curl_cffi wraps curl's own text ("curl: (7) Failed to connect to ...") between its
    # action and a pointer to its documentation
    text = str(exc).split(". See ", 1)[0]
    return text.removeprefix("Failed to perform, ")


def _length(headers: dict[str, str]) -> int | None:
    try:
        return int(headers["content-length"].split(",")[0])
    except (KeyError, ValueError):
        return None
