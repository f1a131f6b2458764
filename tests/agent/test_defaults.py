"""The agent's defaults (issue 37 point 6), each pinned by what a user of an unconfigured agent
observes: the agent configured from an environment that sets nothing (`AgentConfig.from_env`, as
`svc-app --agent` reads its own), run in this trio run (tests/agent/inprocess.py) on pytest-trio's
`autojump_clock`, so that a 90 s deadline or a 3 s retry delay is a jump of virtual time and the
test takes milliseconds. Those tests name their outputs: a generated one has the agent prune its
temporary folder in a thread (agent/temporary.py), idleness the clock cannot see, and it would
jump time past the deadlines measured while the thread runs.

Spec 1 §1 lifecycle rule 7 (port 17319), "Profile proxy listeners" (base 17400), "Log files"
(SVC_BROWSER_PERFORMANCE_TRACE off); §4 transport rule 6 (eight browser operations at once),
shorthand and capture request bodies (timeout 90, wait 1, retry 1, retry_delay 3), find (limit 20);
§8 Limits."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

import bridge_protocol as bp
from agent.api import ProxyCreate, SessionCreate
from agent.config import AgentConfig
from agent.logs import LogWriter
from agent.main import _hypercorn_config
from agent.profiles import Profiles
from agent.proxies import Proxies
from agent.sessions import Sessions
from agent.store import Store
from clients.agent_client import agent_port
from host_app.config import HostConfig
from proxy import Upstream, geolocation

from .fakebrowser import error
from .inprocess import InProcessAgent, in_process_agent, until

UNSET: dict[str, str] = {"SVC_PLAN": "pro"}  # nothing else: every default applies


@pytest.fixture
async def unset(tmp_path: Path) -> AsyncIterator[InProcessAgent]:
    """An agent configured from an environment that sets none of its settings."""
    async with in_process_agent(tmp_path / "data", env=UNSET) as agent_:
        yield agent_


async def new_session(agent_: InProcessAgent) -> str:
    return str((await agent_.ok("POST", "/v1/sessions", {}))["session"]["id"])


def test_an_unconfigured_agent_listens_on_17319_where_the_app_and_clients_look() -> None:
    config = AgentConfig.from_env({})
    # what the agent binds (agent.main: hypercorn's one bind), on loopback only
    assert _hypercorn_config(config).bind == ["127.0.0.1:17319"]
    # the app's supervisor health-checks there, and the clients call there
    assert HostConfig.from_env(headless=True, env={}).health_url == (
        "http://127.0.0.1:17319/v1/health"
    )
    assert agent_port({}) == 17319
    # and SVC_AGENT_PORT moves all three
    moved = {"SVC_AGENT_PORT": "18123"}
    assert _hypercorn_config(AgentConfig.from_env(moved)).bind == ["127.0.0.1:18123"]
    assert HostConfig.from_env(headless=True, env=moved).port == agent_port(moved) == 18123


async def test_the_listener_base_is_17400(unset: InProcessAgent) -> None:
    # session N's listener is base + N - 1 from this base (tests/agent/test_proxy_listeners.py)
    assert (await unset.ok("GET", "/v1/health"))["browser_proxy_port"] == 17400
    status = await unset.ok("GET", "/v1/status")
    [listeners] = [c for c in status["checks"] if c["id"] == "browser_proxy"]
    assert listeners["detail"].startswith("base port 17400,")


async def test_an_operation_without_a_timeout_times_out_at_90_seconds_after_a_wait_of_1(
    unset: InProcessAgent, autojump_clock: trio.testing.MockClock
) -> None:
    sid = await new_session(unset)
    fake = unset.fake
    # the engine never answers in time
    fake.script["browser_attach"] = lambda p: (3600.0, fake.default("browser_attach", p))
    started = trio.current_time()
    body = {"url": "slow.test", "session_id": sid, "output": str(unset.data_dir / "n.html")}
    _, failed = await unset.error("POST", "/v1/navigate", body)
    elapsed = trio.current_time() - started
    assert failed["id"] == "TIMEOUT"
    assert 90 <= elapsed < 91, elapsed
    # what the engine was asked: the remaining deadline and a 1 s settle
    attach = fake.named("browser_attach", sid)[0].params
    assert isinstance(attach, bp.AttachParams)
    assert 89 < attach.timeout <= 90
    assert attach.wait == 1.0
    assert unset.memory_host.cancels_received == 1  # the deadline cancelled the engine's work


async def test_a_capture_retries_once_after_3_seconds(
    unset: InProcessAgent, autojump_clock: trio.testing.MockClock
) -> None:
    sid = await new_session(unset)
    unset.fake.script["capture"] = lambda p: (
        0.0,
        error(bp.ErrorId.UPSTREAM_UNAVAILABLE, "the upstream hung up"),
    )
    started = trio.current_time()
    body = {"url": "cap.test", "session_id": sid, "output": str(unset.data_dir / "c.html")}
    response = await unset.stream("/v1/captures", body)
    elapsed = trio.current_time() - started
    lines = response.lines()
    events = [line["event"] for line in lines]
    # attempt 1, one retry (retry 1), then the failure
    assert events == [
        "capture.started",
        "capture.browser_requested",
        "capture.retrying",
        "capture.browser_requested",
        "capture.traffic",
        "capture.failed",
        "capture.finished",
    ]
    retrying = lines[2]["data"]
    assert (retrying["attempt"], retrying["retry_delay"]) == (1, 3)
    assert 3 <= elapsed < 4, elapsed  # the delay was slept, not only reported
    assert lines[-1]["data"] == {"exit_code": 1}
    sent = [op.params for op in unset.fake.named("capture", sid)]
    assert len(sent) == 2
    for params in sent:
        assert isinstance(params, bp.CaptureParams)
        assert 89 < params.timeout <= 90
        assert params.wait == 1.0


async def test_eight_browser_operations_run_at_once(
    unset: InProcessAgent, autojump_clock: trio.testing.MockClock
) -> None:
    fake = unset.fake
    fake.sleep_waits = True  # the host takes `wait` seconds to answer
    sids = [await new_session(unset) for _ in range(9)]
    done: list[str] = []

    async def capture(sid: str) -> None:
        output = str(unset.data_dir / f"{sid}.html")
        body = {"session_id": sid, "wait": 100, "timeout": 1000, "output": output}
        await unset.ok("POST", "/v1/capture", body)
        done.append(sid)

    async with trio.open_nursery() as nursery:
        for sid in sids:
            nursery.start_soon(capture, sid)
        await until(
            lambda: unset.services.scheduler.active_count == 9, what="nine captures counted"
        )
        await until(lambda: len(fake.named("capture")) == 8, what="eight captures at the host")
        await trio.sleep(50)  # halfway through the first eight: the ninth still waits
        assert len(fake.named("capture")) == 8
        assert done == []
    assert len(fake.named("capture")) == 9
    assert sorted(done) == sorted(sids)


async def test_find_gives_20_of_each_list_by_default(unset: InProcessAgent) -> None:
    sid = await new_session(unset)
    await unset.ok("POST", "/v1/navigate", {"url": "many.test", "session_id": sid, "wait": 0})

    def many(p: Any) -> tuple[float, bp.Observation]:
        observation = unset.fake.observation(sid, p.mode)
        observation.content = [["text", f"item {n}"] for n in range(25)]
        observation.elements = [[f"e{n}", "button", f"item {n}"] for n in range(1, 26)]
        return 0.0, observation

    unset.fake.script["observe"] = many
    observed = await unset.ok("POST", "/v1/observe", {"session_id": sid, "wait": 0})
    oid = observed["observation"]["id"]
    found = await unset.ok("POST", f"/v1/observations/{oid}/find", {"query": "item"})
    assert (len(found["content"]), len(found["elements"])) == (20, 20)
    assert (found["total_matches"], found["truncated"]) == (50, True)
    assert found["elements"][-1]["ref"] == "e20"  # the first twenty, in document order
    # a limit given is the limit
    found = await unset.ok("POST", f"/v1/observations/{oid}/find", {"role": "button", "limit": 25})
    assert (len(found["elements"]), found["truncated"]) == (25, False)


@pytest.mark.parametrize(
    ("env", "traced"), [({}, False), ({"SVC_BROWSER_PERFORMANCE_TRACE": "1"}, True)]
)
async def test_browser_timing_records_only_when_asked_for(
    tmp_path: Path, env: dict[str, str], traced: bool
) -> None:
    async with in_process_agent(tmp_path / "data", env={**UNSET, **env}) as agent_:
        sid = await new_session(agent_)
        await agent_.ok("POST", "/v1/navigate", {"url": "t.test", "session_id": sid, "wait": 0})
        await agent_.ok("POST", "/v1/capture", {"session_id": sid, "wait": 0})
        # the record is written before the answer: none later
        log = agent_.data_dir / "Logs" / "global.ndjson"
        lines = log.read_text().splitlines() if log.exists() else []
        categories = [json.loads(line)["category"] for line in lines]
    timings = categories.count("browser_timing")
    assert timings == (2 if traced else 0), categories


async def test_the_store_is_wal_normal_with_a_5_second_busy_timeout(unset: InProcessAgent) -> None:
    """Read on the connection the agent opened (synchronous and busy_timeout are per
    connection): spec 1 §1 "Persistence"."""
    store = unset.services.store
    assert store.path == unset.data_dir / "svc-agent.sqlite3"

    def pragma(name: str) -> Any:
        row = store.query_one(f"PRAGMA {name}")
        assert row is not None
        return next(iter(row.values()))

    assert pragma("journal_mode") == "wal"
    assert pragma("synchronous") == 1  # NORMAL
    assert pragma("busy_timeout") == 5000
    assert pragma("wal_autocheckpoint") > 0  # automatic checkpointing
    assert pragma("foreign_keys") == 1


async def test_an_exit_location_is_looked_up_within_10_s_and_kept_30_minutes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's proxies repository, configured from an unset environment, on an injected
    clock; the lookup itself (through a real upstream proxy, bounded by the seconds it is
    given) is tests/proxy/test_geolocation.py's and tests/agent/test_proxy_location.py's."""
    config = AgentConfig.from_env({"SVC_DATA_DIR": str(tmp_path), "SVC_PLAN": "pro"})
    lookups: list[float] = []

    async def fetch(upstream: Upstream, url: object, *, seconds: float, **_: object) -> Any:
        lookups.append(seconds)
        return geolocation.Location("DE", "Europe/Berlin")

    monkeypatch.setattr(geolocation, "fetch_location", fetch)
    now = [1000.0]
    store = Store(config.store_path)
    logs = LogWriter(config.logs_dir, store.machine_id)
    try:
        proxies = Proxies(store, config, clock=lambda: now[0])
        sessions = Sessions(store, logs, config, Profiles(store, config).resolve_template, proxies)
        proxies.create(ProxyCreate(alias="Exit", upstream_host="proxy.test", upstream_port=8080))
        session = sessions.create(SessionCreate(proxy_alias="Exit"))
        assert await proxies.exit_location(session) == geolocation.Location("DE", "Europe/Berlin")
        assert lookups == [10.0]  # the lookup's bound
        now[0] += 30 * 60 - 0.001
        await proxies.exit_location(session)
        assert len(lookups) == 1  # still cached
        now[0] += 0.001
        await proxies.exit_location(session)
        assert len(lookups) == 2  # 30 minutes on: looked up again
    finally:
        logs.close()
        store.close()
