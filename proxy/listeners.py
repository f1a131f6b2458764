"""Profile proxy listeners (spec 1 §1): one loopback listener per proxied session at
base_port + (N - 1), relaying plain HTTP and CONNECT tunnels to the session's upstream proxy.

The trio adapter around `proxy.http` (message rules), `proxy.auth` (credentials) and
`proxy.diagnostics` (failure causes). It owns every socket, and it is the one place where I/O
failures are translated: a failure of the upstream becomes a 502 to the browser (never a 407:
the credentials are the agent's) plus a diagnostic; a client that goes away just ends its
connection; nothing a connection does can end its listener or the agent.

Which sessions listen: the agent supplies `proxied()` (session numbers that have a proxy);
`changed()` wakes the reconciliation at once (the agent calls it when a session's proxy
changes), and a cheap poll every `poll_interval` seconds catches the rest (a deleted proxy).
Each connection calls `lookup(N)` once, so it uses the session's current assignment.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import h11
import trio

from bridge_protocol.session_ids import format_session_id

from .auth import Upstream
from .diagnostics import Diagnostics
from .http import (
    MAX_HEAD,
    ProxyRequest,
    ProxyRequestError,
    classify,
    client_headers,
    refused_status,
    rejection_text,
    simple_response,
    with_authorization,
)

CHUNK = 64 * 1024  # the most read from a socket at a time
CONNECT_TIMEOUT = 30.0  # opening the upstream connection
HEAD_TIMEOUT = 30.0  # the upstream's answer to CONNECT
IDLE_TIMEOUT = 120.0  # a kept-alive client connection waiting for its next request
POLL_INTERVAL = 1.0
# how long a route change waits for its listener to be bound
SETTLE_TIMEOUT = 5.0

Lookup = Callable[[int], Upstream | None]
# (category, level, message, session number or None, data)
Log = Callable[[str, str, str, int | None, dict[str, Any]], None]

_PEER_GONE = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


def _no_log(category: str, level: str, message: str, session: int | None, data: Any) -> None:
    return None


class _UpstreamFailed(Exception):
    """Connecting to or talking with the upstream failed before it answered."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


class _Abort(Exception):
    """The exchange cannot go on (a peer went away mid-message): close the client."""


async def _next_event(conn: h11.Connection, stream: trio.abc.ReceiveStream) -> Any:
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            conn.receive_data(bytes(await stream.receive_some(CHUNK)))
            continue
        return event


@dataclass
class _Listener:
    session: int
    port: int
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    done: trio.Event = field(default_factory=trio.Event)


class ProxyListeners:
    def __init__(  # noqa: PLR0913  optional collaborators and timeouts
        self,
        base_port: int,
        lookup: Lookup | None = None,
        proxied: Callable[[], Iterable[int]] | None = None,
        *,
        host: str = "127.0.0.1",
        diagnostics: Diagnostics | None = None,
        log: Log | None = None,
        poll_interval: float = POLL_INTERVAL,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        self.base_port = base_port
        self.host = host
        self.diagnostics = diagnostics if diagnostics is not None else Diagnostics()
        self.running = False
        self.failed: dict[int, str] = {}  # session -> why its listener could not bind
        self._lookup: Lookup = lookup or (lambda session: None)
        self._proxied = proxied or (lambda: ())
        self._log = log or _no_log
        self._poll = poll_interval
        self.connect_timeout = connect_timeout
        self._listeners: dict[int, _Listener] = {}
        self._stopping: dict[int, _Listener] = {}
        self._wake = trio.Event()
        # session -> the cancel scopes of its open connections (cut on a route change)
        self._open: dict[int, set[trio.CancelScope]] = {}
        # changes asked for, and the last one a reconcile pass has caught up with
        self._asked = 0
        self._caught_up = 0
        self._reconciled = trio.Event()

    # --- what listens --------------------------------------------------------------------------

    def port_for(self, session: int) -> int:
        return self.base_port + session - 1

    @property
    def ports(self) -> dict[int, int]:
        """Session number -> port of every listener that is up."""
        return {n: self._listeners[n].port for n in sorted(self._listeners)}

    def changed(self) -> None:
        """Some session's proxy assignment changed: reconcile now instead of at the next poll."""
        self._asked += 1
        self._wake.set()

    async def settled(self) -> None:
        """Until a reconcile pass has caught up with every change asked for so far, so that a
        session given a proxy has its listener bound (bounded: a bind that fails is reported by
        the listeners themselves, and the engine's load then fails with the relay's cause)."""
        wanted = self._asked
        with trio.move_on_after(SETTLE_TIMEOUT):
            while self.running and self._caught_up < wanted:
                await self._reconciled.wait()

    def cut(self, sessions: Iterable[int]) -> int:
        """End every open connection of these sessions (returns how many). A connection keeps
        the upstream it looked up when it opened (a keep-alive relay, a CONNECT tunnel), so after
        a route change (another proxy, or the proxy's upstream, credentials or targeting) the
        engine must reconnect and look the route up again: nothing more leaves by the old one."""
        ended = 0
        for session in sessions:
            for scope in self._open.get(session, ()):
                scope.cancel()
                ended += 1
        return ended

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Bind the listeners of the sessions proxied now, report started, then keep the set
        of listeners equal to the set of proxied sessions until cancelled."""
        try:
            async with trio.open_nursery() as nursery:
                await self._reconcile(nursery)
                self.running = True
                task_status.started()
                while True:
                    with trio.move_on_after(self._poll):
                        await self._wake.wait()
                    self._wake = trio.Event()
                    asked = self._asked
                    await self._reconcile(nursery)
                    self._caught_up = asked
                    self._reconciled.set()
                    self._reconciled = trio.Event()
        finally:
            self.running = False
            self._listeners.clear()
            self._stopping.clear()

    async def _reconcile(self, nursery: trio.Nursery) -> None:
        try:
            wanted = set(self._proxied())
        except Exception as exc:  # a store hiccup must not end the listeners
            self._log(
                "proxy.listeners_failed", "error", f"cannot read proxied sessions: {exc}", None, {}
            )
            return
        for session in [n for n in self._listeners if n not in wanted]:
            listener = self._listeners.pop(session)
            listener.scope.cancel()
            self._stopping[session] = listener
            self._log(
                "proxy.listener_stopped",
                "info",
                f"proxy listener of Session{session} on port {listener.port} stopped",
                session,
                {"port": listener.port},
            )
        for session in [n for n in self.failed if n not in wanted]:
            del self.failed[session]
            self.diagnostics.bound(session)
        for session in sorted(wanted - self._listeners.keys()):
            await self._start(nursery, session)

    async def _start(self, nursery: trio.Nursery, session: int) -> None:
        port = self.port_for(session)
        old = self._stopping.pop(session, None)
        if old is not None:
            await old.done.wait()  # its socket is closed once its task has ended
        if not 1 <= port <= 65535:
            self._bind_failed(session, port, f"port {port} is outside 1-65535")
            return
        try:
            sockets = await trio.open_tcp_listeners(port, host=self.host)
        except OSError as exc:
            self._bind_failed(session, port, str(exc))
            return
        self.failed.pop(session, None)
        self.diagnostics.bound(session)
        listener = _Listener(session, port)
        self._listeners[session] = listener
        self._log(
            "proxy.listener_started",
            "info",
            f"proxy listener of Session{session} on {self.host}:{port}",
            session,
            {"port": port},
        )
        nursery.start_soon(self._serve, listener, sockets)

    def _bind_failed(self, session: int, port: int, cause: str) -> None:
        if self.failed.get(session) != cause:
            self._log(
                "proxy.listener_failed",
                "error",
                f"proxy listener of Session{session} cannot listen on port {port}: {cause}",
                session,
                {"port": port},
            )
        self.failed[session] = cause
        self.diagnostics.unbound(session, f"cannot listen on port {port}: {cause}")

    async def _serve(self, listener: _Listener, sockets: list[trio.SocketListener]) -> None:
        try:
            with listener.scope:
                async with trio.open_nursery() as connections:
                    await trio.serve_listeners(
                        functools.partial(self._connection, listener.session),
                        sockets,
                        handler_nursery=connections,
                    )
        except OSError as exc:  # accept() failed for good
            if self._listeners.get(listener.session) is listener:
                del self._listeners[listener.session]
            self._bind_failed(listener.session, listener.port, str(exc))
        finally:
            with trio.CancelScope(shield=True):
                for sock in sockets:
                    await sock.aclose()
            listener.done.set()

    async def _connection(self, session: int, stream: trio.SocketStream) -> None:
        scopes = self._open.setdefault(session, set())
        scope = trio.CancelScope()
        scopes.add(scope)
        try:
            with scope:
                async with stream:
                    await _Relay(self, session, stream).serve()
        except (*_PEER_GONE, h11.ProtocolError, _Abort):
            return
        except Exception as exc:  # one connection's bug must not end the listener
            self._log(
                "proxy.relay_failed",
                "error",
                f"unexpected relay failure on Session{session}: {type(exc).__name__}",
                session,
                {},
            )
        finally:
            scopes.discard(scope)

    # used by _Relay
    def lookup(self, session: int) -> Upstream | None:
        return self._lookup(session)

    def log(self, category: str, level: str, message: str, session: int, data: Any) -> None:
        self._log(category, level, message, session, data)


class _UpstreamConnection:
    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)

    async def send(self, event: Any) -> None:
        data = self.conn.send(event)
        if data:
            await self.stream.send_all(data)

    async def next_event(self) -> Any:
        return await _next_event(self.conn, self.stream)

    def reusable(self) -> bool:
        return self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE

    async def aclose(self) -> None:
        await self.stream.aclose()


class _Relay:
    """One browser connection to a listener (sequential keep-alive requests or one tunnel)."""

    def __init__(self, owner: ProxyListeners, session: int, stream: trio.SocketStream) -> None:
        self.owner = owner
        self.session = session
        self.stream = stream
        self.client = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        self.upstream: Upstream | None = None
        self.up: _UpstreamConnection | None = None

    async def serve(self) -> None:
        try:
            await self._serve()
        finally:
            if self.up is not None:
                await self.up.aclose()

    async def _serve(self) -> None:
        looked_up = False
        while True:
            event: Any = None
            with trio.move_on_after(IDLE_TIMEOUT):
                try:
                    event = await _next_event(self.client, self.stream)
                except h11.RemoteProtocolError as exc:
                    await self._answer(exc.error_status_hint, "malformed request")
                    return
            if not isinstance(event, h11.Request):
                return  # closed, timed out, or paused
            try:
                request = classify(event)
            except ProxyRequestError as exc:
                await self._answer(exc.status, exc.message)
                return
            if not looked_up:
                looked_up = True
                try:
                    self.upstream = self.owner.lookup(self.session)
                except Exception as exc:
                    self.owner.log(
                        "proxy.lookup_failed",
                        "error",
                        f"cannot read the proxy of Session{self.session}: {type(exc).__name__}",
                        self.session,
                        {},
                    )
                    await self._answer(502, "the session's proxy assignment cannot be read")
                    return
            if self.upstream is None:
                await self._answer(502, f"{format_session_id(self.session)} has no proxy assigned")
                return
            if request.is_connect:
                await self._tunnel(request, self.upstream)
                return
            if not await self._forward(request, self.upstream):
                return
            if self.client.our_state is not h11.DONE or self.client.their_state is not h11.DONE:
                return
            self.client.start_next_cycle()

    # --- talking to the client -----------------------------------------------------------------

    async def _send(self, event: Any) -> None:
        data = self.client.send(event)
        if data:
            await self.stream.send_all(data)

    async def _answer(self, status: int, text: str) -> None:
        """The proxy's own answer; the connection closes after it."""
        if self.client.our_state not in (h11.IDLE, h11.SEND_RESPONSE):  # IDLE: after bad bytes
            return
        response, body = simple_response(status, text)
        with suppress(h11.LocalProtocolError):
            await self._send(response)
            await self._send(h11.Data(data=body))
            await self._send(h11.EndOfMessage())

    def _failure(self, request: ProxyRequest, upstream: Upstream, source: str) -> str:
        failure = self.owner.diagnostics.record(
            self.session,
            upstream.alias,
            request.target.authority,
            source,
            at=trio.current_time(),
            secrets=upstream.secrets(),
        )
        self.owner.log(
            "proxy.upstream_failed",
            "warning",
            f"{format_session_id(self.session)} via proxy {upstream.alias}: {failure.source}",
            self.session,
            {"proxy_alias": upstream.alias, "destination": request.target.authority},
        )
        return failure.source

    async def _fail(self, request: ProxyRequest, upstream: Upstream, cause: str) -> None:
        source = self._failure(request, upstream, cause)
        await self._answer(502, f"proxy {upstream.alias}: {source}")

    # --- the upstream ----------------------------------------------------------------------------

    async def _open(self, upstream: Upstream) -> _UpstreamConnection:
        seconds = self.owner.connect_timeout
        try:
            with trio.fail_after(seconds):
                stream = await trio.open_tcp_stream(upstream.host, upstream.port)
        except trio.TooSlowError:
            raise _UpstreamFailed(
                f"connecting to upstream proxy {upstream.address} timed out after {seconds:g} s"
            ) from None
        except OSError as exc:
            raise _UpstreamFailed(
                f"cannot connect to upstream proxy {upstream.address}: {exc}"
            ) from None
        return _UpstreamConnection(stream)

    # --- CONNECT -----------------------------------------------------------------------------

    async def _tunnel(self, request: ProxyRequest, upstream: Upstream) -> None:
        await _next_event(self.client, self.stream)  # the CONNECT's (empty) end of message
        try:
            up = await self._open(upstream)
        except _UpstreamFailed as exc:
            await self._fail(request, upstream, exc.cause)
            return
        self.up = up
        headers = with_authorization(request.headers, upstream.authorization())
        try:
            await up.send(
                h11.Request(method=b"CONNECT", target=request.request_target, headers=headers)
            )
            await up.send(h11.EndOfMessage())
            with trio.fail_after(HEAD_TIMEOUT):
                event = await up.next_event()
                while isinstance(event, h11.InformationalResponse):
                    event = await up.next_event()
        except trio.TooSlowError:
            await self._fail(
                request,
                upstream,
                f"upstream proxy {upstream.address} did not answer CONNECT "
                f"{request.target.authority} within {HEAD_TIMEOUT:g} s",
            )
            return
        except (*_PEER_GONE, h11.RemoteProtocolError) as exc:
            await self._fail(
                request, upstream, f"upstream proxy {upstream.address} failed during CONNECT: {exc}"
            )
            return
        if not isinstance(event, h11.Response):
            await self._fail(
                request,
                upstream,
                f"upstream proxy {upstream.address} closed the connection without answering "
                f"CONNECT {request.target.authority}",
            )
            return
        if not 200 <= event.status_code < 300:
            self._failure(request, upstream, rejection_text(b"CONNECT", request.target, event))
            await self._answer(
                refused_status(event.status_code),
                f"proxy {upstream.alias} refused the tunnel to {request.target.authority} "
                f"(upstream HTTP {event.status_code})",
            )
            return
        upstream_early = up.conn.trailing_data[0]
        await self._send(
            h11.Response(status_code=200, headers=[], reason=b"Connection established")
        )
        client_early = self.client.trailing_data[0]
        await _splice(self.stream, up.stream, client_early, upstream_early)

    # --- plain HTTP --------------------------------------------------------------------------

    # PLR0912: one relay with its reuse, retry and failure paths
    async def _forward(self, request: ProxyRequest, upstream: Upstream) -> bool:  # noqa: PLR0912
        """Relay one request and its response; whether the client connection may go on."""
        has_body = _has_body(request)
        if not has_body:
            event = await _next_event(self.client, self.stream)
            if not isinstance(event, h11.EndOfMessage):
                return False
        # A kept-alive upstream connection may have gone stale: a request without a body is sent
        # again on a fresh one; a request body cannot be replayed, so it always gets a fresh one.
        if self.up is not None and (has_body or not self.up.reusable()):
            await self.up.aclose()
            self.up = None
        reused = self.up is not None
        if reused:
            assert self.up is not None
            self.up.conn.start_next_cycle()
        headers = with_authorization(request.headers, upstream.authorization())
        outgoing = h11.Request(
            method=request.method, target=request.request_target, headers=headers
        )
        while True:
            try:
                if self.up is None:
                    self.up = await self._open(upstream)
                await self.up.send(outgoing)
                if has_body:
                    return await self._exchange_with_body(request, upstream, self.up)
                await self.up.send(h11.EndOfMessage())
                return await self._relay_response(request, upstream, self.up)
            except _UpstreamFailed as exc:
                if self.up is not None:
                    await self.up.aclose()
                    self.up = None
                if reused and not has_body:
                    reused = False
                    continue
                await self._fail(request, upstream, exc.cause)
                return False
            except _PEER_GONE as exc:  # sending the request upstream failed
                if self.up is not None:
                    await self.up.aclose()
                    self.up = None
                if reused and not has_body:
                    reused = False
                    continue
                await self._fail(
                    request,
                    upstream,
                    f"connection to upstream proxy {upstream.address} broke: {exc}",
                )
                return False

    async def _exchange_with_body(
        self, request: ProxyRequest, upstream: Upstream, up: _UpstreamConnection
    ) -> bool:
        """The request body goes up while the response (maybe a 100 Continue first) comes down."""
        client_gone = False

        async def body(cancel: trio.CancelScope) -> None:
            nonlocal client_gone
            try:
                while True:
                    event = await _next_event(self.client, self.stream)
                    if isinstance(event, h11.Data):
                        await up.send(h11.Data(data=event.data))
                    elif isinstance(event, h11.EndOfMessage):
                        await up.send(h11.EndOfMessage())
                        return
                    else:
                        client_gone = True
                        cancel.cancel()
                        return
            except (*_PEER_GONE, h11.ProtocolError):
                # the client went away, or the upstream stopped reading (its answer says why)
                client_gone = client_gone or self.client.their_state is h11.ERROR
                return

        result = False
        failed: Exception | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(body, nursery.cancel_scope)
            try:
                result = await self._relay_response(request, upstream, up)
            except (_UpstreamFailed, _Abort) as exc:  # raised after the nursery, not in a group
                failed = exc
            nursery.cancel_scope.cancel()
        if failed is not None:
            raise failed
        return result and not client_gone

    async def _relay_response(
        self, request: ProxyRequest, upstream: Upstream, up: _UpstreamConnection
    ) -> bool:
        started = False
        while True:
            try:
                event = await up.next_event()
            except (*_PEER_GONE, h11.RemoteProtocolError) as exc:
                if started:
                    raise _Abort from None
                raise _UpstreamFailed(
                    f"connection to upstream proxy {upstream.address} broke: {exc}"
                ) from None
            if isinstance(event, h11.InformationalResponse):
                if event.status_code != 101:
                    await self._send(event)
                continue
            if isinstance(event, h11.Response):
                if event.status_code == 407:
                    self._failure(
                        request, upstream, rejection_text(request.method, request.target, event)
                    )
                    await self._answer(
                        502, f"proxy {upstream.alias} refused the request (upstream HTTP 407)"
                    )
                    await up.aclose()
                    self.up = None
                    return False
                await self._send(
                    h11.Response(
                        status_code=event.status_code,
                        headers=client_headers(event.headers.raw_items()),
                        reason=event.reason,
                    )
                )
                started = True
            elif isinstance(event, h11.Data):
                await self._send(h11.Data(data=event.data))
            elif isinstance(event, h11.EndOfMessage):
                await self._send(h11.EndOfMessage())
                return True
            else:  # closed before the end
                if started:
                    raise _Abort
                raise _UpstreamFailed(
                    f"upstream proxy {upstream.address} closed the connection without answering"
                )


def _has_body(request: ProxyRequest) -> bool:
    for name, value in request.headers:
        low = name.lower()
        if low == b"transfer-encoding":
            return True
        if low == b"content-length" and value.strip() != b"0":
            return True
    return False


async def _splice(
    client: trio.SocketStream, upstream: trio.SocketStream, to_upstream: bytes, to_client: bytes
) -> None:
    """Copy bytes both ways until both sides have finished (or either breaks)."""

    async def one_way(
        src: trio.SocketStream, dst: trio.SocketStream, early: bytes, cancel: trio.CancelScope
    ) -> None:
        try:
            if early:
                await dst.send_all(early)
            while data := await src.receive_some(CHUNK):
                await dst.send_all(data)
            with suppress(*_PEER_GONE):
                await dst.send_eof()
        except _PEER_GONE:
            cancel.cancel()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(one_way, client, upstream, to_upstream, nursery.cancel_scope)
        nursery.start_soon(one_way, upstream, client, to_client, nursery.cancel_scope)
