"""Bounded filter events of one session (spec 1 §1 Filtering, Log files; Qt-free).

A page load is the time between two main-frame navigations of the session (a redirect is the
same load). Within one load the first block of each URL is one `network.filtered` record, up to
`MAX_RECORDS` distinct URLs; every other block is only counted. The next load (or the session's
close) writes one `network.filtered_summary` record with the counts of the load that ended, when
it blocked anything. So a page firing thousands of requests costs at most MAX_RECORDS + 1 lines
per load, and the per-load memory is bounded the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .policy import Request, Verdict

MAX_RECORDS = 100
MAX_URL = 2048  # a data-laden tracker URL is cut in the record (the count still has it)
FILTERED = "network.filtered"
SUMMARY = "network.filtered_summary"


@dataclass(slots=True)
class FilterEvents:
    seen: set[str] = field(default_factory=set)
    blocked: int = 0
    recorded: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def blocked_request(self, request: Request, verdict: Verdict) -> dict[str, Any] | None:
        """Count a filtered request; the data of its `network.filtered` record, or None when
        this load already recorded the URL or reached the bound."""
        self.blocked += 1
        self.reasons[verdict.reason] = self.reasons.get(verdict.reason, 0) + 1
        url = request.url[:MAX_URL]
        if url in self.seen or len(self.seen) >= MAX_RECORDS:
            return None
        self.seen.add(url)
        self.recorded += 1
        return {
            "url": url,
            "resource_type": request.resource_type,
            "reason": verdict.reason,
            "rule": verdict.rule,
            "list": verdict.list,
        }

    def end_load(self) -> dict[str, Any] | None:
        """Start the next load; the data of the ended load's summary record, if it blocked."""
        summary = None
        if self.blocked:
            summary = {
                "blocked": self.blocked,
                "recorded": self.recorded,
                "suppressed": self.blocked - self.recorded,
                "reasons": dict(self.reasons),
            }
        self.seen.clear()
        self.blocked = self.recorded = 0
        self.reasons.clear()
        return summary
