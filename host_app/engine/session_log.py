"""A session's records in the host's log, and the page events it keeps for the next observation
(`logic.page_events`) with the filter events' per-load bound (`logic.filter_events`): what the
session's parts (pages, dialogs, downloads, the interceptor, the asset scheme) report through.
"""

from __future__ import annotations

from typing import Any

from ..logic.filter_events import FILTERED, SUMMARY, FilterEvents
from ..logic.page_events import PageEvent, PageEvents
from ..logic.policy import IMAGE_SIZE, Request, Verdict
from .browser_host import LogSink


class SessionLog:
    def __init__(self, sink: LogSink, session_id: str, profile_id: int) -> None:
        self._sink = sink
        self.session_id = session_id
        self.profile_id = profile_id
        self.events = PageEvents()
        self.filter_events = FilterEvents()

    def log(self, category: str, message: str, **data: Any) -> None:
        """A record in the session's log file."""
        self._sink.write_session_log(
            self.profile_id, category, message, session_id=self.session_id, **data
        )

    def named(self, category: str, message: str) -> None:
        """A record whose message names the session first."""
        self.log(category, f"{self.session_id}: {message}")

    def page_event(
        self, event: PageEvent, category: str, message: str | None = None, **data: Any
    ) -> None:
        """Keep `event` for the next observation and write its record to the session's log
        (`message` defaults to the event's text)."""
        self.events.add(event)
        self.log(category, message or event.text, **data)

    def slot_failed(self, what: str, exc: Exception) -> None:
        self._sink.write_log(
            "engine.slot_failed",
            f"{what} on {self.session_id} failed: {exc!r}",
            session_id=self.session_id,
            handler=what,
        )

    def filtered(self, request: Request, verdict: Verdict) -> None:
        """A request a filter blocked (one record per URL per load, then counted)."""
        data = self.filter_events.blocked_request(request, verdict)
        if data is not None:
            self.log(
                FILTERED,
                f"blocked {request.resource_type} ({verdict.reason}): {data['url']}",
                **data,
            )

    def end_load(self) -> None:
        """A page load ends (another starts, or the session closes): its filter summary."""
        summary = self.filter_events.end_load()
        if summary is not None:
            self.log(
                SUMMARY, f"{summary['blocked']} requests filtered in the last page load", **summary
            )

    def image_dropped(self, url: str, limit_kb: int) -> None:
        # the filter events' record and bound, as a filtered request's
        request = Request(url=url, scheme=url.partition(":")[0], resource_type="image")
        self.filtered(request, Verdict(IMAGE_SIZE, f"image_size_limit_kb={limit_kb}"))

    def asset_failed(self, url: str, error: str) -> None:
        self._sink.write_session_log(
            self.profile_id,
            "network.asset_failed",
            f"the asset scheme could not fetch {url}: {error}",
            url=url,
            error=error,
        )
