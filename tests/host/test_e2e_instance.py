"""The app as a process, end to end with real processes: one app per data folder (a second
launch starts nothing and touches nothing), two folders side by side, a crashed app's orphan
agent replaced, a supervisor that never loops (a held port, an invalid setting), and health and
status that tell the truth about a frozen app."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..procs import alive, overwrite_store
from .hostproc import SVC_APP, HostApp
from .site import Site

pytestmark = pytest.mark.e2e

DEADLINE = 2  # the agent's worker deadline in this module (SVC_AGENT_WORKER_DEADLINE)


def poll(check: Callable[[], bool], what: str, timeout: float = 20) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


def records(data_dir: Path, category: str) -> list[dict[str, Any]]:
    path = data_dir / "Logs" / "global.ndjson"
    if not path.exists():
        return []
    lines = path.read_text("utf-8").splitlines()
    return [r for r in map(json.loads, lines) if r["category"] == category]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostApp]:
    a = HostApp(
        tmp_path_factory.mktemp("instance"), env={"SVC_AGENT_WORKER_DEADLINE": str(DEADLINE)}
    )
    a.start()
    try:
        yield a
    finally:
        a.stop()


def _launch(app: HostApp, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SVC_APP, *args],
        env=app.env() | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_second_launch_on_the_folder_starts_nothing(app: HostApp) -> None:
    assert app.proc is not None
    agent = app.agent_pid()
    launched = len(records(app.data_dir, "supervisor.launched"))
    second = _launch(app, "--headless")
    assert second.returncode == 3
    assert second.stderr.strip().splitlines() == [
        f"svc-app is already running on {app.data_dir} (pid {app.proc.pid}); not starting another"
    ]
    # the running app's agent was not touched, and nothing was launched
    assert app.agent_pid() == agent
    assert len(records(app.data_dir, "supervisor.launched")) == launched
    assert len(records(app.data_dir, "host.started")) == 1


def test_an_invalid_agent_port_stops_the_app_at_launch(app: HostApp) -> None:
    bad = _launch(app, "--headless", SVC_AGENT_PORT="70000")
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "svc-app: configuration error: SVC_AGENT_PORT='70000' is not an integer from 1 to 65535"
    )


def test_a_frozen_app_makes_health_unhealthy_without_cancelling_work(
    app: HostApp, site: Site
) -> None:
    assert app.proc is not None
    sid = app.new_session()
    done: list[httpx.Response] = []
    body = {"url": site.url("/slow?s=1.5"), "session_id": sid, "wait": 0}
    mover = threading.Thread(target=lambda: done.append(app.client.post("/v1/navigate", json=body)))
    mover.start()
    poll(lambda: app.ok("GET", "/v1/health")["worker"]["active_count"] == 1, "the navigation")
    os.kill(app.proc.pid, signal.SIGSTOP)  # the app, with its engine, stops answering
    try:

        def unhealthy() -> bool:
            return app.client.get("/v1/health").status_code == 503

        poll(unhealthy, "health to see the frozen engine", timeout=DEADLINE + 8)
        status, error = app.error("GET", "/v1/health")
        assert (status, error["id"]) == (503, "AGENT_UNHEALTHY")
        assert "the engine has not answered the bridge" in error["message"]
        assert error["details"]["worker"]["active_count"] == 1
        # status answers, and does not say ok while health does not
        st = app.ok("GET", "/v1/status")
        agent = next(c for c in st["checks"] if c["id"] == "agent")
        assert agent["status"] == "unhealthy"
        assert "the engine has not answered the bridge" in agent["detail"]
        assert st["overall_status"] != "ok"
    finally:
        os.kill(app.proc.pid, signal.SIGCONT)
    mover.join(30)
    # the navigation was not cancelled: it ends when the app answers again
    assert [r.status_code for r in done] == [200]
    assert done[0].json()["data"]["page"]["url"] == site.url("/slow?s=1.5")
    poll(lambda: app.client.get("/v1/health").status_code == 200, "health to recover")
    assert app.ok("GET", "/v1/status")["overall_status"] == "ok"


def test_a_store_the_worker_cannot_use_fails_it_and_the_agent_is_restarted(app: HostApp) -> None:
    """Another program overwrote the store (a disk fault, a careless restore): the next control
    job fails, the worker reports `failed` in health and status, the supervisor restarts the
    agent, and the new agent moves the damaged file aside and reports it."""
    old = app.agent_pid()
    overwrite_store(app.data_dir)
    status, _ = app.error("POST", "/v1/sessions", {})
    assert status == 500
    status, error = app.error("GET", "/v1/health")
    assert (status, error["id"]) == (503, "AGENT_UNHEALTHY")
    assert error["details"]["worker"]["state"] == "failed"
    agent = next(c for c in app.ok("GET", "/v1/status")["checks"] if c["id"] == "agent")
    assert agent["status"] == "failed"

    def restarted() -> bool:
        with contextlib.suppress(httpx.TransportError, AssertionError, KeyError):
            return app.agent_pid() != old
        return False

    poll(restarted, "the supervisor to restart the agent", timeout=20)
    recovery = app.wait_healthy()["database_recovery"]
    assert recovery is not None
    assert Path(recovery["backup_path"]).is_file()
    # restarted by its failed health, or sooner when a background job of the agent met the
    # store too and stopped it: either way the supervisor's records say so
    ended = [
        r
        for category in ("supervisor.unhealthy", "supervisor.agent_stopped", "supervisor.exited")
        for r in records(app.data_dir, category)
    ]
    assert ended


def _hold_port() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


def test_a_held_port_is_retried_and_recovers_without_a_restart_beside_another_app(
    app: HostApp, tmp_path: Path
) -> None:
    holder = _hold_port()
    other = HostApp(tmp_path / "other")
    other.port = holder.getsockname()[1]
    other.client.base_url = httpx.URL(f"http://127.0.0.1:{other.port}")
    try:
        with contextlib.ExitStack() as stack:
            stack.callback(holder.close)
            other.launch()
            poll(lambda: bool(records(other.data_dir, "supervisor.start_failed")), "a failure")
            failed = records(other.data_dir, "supervisor.start_failed")[0]
            assert failed["level"] == "error"
            assert failed["message"].startswith(
                f"the agent did not start: port {other.port} is held by pid {os.getpid()} ("
            )
            assert failed["message"].endswith("; next attempt in 0.5 s")
        # the port is free now: a later try of the same app gets it
        other.wait_healthy(30)
        status = other.ok("GET", "/v1/status")
        agent = next(c for c in status["checks"] if c["id"] == "agent")
        assert f"port {other.port} is held by pid {os.getpid()}" in agent["detail"]
        assert agent["status"] == "ok"
        # two folders, two ports: both apps run side by side
        assert app.agent_pid() != other.agent_pid()
        assert app.client.get("/v1/health").status_code == 200
    finally:
        other.stop()


def test_an_invalid_setting_is_not_relaunched_in_a_loop(tmp_path: Path) -> None:
    bad = HostApp(tmp_path / "bad", env={"SVC_BROWSER_CONCURRENCY": "many"})
    try:
        bad.launch()
        poll(lambda: bool(records(bad.data_dir, "supervisor.start_failed")), "the failure")
        (failed,) = records(bad.data_dir, "supervisor.start_failed")
        assert failed["message"] == (
            "the agent did not start: configuration error: SVC_BROWSER_CONCURRENCY='many' is "
            "not an integer from 1 to 32; next attempt in 30 s"
        )
        assert failed["data"]["retry_in"] == 30
        time.sleep(1.5)  # what a loop would fill with launches (0.5 s apart before)
        assert len(records(bad.data_dir, "supervisor.launched")) == 1
        assert bad.proc is not None
        assert bad.proc.poll() is None  # the app itself stays up
    finally:
        bad.stop()


def test_a_cold_start_while_the_apps_agent_is_down_waits_for_it(app: HostApp) -> None:
    """`svc` finds no agent (the app's agent died, the app has not relaunched it yet) and
    launches svc-app, which finds the folder held and exits 3: svc waits for the running app's
    agent instead of failing."""
    assert app.proc is not None
    svc = str(Path(SVC_APP).with_name("svc"))
    os.kill(app.proc.pid, signal.SIGSTOP)  # the app cannot relaunch its agent until continued
    try:
        os.kill(app.agent_pid(), signal.SIGKILL)
        with subprocess.Popen(
            [svc, "session", "list"],
            env=app.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as client:
            time.sleep(2)  # its cold start has launched svc-app, which exited 3 meanwhile
            assert client.poll() is None, client.communicate()
            os.kill(app.proc.pid, signal.SIGCONT)
            out, err = client.communicate(timeout=60)
        assert client.returncode == 0, err
        assert "sessions" in json.loads(out)
    finally:
        os.kill(app.proc.pid, signal.SIGCONT)
    app.wait_healthy()


def test_a_crashed_apps_orphan_agent_is_replaced(app: HostApp, site: Site) -> None:
    """Last: it ends the module's app. Its agent, stopped so that it cannot notice its app's
    end, outlives it holding the port: the next app on the folder replaces it."""
    assert app.proc is not None
    sid = app.new_session()
    orphan = app.agent_pid()
    os.kill(orphan, signal.SIGSTOP)
    os.kill(app.proc.pid, signal.SIGKILL)
    app.proc.wait(30)
    again = HostApp(app.data_dir, env=app.extra_env)
    again.port = app.port
    again.client.base_url = app.client.base_url
    try:
        again.start()  # the orphan, continued to take its SIGTERM, may answer this one
        poll(lambda: not alive(orphan), "the orphan to end")
        again.wait_healthy()
        assert again.agent_pid() != orphan
        assert records(app.data_dir, "supervisor.stale_agent")[-1]["message"] == (
            f"terminating stale agent pid {orphan}"
        )
        data = again.ok("POST", "/v1/navigate", {"url": site.url("/"), "session_id": sid})
        assert data["page"]["session_id"] == sid
    finally:
        again.stop()
        if alive(orphan):
            os.kill(orphan, signal.SIGKILL)


def _venv_copy(root: Path) -> Path:
    """A second virtual environment over this one's packages (its own `bin` with `python` and
    `svc-app`), so that a test may take its agent executable away."""
    real = Path(sys.prefix)
    (root / "bin").mkdir(parents=True)
    shutil.copy(real / "pyvenv.cfg", root / "pyvenv.cfg")
    (root / "lib").symlink_to(real / "lib")
    (root / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    shutil.copy(SVC_APP, root / "bin" / "svc-app")
    return root / "bin" / "python"


def test_a_missing_agent_executable_is_reported_not_looped(tmp_path: Path) -> None:
    python = _venv_copy(tmp_path / "venv")
    gone = HostApp(tmp_path / "gone")
    try:
        gone.launch(command=[str(python), "-m", "host_app"]).wait_healthy()
        (python.parent / "svc-app").unlink()  # an update that removed it, a broken install
        os.kill(gone.agent_pid(), signal.SIGKILL)

        def slow() -> bool:
            tries = records(gone.data_dir, "supervisor.start_failed")
            return bool(tries) and tries[-1]["message"].endswith("; next attempt in 30 s")

        poll(slow, "the quick tries to end")
        tries = records(gone.data_dir, "supervisor.start_failed")
        missing = [r for r in tries if "could not be run" in r["message"]]
        assert missing[0]["message"].startswith(
            f"the agent did not start: the agent could not be run ({python.parent / 'svc-app'}): "
        )
        # the killed one ran under 10 s: it counts (as stopped, or as not started when the
        # supervisor had not seen it healthy yet) before the three quick tries
        assert len(missing) == 3
        stopped = records(gone.data_dir, "supervisor.agent_stopped")
        assert len(tries) + len(stopped) == 4
        time.sleep(1.5)  # a loop would launch 3 more by then
        assert len(records(gone.data_dir, "supervisor.start_failed")) == len(tries)
        assert gone.proc is not None
        assert gone.proc.poll() is None
    finally:
        gone.stop()
