"""Transport rules of spec 1 section 4 (rules 1-5) against the real agent, over raw sockets where
httpx would tidy up what we want to test."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .agentproc import AgentProcess


def raw_request(agent: AgentProcess, data: bytes) -> bytes:
    """Send raw bytes; return one complete response (headers and Content-Length body)."""
    with socket.create_connection(("127.0.0.1", agent.port), timeout=10) as sock:
        sock.sendall(data)
        reply = b""
        while b"\r\n\r\n" not in reply:
            chunk = sock.recv(65536)
            if not chunk:
                return reply
            reply += chunk
        head, _, body = reply.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        while len(body) < length:
            body += sock.recv(65536)
        return head + b"\r\n\r\n" + body


def test_every_response_closes_the_connection_and_carries_the_request_id(
    agent: AgentProcess,
) -> None:
    for method, path in (("GET", "/v1/health"), ("GET", "/v1/nope"), ("POST", "/v1/health")):
        response = agent.request(method, path)
        assert response.headers["connection"] == "close"
        rid = response.headers["x-request-id"]
        assert rid.startswith("req_")
        assert response.json()["request_id"] == rid
        assert not [h for h in response.headers if h.lower().startswith("access-control-")]
    ids = {agent.request("GET", "/v1/health").headers["x-request-id"] for _ in range(5)}
    assert len(ids) == 5


def test_unknown_path_and_wrong_method(agent: AgentProcess) -> None:
    for path in ("/v1/nope", "/health", "/openapi.json", "/v1", "/", "/v2/health"):
        status, error = agent.error("GET", path)
        assert (status, error["id"]) == (404, "ROUTE_NOT_FOUND"), path
    status, error = agent.error("PUT", "/v1/sessions")
    assert (status, error["id"]) == (405, "METHOD_NOT_ALLOWED")
    assert error["details"]["allowed"] == ["GET", "POST"]
    assert agent.request("PUT", "/v1/sessions").headers["Allow"] == "GET, POST"
    # No CORS preflight success either: OPTIONS is just another method that is not allowed,
    # and a preflight (it carries an Origin) is refused as a web page's request.
    status, error = agent.error("OPTIONS", "/v1/health")
    assert (status, error["id"]) == (405, "METHOD_NOT_ALLOWED")
    status, error = agent.error("OPTIONS", "/v1/health", headers={"Origin": "http://evil.test"})
    assert (status, error["id"]) == (400, "INVALID_REQUEST")


def test_malformed_json_and_wrong_media_type(agent: AgentProcess) -> None:
    status, error = agent.error(
        "POST", "/v1/sessions", content=b"{", headers={"Content-Type": "application/json"}
    )
    assert (status, error["id"]) == (400, "INVALID_REQUEST")
    status, error = agent.error(
        "POST", "/v1/sessions", content=b"name=x", headers={"Content-Type": "text/plain"}
    )
    assert (status, error["id"]) == (415, "UNSUPPORTED_MEDIA_TYPE")
    status, error = agent.error("POST", "/v1/sessions", content=b'{"name": "x"}', headers={})
    assert (status, error["id"]) == (415, "UNSUPPORTED_MEDIA_TYPE")
    status, error = agent.error(
        "POST", "/v1/sessions", content=b"[1]", headers={"Content-Type": "application/json"}
    )
    assert (status, error["id"]) == (422, "VALIDATION_FAILED")
    ok = agent.request(
        "POST",
        "/v1/sessions",
        content=b'{"name":"media-ok"}',
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert ok.status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"nam": "x"}, "nam"),
        ({"name": 5}, "name"),
        ({"name": ""}, "name"),
        ({"image_size_limit_kb": 0}, "image_size_limit_kb"),
        ({"image_size_limit_kb": 1_048_577}, "image_size_limit_kb"),
        ({"image_blocking_mode": "some"}, "image_blocking_mode"),
        ({"lifetime": {"type": "forever"}}, "lifetime.type"),
        ({"lifetime": {"type": "inactivity", "timeout_seconds": 0}}, "lifetime.timeout_seconds"),
        ({"block_images": True}, "block_images"),
    ],
)
def test_closed_bodies_name_the_offending_field(
    agent: AgentProcess, body: dict[str, object], field: str
) -> None:
    status, error = agent.error("POST", "/v1/sessions", body)
    assert (status, error["id"], error["details"]["field"]) == (422, "VALIDATION_FAILED", field)


def test_oversized_body_is_refused_from_its_header(agent: AgentProcess) -> None:
    size = 16 * 1024 * 1024 + 1
    head = (
        f"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    # Only the header is sent: the answer must not wait for (or buffer) the 16 MiB body.
    reply = raw_request(agent, head + b"{")
    assert reply.startswith(b"HTTP/1.1 413")
    assert b'"PAYLOAD_TOO_LARGE"' in reply
    assert b"connection: close" in reply.lower()


def test_oversized_chunked_body_is_refused(agent: AgentProcess) -> None:
    big = b"x" * (17 * 1024 * 1024)
    with httpx.Client(base_url=agent.base_url, timeout=30, trust_env=False) as client:

        def chunks() -> Iterator[bytes]:
            for i in range(0, len(big), 1 << 20):
                yield big[i : i + (1 << 20)]

        try:
            response = client.post(
                "/v1/sessions", content=chunks(), headers={"Content-Type": "application/json"}
            )
        except httpx.TransportError:
            return  # the agent may close the connection before the whole body is written
    assert response.status_code == 413
    assert response.json()["error"]["id"] == "PAYLOAD_TOO_LARGE"


def test_a_body_of_exactly_the_limit_is_read(agent: AgentProcess) -> None:
    padding = 16 * 1024 * 1024 - len(b'{"name":"big","":""}')
    body = b'{"name":"big","' + b" " * 0 + b'":"' + b"a" * padding + b'"}'
    body = body[: 16 * 1024 * 1024]
    status, error = agent.error(
        "POST", "/v1/sessions", content=body, headers={"Content-Type": "application/json"}
    )
    # Read and parsed (so a 4xx about its content), not refused as too large.
    assert error["id"] in {"VALIDATION_FAILED", "INVALID_REQUEST"}
    assert status != 413


@pytest.mark.parametrize(
    "host", ["evil.test", "evil.test:17319", "127.0.0.1.evil.test", "10.0.0.1"]
)
def test_dns_rebinding_hosts_are_refused(agent: AgentProcess, host: str) -> None:
    status, error = agent.error("GET", "/v1/health", headers={"Host": host})
    assert (status, error["id"]) == (400, "INVALID_REQUEST")
    assert error["details"]["host"] == host


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "LOCALHOST:80", "[::1]:17319"])
def test_loopback_hosts_are_accepted(agent: AgentProcess, host: str) -> None:
    assert agent.request("GET", "/v1/health", headers={"Host": host}).status_code == 200


def test_listens_on_loopback_only(agent: AgentProcess) -> None:
    # The kernel's table of listening sockets: the agent's port is bound to 127.0.0.1 alone.
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port = local.rsplit(":", 1)
            if state == "0A" and int(port, 16) == agent.port:  # 0A = LISTEN
                listening.add(address)
    assert listening == {"0100007F"}  # 127.0.0.1, little-endian hex


def test_the_agent_closes_the_connection_after_each_response(agent: AgentProcess) -> None:
    # One request per connection: a client reading to end-of-stream must get it, even when the
    # request asked for nothing about the connection.
    for request in (
        b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"GET /v1/nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n",
    ):
        with socket.create_connection(("127.0.0.1", agent.port), timeout=5) as sock:
            sock.sendall(request)
            reply = b""
            while chunk := sock.recv(65536):  # a hang here times out: the test fails
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 ")
        assert b"connection: close" in reply.lower()


def test_no_static_files_route(agent: AgentProcess) -> None:
    for method in ("GET", "OPTIONS"):
        status, error = agent.error(method, "/static/x")
        assert (status, error["id"]) == (404, "ROUTE_NOT_FOUND")


def _exchange(agent: AgentProcess, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", agent.port), timeout=5) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


def test_h2c_upgrades_and_http2_prefaces_are_not_honoured(agent: AgentProcess) -> None:
    """Issue 12: the contract is one HTTP/1.1 request per connection."""
    reply = _exchange(
        agent,
        b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\n"
        b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
    )
    assert reply.startswith(b"HTTP/1.1 200"), reply[:200]
    assert b"101" not in reply.split(b"\r\n", 1)[0]
    reply = _exchange(agent, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    assert not reply.startswith(b"\x00"), reply[:50]  # no HTTP/2 SETTINGS frame
    assert reply.startswith(b"HTTP/1.1 4"), reply[:200]


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /v1/health HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n",
        b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n",
        b"G@T /v1/health HTTP/1.1\r\n\r\n",
    ],
)
def test_malformed_http_gets_the_envelope(agent: AgentProcess, request_bytes: bytes) -> None:
    reply = _exchange(agent, request_bytes)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith((b"HTTP/1.1 400", b"HTTP/1.1 413")), reply[:200]
    envelope = json.loads(body)
    assert envelope["status"] == "error"
    assert envelope["error"]["id"] in ("INVALID_REQUEST", "PAYLOAD_TOO_LARGE")
    assert f"x-request-id: {envelope['request_id']}".encode() in head.lower()
    assert agent.ok("GET", "/v1/health")
