"""A capture's rendered source when the engine's serialization answers the empty skeleton
for a document that is there (issue 12, the empty capture: one first capture in about a
hundred while other sessions keep busy pages, measured with `make bench BENCH=first_capture`):
never written, read again (the engine, then the isolated world), logged; a document that
stays unreadable fails the capture at its deadline."""

from __future__ import annotations

from typing import Any

import pytest

from bridge_protocol.errors import ErrorId, SvcError
from host_app.core.operations import TO_HTML_PATIENCE, rendered_html
from host_app.core.page_driver import Call, Script
from host_app.logic import aio
from host_app.logic.readiness import Probe

from .fakepage import FakePage, done

SKELETON = "<html><head></head><body></body></html>"
DOCUMENT = "<html><head><title>t</title></head><body>" + "<p>text</p>" * 500 + "</body></html>"


class Unread(FakePage):
    """toHtml() answers the skeleton `skeletons` times; the isolated world reads `outer`."""

    def __init__(self, skeletons: int, outer: str | None) -> None:
        super().__init__([])
        self.skeletons = skeletons
        self.outer = outer
        self.serializations = 0

    def to_html(self) -> aio.Future[str]:
        self.serializations += 1
        return done(SKELETON if self.serializations <= self.skeletons else DOCUMENT)

    def probe(self) -> aio.Future[Probe]:
        return done(Probe(self.url, "complete", len(DOCUMENT), 200, 1.0, "t"))

    def answer(self, call: Call[Any]) -> object:
        if call.script is Script.OUTER_HTML:
            return self.outer if self.outer is not None else SKELETON
        return super().answer(call)


def capture(page: FakePage, deadline: float = 10.0) -> str:
    return page._loop.run(rendered_html(page, deadline))


def test_an_ordinary_document_is_read_once_and_not_logged() -> None:
    page = Unread(skeletons=0, outer=None)
    assert capture(page) == DOCUMENT
    assert page.serializations == 1
    assert page.records == []


def test_a_skeleton_is_read_again_from_the_isolated_world_and_logged() -> None:
    page = Unread(skeletons=99, outer=DOCUMENT)
    assert capture(page) == DOCUMENT
    [(category, _, data)] = page.records
    assert category == "capture.unread_serialization"
    assert data == {"rendered_length": len(DOCUMENT), "reads": 1, "unanswered": False}


def test_a_serialization_that_never_comes_is_read_from_the_isolated_world() -> None:
    class Silent(Unread):
        def to_html(self) -> aio.Future[str]:
            self.serializations += 1
            return aio.Future()  # the engine never calls back

    page = Silent(skeletons=0, outer=DOCUMENT)
    assert capture(page) == DOCUMENT
    assert page._loop.now == pytest.approx(TO_HTML_PATIENCE)
    [(_, message, data)] = page.records
    assert data["unanswered"] is True
    assert "did not answer" in message


def test_a_skeleton_read_again_by_the_engine_when_the_isolated_world_fails_too() -> None:
    page = Unread(skeletons=1, outer=None)
    assert capture(page) == DOCUMENT
    assert page.serializations == 2
    assert page.records[0][2]["reads"] == 2


def test_a_document_that_stays_unread_fails_at_the_deadline_without_a_file() -> None:
    page = Unread(skeletons=10_000, outer=None)
    with pytest.raises(SvcError) as caught:
        capture(page, deadline=3.0)
    assert caught.value.error.id == ErrorId.TIMEOUT
    assert (caught.value.error.details or {}).get("reason") == "empty_serialization"
    assert page.records[-1][0] == "capture.unread_serialization"


def test_a_page_that_really_is_empty_is_written_as_it_is() -> None:
    class Empty(Unread):
        def probe(self) -> aio.Future[Probe]:
            return done(Probe(self.url, "complete", len(SKELETON), 200, 1.0, ""))

    page = Empty(skeletons=99, outer=None)
    assert capture(page) == SKELETON
    assert page.records == []
