"""Supervisor decisions (spec 1 lifecycle rules 3-6) without processes or timers."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

FIRST_POLL = 0.5
POLL_INTERVAL = 2.0
MAX_FAILURES = 3
# Stop: SIGTERM, then SIGKILL when the agent has not exited after this many seconds.
STOP_DEADLINE = 3.0
RESTART_BACKOFF = (0.5, 1.0, 2.0, 5.0)


@dataclass(slots=True)
class HealthCounter:
    failures: int = 0

    def success(self) -> None:
        self.failures = 0

    def failure(self) -> bool:
        """Record a failed poll; True when the child must be restarted."""
        self.failures += 1
        return self.failures >= MAX_FAILURES


def backoff(restarts: int) -> float:
    return RESTART_BACKOFF[min(restarts, len(RESTART_BACKOFF) - 1)]


def agent_command_matches(cmdline: list[str], executable: str) -> bool:
    """Is this process command line our own agent: `<python> <svc-app> --agent` or
    `<svc-app> --agent`, where svc-app is this installation's executable?"""
    if not cmdline or cmdline[-1] != "--agent":
        return False
    want = os.path.realpath(executable)
    return any(os.path.realpath(arg) == want for arg in cmdline[:-1])


def read_cmdline(pid: int, proc: Path = Path("/proc")) -> list[str] | None:
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


def is_own_agent(pid: int, executable: str, proc: Path = Path("/proc")) -> bool:
    if pid <= 1 or pid == os.getpid():
        return False
    cmdline = read_cmdline(pid, proc)
    return cmdline is not None and agent_command_matches(cmdline, executable)
