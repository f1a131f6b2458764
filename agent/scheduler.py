"""Browser work scheduling (spec 1 section 4 rules 6-7, lifecycle rule 8).

At most `limit` operations run at once across sessions; beyond that they wait in FIFO order; a
session runs its own operations strictly one after another (a later operation of another session
may start while an earlier one waits for its busy session). Idle sessions hold no slot.

Queued and running work ends with TIMEOUT at its deadline, with REQUEST_CANCELLED when its
session closes, and with trio.Cancelled when its client goes away (the HTTP layer's cancel scope).
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import trio

from bridge_protocol import ErrorId, SvcError


class _Ticket:
    __slots__ = ("granted", "scope", "session_id")

    def __init__(self, session_id: str, scope: trio.CancelScope) -> None:
        self.session_id = session_id
        self.granted = trio.Event()
        self.scope = scope


class Scheduler:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._queue: deque[_Ticket] = deque()
        self._running: set[_Ticket] = set()
        self._busy_sessions: set[str] = set()
        self._closed_sessions: dict[_Ticket, str] = {}
        self.started_order: deque[str] = deque(maxlen=1000)  # start order, for diagnostics

    @property
    def queued(self) -> int:
        return len(self._queue)

    @property
    def running(self) -> int:
        return len(self._running)

    @property
    def active_count(self) -> int:
        """Queued plus running: what health reports, which may exceed the limit."""
        return len(self._queue) + len(self._running)

    @asynccontextmanager
    async def slot(self, session_id: str, deadline: float) -> AsyncIterator[None]:
        """Hold a slot for one operation of `session_id` until `deadline` (trio clock)."""
        scope = trio.CancelScope(deadline=deadline)
        ticket = _Ticket(session_id, scope)
        self._queue.append(ticket)
        self._pump()
        timed_out = False
        closed: str | None = None
        try:
            with scope:
                await ticket.granted.wait()
                yield
            timed_out = scope.cancelled_caught and ticket not in self._closed_sessions
        finally:
            if ticket in self._running:
                self._running.discard(ticket)
                self._busy_sessions.discard(session_id)
            else:
                with suppress(ValueError):
                    self._queue.remove(ticket)
            self._pump()
            # here, not after: an operation that turned its cancellation into another error
            # must not leave its ticket behind for ever
            closed = self._closed_sessions.pop(ticket, None)
        if closed is not None:
            raise SvcError.of(
                ErrorId.REQUEST_CANCELLED,
                f"session {closed} was closed while the operation was pending",
                reason="session_closed",
                session_id=closed,
            )
        if timed_out:
            raise SvcError.of(ErrorId.TIMEOUT, "the operation's deadline expired")

    def has_work(self, session_id: str) -> bool:
        return any(t.session_id == session_id for t in (*self._queue, *self._running))

    def close_session(self, session_id: str) -> int:
        """End every queued and running operation of a session; returns how many."""
        ended = 0
        for ticket in [*self._queue, *self._running]:
            if ticket.session_id == session_id:
                self._closed_sessions[ticket] = session_id
                ticket.scope.cancel()
                ended += 1
        return ended

    def _pump(self) -> None:
        if len(self._running) >= self.limit or not self._queue:
            return
        for ticket in list(self._queue):
            if len(self._running) >= self.limit:
                return
            if ticket.session_id in self._busy_sessions:
                continue
            self._queue.remove(ticket)
            self._running.add(ticket)
            self._busy_sessions.add(ticket.session_id)
            self.started_order.append(ticket.session_id)
            ticket.granted.set()
