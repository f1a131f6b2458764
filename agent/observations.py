"""Retained observations (at most 32, oldest evicted first, dropped with their session) and find
over a retained copy (docs/observations.md "Find")."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import msgspec

from bridge_protocol import ErrorId, Observation, SvcError
from bridge_protocol import observation as wire

from .observation_responses import FoundContent, FoundElement, Matches, ObservationResult
from .pages import Page

OBSERVATIONS_RETAINED = 32


@dataclass
class Retained:
    page: Page
    observation: Observation
    _decoded: dict[str, Any] | None = None

    def answer(self) -> ObservationResult:
        """`{page, observation}` as a response shows it: the observation's `url` only when the
        page has moved on since (docs/observations.md "Top level"; a null url is not sent)."""
        shown = self.observation
        if not shown.url or shown.url == self.page.url:
            shown = msgspec.structs.replace(shown, url=None)
        return ObservationResult(page=self.page.ref(), observation=shown)

    def decoded(self) -> dict[str, Any]:
        """The observation with its entries as objects (bridge_protocol.observation), for find."""
        if self._decoded is None:
            self._decoded = wire.decode(msgspec.to_builtins(self.observation))
        return self._decoded


class ObservationStore:
    def __init__(self, limit: int = OBSERVATIONS_RETAINED) -> None:
        self._limit = limit
        self._items: OrderedDict[str, Retained] = OrderedDict()

    def retain(self, observation_id: str, page: Page, observation: Observation) -> Retained:
        kept = self._items[observation_id] = Retained(page, observation)
        self._items.move_to_end(observation_id)
        while len(self._items) > self._limit:
            self._items.popitem(last=False)
        return kept

    def get(self, observation_id: str) -> Retained:
        stored = self._items.get(observation_id)
        if stored is None:
            raise SvcError.of(
                ErrorId.OBSERVATION_STALE,
                f"observation {observation_id!r} is not retained (at most "
                f"{self._limit}, dropped when its session closes or the agent exits)",
                cause="evicted",
                observation_id=observation_id,
            )
        return stored

    def drop_session(self, session_id: str) -> None:
        for key in [k for k, o in self._items.items() if o.page.session_id == session_id]:
            del self._items[key]


def find_in(
    observation: dict[str, Any], query: str | None, role: str | None, limit: int
) -> Matches:
    """Matches of a decoded observation (bridge_protocol.observation.decode): `query` a
    case-insensitive substring of content text or of element role, name, value, destination
    (absolute); `role` an exact case-insensitive element role.
    `limit` caps each list; `c` (a context index) becomes `ctx` (the path itself)."""
    needle = query.casefold() if query is not None else None
    wanted = role.casefold() if role is not None else None
    contexts = observation.get("contexts") or []

    def with_ctx(item: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in item.items() if k != "c"}
        c = item.get("c")
        if isinstance(c, int) and 0 <= c < len(contexts):
            out["ctx"] = contexts[c]
        return out

    content: list[FoundContent] = []
    total = 0
    if wanted is None and needle is not None:
        for i, entry in enumerate(observation.get("content") or []):
            if needle in str(entry.get("t", "")).casefold():
                total += 1
                if len(content) < limit:
                    content.append(msgspec.convert({"i": i, **with_ctx(entry)}, FoundContent))
    elements: list[FoundElement] = []
    for element in observation.get("elements") or []:
        if wanted is not None and str(element.get("role", "")).casefold() != wanted:
            continue
        if needle is not None and not any(
            needle in str(element.get(key, "")).casefold()
            for key in ("role", "name", "value", "dest")
        ):
            continue
        total += 1
        if len(elements) < limit:
            elements.append(msgspec.convert(with_ctx(element), FoundElement))
    return Matches(
        content=content,
        elements=elements,
        total_matches=total,
        truncated=total > len(content) + len(elements),
    )
