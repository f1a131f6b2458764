"""A session's downloaded-bytes counters (`logic.traffic`): each page's devtools channel's
(`worker_cdp`), and the asset scheme's fetches'."""

from __future__ import annotations

from typing import Protocol

from ..logic import aio
from ..logic.traffic import CounterKey, Counters
from .asset_scheme import SessionAssets
from .worker_cdp import SessionWorkers

TRAFFIC_WAIT = 2.0  # a page channel's count: a flush's round trip, then a read


class TrafficOwner(Protocol):
    @property
    def loop(self) -> aio.Loop: ...
    @property
    def assets(self) -> SessionAssets | None: ...
    @property
    def workers(self) -> SessionWorkers | None: ...
    @property
    def contexts(self) -> int:
        """Browser contexts built so far (each its own asset connections)."""
        ...


class SessionTraffic:
    def __init__(self, owner: TrafficOwner) -> None:
        self._owner = owner

    async def _read(self) -> Counters:
        owner = self._owner
        counts: dict[CounterKey, int] = {}
        if owner.assets is not None:
            counts[("assets", owner.contexts, 0)] = owner.assets.downloaded
        if owner.workers is not None:
            # asked of every page at once, then waited for (bounded: a page whose channel does
            # not answer counts nothing)
            for read in owner.workers.traffic():
                got = await aio.within(owner.loop, read, TRAFFIC_WAIT, None)
                if got is not None:
                    counts[got[0]] = got[1]
        return counts

    def read(self) -> aio.Future[Counters]:
        """The session's downloaded-bytes counters: each page's channel's, the asset scheme's
        fetches'."""
        return aio.spawn(self._read())

    async def _count(self, on: bool) -> None:
        workers = self._owner.workers
        if workers is None:
            return
        for turned in workers.count(on):
            await aio.within(self._owner.loop, turned, TRAFFIC_WAIT, False)

    def count(self, on: bool) -> aio.Future[None]:
        """The pages' channels count the downloaded bytes (the Network domain) or stop: only
        while an operation reports them, its events cost the app's thread (~7 a request).
        Resolves once every page's renderer has it (bounded)."""
        return aio.spawn(self._count(on))
