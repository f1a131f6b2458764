"""Supervisor decisions (spec 1 lifecycle rules 3-6) without processes or timers."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

FIRST_POLL = 0.5
POLL_INTERVAL = 2.0  # from the launch, whatever the replies take (spec 1 lifecycle rule 5)
POLL_TIMEOUT = 1.5
MAX_FAILURES = 3
# Stop: SIGTERM, then SIGKILL when the agent has not exited after this many seconds.
STOP_DEADLINE = 3.0
# Relaunches after an agent that ended before it had run STABLE seconds healthy: three quick
# tries, then one per SLOW_RETRY (a held port, a bad setting, a missing executable relaunched
# every 0.5 s forever: 25 records in a few seconds). A cause that goes away (the port freed)
# is found by the next slow try, without a restart of the app.
QUICK_RETRIES = (0.5, 1.0, 2.0)
SLOW_RETRY = 30.0
STABLE = 10.0
# the agent's exit status for an invalid setting (agent/main.py): a relaunch cannot fix it
EXIT_CONFIG = 2


@dataclass(slots=True)
class HealthCounter:
    failures: int = 0

    def success(self) -> None:
        self.failures = 0

    def failure(self) -> bool:
        """Record a failed poll; True when the child must be restarted."""
        self.failures += 1
        return self.failures >= MAX_FAILURES


def backoff(failures: int) -> float:
    """The wait before the relaunch that follows `failures` failed starts in a row (1: the
    first failure)."""
    if 0 < failures <= len(QUICK_RETRIES):
        return QUICK_RETRIES[failures - 1]
    return SLOW_RETRY


@dataclass(slots=True)
class Starts:
    """Failed starts in a row: an agent that ended without having run STABLE seconds healthy
    failed to start (it could not bind its port, refused its settings, never answered)."""

    failures: int = 0
    last_cause: str = ""
    last_at: float = 0.0  # wall-clock time of the last failure

    def ended(self, *, healthy_for: float, code: int, cause: str, at: float) -> float:
        """Record an exit; the wait before the relaunch."""
        if healthy_for >= STABLE:
            self.failures = 0
            return backoff(1)
        self.failures += 1
        self.last_cause, self.last_at = cause, at
        if code == EXIT_CONFIG:  # the same settings fail the same way: no quick tries
            self.failures = max(self.failures, len(QUICK_RETRIES) + 1)
        return backoff(self.failures)

    def summary(self) -> str:
        """For the next agent's status (SVC_AGENT_START_FAILURES): '' when the last start did not
        fail."""
        if not self.failures:
            return ""
        when = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.last_at))
        many = "start" if self.failures == 1 else f"{self.failures} starts in a row"
        return f"the agent's last {many} failed, the last at {when}: {self.last_cause}"


def exit_cause(code: int, last_line: str, port: int, holders: list[str]) -> str:
    """Why an agent that exited with `code` did not start, for a person: its last stderr line
    (the agent prints one for each way it stops at start), and who holds its port."""
    line = last_line.strip().removeprefix("svc agent: ")
    if code == EXIT_CONFIG:
        return line or "an invalid setting"
    if "address already in use" in line.lower() or "errno 98" in line.lower():
        held = f" by {', '.join(holders)}" if holders else " by another program"
        return f"port {port} is held{held}"
    if line:
        return f"exited with {code}: {line}"
    return f"exited with {code}"


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


def read_data_dir(pid: int, proc: Path = Path("/proc")) -> Path | None:
    """The data folder an agent process serves: SVC_DATA_DIR of its environment, as its
    supervisor set it (None when it cannot be read)."""
    try:
        raw = (proc / str(pid) / "environ").read_bytes()
    except OSError:
        return None
    for entry in raw.split(b"\0"):
        if entry.startswith(b"SVC_DATA_DIR="):
            value = entry.removeprefix(b"SVC_DATA_DIR=").decode("utf-8", "replace")
            return Path(value).expanduser().resolve() if value else None
    return None


def is_stale_agent(
    pid: int, executable: str, data_dir: Path, proc: Path = Path("/proc"), *, bundled: bool = False
) -> bool:
    """Spec 1 lifecycle rule 4, with the data folder: this installation's agent serving this
    folder. The caller holds the folder's lock, so no live app owns that agent: it is an orphan.
    Another folder's agent on the same port belongs to another app and is left alone."""
    return (
        is_own_agent(pid, executable, proc, bundled=bundled)
        and read_data_dir(pid, proc) == data_dir.resolve()
    )


def listening_pids(port: int, proc: Path = Path("/proc")) -> list[int]:
    """The processes with a TCP socket listening on `port` (IPv4 or IPv6), as far as /proc lets
    this user see: a stale agent that hangs or answers without its pid is found so."""
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if (
                len(fields) > 9
                and fields[3] == "0A"
                and fields[1].rsplit(":", 1)[-1] == f"{port:04X}"
            ):
                inodes.add(fields[9])
    if not inodes:
        return []
    wanted = {f"socket:[{inode}]" for inode in inodes}
    found: list[int] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) in wanted:
                    found.append(int(entry.name))
                    break
            except OSError:
                continue
    return sorted(found)


def describe_pid(pid: int, proc: Path = Path("/proc")) -> str:
    cmdline = read_cmdline(pid, proc) or []
    name = os.path.basename(cmdline[0]) if cmdline else "?"
    if cmdline[-1:] == ["--agent"]:
        folder = read_data_dir(pid, proc)
        return f"pid {pid} (the svc agent of {folder})" if folder else f"pid {pid} (an svc agent)"
    return f"pid {pid} ({name})"
