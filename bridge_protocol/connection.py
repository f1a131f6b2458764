"""The two ends of the bridge as sans-I/O state machines: bytes in, messages out, bytes to send.

`AgentConnection` is the client: it issues requests and cancellations and correlates responses.
`HostConnection` is the server: it receives requests and cancellations and encodes replies.
Neither does I/O; the adapters in `trio_adapter` and `host_endpoint` own the pipes.

Usage, like h11: `receive_data(chunk)`, then call `next_event()` until it returns None. A
`BridgeProtocolError` from `next_event()` concerns one frame unless `error.fatal` is set; after a
non-fatal one, keep calling `next_event()`.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import msgspec

from .answers import Answer
from .errors import (
    ApiError,
    BridgeProtocolError,
    DuplicateId,
    FrameTooLarge,
    MalformedMessage,
    UnknownId,
)
from .framing import _HEADER, HEADER_SIZE, MAX_FRAME, FrameDecoder, encode_frame
from .messages import (
    ANSWERS,
    PROTOCOL_VERSION,
    ActionRequest,
    AttachRequest,
    Cancel,
    CaptureRequest,
    ErrorResponse,
    OkResponse,
    Operation,
    decode_agent_inbound,
    decode_host_inbound,
    make_request,
)

# One reusable decoder per answer type (msgspec's fast path), shared by every connection.
_ANSWER_DECODERS: dict[type[Answer], msgspec.json.Decoder[Any]] = {
    answer: msgspec.json.Decoder(answer) for answer in set(ANSWERS.values())
}

# Above this size (judged by the previous message) encoding goes straight into the frame buffer.
_INTO_THRESHOLD = 1 << 16


class MessageEncoder:
    """Frames a message. Small messages are encoded then prefixed; large ones are encoded straight
    behind a reserved header, so a many-megabyte payload is never copied."""

    __slots__ = ("_encoder", "_last_size")

    def __init__(self) -> None:
        self._encoder = msgspec.json.Encoder()
        self._last_size = 0

    def frame(self, message: Any) -> bytes | bytearray:
        if self._last_size < _INTO_THRESHOLD:
            payload = self._encoder.encode(message)
            size = self._last_size = len(payload)
            if size < _INTO_THRESHOLD:
                return _HEADER.pack(size) + payload
            return encode_frame(payload)
        buf = bytearray(HEADER_SIZE)
        self._encoder.encode_into(message, buf, HEADER_SIZE)
        size = self._last_size = len(buf) - HEADER_SIZE
        if size > MAX_FRAME:
            raise FrameTooLarge(f"message of {size} bytes exceeds the {MAX_FRAME}-byte maximum")
        buf[:HEADER_SIZE] = size.to_bytes(HEADER_SIZE, "big")
        return buf


class AgentConnection:
    """Agent side: requests out, responses in."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._decoder = FrameDecoder(max_frame)
        self._encoder = MessageEncoder()
        self._counter = 0
        # id -> cancelled? A cancelled id stays until the host's answer arrives, so that the
        # answer is recognised (and dropped) rather than reported as an unknown id.
        self._in_flight: dict[str, bool] = {}
        # id -> the decoder of the answer that request expects
        self._expects: dict[str, msgspec.json.Decoder[Any]] = {}

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    def send_request(self, operation: Operation) -> tuple[str, bytes | bytearray]:
        self._counter += 1
        request_id = str(self._counter)
        frame = self._encoder.frame(make_request(request_id, operation))
        self._in_flight[request_id] = False
        self._expects[request_id] = _ANSWER_DECODERS[ANSWERS[type(operation)]]
        return request_id, frame

    def send_cancel(self, request_id: str) -> bytes | bytearray | None:
        """The cancellation frame for an in-flight request, or None when it needs none."""
        if self._in_flight.get(request_id) is not False:
            return None
        self._in_flight[request_id] = True
        return self._encoder.frame(Cancel(version=PROTOCOL_VERSION, id=request_id))

    def abandon(self, request_id: str) -> None:
        """Forget a request whose frame was never fully written."""
        self._in_flight.pop(request_id, None)
        self._expects.pop(request_id, None)

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        self._decoder.feed(data)

    def next_event(self) -> OkResponse | ErrorResponse | None:
        """The next answer, a success decoded as the answer type of the request it answers."""
        while True:
            payload = self._decoder.next_frame()
            if payload is None:
                return None
            try:
                response = decode_agent_inbound(payload)
            except BridgeProtocolError as exc:
                # A broken response still ends its request when its id could be read.
                if exc.request_id is not None:
                    self._in_flight.pop(exc.request_id, None)
                    self._expects.pop(exc.request_id, None)
                raise
            cancelled = self._in_flight.pop(response.id, None)
            expects = self._expects.pop(response.id, None)
            if cancelled is None or expects is None:
                raise UnknownId(
                    f"response for id {response.id!r}, which is not in flight",
                    request_id=response.id,
                )
            if cancelled:
                continue
            if isinstance(response, ErrorResponse):
                return response
            try:
                data = expects.decode(response.data)
            except (msgspec.DecodeError, RecursionError) as exc:
                raise MalformedMessage(
                    f"malformed ok frame: invalid answer: {exc}", request_id=response.id
                ) from None
            return OkResponse(version=response.version, id=response.id, data=data)


class HostConnection:
    """Host side: requests and cancellations in, responses out."""

    _RECENT = 4096

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._decoder = FrameDecoder(max_frame)
        self._encoder = MessageEncoder()
        self._in_flight: set[str] = set()
        # Ids answered lately: a cancellation crossing our answer on the wire is a race, not an
        # error, so it is ignored instead of reported as an unknown id.
        self._recent: OrderedDict[str, None] = OrderedDict()

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        self._decoder.feed(data)

    def next_event(self) -> CaptureRequest | AttachRequest | ActionRequest | Cancel | None:
        while True:
            payload = self._decoder.next_frame()
            if payload is None:
                return None
            message = decode_host_inbound(payload)
            if isinstance(message, Cancel):
                if message.id in self._in_flight:
                    return message
                if message.id in self._recent:
                    continue
                raise UnknownId(
                    f"cancellation for id {message.id!r}, which is not in flight",
                    request_id=None,
                )
            if message.id in self._in_flight:
                # request_id stays None: the first request with this id is still answered.
                raise DuplicateId(f"request id {message.id!r} is already in flight")
            self._in_flight.add(message.id)
            return message

    def is_in_flight(self, request_id: str) -> bool:
        return request_id in self._in_flight

    def send_ok(self, request_id: str, data: Answer) -> bytes | bytearray | None:
        """The success frame, or None when the request is no longer in flight."""
        if not self._finish(request_id):
            return None
        return self._encoder.frame(OkResponse(version=PROTOCOL_VERSION, id=request_id, data=data))

    def send_error(self, request_id: str, error: ApiError) -> bytes | bytearray | None:
        """The failure frame, or None when the request is no longer in flight."""
        if not self._finish(request_id):
            return None
        return self._encoder.frame(
            ErrorResponse(version=PROTOCOL_VERSION, id=request_id, error=error)
        )

    def reject_frame(self, request_id: str, error: ApiError) -> bytes | bytearray:
        """Answer a frame that failed validation but whose id could be read."""
        return self._encoder.frame(
            ErrorResponse(version=PROTOCOL_VERSION, id=request_id, error=error)
        )

    def _finish(self, request_id: str) -> bool:
        if request_id not in self._in_flight:
            return False
        self._in_flight.discard(request_id)
        self._recent[request_id] = None
        if len(self._recent) > self._RECENT:
            self._recent.popitem(last=False)
        return True
