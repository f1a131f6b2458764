"""A capture's downloaded bytes from the session's counters (host_app.logic.traffic,
host_app.core.operations.capture)."""

from __future__ import annotations

from host_app.core.operations import Options, capture
from host_app.logic import aio
from host_app.logic.readiness import Probe
from host_app.logic.traffic import Counters, grown

from .fakepage import FakePage, done


def test_an_operation_counts_what_its_counters_grew_by() -> None:
    before = {("page", 1, 1): 1000, ("assets", 1, 0): 50}
    after = {("page", 1, 1): 4000, ("assets", 1, 0): 450}
    assert grown(before, after) == 3000 + 400
    assert grown(after, after) == 0


def test_a_new_counter_counts_from_zero_and_a_gone_one_counts_nothing() -> None:
    before = {("page", 1, 1): 1000, ("page", 2, 1): 700}
    # page 2 closed meanwhile; page 3 (a popup) opened; page 1's frontend document was made
    # again (its new count starts at 0)
    after = {("page", 1, 2): 300, ("page", 3, 1): 900}
    assert grown(before, after) == 300 + 900
    assert grown({}, {}) == 0


class _Counted(FakePage):
    """A page whose session downloads 300 bytes on one page and 50 in a popup meanwhile."""

    def __init__(self) -> None:
        super().__init__([])
        self.reads: list[bool] = []  # whether the engine counted at each read

    def probe(self) -> aio.Future[Probe]:
        return done(Probe(self.url, "complete", 100, 200, 1.0, "t"))

    def to_html(self) -> aio.Future[str]:
        return done("<html><head><title>t</title></head><body><p>x</p></body></html>")

    def read(self) -> aio.Future[Counters]:
        self.reads.append(self.counting)
        if len(self.reads) == 1:
            return done({("page", 1, 1): 1000})
        return done({("page", 1, 1): 1300, ("page", 2, 1): 50})


def test_a_capture_reports_what_the_session_downloaded_while_the_engine_counted() -> None:
    page = _Counted()
    answer = page._loop.run(
        capture(
            page,
            url=None,
            actions=[],
            wait=0,
            output_path=None,
            deadline=10.0,
            opts=Options(),
            navigate_first=False,
        )
    )
    assert answer.traffic_bytes == 350
    assert page.reads == [True, True]
    assert page.counting is False  # off again once the capture is over
