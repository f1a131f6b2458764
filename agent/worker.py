"""The control worker: configuration changes run one at a time, in arrival order.

Health watches it: a job still running past its deadline, a worker that failed, an engine that
did not answer by the startup deadline or stopped answering the bridge for as long make health
answer AGENT_UNHEALTHY (without cancelling the job: deadlines diagnose, they do not kill).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import apsw
import msgspec
import trio

from .health_responses import WorkerShown, WorkerStateName

T = TypeVar("T")

# store errors after which the worker cannot go on: the file is damaged, gone or full (a busy
# store is not one: the next job may get it)
FATAL_STORE_ERRORS = (
    apsw.CorruptError,
    apsw.NotADBError,
    apsw.IOError,
    apsw.FullError,
    apsw.CantOpenError,
    apsw.ReadOnlyError,
)


@dataclass
class WorkerState:
    """The control worker's health snapshot (spec: starting, idle or busy; failed when a job
    met a store it cannot use)."""

    state: str = "starting"
    failed: str | None = None
    busy_since: float | None = None
    deadline_seconds: float = 30.0
    # trio time the engine watch started (the bridge opened), for the startup deadline
    started_at: float | None = None
    # the engine has not answered its first ping yet (agent/engine_watch.py); False without one
    awaiting_engine: bool = False
    # trio time since which a ping waits for the engine's answer (None: none waits)
    engine_waiting_since: float | None = None

    def reported_state(self, active_count: int) -> WorkerStateName:
        if self.failed:
            return "failed"
        if self.state == "starting" or self.awaiting_engine:
            return "starting"
        return "busy" if active_count or self.busy_since is not None else "idle"

    def snapshot(self, active_count: int) -> WorkerShown:
        return WorkerShown(
            state=self.reported_state(active_count),
            active_count=active_count,
            error=self.failed or msgspec.UNSET,
        )

    def problem(self, now: float) -> str | None:
        """Why health answers AGENT_UNHEALTHY now, or None."""
        limit = self.deadline_seconds
        if self.failed:
            return f"the control worker failed: {self.failed}"
        if self.busy_since is not None and now - self.busy_since > limit:
            return f"a control job has run for more than its {limit:g} s deadline"
        started = self.started_at
        if self.reported_state(0) == "starting" and started is not None and now - started > limit:
            return f"the engine did not answer within {limit:g} s of the agent's start"
        waiting = self.engine_waiting_since
        if waiting is not None and now - waiting > limit:
            return f"the engine has not answered the bridge for {now - waiting:.0f} s"
        return None


class ControlWorker:
    def __init__(self, state: WorkerState) -> None:
        self.state = state
        self._lock = trio.StrictFIFOLock()

    def started(self) -> None:
        self.state.state = "idle"

    async def run(self, job: Callable[[], Awaitable[T]]) -> T:
        async with self._lock:
            self.state.busy_since = trio.current_time()
            try:
                return await job()
            except FATAL_STORE_ERRORS as exc:
                self.state.failed = f"the store cannot be used: {type(exc).__name__}: {exc}"
                raise
            finally:
                self.state.busy_since = None
