"""Browser operations: the orchestrator of the shorthand page operations, screenshots, attached
pages and observations (spec 1 §4), lifecycle rules 8-9 and §3. The bridge commands and the data
they carry are docs/bridge.md's; which command each route sends is listed there too.

It owns session resolution and the one way every browser operation runs (`run`): select the
session, refuse a session with a proxy on the Free plan (PRO_REQUIRED `proxies`: its work would
use the proxy), wait for a scheduler slot until the operation's deadline, read the session once,
have the engine client sync its settings, check a pinned page, send the operation with the time
left, add the relay's cause to a failed proxied load, refresh the session's inactivity. A client
that closes its connection cancels the handler: `trio.Cancelled` goes through untouched, so
`BridgeClient.call` sends the cancellation frame.

The parts it orchestrates each live in their own module: the engine client (agent/engine_client.py:
bridge facade, settings sync), the page registry (agent/pages.py), retained observations
(agent/observations.py). POST /v1/captures (agent/capture_stream.py) runs through `run` too;
GET /v1/notifications (agent/notification_log.py) needs nothing of this.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import trio

from bridge_protocol import (
    Action,
    AttachAnswer,
    AttachParams,
    CaptureAnswer,
    CaptureParams,
    ErrorId,
    Navigate,
    Observation,
    ObservationAction,
    Observe,
    Screenshot,
    ScreenshotAnswer,
    SvcError,
)
from proxy import Diagnostics, authority_of_url

from . import page_responses as shown
from . import responses
from .api import (
    CaptureBody,
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
from .config import AgentConfig
from .engine_client import EngineClient, remaining
from .logs import LogWriter
from .observation_responses import FindResult, ObservationResult
from .observations import ObservationStore, Retained, find_in
from .pages import Page, PageRegistry
from .records import SessionRecord, name_key
from .scheduler import Scheduler
from .sessions import Sessions
from .temporary import Kind, TemporaryOutputs
from .urls import normalize_url, output_path, same_url
from .worker import ControlWorker

T = TypeVar("T")

OBSERVATION_ACTIONS_TIMEOUT = 90.0  # plus the batch's own wait seconds


def _written(answer: AttachAnswer | CaptureAnswer) -> int:
    """The bytesize of an answer that must have written its capture."""
    if answer.bytesize is None:
        raise SvcError.of(
            ErrorId.INTERNAL_ERROR, "engine bridge sent a capture answer without a bytesize"
        )
    return answer.bytesize


class Browser:
    def __init__(  # noqa: PLR0913  its collaborators, keyword-only (agent/services.py)
        self,
        *,
        config: AgentConfig,
        logs: LogWriter,
        scheduler: Scheduler,
        worker: ControlWorker,
        sessions: Sessions,
        diagnostics: Diagnostics,
        engine: EngineClient,
        pages: PageRegistry,
    ) -> None:
        self._config = config
        self._logs = logs
        self._scheduler = scheduler
        self._worker = worker
        self._sessions = sessions
        self._diagnostics = diagnostics  # the relay's failures, for proxy causes
        self._engine = engine
        self._pages = pages
        self._observations = ObservationStore()
        self._temporary = TemporaryOutputs(config.data_dir)

    # --- how every operation runs --------------------------------------------------------------

    async def run(
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
        """`run`, also returning the session as the operation ran it. The session is read
        when the slot starts (it may have changed or closed while queued); the settings sync
        answers the record its settings were made from (read again under the session's
        settings lock), and that record serves the pinned-page check and the proxy cause."""
        queued_at = trio.current_time()
        deadline = queued_at + time_limit
        started_at: float | None = None
        outcome = "cancelled"
        self._sessions.touch(session_id)
        try:
            # before the slot: no wait in the queue for work the plan refuses
            self._sessions.check_proxy_plan(session_id)
            async with self._scheduler.slot(session_id, deadline):
                started_at = trio.current_time()
                self._sessions.touch(session_id)
                session = await self._engine.ensure_settings(self._sessions.get(session_id))
                try:
                    if page is not None and page.attached:
                        self._pages.check_pinned(page, session.proxy_alias)
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
        if session.proxy_alias is None:
            return exc
        diagnostics = self._diagnostics
        unbound = diagnostics.unbound_cause(session.id)
        if unbound is not None:
            # the engine only says it could not reach its proxy: say why
            return SvcError.of(
                ErrorId(error.id),
                f"{error.message}; the session's proxy listener {unbound}",
                **details,
                error_source="proxy",
                proxy_alias=session.proxy_alias,
                source_error=unbound,
            )
        authority = authority_of_url(url)
        if authority is None:
            return exc
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

    # --- session resolution --------------------------------------------------------------------

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

        patched = await self._worker.run(job)
        # Like a PATCH: the host holds the new route before anything goes on (a page open in
        # the window included), not only when this request's operation gets its slot.
        await self._engine.push_settings([patched.session_id])
        return patched

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
        last = self._pages.last_session
        if last is not None:
            if proxy is not None:
                await self._apply_proxy(self._sessions.get(last), proxy)
            return last
        first = self._sessions.first()
        if first is None:
            return (await self._create_session(SessionCreate(proxy_alias=proxy))).session_id
        await self._apply_proxy(first, proxy)
        return first.session_id

    async def open_session(
        self, session_id: str | None, profile: str | None, group: str | None, proxy: str | None
    ) -> tuple[SessionRecord, bool]:
        """The session an attach or a POST /v1/captures names (with `proxy` assigned), or a new
        one made from `profile` and `group`; and whether it is new."""
        if session_id is not None:
            for name, value in (("profile", profile), ("group", group)):
                if value is not None:
                    raise validation_error(f"{name} cannot be combined with session_id", name)
            return await self._apply_proxy(self._sessions.get(session_id), proxy), False
        create = SessionCreate(profile=profile, group=group, proxy_alias=proxy)
        return await self._create_session(create), True

    async def output_for(self, raw: str | None, kind: Kind, name: str) -> str:
        """The absolute path of an operation's `output`; without one, `name` in the temporary
        directory's `kind` folder, which is pruned now and then (agent/temporary.py)."""
        path = output_path(self._config.data_dir, raw, TemporaryOutputs.relative(kind, name))
        if raw is None:
            removed = await self._temporary.handed_out()
            if removed:
                self._logs.write(
                    "agent.temporary_pruned",
                    f"removed {len(removed)} generated outputs from {self._temporary.root} "
                    "(by age or total size)",
                    data={"count": len(removed)},
                )
        return path

    def check_proxy_plan(self, session_id: str) -> None:
        """PRO_REQUIRED when the session's work would use its proxy on the Free plan."""
        self._sessions.check_proxy_plan(session_id)

    def _select(self, session_id: str | None) -> Page:
        """Shorthand rules 3-4, once a named session is known to exist."""
        if session_id is not None:
            self._sessions.get(session_id)
        return self._pages.select(session_id)

    def _capture_data(
        self, page: Page, path: str, answer: AttachAnswer | CaptureAnswer
    ) -> shown.PageOperation:
        capture = shown.Capture(
            output_path=path,
            bytesize=_written(answer),
            target_http_status=answer.target_http_status,
        )
        return shown.PageOperation(page=page.ref(), capture=capture)

    # --- shorthand page operations -------------------------------------------------------------

    async def navigate(self, body: NavigateBody, request_id: str) -> shown.PageOperation:
        url = normalize_url(body.url)
        path = await self.output_for(body.output, "Captures", f"{request_id}.html")
        session_id = await self._navigation_session(body.session_id, body.profile, body.proxy)
        # A navigation the plan refuses is never submitted: nothing is retargeted.
        self.check_proxy_plan(session_id)
        # Rule 7: the navigation replaces the session's retry target at once.
        page = self._pages.retarget(session_id, url)

        async def work(deadline: float) -> AttachAnswer:
            self._pages.loading(session_id, url)
            params = AttachParams(
                session_id=session_id,
                url=url,
                navigate=True,
                output_path=path,
                timeout=remaining(deadline),
                wait=body.wait,
            )
            try:
                return await self._engine.call(params)
            except SvcError as exc:
                details = exc.error.details or {}
                if isinstance(details.get("url"), str):
                    self._pages.saw_url(session_id, details["url"])
                raise

        answer = await self.run(session_id, "navigate", body.timeout, work)
        self._pages.saw_url(session_id, answer.url)
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
    ) -> shown.PageOperation:
        async def work(deadline: float) -> CaptureAnswer:
            params = CaptureParams(
                session_id=page.session_id,
                output_path=path,
                actions=actions,
                timeout=remaining(deadline),
                wait=wait,
            )
            answer = await self._engine.call(params)
            self._pages.saw_url(page.session_id, answer.url, page)
            return answer

        answer = await self.run(page.session_id, operation, time_limit, work, page=page)
        return self._capture_data(page, path, answer)

    async def perform(self, body: PerformBody, request_id: str) -> shown.PageOperation:
        path = await self.output_for(body.output, "Captures", f"{request_id}.html")
        page = self._select(body.session_id)
        return await self._capture_on(
            page,
            "perform",
            path=path,
            actions=list(body.actions),
            time_limit=body.timeout,
            wait=body.wait,
        )

    async def capture(self, body: CaptureBody, request_id: str) -> shown.PageOperation:
        path = await self.output_for(body.output, "Captures", f"{request_id}.html")
        page = self._select(body.session_id)
        return await self._capture_on(
            page, "capture", path=path, actions=[], time_limit=body.timeout, wait=body.wait
        )

    async def screenshot(
        self,
        body: ScreenshotBody | PageScreenshotBody,
        request_id: str,
        page_id: str | None = None,
    ) -> shown.ScreenshotResult:
        path = await self.output_for(body.output, "Screenshots", f"{request_id}.{body.format}")
        if page_id is not None:
            page = self._pages.attached(page_id)
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
                timeout=remaining(deadline),
                wait=body.wait,
            )
            answer = await self._engine.call(command)
            self._pages.saw_url(page.session_id, answer.url, page)
            return answer

        answer = await self.run(page.session_id, "screenshot", body.timeout, work, page=page)
        screenshot = shown.Screenshot(
            output_path=path,
            bytesize=answer.bytesize,
            format=body.format,
            mime_type=shown.MIME_TYPES[body.format],
            width=answer.width,
            height=answer.height,
        )
        return shown.ScreenshotResult(page=page.ref(), screenshot=screenshot)

    # --- observations --------------------------------------------------------------------------

    def _retain(self, page: Page, observation: Observation) -> ObservationResult:
        self._pages.saw_url(page.session_id, observation.url, page)
        return self._observations.retain(observation.id, page, observation).answer()

    def _observe_command(self, page: Page, mode: Mode, deadline: float, wait: float) -> Observe:
        return Observe(
            session_id=page.session_id,
            mode=mode,
            page_id=page.id if page.attached else None,
            timeout=remaining(deadline),
            wait=wait,
        )

    async def observe(
        self, body: ObserveBody | PageObserveBody, page_id: str | None = None
    ) -> ObservationResult:
        if page_id is not None:
            page = self._pages.attached(page_id)
        else:
            assert isinstance(body, ObserveBody)
            page = self._select(body.session_id)

        async def work(deadline: float) -> ObservationResult:
            answer = await self._engine.call(
                self._observe_command(page, body.mode, deadline, body.wait)
            )
            return self._retain(page, answer)

        return await self.run(page.session_id, "observe", body.timeout, work, page=page)

    async def navigate_observe(self, body: NavigateObserveBody) -> ObservationResult:
        url: str | None = None
        if body.navigation == "url":
            if body.url is None:
                raise validation_error("url is required when navigation is `url`", "url")
            url = normalize_url(body.url)
            session_id = await self._navigation_session(body.session_id, body.profile, body.proxy)
            self.check_proxy_plan(session_id)
            page = self._pages.retarget(session_id, url)
        else:
            for name in ("url", "profile", "proxy"):
                if getattr(body, name) is not None:
                    raise validation_error(
                        f"{name} cannot be combined with navigation `{body.navigation}`", name
                    )
            page = self._select(body.session_id)
            session_id = page.session_id

        async def work(deadline: float) -> ObservationResult:
            if url is not None:
                self._pages.loading(session_id, url)
            command = Navigate(
                session_id=session_id,
                url=url,
                navigation=body.navigation,
                timeout=remaining(deadline),
                wait=body.wait,
            )
            try:
                moved = await self._engine.call(command)
            except SvcError as exc:
                details = exc.error.details or {}
                if isinstance(details.get("url"), str):
                    self._pages.saw_url(session_id, details["url"])
                raise
            self._pages.saw_url(session_id, moved.url)
            answer = await self._engine.call(self._observe_command(page, body.mode, deadline, 0.0))
            return self._retain(page, answer)

        return await self.run(session_id, "navigate_observe", body.timeout, work)

    def _retained(self, observation_id: str) -> Retained:
        return self._observations.get(observation_id)

    def observation(self, observation_id: str) -> ObservationResult:
        return self._retained(observation_id).answer()

    async def observation_actions(
        self, observation_id: str, body: ObservationActionsBody
    ) -> ObservationResult:
        stored = self._retained(observation_id)
        page = stored.page
        waits = sum(getattr(a, "seconds", 0.0) for a in body.actions)

        async def work(deadline: float) -> ObservationResult:
            command = ObservationAction(
                session_id=page.session_id,
                observation_id=observation_id,
                actions=list(body.actions),
                mode=body.mode,
                page_id=page.id if page.attached else None,
                timeout=remaining(deadline),
            )
            return self._retain(page, await self._engine.call(command))

        timeout = OBSERVATION_ACTIONS_TIMEOUT + waits
        return await self.run(page.session_id, "observation_actions", timeout, work)

    async def find(self, observation_id: str, body: FindBody) -> FindResult:
        """Search the retained copy (docs/observations.md "Find"); no engine work, so it also
        reads observations whose refs went stale."""
        if body.query is None and body.role is None:
            raise validation_error("find needs a query or a role (or both)", "query")
        stored = self._retained(observation_id)
        found = find_in(stored.decoded(), body.query, body.role, body.limit)
        return FindResult(
            page=stored.page.ref(),
            observation_id=observation_id,
            content=found.content,
            elements=found.elements,
            total_matches=found.total_matches,
            truncated=found.truncated,
        )

    # --- attached pages ------------------------------------------------------------------------

    async def attach(self, body: PagesBody, request_id: str) -> shown.PageOperation:
        url = normalize_url(body.url)
        path = await self.output_for(body.output, "Captures", f"{request_id}.html")
        target, navigate = await self.open_session(
            body.session_id, body.profile, body.group, body.proxy
        )
        session_id = target.session_id

        async def work(deadline: float) -> AttachAnswer:
            if navigate:
                self._pages.loading(session_id, url)
            params = AttachParams(
                session_id=session_id,
                url=url,
                navigate=navigate,
                output_path=path,
                timeout=remaining(deadline),
                wait=body.wait,
            )
            answer = await self._engine.call(params)
            self._pages.saw_url(session_id, answer.url)
            return answer

        answer, session = await self._run_session(session_id, "attach", body.timeout, work)
        live = answer.url or self._pages.live_url(session_id) or "about:blank"
        if not same_url(live, url):
            raise SvcError.of(
                ErrorId.PAGE_MISMATCH,
                f"the page of {session_id} is at {live}, not at the requested URL",
                session_id=session_id,
                url=url,
                page_url=live,
            )
        # Pinned to the proxy the attach ran with.
        page = self._pages.attach(session_id, live, session.proxy_alias)
        return self._capture_data(page, path, answer)

    async def page_action(
        self, page_id: str, body: PageActionBody, request_id: str
    ) -> shown.PageOperation:
        path = await self.output_for(body.output, "Captures", f"{request_id}.html")
        page = self._pages.attached(page_id)
        return await self._capture_on(
            page,
            "page_action",
            path=path,
            actions=[body.action],
            time_limit=body.timeout,
            wait=body.wait,
        )

    # --- session commands ----------------------------------------------------------------------

    async def set_network_paused(
        self, session: SessionRecord, paused: bool
    ) -> responses.NetworkState:
        """Pause and play answer at once, never queued behind the session's browser work."""
        session_id = session.session_id
        await self._engine.set_network_paused(session, paused)
        self._sessions.set_paused(session_id, paused)
        self._engine.network_paused_applied(session_id, paused)
        self._sessions.touch(session_id)
        return responses.NetworkState(session_id=session_id, network_paused=paused)

    async def session_closed(self, session_id: str) -> None:
        """Drop the session's pages, current page and observations; tell the host to close its
        views and browser data. The store row is already gone, so this never fails."""
        self._pages.forget_session(session_id)
        self._observations.drop_session(session_id)
        try:
            await self._engine.close_session(session_id)
        except SvcError as exc:
            self._logs.write(
                "session.close_failed",
                f"the engine did not close {session_id}: {exc.error.message}",
                level="info" if exc.error.id == ErrorId.BROWSER_UNAVAILABLE else "warning",
            )
