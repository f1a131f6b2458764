"""The control worker: configuration changes run one at a time, in arrival order.

Health watches it: a job still running past its deadline, or a worker that failed, makes health
answer AGENT_UNHEALTHY (without cancelling the job: deadlines diagnose, they do not kill).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import trio

T = TypeVar("T")


@dataclass
class WorkerState:
    """The control worker's health snapshot (spec: starting, idle or busy)."""

    state: str = "starting"
    failed: str | None = None
    busy_since: float | None = None
    deadline_seconds: float = 30.0

    def snapshot(self, active_count: int) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state, "active_count": active_count}
        if self.failed:
            out["error"] = self.failed
        return out


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
            finally:
                self.state.busy_since = None

    def overdue(self) -> bool:
        since = self.state.busy_since
        return since is not None and trio.current_time() - since > self.state.deadline_seconds
