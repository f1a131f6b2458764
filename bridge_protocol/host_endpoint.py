"""Host end of the bridge without Qt: the host app drives it from QProcess signals.

Wire it as: `readyReadStandardOutput` -> `endpoint.data_received(bytes(proc.readAll...()))`,
`write` -> `proc.write`, `finished` -> `endpoint.connection_lost()`. Any other byte source works
the same way (the tests use a plain OS pipe and a thread).

Each request goes to `handler(request, responder)`, which answers now or later through the
responder and may return a callable that stops the work. A cancellation frame calls it and answers
REQUEST_CANCELLED; whatever the work answers afterwards is dropped, so every request is answered
exactly once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from .answers import Answer, Done
from .connection import HostConnection
from .errors import ApiError, BridgeProtocolError, ErrorId, SvcError
from .framing import MAX_FRAME
from .messages import ActionRequest, AttachRequest, Cancel, CaptureRequest, Ping

HostRequest = CaptureRequest | AttachRequest | ActionRequest
CancelCallback = Callable[[], None]


class Responder:
    """Answers one request; later answers and answers after cancellation are ignored."""

    __slots__ = ("_endpoint", "request_id")

    def __init__(self, endpoint: HostEndpoint, request_id: str) -> None:
        self._endpoint = endpoint
        self.request_id = request_id

    @property
    def pending(self) -> bool:
        return self._endpoint.connection.is_in_flight(self.request_id)

    def ok(self, data: Answer) -> None:
        self._endpoint._send(self._endpoint.connection.send_ok(self.request_id, data))
        self._endpoint._work.pop(self.request_id, None)

    def error(self, error: ApiError) -> None:
        self._endpoint._send(self._endpoint.connection.send_error(self.request_id, error))
        self._endpoint._work.pop(self.request_id, None)


Handler = Callable[[HostRequest, Responder], CancelCallback | None]


class HostEndpoint:
    def __init__(
        self,
        write: Callable[[bytes | bytearray], object],
        handler: Handler,
        *,
        on_protocol_error: Callable[[BridgeProtocolError], None] | None = None,
        max_frame: int = MAX_FRAME,
    ) -> None:
        self.connection = HostConnection(max_frame)
        self._write = write
        self._handler = handler
        self._on_protocol_error = on_protocol_error
        self._work: dict[str, CancelCallback | None] = {}
        self.broken: BridgeProtocolError | None = None

    @property
    def in_flight(self) -> int:
        return self.connection.in_flight

    def data_received(self, data: bytes | bytearray | memoryview) -> None:
        if self.broken is not None:
            return
        try:
            self.connection.receive_data(data)
            self._drain()
        except BridgeProtocolError as exc:
            # Only a fatal framing error gets here; the stream cannot be resynchronised.
            self.broken = exc
            self._report(exc)
            self.connection_lost()

    def connection_lost(self) -> None:
        """Stop all work: nobody is left to read its answers."""
        work, self._work = self._work, {}
        for cancel in work.values():
            self._call_cancel(cancel)

    def _drain(self) -> None:
        while True:
            try:
                event = self.connection.next_event()
            except BridgeProtocolError as exc:
                if exc.fatal:
                    raise
                self._report(exc)
                rid = exc.request_id
                if rid is not None and not self.connection.is_in_flight(rid):
                    self._send(self.connection.reject_frame(rid, _internal(exc)))
                continue
            if event is None:
                return
            if isinstance(event, Cancel):
                self._cancel(event.id)
            else:
                self._start(event)

    def _start(self, request: HostRequest) -> None:
        responder = Responder(self, request.id)
        self._work[request.id] = None
        if isinstance(request, ActionRequest) and isinstance(request.command, Ping):
            responder.ok(Done())  # answered where the bridge is read: the host's loop runs
            return
        try:
            cancel = self._handler(request, responder)
        except SvcError as exc:
            responder.error(exc.error)
            return
        except Exception as exc:
            responder.error(
                ApiError.of(ErrorId.INTERNAL_ERROR, f"host failed to start the operation: {exc}")
            )
            return
        if request.id in self._work:
            self._work[request.id] = cancel

    def _cancel(self, request_id: str) -> None:
        cancel = self._work.pop(request_id, None)
        self._call_cancel(cancel)
        frame = self.connection.send_error(
            request_id,
            ApiError.of(ErrorId.REQUEST_CANCELLED, "the client cancelled the operation"),
        )
        self._send(frame)

    @staticmethod
    def _call_cancel(cancel: CancelCallback | None) -> None:
        if cancel is None:
            return
        with contextlib.suppress(Exception):
            cancel()

    def _send(self, frame: bytes | bytearray | None) -> None:
        if frame is not None and self.broken is None:
            self._write(frame)

    def _report(self, exc: BridgeProtocolError) -> None:
        if self._on_protocol_error is not None:
            self._on_protocol_error(exc)


def _internal(exc: BridgeProtocolError) -> ApiError:
    return ApiError.of(ErrorId.INTERNAL_ERROR, f"engine bridge rejected the request: {exc}")
