"""Notifications shown by sites, kept for the agent (at most 256, oldest dropped first)."""

from __future__ import annotations

import collections
import itertools
from datetime import UTC, datetime

from bridge_protocol import Notification

MAX_NOTIFICATIONS = 256


class NotificationQueue:
    def __init__(self, limit: int = MAX_NOTIFICATIONS) -> None:
        self._items: collections.deque[Notification] = collections.deque(maxlen=limit)
        self._ids = itertools.count(1)

    def add(  # noqa: PLR0913  a notification's fields, keyword-only
        self,
        *,
        enabled: bool,
        session_id: str,
        origin: str,
        title: str,
        body: str,
        tag: str = "",
        persistent: bool = False,
        now: datetime | None = None,
    ) -> Notification | None:
        if not enabled:
            return None
        when = (now or datetime.now(UTC)).astimezone(UTC)
        item = Notification(
            session_id=session_id,
            origin=origin,
            title=title,
            body=body,
            notification_id=tag or f"n{next(self._ids)}",
            persistent=persistent,
            displayed_at=when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z",
        )
        self._items.append(item)
        return item

    def snapshot(self) -> list[Notification]:
        return list(self._items)
