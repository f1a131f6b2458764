"""Issue 12 point 5: integers out of range are 400, never 500; an unsigned request is refused
before its body is read, and a body over the route's bound is refused as declared."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import pytest

from .client import Key, Sigchain
from .conftest import Api
from .process import KeyServerProcess

HUGE = [2**63, 2**64, 10**30]


@pytest.mark.parametrize("value", HUGE)
def test_huge_integers_in_paths_and_queries_are_400(api: Api, value: int) -> None:
    key = Key.generate()
    assert api.post_items(key, [b"x"]).status_code == 200
    r = api.vault("GET", key, query=f"idx={value}")
    assert r.status_code == 400, r.text
    r = api.vault("GET", key, query=f"limit={value}")
    assert r.status_code == 400, r.text
    chain = Sigchain(key)
    api.add(chain, chain.next(b"first"))
    r = api.http.get(f"{api.base}/sigchain/{key.kid}/{value}")
    assert r.status_code == 400, r.text
    r = api.http.get(f"{api.base}/user/search", params={"limit": str(value)})
    assert r.status_code == 400, r.text


@pytest.mark.parametrize("field", ["seq", "ts", "revoke"])
@pytest.mark.parametrize("value", HUGE)
def test_huge_integers_in_statements_are_400(api: Api, field: str, value: int) -> None:
    key = Key.generate()
    chain = Sigchain(key)
    if field == "revoke":
        api.add(chain, chain.next(b"first"))
    st = chain.next(b"data", revoke=1 if field == "revoke" else 0)
    setattr(st, field, value)
    st.sig = key.sign_detached(st.bytes_to_sign())
    r = api.put_statement(st)
    assert r.status_code == 400, r.text
    # and unsigned garbage of the same shape
    raw = st.to_bytes()
    assert api.http.put(f"{api.base}/sigchain/{key.kid}/1", content=raw).status_code == 400


def _raw_request(base: str, head: str, timeout: float = 5) -> bytes:
    """Send only the head of a request (no body) and read what the server answers."""
    parts = urlsplit(base)
    assert parts.hostname is not None
    assert parts.port is not None
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as s:
        s.sendall(head.encode())
        chunks = []
        while True:
            try:
                data = s.recv(65536)
            except TimeoutError:
                break
            if not data:
                break
            chunks.append(data)
            if b"\r\n\r\n" in b"".join(chunks):
                break
        return b"".join(chunks)


@pytest.mark.parametrize(
    "authorization",
    ["", "Authorization: nonsense\r\n", "Authorization: {kid}:AAAA\r\n"],
)
def test_an_unsigned_upload_is_refused_before_its_body(
    server: KeyServerProcess, authorization: str
) -> None:
    key = Key.generate()
    head = (
        f"POST /vault/{key.kid} HTTP/1.1\r\nHost: x\r\n"
        + authorization.format(kid=key.kid)
        + f"Content-Length: {60 * 1024 * 1024}\r\nContent-Type: application/json\r\n\r\n"
    )
    answer = _raw_request(server.url, head)
    assert answer.startswith(b"HTTP/1.1 403"), answer[:200]


def test_a_declared_body_over_the_bound_is_refused_at_once(api: Api) -> None:
    key = Key.generate()
    head = f"PUT /sigchain/{key.kid}/1 HTTP/1.1\r\nHost: x\r\nContent-Length: {2 * 1024 * 1024}\r\n\r\n"
    answer = _raw_request(api.base, head)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
