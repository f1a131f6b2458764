"""The agent process: configuration errors, clean SIGTERM, crash safety of the store, recovery of
a foreign store file, session lifetimes, and log files."""

from __future__ import annotations

import json
import multiprocessing
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import apsw
import httpx
import pytest

import bridge_protocol as bp
from agent.logs import append_line

from ..procs import overwrite_store
from .agentproc import SVC_APP, AgentProcess

pytestmark = pytest.mark.e2e  # starts agent / key server processes


def poll(predicate: Callable[[], bool], timeout: float = 10, step: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met before the deadline")
        time.sleep(step)


@pytest.mark.parametrize("value", ["0", "33", "abc", "8.5", "-1"])
def test_invalid_concurrency_stops_start_up_with_one_line(tmp_path: Path, value: str) -> None:
    agent = AgentProcess(tmp_path, env={"SVC_BROWSER_CONCURRENCY": value})
    result = subprocess.run(
        [SVC_APP, "--agent"], env=agent.env(), capture_output=True, timeout=30, check=False
    )
    assert result.returncode != 0
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert "SVC_BROWSER_CONCURRENCY" in lines[0]
    assert "configuration error" in lines[0]
    assert result.stdout == b""  # stdout is the bridge: nothing else may appear there


def test_sigterm_cancels_work_closes_the_store_and_exits_within_two_seconds(
    make_agent: Callable[..., AgentProcess],
) -> None:
    agent = make_agent()
    assert agent.host is not None
    agent.host.answer = lambda request: (30.0, bp.Done())
    sid = agent.ok("POST", "/v1/sessions")["session"]["id"]
    outcome: list[object] = []

    def pause() -> None:
        try:
            outcome.append(agent.request("POST", f"/v1/sessions/{sid}/pause").status_code)
        except httpx.TransportError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=pause)
    worker.start()
    poll(lambda: agent.host is not None and len(agent.host.requests) >= 1)
    assert agent.proc is not None
    started = time.monotonic()
    agent.proc.send_signal(signal.SIGTERM)
    assert agent.proc.wait(timeout=2) == 0
    elapsed = time.monotonic() - started
    worker.join(5)
    assert outcome, "the in-flight request was left hanging"
    assert elapsed < 2
    db = apsw.Connection(str(agent.data_dir / "svc-agent.sqlite3"))
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()


def test_kill_9_right_after_writes_loses_nothing(make_agent: Callable[..., AgentProcess]) -> None:
    agent = make_agent()
    made = [
        agent.ok("POST", "/v1/sessions", {"name": f"crash-{i}", "group": "g"})["session"]
        for i in range(20)
    ]
    renamed = agent.ok("PATCH", f"/v1/sessions/{made[0]['id']}", {"name": "renamed"})["session"]
    agent.ok("DELETE", f"/v1/sessions/{made[1]['id']}")
    agent.kill9()  # at once: no time for any flush beyond what the API already reported
    db = apsw.Connection(str(agent.data_dir / "svc-agent.sqlite3"))
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()
    again = AgentProcess(agent.data_dir).start()
    try:
        sessions = {s["id"]: s for s in again.ok("GET", "/v1/sessions")["sessions"]}
        assert sessions[renamed["id"]]["name"] == "renamed"
        assert made[1]["id"] not in sessions
        for s in made[2:]:
            assert sessions[s["id"]] == s
        assert again.ok("GET", "/v1/health")["database_recovery"] is None
    finally:
        again.close()


def test_a_store_of_another_schema_is_kept_aside_and_reported(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    store = tmp_path / "svc-agent.sqlite3"
    db = apsw.Connection(str(store))
    db.execute("CREATE TABLE browser_profiles(id INTEGER PRIMARY KEY, legacy TEXT)")
    db.execute("INSERT INTO browser_profiles(legacy) VALUES('old row')")
    db.close()
    agent = AgentProcess(tmp_path).start()
    try:
        report = agent.ok("GET", "/v1/health")["database_recovery"]
        assert report["issue_count"] >= 1
        assert report["retained_sessions"] == 0
        backup = Path(report["backup_path"])
        assert backup.exists()
        assert apsw.Connection(str(backup)).execute(
            "SELECT legacy FROM browser_profiles"
        ).fetchall() == [("old row",)]
        assert json.loads(Path(report["report_path"]).read_text())["problems"]
        assert agent.ok("GET", "/v1/sessions")["sessions"] == []
        agent.ok("POST", "/v1/sessions")
    finally:
        agent.close()
    again = AgentProcess(tmp_path).start()
    try:
        assert again.ok("GET", "/v1/health")["database_recovery"] == report
        assert len(again.ok("GET", "/v1/sessions")["sessions"]) == 1
    finally:
        again.close()


def test_inactive_sessions_expire_and_cannot_be_pinged_back(agent: AgentProcess) -> None:
    short = {"lifetime": {"type": "inactivity", "timeout_seconds": 1}}
    sid = agent.ok("POST", "/v1/sessions", short)["session"]["id"]
    forever = agent.ok("POST", "/v1/sessions", {"lifetime": {"type": "indefinite"}})["session"]
    assert forever["lifetime"] == {"type": "indefinite"}

    def gone() -> bool:
        agent.ok("GET", "/v1/sessions")  # listing does not refresh inactivity
        return agent.request("GET", f"/v1/sessions/{sid}").status_code == 404

    poll(gone, timeout=6)
    status, error = agent.error("POST", f"/v1/sessions/{sid}/ping")
    assert (status, error["id"]) == (404, "SESSION_NOT_FOUND")
    agent.ok("GET", f"/v1/sessions/{forever['id']}")


def test_ping_keeps_a_session_alive(agent: AgentProcess) -> None:
    sid = agent.ok(
        "POST", "/v1/sessions", {"lifetime": {"type": "inactivity", "timeout_seconds": 2}}
    )["session"]["id"]
    until = time.monotonic() + 3.5
    while time.monotonic() < until:
        pong = agent.ok("POST", f"/v1/sessions/{sid}/ping")
        assert pong["session_id"] == sid
        time.sleep(0.5)
    agent.ok("GET", f"/v1/sessions/{sid}")


def test_logs_are_ndjson_with_the_federated_session_id(
    make_agent: Callable[..., AgentProcess],
) -> None:
    agent = make_agent()
    sid = agent.ok("POST", "/v1/sessions")["session"]["id"]
    number = sid.removeprefix("Session")
    session_log = agent.data_dir / "Logs" / "sessions" / f"{number}.ndjson"
    records = [json.loads(line) for line in session_log.read_text().splitlines()]
    assert records[0]["category"] == "session.created"
    federated = records[0]["session_id"]
    assert re.fullmatch(rf"machine-[0-9A-F-]{{36}}\.Session{number}", federated)
    for record in records:
        assert {"id", "created_at", "category", "level", "message"} <= record.keys()
    global_log = agent.data_dir / "Logs" / "global.ndjson"
    categories = [json.loads(line)["category"] for line in global_log.read_text().splitlines()]
    assert "agent.started" in categories
    agent.stop()
    again = AgentProcess(agent.data_dir).start()
    try:
        other = again.ok("POST", "/v1/sessions")["session"]["id"]
        line = (
            agent.data_dir / "Logs" / "sessions" / f"{other.removeprefix('Session')}.ndjson"
        ).read_text()
        # The installation UUID is stable across restarts.
        assert (
            json.loads(line.splitlines()[0])["session_id"].split(".")[0] == federated.split(".")[0]
        )
    finally:
        again.close()


def _append_many(path: str, tag: str) -> None:
    for i in range(2000):
        append_line(
            Path(path), json.dumps({"writer": tag, "i": i, "pad": "x" * 300}).encode() + b"\n"
        )


def test_two_processes_append_to_one_log_without_tearing_lines(tmp_path: Path) -> None:
    path = tmp_path / "shared.ndjson"
    ctx = multiprocessing.get_context("spawn")
    writers = [ctx.Process(target=_append_many, args=(str(path), tag)) for tag in "ab"]
    for w in writers:
        w.start()
    for w in writers:
        w.join(60)
        assert w.exitcode == 0
    lines = path.read_text().splitlines()
    assert len(lines) == 4000
    records = [json.loads(line) for line in lines]
    for tag in "ab":
        assert [r["i"] for r in records if r["writer"] == tag] == list(range(2000))


def test_a_control_job_past_its_deadline_makes_health_unhealthy(
    make_agent: Callable[..., AgentProcess],
) -> None:
    agent = make_agent(env={"SVC_AGENT_WORKER_DEADLINE": "1"})
    assert agent.host is not None
    sid = agent.ok("POST", "/v1/sessions")["session"]["id"]
    # Closing a session is a control job that waits for the host; the host takes 3 s.
    agent.host.answer = lambda request: (3.0, bp.Done())
    done: list[int] = []
    closer = threading.Thread(
        target=lambda: done.append(agent.request("DELETE", f"/v1/sessions/{sid}").status_code)
    )
    closer.start()
    try:

        def unhealthy() -> bool:
            return agent.request("GET", "/v1/health").status_code == 503

        poll(unhealthy, timeout=5)
        status, error = agent.error("GET", "/v1/health")
        assert (status, error["id"]) == (503, "AGENT_UNHEALTHY")
        assert error["details"]["worker"]["state"] == "busy"
        assert "active_count" in error["details"]["worker"]
        # Status still answers 200 while health is unhealthy.
        assert agent.request("GET", "/v1/status").status_code == 200
    finally:
        closer.join(10)
    assert done == [200]  # the deadline diagnosed the stall; it did not cancel the job
    assert agent.ok("GET", "/v1/health")["worker"]["state"] == "idle"


def test_request_history_is_bounded(tmp_path: Path) -> None:
    from agent.store import HISTORY_LIMIT, Store

    store = Store(tmp_path / "s.sqlite3")
    try:
        for i in range(HISTORY_LIMIT + 250):
            store.record_request(f"req_{i}", "capture", "Session1", "https://x.test/")
            store.record_event(f"req_{i}", "capture.started", {"i": i})
        kept = store.query_one("SELECT count(*) AS n FROM requests")
        assert kept is not None
        assert HISTORY_LIMIT <= kept["n"] < HISTORY_LIMIT + 100
        oldest = store.query_one("SELECT min(seq) AS s FROM requests")
        assert oldest is not None
        assert oldest["s"] > 200
        orphans = store.query_one(
            "SELECT count(*) AS n FROM events WHERE request_id NOT IN (SELECT id FROM requests)"
        )
        assert orphans is not None
        # Events of pruned requests go with them (the newest request's events may trail by one).
        assert orphans["n"] <= 1
    finally:
        store.close()


def test_a_store_that_cannot_be_used_fails_the_worker(
    make_agent: Callable[..., AgentProcess],
) -> None:
    """Another program overwrote the store (a disk fault, a careless restore): the next control
    job cannot use it, the worker reports `failed` and health and status say so (the supervisor
    then restarts the agent, which recovers the store: test_store's recovery tests)."""
    agent = make_agent()
    assert agent.ok("GET", "/v1/health")["worker"]["state"] == "idle"
    overwrite_store(agent.data_dir)
    status, error = agent.error("POST", "/v1/sessions", {})
    assert status == 500
    status, error = agent.error("GET", "/v1/health")
    assert (status, error["id"]) == (503, "AGENT_UNHEALTHY")
    assert error["message"].startswith("the control worker failed: the store cannot be used: ")
    assert error["details"]["worker"]["state"] == "failed"
    check = next(c for c in agent.ok("GET", "/v1/status")["checks"] if c["id"] == "agent")
    assert check["status"] == "failed"


def test_an_engine_that_never_answers_fails_the_startup_deadline(tmp_path: Path) -> None:
    agent = AgentProcess(tmp_path / "mute", env={"SVC_AGENT_WORKER_DEADLINE": "1"})
    try:
        agent.start(wait=False, answering=False)  # an app whose event loop never runs

        def answers() -> bool:
            try:
                return agent.request("GET", "/v1/health").status_code in (200, 503)
            except httpx.TransportError:
                return False

        poll(answers, timeout=20)
        first = agent.request("GET", "/v1/health")
        if first.status_code == 200:  # within the deadline: starting, not idle
            assert first.json()["data"]["worker"]["state"] == "starting"
        poll(lambda: agent.request("GET", "/v1/health").status_code == 503, timeout=5)
        _, error = agent.error("GET", "/v1/health")
        assert error["id"] == "AGENT_UNHEALTHY"
        assert error["message"] == "the engine did not answer within 1 s of the agent's start"
        assert error["details"]["worker"]["state"] == "starting"
    finally:
        agent.close()


def test_start_up_opens_store_bridge_listeners_worker_then_http(agent: AgentProcess) -> None:
    """Spec 1 §1 lifecycle rule 7, read from the records each step writes once done."""
    steps = (
        "agent.store_opened",
        "agent.bridge_opened",
        "agent.listeners_started",
        "agent.worker_started",
        "agent.started",  # listening on 127.0.0.1:$SVC_AGENT_PORT
    )
    log = agent.data_dir / "Logs" / "global.ndjson"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["category"] for r in records if r["category"] in steps] == list(steps)
    started = next(r for r in records if r["category"] == "agent.started")
    assert started["message"] == f"agent listening on 127.0.0.1:{agent.port}"
    listeners = next(r for r in records if r["category"] == "agent.listeners_started")
    assert listeners["data"]["base_port"] == agent.ok("GET", "/v1/health")["browser_proxy_port"]
