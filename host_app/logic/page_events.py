"""What happened on a session's pages between two observations (a dialog answered, a popup
opened or closed, a download saved), as plain values.

The engine records them as Qt signals arrive; the next observation of the session reports them
as content entries ahead of the page's own content (docs/observations.md "Page events"), so the
post-batch observation of the action that caused them tells the agent. Qt-free.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

EVENTS_KEPT = 32  # per session, between two observations; older ones are counted as dropped

Scalar = str | int | float | bool


@dataclass(frozen=True, slots=True)
class PageEvent:
    kind: str  # the content kind: "dialog", "popup", "download"
    text: str  # one readable line (website-controlled where `details` says so)
    details: dict[str, Scalar] = field(default_factory=dict)

    def entry(self) -> dict[str, object]:
        """The observation content entry (before the wire encoding)."""
        out: dict[str, object] = {"k": self.kind, "t": self.text}
        if self.details:
            out["d"] = dict(self.details)
        return out


class PageEvents:
    """A session's events not yet reported; bounded."""

    def __init__(self, limit: int = EVENTS_KEPT) -> None:
        self._items: deque[PageEvent] = deque(maxlen=limit)
        self.dropped = 0

    def add(self, event: PageEvent) -> None:
        if len(self._items) == self._items.maxlen:
            self.dropped += 1
        self._items.append(event)

    def take(self) -> tuple[list[PageEvent], int]:
        """The events since the last take, oldest first, and how many were dropped."""
        items, dropped = list(self._items), self.dropped
        self._items.clear()
        self.dropped = 0
        return items, dropped
