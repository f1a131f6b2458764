"""The host's dispatcher (host_app/core/dispatch.py) over a fake host and a fake page: each bridge
operation reaches the right call and is answered by its answer type (`bridge_protocol.ANSWERS`);
page work becomes a job on the session's browser, registry work is answered at once. No Qt, no
process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bridge_protocol import (
    ANSWERS,
    AttachAnswer,
    CaptureAnswer,
    Done,
    ErrorId,
    NotificationsAnswer,
    Observation,
    PauseAnswer,
    PlayAnswer,
    ScreenshotAnswer,
    SessionSettings,
    SvcError,
    Timings,
)
from bridge_protocol.actions import RefClick
from bridge_protocol.messages import (
    PROTOCOL_VERSION,
    ActionRequest,
    ApplySessionSettings,
    AttachParams,
    AttachRequest,
    CaptureParams,
    CaptureRequest,
    CloseSession,
    EngineCommand,
    Navigate,
    Notifications,
    ObservationAction,
    Observe,
    Operation,
    Pause,
    Play,
    Screenshot,
)
from host_app.core import dispatch, operations
from host_app.core.kept import Kept
from host_app.core.observations import ObservationStore
from host_app.logic.notifications import NotificationQueue
from host_app.logic.readiness import Ready
from tests.host.fakepage import El, FakeLoop, FakePage


class FakeHost:
    """The engine's registry: one known session, Session1."""

    def __init__(self, tmp_path: Path) -> None:
        self.loop = FakeLoop()
        self.loop.now = 100.0
        self.page = FakePage([El("html"), El("button", sig="button|button|Go")], self.loop)
        self.options = operations.Options(wait_for_bot_challenge=False)
        self.observations = ObservationStore(tmp_path)
        self.notifications = NotificationQueue()
        self.calls: list[tuple[Any, ...]] = []

    def browser(self, session_id: str) -> FakePage:
        if session_id != "Session1":
            raise SvcError.of(ErrorId.BROWSER_CREATION_FAILED, f"no settings for {session_id}")
        return self.page

    def apply_session_settings(self, session_id: str, settings: SessionSettings) -> Done:
        self.calls.append(("settings", session_id, settings))
        return Done()

    async def apply_route(self, session_id: str, how: str = "url") -> str | None:
        self.calls.append(("route", session_id, how))
        return None

    def close_session(self, session_id: str) -> Done:
        self.calls.append(("close", session_id))
        return Done()

    def pause_session(self, session_id: str) -> PauseAnswer:
        self.calls.append(("pause", session_id))
        return PauseAnswer(network_paused=True)

    def play_session(self, session_id: str) -> PlayAnswer:
        self.calls.append(("play", session_id))
        return PlayAnswer(network_paused=False, reloaded=True)


def request(op: Operation) -> Any:
    if isinstance(op, CaptureParams):
        return CaptureRequest(version=PROTOCOL_VERSION, id="r1", params=op)
    if isinstance(op, AttachParams):
        return AttachRequest(version=PROTOCOL_VERSION, id="r1", params=op)
    return ActionRequest(version=PROTOCOL_VERSION, id="r1", command=op)


SETTINGS = SessionSettings(profile_id=1, name="one")


@pytest.mark.parametrize(
    ("command", "call"),
    [
        (ApplySessionSettings(session_id="Session1", settings=SETTINGS), "settings"),
        (CloseSession(session_id="Session1"), "close"),
        (Pause(session_id="Session1"), "pause"),
        (Play(session_id="Session1"), "play"),
    ],
)
def test_registry_commands_answer_at_once(
    command: EngineCommand, call: str, tmp_path: Path
) -> None:
    host = FakeHost(tmp_path)
    answer = dispatch.dispatch(request(command), host)
    assert type(answer) is ANSWERS[type(command)]
    assert host.calls[0][:2] == (call, "Session1")


def test_pause_and_play_answer_what_the_host_did(tmp_path: Path) -> None:
    host = FakeHost(tmp_path)
    assert dispatch.dispatch(request(Pause(session_id="Session1")), host) == PauseAnswer(
        network_paused=True
    )
    assert dispatch.dispatch(request(Play(session_id="Session1")), host) == PlayAnswer(
        network_paused=False, reloaded=True
    )


def test_notifications_answer_the_queue(tmp_path: Path) -> None:
    host = FakeHost(tmp_path)
    host.notifications.add(
        enabled=True,
        session_id="Session1",
        origin="http://site.test",
        title="Hi",
        body="there",
        tag="",
        persistent=False,
    )
    answer = dispatch.dispatch(request(Notifications()), host)
    assert type(answer) is ANSWERS[Notifications]
    assert isinstance(answer, NotificationsAnswer)
    assert [n.title for n in answer.notifications] == ["Hi"]


@pytest.mark.parametrize(
    "command",
    [
        Navigate(session_id="Session9", url="http://site.test/"),
        Observe(session_id="Session9"),
        CaptureParams(session_id="Session9", output_path="/tmp/x.html"),
    ],
)
def test_unknown_session_fails_before_any_work(command: Operation, tmp_path: Path) -> None:
    with pytest.raises(SvcError) as caught:
        dispatch.dispatch(request(command), FakeHost(tmp_path))
    assert caught.value.error.id == ErrorId.BROWSER_CREATION_FAILED


TIMINGS = Timings(page_ready_ms=1, rendered_ms=2, written_ms=3)


def test_page_commands_become_jobs_on_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = FakeHost(tmp_path)
    seen: dict[str, dict[str, Any]] = {}

    async def capture(page: Any, **kw: Any) -> AttachAnswer:
        seen["capture"] = kw
        return AttachAnswer(
            url="u", title="t", target_http_status=200, traffic_bytes=0, timings=TIMINGS
        )

    async def capture_file(page: Any, **kw: Any) -> CaptureAnswer:
        seen["capture_file"] = kw
        return CaptureAnswer(
            url="u",
            title="t",
            target_http_status=200,
            traffic_bytes=0,
            bytesize=1,
            output_path=kw["output_path"],
            timings=TIMINGS,
        )

    async def navigate(page: Any, how: str, url: str | None, **kw: Any) -> Ready:
        seen["navigate"] = {"how": how, "url": url, **kw}
        return Ready("http://site.test/a", "A", 200, 1.0)

    async def settle(page: Any, ready: Ready, wait: float, **kw: Any) -> Ready:
        seen.setdefault("settle", {})["wait"] = wait
        return ready

    async def screenshot(page: Any, **kw: Any) -> ScreenshotAnswer:
        seen["screenshot"] = kw
        return ScreenshotAnswer(
            url="u",
            output_path=kw["output_path"],
            bytesize=1,
            format="png",
            mime_type="image/png",
            width=1,
            height=1,
        )

    for name, fake in [
        ("capture", capture),
        ("capture_file", capture_file),
        ("navigate", navigate),
        ("settle", settle),
        ("screenshot", screenshot),
    ]:
        monkeypatch.setattr(operations, name, fake)

    cases: list[tuple[CaptureParams | AttachParams | Navigate | Screenshot, str, str]] = [
        (
            CaptureParams(session_id="Session1", output_path="/o.html", timeout=30),
            "capture",
            "capture_file",
        ),
        (AttachParams(session_id="Session1", url="http://a/", navigate=False), "attach", "capture"),
        (Navigate(session_id="Session1", url="http://a/", wait=0.5), "navigate", "navigate"),
        (Screenshot(session_id="Session1", output_path="/s.png"), "screenshot", "screenshot"),
    ]
    for op, name, call in cases:
        job = dispatch.dispatch(request(op), host)
        assert isinstance(job, dispatch.Job)
        assert (job.session, job.name, job.timeout) == (host.page, name, op.timeout)
        assert call not in seen  # nothing runs before the engine runs the job
        answer = host.loop.run(job.work())
        assert type(answer) is ANSWERS[type(op)]
        assert call in seen
    # the deadline is the agent's timeout from the moment the request arrived
    assert seen["capture_file"]["deadline"] == 130.0
    assert seen["capture"]["navigate_first"] is False
    assert seen["capture"]["wait"] == 0.0  # an attach without navigation does not settle
    assert seen["navigate"]["url"] == "http://a/"
    assert seen["settle"]["wait"] == 0.5
    assert host.page.selections == 1  # the screenshot selected its session for the view
    # only the operations that navigate apply a pending route first
    assert [c for c in host.calls if c[0] == "route"] == [("route", "Session1", "url")]


def test_a_navigation_applies_a_pending_route_before_it_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new route's context has no history: back goes to the URL back would have reached."""
    host = FakeHost(tmp_path)
    order: list[Any] = []

    async def apply_route(session_id: str, how: str = "url") -> str | None:
        order.append(("route", how))
        return "http://site.test/before" if how == "back" else None

    async def navigate(page: Any, how: str, url: str | None, **kw: Any) -> Ready:
        order.append(("navigate", how, url))
        return Ready("http://site.test/a", "A", 200, 1.0)

    async def settle(page: Any, ready: Ready, wait: float, **kw: Any) -> Ready:
        return ready

    monkeypatch.setattr(host, "apply_route", apply_route)
    monkeypatch.setattr(operations, "navigate", navigate)
    monkeypatch.setattr(operations, "settle", settle)
    for op in (
        Navigate(session_id="Session1", navigation="back"),
        Navigate(session_id="Session1", navigation="forward"),
        Navigate(session_id="Session1", url="http://a/"),
    ):
        job = dispatch.dispatch(request(op), host)
        assert isinstance(job, dispatch.Job)
        host.loop.run(job.work())
    assert order == [
        ("route", "back"),
        ("navigate", "url", "http://site.test/before"),
        ("route", "forward"),
        ("navigate", "forward", None),
        ("route", "url"),
        ("navigate", "url", "http://a/"),
    ]


def test_observe_and_ref_actions_answer_observations(tmp_path: Path) -> None:
    host = FakeHost(tmp_path)
    job = dispatch.dispatch(request(Observe(session_id="Session1", wait=0)), host)
    assert isinstance(job, dispatch.Job)
    first = host.loop.run(job.work())
    assert type(first) is ANSWERS[Observe]
    assert isinstance(first, Observation)
    kept: Kept = host.observations.kept[first.id]
    assert kept.session_id == "Session1"
    # the fake's observation lists no elements; the ref stands for one it would have listed
    kept.sigs = {1: "button|button|Go"}
    command = ObservationAction(
        session_id="Session1", observation_id=first.id, actions=[RefClick(ref="e1")]
    )
    job = dispatch.dispatch(request(command), host)
    assert isinstance(job, dispatch.Job)
    assert job.name == "actions"
    second = host.loop.run(job.work())
    assert type(second) is ANSWERS[ObservationAction]
    assert isinstance(second, Observation)
    assert second.id != first.id
    assert [i[0] for i in host.page.inputs] == ["click"]
