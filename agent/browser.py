"""Browser operations: session selection, the page registry, scheduling, and the bridge.

Spec 1 §4 (shorthand page operations, screenshots, observations, POST /v1/captures, attached
pages, GET /v1/notifications), lifecycle rules 8-9 and §3. The bridge commands and the data they
carry are docs/bridge.md's; which command each route sends is listed there too.

Every operation runs the same way (`_run`): validate, select the session, wait for a scheduler
slot until the operation's deadline, send `apply-session-settings` when the host does not have the
session's current settings yet, send the operation with the time left, refresh the session's
inactivity. A client that closes its connection cancels the handler: `trio.Cancelled` goes
through untouched, so `BridgeClient.call` sends the cancellation frame.

Page ids, the per-session current page, retained observations and notifications are
process-local by design (lifecycle rule 9): an agent restart forgets them.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import msgspec
import trio

from bridge_protocol import (
    Action,
    Answer,
    ApiError,
    ApplySessionSettings,
    AttachAnswer,
    AttachParams,
    CaptureAnswer,
    CaptureParams,
    CloseSession,
    Command,
    ErrorId,
    Navigate,
    Notifications,
    Observation,
    ObservationAction,
    Observe,
    Params,
    Pause,
    Play,
    Screenshot,
    ScreenshotAnswer,
    SessionSettings,
    SvcError,
)
from proxy import Diagnostics, authority_of_url

from .api import (
    CaptureBody,
    CapturesBody,
    FindBody,
    Mode,
    NavigateBody,
    NavigateObserveBody,
    ObservationActionsBody,
    ObserveBody,
    PageActionBody,
    PageObserveBody,
    PagesBody,
    PageScreenshotBody,
    PerformBody,
    ScreenshotBody,
    SessionCreate,
    SessionPatch,
    validation_error,
)
from .bridge_client import BridgeClient
from .config import AgentConfig
from .context import AgentProcess
from .logs import LogWriter
from .observations import ObservationStore, Retained, find_in
from .pages import Page, new_page_id
from .records import SessionRecord
from .scheduler import Scheduler
from .sessions import Sessions, name_key
from .store import Store
from .urls import normalize_url, output_path, same_url
from .worker import ControlWorker

T = TypeVar("T")
A = TypeVar("A", bound=Answer)

NOTIFICATIONS_RETAINED = 256
TRUST = "untrusted_website_content"
# Bounds of the work that has no timeout field of its own.
CONTROL_TIMEOUT = 30.0  # pause, play, close-session, notifications, find
OBSERVATION_ACTIONS_TIMEOUT = 90.0  # plus the batch's own wait seconds
# exit_code of capture.finished: 0 completed, 1 completed with a target status >= 400, 2 failed.
EXIT_OK, EXIT_TARGET_ERROR, EXIT_FAILED = 0, 1, 2


def _written(answer: AttachAnswer | CaptureAnswer) -> int:
    """The bytesize of an answer that must have written its capture."""
    if answer.bytesize is None:
        raise SvcError.of(
            ErrorId.INTERNAL_ERROR, "engine bridge sent a capture answer without a bytesize"
        )
    return answer.bytesize


# --- the registry ------------------------------------------------------------------------------


@dataclass
class CapturePlan:
    """A POST /v1/captures request that passed preflight."""

    request_id: str
    session_id: str
    url: str
    output_path: str
    body: CapturesBody
    proxy_alias: str | None = None


def _remaining(deadline: float) -> float:
    left = deadline - trio.current_time()
    if left <= 0.001:
        raise SvcError.of(ErrorId.TIMEOUT, "the operation's deadline expired")
    return round(left, 3)


class Browser:
    def __init__(
        self,
        *,
        config: AgentConfig,
        process: AgentProcess,
        store: Store,
        logs: LogWriter,
        scheduler: Scheduler,
        bridge: BridgeClient | None,
        worker: ControlWorker,
        sessions: Sessions,
        diagnostics: Diagnostics,
    ) -> None:
        self._config = config
        self._process = process
        self._store = store
        self._logs = logs
        self._scheduler = scheduler
        self._bridge = bridge
        self._worker = worker
        self._sessions = sessions
        self._diagnostics = diagnostics  # the relay's failures, for proxy causes
        self._pages: dict[str, Page] = {}  # attached pages by id
        self._current: dict[str, Page] = {}  # shorthand current page by session id
        self._last_session: str | None = None  # most recently selected shorthand session
        self._live_url: dict[str, str] = {}  # the session's page URL as the host last said
        self._applied: dict[str, SessionSettings] = {}  # settings the host holds, per session
        self._observations = ObservationStore()
        self._notifications: OrderedDict[tuple[str, str, str], dict[str, Any]] = OrderedDict()
        self._sequence = itertools.count(1)
        self._in_engine: Counter[str] = Counter()  # bridge calls in flight, per session

    def has_work(self, session_id: str) -> bool:
        """Whether the engine is working for the session right now (scheduled or not)."""
        return self._in_engine[session_id] > 0

    # --- plumbing ------------------------------------------------------------------------------

    async def _call(self, operation: Command[A] | Params[A]) -> A:
        bridge = self._bridge
        if bridge is None:
            raise SvcError.of(ErrorId.BROWSER_UNAVAILABLE, "no engine bridge in this process")
        session_id: str | None = getattr(operation, "session_id", None)
        if session_id is None:
            return await bridge.call(operation)
        self._in_engine[session_id] += 1
        try:
            return await bridge.call(operation)
        finally:
            self._in_engine[session_id] -= 1
            if not self._in_engine[session_id]:
                del self._in_engine[session_id]

    async def _bounded_call(self, operation: Command[A] | Params[A], seconds: float) -> A:
        """A call outside the scheduler (control commands), ended with TIMEOUT after `seconds`."""
        with trio.move_on_after(seconds) as scope:
            return await self._call(operation)
        assert scope.cancelled_caught
        raise SvcError.of(ErrorId.TIMEOUT, f"the engine did not answer within {seconds:g} s")

    def _settings(self, session: SessionRecord) -> SessionSettings:
        proxied = session.proxy_alias is not None
        return SessionSettings(
            profile_id=session.id,
            name=session.name,
            group=session.group_name,
            proxy_port=self._config.proxy_base_port + session.id - 1 if proxied else None,
            adblock_enabled=session.adblock_enabled,
            image_blocking_mode=session.image_blocking_mode,
            image_size_limit_kb=session.image_size_limit_kb,
            network_paused=session.network_paused,
        )

    async def _ensure_settings(self, session: SessionRecord) -> None:
        session_id = session.session_id
        settings = self._settings(session)
        if self._applied.get(session_id) != settings:
            await self._call(ApplySessionSettings(session_id=session_id, settings=settings))
            self._applied[session_id] = settings

    async def _run(
        self,
        session_id: str,
        operation: str,
        time_limit: float,
        work: Callable[[float], Awaitable[T]],
        *,
        page: Page | None = None,
    ) -> T:
        """Run `work(deadline)` in the session's scheduler slot (spec 1 §4 rules 5-6); an
        attached `page` must still be what it was attached as."""
        result, _ = await self._run_session(session_id, operation, time_limit, work, page=page)
        return result

    async def _run_session(
        self,
        session_id: str,
        operation: str,
        time_limit: float,
        work: Callable[[float], Awaitable[T]],
        *,
        page: Page | None = None,
    ) -> tuple[T, SessionRecord]:
        """`_run`, also returning the session as the operation ran it. The session is read
        once, when the slot starts (it may have changed or closed while queued), and that
        record serves the settings sync, the pinned-page check and the proxy cause."""
        queued_at = trio.current_time()
        deadline = queued_at + time_limit
        started_at: float | None = None
        outcome = "cancelled"
        self._sessions.touch(session_id)
        try:
            async with self._scheduler.slot(session_id, deadline):
                started_at = trio.current_time()
                self._sessions.touch(session_id)
                session = self._sessions.get(session_id)
                await self._ensure_settings(session)
                try:
                    if page is not None and page.attached:
                        self._check_pinned(page, session)
                    result = await work(deadline)
                except SvcError as exc:
                    raise self._with_proxy_cause(session, exc, started_at) from None
            outcome = "ok"
        except SvcError as exc:
            outcome = exc.error.id
            raise
        finally:
            if self._config.performance_trace:
                self._trace(operation, session_id, queued_at, started_at, outcome)
            self._sessions.touch(session_id)
        return result, session

    def _with_proxy_cause(self, session: SessionRecord, exc: SvcError, since: float) -> SvcError:
        """Spec 1 §7 rule 5: a failed load of a proxied session carries the relay's cause, when
        the relay recorded one for this session, proxy and destination since `since`."""
        error = exc.error
        details = error.details or {}
        url = details.get("url")
        if (
            error.id not in (ErrorId.UPSTREAM_UNAVAILABLE, ErrorId.BROWSER_UNAVAILABLE)
            or not isinstance(url, str)
            or "error_source" in details
        ):
            return exc
        authority = authority_of_url(url)
        if authority is None or session.proxy_alias is None:
            return exc
        diagnostics = self._diagnostics
        failure = diagnostics.latest(session.id, session.proxy_alias, authority, since=since)
        if failure is None:
            return exc
        return SvcError.of(
            ErrorId(error.id),
            f"{error.message}; proxy {failure.alias}: {failure.source}",
            **details,
            error_source="proxy",
            proxy_alias=failure.alias,
            source_error=failure.source,
        )

    def _trace(
        self, operation: str, session_id: str, queued_at: float, started: float | None, outcome: str
    ) -> None:
        end = trio.current_time()
        queue_ms = ((started if started is not None else end) - queued_at) * 1000
        execution_ms = (end - started) * 1000 if started is not None else 0.0
        self._logs.write(
            "browser_timing",
            f"{operation} on {session_id}: queued {queue_ms:.1f} ms, ran {execution_ms:.1f} ms",
            data={
                "operation": operation,
                "session_id": session_id,
                "queue_ms": round(queue_ms, 3),
                "execution_ms": round(execution_ms, 3),
                "outcome": outcome,
            },
        )

    # --- sessions and pages --------------------------------------------------------------------

    async def _create_session(self, body: SessionCreate) -> SessionRecord:
        sessions = self._sessions

        async def job() -> SessionRecord:
            return sessions.create(body)

        return await self._worker.run(job)

    async def _apply_proxy(self, session: SessionRecord, alias: str | None) -> SessionRecord:
        """The session with `alias` assigned (as it was when it already has it, or no alias)."""
        if alias is None:
            return session
        current = session.proxy_alias
        if current is not None and name_key(current) == name_key(alias):
            return session
        sessions = self._sessions

        async def job() -> SessionRecord:
            return sessions.patch(session.session_id, SessionPatch(proxy_alias=alias))

        return await self._worker.run(job)

    async def _navigation_session(
        self, session_id: str | None, profile: str | None, proxy: str | None
    ) -> str:
        """Shorthand rules 1-3 for a navigation."""
        if session_id is not None:
            if profile is not None:
                raise validation_error("profile cannot be combined with session_id", "profile")
            await self._apply_proxy(self._sessions.get(session_id), proxy)
            return session_id
        if profile is not None:
            create = SessionCreate(profile=profile, proxy_alias=proxy)
            return (await self._create_session(create)).session_id
        if self._last_session is not None:
            if proxy is not None:
                await self._apply_proxy(self._sessions.get(self._last_session), proxy)
            return self._last_session
        first = self._sessions.first()
        if first is None:
            return (await self._create_session(SessionCreate(proxy_alias=proxy))).session_id
        await self._apply_proxy(first, proxy)
        return first.session_id

    def _current_page(self, session_id: str) -> Page:
        page = self._current.get(session_id)
        if page is None:
            url = self._live_url.get(session_id, "about:blank")
            page = self._current[session_id] = Page(new_page_id(), session_id, url)
        return page

    def _select(self, session_id: str | None) -> Page:
        """Shorthand rules 3-4: the explicit session's page, else the most recent one."""
        if session_id is not None:
            self._sessions.get(session_id)
            self._last_session = session_id
            return self._current_page(session_id)
        if self._last_session is None or self._last_session not in self._current:
            raise SvcError.of(
                ErrorId.ACTIVE_PAGE_NOT_FOUND,
                "no current page: navigate first, or name a session_id",
            )
        return self._current[self._last_session]

    def _saw_url(self, session_id: str, url: str | None, page: Page | None = None) -> None:
        """The host reported the session's page at `url`."""
        if not url:
            return
        self._live_url[session_id] = url
        current = self._current.get(session_id)
        if current is not None:
            current.url = url
        if page is not None:
            page.url = url

    def _attached(self, page_id: str) -> Page:
        page = self._pages.get(page_id)
        if page is None:
            raise SvcError.of(
                ErrorId.PAGE_NOT_FOUND,
                f"page {page_id!r} does not exist (page ids end with the agent process)",
                page_id=page_id,
            )
        return page

    def _check_pinned(self, page: Page, session: SessionRecord) -> None:
        """An attached page still is what it was attached as: same proxy, same document URL."""
        proxy = session.proxy_alias
        if (proxy and name_key(proxy)) != (page.proxy_alias and name_key(page.proxy_alias)):
            raise SvcError.of(
                ErrorId.PAGE_MISMATCH,
                f"the proxy of {page.session_id} changed since page {page.id} was attached",
                page_id=page.id,
                field="proxy",
                attached=page.proxy_alias,
                current=proxy,
            )
        live = self._live_url.get(page.session_id)
        if live is not None and not same_url(live, page.url):
            raise SvcError.of(
                ErrorId.PAGE_MISMATCH,
                f"the page of {page.session_id} moved to another URL since page {page.id} "
                "was attached",
                page_id=page.id,
                field="url",
                attached=page.url,
                current=live,
            )

    def _capture_data(
        self, page: Page, path: str, answer: AttachAnswer | CaptureAnswer
    ) -> dict[str, Any]:
        return {
            "page": page.ref(),
            "capture": {
                "output_path": path,
                "bytesize": _written(answer),
                "target_http_status": answer.target_http_status,
            },
        }

    # --- shorthand page operations -------------------------------------------------------------

    async def navigate(self, body: NavigateBody, request_id: str) -> dict[str, Any]:
        url = normalize_url(body.url)
        path = output_path(self._config.data_dir, body.output, f"Captures/{request_id}.html")
        session_id = await self._navigation_session(body.session_id, body.profile, body.proxy)
        # Rule 7: the navigation replaces the session's retry target at once.
        page = self._current_page(session_id)
        page.url = url
        self._last_session = session_id

        async def work(deadline: float) -> AttachAnswer:
            self._live_url[session_id] = url
            params = AttachParams(
                session_id=session_id,
                url=url,
                navigate=True,
                output_path=path,
                timeout=_remaining(deadline),
                wait=body.wait,
            )
            try:
                return await self._call(params)
            except SvcError as exc:
                details = exc.error.details or {}
                if isinstance(details.get("url"), str):
                    self._saw_url(session_id, details["url"])
                raise

        answer = await self._run(session_id, "navigate", body.timeout, work)
        self._saw_url(session_id, answer.url)
        return self._capture_data(page, path, answer)

    async def _capture_on(
        self,
        page: Page,
        operation: str,
        *,
        path: str,
        actions: list[Action],
        time_limit: float,
        wait: float,
    ) -> dict[str, Any]:
        async def work(deadline: float) -> CaptureAnswer:
            params = CaptureParams(
                session_id=page.session_id,
                output_path=path,
                actions=actions,
                timeout=_remaining(deadline),
                wait=wait,
            )
            answer = await self._call(params)
            self._saw_url(page.session_id, answer.url, page)
            return answer

        answer = await self._run(page.session_id, operation, time_limit, work, page=page)
        return self._capture_data(page, path, answer)

    async def perform(self, body: PerformBody, request_id: str) -> dict[str, Any]:
        path = output_path(self._config.data_dir, body.output, f"Captures/{request_id}.html")
        page = self._select(body.session_id)
        return await self._capture_on(
            page,
            "perform",
            path=path,
            actions=list(body.actions),
            time_limit=body.timeout,
            wait=body.wait,
        )

    async def capture(self, body: CaptureBody, request_id: str) -> dict[str, Any]:
        path = output_path(self._config.data_dir, body.output, f"Captures/{request_id}.html")
        page = self._select(body.session_id)
        return await self._capture_on(
            page, "capture", path=path, actions=[], time_limit=body.timeout, wait=body.wait
        )

    async def screenshot(
        self,
        body: ScreenshotBody | PageScreenshotBody,
        request_id: str,
        page_id: str | None = None,
    ) -> dict[str, Any]:
        path = output_path(
            self._config.data_dir, body.output, f"Screenshots/{request_id}.{body.format}"
        )
        if page_id is not None:
            page = self._attached(page_id)
        else:
            assert isinstance(body, ScreenshotBody)
            page = self._select(body.session_id)

        async def work(deadline: float) -> ScreenshotAnswer:
            command = Screenshot(
                session_id=page.session_id,
                output_path=path,
                format=body.format,
                quality=None if body.format == "png" else body.quality,
                full_page=body.full_page,
                page_id=page.id if page.attached else None,
                timeout=_remaining(deadline),
                wait=body.wait,
            )
            answer = await self._call(command)
            self._saw_url(page.session_id, answer.url, page)
            return answer

        answer = await self._run(page.session_id, "screenshot", body.timeout, work, page=page)
        return {
            "page": page.ref(),
            "screenshot": {
                "output_path": path,
                "bytesize": answer.bytesize,
                "format": body.format,
                "mime_type": f"image/{body.format}",
                "width": answer.width,
                "height": answer.height,
            },
        }

    # --- observations --------------------------------------------------------------------------

    def _retain(self, page: Page, observation: Observation) -> dict[str, Any]:
        self._saw_url(page.session_id, observation.url, page)
        kept = msgspec.to_builtins(observation)
        return self._observations.retain(observation.id, page, kept).answer()

    def _observe_command(self, page: Page, mode: Mode, deadline: float, wait: float) -> Observe:
        return Observe(
            session_id=page.session_id,
            mode=mode,
            page_id=page.id if page.attached else None,
            timeout=_remaining(deadline),
            wait=wait,
        )

    async def observe(
        self, body: ObserveBody | PageObserveBody, page_id: str | None = None
    ) -> dict[str, Any]:
        if page_id is not None:
            page = self._attached(page_id)
        else:
            assert isinstance(body, ObserveBody)
            page = self._select(body.session_id)

        async def work(deadline: float) -> dict[str, Any]:
            answer = await self._call(self._observe_command(page, body.mode, deadline, body.wait))
            return self._retain(page, answer)

        return await self._run(page.session_id, "observe", body.timeout, work, page=page)

    async def navigate_observe(self, body: NavigateObserveBody) -> dict[str, Any]:
        url: str | None = None
        if body.navigation == "url":
            if body.url is None:
                raise validation_error("url is required when navigation is `url`", "url")
            url = normalize_url(body.url)
            session_id = await self._navigation_session(body.session_id, body.profile, body.proxy)
            page = self._current_page(session_id)
            page.url = url
            self._last_session = session_id
        else:
            for name in ("url", "profile", "proxy"):
                if getattr(body, name) is not None:
                    raise validation_error(
                        f"{name} cannot be combined with navigation `{body.navigation}`", name
                    )
            page = self._select(body.session_id)
            session_id = page.session_id

        async def work(deadline: float) -> dict[str, Any]:
            if url is not None:
                self._live_url[session_id] = url
            command = Navigate(
                session_id=session_id,
                url=url,
                navigation=body.navigation,
                timeout=_remaining(deadline),
                wait=body.wait,
            )
            try:
                moved = await self._call(command)
            except SvcError as exc:
                details = exc.error.details or {}
                if isinstance(details.get("url"), str):
                    self._saw_url(session_id, details["url"])
                raise
            self._saw_url(session_id, moved.url)
            answer = await self._call(self._observe_command(page, body.mode, deadline, 0.0))
            return self._retain(page, answer)

        return await self._run(session_id, "navigate_observe", body.timeout, work)

    def _retained(self, observation_id: str) -> Retained:
        return self._observations.get(observation_id)

    def observation(self, observation_id: str) -> dict[str, Any]:
        return self._retained(observation_id).answer()

    async def observation_actions(
        self, observation_id: str, body: ObservationActionsBody
    ) -> dict[str, Any]:
        stored = self._retained(observation_id)
        page = stored.page
        waits = sum(getattr(a, "seconds", 0.0) for a in body.actions)

        async def work(deadline: float) -> dict[str, Any]:
            command = ObservationAction(
                session_id=page.session_id,
                observation_id=observation_id,
                actions=list(body.actions),
                mode=body.mode,
                page_id=page.id if page.attached else None,
                timeout=_remaining(deadline),
            )
            return self._retain(page, await self._call(command))

        timeout = OBSERVATION_ACTIONS_TIMEOUT + waits
        return await self._run(page.session_id, "observation_actions", timeout, work)

    async def find(self, observation_id: str, body: FindBody) -> dict[str, Any]:
        """Search the retained copy (docs/observations.md "Find"); no engine work, so it also
        reads observations whose refs went stale."""
        if body.query is None and body.role is None:
            raise validation_error("find needs a query or a role (or both)", "query")
        stored = self._retained(observation_id)
        found = find_in(stored.decoded(), body.query, body.role, body.limit)
        return {"page": stored.page.ref(), "observation_id": observation_id, **found}

    # --- attached pages ------------------------------------------------------------------------

    async def attach(self, body: PagesBody, request_id: str) -> dict[str, Any]:
        url = normalize_url(body.url)
        path = output_path(self._config.data_dir, body.output, f"Captures/{request_id}.html")
        if body.session_id is not None:
            for name in ("profile", "group"):
                if getattr(body, name) is not None:
                    raise validation_error(f"{name} cannot be combined with session_id", name)
            await self._apply_proxy(self._sessions.get(body.session_id), body.proxy)
            session_id, navigate = body.session_id, False
        else:
            create = SessionCreate(profile=body.profile, group=body.group, proxy_alias=body.proxy)
            session_id, navigate = (await self._create_session(create)).session_id, True

        async def work(deadline: float) -> AttachAnswer:
            if navigate:
                self._live_url[session_id] = url
            params = AttachParams(
                session_id=session_id,
                url=url,
                navigate=navigate,
                output_path=path,
                timeout=_remaining(deadline),
                wait=body.wait,
            )
            answer = await self._call(params)
            self._saw_url(session_id, answer.url)
            return answer

        answer, session = await self._run_session(session_id, "attach", body.timeout, work)
        live = answer.url or self._live_url.get(session_id, "about:blank")
        if not same_url(live, url):
            raise SvcError.of(
                ErrorId.PAGE_MISMATCH,
                f"the page of {session_id} is at {live}, not at the requested URL",
                session_id=session_id,
                url=url,
                page_url=live,
            )
        # Pinned to the proxy the attach ran with.
        page = Page(new_page_id(), session_id, live, attached=True, proxy_alias=session.proxy_alias)
        self._pages[page.id] = page
        return self._capture_data(page, path, answer)

    async def page_action(
        self, page_id: str, body: PageActionBody, request_id: str
    ) -> dict[str, Any]:
        path = output_path(self._config.data_dir, body.output, f"Captures/{request_id}.html")
        page = self._attached(page_id)
        return await self._capture_on(
            page,
            "page_action",
            path=path,
            actions=[body.action],
            time_limit=body.timeout,
            wait=body.wait,
        )

    # --- POST /v1/captures ---------------------------------------------------------------------

    async def captures_preflight(self, body: CapturesBody, request_id: str) -> CapturePlan:
        """Everything that can fail before the stream starts (answered as ordinary errors)."""
        url = normalize_url(body.url)
        path = output_path(self._config.data_dir, body.output, f"Captures/{request_id}.html")
        if body.session_id is not None:
            for name in ("profile", "group"):
                if getattr(body, name) is not None:
                    raise validation_error(f"{name} cannot be combined with session_id", name)
            session = await self._apply_proxy(self._sessions.get(body.session_id), body.proxy)
        else:
            create = SessionCreate(profile=body.profile, group=body.group, proxy_alias=body.proxy)
            session = await self._create_session(create)
        return CapturePlan(request_id, session.session_id, url, path, body, session.proxy_alias)

    async def captures_stream(
        self, plan: CapturePlan, nursery: trio.Nursery
    ) -> AsyncIterator[bytes]:
        """The NDJSON lines of an accepted capture. The work runs in its own task so that no
        cancel scope is held across a `yield`; closing the stream cancels the work."""
        send, receive = trio.open_memory_channel[bytes](math.inf)
        scope = trio.CancelScope()
        done = trio.Event()

        async def task() -> None:
            try:
                with scope:
                    await self._capture_events(plan, send)
            except Exception as exc:  # a bug: end this stream, never the app's nursery
                self._logs.write(
                    "agent.internal_error",
                    f"capture {plan.request_id} failed: {exc!r}",
                    level="error",
                )
            finally:
                send.close()
                done.set()

        nursery.start_soon(task)
        try:
            async for line in receive:
                yield line
        finally:
            receive.close()
            scope.cancel()
            with trio.CancelScope(shield=True) as wait_scope:
                wait_scope.deadline = trio.current_time() + 5
                await done.wait()

    async def _capture_events(
        self, plan: CapturePlan, channel: trio.MemorySendChannel[bytes]
    ) -> None:
        store = self._store
        rid, session_id = plan.request_id, plan.session_id
        encoder = msgspec.json.Encoder()

        def emit(event: str, data: dict[str, Any], status: str = "ok") -> None:
            line = {"status": status, "request_id": rid, "event": event, "data": data}
            store.record_event(rid, event, data)
            # A closed channel means the client is gone and this work is being cancelled.
            with suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                channel.send_nowait(encoder.encode(line) + b"\n")

        store.record_request(rid, "capture", session_id, plan.url)
        finished = False
        try:
            emit("capture.started", {"url": plan.url, "session_id": session_id})
            result, error, traffic = await self._capture_attempts(plan, emit)
            proxy_traffic = {"proxy_alias": plan.proxy_alias, "bytes": traffic}
            emit("capture.traffic", {"session_id": session_id, "proxy_traffic": proxy_traffic})
            if result is not None:
                status = result.target_http_status
                target_error = status is not None and status >= 400
                outcome = "target_error" if target_error else "success"
                exit_code = EXIT_TARGET_ERROR if target_error else EXIT_OK
                completed = {
                    "output_path": plan.output_path,
                    "bytesize": result.bytesize,
                    "url": result.url or plan.url,
                    "target_http_status": status,
                    "session_id": session_id,
                    "capture_id": rid,
                    "proxy_traffic": proxy_traffic,
                    "outcome": outcome,
                }
                emit("capture.completed", completed)
                store.finish_request(
                    rid,
                    outcome=outcome,
                    exit_code=exit_code,
                    output_path=plan.output_path,
                    target_http_status=status,
                    traffic_bytes=traffic,
                    result=completed,
                )
            else:
                assert error is not None
                exit_code = EXIT_FAILED
                failed = msgspec.to_builtins(error)
                emit("capture.failed", failed, status="error")
                store.finish_request(
                    rid, outcome="failed", exit_code=exit_code, traffic_bytes=traffic, result=failed
                )
            emit("capture.finished", {"exit_code": exit_code})
            finished = True
        finally:
            if not finished:
                # cancelled: by the client closing its connection, unless the agent is stopping
                # (a signal, or the app gone with its bridge), which is then what the record says
                engine_gone = self._bridge is not None and not self._bridge.connected
                stopping = self._process.stopping.is_set() or engine_gone
                store.finish_request(
                    rid,
                    outcome="failed" if stopping else "cancelled",
                    exit_code=EXIT_FAILED,
                    result={
                        "reason": "the agent stopped before the capture ended"
                        if stopping
                        else "the client closed the connection"
                    },
                )

    async def _capture_attempts(
        self, plan: CapturePlan, emit: Callable[..., None]
    ) -> tuple[CaptureAnswer | None, ApiError | None, int]:
        """Attempt 1 and up to `retry` more after a retryable error, each with its own deadline
        (docs/decisions.md); returns (answer or None, last error or None, traffic bytes)."""
        body, session_id = plan.body, plan.session_id
        for attempt in itertools.count(1):

            async def work(deadline: float, attempt: int = attempt) -> CaptureAnswer:
                emit("capture.browser_requested", {"session_id": session_id, "attempt": attempt})
                params = CaptureParams(
                    session_id=session_id,
                    url=plan.url,
                    output_path=plan.output_path,
                    actions=list(body.actions),
                    timeout=_remaining(deadline),
                    wait=body.wait,
                )
                return await self._call(params)

            try:
                result = await self._run(session_id, "captures", body.timeout, work)
            except SvcError as exc:
                details = exc.error.details or {}
                session_gone = details.get("reason") == "session_closed"
                # the app went away: no engine is left to retry on (the agent is stopping)
                engine_gone = self._bridge is not None and not self._bridge.connected
                if not exc.error.retryable or attempt > body.retry or session_gone or engine_gone:
                    return None, exc.error, 0
                emit(
                    "capture.retrying",
                    {
                        "attempt": attempt,
                        "retry_delay": body.retry_delay,
                        "error": msgspec.to_builtins(exc.error),
                    },
                )
                await trio.sleep(body.retry_delay)
                continue
            timings = result.timings
            self._saw_url(session_id, result.url)
            emit(
                "capture.page_ready",
                {
                    "url": result.url,
                    "target_http_status": result.target_http_status,
                    "elapsed_ms": timings.page_ready_ms,
                },
            )
            emit("capture.rendered", {"elapsed_ms": timings.rendered_ms})
            emit(
                "capture.writing",
                {"output_path": plan.output_path, "elapsed_ms": timings.written_ms},
            )
            return result, None, result.traffic_bytes
        raise AssertionError("unreachable")

    # --- notifications -------------------------------------------------------------------------

    async def notifications(self) -> dict[str, Any]:
        answer = await self._bounded_call(Notifications(), CONTROL_TIMEOUT)
        since = self._process.started_at
        for note in answer.notifications:
            key = (note.session_id, note.notification_id, note.displayed_at)
            if key in self._notifications:
                continue
            try:
                shown = datetime.fromisoformat(note.displayed_at)
            except ValueError:
                raise SvcError.of(
                    ErrorId.INTERNAL_ERROR,
                    f"engine bridge sent a notification time {note.displayed_at!r}",
                ) from None
            if shown.tzinfo is None:
                shown = shown.replace(tzinfo=UTC)
            if shown.timestamp() < since:
                continue
            entry = {"sequence": next(self._sequence), **msgspec.to_builtins(note)}
            entry["trust"] = TRUST
            self._notifications[key] = entry
            while len(self._notifications) > NOTIFICATIONS_RETAINED:
                self._notifications.popitem(last=False)
        return {"notifications": list(self._notifications.values()), "trust": TRUST}

    # --- session commands ----------------------------------------------------------------------

    async def set_network_paused(self, session: SessionRecord, paused: bool) -> dict[str, Any]:
        """Pause and play answer at once, never queued behind the session's browser work."""
        session_id = session.session_id
        with trio.move_on_after(CONTROL_TIMEOUT) as scope:
            await self._ensure_settings(session)
            if paused:
                await self._call(Pause(session_id=session_id))
            else:
                await self._call(Play(session_id=session_id))
        if scope.cancelled_caught:
            raise SvcError.of(
                ErrorId.TIMEOUT, f"the engine did not answer within {CONTROL_TIMEOUT:g} s"
            )
        self._sessions.set_paused(session_id, paused)
        applied = self._applied.get(session_id)
        if applied is not None:
            self._applied[session_id] = msgspec.structs.replace(applied, network_paused=paused)
        self._sessions.touch(session_id)
        return {"session_id": session_id, "network_paused": paused}

    async def session_closed(self, session_id: str) -> None:
        """Drop the session's pages, current page and observations; tell the host to close its
        views and browser data. The store row is already gone, so this never fails."""
        self._current.pop(session_id, None)
        self._live_url.pop(session_id, None)
        self._applied.pop(session_id, None)
        if self._last_session == session_id:
            self._last_session = None
        for page_id in [p.id for p in self._pages.values() if p.session_id == session_id]:
            del self._pages[page_id]
        self._observations.drop_session(session_id)
        try:
            await self._bounded_call(CloseSession(session_id=session_id), CONTROL_TIMEOUT)
        except SvcError as exc:
            self._logs.write(
                "session.close_failed",
                f"the engine did not close {session_id}: {exc.error.message}",
                level="info" if exc.error.id == ErrorId.BROWSER_UNAVAILABLE else "warning",
            )
