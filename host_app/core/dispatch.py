"""The bridge's requests mapped onto host work (no Qt here): one `match` over the typed
operations of docs/bridge.md, each answered by its answer struct (`bridge_protocol.ANSWERS`).

Commands that only touch the session registry (settings, close, pause, play, notifications)
are answered at once; those that drive a page become a `Job` that the engine runs under the
session's lock and deadline (`host_app.engine.runtime.Engine._run`). What the commands need of the
engine is the `Host` protocol, so a fake host and a fake page drive this module in tests.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, assert_never

from bridge_protocol import (
    Answer,
    AttachAnswer,
    CaptureAnswer,
    Done,
    NotificationsAnswer,
    Observation,
    PageAnswer,
    PauseAnswer,
    PlayAnswer,
    ScreenshotAnswer,
    SessionSettings,
)
from bridge_protocol.host_endpoint import HostRequest
from bridge_protocol.messages import (
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
    Pause,
    Ping,
    Play,
    Screenshot,
)

from ..logic import aio
from ..logic.activity import Step, ref_steps, selector_steps
from ..logic.links import normalize_url
from ..logic.notifications import NotificationQueue
from . import observations, operations
from .page_driver import Session

S = TypeVar("S", bound=Session)
S_co = TypeVar("S_co", bound=Session, covariant=True)


class Host(Protocol[S_co]):
    """What the commands need of the engine: the sessions and their lifecycle."""

    @property
    def loop(self) -> aio.Loop: ...
    @property
    def options(self) -> operations.Options: ...
    @property
    def observations(self) -> observations.ObservationStore: ...
    @property
    def notifications(self) -> NotificationQueue: ...

    def browser(self, session_id: str) -> S_co:
        """The session's browser, created from its settings when it has none (fails with
        BROWSER_CREATION_FAILED for a session the host has no settings for)."""
        ...

    def apply_session_settings(self, session_id: str, settings: SessionSettings) -> Done: ...
    async def apply_route(self, session_id: str, how: str = "url") -> str | None:
        """Under the session's lock, before a navigation: a session held for a route change
        gets its new browser context (host_app.engine.runtime.Engine.apply_route); returns the URL a
        history move `how` would have reached when the old context (and its history) went."""
        ...

    def close_session(self, session_id: str) -> Done: ...
    def pause_session(self, session_id: str) -> PauseAnswer: ...
    def play_session(self, session_id: str) -> PlayAnswer: ...


@dataclass(frozen=True, slots=True)
class Job(Generic[S]):
    """Work on one session's page: the engine runs `work()` under the session's lock and ends it
    with TIMEOUT after `timeout` seconds; `name` names it in the host's log."""

    session: S
    name: str
    timeout: float
    work: Callable[[], Coroutine[Any, None, Answer]]
    steps: tuple[Step, ...] = ()  # what it does, for the person's activity list (logic.activity)


def dispatch(request: HostRequest, host: Host[S]) -> Answer | Job[S]:
    match request:
        case CaptureRequest(params=params):
            return capture(params, host)
        case AttachRequest(params=params):
            return attach(params, host)
        case ActionRequest(command=command_):
            return command(command_, host)
        case _:
            assert_never(request)


# PLR0911: one case per bridge command
def command(c: EngineCommand, host: Host[S]) -> Answer | Job[S]:  # noqa: PLR0911
    match c:
        case Notifications():
            return NotificationsAnswer(notifications=host.notifications.snapshot())
        case Ping():  # the bridge endpoint answers it before dispatch
            return Done()
        case ApplySessionSettings(session_id=session_id, settings=settings):
            return host.apply_session_settings(session_id, settings)
        case CloseSession(session_id=session_id):
            return host.close_session(session_id)
        case Pause(session_id=session_id):
            return host.pause_session(session_id)
        case Play(session_id=session_id):
            return host.play_session(session_id)
        case Navigate():
            return navigate(c, host)
        case Screenshot():
            return screenshot(c, host)
        case Observe():
            return observe(c, host)
        case ObservationAction():
            return observation_actions(c, host)
        case _:
            assert_never(c)


def capture(p: CaptureParams, host: Host[S]) -> Job[S]:
    page = host.browser(p.session_id)
    opts = host.options
    # the agent's timeout covers the whole operation, the wait for the session's lock included
    deadline = host.loop.time() + p.timeout

    async def work() -> CaptureAnswer:
        if p.url is not None:
            await host.apply_route(p.session_id)
        return await operations.capture_file(
            page,
            url=p.url,
            actions=list(p.actions),
            wait=p.wait,
            output_path=p.output_path,
            deadline=deadline,
            opts=opts,
        )

    steps = ((Step("open", detail=p.url),) if p.url else ()) + selector_steps(p.actions)
    return Job(page, "capture", p.timeout, work, steps)


def attach(a: AttachParams, host: Host[S]) -> Job[S]:
    page = host.browser(a.session_id)
    opts = host.options
    deadline = host.loop.time() + a.timeout

    async def work() -> AttachAnswer:
        if a.navigate:
            await host.apply_route(a.session_id)
        return await operations.capture(
            page,
            url=a.url,
            actions=[],
            wait=a.wait if a.navigate else 0.0,
            output_path=a.output_path,
            deadline=deadline,
            opts=opts,
            navigate_first=a.navigate,
            strict=True,
        )

    steps = (Step("open" if a.navigate else "read", detail=a.url),)
    return Job(page, "attach", a.timeout, work, steps)


def navigate(c: Navigate, host: Host[S]) -> Job[S]:
    page = host.browser(c.session_id)
    opts = host.options

    async def work() -> PageAnswer:
        how, url = c.navigation, c.url
        # a new route's context has none of the old history: the move goes to its URL instead
        moved = await host.apply_route(c.session_id, how)
        if moved is not None:
            how, url = "url", moved
        ready = await operations.navigate(page, how, url, strict=True, opts=opts)
        ready = await operations.settle(page, ready, c.wait, strict=True, opts=opts)
        return PageAnswer(
            url=normalize_url(ready.url) or ready.url,
            title=ready.title,
            target_http_status=ready.status,
        )

    step = Step("open", detail=c.url) if c.navigation == "url" else Step(c.navigation)
    return Job(page, "navigate", c.timeout, work, (step,))


def screenshot(c: Screenshot, host: Host[S]) -> Job[S]:
    page = host.browser(c.session_id)
    opts = host.options

    async def work() -> ScreenshotAnswer:
        page.selected()
        return await operations.screenshot(
            page,
            output_path=c.output_path,
            fmt=c.format,
            quality=c.quality,
            full_page=c.full_page,
            wait=c.wait,
            opts=opts,
        )

    return Job(page, "screenshot", c.timeout, work, (Step("screenshot"),))


def observe(c: Observe, host: Host[S]) -> Job[S]:
    page = host.browser(c.session_id)
    opts = host.options
    store = host.observations

    async def work() -> Observation:
        page.selected()
        ready = await operations.current(page)
        await operations.settle(page, ready, c.wait, strict=False, opts=opts)
        return await observations.observe(page, store, c.session_id, c.mode)

    return Job(page, "observe", c.timeout, work, (Step("observe", detail=c.mode),))


def observation_actions(c: ObservationAction, host: Host[S]) -> Job[S]:
    page = host.browser(c.session_id)
    store = host.observations
    deadline = host.loop.time() + c.timeout

    async def work() -> Observation:
        page.selected()
        seen = await observations.run_ref_actions(
            page,
            store,
            session_id=c.session_id,
            obs_id=c.observation_id,
            actions=c.actions,
            deadline=deadline,
            mode=c.mode,
        )
        return await observations.observe(page, store, c.session_id, c.mode, seen)

    kept = store.kept.get(c.observation_id)
    labels = kept.labels if kept is not None and kept.session_id == c.session_id else {}
    return Job(page, "actions", c.timeout, work, ref_steps(c.actions, labels))
