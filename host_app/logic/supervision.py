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
    """Run from source: is this process command line our own agent, `<python> <svc-app> --agent`,
    where svc-app is this installation's entry point script (the process image is the shared
    Python interpreter, so only the script tells one virtualenv from another)?"""
    if not cmdline or cmdline[-1] != "--agent":
        return False
    want = os.path.realpath(executable)
    return any(os.path.realpath(arg) == want for arg in cmdline[:-1])


def bundled_agent_matches(cmdline: list[str], image: str | None, executable: str) -> bool:
    """A bundle: is this process our own agent, the bundle's `svc-app` executable itself (its
    process image, whatever argv[0] says) started as `svc-app --agent`? An agent of another
    bundle, a copy elsewhere included, has another image."""
    if image is None or not cmdline or cmdline[-1] != "--agent":
        return False
    return os.path.realpath(image) == os.path.realpath(executable)


def read_cmdline(pid: int, proc: Path = Path("/proc")) -> list[str] | None:
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


def read_image(pid: int, proc: Path = Path("/proc")) -> str | None:
    """The executable file a process runs (`/proc/<pid>/exe`); None when it cannot be read."""
    try:
        image = os.readlink(proc / str(pid) / "exe")
    except OSError:
        return None
    # an executable replaced after the process started (a bundle unpacked again over itself)
    # reads "<path> (deleted)": still the agent of the bundle at that path
    return image.removesuffix(" (deleted)")


def is_own_agent(
    pid: int, executable: str, proc: Path = Path("/proc"), *, bundled: bool = False
) -> bool:
    """Spec 1 lifecycle rule 4: does `pid` resolve to this installation's agent executable? A
    bundle compares the process image with its own `svc-app`; from source, the command line
    with the virtualenv's `svc-app` entry point."""
    if pid <= 1 or pid == os.getpid():
        return False
    cmdline = read_cmdline(pid, proc)
    if cmdline is None:
        return False
    if bundled:
        return bundled_agent_matches(cmdline, read_image(pid, proc), executable)
    return agent_command_matches(cmdline, executable)
