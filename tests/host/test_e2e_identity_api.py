"""Session identity through the whole product (issue 14 point 5): the real headless app and agent,
driven over the HTTP API only. A profile's fingerprint reaches the page and its requests; a
null fingerprint keeps the engine's native identity; a proxied session takes the exit location
its proxy reports (a local upstream and a local geolocation service); a proxy assigned to a
session with an open page holds that page's traffic until the next navigation goes by the proxy.

The engine-level cases (iframes, workers, seeds, native-looking overrides, certificates, WebRTC)
are tests/host/test_e2e_identity.py and test_e2e_routes.py; what the agent sends and when is
tests/agent/test_identity.py."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ..httpserver import serving
from ..proxy.geoservice import GeoService, tls_for_localhost
from ..proxy.servers import UpstreamProxy
from .hostproc import HostApp
from .obs_pages import observation_of

pytestmark = pytest.mark.e2e

REPORT = """<!doctype html><html><head><title>report</title></head><body><pre id="out"></pre>
<script>
document.getElementById('out').textContent = JSON.stringify({
  ua: navigator.userAgent, language: navigator.language, languages: navigator.languages,
  platform: navigator.platform, cores: navigator.hardwareConcurrency,
  memory: navigator.deviceMemory, touch: navigator.maxTouchPoints,
  screen: [screen.width, screen.height, screen.availHeight], dpr: window.devicePixelRatio,
  zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  offset: new Date(Date.UTC(2026, 6, 1, 12)).getTimezoneOffset(),
  brands: navigator.userAgentData ? navigator.userAgentData.brands.map(b => b.brand) : null
});
</script></body></html>"""

# what a document's first script reads of its window, at the very start of its parse
SIZE = """<!doctype html><html><head><title>size</title><script>
const first = [innerWidth, innerHeight, outerWidth, document.documentElement.clientWidth];
</script></head><body><pre id="out"></pre><script>
document.getElementById('out').textContent = JSON.stringify({first: first, later: [innerWidth,
  innerHeight]});
</script></body></html>"""
# the window's outer size, as the page, a frame of another site and a dedicated worker read it;
# written once all three answered
OUTER = """<!doctype html><html><head><title>outer</title></head><body><pre id="out"></pre>
<script>
const read = () => [outerWidth, outerHeight, innerWidth, innerHeight, screen.width,
  screen.height, screen.availHeight];
const seen = { main: read() };
const show = () => {
  if (seen.frame && seen.worker) document.getElementById('out').textContent = JSON.stringify(seen);
};
addEventListener('message', (e) => { if (e.data && e.data.frame) { seen.frame = e.data.frame; show(); } });
const w = new Worker(URL.createObjectURL(new Blob(
  ["postMessage(['outerWidth' in self, 'outerHeight' in self, 'screen' in self])"])));
w.onmessage = (e) => { seen.worker = e.data; show(); };
const f = document.createElement('iframe');
f.width = 300; f.height = 200;
f.src = location.protocol + '//localhost:' + location.port + '/outer-frame';
document.body.appendChild(f);
</script></body></html>"""
OUTER_FRAME = """<!doctype html><html><body><script>
parent.postMessage({ frame: [outerWidth, outerHeight, innerWidth, innerHeight, screen.width,
  screen.height, screen.availHeight] }, '*');
</script></body></html>"""
# a page that replaces the array iterator and the globals a script could lean on, then makes a
# frame and reads it at once: the identity is installed into the frame from the page's own
# realm, after its scripts ran
HOSTILE = """<!doctype html><html><head><title>hostile</title></head><body><pre id="out"></pre>
<script>
const G = Object.getOwnPropertyDescriptor, stringify = JSON.stringify;
const boom = function () { throw new Error('hooked'); };
Array.prototype[Symbol.iterator] = boom;
Array.prototype.map = boom;
window.Map = boom; window.WeakSet = boom; window.Float32Array = boom;
Object.getOwnPropertyNames = boom;
document.body.appendChild(document.createElement('iframe'));
const w = window[window.length - 1];
let seen;
try {
  seen = { cores: w.navigator.hardwareConcurrency, screen: w.screen.width,
    offset: new w.Date(Date.UTC(2026, 6, 1, 12)).getTimezoneOffset(),
    getter: Function.prototype.toString.call(G(w.Navigator.prototype, 'platform').get),
    brands: w.navigator.userAgentData.toJSON().brands.length,
    rtt: w.navigator.connection.rtt, locale: new w.Intl.NumberFormat().resolvedOptions().locale };
} catch (e) { seen = { error: String(e) }; }
document.getElementById('out').textContent = stringify(seen);
</script></body></html>"""
# a page whose script keeps fetching: what a held route must stop
BUSY = """<!doctype html><html><head><title>busy</title></head><body><p>busy</p><script>
setInterval(function () { fetch('/tick?' + Date.now()).catch(function () {}); }, 100);
</script></body></html>"""

# a popup whose worker reports what it read at its first statement, started by the popup's first
# inline script: the earliest a page can (docs/decisions.md "Workers", "Popups")
OPENER = """<!doctype html><html><head><title>opener</title></head><body>
<a href="/popup" target="_blank">Open the popup</a></body></html>"""
# (a worker this early in a popup fails now and then in QtWebEngine 6.11.2, svc or not: a failed
# one is started once more, test_e2e_popup_identity.py)
POPUP = """<!doctype html><html><head><title>popup</title></head><body><pre id="out">waiting</pre>
<p id="uad"></p><p id="form"></p>
<script>
const u = navigator.userAgentData;
document.getElementById('uad').textContent = 'client hints ' +
  u.brands.map((b) => b.brand).sort().join(', ') + ' on ' + u.platform;
u.getHighEntropyValues(['formFactors']).then((r) => {
  document.getElementById('form').textContent = 'form factors ' + r.formFactors.join();
});
let starts = 0;
function start() {
  starts += 1;
  const w = new Worker(URL.createObjectURL(new Blob(
    ['postMessage([navigator.platform, navigator.hardwareConcurrency, ' +
     'navigator.userAgentData.platform])'])));
  w.onmessage = (e) => {
    document.getElementById('out').textContent = 'worker ' + e.data.join(' ');
  };
  w.onerror = () => { if (starts === 1) start(); };
}
start();
</script></body></html>"""

FINGERPRINT: dict[str, Any] = {
    "schema_version": 1,
    "seed": "5eed0001",
    "platform": "Win32",
    "browser_brand": "Google Chrome",
    "browser_version": "140.0.7339.225",
    "user_agent": (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/140.0.0.0 Safari/537.36"
    ),
    "locale": "de-DE",
    "timezone": "Europe/Berlin",
    "network_profile": "broadband",
    "hardware_concurrency": 4,
    "device_memory_gib": 4,
    "max_touch_points": 0,
    "screen": {"width": 2560, "height": 1440, "available_height": 1400, "device_scale_factor": 1},
    "graphics_profile": "intel-windows",
    "storage_quota_bytes": 10 * 1024**3,
    "canvas_noise_mode": "seeded",
    "audio_noise_mode": "seeded",
}


class Pages:
    """The local site: what each path was asked with, and how many ticks arrived."""

    def __init__(self) -> None:
        self.headers: dict[str, dict[str, str]] = {}
        self.ticks = 0
        self.lock = threading.Lock()


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[str, Pages]]:
    pages = Pages()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.partition("?")[0]
            with pages.lock:
                pages.headers[path] = {k.lower(): v for k, v in self.headers.items()}
                if path == "/tick":
                    pages.ticks += 1
            routes = {"/report": REPORT, "/busy": BUSY, "/opener": OPENER, "/popup": POPUP}
            routes["/hostile"] = HOSTILE
            routes |= {"/outer": OUTER, "/outer-frame": OUTER_FRAME}
            body = (routes | {"/size": SIZE}).get(path, "ok").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        yield base, pages


@pytest.fixture(scope="module")
def geo() -> Iterator[GeoService]:
    with GeoService() as service:
        yield service


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, geo: GeoService) -> Iterator[HostApp]:
    # the machine's zone: a direct session of the Custom template takes it
    env = {"SVC_GEOLOCATION_URL": geo.url("/json"), "LANG": "en_US.UTF-8", "TZ": "Asia/Tokyo"}
    host = HostApp(tmp_path_factory.mktemp("identity"), env=env).start()
    try:
        yield host
    finally:
        host.stop()


@pytest.fixture
def upstream() -> Iterator[UpstreamProxy]:
    with UpstreamProxy("iduser", "id-secret") as proxy:
        yield proxy


def report(app: HostApp, sid: str, url: str) -> dict[str, Any]:
    data = app.ok("POST", "/v1/navigate", {"url": url, "session_id": sid, "wait": 0})
    html = Path(data["capture"]["output_path"]).read_text(encoding="utf-8")
    found = re.search(r'<pre id="out">(.*?)</pre>', html, re.S)
    assert found is not None, html[:500]
    value: dict[str, Any] = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    return value


def test_a_profile_fingerprint_reaches_the_page_and_its_requests(
    app: HostApp, site: tuple[str, Pages]
) -> None:
    base, pages = site
    app.ok("POST", "/v1/profiles", {"name": "Berlin desk", "fingerprint_profile": FINGERPRINT})
    sid = app.new_session(profile="Berlin desk")
    seen = report(app, sid, f"{base}/report")
    assert seen["ua"] == FINGERPRINT["user_agent"]
    assert (seen["language"], seen["languages"][0]) == ("de-DE", "de-DE")
    assert (seen["platform"], seen["cores"], seen["memory"], seen["touch"]) == ("Win32", 4, 4, 0)
    assert seen["screen"] == [2560, 1440, 1400]
    assert seen["zone"] == "Europe/Berlin"
    assert seen["offset"] == -120  # CEST in July
    assert "Google Chrome" in seen["brands"]
    headers = pages.headers["/report"]
    assert headers["user-agent"] == FINGERPRINT["user_agent"]
    assert headers["accept-language"].startswith("de-DE")
    assert '"Google Chrome"' in headers["sec-ch-ua"]
    assert headers["sec-ch-ua-platform"] == '"Windows"'
    app.ok("DELETE", f"/v1/sessions/{sid}")


def test_a_frame_read_after_the_page_replaced_builtins_has_the_fingerprint(
    app: HostApp, site: tuple[str, Pages]
) -> None:
    """The identity reaches a frame from the page's realm after the page's scripts ran; a page
    that replaced the array iterator, `Array.prototype.map`, `Map` or
    `Object.getOwnPropertyNames` broke that install half way (the frame kept the machine's
    cores and screen) or saw it call them."""
    base, _ = site
    app.ok("POST", "/v1/profiles", {"name": "Hostile", "fingerprint_profile": FINGERPRINT})
    sid = app.new_session(profile="Hostile")
    seen = report(app, sid, f"{base}/hostile")
    assert seen == {
        "cores": 4,
        "screen": 2560,
        "offset": -120,
        "getter": "function get platform() { [native code] }",
        "brands": 3,
        "rtt": 50,
        "locale": "de-DE",
    }
    app.ok("DELETE", f"/v1/sessions/{sid}")


def test_a_popups_first_document_and_workers_read_the_fingerprint(
    app: HostApp, site: tuple[str, Pages]
) -> None:
    """A link with target=_blank clicked through the API: the popup's first document runs its
    worker with the session's identity (the app holds that document until the popup's
    channel to its workers is up), and its client hints are the session's, from its first
    document on (QtWebEngine gave a popup none; the channel's override reaches that document's
    renderer too late: docs/decisions.md "Popups' client hints")."""
    base, pages = site
    app.ok("POST", "/v1/profiles", {"name": "Popup desk", "fingerprint_profile": FINGERPRINT})
    sid = app.new_session(profile="Popup desk")
    data = app.ok(
        "POST", "/v1/navigate/observe", {"url": f"{base}/opener", "session_id": sid, "wait": 0}
    )
    obs = observation_of(data)
    (link,) = [e["ref"] for e in obs["elements"] if e.get("name") == "Open the popup"]
    acted = app.ok(
        "POST",
        f"/v1/observations/{obs['id']}/actions",
        {"actions": [{"action": "click", "ref": link}]},
    )
    assert observation_of(acted)["url"] == f"{base}/popup"
    hints = "client hints Chromium, Google Chrome, Not=A?Brand on Windows"
    for document in ("first", "next"):
        deadline = time.monotonic() + 10
        texts: list[str] = []
        while time.monotonic() < deadline:
            seen = observation_of(app.ok("POST", "/v1/observe", {"session_id": sid, "wait": 0}))
            texts = [c.get("t", "") for c in seen.get("content", [])]
            if any(t.startswith("worker") for t in texts) and any(
                t.startswith("form factors") for t in texts
            ):
                break
            time.sleep(0.1)
        assert "worker Win32 4 Windows" in texts, (document, texts)
        assert hints in texts, (document, texts)
        assert "form factors Desktop" in texts, (document, texts)
        with pages.lock:
            opener, popup = pages.headers["/opener"], pages.headers["/popup"]
        for name in ("user-agent", "sec-ch-ua", "sec-ch-ua-platform", "sec-ch-ua-mobile"):
            assert popup.get(name) == opener.get(name), (document, name)
        assert popup["sec-ch-ua-platform"] == '"Windows"'
        if document == "first":  # the next: the engine's own hints, by the channel's override
            app.ok("POST", "/v1/navigate", {"url": f"{base}/popup", "session_id": sid})
    app.ok("DELETE", f"/v1/sessions/{sid}")


def test_a_cross_site_documents_first_script_reads_the_views_size(
    app: HostApp, site: tuple[str, Pages]
) -> None:
    """QtWebEngine gives the renderer of a cross-site navigation its size only after the commit:
    the new document's first scripts read innerWidth and innerHeight 0 (bare QtWebEngine 6.11
    too), which a page laying itself out at load, or a bot check, takes at its word. A
    fingerprinted session's viewport is pinned to its view (docs/decisions.md "Screen in
    CSS")."""
    base, _ = site
    other_site = base.replace("127.0.0.1", "localhost")
    sid = app.new_session()
    for url in (f"{base}/size", f"{other_site}/size", f"{base}/size?again", f"{other_site}/size"):
        seen = report(app, sid, url)
        width, height, outer, client = seen["first"]
        assert [width, height] == seen["later"], url
        assert min(width, height, client) > 0, (url, seen)
        assert client <= width <= outer, (url, seen)
    app.ok("DELETE", f"/v1/sessions/{sid}")


def test_a_screen_smaller_than_the_viewport_is_warned_of_in_the_sessions_log(
    app: HostApp, site: tuple[str, Pages]
) -> None:
    """The viewport is the Background Browser Size (1920 x 947 here), never the fingerprint's:
    a laptop's 1366 x 768 screen cannot hold it, which a page can see (docs/decisions.md
    "Screen and window"). The session's log says so; a screen that holds it says nothing."""
    base, _ = site
    laptop = dict(
        FINGERPRINT,
        screen={"width": 1366, "height": 768, "available_height": 728, "device_scale_factor": 1},
    )
    app.ok("POST", "/v1/profiles", {"name": "Laptop", "fingerprint_profile": laptop})
    small = app.new_session(profile="Laptop")
    wide = app.new_session()
    for sid in (small, wide):
        seen = report(app, sid, f"{base}/report")
    assert seen["screen"][0] >= 1920  # the Custom template's screen holds the default size

    def warnings(sid: str) -> list[str]:
        number = int(sid.removeprefix("Session"))
        path = app.data_dir / "Logs" / "sessions" / f"{number}.ndjson"
        records = [json.loads(line) for line in path.read_text().splitlines()]
        return [r["message"] for r in records if r["category"] == "identity.screen"]

    (warning,) = warnings(small)
    assert "(1920 x 947)" in warning
    assert "(1366 x 768, 728 available)" in warning
    assert warnings(wide) == []
    for sid in (small, wide):
        app.ok("DELETE", f"/v1/sessions/{sid}")


def test_the_outer_window_fits_the_fingerprints_screen_in_every_frame(
    app: HostApp, site: tuple[str, Pages]
) -> None:
    """A window larger than its screen is a classic automation tell: with the default
    1920 x 947 view and a 1536 x 864 screen the page read outerWidth 1920. The reported outer
    window is the view's clamped to the screen (its width to screen.width, its height with a
    toolbar to screen.availHeight), the same in the main frame and a frame of another site
    (docs/decisions.md "Screen and window"); a worker has no window to read, as in Chrome."""
    base, _ = site
    screen = {"width": 1536, "height": 864, "available_height": 824, "device_scale_factor": 1}
    small = FINGERPRINT | {"screen": screen}
    app.ok("POST", "/v1/profiles", {"name": "Small screen", "fingerprint_profile": small})
    sid = app.new_session(profile="Small screen")
    app.ok("POST", "/v1/navigate", {"url": f"{base}/outer", "session_id": sid, "wait": 0})
    seen: dict[str, Any] = {}
    deadline = time.monotonic() + 10
    while not seen and time.monotonic() < deadline:
        data = app.ok("POST", "/v1/capture", {"session_id": sid, "wait": 0})
        html = Path(data["capture"]["output_path"]).read_text(encoding="utf-8")
        found = re.search(r'<pre id="out">(.+?)</pre>', html, re.S)
        if found:
            seen = json.loads(found.group(1).replace("&quot;", '"'))
        else:
            time.sleep(0.1)
    assert seen, "the page, its frame and its worker did not all answer"
    main, frame = seen["main"], seen["frame"]
    for where in ("main", "frame"):
        outer_w, outer_h, *_, screen_w, screen_h, available = seen[where]
        assert [screen_w, screen_h, available] == [1536, 864, 824], where
        assert 0 < outer_w <= 1536, (where, seen)
        assert 0 < outer_h <= 824, (where, seen)
    assert main[:2] == frame[:2], seen  # one window, whichever frame asks
    assert main[2:4] == [1920, 947]  # the view keeps its size (the log says it does not fit)
    assert frame[2:4] == [300, 200]
    assert seen["worker"] == [False, False, False]  # no window, no screen: as in Chrome
    app.ok("DELETE", f"/v1/sessions/{sid}")


def test_the_hosts_session_records_carry_the_federated_id(
    app: HostApp, site: tuple[str, Pages]
) -> None:
    """Every record of a session's log names the session as `machine-<UUID>.Session<N>` in
    `session_id` (spec 1 §2, docs/decisions.md "Federated id in the Info view"), the host's
    records as the agent's: a screen smaller than the view has the host write identity.screen."""
    base, _ = site
    screen = {"width": 1280, "height": 720, "available_height": 680, "device_scale_factor": 1}
    small = FINGERPRINT | {"screen": screen}
    app.ok("POST", "/v1/profiles", {"name": "Federated", "fingerprint_profile": small})
    sid = app.new_session(profile="Federated")
    report(app, sid, f"{base}/report")
    logs = app.data_dir / "Logs"
    started = [
        json.loads(line)
        for line in (logs / "global.ndjson").read_text().splitlines()
        if '"agent.started"' in line
    ]
    federated = f"machine-{started[-1]['data']['machine_id']}.{sid}"
    path = logs / "sessions" / f"{sid.removeprefix('Session')}.ndjson"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    categories = {r["category"] for r in records}
    assert {"session.created", "identity.screen"} <= categories  # the agent's, the host's
    assert {r.get("session_id") for r in records} == {federated}, records
    app.ok("DELETE", f"/v1/sessions/{sid}")


def test_a_direct_session_of_the_template_reads_the_machines_zone(
    app: HostApp, site: tuple[str, Pages]
) -> None:
    """The template's UTC is a placeholder: a direct session leaves from this machine and
    reads its zone, as a browser here would (UTC with a Tokyo address is what bot checks look
    for); a custom zone stays (docs/decisions.md "Exit locale")."""
    base, _ = site
    sid = app.new_session()
    seen = report(app, sid, f"{base}/report")
    assert (seen["zone"], seen["offset"]) == ("Asia/Tokyo", -540)
    app.ok("DELETE", f"/v1/sessions/{sid}")


def test_a_null_fingerprint_keeps_the_engines_own_identity(
    app: HostApp, site: tuple[str, Pages]
) -> None:
    base, pages = site
    app.ok("POST", "/v1/profiles", {"name": "Native", "fingerprint_profile": None})
    sid = app.new_session(profile="Native")
    seen = report(app, sid, f"{base}/report")
    assert "QtWebEngine" in seen["ua"]  # the engine's own user agent, untouched
    assert seen["platform"].startswith("Linux")
    assert pages.headers["/report"]["user-agent"] == seen["ua"]
    app.ok("DELETE", f"/v1/sessions/{sid}")


def test_a_proxied_session_takes_its_exit_location(
    app: HostApp, site: tuple[str, Pages], upstream: UpstreamProxy, geo: GeoService
) -> None:
    base, _ = site
    app.new_proxy("exit-de", upstream, detect_exit_locale=True)
    sid = app.new_session(proxy_alias="exit-de")  # the built-in Custom profile: en-US, UTC
    seen = report(app, sid, f"{base}/report")
    # the geolocation service says Berlin: the zone and (the locale not being custom) language
    assert seen["zone"] == "Europe/Berlin"
    assert seen["language"] == "de-DE"
    assert geo.seen, "the exit was looked up"
    assert any(s.target.startswith(geo.url("")) for s in upstream.seen), "through the proxy"
    assert any(s.target == f"{base}/report" for s in upstream.seen)
    app.ok("DELETE", f"/v1/sessions/{sid}")
    app.ok("DELETE", "/v1/proxies/exit-de")


def test_a_proxy_assigned_to_an_open_page_holds_it_until_the_next_navigation(
    app: HostApp, site: tuple[str, Pages], upstream: UpstreamProxy
) -> None:
    base, pages = site
    app.new_proxy("later", upstream, detect_exit_locale=False)
    sid = app.new_session()
    app.ok("POST", "/v1/navigate", {"url": f"{base}/busy", "session_id": sid, "wait": 0.5})
    with pages.lock:
        assert pages.ticks > 0, "the page fetches directly before the change"
    app.ok("PATCH", f"/v1/sessions/{sid}", {"proxy_alias": "later"})
    # once the PATCH has answered, nothing of this session leaves directly (a fetch sent just
    # before may still be arriving: counted after a moment)
    time.sleep(0.2)
    with pages.lock:
        direct_then = pages.ticks
    relayed_before = len(upstream.seen)
    time.sleep(0.8)  # eight of the page's fetch intervals
    with pages.lock:
        assert pages.ticks == direct_then
    assert len(upstream.seen) == relayed_before  # held, not rerouted behind the page's back
    # an agent navigation applies the new route first
    app.ok("POST", "/v1/navigate", {"url": f"{base}/report", "session_id": sid, "wait": 0})
    assert any(s.target == f"{base}/report" for s in upstream.seen)
    app.ok("DELETE", f"/v1/sessions/{sid}")
    app.ok("DELETE", "/v1/proxies/later")


@pytest.fixture
def https_origin(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """An HTTPS origin on 127.0.0.1 whose certificate chains to a fresh local CA: (base URL, the
    CA's PEM)."""
    context, ca_pem = tls_for_localhost(tmp_path)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><html><head><title>secure</title></head><body>re-signed</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", ca_pem
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_a_proxys_certificates_are_trusted_for_its_sessions_only(
    app: HostApp, upstream: UpstreamProxy, https_origin: tuple[str, str]
) -> None:
    """A provider that re-signs HTTPS (here: a local CA, through a local CONNECT upstream):
    sessions on the proxy that carries the CA load the page; a direct session rejects it."""
    url, ca_pem = https_origin
    app.new_proxy("resigning", upstream, detect_exit_locale=False, tls={"certificates": ca_pem})
    trusted = app.new_session(proxy_alias="resigning")
    data = app.ok("POST", "/v1/navigate", {"url": f"{url}/page", "session_id": trusted, "wait": 0})
    assert data["capture"]["target_http_status"] == 200
    assert "re-signed" in Path(data["capture"]["output_path"]).read_text(encoding="utf-8")
    assert any(s.method == "CONNECT" for s in upstream.seen)
    direct = app.new_session()
    _, error = app.error("POST", "/v1/navigate", {"url": f"{url}/page", "session_id": direct})
    # the certificate error ends the navigation (its message depends on whether the engine
    # reported the failure or showed its error page first)
    assert error["id"] == "UPSTREAM_UNAVAILABLE", error
    for sid in (trusted, direct):
        app.ok("DELETE", f"/v1/sessions/{sid}")
    app.ok("DELETE", "/v1/proxies/resigning")
