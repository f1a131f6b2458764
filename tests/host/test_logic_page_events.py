"""Page events kept between two observations (host_app.logic.page_events): bounded, taken once."""

from __future__ import annotations

from host_app.logic.page_events import PageEvent, PageEvents


def test_events_are_taken_once_oldest_first() -> None:
    events = PageEvents()
    events.add(PageEvent("dialog", "Sure?", {"type": "confirm"}))
    events.add(PageEvent("popup", "opened"))
    taken, dropped = events.take()
    assert [e.kind for e in taken] == ["dialog", "popup"]
    assert dropped == 0
    assert taken[0].entry() == {"k": "dialog", "t": "Sure?", "d": {"type": "confirm"}}
    assert taken[1].entry() == {"k": "popup", "t": "opened"}
    assert events.take() == ([], 0)


def test_events_beyond_the_bound_are_counted_as_dropped() -> None:
    events = PageEvents(limit=3)
    for i in range(5):
        events.add(PageEvent("download", f"file {i}"))
    taken, dropped = events.take()
    assert [e.text for e in taken] == ["file 2", "file 3", "file 4"]
    assert dropped == 2
