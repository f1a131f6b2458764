"""The relay on real loopback sockets: listeners in this trio loop, a test upstream proxy that
requires Basic auth, and a test origin. The browser side runs in worker threads (blocking
sockets), as the engine is another process."""

from __future__ import annotations

import base64
import http.client
import json
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio

from proxy import Diagnostics, ProxyListeners, Upstream

from ..ports import free_port, listener_base
from .client import forward, get_in_tunnel, refused, tunnel
from .servers import Origin, Refusal, UpstreamProxy

USER, PASSWORD = "upuser", "up-secret-pw"


@pytest.fixture
def upstream() -> Iterator[UpstreamProxy]:
    with UpstreamProxy(USER, PASSWORD) as proxy:
        yield proxy


@pytest.fixture
def origin() -> Iterator[Origin]:
    with Origin() as server:
        yield server


class World:
    def __init__(self, upstream: UpstreamProxy) -> None:
        self.assignments: dict[int, Upstream] = {
            1: Upstream("127.0.0.1", upstream.port, "PX", USER, PASSWORD)
        }
        self.lookups = 0
        self.logs: list[tuple[str, str, str, int | None, dict[str, Any]]] = []
        self.listeners = ProxyListeners(
            listener_base(),  # session N listens on base + N - 1: below the ephemeral range
            lookup=self.lookup,
            proxied=lambda: list(self.assignments),
            diagnostics=Diagnostics(),
            log=lambda *record: self.logs.append(record),
            poll_interval=0.05,
            connect_timeout=5,
        )

    def lookup(self, session: int) -> Upstream | None:
        self.lookups += 1
        return self.assignments.get(session)

    @property
    def port(self) -> int:
        return self.listeners.port_for(1)


@asynccontextmanager
async def running(upstream: UpstreamProxy) -> AsyncIterator[World]:
    world = World(upstream)
    async with trio.open_nursery() as nursery:
        await nursery.start(world.listeners.run)
        yield world
        nursery.cancel_scope.cancel()


async def in_thread(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    return await trio.to_thread.run_sync(lambda: fn(*args, **kw))


def secrets_absent(text: str | bytes) -> None:
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    for secret in (PASSWORD, token, USER):
        assert secret not in text


async def test_plain_http_is_relayed_with_our_credentials(
    upstream: UpstreamProxy, origin: Origin
) -> None:
    async with running(upstream) as world:
        answer = await in_thread(
            forward,
            world.port,
            origin.url("/hello?x=1"),
            headers={"Proxy-Authorization": "Basic Y2xpZW50OmNsaWVudA==", "X-Test": "yes"},
        )
    assert answer.status == 200
    echoed = json.loads(answer.body)
    assert echoed["path"] == "/hello?x=1"
    assert echoed["headers"]["x-test"] == "yes"
    assert not any(h.startswith("proxy-") for h in echoed["headers"])
    (seen,) = upstream.seen
    assert (seen.method, seen.target) == ("GET", origin.url("/hello?x=1"))
    assert (seen.username, seen.password, seen.authorized) == (USER, PASSWORD, True)
    secrets_absent(json.dumps(answer.headers))


async def test_keep_alive_requests_and_bodies(upstream: UpstreamProxy, origin: Origin) -> None:
    async with running(upstream) as world:

        def two_requests() -> list[Any]:
            conn = http.client.HTTPConnection("127.0.0.1", world.port, timeout=10)
            try:
                a = forward(world.port, origin.url("/one"), conn=conn)
                b = forward(
                    world.port, origin.url("/two"), method="POST", body=b"x" * 200_000, conn=conn
                )
                return [a, b]
            finally:
                conn.close()

        a, b = await in_thread(two_requests)
        assert world.lookups == 1  # the assignment is read once per connection
    assert json.loads(a.body)["path"] == "/one"
    assert b.status == 200, (b.status, b.body[:300])
    second = json.loads(b.body)
    assert (second["method"], len(second["body"])) == ("POST", 200_000)
    assert [s.target for s in upstream.seen] == [origin.url("/one"), origin.url("/two")]


@pytest.mark.parametrize("http10", [False, True], ids=["http11", "http10-without-host"])
async def test_connect_tunnels_bytes_both_ways(
    upstream: UpstreamProxy, origin: Origin, http10: bool
) -> None:
    async with running(upstream) as world:

        def through() -> Any:
            answer, sock = tunnel(world.port, origin.authority, http10_without_host=http10)
            with sock:
                assert (answer.status, answer.reason) == (200, "Connection established")
                return get_in_tunnel(sock, origin.authority, "/inside")

        inside = await in_thread(through)
    assert json.loads(inside.body)["path"] == "/inside"
    (seen,) = upstream.seen
    assert (seen.method, seen.target, seen.authorized) == ("CONNECT", origin.authority, True)
    assert seen.headers["user-agent"] == "test"


@pytest.mark.parametrize(
    ("refusal", "client_status"),
    [
        (None, 502),  # wrong credentials: the test proxy answers 407
        (
            Refusal(
                403,
                "Forbidden",
                [
                    ("Proxy-Status", "up; error=destination_ip_prohibited"),
                    ("X-ProviderY-Error", "target blocked"),
                    ("Set-Cookie", "unrelated=1"),
                ],
            ),
            403,
        ),
    ],
)
async def test_refused_tunnels_keep_diagnostics_without_credentials(
    upstream: UpstreamProxy, origin: Origin, refusal: Refusal | None, client_status: int
) -> None:
    upstream.refuse = refusal
    async with running(upstream) as world:
        if refusal is None:
            world.assignments[1] = Upstream("127.0.0.1", upstream.port, "PX", USER, "wrong-pw")
        answer, sock = await in_thread(tunnel, world.port, origin.authority)
        sock.close()
        failure = world.listeners.diagnostics.latest(1, "px", origin.authority, since=0)
    assert answer.status == client_status
    assert "proxy-authenticate" not in answer.headers
    secrets_absent(answer.body)
    assert failure is not None
    lines = failure.source.splitlines()
    if refusal is None:
        assert lines[0].endswith("HTTP/1.1 407 Proxy Authentication Required")
        assert lines[1:] == ["Proxy-Status: testproxy; error=auth_required"]
        assert "wrong-pw" not in failure.source
    else:
        assert lines[0] == (
            f"upstream proxy refused CONNECT {origin.authority}: HTTP/1.1 403 Forbidden"
        )
        assert lines[1:] == [
            "Proxy-Status: up; error=destination_ip_prohibited",
            "X-Providery-Error: target blocked",
        ]
    secrets_absent(failure.source)
    secrets_absent(json.dumps(world.logs))


async def test_a_plain_request_refused_with_407_is_a_502(
    upstream: UpstreamProxy, origin: Origin
) -> None:
    async with running(upstream) as world:
        world.assignments[1] = Upstream("127.0.0.1", upstream.port, "PX", "someone", "nope")
        answer = await in_thread(forward, world.port, origin.url("/x"))
        failure = world.listeners.diagnostics.latest(1, "PX", origin.authority, since=0)
    assert answer.status == 502
    assert "proxy-authenticate" not in answer.headers
    assert b"nope" not in answer.body
    assert b"someone" not in answer.body
    assert failure is not None
    assert "407" in failure.source


async def test_an_unreachable_upstream_is_a_502_with_its_cause(
    upstream: UpstreamProxy, origin: Origin
) -> None:
    dead = free_port()  # nothing listens there once the probe socket is closed
    world = World(upstream)
    world.assignments[1] = Upstream("127.0.0.1", dead, "Dead", "u", "secret-pw")
    async with trio.open_nursery() as nursery:
        await nursery.start(world.listeners.run)
        plain = await in_thread(forward, world.port, origin.url("/"))
        connect, sock = await in_thread(tunnel, world.port, origin.authority)
        sock.close()
        nursery.cancel_scope.cancel()
    assert plain.status == connect.status == 502
    failure = world.listeners.diagnostics.latest(1, "dead", origin.authority, since=0)
    assert failure is not None
    assert failure.source.startswith(f"cannot connect to upstream proxy 127.0.0.1:{dead}")
    assert b"secret-pw" not in plain.body + connect.body


async def test_listeners_follow_the_proxied_sessions_and_each_connection_reloads(
    upstream: UpstreamProxy, origin: Origin
) -> None:
    other = UpstreamProxy(None, "other-pw")
    other.start()
    try:
        async with running(upstream) as world:
            listeners = world.listeners
            assert listeners.ports == {1: listeners.base_port}
            assert await in_thread(refused, listeners.port_for(3))
            world.assignments[3] = Upstream("127.0.0.1", upstream.port, "PX", USER, PASSWORD)
            listeners.changed()
            with trio.fail_after(5):
                while 3 not in listeners.ports:
                    await trio.sleep(0.01)
            assert (await in_thread(forward, listeners.port_for(3), origin.url("/3"))).status == 200
            # reassignment: the next connection uses the new upstream
            world.assignments[3] = Upstream("127.0.0.1", other.port, "Other", "x", "other-pw")
            assert (
                await in_thread(forward, listeners.port_for(3), origin.url("/3b"))
            ).status == 200
            assert [s.target for s in other.seen] == [origin.url("/3b")]
            # detached: the listener goes away (found by the poll, no changed() call)
            del world.assignments[3]
            with trio.fail_after(5):
                while 3 in listeners.ports:
                    await trio.sleep(0.01)
            assert await in_thread(refused, listeners.port_for(3))
            # and comes back on the same port
            world.assignments[3] = Upstream("127.0.0.1", upstream.port, "PX", USER, PASSWORD)
            listeners.changed()
            with trio.fail_after(5):
                while 3 not in listeners.ports:
                    await trio.sleep(0.01)
            assert (
                await in_thread(forward, listeners.port_for(3), origin.url("/3c"))
            ).status == 200
        assert not listeners.running
        assert await in_thread(refused, listeners.port_for(1))
    finally:
        other.stop()
    assert [c for c, *_ in world.logs].count("proxy.listener_started") == 3


async def test_a_session_without_proxy_gets_a_502(upstream: UpstreamProxy, origin: Origin) -> None:
    async with running(upstream) as world:
        world.listeners._proxied = lambda: [1]  # listening, but the lookup finds nothing now
        world.assignments.clear()
        answer = await in_thread(forward, world.port, origin.url("/"))
    assert answer.status == 502
    assert upstream.seen == []


async def test_a_busy_port_is_reported_and_retried(upstream: UpstreamProxy) -> None:
    world = World(upstream)
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", world.port))
    blocker.listen(1)
    async with trio.open_nursery() as nursery:
        await nursery.start(world.listeners.run)
        assert world.listeners.ports == {}
        assert world.listeners.failed[1]
        blocker.close()
        with trio.fail_after(5):
            while 1 not in world.listeners.ports:
                await trio.sleep(0.01)
        assert world.listeners.failed == {}
        nursery.cancel_scope.cancel()
    assert [c for c, *_ in world.logs].count("proxy.listener_failed") == 1


async def test_cancellation_closes_open_tunnels(upstream: UpstreamProxy, origin: Origin) -> None:
    async with running(upstream) as world:
        answer, sock = await in_thread(tunnel, world.port, origin.authority)
        assert answer.status == 200
    with sock:
        sock.settimeout(5)
        assert await in_thread(sock.recv, 10) == b""  # the agent's end is closed


async def test_bad_requests_are_answered_by_the_proxy(upstream: UpstreamProxy) -> None:
    async with running(upstream) as world:

        def exchange(data: bytes) -> bytes:
            out = b""
            with socket.create_connection(("127.0.0.1", world.port), timeout=5) as s:
                try:
                    s.sendall(data)
                    while chunk := s.recv(65536):
                        out += chunk
                except ConnectionResetError:  # closed while we were still sending
                    pass
                return out

        origin_form = await in_thread(exchange, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        garbage = await in_thread(exchange, b"\x16\x03\x01 not http\r\n\r\n")
        huge = await in_thread(
            exchange, b"GET http://a/ HTTP/1.1\r\nHost: a\r\nX: " + b"y" * 300_000 + b"\r\n\r\n"
        )
    assert origin_form.startswith(b"HTTP/1.1 400 ")
    assert garbage.startswith(b"HTTP/1.1 400 ")
    assert huge == b"" or huge.startswith(b"HTTP/1.1 431 ")  # a head over the bound
    assert upstream.seen == []


async def test_settled_returns_once_a_new_listener_is_bound(upstream: UpstreamProxy) -> None:
    """A route change answers only when the session's listener listens (agent/engine_client.py
    waits on `settled` before the host gets settings with a listener port): after `changed()`,
    `settled()` returns with the port bound, though the poll is far away."""
    world = World(upstream)
    world.assignments.clear()
    world.listeners._poll = 3600.0  # only a change can bring the listener up
    async with trio.open_nursery() as nursery:
        await nursery.start(world.listeners.run)
        assert world.listeners.ports == {}
        world.assignments[2] = Upstream("127.0.0.1", upstream.port, "PX", USER, PASSWORD)
        world.listeners.changed()
        await world.listeners.settled()
        assert world.listeners.ports == {2: world.listeners.port_for(2)}
        conn = await trio.open_tcp_stream("127.0.0.1", world.listeners.port_for(2))
        await conn.aclose()
        await world.listeners.settled()  # nothing asked since: returns at once
        nursery.cancel_scope.cancel()
