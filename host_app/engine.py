"""The QtWebEngine edge: one runtime, one profile per session, and the bridge handler's Qt side.

Qt objects are translated into plain values here and handed to `host_app.operations`,
`host_app.observations` and `host_app.logic`; nothing in those imports Qt. Which command does
what is `host_app.dispatch`'s business; the engine runs the work it names under the session's
lock and deadline.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import msgspec

from bridge_protocol import (
    Answer,
    ApiError,
    Done,
    ErrorId,
    PauseAnswer,
    PlayAnswer,
    SessionSettings,
    SvcError,
)
from bridge_protocol.host_endpoint import CancelCallback, HostRequest, Responder
from bridge_protocol.selectors import DomNode, build_tree
from bridge_protocol.session_ids import session_number

from . import actions, dialogs, dispatch, js, memory, observations, operations
from .dialogs import DialogHost
from .downloads import SessionDownloads
from .logic import aio
from .logic.follow import selects_for_view
from .logic.frames import MAX_DEPTH, HostFrame
from .logic.images import QT_FORMAT, qt_quality
from .logic.logfile import HostLog
from .logic.memory import RendererMemory
from .logic.notifications import NotificationQueue
from .logic.page_events import PageEvent, PageEvents
from .logic.page_stack import PageStack
from .logic.policy import NetworkPolicy
from .logic.readiness import Probe
from .logic.settings import AppSettings
from .qt import (
    QApplication,
    QBuffer,
    QCoreApplication,
    QEvent,
    QIODevice,
    QMouseEvent,
    QObject,
    QPoint,
    QPointF,
    Qt,
    QTest,
    QTimer,
    QUrl,
    QWebEngineFrame,
    QWebEngineNotification,
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineScript,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineView,
    QWheelEvent,
    QWidget,
)
from .session_pages import SessionPages

ENGINE_APP_NAME = "svc"
MAX_FRAME_TREE = 200  # frames listed per page (the observation reads at most 64 of them)
FRAME_JS_TIMEOUT = 5.0
# The Qt stubs type QTest's static helpers as instance methods.
_QTEST: Any = QTest
WORLD = QWebEngineScript.ScriptWorldId.ApplicationWorld

KEYS: dict[str, Qt.Key] = {
    "Enter": Qt.Key.Key_Return,
    "Tab": Qt.Key.Key_Tab,
    "Escape": Qt.Key.Key_Escape,
    "Backspace": Qt.Key.Key_Backspace,
    "Delete": Qt.Key.Key_Delete,
    "ArrowUp": Qt.Key.Key_Up,
    "ArrowDown": Qt.Key.Key_Down,
    "ArrowLeft": Qt.Key.Key_Left,
    "ArrowRight": Qt.Key.Key_Right,
    "Home": Qt.Key.Key_Home,
    "End": Qt.Key.Key_End,
    "PageUp": Qt.Key.Key_PageUp,
    "PageDown": Qt.Key.Key_PageDown,
    "Space": Qt.Key.Key_Space,
    "A": Qt.Key.Key_A,
}


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
            self.timer = timer
            self.owner = owner

        def cancel(self) -> None:
            self.timer.stop()
            self.owner._timers.discard(self)

    def __init__(self) -> None:
        self._timers: set[QtLoop._Handle] = set()
        self._clock = QTimer()  # unused; keeps a QObject around for parenting
        import time as _time

        self._time = _time.monotonic

    def time(self) -> float:
        return self._time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> QtLoop._Handle:
        timer = QTimer()
        timer.setSingleShot(True)
        handle = QtLoop._Handle(timer, self)

        def fire() -> None:
            self._timers.discard(handle)
            callback()

        timer.timeout.connect(fire)
        timer.start(max(0, round(delay * 1000)))
        self._timers.add(handle)
        return handle


class Interceptor(QWebEngineUrlRequestInterceptor):
    def __init__(
        self, policy: NetworkPolicy, parent: QObject, navigation: Callable[[], None]
    ) -> None:
        super().__init__(parent)
        self.policy = policy
        self.navigation = navigation  # told of main-frame requests that are not redirects

    def interceptRequest(self, info: QWebEngineUrlRequestInfo | None) -> None:
        if info is None:
            return
        rtype = info.resourceType()
        redirect = QWebEngineUrlRequestInfo.NavigationType.NavigationTypeRedirect
        main_frame = rtype == QWebEngineUrlRequestInfo.ResourceType.ResourceTypeMainFrame
        if main_frame and info.navigationType() != redirect:
            self.navigation()
        if self.policy.block(
            info.requestUrl().scheme(),
            main_frame=main_frame,
            image=rtype == QWebEngineUrlRequestInfo.ResourceType.ResourceTypeImage,
        ):
            info.block(True)


class SessionPage(QWebEnginePage):
    """Dialogs go to the session's `DialogHost`, never to Qt's application-modal boxes; a page
    made without one (say, a popup's) answers them by the policy, unreported."""

    def __init__(
        self, profile: QWebEngineProfile, view: QWidget, dialogs: DialogHost | None = None
    ) -> None:
        super().__init__(profile, view)
        self.dialogs = dialogs

    def javaScriptConsoleMessage(self, *args: Any) -> None:
        """Page console output is not the app's business."""

    def javaScriptAlert(self, origin: QUrl, message: str | None) -> None:
        if self.dialogs is not None:
            self.dialogs.alert(origin, message or "")

    def javaScriptConfirm(self, origin: QUrl, message: str | None) -> bool:
        return self.dialogs is None or self.dialogs.confirm(origin, message or "")

    def javaScriptPrompt(
        self, origin: QUrl, message: str | None, default: str | None
    ) -> tuple[bool, str]:
        if self.dialogs is None:
            return True, default or ""
        return self.dialogs.prompt(origin, message or "", default or "")


class SessionBrowser:
    """One session's profile and pages (the root page and its popups, `session_pages`); the
    current page is `page`, in `view`. Implements `operations.PageDriver`."""

    def __init__(self, engine: Engine, session_id: str, profile_id: int) -> None:
        self.engine = engine
        self._loop = engine.loop
        self.session_id = session_id
        self.profile_id = profile_id
        self.lock = aio.Lock()
        # readiness counters and per-page load state; they follow the current page
        self.stack = PageStack()
        self.policy = NetworkPolicy()
        self.profile: QWebEngineProfile | None = None
        self.pages: SessionPages[SessionPage] | None = None
        self.proxy_port: int | None = None
        self.events = PageEvents()
        self.dialogs = DialogHost(self)
        self.downloads = SessionDownloads(self)
        self.memory = RendererMemory()

    @property
    def view(self) -> QWebEngineView | None:
        return self.pages.view if self.pages is not None else None

    @property
    def page(self) -> SessionPage | None:
        return self.pages.page if self.pages is not None else None

    @property
    def load_starts(self) -> int:
        return self.stack.load_starts

    @property
    def failure(self) -> tuple[int, str, str] | None:
        return self.stack.failure

    @failure.setter
    def failure(self, value: tuple[int, str, str] | None) -> None:
        self.stack.failure = value

    @property
    def last_status(self) -> int | None:
        return self.stack.state.last_status

    @last_status.setter
    def last_status(self, value: int | None) -> None:
        self.stack.state.last_status = value

    @property
    def loading(self) -> bool:
        return self.stack.state.loading

    @property
    def page_id(self) -> int:
        return self.stack.current

    def page_open(self, page_id: int) -> bool:
        return self.stack.page(page_id) is not None
        self.pointer: tuple[float, float] | None = None

    @property
    def storage(self) -> Path:
        return self.engine.data_dir / "Browser" / f"Tab-{self.profile_id}"

    @property
    def loop(self) -> aio.Loop:
        return self._loop

    @property
    def active(self) -> bool:
        return self.page is not None

    @property
    def paused(self) -> bool:
        return self.policy.paused

    # -- lifecycle ---------------------------------------------------------------------------

    def activate(self, settings: SessionSettings) -> None:
        if self.page is not None:
            return
        proxy_port = settings.proxy_port
        try:
            self.storage.mkdir(parents=True, exist_ok=True)
            prefs_path = self.storage / "user_prefs.json"
            prefs: dict[str, Any] = {}
            with contextlib.suppress(OSError, ValueError):
                loaded = json.loads(prefs_path.read_text("utf-8"))
                if isinstance(loaded, dict):
                    prefs = loaded
            if proxy_port is None:
                prefs["proxy"] = {"mode": "direct"}
            else:
                prefs["proxy"] = {
                    "mode": "fixed_servers",
                    "server": f"127.0.0.1:{int(proxy_port)}",
                    "bypass_list": "<-loopback>",
                }
            prefs_path.write_text(json.dumps(prefs), "utf-8")
        except (OSError, ValueError, TypeError) as exc:
            raise SvcError.of(
                ErrorId.PROXY_CONFIGURATION_FAILED,
                f"cannot write the proxy preference of {self.session_id}: {exc}",
            ) from None
        self.proxy_port = proxy_port
        self.policy = NetworkPolicy.from_settings(settings)
        profile = QWebEngineProfile(f"Tab-{self.profile_id}", self.engine.qobject)
        if profile.isOffTheRecord():
            raise SvcError.of(
                ErrorId.BROWSER_CREATION_FAILED, f"{self.session_id}: profile is off the record"
            )
        profile.setCachePath(str(self.storage / "Cache"))
        profile.setPersistentCookiesPolicy(
            QWebEngineProfile.PersistentCookiesPolicy.ForcePersistentCookies
        )
        interceptor = Interceptor(self.policy, profile, self.downloads.main_frame_request)
        profile.setUrlRequestInterceptor(interceptor)
        self._interceptor = interceptor
        profile.setNotificationPresenter(self._notification)
        self.downloads.attach(profile)
        self.profile = profile
        self.stack = PageStack()
        self.pages = SessionPages(profile, self, self.stack)

    def new_page(self, view: QWebEngineView) -> SessionPage:
        """Every page of the session, the root page and each popup, is made here."""
        assert self.profile is not None
        page = SessionPage(self.profile, view, self.dialogs)
        with contextlib.suppress(AttributeError):
            page.permissionRequested.connect(self._permission)
        return page

    def show_background(self, view: QWidget) -> None:
        self.engine.show_background(view)

    def pages_changed(self) -> None:
        self.engine.session_changed(self)

    def slot_failed(self, what: str, exc: Exception) -> None:
        self.engine.write_log(
            "engine.slot_failed",
            f"{what} on {self.session_id} failed: {exc!r}",
            session_id=self.session_id,
            handler=what,
        )

    def _notification(self, note: QWebEngineNotification | None) -> None:
        if note is None:
            return
        self.engine.notifications.add(
            enabled=self.engine.settings.send_notifications,
            session_id=self.session_id,
            origin=note.origin().toString(),
            title=note.title(),
            body=note.message(),
            tag=note.tag(),
            persistent=False,
        )
        note.show()

    def _permission(self, permission: Any) -> None:
        try:
            kind = permission.permissionType()
            notifications = kind == type(kind).Notifications
        except AttributeError:
            return
        if notifications and self.engine.settings.send_notifications:
            permission.grant()
        else:
            permission.deny()

    def close(self) -> None:
        pages, profile = self.pages, self.profile
        self.pages = None
        self.profile = None
        self.dialogs.close()
        self.downloads.cancel_all()
        if pages is not None:
            self.engine.forget_view(self)
            pages.close_all(profile.deleteLater if profile is not None else lambda: None)
        elif profile is not None:
            profile.deleteLater()

    def drop_data(self) -> None:
        storage = self.storage

        def remove(attempt: int = 0) -> None:
            shutil.rmtree(storage, ignore_errors=True)
            if storage.exists() and attempt < 10:
                self.loop.call_later(0.5, lambda: remove(attempt + 1))

        remove()
        self.loop.call_later(1.0, lambda: remove(5))

    # -- PageDriver --------------------------------------------------------------------------

    def _page(self) -> SessionPage:
        if self.page is None:
            raise SvcError.of(ErrorId.BROWSER_UNAVAILABLE, f"{self.session_id} has no browser")
        return self.page

    def run_js(self, code: str) -> aio.Future[Any]:
        fut: aio.Future[Any] = aio.Future()
        self._page()
        assert self.pages is not None

        def done(raw: aio.Future[Any]) -> None:
            result = raw.result()
            if not isinstance(result, str):
                fut.set_result(None)
                return
            try:
                fut.set_result(json.loads(result))
            except ValueError:
                fut.set_result(None)

        self.pages.run_js(code).add_done_callback(done)
        return fut

    def frame_tree(self) -> HostFrame:
        """The page's frames as plain data (html name, URL, size), their QWebEngineFrame kept as
        opaque handles: valid while the page lives, so used within one operation only."""
        count = 0

        def node(frame: QWebEngineFrame, depth: int) -> HostFrame:
            nonlocal count
            count += 1
            size = frame.size()
            out = HostFrame(
                frame.htmlName(), frame.url().toString(), size.width(), size.height(), [], frame
            )
            if depth < MAX_DEPTH:
                for child in frame.children():
                    if count >= MAX_FRAME_TREE:
                        break
                    out.children.append(node(child, depth + 1))
            return out

        return node(self._page().mainFrame(), 0)

    def run_js_in(self, frame: object, code: str) -> aio.Future[Any]:
        """`run_js` in one frame's isolated world; None when the frame is gone."""
        fut: aio.Future[Any] = aio.Future()
        self._page()
        if not isinstance(frame, QWebEngineFrame) or not frame.isValid():
            fut.set_result(None)
            return fut

        def done(result: Any) -> None:
            if fut.done():
                return
            timer.cancel()
            try:
                fut.set_result(json.loads(result) if isinstance(result, str) else None)
            except ValueError:
                fut.set_result(None)

        def late() -> None:
            # a frame that never answers (its renderer hung or went away) reads as unreadable
            if not fut.done():
                fut.set_result(None)

        timer = self.loop.call_later(FRAME_JS_TIMEOUT, late)
        frame.runJavaScript(code, WORLD, done)
        return fut

    async def _probe(self) -> Probe:
        v = await self.run_js(js.PROBE)
        if not isinstance(v, dict):
            url = self._page().url().toString()
            return Probe(url, "loading", 0, 0, -1.0)
        return Probe(
            href=str(v.get("h", "")),
            ready_state=str(v.get("r", "")),
            length=int(v.get("l") or 0),
            status=int(v.get("s") or 0),
            origin=float(v.get("o") or 0.0),
            title=str(v.get("t", "")),
            challenge=bool(v.get("c")),
        )

    def probe(self) -> aio.Future[Probe]:
        return _spawn(self._probe())

    def load(self, url: str) -> None:
        self.failure = None
        self._page().load(QUrl(url))

    def history(self, how: str) -> bool:
        page = self._page()
        hist = page.history()
        if how == "back":
            if hist is None or not hist.canGoBack():
                # a popup with nowhere to go back to closes and its opener is current again, as
                # a phone browser's back does for a tab a link opened: the agent's way out
                return self.pages is not None and self.pages.close_popup(
                    self.stack.current, by="back"
                )
            page.triggerAction(QWebEnginePage.WebAction.Back)
        elif how == "forward":
            if hist is None or not hist.canGoForward():
                return False
            page.triggerAction(QWebEnginePage.WebAction.Forward)
        else:
            page.triggerAction(QWebEnginePage.WebAction.Reload)
        return True

    def stop(self) -> None:
        if self.page is not None:
            self.page.triggerAction(QWebEnginePage.WebAction.Stop)

    async def _snapshot(self) -> actions.Snapshot:
        v = await self.run_js(js.SNAPSHOT)
        if not isinstance(v, dict):
            return actions.Snapshot([], [])
        nodes = [
            DomNode(i, str(rec[0]), {str(k): str(x) for k, x in rec[1].items()}, int(rec[2]))
            for i, rec in enumerate(v.get("n", []))
        ]
        build_tree(nodes)
        return actions.Snapshot(nodes, [(int(i), str(h)) for i, h in v.get("k", [])])

    def snapshot(self) -> aio.Future[actions.Snapshot]:
        return _spawn(self._snapshot())

    async def _element(self, node: DomNode) -> actions.ElementInfo | None:
        v = await self.run_js(js.element(node.index, node.tag))
        if not isinstance(v, dict):
            return None
        return actions.ElementInfo.from_js(v)

    def element(self, node: DomNode) -> aio.Future[actions.ElementInfo | None]:
        return _spawn(self._element(node))

    async def _focus(self, node: DomNode) -> bool:
        self._focus_view()
        return bool(await self.run_js(js.focus(node.index, node.tag)))

    def focus(self, node: DomNode) -> aio.Future[bool]:
        return _spawn(self._focus(node))

    def _target(self) -> QWidget:
        view = self.view
        if view is None:
            raise SvcError.of(ErrorId.BROWSER_UNAVAILABLE, f"{self.session_id} has no view")
        return view.focusProxy() or view

    def _focus_view(self) -> None:
        target = self._target()
        target.setFocus(Qt.FocusReason.OtherFocusReason)

    def mouse_click(self, x: float, y: float, move: bool, ctrl: bool = False) -> None:
        target = self._target()
        pos = QPoint(round(x), round(y))
        mod = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
        self.pointer = (x, y)
        if move:
            _QTEST.mouseMove(target, pos)
        _QTEST.mousePress(target, Qt.MouseButton.LeftButton, mod, pos)
        _QTEST.mouseRelease(target, Qt.MouseButton.LeftButton, mod, pos)

    def mouse_move(self, x: float, y: float) -> None:
        """A local mouse-move event (hover); the OS cursor does not move."""
        target = self._target()
        pos = QPointF(x, y)
        self.pointer = (x, y)
        event = QMouseEvent(
            QEvent.Type.MouseMove,
            pos,
            QPointF(target.mapToGlobal(pos)),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(target, event)

    def focus_view(self) -> None:
        self._focus_view()

    def wheel(self, x: float, y: float, dx: int, dy: int) -> None:
        # One gesture per call (begin, update, end): a wheel without phases is latched by
        # Chromium to the scroller its sequence first hit for as long as wheels keep coming
        # (~500 ms apart at most), so one that landed while a new document was not yet
        # hit-testable kept every later step of a scroll-into-view going nowhere.
        target = self._target()
        pos = QPointF(x, y)
        glob = QPointF(target.mapToGlobal(pos))
        for phase, delta in (
            (Qt.ScrollPhase.ScrollBegin, QPoint(0, 0)),
            (Qt.ScrollPhase.ScrollUpdate, QPoint(dx, dy)),
            (Qt.ScrollPhase.ScrollEnd, QPoint(0, 0)),
        ):
            event = QWheelEvent(
                pos,
                glob,
                QPoint(0, 0),
                delta,
                Qt.MouseButton.NoButton,
                Qt.KeyboardModifier.NoModifier,
                phase,
                False,
            )
            QApplication.sendEvent(target, event)

    def key(self, name: str, ctrl: bool = False) -> None:
        self._focus_view()
        mod = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
        _QTEST.keyClick(self._target(), KEYS[name], mod)

    def type_text(self, text: str) -> None:
        self._focus_view()
        _QTEST.keyClicks(self._target(), text)

    def to_html(self) -> aio.Future[str]:
        fut: aio.Future[str] = aio.Future()
        self._page().toHtml(lambda html: fut.set_result(html if isinstance(html, str) else ""))
        return fut

    async def _traffic(self) -> int:
        v = await self.run_js(js.TRAFFIC)
        return int(v) if isinstance(v, int | float) else 0

    def traffic_bytes(self) -> aio.Future[int]:
        return _spawn(self._traffic())

    async def _document_size(self) -> tuple[int, int, int, int]:
        v = await self.run_js(js.DOC_SIZE)
        if not isinstance(v, list) or len(v) != 4:
            return (0, 0, 0, 0)
        return (int(v[0]), int(v[1]), int(v[2]), int(v[3]))

    def document_size(self) -> aio.Future[tuple[int, int, int, int]]:
        return _spawn(self._document_size())

    async def _grab(self, full_page: bool, height: int) -> Any:
        view = self.view
        assert view is not None
        if not full_page or height <= view.height():
            await aio.sleep(self.loop, 0.05)
            return view.grab().toImage()
        old = view.size()
        view.resize(old.width(), height)
        try:
            for _ in range(100):
                inner = await self.run_js(js.INNER_HEIGHT)
                if isinstance(inner, int) and inner >= height:
                    break
                await aio.sleep(self.loop, 0.03)
            await aio.sleep(self.loop, 0.15)
            return view.grab().toImage()
        finally:
            view.resize(old)

    def grab(self, full_page: bool, height: int) -> aio.Future[Any]:
        return _spawn(self._grab(full_page, height))

    def save_image(self, image: Any, path: str, fmt: str, quality: int | None) -> int:
        if fmt == "jpeg":
            image = image.convertToFormat(image.Format.Format_RGB32)
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, QT_FORMAT[fmt], qt_quality(fmt, quality)):
            raise SvcError.of(ErrorId.INTERNAL_ERROR, f"cannot encode the {fmt} image")
        return operations.write_file(path, buffer.data().data())

    def title(self) -> str:
        return self.page.title() if self.page is not None else ""

    def take_events(self) -> tuple[list[PageEvent], int]:
        return self.events.take()

    def page_event(
        self, event: PageEvent, category: str, message: str | None = None, **data: Any
    ) -> None:
        """Keep `event` for the next observation and write its record to the session's log
        (`message` defaults to the event's text)."""
        self.events.add(event)
        self.engine.write_session_log(
            self.profile_id, category, message or event.text, session_id=self.session_id, **data
        )

    def selected(self) -> None:
        self.engine.operation_selected(self)

    # -- pause / play ------------------------------------------------------------------------

    def pause(self) -> None:
        if self.policy.paused:
            return
        self.policy.paused = True
        self.policy.deferred_navigation = False
        for state, page in self.pages.states() if self.pages is not None else []:
            state.interrupted = False
            if state.loading:
                # Stop before commit restores the previous document (Chromium keeps it); a stop
                # after commit leaves a partial document, so play must reload.
                state.interrupted = state.committed_in_load
                page.triggerAction(QWebEnginePage.WebAction.Stop)

    def play(self) -> bool:
        if not self.policy.paused:
            return False
        self.policy.paused = False
        deferred = self.policy.deferred_navigation
        self.policy.deferred_navigation = False
        reloaded = False
        for state, page in self.pages.states() if self.pages is not None else []:
            # a deferred navigation is the current page's (only it is driven while paused)
            if state.interrupted or (deferred and state is self.stack.state):
                page.triggerAction(QWebEnginePage.WebAction.Reload)
                reloaded = reloaded or state is self.stack.state
            state.interrupted = False
        return reloaded


_spawn = aio.spawn


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
        self.loop = QtLoop()
        self.qobject = QObject()
        self.sessions: dict[str, SessionBrowser] = {}
        self.session_settings: dict[str, SessionSettings] = {}
        self.notifications = NotificationQueue()
        self.visible_session: str | None = None
        self.on_session_changed: list[Callable[[str], None]] = []
        self.on_operation: list[Callable[[str], None]] = []
        self.selected_for_view: str | None = None
        self.tasks: set[aio.Task] = set()
        self.observations = observations.ObservationStore(observations.default_folder(data_dir))
        self.collector = memory.RendererCollector(self.loop)

    # -- views -------------------------------------------------------------------------------

    def show_background(self, view: QWidget) -> None:
        """Render `view` off screen at the Background Browser Size (a never-shown view grabs
        blank)."""
        w, h = self.settings.background_dimensions
        view.setParent(None)
        view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        view.resize(w, h)
        view.show()

    def forget_view(self, browser: SessionBrowser) -> None:
        if self.visible_session == browser.session_id:
            self.visible_session = None

    def session_changed(self, browser: SessionBrowser) -> None:
        for cb in self.on_session_changed:
            cb(browser.session_id)

    def write_log(self, category: str, message: str, **data: Any) -> None:
        if self.log is not None:
            self.log.write(category, message, data=data)

    def write_session_log(self, profile_id: int, category: str, message: str, **data: Any) -> None:
        if self.log is not None:
            self.log.write(category, message, data=data, profile_id=profile_id)

    def operation_selected(self, browser: SessionBrowser) -> None:
        app_active = QApplication.applicationState() == Qt.ApplicationState.ApplicationActive
        if selects_for_view(
            follow_browser_commands=self.settings.follow_browser_commands, app_active=app_active
        ):
            if self.selected_for_view != browser.session_id:
                self.write_log(
                    "ui.session_selected",
                    f"{browser.session_id} selected for the next view by a browser operation",
                    session_id=browser.session_id,
                )
            self.selected_for_view = browser.session_id
            for cb in self.on_operation:
                cb(browser.session_id)

    def apply_app_settings(self, settings: AppSettings) -> None:
        resized = settings.background_size != self.settings.background_size
        self.settings = settings
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
        if not b.active:
            try:
                b.activate(settings)
            except SvcError:
                raise
            except Exception as exc:
                raise SvcError.of(
                    ErrorId.BROWSER_CREATION_FAILED, f"cannot create {session_id}'s browser: {exc}"
                ) from None
            self.session_changed(b)
        return b

    def apply_session_settings(self, session_id: str, settings: SessionSettings) -> Done:
        profile_id_of(session_id)
        old = self.session_settings.get(session_id)
        self.session_settings[session_id] = settings
        b = self.sessions.get(session_id)
        if b is not None and b.active:
            b.policy.image_blocking_mode = settings.image_blocking_mode
            if settings.network_paused != b.paused:
                if settings.network_paused:
                    b.pause()
                else:
                    b.play()
            if old is not None and old.proxy_port != settings.proxy_port:
                self._renew_when_idle(b)
        self.session_changed_id(session_id)
        return Done()

    def _renew_when_idle(self, b: SessionBrowser) -> None:
        """A proxy change takes a new profile, so a new page; only an empty browser is renewed
        (spec 1 §4 Sessions). Never under a running operation: the settings come outside the
        session's scheduler slot too (pause, play), and a page replaced under a capture left it
        reading a blank page or waiting on a navigation that had gone (issue 12, the empty
        capture). Queued on the session's lock, an operation sent after these settings still
        runs on the renewed browser."""
        if not b.lock.locked:
            self._renew_if_empty(b)
            return

        async def renew() -> None:
            await b.lock.acquire()
            try:
                self._renew_if_empty(b)
            finally:
                b.lock.release()

        def finished(task: aio.Task) -> None:
            self.tasks.discard(task)
            if task.exception is not None and not isinstance(task.exception, aio.Cancelled):
                self.write_log(
                    "engine.settings",
                    f"renewing the browser of {b.session_id} failed: {task.exception!r}",
                    session_id=b.session_id,
                )

        task = aio.Task(renew(), finished)
        self.tasks.add(task)
        task.start()

    def _renew_if_empty(self, b: SessionBrowser) -> None:
        settings = self.session_settings.get(b.session_id)
        # the session closed, or the settings moved back, while an operation ran
        if self.sessions.get(b.session_id) is not b or settings is None or not b.active:
            return
        if b.proxy_port == settings.proxy_port:
            return
        hist = b.page.history() if b.page is not None else None
        # "empty": no page, popup or history (spec 1 §4 Sessions)
        empty = b.stack.popups == 0 and (
            hist is None
            or (
                hist.count() <= 1
                and b.page is not None
                and (b.page.url().toString() in ("", "about:blank"))
            )
        )
        if empty:
            b.close()
            self.browser(b.session_id)

    def session_changed_id(self, session_id: str) -> None:
        for cb in self.on_session_changed:
            cb(session_id)

    def close_session(self, session_id: str) -> Done:
        b = self.sessions.pop(session_id, None)
        self.session_settings.pop(session_id, None)
        if b is None:
            b = SessionBrowser(self, session_id, profile_id_of(session_id))
        b.close()
        b.drop_data()
        self.observations.drop_session(session_id)
        self.session_changed_id(session_id)
        return Done()

    def shutdown(self) -> None:
        for task in list(self.tasks):
            task.throw(aio.Cancelled())
        for b in self.sessions.values():
            b.close()
        self.collector.close()
        self.observations.clear()

    # -- the bridge handler ------------------------------------------------------------------

    @property
    def options(self) -> operations.Options:
        return operations.Options(wait_for_bot_challenge=self.settings.wait_for_bot_challenge)

    def pause_session(self, session_id: str) -> PauseAnswer:
        b = self._set_paused(session_id, paused=True)
        if b is not None:
            b.pause()
        self.session_changed_id(session_id)
        return PauseAnswer(network_paused=True)

    def play_session(self, session_id: str) -> PlayAnswer:
        b = self._set_paused(session_id, paused=False)
        reloaded = b.play() if b is not None else False
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
                return self._run(job.session, job.timeout, job.work, responder, job.name)
            case answer:
                responder.ok(answer)
                return None

    def _collect_when_due(self, b: SessionBrowser) -> None:
        """After an operation: a garbage collection in the session's renderer when it grew by
        the bound since the last one (host_app/memory.py); the next operation waits for it.
        Measured only after operations that started a load."""
        if not b.memory.loaded_since(b.load_starts):
            return

        async def collect() -> None:
            await b.lock.acquire()
            try:
                page = b.page
                if page is None or b.pages is None:
                    return
                made = await self.collector.collect_if_due(page, b.memory)
                if made is not None:
                    self.write_session_log(
                        b.profile_id,
                        "engine.memory",
                        f"collected garbage in the renderer of {b.session_id}",
                        session_id=b.session_id,
                        pss_before_kib=made[0],
                        pss_after_kib=made[1],
                    )
            finally:
                b.lock.release()

        def finished(task: aio.Task) -> None:
            self.tasks.discard(task)
            if task.exception is not None and not isinstance(task.exception, aio.Cancelled):
                self.write_log(
                    "engine.memory",
                    f"garbage collection in {b.session_id} failed: {task.exception!r}",
                    session_id=b.session_id,
                )

        task = aio.Task(collect(), finished)
        self.tasks.add(task)
        task.start()

    def _run(
        self,
        b: SessionBrowser,
        timeout: float,
        work: Callable[[], Coroutine[Any, None, Answer]],
        responder: Responder,
        name: str = "operation",
    ) -> CancelCallback:
        async def locked() -> Answer:
            dialogs.agent_started()  # before the lock: the operation may not wait on a person
            await b.lock.acquire()
            try:
                return await work()
            finally:
                b.lock.release()

        def done(task: aio.Task) -> None:
            timer.cancel()
            self.tasks.discard(task)
            exc = task.exception
            self._collect_when_due(b)
            if exc is None:
                responder.ok(task.result)
            elif isinstance(exc, SvcError):
                responder.error(exc.error)
            elif isinstance(exc, aio.Cancelled):
                # the endpoint already answered REQUEST_CANCELLED; the browser work has stopped
                self.write_log(
                    "engine.cancelled",
                    f"{name} on {b.session_id} cancelled",
                    session_id=b.session_id,
                    operation=name,
                )
            else:
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


def engine_application_name() -> None:
    QCoreApplication.setOrganizationName("")
    QCoreApplication.setApplicationName(ENGINE_APP_NAME)
