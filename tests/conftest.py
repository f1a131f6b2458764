"""Run-wide guard: every process a test starts is stopped by the end of the run.

svc-app, svc-keyserver and agent processes started during the run and still alive at its end
are killed and reported as an error, so a leak (say, a client that cold-started an app on the
default port) fails CI instead of lingering on the machine. Processes are told apart by run:
each run marks its environment with its own `_SVC_TEST_RUN`, inherited by what it starts, and
processes of another run (another checkout testing beside this one) are left alone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.host.site import Site
from tests.procs import alive

WATCHED = ("svc-app", "svc-keyserver", "-m agent")
RUN_MARK = "_SVC_TEST_RUN"
os.environ[RUN_MARK] = RUN_ID = uuid.uuid4().hex


def _other_run(pid: str) -> bool:
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    prefix = f"{RUN_MARK}=".encode()
    marks = [e[len(prefix) :].decode(errors="replace") for e in env if e.startswith(prefix)]
    return bool(marks) and marks[0] != RUN_ID


def _ours() -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if (
            any(w in cmdline for w in WATCHED)
            and int(entry.name) != os.getpid()
            and not _other_run(entry.name)
        ):
            found.add(int(entry.name))
    return found


@pytest.fixture(scope="session", autouse=True)
def no_process_outlives_the_run() -> Iterator[None]:
    before = _ours()
    yield
    deadline = time.monotonic() + 10
    leaked = {p for p in _ours() - before if alive(p)}
    while leaked and time.monotonic() < deadline:
        time.sleep(0.1)
        leaked = {p for p in leaked if alive(p)}
    for pid in leaked:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not leaked, f"processes started by the tests outlived the run: {sorted(leaked)}"


@pytest.fixture(scope="session")
def site() -> Iterator[Site]:
    """The one local fixture site of the run (host, clients and observation tests share it)."""
    s = Site().start()
    try:
        yield s
    finally:
        s.stop()


# Fixtures that start a process (the agent, the app, the key server): a test that uses one is an
# end-to-end test whatever its module says, so `make test-fast` (-m "not e2e") leaves it out.
# Real-window (gui) tests start Xvfb and the app: end to end too.
PROCESS_FIXTURES = frozenset(
    {"shared_agent", "agent", "make_agent", "pair", "host", "fresh", "server"}
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if PROCESS_FIXTURES & uses or item.get_closest_marker("gui") is not None:
            item.add_marker(pytest.mark.e2e)
