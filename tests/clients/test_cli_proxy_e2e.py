"""`svc proxy` and `svc profile` against the real app headless (issue 16): a local upstream proxy
with Basic auth, a local TLS site signed by a test CA served through a session whose proxy was
created with `--ca-cert`, transfer files on disk, and the Default Profile of the app's Settings."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import ssl
import stat
import subprocess
import termios
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent import transfers
from tests.archives import padded_proxy_archive
from tests.certs import ca, leaf
from tests.host.hostproc import HostApp
from tests.host.site import Site
from tests.proxy.servers import Origin, UpstreamProxy

from .conftest import SVC, Run, client_env, svc
from .test_cli_e2e import piped
from .test_cli_transfer_rules import protected_archive

pytestmark = pytest.mark.e2e

USER, PASSWORD = "cliuser", "cli-secret-pw"
W0 = ("--wait", "0")
NO_LOOKUP = ("--detect-exit-locale", "false")  # tests stay offline: no exit-country lookups


def ok(r: Run) -> dict[str, Any]:
    """A success, its result one line of compact JSON (stdout is a pipe)."""
    assert r.code == 0, r.err
    data: dict[str, Any] = piped(r)
    return data


def failed_api(r: Run) -> dict[str, Any]:
    assert r.code == 1
    assert r.out == b""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    error: dict[str, Any] = json.loads(lines[0])["error"]
    return error


def failed_plain(r: Run) -> str:
    assert r.code == 1
    assert r.out == b""
    assert r.err.count("\n") == 1, r.err
    assert r.err.startswith("svc"), r.err
    return r.err


# --- servers -------------------------------------------------------------------------------------


class _Secure(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        data = b"<!doctype html><title>secure</title><h1>served over TLS by the test CA</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@dataclass
class TlsSite:
    url: str
    authority: str
    ca_file: Path


@pytest.fixture(scope="module")
def tls_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsSite]:
    folder = tmp_path_factory.mktemp("tls-site")
    root = ca("svc CLI Test Root")
    cert = leaf(root, ["127.0.0.1"])
    (folder / "site.pem").write_text(cert.pem)
    (folder / "site.key").write_text(cert.key_pem)
    (folder / "root.pem").write_text(root.pem)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "site.pem", folder / "site.key")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Secure)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    try:
        yield TlsSite(f"https://127.0.0.1:{port}/secure", f"127.0.0.1:{port}", folder / "root.pem")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def upstream() -> Iterator[UpstreamProxy]:
    with UpstreamProxy(USER, PASSWORD) as proxy:
        yield proxy


@pytest.fixture(scope="module")
def origin() -> Iterator[Origin]:
    with Origin() as server:
        yield server


@pytest.fixture
def clean(fresh: HostApp) -> Iterator[HostApp]:
    """`fresh`, with no proxies or profiles left behind either."""
    yield fresh
    for s in fresh.ok("GET", "/v1/sessions")["sessions"]:
        fresh.client.delete(f"/v1/sessions/{s['id']}")
    for p in fresh.ok("GET", "/v1/profiles")["profiles"]:
        fresh.client.delete(f"/v1/profiles/{p['id']}")
    for p in fresh.ok("GET", "/v1/proxies")["proxies"]:
        fresh.client.delete(f"/v1/proxies/{p['alias']}")


def create_proxy(port: int, alias: str, upstream_port: int, *extra: str) -> dict[str, Any]:
    r = svc(
        port,
        "proxy",
        "create",
        "--alias",
        alias,
        "--upstream-host",
        "127.0.0.1",
        "--upstream-port",
        str(upstream_port),
        *NO_LOOKUP,
        *extra,
    )
    proxy: dict[str, Any] = ok(r)["proxy"]
    return proxy


# --- help ----------------------------------------------------------------------------------------

PROXY_COMMANDS = ("list", "get", "create", "update", "delete", "rotate", "export", "import")


def test_help_lists_every_command_with_examples(host: HostApp) -> None:
    r = svc(host.port, "proxy", "--help")
    assert r.code == 0
    for name in PROXY_COMMANDS:
        assert f"\n    {name} " in r.text, name
    assert "examples:\n  svc proxy list\n" in r.text
    r = svc(host.port, "profile", "--help")
    assert r.code == 0
    for name in ("list", "export", "import"):
        assert f"\n    {name} " in r.text, name
    root = svc(host.port, "--help").text
    assert "  proxy ...  " in root
    assert "  profile ...  " in root
    for command in [
        *(["proxy", c] for c in PROXY_COMMANDS),
        *(["profile", c] for c in ("list", "export", "import")),
    ]:
        r = svc(host.port, *command, "--help")
        assert r.code == 0, command
        assert "example:\n  svc " in r.text or "examples:\n  svc " in r.text, command


# --- proxies -------------------------------------------------------------------------------------


def test_a_proxy_created_with_ca_cert_serves_a_tls_site_through_the_upstream(
    clean: HostApp, upstream: UpstreamProxy, tls_site: TlsSite
) -> None:
    port = clean.port
    r = svc(
        port,
        "proxy",
        "create",
        "--alias",
        "tls-1",
        "--upstream-host",
        "127.0.0.1",
        "--upstream-port",
        str(upstream.port),
        "--username",
        USER,
        "--password-stdin",
        "--ca-cert",
        str(tls_site.ca_file),
        *NO_LOOKUP,
        stdin=f"{PASSWORD}\n".encode(),
    )
    proxy = ok(r)["proxy"]
    assert (proxy["alias"], proxy["username"], proxy["password_set"]) == ("tls-1", USER, True)
    assert proxy["tls"]["certificate_count"] == 1
    assert proxy["detect_exit_locale"] is False
    assert PASSWORD not in r.text
    sid = svc(port, "session", "create", "--proxy", "tls-1", "--id-only").text.strip()
    seen_before = len(upstream.seen)
    r = svc(port, "capture", tls_site.url, "--session-id", sid, *W0, "--retry", "0")
    assert r.code == 0, r.err
    assert b"served over TLS by the test CA" in r.out
    tunnels = [s for s in upstream.seen[seen_before:] if s.method == "CONNECT"]
    assert tls_site.authority in [s.target for s in tunnels]
    assert all((s.username, s.password, s.authorized) == (USER, PASSWORD, True) for s in tunnels)

    # The trust is the proxy's: the same upstream without --ca-cert rejects the site.
    create_proxy(port, "plain-1", upstream.port, "--username", USER, "--password", PASSWORD)
    other = svc(port, "session", "create", "--proxy", "plain-1", "--id-only").text.strip()
    r = svc(port, "capture", tls_site.url, "--session-id", other, *W0, "--retry", "0")
    assert r.code == 1
    events = [json.loads(line) for line in r.err.splitlines()]
    assert "capture.failed" in [e["event"] for e in events]
    assert events[-1]["data"] == {"exit_code": 1}


def test_proxy_update_get_list_rotate_delete(clean: HostApp, tmp_path: Path) -> None:
    port = clean.port
    created = create_proxy(
        port, "upd-1", 1, "--username", "u1", "--password", "p1", "--locale", "de-DE"
    )
    assert (created["username"], created["password_set"], created["locale"]) == (
        "u1",
        True,
        "de-DE",
    )
    assert created["tls"]["mode"] == "system"

    def update(*args: str) -> dict[str, Any]:
        proxy: dict[str, Any] = ok(svc(port, "proxy", "update", "upd-1", *args))["proxy"]
        return proxy

    # omission keeps values
    p = update("--upstream-port", "2", "--upstream-host", "localhost")
    assert (p["upstream_host"], p["upstream_port"]) == ("localhost", 2)
    assert (p["username"], p["password_set"], p["locale"]) == ("u1", True, "de-DE")
    # explicit nulls
    p = update("--clear-username", "--clear-password", "--clear-locale")
    assert (p["username"], p["password_set"], p["locale"]) == (None, False, None)
    # a password from standard input
    r = svc(port, "proxy", "update", "upd-1", "--password-stdin", stdin=b"new-pw\n")
    assert ok(r)["proxy"]["password_set"] is True
    p = update("--username", "u2", "--password", "p2", "--locale", "en-GB")
    assert (p["username"], p["password_set"], p["locale"]) == ("u2", True, "en-GB")
    # managed provider X, its rotation, and clearing its location
    p = update(
        "--providerx-enabled",
        "true",
        "--providerx-location-parameter",
        "cc",
        "--providerx-location-value",
        "de",
    )
    assert p["providerx"] == {"enabled": True, "location_parameter": "cc", "location_value": "de"}
    assert ok(svc(port, "proxy", "rotate", "upd-1"))["proxy"]["alias"] == "upd-1"
    p = update("--clear-providerx-location")
    assert p["providerx"]["location_parameter"] is None
    assert p["providerx"]["location_value"] is None
    # managed provider Y: the fields not given are kept
    p = update(
        "--providerx-enabled",
        "false",
        "--providery-enabled",
        "true",
        "--providery-country",
        "US",
        "--providery-state",
        "CA",
    )
    assert p["providery"] == {
        "enabled": True,
        "country": "us",
        "state": "ca",
        "city": None,
        "asn": None,
    }
    p = update("--providery-city", "SanJose", "--providery-asn", "7922")
    assert (p["providery"]["state"], p["providery"]["city"], p["providery"]["asn"]) == (
        "ca",
        "sanjose",
        "7922",
    )
    p = update("--clear-providery-location")
    assert p["providery"] == {
        "enabled": True,
        "country": None,
        "state": None,
        "city": None,
        "asn": None,
    }
    p = update("--providery-enabled", "false", "--tls", "providery", "--detect-exit-locale", "true")
    assert (p["providery"]["enabled"], p["tls"]["mode"], p["detect_exit_locale"]) == (
        False,
        "providery",
        True,
    )
    root = tmp_path / "root.pem"
    root.write_text(ca("Update Root").pem + ca("Second Root").pem)
    p = update("--ca-cert", str(root), *NO_LOOKUP)
    assert p["tls"]["certificate_count"] == 2
    assert update("--tls", "system")["tls"] == {"mode": "system"}

    # the managed-provider and trust options of create
    x = create_proxy(
        port,
        "mgd-x",
        1,
        "--providerx-enabled",
        "true",
        "--providerx-location-parameter",
        "st",
        "--providerx-location-value",
        "ca",
        "--tls",
        "providery",
    )
    assert (x["providerx"]["enabled"], x["providerx"]["location_parameter"]) == (True, "st")
    assert x["tls"] == {"mode": "providery"}
    y = create_proxy(
        port,
        "mgd-y",
        1,
        "--providery-enabled",
        "true",
        "--providery-country",
        "us",
        "--providery-state",
        "ny",
        "--providery-city",
        "nyc",
        "--providery-asn",
        "701",
    )
    assert y["providery"] == {
        "enabled": True,
        "country": "us",
        "state": "ny",
        "city": "nyc",
        "asn": "701",
    }
    assert ok(svc(port, "proxy", "rotate", "mgd-y"))["proxy"]["alias"] == "mgd-y"

    # get and list
    assert ok(svc(port, "proxy", "get", "upd-1"))["proxy"]["upstream_port"] == 2
    listed = [x["alias"] for x in ok(svc(port, "proxy", "list"))["proxies"]]
    assert listed == ["upd-1", "mgd-x", "mgd-y"]

    # usage failures: one plain line, nothing sent
    failed_plain(svc(port, "proxy", "update", "upd-1"))
    failed_plain(svc(port, "proxy", "update", "upd-1", "--username", "x", "--clear-username"))
    failed_plain(svc(port, "proxy", "update", "upd-1", "--tls", "system", "--ca-cert", str(root)))
    failed_plain(svc(port, "proxy", "create", "--alias", "x", "--upstream-host", "h"))
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    assert "--ca-cert" in failed_plain(svc(port, "proxy", "update", "upd-1", "--ca-cert", str(bad)))
    failed_plain(svc(port, "proxy", "update", "upd-1", "--password-stdin", stdin=b""))
    assert ok(svc(port, "proxy", "get", "upd-1"))["proxy"]["tls"] == {"mode": "system"}

    # API failures: the whole envelope, exit 1
    assert failed_api(svc(port, "proxy", "rotate", "upd-1"))["id"] == "CONFLICT"
    error = failed_api(
        svc(
            port,
            "proxy",
            "create",
            "--alias",
            "upd-1",
            "--upstream-host",
            "h",
            "--upstream-port",
            "1",
        )
    )
    assert error["id"] == "CONFLICT"
    assert failed_api(svc(port, "proxy", "update", "upd-1", "--locale", "not a tag!"))

    assert ok(svc(port, "proxy", "delete", "upd-1")) == {
        "deleted_alias": "upd-1",
        "detached_session_ids": [],
    }
    assert failed_api(svc(port, "proxy", "get", "upd-1"))["id"] == "PROXY_NOT_FOUND"


def test_the_password_prompt_on_a_terminal_does_not_echo(
    clean: HostApp, upstream: UpstreamProxy, origin: Origin
) -> None:
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen(
            [
                SVC,
                "proxy",
                "create",
                "--alias",
                "tty-1",
                "--upstream-host",
                "127.0.0.1",
                "--upstream-port",
                str(upstream.port),
                "--username",
                USER,
                "--password-stdin",
                *NO_LOOKUP,
            ],
            env=client_env(clean.port),
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        os.close(slave)
        slave = -1
        deadline = time.monotonic() + 20
        while termios.tcgetattr(master)[3] & termios.ECHO:
            assert time.monotonic() < deadline, "svc never turned echo off"
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        os.write(master, f"{PASSWORD}\n".encode())
        out, err = proc.communicate(timeout=30)
        echoed = b""
        with contextlib.suppress(OSError):  # EIO once svc closed the terminal
            while select.select([master], [], [], 0.1)[0]:
                chunk = os.read(master, 4096)
                if not chunk:
                    break
                echoed += chunk
    finally:
        os.close(master)
        if slave != -1:
            os.close(slave)
    assert proc.returncode == 0, err
    assert ok(Run(proc.returncode, out, err.decode()))["proxy"]["password_set"] is True
    assert err.decode().startswith("Proxy password: ")
    assert PASSWORD.encode() not in echoed + err
    # the typed password is the one the upstream gets
    sid = svc(clean.port, "session", "create", "--proxy", "tty-1", "--id-only").text.strip()
    r = svc(clean.port, "capture", origin.url("/page"), "--session-id", sid, *W0, "--retry", "0")
    assert r.code == 0, r.err
    assert b"Through the proxy" in r.out
    assert any(s.target == origin.url("/page") and s.password == PASSWORD for s in upstream.seen)


# --- transfer files ------------------------------------------------------------------------------


def test_proxy_export_and_import(clean: HostApp, tls_site: TlsSite, tmp_path: Path) -> None:
    port = clean.port
    made = create_proxy(
        port,
        "exp-1",
        3128,
        "--username",
        USER,
        "--password",
        PASSWORD,
        "--ca-cert",
        str(tls_site.ca_file),
        "--locale",
        "fr-FR",
    )
    r = svc(port, "proxy", "export", "exp-1", cwd=tmp_path)
    written = tmp_path / "exp-1.svcproxy"
    raw = _exported_without_credentials(r, written)
    assert raw.startswith(b"SQLite format 3\x00")
    archive = transfers.decode(base64.b64encode(raw).decode(), "proxy")
    assert archive.credentials_included is False
    assert [p["credentials"] for p in archive.proxies] == [None]
    # never overwritten, and nothing else is left in the folder
    assert "refusing to overwrite" in failed_plain(
        svc(port, "proxy", "export", "exp-1", cwd=tmp_path)
    )
    assert written.read_bytes() == raw
    assert [p.name for p in tmp_path.iterdir()] == ["exp-1.svcproxy"]
    exact = tmp_path / "kept" / "any-name.bin"
    failed_plain(svc(port, "proxy", "export", "exp-1", "--output", str(exact)))
    exact.parent.mkdir()
    assert ok(svc(port, "proxy", "export", "exp-1", "--output", str(exact)))["output_path"] == str(
        exact
    )
    assert stat.S_IMODE(exact.stat().st_mode) == 0o600
    assert failed_api(svc(port, "proxy", "export", "nope"))["id"] == "PROXY_NOT_FOUND"

    # import: never over an existing alias; --alias names the copy; no credentials travel
    assert failed_api(svc(port, "proxy", "import", str(written)))["id"] == "CONFLICT"
    copy = ok(svc(port, "proxy", "import", str(written), "--alias", "exp-2"))["proxy"]
    assert copy["alias"] == "exp-2"
    assert (copy["username"], copy["password_set"]) == (None, False)
    for key in ("upstream_host", "upstream_port", "tls", "locale", "detect_exit_locale"):
        assert copy[key] == made[key], key
    clean.client.delete("/v1/proxies/exp-1")
    assert ok(svc(port, "proxy", "import", str(exact)))["proxy"]["alias"] == "exp-1"

    # what an import refuses before sending
    legacy = tmp_path / "legacy.svcproxy"
    legacy.write_text(json.dumps({"alias": "old", "upstream_host": "h", "upstream_port": 1}))
    assert "legacy JSON" in failed_plain(svc(port, "proxy", "import", str(legacy)))
    big = tmp_path / "big.svcproxy"
    big.write_bytes(b"SQLite format 3\x00".ljust(12 * 1024 * 1024 + 1, b"\0"))
    assert "limited to 12 MiB" in failed_plain(svc(port, "proxy", "import", str(big)))
    failed_plain(svc(port, "proxy", "import", str(tmp_path / "absent.svcproxy")))
    sealed = tmp_path / "sealed.svcproxy"
    sealed.write_bytes(protected_archive())
    assert "protected archive" in failed_plain(svc(port, "proxy", "import", str(sealed)))
    # what the agent refuses: a damaged container
    damaged = tmp_path / "damaged.svcproxy"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\x01" * 600)
    assert failed_api(svc(port, "proxy", "import", str(damaged)))["id"] == "VALIDATION_FAILED"


def test_the_largest_archive_imports_through_the_cli(clean: HostApp, tmp_path: Path) -> None:
    """Issue 16 point 6: a 12 MiB archive is a 16 MiB base64 body plus its JSON."""
    path = tmp_path / "largest.svcproxy"
    path.write_bytes(padded_proxy_archive(12 * 1024 * 1024))
    r = svc(clean.port, "proxy", "import", str(path), "--alias", "largest-1", timeout=120)
    assert ok(r)["proxy"]["alias"] == "largest-1"


def test_profile_export_and_import(clean: HostApp, tmp_path: Path) -> None:
    port = clean.port
    create_proxy(port, "prof-px", 3128, "--username", USER, "--password", PASSWORD)
    clean.ok(
        "POST",
        "/v1/profiles",
        {
            "name": "Research Team",
            "proxy_alias": "prof-px",
            "adblock_enabled": False,
            "image_blocking_mode": "all",
        },
    )
    assert [p["name"] for p in ok(svc(port, "profile", "list"))["profiles"]] == ["Research Team"]
    r = svc(port, "profile", "export", "Research Team", cwd=tmp_path)
    written = tmp_path / "Research_Team.svcprofile"
    raw = _exported_without_credentials(r, written)
    archive = transfers.decode(base64.b64encode(raw).decode(), "profile")
    assert archive.credentials_included is False
    assert [p["credentials"] for p in archive.proxies] == [None]
    assert "refusing to overwrite" in failed_plain(
        svc(port, "profile", "export", "Research Team", cwd=tmp_path)
    )
    assert failed_api(svc(port, "profile", "export", "Nobody"))["id"] == "VALIDATION_FAILED"

    # --name names the copy; the existing proxy is linked, not replaced
    assert failed_api(svc(port, "profile", "import", str(written)))["id"] == "CONFLICT"
    data = ok(svc(port, "profile", "import", str(written), "--name", "Research Copy"))
    copy = data["profile"]
    assert data["proxy_created"] is False
    assert (copy["name"], copy["proxy_alias"]) == ("Research Copy", "prof-px")
    assert (copy["adblock_enabled"], copy["image_blocking_mode"]) == (False, "all")
    assert (copy["includes_cookies"], copy["includes_passwords"]) == (False, False)
    # without the proxy, the import creates it from the file, without credentials
    ok(svc(port, "proxy", "delete", "prof-px"))
    data = ok(svc(port, "profile", "import", str(written), "--name", "Research Third"))
    assert data["proxy_created"] is True
    proxy = ok(svc(port, "proxy", "get", "prof-px"))["proxy"]
    assert (proxy["username"], proxy["password_set"]) == (None, False)

    legacy = tmp_path / "legacy.svcprofile"
    legacy.write_text(json.dumps({"name": "Old", "adblock_enabled": True}))
    assert "legacy JSON" in failed_plain(svc(port, "profile", "import", str(legacy)))
    proxy_file = tmp_path / "px.svcproxy"
    ok(svc(port, "proxy", "export", "prof-px", "--output", str(proxy_file)))
    error = failed_api(svc(port, "profile", "import", str(proxy_file)))
    assert (error["id"], error["details"]["kind"]) == ("VALIDATION_FAILED", "proxy")


# --- the Default Profile of the app's Settings --------------------------------------------------


def test_the_default_profile_of_the_app_settings_is_used(clean: HostApp, site: Site) -> None:
    settings = clean.data_dir / "app-settings.json"
    before = settings.read_text() if settings.exists() else None
    clean.ok("POST", "/v1/profiles", {"name": "Settings Choice", "image_blocking_mode": "all"})
    saved = json.loads(before) if before else {}
    settings.write_text(json.dumps({**saved, "default_profile": "Settings Choice"}))
    try:
        # a session created without a profile, and the one a first navigation creates
        sid = svc(clean.port, "session", "create", "--id-only").text.strip()
        got = ok(svc(clean.port, "session", "get", sid))["session"]
        assert (got["profile"], got["image_blocking_mode"]) == ("Settings Choice", "all")
        clean.client.delete(f"/v1/sessions/{sid}")
        page = ok(svc(clean.port, "navigate", site.url("/table"), *W0))["page"]
        assert (
            ok(svc(clean.port, "session", "get", page["session_id"]))["session"]["profile"]
            == "Settings Choice"
        )
        # an explicit profile wins
        r = svc(clean.port, "session", "create", "--profile", "Custom", "--id-only")
        assert (
            ok(svc(clean.port, "session", "get", r.text.strip()))["session"]["profile"] == "Custom"
        )
    finally:
        settings.write_text(json.dumps({**saved, "default_profile": "Custom"}))
    sid = svc(clean.port, "session", "create", "--id-only").text.strip()
    assert ok(svc(clean.port, "session", "get", sid))["session"]["profile"] == "Custom"


def _exported_without_credentials(r: Any, written: Path) -> bytes:
    """The file an export wrote (the answer names it), private to the user, with no
    credentials in it."""
    raw = written.read_bytes()
    assert ok(r) == {
        "output_path": str(written),
        "bytesize": len(raw),
        "credentials_included": False,
    }
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert PASSWORD.encode() not in raw
    assert USER.encode() not in raw
    return raw
