"""Agent end of the bridge on trio: requests out on one stream, responses in on another.

`BridgeClient.call()` sends one operation and waits for its answer; any number may be in flight.
Cancelling the calling task sends a cancellation frame for that id and re-raises `Cancelled`.
Everything that can go wrong on the wire is translated here, once, into `SvcError`:
an error response raises its own error unchanged; a lost or broken bridge raises
BROWSER_UNAVAILABLE; a malformed answer raises INTERNAL_ERROR.

It lives in the agent because `bridge_protocol` imports only the standard library and msgspec.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar, cast

import trio

from bridge_protocol.answers import Answer
from bridge_protocol.connection import AgentConnection
from bridge_protocol.errors import ApiError, BridgeProtocolError, ErrorId, SvcError
from bridge_protocol.framing import MAX_FRAME
from bridge_protocol.messages import Command, ErrorResponse, Operation, Params

A = TypeVar("A", bound=Answer)

READ_SIZE = 1 << 20


class _Waiter:
    __slots__ = ("event", "result")

    def __init__(self) -> None:
        self.event = trio.Event()
        self.result: Answer | ApiError | None = None


class BridgeClient:
    """Use as `async with trio.open_nursery() as n: await n.start(client.run)`."""

    def __init__(
        self,
        send_stream: trio.abc.SendStream,
        receive_stream: trio.abc.ReceiveStream,
        *,
        on_protocol_error: Callable[[BridgeProtocolError], None] | None = None,
        max_frame: int = MAX_FRAME,
    ) -> None:
        self._send = send_stream
        self._receive = receive_stream
        self._conn = AgentConnection(max_frame)
        self._send_lock = trio.Lock()
        self._waiters: dict[str, _Waiter] = {}
        self._closed_reason: str | None = None
        self._closed = trio.Event()
        self._on_protocol_error = on_protocol_error
        self.cancellations_sent = 0

    @classmethod
    def over_stdio(cls, **kwargs: Any) -> BridgeClient:
        """The agent's bridge: requests on its stdout, responses on its stdin."""
        out = trio.lowlevel.FdStream(os.dup(1))
        inp = trio.lowlevel.FdStream(os.dup(0))
        return cls(out, inp, **kwargs)

    @property
    def connected(self) -> bool:
        return self._closed_reason is None

    @property
    def in_flight(self) -> int:
        return self._conn.in_flight

    async def call(self, operation: Command[A] | Params[A]) -> A:
        """Send `operation` and return its answer, of the type its struct names."""
        if self._closed_reason is not None:
            raise self._unavailable()
        # every Command and Params subclass is a member of Operation (tests/bridge checks ANSWERS)
        request_id, frame = self._conn.send_request(cast(Operation, operation))
        waiter = _Waiter()
        self._waiters[request_id] = waiter
        try:
            await self._write(frame, request_id)
            await waiter.event.wait()
        except BaseException:
            if not waiter.event.is_set():
                await self._cancel(request_id)
            raise
        finally:
            del self._waiters[request_id]
        result = waiter.result
        if isinstance(result, ApiError):
            raise SvcError(result)
        if result is None:
            raise self._unavailable()
        return result  # type: ignore[return-value]

    async def _write(self, frame: bytes | bytearray, request_id: str) -> None:
        # A half-written frame would desynchronise the stream for every other request, so a
        # write, once begun, finishes even if the caller is cancelled meanwhile.
        with trio.CancelScope(shield=True):
            async with self._send_lock:
                try:
                    await self._send.send_all(frame)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    self._conn.abandon(request_id)
                    self._close(f"bridge write failed: {exc}")
                    raise self._unavailable() from None

    async def _cancel(self, request_id: str) -> None:
        frame = self._conn.send_cancel(request_id)
        if frame is None or self._closed_reason is not None:
            return
        with trio.CancelScope(shield=True):
            async with self._send_lock:
                try:
                    await self._send.send_all(frame)
                    self.cancellations_sent += 1
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    self._close(f"bridge write failed: {exc}")

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Read responses until the host closes the stream or breaks the protocol."""
        task_status.started()
        reason = "engine bridge closed by the host"
        try:
            while True:
                try:
                    data = await self._receive.receive_some(READ_SIZE)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    reason = f"engine bridge read failed: {exc}"
                    return
                if not data:
                    return
                try:
                    self._conn.receive_data(data)
                    self._dispatch()
                except BridgeProtocolError as exc:
                    # Only a fatal framing error reaches here: the stream has no boundaries left.
                    self._report(exc)
                    reason = f"engine bridge broken: {exc}"
                    return
        finally:
            self._close(reason)

    def _dispatch(self) -> None:
        while True:
            try:
                response = self._conn.next_event()
            except BridgeProtocolError as exc:
                if exc.fatal:
                    raise
                self._report(exc)
                waiter = self._waiters.get(exc.request_id or "")
                if waiter is not None and not waiter.event.is_set():
                    waiter.result = ApiError.of(
                        ErrorId.INTERNAL_ERROR, f"engine bridge sent an invalid answer: {exc}"
                    )
                    waiter.event.set()
                continue
            if response is None:
                return
            waiter = self._waiters.get(response.id)
            if waiter is None:
                continue
            waiter.result = response.error if isinstance(response, ErrorResponse) else response.data
            waiter.event.set()

    def _report(self, exc: BridgeProtocolError) -> None:
        if self._on_protocol_error is not None:
            self._on_protocol_error(exc)

    async def wait_closed(self) -> None:
        await self._closed.wait()

    def _close(self, reason: str) -> None:
        if self._closed_reason is not None:
            return
        self._closed_reason = reason
        self._closed.set()
        for waiter in self._waiters.values():
            if not waiter.event.is_set():
                waiter.event.set()

    def _unavailable(self) -> SvcError:
        return SvcError.of(
            ErrorId.BROWSER_UNAVAILABLE, self._closed_reason or "engine bridge is not connected"
        )

    async def aclose(self) -> None:
        self._close("engine bridge closed by the agent")
        await self._send.aclose()
        await self._receive.aclose()
