"""Bridge framing, sans-I/O: a four-byte unsigned big-endian length, then that many payload bytes.

`FrameDecoder` is fed arbitrary chunks and hands out complete payloads; it never does I/O and
never raises anything but `FrameTooLarge`, which it raises from the header alone, before it
buffers a byte of the oversized payload. After that the stream has no frame boundary left, so the
decoder stays broken and raises the same error on every later call.
"""

from __future__ import annotations

from .errors import FrameTooLarge

HEADER_SIZE = 4
MAX_FRAME = 128 * 1024 * 1024


def encode_frame(payload: bytes) -> bytes:
    size = len(payload)
    if size > MAX_FRAME:
        raise FrameTooLarge(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte maximum")
    return size.to_bytes(HEADER_SIZE, "big") + payload


def frame_header(size: int) -> bytes:
    if size > MAX_FRAME:
        raise FrameTooLarge(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte maximum")
    return size.to_bytes(HEADER_SIZE, "big")


class FrameDecoder:
    """Turns a byte stream into frame payloads.

    Usage: `feed(chunk)`, then call `next_frame()` until it returns None. A payload is `bytes`, or
    a read-only memoryview into a `bytes` chunk that held the whole frame (no copy is made then).
    """

    __slots__ = ("_broken", "_buf", "_max_frame", "_need", "_pos")

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        # _buf is the caller's own immutable chunk while nothing else is pending (zero copy), and
        # becomes a private bytearray once a frame spans chunks.
        self._buf: bytes | bytearray = b""
        self._pos = 0  # read offset into _buf, so consuming a frame is O(1)
        self._need = -1  # payload size of the frame being assembled, -1 before its header
        self._max_frame = max_frame
        self._broken: FrameTooLarge | None = None

    @property
    def buffered(self) -> int:
        """Bytes received but not yet handed out."""
        return len(self._buf) - self._pos

    @property
    def broken(self) -> bool:
        return self._broken is not None

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        if self._broken is not None:
            raise self._broken
        if not data:
            return
        if self._pos == len(self._buf):
            self._buf = data if isinstance(data, bytes) else bytes(data)
            self._pos = 0
        else:
            if isinstance(self._buf, bytes):
                self._buf = bytearray(memoryview(self._buf)[self._pos :])
                self._pos = 0
            elif self._pos > len(self._buf) // 2:
                del self._buf[: self._pos]
                self._pos = 0
            self._buf += data
        self._check_header()

    def _check_header(self) -> None:
        if self._need < 0 and len(self._buf) - self._pos >= HEADER_SIZE:
            size = int.from_bytes(self._buf[self._pos : self._pos + HEADER_SIZE], "big")
            if size > self._max_frame:
                self._broken = FrameTooLarge(
                    f"frame header declares {size} bytes, over the {self._max_frame}-byte maximum"
                )
                # Drop what we hold: the oversized payload is never buffered.
                self._buf = b""
                self._pos = 0
                raise self._broken
            self._need = size

    def next_frame(self) -> bytes | memoryview | None:
        if self._broken is not None:
            raise self._broken
        self._check_header()
        if self._need < 0:
            return None
        start = self._pos + HEADER_SIZE
        end = start + self._need
        if len(self._buf) < end:
            return None
        payload: bytes | memoryview
        if isinstance(self._buf, bytes):
            payload = memoryview(self._buf)[start:end]
        else:
            with memoryview(self._buf) as view:
                payload = bytes(view[start:end])
        self._pos = end
        self._need = -1
        if self._pos == len(self._buf):
            self._buf = b""
            self._pos = 0
        return payload
