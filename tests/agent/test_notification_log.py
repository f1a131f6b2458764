"""agent.notification_log.NotificationLog on its own: numbering, retention, trust and the
since-start filter of GET /v1/notifications (docs/bridge.md "notifications").

The host is a list handed to the log; tests/agent/test_browser_routes.py checks the route through
HTTP and a scripted host.
"""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from agent.notification_log import NOTIFICATIONS_RETAINED, TRUST, NotificationLog
from bridge_protocol import ErrorId, Notification, SvcError

START = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()


def note(
    n: int, *, at: str = "2026-01-02T03:05:00+00:00", session: str = "Session1"
) -> Notification:
    return Notification(
        session_id=session,
        origin="https://a.test",
        title=f"title {n}",
        body=f"body {n}",
        notification_id=f"n{n}",
        persistent=False,
        displayed_at=at,
    )


async def _nothing() -> list[Notification]:
    return []


def log(limit: int = NOTIFICATIONS_RETAINED) -> NotificationLog:
    return NotificationLog(_nothing, since=START, limit=limit)


def test_entries_are_the_hosts_fields_between_sequence_and_trust() -> None:
    notes = log()
    notes.add([note(1)])
    view = msgspec.to_builtins(notes.view())
    assert view == {
        "notifications": [
            {
                "sequence": 1,
                "session_id": "Session1",
                "origin": "https://a.test",
                "title": "title 1",
                "body": "body 1",
                "notification_id": "n1",
                "persistent": False,
                "displayed_at": "2026-01-02T03:05:00+00:00",
                "trust": TRUST,
            }
        ],
        "trust": "untrusted_website_content",
    }
    assert list(view["notifications"][0]) == [
        "sequence",
        "session_id",
        "origin",
        "title",
        "body",
        "notification_id",
        "persistent",
        "displayed_at",
        "trust",
    ]


def test_each_notification_is_numbered_once_in_the_hosts_order() -> None:
    notes = log()
    notes.add([note(1), note(2)])
    # The host answers its whole list each time: known entries keep their number.
    notes.add([note(1), note(2), note(3)])
    # The same id shown again later, or by another session, is another notification.
    notes.add([note(1, at="2026-01-02T03:06:00+00:00"), note(1, session="Session2")])
    got = [(e.notification_id, e.session_id, e.sequence) for e in notes.view().notifications]
    assert got == [
        ("n1", "Session1", 1),
        ("n2", "Session1", 2),
        ("n3", "Session1", 3),
        ("n1", "Session1", 4),
        ("n1", "Session2", 5),
    ]


def test_what_was_shown_before_the_agent_started_is_left_out() -> None:
    notes = log()
    notes.add(
        [
            note(1, at="2026-01-02T03:04:04+00:00"),  # a second before the start
            note(2, at="2026-01-02T03:04:05+00:00"),  # at the start
            note(3, at="2026-01-02T04:04:04+01:00"),  # before, in another zone
            note(4, at="2026-01-02T03:04:06"),  # no zone: UTC
        ]
    )
    got = [(e.notification_id, e.sequence) for e in notes.view().notifications]
    assert got == [("n2", 1), ("n4", 2)]


def test_the_newest_are_kept_and_numbers_go_on() -> None:
    notes = log(limit=3)
    notes.add([note(n) for n in range(1, 6)])
    assert [e.sequence for e in notes.view().notifications] == [3, 4, 5]
    notes.add([note(6)])
    assert [e.sequence for e in notes.view().notifications] == [4, 5, 6]
    # An evicted entry the host still answers comes back as a new one.
    notes.add([note(1)])
    assert [e.sequence for e in notes.view().notifications] == [5, 6, 7]


def test_the_default_retention_is_256() -> None:
    notes = log()
    notes.add([note(n) for n in range(300)])
    entries = notes.view().notifications
    assert (len(entries), entries[0].sequence, entries[-1].sequence) == (256, 45, 300)


def test_an_unreadable_time_is_the_bridges_fault() -> None:
    notes = log()
    with pytest.raises(SvcError) as exc:
        notes.add([note(1), note(2, at="yesterday")])
    assert exc.value.error.id == ErrorId.INTERNAL_ERROR
    assert "'yesterday'" in exc.value.error.message


async def test_read_asks_the_host_each_time() -> None:
    answers = [[note(1)], [note(1), note(2)]]

    async def fetch() -> list[Notification]:
        return answers.pop(0)

    notes = NotificationLog(fetch, since=START)
    first = await notes.read()
    second = await notes.read()
    assert [e.sequence for e in first.notifications] == [1]
    assert [(e.notification_id, e.sequence) for e in second.notifications] == [("n1", 1), ("n2", 2)]
    assert second.trust == TRUST
