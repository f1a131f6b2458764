"""Routes that cannot leak and per-proxy trust, on the real engine (issue 14 points 3 and 4).

An in-process Engine in a child process gets the settings directly (QtWebEngine must be imported
before the QApplication exists), so each case can time a change against the page's requests; the
same changes through the agent's API (PATCH pushes them) are in test_e2e_identity_api.py. Local servers stand in for everything: two logging relays play the sessions' loopback
listeners (CONNECT and absolute-form HTTP), an HTTP origin tells relayed requests from direct
ones (each relay adds its name in a header), and HTTPS origins serve chains issued by a local CA
(a proxy that re-signs certificates, as provider Y does). One engine start for the module."""

from __future__ import annotations

import json
import os
import socket
import ssl
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from ..certs import Issued, ca, leaf
from ..wsserver import SOCKET_PAGE, SocketServer
from . import inengine
from .inengine import child_result, log_data, run_child, run_scenario, start_engine

if TYPE_CHECKING:
    from host_app.engine.session_browser import SessionBrowser

pytestmark = pytest.mark.e2e

TICKER = """<!doctype html><html><head><title>ticker 0</title></head><body><p>ticking</p>
<script>
let n = 0;
setInterval(function () {
  fetch('/tick?' + (++n)).then(function (r) { return r.text(); })
    .then(function () { document.title = 'ticker ' + n; }, function () {});
}, 100);
</script></body></html>"""

# Host candidates need no STUN server; a proxied session must show none with a real address.
WEBRTC = """<!doctype html><html><head><title>gathering</title></head><body><script>
const candidates = [];
const pc = new RTCPeerConnection({iceServers: []});
pc.createDataChannel('probe');
pc.onicecandidate = function (e) {
  if (e.candidate) { candidates.push(e.candidate.candidate); }
  document.body.dataset.candidates = JSON.stringify(candidates);
  if (!e.candidate) { document.title = 'gathered'; }
};
pc.createOffer().then(function (o) { return pc.setLocalDescription(o); });
setTimeout(function () { document.title = 'gathered'; }, 4000);
</script></body></html>"""


# --- servers -------------------------------------------------------------------------------------


@dataclass
class Relay:
    """A session's loopback listener as the engine sees it: CONNECT tunnels and absolute-form
    HTTP, each relayed to 127.0.0.1 (as the agent relays to its upstream) and logged."""

    name: str
    log: list[tuple[float, str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    def seen(self, after: float = 0.0, before: float = float("inf")) -> list[str]:
        with self.lock:
            return [f"{m} {t}" for at, m, t in self.log if after < at < before]

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            with self.lock:
                self.log.append((time.monotonic(), method, target))
            if method == "CONNECT":
                port = int(target.rsplit(":", 1)[1])
                with socket.create_connection(("127.0.0.1", port)) as up:
                    conn.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                    if rest:
                        up.sendall(rest)
                    _pipe(conn, up)
                return
            url = urlsplit(target)
            path = url.path + (f"?{url.query}" if url.query else "")
            kept = [h for h in lines[1:] if not h.lower().startswith(("proxy-", "connection"))]
            out = [f"{method} {path} HTTP/1.1", *kept, f"X-Relay: {self.name}"]
            out.append("Connection: close")
            with socket.create_connection(("127.0.0.1", url.port or 80)) as up:
                up.sendall("\r\n".join(out).encode("latin-1") + b"\r\n\r\n" + rest)
                _pipe(conn, up)

    def close(self) -> None:
        self.sock.close()


def _pipe(a: socket.socket, b: socket.socket) -> None:
    import select

    while True:
        ready, _, _ = select.select([a, b], [], [], 10)
        if not ready:
            return
        for s in ready:
            try:
                chunk = s.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            (b if s is a else a).sendall(chunk)


class _Origin(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log: list[tuple[float, str, str]]  # (when, path, relay or "direct")
    lock = threading.Lock()

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        with self.lock:
            self.log.append((time.monotonic(), self.path, self.headers.get("X-Relay", "direct")))
        path = urlsplit(self.path).path
        headers = {"Cache-Control": "no-store"}
        if path == "/ticker":
            body = TICKER
            headers["Set-Cookie"] = "route=kept; Path=/"
        elif path == "/webrtc":
            body = WEBRTC
        elif path == "/socket":
            body = SOCKET_PAGE
        elif path == "/secure":
            body = "<!doctype html><title>secure</title><p>served by the re-signed origin"
        else:
            cookie = self.headers.get("Cookie", "") or "none"
            body = f"<!doctype html><title>{path[1:]} cookie {cookie}</title><p>{path}"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


@dataclass
class Servers:
    origin: str
    origin_log: list[tuple[float, str, str]]
    secure: str  # chain: leaf for 127.0.0.1 <- intermediate <- root
    wrong_host: str  # leaf for other.example only, same root
    relays: dict[str, Relay]
    root: Issued
    sockets: SocketServer


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    folder = tmp_path_factory.mktemp("tls")
    root = ca("Local Re-signing Root")
    inter = ca("Local Re-signing Intermediate", root, path_length=0)
    log: list[tuple[float, str, str]] = []
    handler = type("Origin", (_Origin,), {"log": log})
    started: list[ThreadingHTTPServer] = []

    def serve(certified: Issued | None, chain: list[Issued]) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        scheme = "http"
        if certified is not None:
            cert_file = folder / f"{len(started)}.pem"
            cert_file.write_text(certified.pem + "".join(c.pem for c in chain))
            key_file = folder / f"{len(started)}.key"
            key_file.write_text(certified.key_pem)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert_file, key_file)
            server.socket = context.wrap_socket(server.socket, server_side=True)
            scheme = "https"
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return f"{scheme}://127.0.0.1:{server.server_address[1]}"

    relays = {name: Relay(name) for name in ("A", "B")}
    sockets = SocketServer()
    try:
        yield Servers(
            origin=serve(None, []),
            origin_log=log,
            secure=serve(leaf(inter, ["127.0.0.1"]), [inter]),
            wrong_host=serve(leaf(inter, ["other.example"]), [inter]),
            relays=relays,
            root=root,
            sockets=sockets,
        )
    finally:
        sockets.stop()
        for server in started:
            server.shutdown()
            server.server_close()
        for relay in relays.values():
            relay.close()


@pytest.fixture(scope="module")
def engine_run(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data_dir = tmp_path_factory.mktemp("data")
    (data_dir / "providery_ca.pem").write_text(servers.root.pem)
    plan = {
        "origin": servers.origin,
        "secure": servers.secure,
        "wrong_host": servers.wrong_host,
        "relay_a": servers.relays["A"].port,
        "relay_b": servers.relays["B"].port,
        "root": servers.root.pem,
        "socket_port": servers.sockets.port,
    }
    started = time.monotonic()
    proc = run_child("tests.host.test_e2e_routes", str(data_dir), json.dumps(plan), timeout=150)
    out = child_result(proc, data_dir / "child.stderr")
    out["seconds"] = time.monotonic() - started
    out["data_dir"] = str(data_dir)
    return out


# --- the checks ----------------------------------------------------------------------------------


def test_a_proxys_certificates_are_trusted_for_its_sessions_only(
    engine_run: dict[str, Any],
) -> None:
    trust = engine_run["trust"]
    # the bundle's CA, through an intermediate the server sends: the page loads
    accepted = {
        "ok": True,
        "title": "secure",
        "verdicts": ["accepted"],
        "errors": ["CertificateAuthorityInvalid"],
    }
    assert trust["bundle"] == accepted
    # provider Y's CA (the installed file, here the local CA)
    assert trust["providery"] == accepted
    # a session on another proxy, without the bundle: ERR_CERT_AUTHORITY_INVALID
    assert trust["other_proxy"]["ok"] is False
    assert trust["other_proxy"]["verdicts"] == ["rejected"]
    assert trust["other_proxy"]["errors"] == ["CertificateAuthorityInvalid"]
    # a direct session gets no extra trust even when its settings carry some
    assert trust["direct"]["ok"] is False
    assert trust["direct"]["verdicts"] == ["rejected"]
    # the right CA for the wrong host name
    assert trust["wrong_host"]["ok"] is False
    assert trust["wrong_host"]["verdicts"] == ["rejected"]


def test_a_route_change_holds_an_open_page_until_it_is_applied(
    engine_run: dict[str, Any], servers: Servers
) -> None:
    r = engine_run["route"]
    relay_a, relay_b = servers.relays["A"], servers.relays["B"]
    # before: the page's ticks went by relay A
    assert r["ticks_before"] > 3
    # the relays' and the origin's clocks are this machine's monotonic clock
    changed, navigated = r["changed_at"], r["navigated_at"]
    assert relay_a.seen(after=changed, before=r["done_at"]) == []
    assert relay_b.seen(after=changed, before=navigated) == []
    held = [e for e in servers.origin_log if changed < e[0] < navigated]
    assert held == []
    # the document stayed, the window showed the banner, play did not release the hold
    assert r["held"]["url"].endswith("/ticker")
    assert r["held"]["title"] == r["title_at_change"]
    assert r["held"]["route_held"] is True
    assert r["held"]["banner"] is True
    assert r["held"]["after_play"] is True
    # an agent navigation rebuilt the context on relay B first, with the cookies kept
    assert r["navigate"]["error"] is None
    assert r["navigate"]["title"] == "after cookie route=kept"
    after = [e for e in servers.origin_log if e[1] == "/after" and e[0] < r["direct_at"]]
    assert [e[2] for e in after] == ["B"]
    assert r["navigate"]["route_held"] is False
    # then direct: Reload and apply from the banner reloads the page, directly
    assert r["apply"]["banner_before"] is True
    assert r["apply"]["banner_after"] is False
    assert r["apply"]["title"] == "after cookie route=kept"
    again = [e for e in servers.origin_log if e[1] == "/after" and e[0] > r["direct_at"]]
    assert [e[2] for e in again] == ["direct"]
    assert relay_b.seen(after=r["direct_at"], before=r["done_at"]) == []


def test_a_direct_sessions_open_websocket_is_cut_when_a_proxy_is_assigned(
    engine_run: dict[str, Any], servers: Servers
) -> None:
    """The hold blocks new requests, but an open WebSocket of a direct session passes no
    listener: it went on talking directly after the PATCH had returned (issue 14 point 3).
    Now the session's network context is renewed at the hold: the socket closes (1006), the
    page keeps its document and waits for Reload and apply."""
    c = engine_run["socket"]
    assert c["opened"] is True
    assert c["title"] == "closed 1006", c
    assert "/socket?port=" in c["url"]
    assert c["route_held"] is True
    assert servers.sockets.closed_after(c["changed_at"]), servers.sockets.log


def test_an_empty_browser_takes_a_new_route_at_once(
    engine_run: dict[str, Any], servers: Servers
) -> None:
    e = engine_run["empty"]
    assert e == {"route_held": False, "proxied": True, "title": "empty cookie none"}
    assert [v for _, p, v in servers.origin_log if p == "/empty"] == ["A"]


def test_webrtc_reveals_no_address_of_a_proxied_session(engine_run: dict[str, Any]) -> None:
    """Without the engine's policy both sessions listed UDP host candidates (mDNS names); the
    policy is engine-wide (host_app.logic.policy.with_webrtc_policy), so direct sessions show
    none either."""
    w = engine_run["webrtc"]
    assert not [c for c in w["proxied"] if " typ host " in c or " typ srflx " in c]
    assert all(" typ relay " in c for c in w["proxied"])
    assert w["direct"] == []


def test_the_module_starts_one_engine_quickly(engine_run: dict[str, Any]) -> None:
    assert engine_run["seconds"] < 90


# --- the child process ---------------------------------------------------------------------------


def run(data_dir: Path, plan: dict[str, Any]) -> dict[str, Any]:
    from host_app.logic.policy import with_webrtc_policy

    # as svc-app starts the engine (host_app/app.py)
    flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
    os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = with_webrtc_policy(flags)
    from bridge_protocol.identity import ProxyTrust
    from bridge_protocol.messages import PROTOCOL_VERSION, ActionRequest, Navigate
    from host_app.engine.window_adapter import WindowAdapter
    from host_app.logic import aio, trust
    from host_app.ui.browser_window import BrowserWindow

    trust.PROVIDERY_CA_FILE = data_dir / "providery_ca.pem"
    app, engine = start_engine(data_dir, "svc-app-routes-test", headless=False)
    window = BrowserWindow(WindowAdapter(engine))
    window.show()
    origin, relay_a, relay_b = plan["origin"], plan["relay_a"], plan["relay_b"]
    bundle = ProxyTrust(certificates=plan["root"])
    out: dict[str, Any] = {}

    def configure(n: int, port: int | None, extra: ProxyTrust | None = None) -> str:
        return inengine.configure(engine, n, proxy_port=port, trust=extra)

    async def until(cond: Any, seconds: float = 10.0) -> bool:
        return await inengine.until(engine, cond, seconds, poll=0.05)

    async def load(b: SessionBrowser, url: str) -> bool:
        return await inengine.load(engine, b, url)

    def verdicts(n: int) -> list[dict[str, Any]]:
        return log_data(data_dir, n, "page.certificate")

    async def tls_case(n: int, port: int | None, extra: ProxyTrust | None, url: str) -> Any:
        b = engine.browser(configure(n, port, extra))
        ok = await load(b, url)
        seen = verdicts(n)
        return {
            "ok": ok,
            "title": b.title() if ok else None,
            "verdicts": [v["verdict"] for v in seen],
            "errors": [v["error"] for v in seen],
        }

    async def navigate(sid: str, url: str) -> dict[str, Any]:
        answer: aio.Future[tuple[Any, Any]] = aio.Future()

        class Responder:
            def ok(self, data: Any) -> None:
                answer.set_result((data, None))

            def error(self, error: Any) -> None:
                answer.set_result((None, error))

        request = ActionRequest(
            version=PROTOCOL_VERSION,
            id="nav",
            command=Navigate(session_id=sid, url=url, wait=0.2, timeout=20),
        )
        engine.handle(request, Responder())  # type: ignore[arg-type]
        data, error = await answer
        return {"title": data.title if data else None, "error": repr(error) if error else None}

    async def scenario() -> None:
        secure = plan["secure"] + "/secure"
        out["trust"] = {
            "bundle": await tls_case(1, relay_a, bundle, secure),
            "providery": await tls_case(2, relay_a, ProxyTrust(mode="providery"), secure),
            "other_proxy": await tls_case(3, relay_b, None, secure),
            "direct": await tls_case(4, None, bundle, secure),
        }
        b1 = engine.sessions["Session1"]
        ok = await load(b1, plan["wrong_host"] + "/secure")
        out["trust"]["wrong_host"] = {
            "ok": ok,
            "verdicts": [v["verdict"] for v in verdicts(1)][1:],
        }

        # an open page on relay A whose script keeps fetching
        sid = configure(5, relay_a)
        b = engine.browser(sid)
        window.select(sid)
        await load(b, origin + "/ticker")
        await until(lambda: b.title() >= "ticker 5", 10)
        out["route"] = {"ticks_before": int(b.title().split()[1])}
        out["route"]["title_at_change"] = b.title()
        out["route"]["changed_at"] = time.monotonic()
        configure(5, relay_b)
        await aio.sleep(engine.loop, 1.0)
        engine.pause_session(sid)
        engine.play_session(sid)
        await aio.sleep(engine.loop, 0.5)
        window.refresh()
        out["route"]["held"] = {
            "url": b.page.url().toString() if b.page is not None else "",
            "title": b.title(),
            "route_held": b.hold.held,
            "banner": window.banner.isVisibleTo(window),
            "after_play": b.hold.held,
        }
        out["route"]["navigated_at"] = time.monotonic()
        out["route"]["navigate"] = await navigate(sid, origin + "/after")
        out["route"]["navigate"]["route_held"] = b.hold.held
        # back to direct, applied from the window's banner
        await aio.sleep(engine.loop, 0.3)
        out["route"]["direct_at"] = time.monotonic()
        configure(5, None)
        await aio.sleep(engine.loop, 0.3)
        window.refresh()
        apply: dict[str, Any] = {"banner_before": window.banner.isVisibleTo(window)}
        window.apply_route.click()
        await until(lambda: not b.hold.held and b.title().startswith("after") and not b.loading)
        window.refresh()
        apply["banner_after"] = window.banner.isVisibleTo(window)
        apply["title"] = b.title()
        out["route"]["apply"] = apply
        out["route"]["done_at"] = time.monotonic()

        # an empty browser: the new route at once, no banner
        sid = configure(6, None)
        b = engine.browser(sid)
        configure(6, relay_a)
        await until(lambda: b.active and b.proxy_port == relay_a, 10)
        await load(b, origin + "/empty")
        out["empty"] = {
            "route_held": b.hold.held,
            "proxied": b.proxy_port == relay_a,
            "title": b.title(),
        }

        # a direct session's open WebSocket, when a proxy is assigned: cut, document kept
        sid = configure(9, None)
        b = engine.browser(sid)
        await load(b, f"{origin}/socket?port={plan['socket_port']}")
        opened = await until(lambda: b.title() == "open", 10)
        socket_case: dict[str, Any] = {"opened": opened, "changed_at": time.monotonic()}
        configure(9, relay_a)
        await until(lambda: b.title().startswith("closed"), 5)
        socket_case.update(
            title=b.title(),
            url=b.page.url().toString() if b.page is not None else "",
            route_held=b.hold.held,
        )
        out["socket"] = socket_case

        # WebRTC candidates: proxied and direct
        out["webrtc"] = {}
        for n, port, name in ((7, relay_a, "proxied"), (8, None, "direct")):
            b = engine.browser(configure(n, port))
            await load(b, origin + "/webrtc")
            await until(lambda b=b: b.title() == "gathered", 8)
            out["webrtc"][name] = await b.run_js("document.body.dataset.candidates || '[]'")

    error = run_scenario(app, scenario(), limit_ms=120_000)
    if error is not None:
        out["exception"] = repr(error)
    engine.shutdown()
    window.close()
    return out


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]), json.loads(sys.argv[2]))))
