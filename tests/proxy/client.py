"""Blocking browser-side helpers: talk to a profile proxy listener like the engine does."""

from __future__ import annotations

import http.client
import socket
import time
from dataclasses import dataclass


@dataclass
class Answer:
    status: int
    reason: str
    headers: dict[str, str]
    body: bytes


def _read_answer(sock: socket.socket, *, head_only: bool = False) -> tuple[Answer, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before an answer: {data!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    _, status, reason = [*lines[0].split(" ", 2), ""][:3]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if head_only:
        return Answer(int(status), reason, headers, b""), rest
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return Answer(int(status), reason, headers, rest[:length]), rest[length:]


def tunnel(
    port: int, authority: str, timeout: float = 10, *, http10_without_host: bool = False
) -> tuple[Answer, socket.socket]:
    """CONNECT through the listener; the socket is the tunnel when the answer is 200."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    head = (
        f"CONNECT {authority} HTTP/1.0\r\n"
        if http10_without_host
        else f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n"
    )
    sock.sendall(
        f"{head}User-Agent: test\r\n"
        "Proxy-Authorization: Basic Y2xpZW50OmNsaWVudA==\r\n\r\n".encode()
    )
    answer, rest = _read_answer(sock, head_only=True)
    if answer.status == 200:
        assert rest == b""
    else:
        length = int(answer.headers.get("content-length", "0"))
        body = rest
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
        answer.body = body
    return answer, sock


def get_in_tunnel(sock: socket.socket, authority: str, path: str) -> Answer:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n".encode())
    answer, _ = _read_answer(sock)
    return answer


def forward(
    port: int,
    url: str,
    *,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    conn: http.client.HTTPConnection | None = None,
) -> Answer:
    """One absolute-form request through the listener (on `conn` to test keep-alive)."""
    own = conn is None
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request(method, url, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read()
        return Answer(r.status, r.reason, {k.lower(): v for k, v in r.getheaders()}, data)
    finally:
        if own:
            c.close()


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def wait_until(predicate: object, timeout: float = 10, interval: float = 0.05) -> None:
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        time.sleep(interval)
