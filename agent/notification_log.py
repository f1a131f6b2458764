"""GET /v1/notifications: the notifications sites showed since this agent started.

The host keeps its own last 256 and answers all of them each time; the log numbers each one the
first time it sees it (`sequence`, stable across reads), keeps the newest `limit`, and marks every
entry as untrusted website content (titles and bodies are whatever a site wrote). Process-local by
design (lifecycle rule 9): an agent restart starts the numbering again.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime
from typing import Annotated, Literal

import msgspec

from bridge_protocol import ErrorId, Notification, SvcError

from .responses import Shown

NOTIFICATIONS_RETAINED = 256
Trust = Literal["untrusted_website_content"]
TRUST: Trust = "untrusted_website_content"


class LoggedNotification(Shown, frozen=True):
    """A notification as GET /v1/notifications shows it: the host's fields between the agent's
    `sequence` and `trust`."""

    sequence: int
    session_id: str
    origin: str
    title: str
    body: str
    notification_id: str
    persistent: bool
    displayed_at: Annotated[str, msgspec.Meta(extra_json_schema={"format": "date-time"})]
    trust: Trust  # no default: always sent, and required in the schema


class Notifications(Shown, frozen=True):
    """GET /v1/notifications' data (spec 1 §4): the entries, oldest first."""

    notifications: Annotated[
        list[LoggedNotification], msgspec.Meta(max_length=NOTIFICATIONS_RETAINED)
    ]
    trust: Trust


def _shown_at(note: Notification) -> float:
    try:
        shown = datetime.fromisoformat(note.displayed_at)
    except ValueError:
        raise SvcError.of(
            ErrorId.INTERNAL_ERROR,
            f"engine bridge sent a notification time {note.displayed_at!r}",
        ) from None
    if shown.tzinfo is None:
        shown = shown.replace(tzinfo=UTC)
    return shown.timestamp()


class NotificationLog:
    def __init__(
        self,
        fetch: Callable[[], Awaitable[list[Notification]]],
        since: float,
        limit: int = NOTIFICATIONS_RETAINED,
    ) -> None:
        """`fetch` asks the host for what it holds; `since` (a Unix time) is the agent's start:
        what was shown before belongs to an earlier agent."""
        self._fetch = fetch
        self._since = since
        self._limit = limit
        self._entries: OrderedDict[tuple[str, str, str], LoggedNotification] = OrderedDict()
        self._sequence = itertools.count(1)

    async def read(self) -> Notifications:
        self.add(await self._fetch())
        return self.view()

    def add(self, notes: Iterable[Notification]) -> None:
        """Take the host's list (oldest first): new entries are numbered in that order."""
        for note in notes:
            # each read answers the host's whole list again: what was numbered keeps its number
            key = (note.session_id, note.notification_id, note.displayed_at)
            if key in self._entries:
                continue
            if _shown_at(note) < self._since:
                continue
            fields = msgspec.structs.asdict(note)
            self._entries[key] = LoggedNotification(
                sequence=next(self._sequence), **fields, trust=TRUST
            )
            while len(self._entries) > self._limit:
                self._entries.popitem(last=False)

    def view(self) -> Notifications:
        return Notifications(notifications=list(self._entries.values()), trust=TRUST)
