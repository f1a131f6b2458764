"""A scripted host for tests and benchmarks: `HostEndpoint` on a real OS pipe pair, driven by a
thread with a selector, playing the part QProcess's readyRead plays in the app.

`answer(request)` returns (delay, data or ApiError): no delay answers at once, otherwise a timer
answers later, and a cancellation frame drops the pending answer.
"""

from __future__ import annotations

import heapq
import itertools
import os
import selectors
import threading
import time
from collections import Counter
from collections.abc import Callable

from .answers import Answer
from .errors import ApiError, BridgeProtocolError
from .framing import FrameDecoder
from .host_endpoint import HostEndpoint, HostRequest, Responder
from .messages import decode_agent_inbound

Script = Callable[[HostRequest], tuple[float, Answer | ApiError]]


class PipeHost:
    def __init__(
        self,
        read_fd: int,
        write_fd: int,
        answer: Script,
    ) -> None:
        self._read_fd = read_fd
        self._write_fd = write_fd
        self.answer = answer
        self._timers: list[tuple[float, int, str, Callable[[], None]]] = []
        self._cancelled_timers: set[int] = set()
        self._seq = itertools.count()
        self._stop_r, self._stop_w = os.pipe()
        self.endpoint = HostEndpoint(self._write, self._handle, on_protocol_error=self._error)
        self.protocol_errors: list[BridgeProtocolError] = []
        self.cancels_received = 0
        self.requests: list[HostRequest] = []
        self.answers: Counter[str] = Counter()
        self._out = FrameDecoder()
        self._thread = threading.Thread(target=self._loop, name="pipe-host", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        os.write(self._stop_w, b"x")
        self._thread.join(timeout=10)
        os.close(self._stop_r)
        os.close(self._stop_w)

    def _write(self, frame: bytes | bytearray) -> None:
        self._out.feed(bytes(frame))
        while (payload := self._out.next_frame()) is not None:
            self.answers[decode_agent_inbound(payload).id] += 1
        view = memoryview(frame)
        while view:
            view = view[os.write(self._write_fd, view) :]

    def _error(self, exc: BridgeProtocolError) -> None:
        self.protocol_errors.append(exc)

    def _handle(self, request: HostRequest, responder: Responder) -> Callable[[], None]:
        self.requests.append(request)
        delay, result = self.answer(request)

        def reply() -> None:
            if isinstance(result, ApiError):
                responder.error(result)
            else:
                responder.ok(result)

        if delay <= 0:
            reply()
            return lambda: None
        seq = next(self._seq)
        heapq.heappush(self._timers, (time.monotonic() + delay, seq, request.id, reply))

        def cancel() -> None:
            self.cancels_received += 1
            self._cancelled_timers.add(seq)

        return cancel

    def _loop(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self._read_fd, selectors.EVENT_READ, "data")
        sel.register(self._stop_r, selectors.EVENT_READ, "stop")
        try:
            while True:
                timeout = None
                if self._timers:
                    timeout = max(0.0, self._timers[0][0] - time.monotonic())
                for key, _ in sel.select(timeout):
                    if key.data == "stop":
                        return
                    data = os.read(self._read_fd, 1 << 16)
                    if not data:
                        self.endpoint.connection_lost()
                        return
                    self.endpoint.data_received(data)
                now = time.monotonic()
                while self._timers and self._timers[0][0] <= now:
                    _, seq, _, reply = heapq.heappop(self._timers)
                    if seq in self._cancelled_timers:
                        self._cancelled_timers.discard(seq)
                    else:
                        reply()
        finally:
            sel.close()
