"""Run-wide guard: every process a test starts is stopped by the end of the run.

svc-app, svc-keyserver and agent processes started during the run and still alive at its end
are killed and reported as an error, so a leak (say, a client that cold-started an app on the
default port) fails CI instead of lingering on the machine. Processes are told apart by run:
each run marks its environment with its own `_SVC_TEST_RUN`, inherited by what it starts (a
test that builds an environment of its own puts the mark in it), and only processes with this
run's mark are watched: those of another run (another checkout testing beside this one) and
unmarked ones (an app a developer or a benchmark started on the same machine) are left alone.

Under pytest-xdist (`make test` runs the suite in worker processes) each worker is a run of
its own for this guard: its mark is the run's id and the worker's name, so a worker that ends
checks and kills only what its own tests started, never the live processes of a worker still
at work.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.host.site import Site
from tests.procs import alive

WATCHED = ("svc-app", "svc-keyserver", "-m agent")
RUN_MARK = "_SVC_TEST_RUN"
# xdist gives each worker the run's id and its own name (gw0, gw1, ...); a run without xdist has
# one process, its own id.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
_XDIST_RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID")
RUN_ID = f"{_XDIST_RUN}-{_WORKER}" if _WORKER and _XDIST_RUN else uuid.uuid4().hex
os.environ[RUN_MARK] = RUN_ID


def _this_run(pid: str) -> bool:
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    return f"{RUN_MARK}={RUN_ID}".encode() in env


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
            and _this_run(entry.name)
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


# Modules that `make test` runs after the parallel run, in a process of their own with no other
# test beside them: the first-capture test's captures have a 30 s deadline among busy pages,
# which two parallel fresh-clone runs missed (30.1 s, 30.2 s) while the other worker ran tests.
ALONE = frozenset({"tests/host/test_e2e_first_capture.py"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if PROCESS_FIXTURES & uses or item.get_closest_marker("gui") is not None:
            item.add_marker(pytest.mark.e2e)
        if item.nodeid.split("::", 1)[0] in ALONE:
            item.add_marker(pytest.mark.alone)


# The schedule under pytest-xdist (`make test`: --dist loadfile). A work unit is a test module,
# so a module's fixtures (its app, its agent) start once, on one worker; the key server's
# modules are one unit, since they share session fixtures that are dear to start (a PostgreSQL
# cluster, a server per store). Units are handed out longest first (the longest-processing-time
# rule), so that the run does not end waiting on a long module started last: the long ones are
# named here with their seconds in a run of two workers on a 2-core machine; every other unit
# counts as short, in xdist's own order (most tests first).
UNIT_OF_FOLDER = {"tests/keyserver/": "tests/keyserver"}
LONG_UNITS = {
    "tests/test_bundle.py": 125,  # a PyInstaller build, CPU bound
    "tests/keyserver": 85,
    "tests/host/test_e2e_corpus.py": 50,
    "tests/agent/test_schemathesis.py": 45,
    "tests/host/test_e2e_conformance.py": 45,
    "tests/host/test_e2e_frames.py": 40,
    "tests/agent/test_lifecycle.py": 35,
    "tests/host/test_e2e_adblock.py": 35,
    "tests/host/test_gui_window.py": 35,
    "tests/host/test_e2e_instance.py": 30,
    "tests/clients/test_mcp_e2e.py": 30,
    "tests/host/test_e2e_actionability.py": 30,
    "tests/host/test_e2e_restart.py": 30,
    "tests/clients/test_cli_e2e.py": 30,
    "tests/clients/test_cli_proxy_e2e.py": 25,
    "tests/host/test_e2e_observations.py": 25,
    "tests/host/test_e2e_detectors.py": 25,
    "tests/host/test_e2e_shared_assets.py": 20,
    "tests/host/test_e2e_navigation.py": 20,
    "tests/host/test_e2e_memory.py": 20,
}


def _unit(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    return next((u for f, u in UNIT_OF_FOLDER.items() if path.startswith(f)), path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

    class LongestFirst(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            longest = max(self.workqueue, key=lambda unit: LONG_UNITS.get(unit, 0.0))
            self.workqueue.move_to_end(longest, last=False)
            super()._assign_work_unit(node)

    return LongestFirst(config, log)
