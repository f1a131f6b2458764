"""POST /v1/captures (spec 1 §4): preflight, then the NDJSON event stream of one capture job.

Preflight does everything that can fail before the stream starts (URL, output path, the session
to use or make), so those failures are ordinary error responses. After it, the answer is a
200 stream of events: `capture.started`, then per attempt `capture.browser_requested` and, on a
retryable error with retries left, `capture.retrying`; then `capture.page_ready`,
`capture.rendered`, `capture.writing`, `capture.traffic`, `capture.completed` or
`capture.failed`, and `capture.finished` with the exit code. Each event is also kept in the
request history (agent/store.py), and the request's final record says how it ended, cancelled
by the client included.

Each attempt runs as any browser operation does (`Browser.run`: the scheduler slot, settings,
the proxy cause), with its own deadline (docs/decisions.md).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import AsyncIterator, Callable
from contextlib import suppress
from dataclasses import dataclass

import msgspec
import trio

from bridge_protocol import ApiError, CaptureAnswer, CaptureParams, SvcError

from . import capture_events as ev
from .api import CapturesBody
from .browser import Browser
from .config import AgentConfig
from .context import AgentProcess
from .engine_client import EngineClient, remaining
from .logs import LogWriter
from .pages import PageRegistry
from .store import Store
from .urls import normalize_url

# exit_code of capture.finished: 0 completed; 1 unsuccessful, either completed with a target
# status >= 400 (outcome target_error) or failed (spec 2 §7: the terminal exit code of an
# unsuccessful capture is 1; the outcome tells the two apart).
EXIT_OK, EXIT_TARGET_ERROR, EXIT_FAILED = 0, 1, 1

# An event of the stream: its data, which names it (agent/capture_events.py).
Emit = Callable[[ev.CaptureEvent], None]


class _Line(msgspec.Struct):
    """One line of the stream: the event's data under its name (spec 1 §4 POST /v1/captures)."""

    status: str
    request_id: str
    event: str
    data: msgspec.Struct


@dataclass
class CapturePlan:
    """A POST /v1/captures request that passed preflight."""

    request_id: str
    session_id: str
    url: str
    output_path: str
    body: CapturesBody
    proxy_alias: str | None = None


class CaptureJob:
    def __init__(
        self,
        *,
        config: AgentConfig,
        process: AgentProcess,
        store: Store,
        logs: LogWriter,
        engine: EngineClient,
        pages: PageRegistry,
        browser: Browser,
    ) -> None:
        self._config = config
        self._process = process
        self._store = store
        self._logs = logs
        self._engine = engine
        self._pages = pages
        self._browser = browser

    async def preflight(self, body: CapturesBody, request_id: str) -> CapturePlan:
        """Everything that can fail before the stream starts (answered as ordinary errors)."""
        url = normalize_url(body.url)
        path = await self._browser.output_for(body.output, "Captures", f"{request_id}.html")
        session, _ = await self._browser.open_session(
            body.session_id, body.profile, body.group, body.proxy
        )
        # an ordinary error, not a failed stream (each attempt checks again)
        self._browser.check_proxy_plan(session.session_id)
        return CapturePlan(request_id, session.session_id, url, path, body, session.proxy_alias)

    async def stream(self, plan: CapturePlan, nursery: trio.Nursery) -> AsyncIterator[bytes]:
        """The NDJSON lines of an accepted capture. The work runs in its own task so that no
        cancel scope is held across a `yield`; closing the stream cancels the work."""
        send, receive = trio.open_memory_channel[bytes](math.inf)
        scope = trio.CancelScope()
        done = trio.Event()

        async def task() -> None:
            try:
                with scope:
                    await self._events(plan, send)
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

    async def _events(self, plan: CapturePlan, channel: trio.MemorySendChannel[bytes]) -> None:
        store = self._store
        rid, session_id = plan.request_id, plan.session_id
        encoder = msgspec.json.Encoder()

        def send(status: str, event: str, data: msgspec.Struct) -> None:
            line = _Line(status=status, request_id=rid, event=event, data=data)
            store.record_event(rid, event, msgspec.to_builtins(data))
            # A closed channel means the client is gone and this work is being cancelled.
            with suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                channel.send_nowait(encoder.encode(line) + b"\n")

        def emit(data: ev.CaptureEvent) -> None:
            send("ok", data.EVENT, data)

        store.record_request(rid, "capture", session_id, plan.url)
        finished = False
        try:
            emit(ev.CaptureStarted(url=plan.url, session_id=session_id))
            result, error, traffic = await self._attempts(plan, emit)
            proxy_traffic = ev.ProxyTraffic(proxy_alias=plan.proxy_alias, bytes=traffic)
            emit(ev.CaptureTraffic(session_id=session_id, proxy_traffic=proxy_traffic))
            if result is not None:
                status = result.target_http_status
                target_error = status is not None and status >= 400
                outcome: ev.Outcome = "target_error" if target_error else "success"
                exit_code = EXIT_TARGET_ERROR if target_error else EXIT_OK
                completed = ev.CaptureCompleted(
                    output_path=plan.output_path,
                    bytesize=result.bytesize,
                    url=result.url or plan.url,
                    target_http_status=status,
                    session_id=session_id,
                    capture_id=rid,
                    proxy_traffic=proxy_traffic,
                    outcome=outcome,
                )
                emit(completed)
                store.finish_request(
                    rid,
                    outcome=outcome,
                    exit_code=exit_code,
                    output_path=plan.output_path,
                    target_http_status=status,
                    traffic_bytes=traffic,
                    result=msgspec.to_builtins(completed),
                )
            else:
                assert error is not None
                exit_code = EXIT_FAILED
                send("error", ev.FAILED, error)
                store.finish_request(
                    rid,
                    outcome="failed",
                    exit_code=exit_code,
                    traffic_bytes=traffic,
                    result=msgspec.to_builtins(error),
                )
            emit(ev.CaptureFinished(exit_code=exit_code))
            finished = True
        finally:
            if not finished:
                # cancelled: by the client closing its connection, unless the agent is stopping
                # (a signal, or the app gone with its bridge), which is then what the record says
                stopping = self._process.stopping.is_set() or self._engine.gone
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

    async def _attempts(
        self, plan: CapturePlan, emit: Emit
    ) -> tuple[CaptureAnswer | None, ApiError | None, int]:
        """Attempt 1 and up to `retry` more after a retryable error, each with its own deadline
        (docs/decisions.md); returns (answer or None, last error or None, traffic bytes)."""
        body, session_id = plan.body, plan.session_id
        for attempt in itertools.count(1):

            async def work(deadline: float, attempt: int = attempt) -> CaptureAnswer:
                emit(ev.CaptureBrowserRequested(session_id=session_id, attempt=attempt))
                params = CaptureParams(
                    session_id=session_id,
                    url=plan.url,
                    output_path=plan.output_path,
                    actions=list(body.actions),
                    timeout=remaining(deadline),
                    wait=body.wait,
                )
                return await self._engine.call(params)

            try:
                result = await self._browser.run(session_id, "captures", body.timeout, work)
            except SvcError as exc:
                details = exc.error.details or {}
                session_gone = details.get("reason") == "session_closed"
                # the app went away: no engine is left to retry on (the agent is stopping)
                engine_gone = self._engine.gone
                if not exc.error.retryable or attempt > body.retry or session_gone or engine_gone:
                    return None, exc.error, 0
                emit(
                    ev.CaptureRetrying(
                        attempt=attempt, retry_delay=body.retry_delay, error=exc.error
                    )
                )
                await trio.sleep(body.retry_delay)
                continue
            timings = result.timings
            self._pages.saw_url(session_id, result.url)
            emit(
                ev.CapturePageReady(
                    url=result.url,
                    target_http_status=result.target_http_status,
                    elapsed_ms=timings.page_ready_ms,
                )
            )
            emit(ev.CaptureRendered(elapsed_ms=timings.rendered_ms))
            emit(ev.CaptureWriting(output_path=plan.output_path, elapsed_ms=timings.written_ms))
            return result, None, result.traffic_bytes
        raise AssertionError("unreachable")
