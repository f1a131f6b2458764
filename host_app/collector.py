"""Python's cyclic garbage collector, run on the app's main thread only, from its event loop.

CPython collects reference cycles in whichever thread happens to allocate past a threshold; in
this app that is often an asset fetch thread. A cycle holding a Qt object that Python owns
(measured: the event loop's own timers, a page's resize filter) then has its C++ object
deleted in that thread while the main thread may be using it, and Qt objects may only be
deleted in their own thread: memory is corrupted and the app, with every session in it, can
die of a segmentation fault later. It also ran collections in the middle of the engine's
callbacks on the main thread (a request job's teardown), deleting objects there.

So the automatic collector is off and a main-thread timer runs the collections it would have
run, from the top of the event loop, by the same counts and thresholds. This is the workaround
PyQt's maintainers have long pointed to for the problem."""

from __future__ import annotations

import gc
import time

from .qt import QTimer

# often enough that garbage from busy fetch threads never piles up for long; each tick costs
# one gc.get_count() when there is nothing to do
INTERVAL_MS = 200
# a full collection walks every object of the app and stops its event loop meanwhile; CPython
# runs one only once the objects that reached the oldest generation since the last grew by a
# quarter, a count Python does not expose. Here: no more than 1% of the time in full
# collections (one that took 50 ms allows the next after 5 s)
FULL_SHARE = 100


def generation_due(
    counts: tuple[int, int, int], thresholds: tuple[int, ...], now: float, next_full: float
) -> int | None:
    """The generation to collect now, as CPython would have chosen: the oldest whose count is
    past its threshold (generation 0 counts allocations, the older ones count collections of
    the younger), passing over a full collection before `next_full`; None: none is due."""
    for generation in (2, 1, 0):
        if counts[generation] <= thresholds[generation]:
            continue
        if generation == 2 and now < next_full:
            continue
        return generation
    return None


class MainThreadCollector:
    """Turns the automatic collector off for the life of the app (until `stop`)."""

    def __init__(self) -> None:
        self._thresholds = gc.get_threshold()
        self._next_full = 0.0
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = QTimer()
        self._timer.timeout.connect(self.tick)
        self._timer.start(INTERVAL_MS)

    def tick(self) -> None:
        start = time.monotonic()
        generation = generation_due(gc.get_count(), self._thresholds, start, self._next_full)
        if generation is None:
            return
        gc.collect(generation)
        if generation == 2:
            self._next_full = start + FULL_SHARE * (time.monotonic() - start)

    def stop(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()
