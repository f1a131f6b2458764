"""Bridge framing, sans-I/O: a four-byte unsigned big-endian length, then that many payload bytes.

`FrameDecoder` is fed arbitrary chunks and hands out complete payloads; it never does I/O and
never raises anything but `FrameTooLarge`, which it raises from the header alone, before it
buffers a byte of the oversized payload. After that the stream has no frame boundary left, so the
decoder stays broken and raises the same error on every later call.
"""

from __future__ import annotations

import struct

from .errors import FrameTooLarge

HEADER_SIZE = 4
MAX_FRAME = 128 * 1024 * 1024
_HEADER = struct.Struct(">I")
# Small payloads are sliced (a cheap copy); large ones are handed out as views, copying nothing.
_COPY_LIMIT = 1 << 16


def encode_frame(payload: bytes | bytearray) -> bytes:
    size = len(payload)
    if size > MAX_FRAME:
        raise FrameTooLarge(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte maximum")
    return _HEADER.pack(size) + payload


class FrameDecoder:
    """Turns a byte stream into frame payloads.

    Usage: `feed(chunk)`, then call `next_frame()` until it returns None. A payload is `bytes`, or
    a read-only memoryview into a large `bytes` chunk that held the whole frame (no copy then).
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
        # Fast path: nothing pending and a bytes chunk that starts with a whole header.
        if (
            self._need < 0
            and self._pos == len(self._buf)
            and type(data) is bytes
            and len(data) >= HEADER_SIZE
            and self._broken is None
        ):
            self._buf = data
            self._pos = 0
            size = int.from_bytes(data[:HEADER_SIZE], "big")
            if size <= self._max_frame:
                self._need = size
            else:
                self._read_header()  # raises FrameTooLarge
            return
        self._feed(data)

    def _feed(self, data: bytes | bytearray | memoryview) -> None:
        if self._broken is not None:
            raise self._broken
        if not data:
            return
        buf = self._buf
        if self._pos == len(buf):
            self._buf = data if type(data) is bytes else bytes(data)
            self._pos = 0
        else:
            if isinstance(buf, bytes):
                buf = self._buf = bytearray(memoryview(buf)[self._pos :])
                self._pos = 0
            elif self._pos > len(buf) >> 1:
                del buf[: self._pos]
                self._pos = 0
            buf += data
        if self._need < 0:
            self._read_header()

    def _read_header(self) -> bool:
        pos = self._pos
        if len(self._buf) - pos < HEADER_SIZE:
            return False
        (size,) = _HEADER.unpack_from(self._buf, pos)
        if size > self._max_frame:
            self._broken = FrameTooLarge(
                f"frame header declares {size} bytes, over the {self._max_frame}-byte maximum"
            )
            # Drop what we hold: the oversized payload is never buffered.
            self._buf = b""
            self._pos = 0
            raise self._broken
        self._need = size
        return True

    def next_frame(self) -> bytes | memoryview | None:
        # Fast path: a small frame that is complete inside a bytes chunk.
        need = self._need
        buf = self._buf
        if 0 <= need <= _COPY_LIMIT and type(buf) is bytes:
            start = self._pos + HEADER_SIZE
            end = start + need
            if len(buf) >= end:
                self._need = -1
                if end == len(buf):
                    self._buf = b""
                    self._pos = 0
                else:
                    self._pos = end
                return buf[start:end]
        return self._next_frame()

    def _next_frame(self) -> bytes | memoryview | None:
        if self._broken is not None:
            raise self._broken
        if self._need < 0 and not self._read_header():
            return None
        buf = self._buf
        start = self._pos + HEADER_SIZE
        end = start + self._need
        if len(buf) < end:
            return None
        payload: bytes | memoryview
        if isinstance(buf, bytearray):
            with memoryview(buf) as view:
                payload = bytes(view[start:end])
        elif self._need > _COPY_LIMIT:
            payload = memoryview(buf)[start:end]
        else:
            payload = buf[start:end]
        self._need = -1
        if end == len(buf):
            self._buf = b""
            self._pos = 0
        else:
            self._pos = end
        return payload
