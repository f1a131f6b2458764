"""Python's collector deleted the app's Qt objects from other threads: with a probe on the
collector (stop 30), the event loop's own timers, Python-owned and held in reference cycles,
were collected in the asset fetch threads (`svc-asset-loop`, `svc-asset_3`), which allocate
the most; a Qt object deleted off its thread corrupts memory, the likely cause of the app's
rare segmentation faults while busy sessions were deleted. `host_app.collector` runs every
collection on the main thread, from the event loop. Run in a child process (the collector is
process-wide): without it a worker thread deletes the Qt object, with it the main thread
does, and still within a second."""

from __future__ import annotations

import pytest

from host_app.collector import FULL_SHARE, generation_due
from tests.procs import python_child

pytestmark = pytest.mark.e2e

CHILD = """
import gc, sys, threading, weakref
from PyQt6.QtCore import QCoreApplication, QTimer
from host_app.collector import MainThreadCollector

app = QCoreApplication([])
collector = MainThreadCollector() if sys.argv[1] == "main" else None
deleted_in = []
refs = []


def garbage():
    # owned by Python and in a cycle, like the event loop's timers were: the thread that
    # deallocates the wrapper (where the weak reference's callback runs) deletes the C++ timer
    timer = QTimer()
    timer.cycle = timer
    timer.start(60_000)
    refs.append(weakref.ref(timer, lambda _: deleted_in.append(threading.current_thread().name)))


def churn():
    # what a fetch thread does: allocate, some of it in cycles
    for _ in range(200_000):
        a = [None]
        a[0] = a


gc.collect()
garbage()
worker = threading.Thread(target=churn, name="worker")
worker.start()
worker.join()
QTimer.singleShot(1000, app.quit)
app.exec()
print(deleted_in, gc.isenabled())
if collector is not None:
    collector.stop()
    print(gc.isenabled())
"""


def run_child(mode: str) -> list[str]:
    done = python_child(CHILD, mode)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_qt_object_in_a_cycle_is_deleted_on_the_main_thread() -> None:
    assert run_child("bare") == ["['worker'] True"]  # CPython's default, the bug
    assert run_child("main") == ["['MainThread'] False", "True"]


def test_full_collections_take_at_most_a_share_of_the_time() -> None:
    """A full collection stops the event loop while it walks every object: one that took 50 ms
    allows the next only after 5 s (FULL_SHARE); meanwhile the younger generations are
    collected as CPython would."""
    thresholds = (700, 10, 10)
    assert FULL_SHARE * 0.05 == 5.0
    assert generation_due((701, 11, 11), thresholds, 100.0, 0.0) == 2
    assert generation_due((701, 11, 11), thresholds, 104.9, 105.0) == 1
    assert generation_due((701, 5, 11), thresholds, 104.9, 105.0) == 0
    assert generation_due((701, 5, 11), thresholds, 105.0, 105.0) == 2
    assert generation_due((700, 10, 10), thresholds, 200.0, 0.0) is None
