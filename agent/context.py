"""Facts about the running agent process that several rooms share (health, status, browser)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import trio

from .health_responses import Build

VERSION = "0.1.0"


@dataclass(frozen=True)
class AgentProcess:
    """This process's identity and its stop trigger, fixed at start-up."""

    version: str = VERSION
    pid: int = field(default_factory=os.getpid)
    started_at: float = field(default_factory=time.time)
    build: Build | None = None  # the bundle's (agent/build_info.py); None from source
    # set when the agent begins to stop (a signal, or the app closed the bridge)
    stopping: trio.Event = field(default_factory=trio.Event)
