"""The process: command line, public URL, error shape, internal errors and SIGTERM."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import apsw
import httpx
import pytest

from .client import Key, sign_request
from .conftest import Api
from .process import KeyServerProcess, keyserver_command

pytestmark = pytest.mark.e2e  # starts agent / key server processes

PUBLIC_URL = "https://keys.example.test"


@pytest.fixture(scope="module")
def public_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KeyServerProcess]:
    proc = KeyServerProcess(
        tmp_path_factory.mktemp("public"), ["--public-url", PUBLIC_URL + "/"]
    ).start()
    try:
        yield proc
    finally:
        assert proc.terminate() == 0, proc.log()


def _signed_get(server: KeyServerProcess, key: Key, origin: str) -> httpx.Response:
    signed = sign_request(key, "GET", f"{origin}/vault/{key.kid}")
    target = signed.url.removeprefix(origin)
    return httpx.get(server.url + target, headers={"Authorization": signed.authorization})


def test_public_url_is_the_signed_origin(public_server: KeyServerProcess) -> None:
    key = Key.generate()
    # Signed against the public origin: authorized (the vault is just empty).
    r = _signed_get(public_server, key, PUBLIC_URL)
    assert r.status_code == 404
    assert r.json()["error"]["message"] == "vault not found"
    # Signed against the address it listens on: not what clients are told to sign.
    r = _signed_get(public_server, key, public_server.url)
    assert r.status_code == 403
    assert r.json()["error"]["message"] == "invalid signature"
    assert f"public URL {PUBLIC_URL}" in public_server.log()


def test_default_public_url_is_the_bound_address(api: Api) -> None:
    key = Key.generate()
    r = api.vault("GET", key)  # signs against http://127.0.0.1:<port>
    assert r.status_code == 404
    assert r.json()["error"]["message"] == "vault not found"


@pytest.mark.parametrize(
    ("method", "path", "status", "message"),
    [
        ("GET", "/", 404, "resource not found"),
        ("GET", "/vault", 404, "resource not found"),
        ("GET", "/vault/a/b", 404, "resource not found"),
        ("GET", "/users/search", 404, "resource not found"),
        ("POST", "/user/search", 405, "method not allowed"),
        ("DELETE", "/sigchain/kex1abc", 405, "method not allowed"),
        ("POST", "/sigchain/kex1abc/1", 405, "method not allowed"),
        ("PUT", "/user/kex1abc", 405, "method not allowed"),
    ],
)
def test_unknown_route_and_wrong_method(
    api: Api, method: str, path: str, status: int, message: str
) -> None:
    r = api.http.request(method, api.base + path)
    assert r.status_code == status
    assert r.headers["content-type"] == "application/json"
    assert r.json() == {"error": {"code": status, "message": message}}
    if status == 405:
        assert r.headers["allow"]


def test_internal_errors_are_hidden_and_logged(public_server: KeyServerProcess) -> None:
    key = Key.generate()
    db = apsw.Connection(str(public_server.db))
    try:
        db.execute("DROP TABLE users")
    finally:
        db.close()
    r = httpx.get(f"{public_server.url}/user/{key.kid}")
    assert r.status_code == 500
    assert r.headers["content-type"] == "application/json"
    assert r.json() == {"error": {"code": 500, "message": "internal error"}}
    log = public_server.log()
    assert "Traceback" in log
    assert "no such table: users" in log
    # Every route on the broken table fails the same way; the rest keeps working.
    assert httpx.get(f"{public_server.url}/user/search").status_code == 500
    assert httpx.get(f"{public_server.url}/sigchain/{key.kid}").status_code == 404


def test_sigterm_stops_cleanly(tmp_path: Path) -> None:
    proc = KeyServerProcess(tmp_path).start()
    key = Key.generate()
    assert httpx.get(f"{proc.url}/sigchain/{key.kid}").status_code == 404
    assert proc.terminate(timeout=10) == 0
    log = proc.log()
    assert "received SIGTERM, shutting down" in log
    assert "svc-keyserver stopped" in log
    assert "Traceback" not in log
    # The database was closed cleanly and reopens.
    db = apsw.Connection(str(proc.db))
    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    db.close()


def test_command_line_help_and_bad_arguments() -> None:
    out = subprocess.run(
        [*keyserver_command(), "--help"], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    for option in ("--bind", "--db", "--public-url", "--github-api-url", "--recheck-interval"):
        assert option in out
    bad = subprocess.run(
        [*keyserver_command(), "--public-url", "ftp://x"],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode == 2
    assert "expected an http(s) URL" in bad.stderr
