"""The other Qt-free pieces: coroutine driver, settings, notifications, bounds, supervision."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bridge_protocol import SvcError
from host_app.logic import aio, supervision
from host_app.logic.images import check_bounds, qt_quality
from host_app.logic.logfile import HostLog, StderrLines
from host_app.logic.notifications import NotificationQueue
from host_app.logic.policy import NetworkPolicy, Request, Verdict
from host_app.logic.settings import AppSettings, SettingsStore


class FakeLoop:
    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[tuple[float, int, Callable[[], None]]] = []
        self.seq = 0

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, cb: Callable[[], None]) -> aio.TimerHandle:
        self.seq += 1
        entry = (self.now + delay, self.seq, cb)
        self.timers.append(entry)
        loop = self

        class H:
            def cancel(self) -> None:
                if entry in loop.timers:
                    loop.timers.remove(entry)

        return H()

    def run(self, until: float) -> None:
        while self.timers:
            self.timers.sort()
            when, _, cb = self.timers[0]
            if when > until:
                break
            self.timers.pop(0)
            self.now = when
            cb()
        self.now = until


def test_task_sleep_and_result() -> None:
    loop = FakeLoop()

    async def op() -> int:
        await aio.sleep(loop, 1.0)
        await aio.sleep(loop, 1.0)
        return 7

    t = aio.Task(op())
    t.start()
    loop.run(1.5)
    assert not t.done
    loop.run(2.0)
    assert t.done
    assert t.result == 7


def test_throw_runs_finally_and_stops() -> None:
    loop = FakeLoop()
    cleaned: list[str] = []

    async def op() -> None:
        try:
            await aio.sleep(loop, 10)
        finally:
            cleaned.append("stop")

    t = aio.Task(op())
    t.start()
    t.throw(aio.Cancelled())
    assert t.done
    assert isinstance(t.exception, aio.Cancelled)
    assert cleaned == ["stop"]
    assert loop.timers == []  # the sleep's timer was cancelled with it


def test_lock_is_fifo_and_survives_cancelled_waiter() -> None:
    loop = FakeLoop()
    lock = aio.Lock()
    order: list[str] = []

    async def worker(name: str, hold: float) -> None:
        await lock.acquire()
        try:
            order.append(name)
            await aio.sleep(loop, hold)
        finally:
            lock.release()

    a, b, c = aio.Task(worker("a", 1)), aio.Task(worker("b", 1)), aio.Task(worker("c", 1))
    for t in (a, b, c):
        t.start()
    b.throw(aio.Cancelled())
    loop.run(5)
    assert order == ["a", "c"]
    assert all(t.done for t in (a, b, c))


def test_settings_roundtrip_and_defaults(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "s.json")
    s = store.load()
    assert s == AppSettings()
    assert s.background_dimensions == (1920, 947)
    assert s.follow_browser_commands
    assert s.wait_for_bot_challenge
    assert not s.send_notifications
    changed = s.with_changes(send_notifications=True, background_size="1280x720", plan="pro")
    store.save(changed)
    assert store.load() == changed
    (tmp_path / "s.json").write_text(json.dumps({"plan": "gold", "adblock_enabled": "yes"}))
    loaded = store.load(plan_override="pro")
    assert loaded.plan == "pro"
    assert loaded.adblock_enabled is True


def test_notifications_only_when_on_and_bounded() -> None:
    q = NotificationQueue(limit=3)
    assert q.add(enabled=False, session_id="Session1", origin="o", title="t", body="b") is None
    when = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    for i in range(5):
        q.add(enabled=True, session_id="Session1", origin="o", title=f"t{i}", body="b", now=when)
    items = q.snapshot()
    assert [n.title for n in items] == ["t2", "t3", "t4"]
    assert items[0].displayed_at == "2026-01-02T03:04:05.678Z"


def test_screenshot_bounds() -> None:
    check_bounds(16384, 976, full_page=True)
    check_bounds(1920, 8000, full_page=True)
    for w, h in ((16385, 10), (10, 16385), (1920, 8400)):
        with pytest.raises(SvcError) as exc:
            check_bounds(w, h, full_page=True)
        assert exc.value.error.id == "OBSERVATION_TOO_LARGE"
    assert qt_quality("png", 10) == -1
    assert qt_quality("jpeg", None) == -1
    assert qt_quality("webp", 55) == 55


def test_health_counter_restarts_after_three() -> None:
    c = supervision.HealthCounter()
    assert not c.failure()
    assert not c.failure()
    c.success()
    assert not c.failure()
    assert not c.failure()
    assert c.failure()


def test_own_agent_detection(tmp_path: Path) -> None:
    exe = tmp_path / "svc-app"
    exe.write_text("#!/bin/sh\n")
    proc = tmp_path / "proc"
    (proc / "100").mkdir(parents=True)
    (proc / "100" / "cmdline").write_bytes(f"{sys.executable}\0{exe}\0--agent\0".encode())
    (proc / "101").mkdir()
    (proc / "101" / "cmdline").write_bytes(b"/usr/bin/python3\0/other/svc-app\0--agent\0")
    (proc / "102").mkdir()
    (proc / "102" / "cmdline").write_bytes(f"{exe}\0--headless\0".encode())
    assert supervision.is_own_agent(100, str(exe), proc)
    assert not supervision.is_own_agent(101, str(exe), proc)
    assert not supervision.is_own_agent(102, str(exe), proc)
    assert not supervision.is_own_agent(103, str(exe), proc)
    assert not supervision.is_own_agent(os.getpid(), str(exe), proc)


def test_stderr_lines_become_records(tmp_path: Path) -> None:
    log = HostLog(tmp_path / "Logs")
    lines = StderrLines(log)
    lines.feed(b"first line\nsecond ")
    lines.feed(b"half\n\n")
    lines.flush()
    records = [json.loads(x) for x in log.path.read_text().splitlines()]
    assert [r["message"] for r in records] == ["first line", "second half"]
    assert all(r["category"] == "agent.stderr" for r in records)


def test_network_policy() -> None:
    p = NetworkPolicy(image_blocking_mode="all")
    assert p.decide(Request("https://x.test/", "https", "image")) == Verdict("image_blocking")
    assert p.decide(Request("https://x.test/", "https", "main_frame")) is None
    p.paused = True
    assert p.decide(Request("https://x.test/", "https", "main_frame"))
    assert p.deferred_navigation
    assert p.decide(Request("data:,", "data", "image")) is None


def test_the_engine_keeps_webrtc_off_non_proxied_udp() -> None:
    from host_app.logic.policy import with_webrtc_policy

    flag = "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"
    assert with_webrtc_policy("") == flag
    assert with_webrtc_policy("--no-sandbox") == f"--no-sandbox {flag}"
    # a policy the person chose on the command line is theirs
    mine = "--force-webrtc-ip-handling-policy=default"
    assert with_webrtc_policy(mine) == mine


def test_the_engine_runs_a_pages_tasks_after_input_without_waiting_for_a_frame() -> None:
    from host_app.logic.policy import engine_flags

    webrtc = "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"
    off = "--disable-features=DeferRendererTasksAfterInput"
    assert engine_flags("--no-sandbox") == f"--no-sandbox {off} {webrtc}"
    # Chromium reads one list: the person's features join ours, in place, once
    assert (
        engine_flags(f"--disable-features=A,B --x {webrtc}")
        == f"--disable-features=A,B,DeferRendererTasksAfterInput --x {webrtc}"
    )
    assert engine_flags(engine_flags("")) == engine_flags("")
    # a feature the person enables is theirs
    mine = "--enable-features=Foo,DeferRendererTasksAfterInput"
    assert engine_flags(mine) == f"{mine} {webrtc}"


def test_a_route_hold_outlasts_play() -> None:
    """Held for a route change: every network request is blocked, whatever pause says, and a
    navigation tried meanwhile is not one that play would retry (by the old route)."""
    p = NetworkPolicy()
    p.held = True
    assert p.decide(Request("https://x.test/", "https", "main_frame"))
    assert p.decide(Request("wss://x.test/", "wss", "other"))
    assert not p.deferred_navigation
    p.paused = True
    p.paused = False
    assert p.decide(Request("http://x.test/", "http", "other"))
    assert p.decide(Request("data:,", "data", "other")) is None


def test_within_gives_the_default_when_no_answer_comes() -> None:
    """aio.within: an engine callback that never comes does not hold an operation."""
    from host_app.logic import aio

    class Loop:
        def __init__(self) -> None:
            self.now = 0.0
            self.timers: list[tuple[float, object]] = []

        def call_later(self, delay: float, callback: object) -> aio.TimerHandle:
            entry = (self.now + delay, callback)
            self.timers.append(entry)
            timers = self.timers

            class Handle:
                def cancel(self) -> None:
                    if entry in timers:
                        timers.remove(entry)

            return Handle()

        def time(self) -> float:
            return self.now

        def advance(self, seconds: float) -> None:
            self.now += seconds
            for at, cb in list(self.timers):
                if at <= self.now:
                    self.timers.remove((at, cb))
                    cb()  # type: ignore[operator]

    loop = Loop()
    never: aio.Future[int | None] = aio.Future()
    late = aio.within(loop, never, 0.5, None)
    assert not late.done()
    loop.advance(0.5)
    assert late.result() is None
    answered: aio.Future[int | None] = aio.Future()
    quick = aio.within(loop, answered, 0.5, None)
    answered.set_result(7)
    assert quick.result() == 7
    assert loop.timers == []  # the bound's timer is gone
