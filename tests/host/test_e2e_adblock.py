"""Adblock and image blocking on the real app (spec 1 §1 Filtering, Log files): the filter lists
come from a local HTTPS mirror (SVC_FILTER_LISTS_URL, its CA through SSL_CERT_FILE); a local page
on 127.0.0.1 loads scripts, a stylesheet and images from `localhost` (another site, so rules can
be third-party) and from itself. The server counts what reached it: a blocked request never does.
One app for the module."""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.certs import ca, leaf

from .hostproc import HostApp

pytestmark = pytest.mark.e2e

LISTS = {
    "easylist.txt": "[Adblock Plus 2.0]\n! Title: test EasyList\n/svc-ad.js\n/svc-ad.css\n",
    "easyprivacy.txt": "/svc-pixel.gif\n/tponly/*$third-party\n",
    "ublock-filters.txt": "/svc-allowed.js\n",
    "ublock-privacy.txt": "@@/svc-allowed.js$script\n",
}
GIF = (
    b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00"
    b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
)


def page(port: int, case: str) -> str:
    other = f"http://localhost:{port}"
    q = f"?c={case}"
    return f"""<!doctype html><html><head><title>{case}</title>
<link rel="stylesheet" href="{other}/svc-ad.css{q}">
<script src="{other}/svc-ad.js{q}"></script>
<script src="{other}/svc-allowed.js{q}"></script>
<script src="{other}/tponly/t.js{q}"></script>
<script src="/tponly/t.js{q}"></script>
</head><body><p>{case}</p>
<img src="{other}/svc-pixel.gif{q}"><img src="/photo.gif{q}">
</body></html>"""


def flood(port: int, n: int) -> str:
    imgs = "".join(f'<img src="http://localhost:{port}/svc-pixel.gif?f={i}">' for i in range(n))
    return f"<!doctype html><html><body><p>flood</p>{imgs}</body></html>"


class Site:
    """The page's server for both origins; counts (host, path+query) of every request."""

    def __init__(self) -> None:
        self.hits: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                host = (self.headers.get("Host") or "").split(":")[0]
                with site.lock:
                    site.hits[(host, self.path)] += 1
                parts = urlsplit(self.path)
                port = site.port
                if parts.path == "/page":
                    body, ctype = page(port, parts.query[2:]).encode(), "text/html"
                elif parts.path == "/late":
                    other, q = f"http://localhost:{port}", f"?{parts.query}"
                    body = (
                        f'<script src="{other}/svc-allowed-late.js{q}"></script>'
                        f'<script src="{other}/svc-ad.js{q}"></script><p>late</p>'
                    ).encode()
                    ctype = "text/html"
                elif parts.path == "/flood":
                    body, ctype = flood(port, 1000).encode(), "text/html"
                elif parts.path.endswith(".gif"):
                    body, ctype = GIF, "image/gif"
                elif parts.path.endswith(".css"):
                    body, ctype = b"p{color:red}", "text/css"
                elif parts.path.endswith(".js"):
                    body, ctype = b"window.loaded=(window.loaded||0)+1;", "text/javascript"
                else:
                    body, ctype = b"<p>plain</p>", "text/html"
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def loaded(self, case: str) -> set[str]:
        """What of case `case` reached the server, as `host/path`."""
        with self.lock:
            return {
                f"{h}{p.split('?')[0]}"
                for (h, p), n in self.hits.items()
                if p.endswith(f"c={case}")
            }

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Mirror:
    """The filter lists over HTTPS, signed by a CA of the test's own."""

    def __init__(self, folder: Path) -> None:
        root = ca("svc adblock test CA")
        served = leaf(root, ["127.0.0.1"])
        (folder / "ca.pem").write_text(root.pem)
        (folder / "mirror-cert.pem").write_text(served.pem)
        (folder / "mirror-key.pem").write_text(served.key_pem)
        self.ca_file = folder / "ca.pem"
        self.requests: list[str] = []
        self.lists = dict(LISTS)  # what it serves now
        self.failing = False  # answer 503 to everything
        mirror = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                mirror.requests.append(self.path)
                name = self.path.rsplit("/", 1)[-1]
                if mirror.failing or name not in mirror.lists:
                    self.send_error(503 if mirror.failing else 404)
                    return
                body = mirror.lists[name].encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(folder / "mirror-cert.pem", folder / "mirror-key.pem")
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.base = f"https://127.0.0.1:{self.server.server_address[1]}/lists"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def poll(check: Callable[[], bool], what: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def records(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    s = Site()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mirror]:
    m = Mirror(tmp_path_factory.mktemp("mirror"))
    yield m
    m.stop()


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory, mirror: Mirror) -> Iterator[HostApp]:
    app = HostApp(
        tmp_path_factory.mktemp("adblock-app"),
        env={"SVC_FILTER_LISTS_URL": mirror.base, "SSL_CERT_FILE": str(mirror.ca_file)},
    )
    app.start()
    try:
        global_log = app.data_dir / "Logs" / "global.ndjson"
        poll(
            lambda: any(r["category"] == "filters.ready" for r in records(global_log)),
            "the filter engine",
            30,
        )
        yield app
    finally:
        app.stop()


def set_global(host: HostApp, enabled: bool) -> None:
    """The global switch through the app's settings file (the app reloads it on change)."""
    path = host.data_dir / "app-settings.json"
    settings = json.loads(path.read_text()) if path.exists() else {}
    if settings.get("adblock_enabled", True) == enabled:
        return
    settings["adblock_enabled"] = enabled
    global_log = host.data_dir / "Logs" / "global.ndjson"
    before = sum(r["category"] == "host.settings_reloaded" for r in records(global_log))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(settings))
    tmp.replace(path)
    poll(
        lambda: (
            sum(r["category"] == "host.settings_reloaded" for r in records(global_log)) > before
        ),
        "the settings reload",
    )


def visit(host: HostApp, site: Site, session: str, case: str) -> set[str]:
    host.ok(
        "POST",
        "/v1/navigate",
        {"url": f"http://127.0.0.1:{site.port}/page?c={case}", "session_id": session},
    )
    return site.loaded(case)


ADS = {
    "localhost/svc-ad.js",
    "localhost/svc-ad.css",
    "localhost/svc-pixel.gif",
    "localhost/tponly/t.js",
}
ALWAYS = {
    "127.0.0.1/page",
    "127.0.0.1/tponly/t.js",  # the third-party-only rule lets the site's own copy through
    "127.0.0.1/photo.gif",
    "localhost/svc-allowed.js",  # blocked by one list, excepted by another
}


def session_log(host: HostApp, session: str) -> Path:
    return host.data_dir / "Logs" / "sessions" / f"{session.removeprefix('Session')}.ndjson"


def test_the_lists_come_from_the_mirror_and_are_stored(host: HostApp, mirror: Mirror) -> None:
    assert sorted(mirror.requests) == sorted(f"/lists/{name}" for name in LISTS)
    folder = host.data_dir / "Filters"
    state = json.loads((folder / "state.json").read_text())
    assert set(state["lists"]) == set(LISTS)
    assert (folder / "engine.dat").stat().st_size > 0


def test_four_switch_combinations(host: HostApp, site: Site) -> None:
    session = host.new_session()
    try:
        for global_on, session_on in [(True, True), (True, False), (False, True), (False, False)]:
            set_global(host, global_on)
            host.ok("PATCH", f"/v1/sessions/{session}", {"adblock_enabled": session_on})
            case = f"sw-{int(global_on)}{int(session_on)}"
            loaded = visit(host, site, session, case)
            if global_on and session_on:
                assert loaded == ALWAYS, case
            else:
                assert loaded == ALWAYS | ADS, case
    finally:
        set_global(host, True)


def test_filter_records_name_rule_and_list_and_are_bounded(host: HostApp, site: Site) -> None:
    session = host.new_session()
    visit(host, site, session, "log")
    log = session_log(host, session)
    filtered = [r for r in records(log) if r["category"] == "network.filtered"]
    by_url = {urlsplit(r["data"]["url"]).path: r["data"] for r in filtered}
    assert by_url["/svc-ad.js"] == {
        "session_id": session,
        "url": f"http://localhost:{site.port}/svc-ad.js?c=log",
        "resource_type": "script",
        "reason": "adblock",
        "rule": "/svc-ad.js",
        "list": "easylist.txt",
    }
    assert by_url["/svc-pixel.gif"]["list"] == "easyprivacy.txt"
    assert by_url["/svc-pixel.gif"]["resource_type"] == "image"
    assert by_url["/tponly/t.js"]["rule"] == "/tponly/*$third-party"
    assert by_url["/svc-ad.css"]["resource_type"] == "stylesheet"
    assert set(by_url) == {"/svc-ad.js", "/svc-ad.css", "/svc-pixel.gif", "/tponly/t.js"}
    # a page firing 1000 blocked requests: at most 100 records, and one summary when it ends
    host.ok(
        "POST",
        "/v1/navigate",
        {"url": f"http://127.0.0.1:{site.port}/flood", "session_id": session},
    )
    visit(host, site, session, "after-flood")
    flood_records = [
        r for r in records(log) if r["category"] == "network.filtered" and "?f=" in r["data"]["url"]
    ]
    assert len(flood_records) == 100
    summaries = [r["data"] for r in records(log) if r["category"] == "network.filtered_summary"]
    assert {k: summaries[-1][k] for k in ("blocked", "recorded", "suppressed")} == {
        "blocked": 1000,
        "recorded": 100,
        "suppressed": 900,
    }
    assert not any(hit[1].startswith("/svc-pixel.gif?f=") for hit in site.hits)


def test_image_blocking_all_is_independent_of_adblock(host: HostApp, site: Site) -> None:
    session = host.new_session(adblock_enabled=False, image_blocking_mode="all")
    loaded = visit(host, site, session, "img")
    assert "127.0.0.1/photo.gif" not in loaded
    assert "localhost/svc-pixel.gif" not in loaded
    assert "localhost/svc-ad.js" in loaded  # adblock is off for this session
    log = session_log(host, session)
    reasons = {
        urlsplit(r["data"]["url"]).path: r["data"]["reason"]
        for r in records(log)
        if r["category"] == "network.filtered"
    }
    reasons.pop("/favicon.ico", None)  # the favicon is an image too, when the engine asks
    assert reasons == {"/photo.gif": "image_blocking", "/svc-pixel.gif": "image_blocking"}
    host.ok("PATCH", f"/v1/sessions/{session}", {"image_blocking_mode": "none"})
    assert "127.0.0.1/photo.gif" in visit(host, site, session, "img-none")


def _age_lists(data_dir: Path, days: float) -> None:
    """The clock we control: the stored engine's build time moved `days` into the past."""
    path = data_dir / "Filters" / "state.json"
    state = json.loads(path.read_text())
    state["built_at"] = time.time() - days * 24 * 3600
    path.write_text(json.dumps(state))


def _start(
    data_dir: Path, env: dict[str, str], *, wait_for: str
) -> tuple[HostApp, list[dict[str, Any]]]:
    """The app started on `data_dir`, once the global record `wait_for` is written; with the
    filter records of this start."""
    global_log = data_dir / "Logs" / "global.ndjson"
    before = len(records(global_log))
    app = HostApp(data_dir, env=env).start()
    try:
        poll(
            lambda: any(r["category"] == wait_for for r in records(global_log)[before:]),
            wait_for,
            30,
        )
    except AssertionError:
        app.stop()
        raise
    return app, [r for r in records(global_log)[before:] if r["category"].startswith("filters.")]


def test_lists_refresh_after_four_days_and_a_failed_refresh_keeps_the_engine(
    tmp_path_factory: pytest.TempPathFactory, site: Site
) -> None:
    """Three starts of one app over one data folder, the lists' age set between them: fresh
    lists are reused without a download; four-day-old lists are downloaded again in the
    background (the new rule applies); a refresh that fails keeps the engine it had."""
    mirror = Mirror(tmp_path_factory.mktemp("mirror-refresh"))
    env = {"SVC_FILTER_LISTS_URL": mirror.base, "SSL_CERT_FILE": str(mirror.ca_file)}
    data_dir = tmp_path_factory.mktemp("adblock-refresh")
    new_rule = "/svc-allowed-late.js"
    app: HostApp | None = None
    try:
        app, _ = _start(data_dir, env, wait_for="filters.ready")
        app.stop()
        # 3 days old: loaded from the store, nothing downloaded
        _age_lists(data_dir, 3)
        asked = len(mirror.requests)
        app, seen = _start(data_dir, env, wait_for="filters.ready")
        assert [r["message"].split(":")[0] for r in seen] == ["filter engine loaded"]
        assert len(mirror.requests) == asked
        app.stop()
        # 4 days and a bit: the stored engine serves at once, the new lists replace it
        mirror.lists["ublock-filters.txt"] += new_rule + "\n"
        _age_lists(data_dir, 4.01)
        app, seen = _start(data_dir, env, wait_for="filters.refreshed")
        poll(lambda: "filter engine refreshed" in str(_filters(data_dir)), "the new engine")
        session = app.new_session()
        html = _page_with(app, site, session, "late")
        assert "localhost/svc-allowed-late.js" not in site.loaded("late"), html
        assert "localhost/svc-ad.js" not in site.loaded("late")
        app.stop()
        # due again, the mirror down: logged, and the engine of the last refresh still blocks
        mirror.failing = True
        _age_lists(data_dir, 5)
        app, seen = _start(data_dir, env, wait_for="filters.refresh_failed")
        failed = [r for r in seen if r["category"] == "filters.refresh_failed"]
        assert "the previous engine is kept" in failed[0]["message"], failed
        _page_with(app, site, session, "late2")
        assert "localhost/svc-allowed-late.js" not in site.loaded("late2")
        assert "localhost/svc-ad.js" not in site.loaded("late2")
        assert "127.0.0.1/late" in site.loaded("late2")
    finally:
        if app is not None:
            app.stop()
        mirror.stop()


def _filters(data_dir: Path) -> list[str]:
    return [
        r["message"]
        for r in records(data_dir / "Logs" / "global.ndjson")
        if r["category"] == "filters.ready"
    ]


def _page_with(app: HostApp, site: Site, session: str, case: str) -> str:
    """A page that also loads the script only the refreshed lists block."""
    url = f"http://127.0.0.1:{site.port}/late?c={case}"
    data = app.ok("POST", "/v1/navigate", {"url": url, "session_id": session})
    return Path(data["capture"]["output_path"]).read_text()
