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

from .qt import QTimer

# often enough that garbage from busy fetch threads never piles up for long; each tick costs
# one gc.get_count() when there is nothing to do
INTERVAL_MS = 200


class MainThreadCollector:
    """Turns the automatic collector off for the life of the app (until `stop`)."""

    def __init__(self) -> None:
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = QTimer()
        self._timer.timeout.connect(self.tick)
        self._timer.start(INTERVAL_MS)

    def tick(self) -> None:
        """One collection of the oldest generation whose count is past its threshold, as
        CPython would have chosen: generation 0 counts allocations, the older ones count
        collections of the younger."""
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self._thresholds[generation]:
                gc.collect(generation)
                return

    def stop(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()
