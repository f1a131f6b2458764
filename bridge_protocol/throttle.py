"""A bound on log records that a web page can cause at will."""

from __future__ import annotations


class LogThrottle:
    """Bounds log records that a web page can cause at will (dialogs answered at once, refused
    requests to the loopback API), each of which would be a log line: at most `limit` records
    per `window` seconds; the rest are counted and said in the next record written."""

    def __init__(self, limit: int = 20, window: float = 1.0) -> None:
        self.limit = limit
        self.window = window
        self._start = float("-inf")
        self._count = 0
        self.suppressed = 0

    def allow(self, now: float) -> bool:
        if now - self._start >= self.window:
            self._start, self._count = now, 0
        if self._count < self.limit:
            self._count += 1
            return True
        self.suppressed += 1
        return False

    def take_suppressed(self) -> int:
        n, self.suppressed = self.suppressed, 0
        return n
