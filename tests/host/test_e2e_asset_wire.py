"""What a site sees of an asset the asset scheme fetched, against the engine's own request for
the same asset (host_app/engine/asset_fetch.py): the same TLS ClientHello and the same request headers,
in the same order. One app with the shared asset cache on: session A holds a cookie for the
site, so its assets stay on the engine's own network (a request with cookies is never shared);
session B has none, so its assets go through the asset scheme."""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

import pytest

from ..httpserver import reply, serving
from ..proxy.servers import ThreadedServer, UpstreamProxy
from .hostproc import HostApp
from .test_e2e_assets import _records, png

pytestmark = pytest.mark.e2e

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
PUBLIC = {"Cache-Control": "public, max-age=600"}
USER, PASSWORD = "wireuser", "wire-secret-pw"
# TLS GREASE values (RFC 8701): random per connection, left out of the comparison
GREASE = {0x0A0A + 0x1010 * i for i in range(16)}


@dataclass(frozen=True)
class Hello:
    ciphers: tuple[int, ...]
    extensions: frozenset[int]  # Chrome permutes their order per connection
    groups: tuple[int, ...]
    signature_algorithms: tuple[int, ...]
    alpn: tuple[str, ...]


def _u16(data: bytes, at: int) -> int:
    return int(struct.unpack(">H", data[at : at + 2])[0])


def parse_hello(record: bytes) -> Hello:
    p = 5 + 4 + 2 + 32  # record header, handshake header, version, random
    p += 1 + record[p]  # session id
    n = _u16(record, p)
    ciphers = tuple(c for c in (_u16(record, p + 2 + i) for i in range(0, n, 2)) if c not in GREASE)
    p += 2 + n
    p += 1 + record[p]  # compression methods
    end = p + 2 + _u16(record, p)
    p += 2
    exts: set[int] = set()
    groups: tuple[int, ...] = ()
    sigalgs: tuple[int, ...] = ()
    alpn: list[str] = []
    while p < end:
        kind, size = _u16(record, p), _u16(record, p + 2)
        body = record[p + 4 : p + 4 + size]
        p += 4 + size
        if kind in GREASE:
            continue
        exts.add(kind)
        if kind == 10:
            groups = tuple(
                g
                for g in (_u16(body, 2 + i) for i in range(0, _u16(body, 0), 2))
                if g not in GREASE
            )
        elif kind == 13:
            sigalgs = tuple(_u16(body, 2 + i) for i in range(0, _u16(body, 0), 2))
        elif kind == 16:
            q = 2
            while q < len(body):
                alpn.append(body[q + 1 : q + 1 + body[q]].decode())
                q += 1 + body[q]
    return Hello(ciphers, frozenset(exts), groups, sigalgs, tuple(alpn))


class HelloCatcher(ThreadedServer):
    """Reads each connection's ClientHello and closes it (no handshake)."""

    def __init__(self) -> None:
        super().__init__()
        self.hellos: list[Hello] = []

    def handle(self, conn: socket.socket) -> None:
        data = b""
        while len(data) < 5 or len(data) < 5 + _u16(data, 3):
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        if len(data) > 5 and data[0] == 0x16:
            with self._lock:
                self.hellos.append(parse_hello(data))


class Site(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[tuple[str, list[tuple[str, str]]]]] = []
    hello_port: ClassVar[int] = 0

    def log_message(self, *_: object) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        self.seen.append((path, list(self.headers.items())))
        if path == "/cookie":
            return self._send(b"ok", "text/plain", {"Set-Cookie": "c=1; Path=/"})
        if path == "/":
            page = (
                "<!doctype html><link rel=stylesheet href=/a/s.css><script src=/a/c.js></script>"
                "<script type=module src=/a/m.js></script><img src=/a/i.png>"
                f"<img src='https://127.0.0.1:{self.hello_port}/a/tls.png'>"
                "<p style='font-family:Probe'>font</p><div id=bg></div>"
                "<script>addEventListener('load',function(){setTimeout(function(){var b="
                "document.body;b.dataset.names=performance.getEntriesByType('resource')"
                ".map(function(e){return e.name}).join(' ');b.dataset.bgi=getComputedStyle("
                "document.getElementById('bg')).backgroundImage;b.dataset.font=document.fonts"
                ".check('12px Probe')?'yes':'no'},300)})</script>"
            )
            return self._send(page.encode(), "text/html", {})
        bodies = {
            "/a/s.css": (
                b"@font-face{font-family:Probe;src:url(f.ttf)}"
                b"#bg{background:url(bg.png);width:16px;height:16px}",
                "text/css",
            ),
            "/a/c.js": (b"window.c=1", "text/javascript"),
            "/a/m.js": (b"document.body.dataset.meta=import.meta.url", "text/javascript"),
            "/a/i.png": (png(16, 3), "image/png"),
            "/a/bg.png": (png(16, 4), "image/png"),
            "/a/f.ttf": (FONT.read_bytes(), "font/ttf"),
        }
        if path not in bodies:
            return self.send_error(404)
        body, kind = bodies[path]
        self._send(body, kind, PUBLIC)

    def _send(self, body: bytes, kind: str, extra: dict[str, str]) -> None:
        reply(self, body, kind, extra)


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HostApp, str, HelloCatcher]]:
    env = {"_SETTINGS": json.dumps({"shared_asset_cache": True})}
    app = HostApp(tmp_path_factory.mktemp("wire"), env=env).start()
    try:
        with HelloCatcher() as catcher, serving(Site) as base:
            Site.hello_port = catcher.port
            yield app, base, catcher
    finally:
        app.stop()


def _requests(after: int) -> dict[str, list[tuple[str, str]]]:
    return {path: headers for path, headers in Site.seen[after:] if path.startswith("/a/")}


def test_an_asset_fetch_sends_what_the_engine_sends(
    wire: tuple[HostApp, str, HelloCatcher],
) -> None:
    host, base, catcher = wire
    native, fetched = host.new_session(), host.new_session()
    try:
        host.ok("POST", "/v1/navigate", {"url": f"{base}/cookie", "session_id": native})
        mark = len(Site.seen)
        host.ok("POST", "/v1/navigate", {"url": f"{base}/", "session_id": native, "wait": 1})
        engine, engine_hellos = _requests(mark), list(catcher.hellos)
        mark = len(Site.seen)
        data = host.ok(
            "POST", "/v1/navigate", {"url": f"{base}/", "session_id": fetched, "wait": 1}
        )
        ours, our_hellos = _requests(mark), catcher.hellos[len(engine_hellos) :]
        page = Path(data["capture"]["output_path"]).read_text("utf-8")

        paths = ["/a/bg.png", "/a/c.js", "/a/f.ttf", "/a/i.png", "/a/m.js", "/a/s.css"]
        assert sorted(engine) == paths
        assert sorted(ours) == paths
        for path, headers in engine.items():
            assert ("Cookie", "c=1") in headers  # the engine's own request: not shared
            assert ours[path] == [(k, v) for k, v in headers if k != "Cookie"], path
        # the same TLS ClientHello (cipher suites, extensions, groups, signature algorithms,
        # ALPN): a site cannot tell the asset fetch from the browser by its handshake
        # the catcher ends every handshake: the fetch failed, and the engine fetched the
        # image itself (a shared-cache fetch that fails never costs the page its asset)
        assert engine_hellos
        assert len(our_hellos) == 1 + len(engine_hellos), (engine_hellos, our_hellos)
        assert our_hellos[0] == engine_hellos[0]
        failed = [
            r["data"] for r in _records(host, fetched) if r["category"] == "network.asset_failed"
        ]
        assert [f["url"] for f in failed] == [f"https://127.0.0.1:{catcher.port}/a/tls.png"]
        assert failed[0]["error"].endswith("the engine fetched it itself"), failed
        # and the page cannot see the scheme: a stylesheet naming relative URLs and a module
        # script are left to the engine (the font and background load; import.meta.url is
        # the real one), and no resource goes by the scheme's name
        assert 'data-font="yes"' in page, page
        assert f'data-meta="{base}/a/m.js"' in page, page
        assert f"{base}/a/bg.png" in page, page
        assert "svcasset" not in page, page
    finally:
        for sid in (native, fetched):
            host.client.delete(f"/v1/sessions/{sid}")


def test_a_proxied_asset_fetch_opens_its_tunnel_as_the_engine_does(
    wire: tuple[HostApp, str, HelloCatcher],
) -> None:
    """Through a proxy the upstream sees the tunnel's CONNECT: the asset fetch's carries what
    the engine's carries (the listener adds the credentials to both), and inside it the same
    ClientHello."""
    host, base, catcher = wire
    target = f"127.0.0.1:{catcher.port}"
    with UpstreamProxy(USER, PASSWORD) as upstream:
        host.new_proxy("wireproxy", upstream)
        native = host.new_session(proxy_alias="wireproxy")
        fetched = host.new_session(proxy_alias="wireproxy")
        try:
            host.ok("POST", "/v1/navigate", {"url": f"{base}/cookie", "session_id": native})
            start = len(catcher.hellos)
            host.ok("POST", "/v1/navigate", {"url": f"{base}/", "session_id": native, "wait": 1})
            engine = [s for s in upstream.seen if s.method == "CONNECT" and s.target == target]
            engine_hello = catcher.hellos[start]
            start, seen = len(catcher.hellos), len(upstream.seen)
            host.ok("POST", "/v1/navigate", {"url": f"{base}/", "session_id": fetched, "wait": 1})
            ours = [s for s in upstream.seen[seen:] if s.method == "CONNECT" and s.target == target]
            # ours, then the engine's own after the fetch failed (the catcher ends handshakes)
            assert engine
            assert len(ours) == 1 + len(engine), (engine, ours)
            assert ours[0].headers == engine[0].headers
            assert ours[0].authorized
            assert catcher.hellos[start] == engine_hello
        finally:
            for sid in (native, fetched):
                host.client.delete(f"/v1/sessions/{sid}")
            host.client.delete("/v1/proxies/wireproxy")
