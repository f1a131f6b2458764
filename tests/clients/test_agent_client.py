"""The shared agent client: decoding of answers and the mapping of every failure onto the table."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from clients.agent_client import (
    AgentClient,
    AgentUnavailable,
    ApiFailure,
    ProtocolFailure,
    agent_port,
    decode_envelope,
    decode_stream_line,
)
from clients.urls import file_uri, normalize_url, path_of_file_uri

from ..httpserver import QUICK_SHUTDOWN
from .conftest import free_port, svc

BASE = "http://127.0.0.1:1"
ERROR = {"id": "SESSION_NOT_FOUND", "code": 10100, "message": "no", "retryable": False}


def test_decode_success_and_api_failure() -> None:
    body = json.dumps({"status": "ok", "request_id": "r1", "data": {"a": 1}}).encode()
    assert decode_envelope(BASE, 200, body) == ("r1", {"a": 1})
    body = json.dumps({"status": "error", "request_id": "r2", "error": ERROR}).encode()
    with pytest.raises(ApiFailure) as caught:
        decode_envelope(BASE, 404, body)
    assert caught.value.envelope() == {"status": "error", "request_id": "r2", "error": ERROR}


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (200, b"<html>"),
        (200, b"[]"),
        (200, json.dumps({"status": "ok", "data": {}}).encode()),
        (500, json.dumps({"status": "ok", "request_id": "r", "data": {}}).encode()),
        (
            404,
            json.dumps(
                {"status": "error", "request_id": "r", "error": {**ERROR, "code": 1}}
            ).encode(),
        ),
        (
            404,
            json.dumps(
                {"status": "error", "request_id": "r", "error": {**ERROR, "id": "NOPE"}}
            ).encode(),
        ),
        (404, json.dumps({"status": "error", "request_id": "r", "error": {"id": "X"}}).encode()),
    ],
)
def test_anything_else_is_a_protocol_failure(status: int, body: bytes) -> None:
    with pytest.raises(ProtocolFailure) as caught:
        decode_envelope(BASE, status, body)
    error = caught.value.error
    assert (error["id"], error["code"], error["details"]["reason"]) == (
        "INTERNAL_ERROR",
        10999,
        "protocol",
    )


def test_stream_lines() -> None:
    line = b'{"status":"ok","request_id":"r","event":"capture.started","data":{}}'
    assert decode_stream_line(BASE, line)["event"] == "capture.started"
    for bad in (
        b"nope",
        b'{"status":"ok"}',
        b'{"status":"x","request_id":"r","event":"e","data":{}}',
    ):
        with pytest.raises(ProtocolFailure):
            decode_stream_line(BASE, bad)


def test_unavailable_agent() -> None:
    with pytest.raises(AgentUnavailable) as caught:
        AgentClient(free_port()).call("GET", "/v1/health")
    error = caught.value.error
    assert (error["id"], error["code"], error["retryable"]) == ("BROWSER_UNAVAILABLE", 10301, True)
    assert error["details"]["reason"] == "agent_unreachable"


def test_agent_port() -> None:
    assert agent_port({}) == 17319
    assert agent_port({"SVC_AGENT_PORT": "18000"}) == 18000
    for bad in ("0", "70000", "x"):
        with pytest.raises(ValueError, match="SVC_AGENT_PORT"):
            agent_port({"SVC_AGENT_PORT": bad})


def test_urls() -> None:
    assert normalize_url("localhost:8000") == "http://localhost:8000/"
    assert normalize_url("127.0.0.1/x?y#z") == "http://127.0.0.1/x?y#z"
    assert normalize_url("Example.ORG") == "https://example.org/"
    assert normalize_url("HTTPS://example.org:443/a") == "https://example.org/a"
    assert normalize_url("docs.test/s?q=two words") == "https://docs.test/s?q=two%20words"
    for bad in ("", "ftp://x", "mailto:a@b", "http://", "http://x:99999/", "a b", "x.test/a\nb"):
        with pytest.raises(ValueError, match="URL"):
            normalize_url(bad)
    assert file_uri("/tmp/a b/ü.html") == "file:///tmp/a%20b/%C3%BC.html"
    assert path_of_file_uri("file:///tmp/a%20b/%C3%BC.html") == "/tmp/a b/ü.html"
    for bad in ("file://host/x", "file:relative", "http://x/y", "file:///dir/", "file:///x?q"):
        with pytest.raises(ValueError, match="output_uri"):
            path_of_file_uri(bad)


class _NotTheAgent(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def impostor() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotTheAgent)
    thread = threading.Thread(target=server.serve_forever, kwargs=QUICK_SHUTDOWN, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def test_cli_protocol_failure_is_one_line_and_launches_nothing(
    impostor: int, tmp_path: Path
) -> None:
    r = svc(impostor, "session", "list", env={"SVC_DATA_DIR": str(tmp_path)})
    assert r.code == 1
    assert r.out == b""
    assert r.err.count("\n") == 1
    assert "did not answer as the svc agent API v1" in r.err
    assert not list(tmp_path.iterdir())
