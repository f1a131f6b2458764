"""Everything a route handler may use, built once at start-up and passed down."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import trio

from .config import AgentConfig
from .logs import LogWriter
from .scheduler import Scheduler
from .sessions import Sessions
from .store import Store

if TYPE_CHECKING:
    from .bridge_client import BridgeClient

VERSION = "0.1.0"


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


@dataclass
class AgentContext:
    config: AgentConfig
    store: Store
    logs: LogWriter
    scheduler: Scheduler
    sessions: Sessions
    bridge: BridgeClient | None
    worker: WorkerState = field(default_factory=WorkerState)
    services: dict[str, Any] = field(default_factory=dict)
    pid: int = field(default_factory=os.getpid)
    started_at: float = field(default_factory=time.time)
    build: dict[str, Any] | None = None
    version: str = VERSION
    # set when the agent begins to stop (a signal, or the app closed the bridge)
    stopping: trio.Event = field(default_factory=trio.Event)
