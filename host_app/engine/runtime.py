"""The QtWebEngine runtime and its sessions' lifecycle: the registry of each session's settings
and browser (`host_app.engine.session_browser.SessionBrowser`, one profile per session), their
views, the notifications, and the bridge handler's Qt side.

Which command does what is `host_app.core.dispatch`'s business (no Qt there); the engine runs the
page work it names under the session's lock and deadline, on Qt timers.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec

from bridge_protocol import (
    Answer,
    ApiError,
    Done,
    ErrorId,
    NeedsPerson,
    Observation,
    PauseAnswer,
    PlayAnswer,
    SessionSettings,
    SvcError,
)
from bridge_protocol.host_endpoint import CancelCallback, HostRequest, Responder
from bridge_protocol.session_ids import session_number

from ..core import dispatch, observations, operations
from ..logic import aio
from ..logic.actionability import Box
from ..logic.activity import Activities, Activity, Outcome
from ..logic.assets import SHARED_MAX_BYTES, SHARED_MAX_ENTRY
from ..logic.follow import selects_for_view
from ..logic.logfile import HostLog
from ..logic.notifications import NotificationQueue
from ..logic.policy import Filters, route_of
from ..logic.settings import AppSettings
from ..qt import QApplication, QCoreApplication, QObject, QPointingDevice, Qt, QTimer, QWidget
from . import asset_scheme, dialogs, memory
from .session_browser import SessionBrowser
from .session_storage import remove_later, removed
from .shared_assets import SharedAssets
from .worker_cdp import DevtoolsHost

# SessionBrowser lives in host_app/engine/session_browser.py; it is named from here too, as the
# session type of the engine's registry.
__all__ = [
    "ENGINE_APP_NAME",
    "Engine",
    "QtLoop",
    "SessionBrowser",
    "engine_application_name",
    "prepare_storage",
    "profile_id_of",
]

ENGINE_APP_NAME = "svc"
PREFS_QUIET = 0.25


def prepare_storage(data_dir: Path) -> Path:
    """Make QtWebEngine's default storage folder for profile `Tab-<N>` be
    `{data_dir}/Browser/Tab-<N>`: `AppDataLocation/QtWebEngine` is a symlink to
    `{data_dir}/Browser` (user_prefs.json is read only from that default folder, DESIGN.md).
    Returns the XDG_DATA_HOME the engine must run with."""
    browser = data_dir / "Browser"
    xdg = browser / ".engine"
    link = xdg / ENGINE_APP_NAME / "QtWebEngine"
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() and Path(link.readlink()) != browser:
        link.unlink()
    if not link.exists() and not link.is_symlink():
        link.symlink_to(browser, target_is_directory=True)
    return xdg


class QtLoop:
    """`aio.Loop` on Qt timers."""

    class _Handle:
        def __init__(self, timer: QTimer, owner: QtLoop) -> None:
            self.timer: QTimer | None = timer
            self.owner = owner

        def cancel(self) -> None:
            self.owner._timers.discard(self)
            self.end()

        def end(self) -> None:
            """The timer goes on this thread's event loop: one left to Python's collector (its
            slot's closure holds this handle, a cycle) was deleted from whichever thread
            collected it (measured: the asset fetch threads)."""
            timer, self.timer = self.timer, None
            if timer is not None:
                timer.stop()
                timer.deleteLater()

    def __init__(self) -> None:
        self._timers: set[QtLoop._Handle] = set()
        # the timers' parent: Qt owns them, so dropping a handle never deletes one in the
        # middle of its own timeout; each is deleted later once fired or cancelled
        self._parent = QObject()
        self._time = time.monotonic

    def time(self) -> float:
        return self._time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> QtLoop._Handle:
        timer = QTimer(self._parent)
        timer.setSingleShot(True)
        handle = QtLoop._Handle(timer, self)

        def fire() -> None:
            self._timers.discard(handle)
            handle.end()
            callback()

        timer.timeout.connect(fire)
        timer.start(max(0, round(delay * 1000)))
        self._timers.add(handle)
        return handle


def profile_id_of(session_id: str) -> int:
    number = session_number(session_id)
    if number is None:
        raise SvcError.of(
            ErrorId.SESSION_NOT_FOUND, f"{session_id} is not a session id", id=session_id
        )
    return number


class Engine:
    """The single browser runtime: sessions, their settings, views and notifications (the
    `dispatch.Host` the bridge's commands act on), and the runner of their page work."""

    def __init__(
        self,
        data_dir: Path,
        settings: AppSettings,
        *,
        headless: bool,
        log: HostLog | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.log = log
        self.settings = settings
        self.headless = headless
        # The offscreen platform declares no input device, so pages read `(pointer: none)` with
        # `(hover: hover)`, which no desktop shows. svc drives pages with a mouse: Qt's core
        # pointer, declared here, gives them a desktop's `(pointer: fine)` (measured; a display
        # with its own devices keeps them)
        QPointingDevice.primaryPointingDevice()
        # the app-wide half of adblock, read by every session's interceptor at each request
        self.filters = Filters(enabled=settings.adblock_enabled)
        self.loop = QtLoop()
        self.qobject = QObject()
        self.devtools = DevtoolsHost(self.qobject)  # the identity in workers (worker_cdp)
        self.sessions: dict[str, SessionBrowser] = {}
        self.session_settings: dict[str, SessionSettings] = {}
        self.notifications = NotificationQueue()
        self.activities = Activities()  # what agents did, for the window (logic.activity)
        # the element an operation aims at, where it is (session id, box in CSS px): the
        # window outlines it over the view
        self.on_target: list[Callable[[str, Box], None]] = []
        # a session's page newly waits for a person (an observation's needs_person)
        self.on_needs_person: list[Callable[[str, NeedsPerson], None]] = []
        self.visible_session: str | None = None
        self.on_session_changed: list[Callable[[str], None]] = []
        self.on_operation: list[Callable[[str], None]] = []
        self.selected_for_view: str | None = None
        self.tasks: set[aio.Task] = set()
        self.observations = observations.ObservationStore(observations.default_folder(data_dir))
        self.collector = memory.RendererCollector(self.loop)
        self.shared_assets = SharedAssets(
            data_dir / "Browser" / "SharedAssets",
            max_bytes=_env_int("SVC_SHARED_ASSETS_MAX_BYTES", SHARED_MAX_BYTES),
            max_entry=_env_int("SVC_SHARED_ASSETS_MAX_ENTRY", SHARED_MAX_ENTRY),
        )

    # -- caches ------------------------------------------------------------------------------

    def clear_shared_cache(self) -> None:
        """Settings' "clear the shared asset cache": every partition."""
        self.shared_assets.clear()
        self.write_log("engine.cache", "shared asset cache cleared")

    def clear_private_caches(self) -> None:
        """Settings' "clear the private caches": every session's own HTTP cache, the shared
        asset cache untouched. A live profile clears its own (the engine owns those files);
        the cache folder of a session without a browser is removed."""
        live = set()
        for b in self.sessions.values():
            if b.profile is not None:
                b.profile.clearHttpCache()
                live.add(b.storage)
        for tab in (self.data_dir / "Browser").glob("Tab-*"):
            if tab not in live:
                shutil.rmtree(tab / "Cache", ignore_errors=True)
        self.write_log("engine.cache", "private HTTP caches cleared")

    def clear_browsing_data(self, session_id: str) -> None:
        """The Info view's "Clear browsing data": this session's cookies, site storage, private
        cache and history go; its settings, logs and the shared cache stay. A live context is
        closed first (its pages with it) and the folder removed once the engine has let go of
        it; the next view or operation starts an empty context. Queued on the session's lock,
        like an operation, so it never pulls the context from under a running one."""
        b = self.sessions.get(session_id)
        if b is None:
            b = SessionBrowser(self, session_id, profile_id_of(session_id))
            self.sessions[session_id] = b
        storage = b.storage

        async def clear() -> None:
            if b.active:
                b.rebuilding = True
                try:
                    await self._close_context(b)
                    await self._remove_tree(storage)
                finally:
                    b.rebuilding = False
            else:
                await self._remove_tree(storage)
            self.observations.drop_session(session_id)
            self.write_session_log(
                profile_id_of(session_id),
                "session.data_cleared",
                "browsing data cleared from the app's Info view",
            )
            self.session_changed_id(session_id)

        self._locked_task(b, clear(), "Clear browsing data")

    async def _remove_tree(self, path: Path) -> None:
        for _ in range(20):
            if removed(path):
                return
            await aio.sleep(self.loop, 0.1)

    # -- views -------------------------------------------------------------------------------

    def show_background(self, view: QWidget) -> None:
        """Render `view` off screen at the Background Browser Size (a never-shown view grabs
        blank)."""
        w, h = self.settings.background_dimensions
        view.setParent(None)
        view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        view.resize(w, h)
        view.show()

    def forget_view(self, session_id: str) -> None:
        if self.visible_session == session_id:
            self.visible_session = None

    def targeted(self, session_id: str, box: Box) -> None:
        for listener in self.on_target:
            listener(session_id, box)

    def agent_busy(self) -> bool:
        return any(s.lock.locked for s in self.sessions.values())

    def write_log(self, category: str, message: str, **data: Any) -> None:
        if self.log is not None:
            self.log.write(category, message, data=data)

    def write_session_log(self, profile_id: int, category: str, message: str, **data: Any) -> None:
        if self.log is not None:
            self.log.write(category, message, data=data, profile_id=profile_id)

    def operation_selected(self, session_id: str) -> None:
        app_active = QApplication.applicationState() == Qt.ApplicationState.ApplicationActive
        if selects_for_view(
            follow_browser_commands=self.settings.follow_browser_commands, app_active=app_active
        ):
            if self.selected_for_view != session_id:
                self.write_log(
                    "ui.session_selected",
                    f"{session_id} selected for the next view by a browser operation",
                    session_id=session_id,
                )
            self.selected_for_view = session_id
            for cb in self.on_operation:
                cb(session_id)

    def apply_app_settings(self, settings: AppSettings) -> None:
        resized = settings.background_size != self.settings.background_size
        self.settings = settings
        self.filters.enabled = settings.adblock_enabled
        for b in self.sessions.values():
            if b.assets is not None:
                b.assets.policy = replace(b.assets.policy, shared_cache=settings.shared_asset_cache)
        if resized:
            w, h = settings.background_dimensions
            for b in self.sessions.values():
                shown = b.view if b.session_id == self.visible_session else None
                for view in b.pages.views() if b.pages is not None else []:
                    if view is not shown:
                        view.resize(w, h)

    # -- sessions ----------------------------------------------------------------------------

    def browser(self, session_id: str) -> SessionBrowser:
        settings = self.session_settings.get(session_id)
        if settings is None:
            raise SvcError.of(
                ErrorId.BROWSER_CREATION_FAILED, f"no settings for {session_id}", id=session_id
            )
        b = self.sessions.get(session_id)
        if b is None:
            b = SessionBrowser(self, session_id, profile_id_of(session_id))
            self.sessions[session_id] = b
        if not b.active and not b.rebuilding:
            try:
                b.activate(settings)
            except SvcError:
                raise
            except Exception as exc:
                raise SvcError.of(
                    ErrorId.BROWSER_CREATION_FAILED, f"cannot create {session_id}'s browser: {exc}"
                ) from None
            self.session_changed_id(session_id)
        return b

    def apply_session_settings(self, session_id: str, settings: SessionSettings) -> Done:
        profile_id_of(session_id)
        old = self.session_settings.get(session_id)
        self.session_settings[session_id] = settings
        b = self.sessions.get(session_id)
        if b is not None and b.active:
            # the hold first: a play in the same settings must not reload by the old route
            if b.route != route_of(settings):
                b.hold.hold()
                self._cancel_for_route(b)
                self._renew_when_idle(b)
            else:
                b.hold.release()
            b.apply_settings(settings, old)
        self.session_changed_id(session_id)
        return Done()

    def _renew_when_idle(self, b: SessionBrowser) -> None:
        """A route change takes a new browser context; an empty browser (no page, popup or
        history, spec 1 §4 Sessions) gets it at once, any other stays held for Reload and apply
        or the session's next navigating operation. Never under a running operation: the
        settings come outside the session's scheduler slot too (pause, play), and a page
        replaced under a capture left it reading a blank page or waiting on a navigation that
        had gone (issue 12, the empty capture). Queued on the session's lock, an operation
        sent after these settings still runs on the renewed browser."""

        async def renew() -> None:
            if self._empty(b):
                await self.rebuild(b.session_id)

        self._locked_task(b, renew(), "renewing the browser")

    def _cancel_for_route(self, b: SessionBrowser) -> None:
        """An operation running when the session's route changes cannot finish: its requests
        are held, and none may leave by the old route. It ends at once, retryable (a capture
        retries by the new route), rather than waiting for its deadline."""
        running = b.running
        if running is not None:
            running.throw(
                SvcError.of(
                    ErrorId.REQUEST_CANCELLED,
                    f"the route of {b.session_id} changed while the operation ran",
                    reason="route_changed",
                    session_id=b.session_id,
                )
            )

    def _locked_task(
        self,
        b: SessionBrowser,
        work: Coroutine[Any, None, None],
        what: str,
        *,
        category: str = "engine.settings",
    ) -> None:
        """`work` in the background under the session's lock (after its running operation);
        a failure is logged under `category`."""

        async def locked() -> None:
            await b.lock.acquire()
            try:
                await work
            finally:
                b.lock.release()

        def finished(task: aio.Task) -> None:
            self.tasks.discard(task)
            if task.exception is not None and not isinstance(task.exception, aio.Cancelled):
                self.write_log(
                    category,
                    f"{what} of {b.session_id} failed: {task.exception!r}",
                    session_id=b.session_id,
                )

        task = aio.Task(locked(), finished)
        self.tasks.add(task)
        task.start()

    def _empty(self, b: SessionBrowser) -> bool:
        hist = b.page.history() if b.page is not None else None
        # "empty": no page, popup or history (spec 1 §4 Sessions)
        return b.stack.popups == 0 and (
            hist is None
            or (
                hist.count() <= 1
                and b.page is not None
                and (b.page.url().toString() in ("", "about:blank"))
            )
        )

    async def apply_route(self, session_id: str, how: str = "url") -> str | None:
        """Before an operation that navigates (under the session's lock): a session held for a
        route change gets its new browser context first. The URL the history move `how` would
        have reached in the old context when it was rebuilt (that history is gone), else None."""
        b = self.sessions.get(session_id)
        if b is None or not b.hold.held:
            return None
        target = b.hold.history_target(how) if how != "url" else None
        return target if await self.rebuild(session_id) else None

    def reload_and_apply(self, session_id: str) -> None:
        """The banner's button: the new context, then the page it showed, loaded on the new
        route. Queued on the session's lock like an operation."""
        b = self.sessions.get(session_id)
        if b is None:
            return

        async def apply() -> None:
            url = await self.apply_route(session_id, "reload")
            if url is not None and b.active:
                b.load(url)

        self._locked_task(b, apply(), "Reload and apply")

    async def _prefs_written(self, prefs: Path) -> None:
        """The old profile's preference store writes user_prefs.json once more after the
        profile object is gone (a few ms later, from the engine's file thread), with the old
        proxy in it; a new profile reading that file ran on the old route (measured: one
        rebuild in three). Wait until the file has been quiet for PREFS_QUIET seconds."""
        end = self.loop.time() + 3.0
        last, quiet_since = _mtime(prefs), self.loop.time()
        while self.loop.time() < end and self.loop.time() - quiet_since < PREFS_QUIET:
            await aio.sleep(self.loop, 0.05)
            now = _mtime(prefs)
            if now != last:
                last, quiet_since = now, self.loop.time()

    async def _close_context(self, b: SessionBrowser) -> None:
        """Close the session's context and wait until the engine has let go of its folder: the
        profile object destroyed (5 s at most) and its preference file quiet."""
        gone: aio.Future[None] = aio.Future()

        def destroyed(*_: Any) -> None:
            if not gone.done():
                gone.set_result(None)

        if b.profile is not None:
            b.profile.destroyed.connect(destroyed)
        else:
            destroyed()
        b.close()
        await aio.within(self.loop, gone, 5.0, None)
        await self._prefs_written(b.storage / "user_prefs.json")

    async def rebuild(self, session_id: str) -> bool:
        """A new browser context (profile) on the session's current route, on the same storage
        folder so cookies and storage are kept: user_prefs.json is rewritten before the profile
        is created. Waits for the old profile to be gone first: two live profiles on one data
        path share nothing reliably (the engine warns "Using the same data path")."""
        b = self.sessions.get(session_id)
        settings = self.session_settings.get(session_id)
        if b is None or settings is None or not b.active:
            return False
        if b.route == route_of(settings):
            b.hold.release()
            return False
        b.rebuilding = True
        try:
            await self._close_context(b)
        finally:
            b.rebuilding = False
        # the session closed meanwhile, or its settings went: no context to build
        settings = self.session_settings.get(session_id)
        if self.sessions.get(session_id) is not b or settings is None:
            return False
        self.write_log(
            "engine.route",
            f"{session_id}'s browser context rebuilt for its new route",
            session_id=session_id,
            proxied=settings.proxy_port is not None,
        )
        self.browser(session_id)
        return True

    def session_changed_id(self, session_id: str) -> None:
        for cb in self.on_session_changed:
            cb(session_id)

    def close_session(self, session_id: str) -> Done:
        b = self.sessions.pop(session_id, None)
        self.session_settings.pop(session_id, None)
        if b is None:
            b = SessionBrowser(self, session_id, profile_id_of(session_id))
        b.close()
        remove_later(self.loop, b.storage)
        self.observations.drop_session(session_id)
        self.activities.drop(session_id)
        self.session_changed_id(session_id)
        return Done()

    def shutdown(self) -> None:
        for task in list(self.tasks):
            task.throw(aio.Cancelled())
        for b in self.sessions.values():
            b.close()
        asset_scheme.abort_all()
        self.collector.close()
        self.observations.clear()

    # -- the bridge handler ------------------------------------------------------------------

    @property
    def options(self) -> operations.Options:
        return operations.Options(wait_for_bot_challenge=self.settings.wait_for_bot_challenge)

    def pause_session(self, session_id: str) -> PauseAnswer:
        b = self._set_paused(session_id, paused=True)
        if b is not None:
            b.hold.pause()
        self.session_changed_id(session_id)
        return PauseAnswer(network_paused=True)

    def play_session(self, session_id: str) -> PlayAnswer:
        b = self._set_paused(session_id, paused=False)
        reloaded = b.hold.play() if b is not None else False
        self.session_changed_id(session_id)
        return PlayAnswer(network_paused=False, reloaded=reloaded)

    def _set_paused(self, session_id: str, *, paused: bool) -> SessionBrowser | None:
        settings = self.session_settings.get(session_id)
        if settings is None:
            raise SvcError.of(ErrorId.BROWSER_CREATION_FAILED, f"no settings for {session_id}")
        self.session_settings[session_id] = msgspec.structs.replace(settings, network_paused=paused)
        return self.sessions.get(session_id)

    def handle(self, request: HostRequest, responder: Responder) -> CancelCallback | None:
        match dispatch.dispatch(request, self):
            case dispatch.Job() as job:
                return self._run(job, responder)
            case answer:
                responder.ok(answer)
                return None

    def _collect_when_due(self, b: SessionBrowser) -> None:
        """After an operation: a garbage collection in the session's renderer when it grew by
        the bound since the last one (host_app/engine/memory.py); the next operation waits for it.
        Measured only after operations that started a load."""
        if not b.memory.loaded_since(b.load_starts):
            return

        async def collect() -> None:
            page = b.page
            if page is None or b.pages is None:
                return
            channel = b.workers.channel(page) if b.workers is not None else None
            made = await self.collector.collect_if_due(page, b.memory, channel)
            if made is not None:
                self.write_session_log(
                    b.profile_id,
                    "engine.memory",
                    f"collected garbage in the renderer of {b.session_id}",
                    session_id=b.session_id,
                    pss_before_kib=made[0],
                    pss_after_kib=made[1],
                )

        self._locked_task(b, collect(), "garbage collection", category="engine.memory")

    def _run(
        self,
        job: dispatch.Job[SessionBrowser],
        responder: Responder,
    ) -> CancelCallback:
        b, timeout, work, name, steps = job.session, job.timeout, job.work, job.name, job.steps
        started = time.monotonic()

        def record(outcome: Outcome, error_id: str | None = None) -> None:
            """The operation in the session's log and the window's activity list."""
            ms = round((time.monotonic() - started) * 1000)
            activity = Activity(b.session_id, name, steps, outcome, error_id, ms)
            self.write_session_log(
                b.profile_id, "agent.operation", activity.line(), **activity.data()
            )
            self.activities.add(activity)
            self.session_changed_id(b.session_id)

        async def locked() -> Answer:
            dialogs.agent_started()  # before the lock: the operation may not wait on a person
            await b.lock.acquire()
            b.running, b.running_kind = task, name
            self.session_changed_id(b.session_id)  # the window's list shows it running
            try:
                return await work()
            finally:
                b.running = b.running_kind = None
                b.lock.release()

        def done(task: aio.Task) -> None:
            timer.cancel()
            self.tasks.discard(task)
            exc = task.exception
            # answered first: the log line and the windows' updates after it are not the
            # agent's to wait for (a quarter of a millisecond of every step)
            if exc is None:
                responder.ok(task.result)
            elif isinstance(exc, SvcError):
                responder.error(exc.error)
            self._collect_when_due(b)
            if exc is None:
                record("ok")
                person = task.result.needs_person if isinstance(task.result, Observation) else None
                if isinstance(task.result, Observation) and b.person.saw(person) and person:
                    for listener in self.on_needs_person:
                        listener(b.session_id, person)
            elif isinstance(exc, SvcError):
                record("failed", exc.error.id)
            elif isinstance(exc, aio.Cancelled):
                record("cancelled")
                # the endpoint already answered REQUEST_CANCELLED. A load the operation set off
                # (a click that navigates) would otherwise commit later and be taken for the
                # document of the session's next navigation: it stops with the operation.
                if b.loading:
                    b.stop()
                self.write_log(
                    "engine.cancelled",
                    f"{name} on {b.session_id} cancelled",
                    session_id=b.session_id,
                    operation=name,
                )
            else:
                record("failed", ErrorId.INTERNAL_ERROR.value)
                responder.error(
                    ApiError.of(ErrorId.INTERNAL_ERROR, f"host operation failed: {exc!r}")
                )

        task = aio.Task(locked(), done)
        self.tasks.add(task)
        timer = self.loop.call_later(
            timeout,
            lambda: task.throw(
                SvcError.of(ErrorId.TIMEOUT, f"the operation did not finish within {timeout:g} s")
            ),
        )
        task.start()
        return lambda: task.throw(aio.Cancelled())


def _env_int(name: str, default: int) -> int:
    """A bound from the environment (tests inject small ones), else the spec's."""
    try:
        return max(1, int(os.environ[name]))
    except (KeyError, ValueError):
        return default


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def engine_application_name() -> None:
    QCoreApplication.setOrganizationName("")
    QCoreApplication.setApplicationName(ENGINE_APP_NAME)
