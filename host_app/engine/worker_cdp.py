"""The identity in workers, the Qt side (docs/decisions.md "Identity", "Workers"): the session's
fingerprint reaches dedicated, nested and service workers through the Chrome DevTools Protocol,
carried in-process by Qt's devtools frontend page (no remote-debugging port). The protocol's
decisions are in `host_app.logic.worker_cdp`; this module moves its messages.

- `DevtoolsHost`: one off-the-record profile for the whole app (made on first use), whose request
  interceptor blocks every request but the frontend document, so the inspector app never runs
  and never enables Debugger, Runtime or Network on the page (Network is ours, below).
- `SessionWorkers`: a session's devtools pages, one hidden page per session page while the
  session has a fingerprint; a native session's pages get theirs when a capture first counts
  their downloaded bytes (that channel overrides nothing and releases its workers untouched).
  `page.setDevToolsPage(dt)`
  makes Qt load the frontend document into `dt` and attach it to the page; the engine's
  compatibility script then gives `dt` `InspectorFrontendHost.sendMessageToBackend` (we send
  through it) and calls `DevToolsAPI.dispatchMessage` (we replace it: each message is logged to
  `dt`'s own console with a mark, read in `javaScriptConsoleMessage`).
- The downloaded bytes (docs/decisions.md "Downloaded bytes"): the Network domain, on only while
  a capture counts (`PageWorkers.count`); its events (about seven a request) never leave `dt`:
  its hook adds up each finished request's `encodedDataLength` and the app reads the sum
  (`PageWorkers.traffic`).

The one place CDP failures and Qt callbacks are translated: every slot is guarded (an exception
escaping a slot aborts the app: the bindings call qFatal) and logs through the session's
`slot_failed`.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any, NamedTuple, assert_never

from bridge_protocol.identity import FingerprintProfile

from .. import scripts
from ..logic import aio
from ..logic.identity import engine_identity, window_misfit
from ..logic.traffic import CounterKey
from ..logic.worker_cdp import (
    FRAME_TREE,
    ISOLATION_STATUS,
    Answered,
    CdpFailed,
    FrameId,
    Output,
    Ready,
    Send,
    Settled,
    Size,
    UserAgentOverride,
    WorkerChannel,
    WorkerHeld,
    main_frame_id,
    opener_policy,
    user_agent_override,
)
from ..qt import (
    QEvent,
    QObject,
    QTimer,
    QUrl,
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineScript,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineView,
    sip,
)

FRONTEND = "devtools://devtools/bundled/inspector.html"
BLANK = "about:blank"
MARK = "\x01svc-cdp:"
# a first load waits this long at most for the auto-attach: it comes in 0.1-0.25 s, but a
# load going on without it leaks the machine's values in the first workers, so the bound only
# stops a channel that never comes up from holding the page
FIRST_LOAD_WAIT_MS = 5000
MAIN = QWebEngineScript.ScriptWorldId.MainWorld
# Installed in the devtools page once its document has loaded: the two message hooks, the
# downloaded bytes and, with SHARED, the attachment of the session's shared workers
# (host_app/scripts/devtools_hook.js says how).
_HOOK = scripts.template("devtools_hook.js")


def hook(shared: bool) -> str:
    return scripts.fill(_HOOK, MARK=json.dumps(MARK), SHARED=json.dumps(shared))


# the hooked document's sum (null before the hook: nothing counted yet)
READ_TRAFFIC = "typeof svcTraffic === 'function' ? svcTraffic() : null"
# a question to the page's backend whose answer comes after the events of every request that
# finished before it: the page's renderer answers it (its Network events come from there too)
FLUSH = FRAME_TREE
_SERIALS = itertools.count(1)


Log = Callable[[str, str], None]  # (category, message) into the session's log
Failed = Callable[[str, Exception], None]  # (handler, exception): the session's slot_failed


class _Identity(NamedTuple):
    """What a page's channel overrides: the worker prelude, the zone, the screen's size, the
    user agent and its client hints."""

    prelude: str | None = None
    zone: str = ""
    screen: Size | None = None
    user_agent: UserAgentOverride | None = None

    def channel(self, viewport: Size | None) -> WorkerChannel:
        return WorkerChannel(
            self.prelude,
            self.zone,
            screen=self.screen,
            viewport=viewport,
            user_agent=self.user_agent,
        )


class _Resizes(QObject):
    """Calls `resized` after each resize of the widget it filters (the page's view)."""

    def __init__(self, resized: Callable[[], None], view: QObject | None) -> None:
        # the view's child: Qt deletes it with the view, never Python's collector
        super().__init__(view)
        self._resized = resized

    def eventFilter(self, watched: QObject | None, event: QEvent | None) -> bool:
        if event is not None and event.type() == QEvent.Type.Resize:
            self._resized()
        return False


def _identity(fp: FingerprintProfile | None) -> _Identity:
    """A fingerprint's overrides; none for the native identity."""
    if fp is None:
        return _Identity()
    ident = engine_identity(fp)
    # the page script is the workers' prelude too: on a worker's global scope it installs what
    # exists there (WorkerNavigator, Intl, Date, StorageManager, OffscreenCanvas)
    return _Identity(
        ident.script(),
        str(ident.page["timezone"]),
        (fp.screen.width, fp.screen.height),
        user_agent_override(ident, fp.platform),
    )


class _BlockInspectorApp(QWebEngineUrlRequestInterceptor):
    """Only the frontend document loads: its scripts and styles (the inspector app) do not."""

    def interceptRequest(self, info: QWebEngineUrlRequestInfo | None) -> None:
        if info is None:
            return
        try:
            url = info.requestUrl().toString()
            if url.split("?", 1)[0] != FRONTEND:
                info.block(True)
        except Exception:  # a Qt virtual: nothing may escape
            info.block(True)


class DevtoolsHost:
    """The app-wide devtools profile, made on first use, a child of the engine's QObject."""

    def __init__(self, parent: QObject) -> None:
        self._parent = parent
        self._profile: QWebEngineProfile | None = None
        self._interceptor: _BlockInspectorApp | None = None

    def profile(self) -> QWebEngineProfile:
        if self._profile is None:
            profile = QWebEngineProfile(self._parent)  # off the record, nothing on disk
            self._interceptor = _BlockInspectorApp(profile)
            profile.setUrlRequestInterceptor(self._interceptor)
            self._profile = profile
        return self._profile


class _FrontendPage(QWebEnginePage):
    def __init__(self, profile: QWebEngineProfile, received: Callable[[str], None]) -> None:
        super().__init__(profile)
        self._received = received

    def javaScriptConsoleMessage(self, *args: Any) -> None:
        message = args[1] if len(args) > 1 else None
        if isinstance(message, str) and message.startswith(MARK):
            self._received(message[len(MARK) :])


def _never_loaded(page: QWebEnginePage) -> bool:
    return page.url().toString() in ("", BLANK)


class PageWorkers:
    """One session page's devtools page and its CDP conversation."""

    def __init__(
        self,
        host: DevtoolsHost,
        page: QWebEnginePage,
        fp: FingerprintProfile | None,
        log: Log,
        failed: Failed,
        *,
        shared: bool = False,
        counting: bool = False,
    ) -> None:
        """`shared`: this page's channel attaches the session's shared workers (one page per
        session does, or each would pause and resume the same worker); `counting`: an
        operation of the session counts the downloaded bytes (`count`)."""
        self._log = log
        self._failed = failed
        self.shared = shared
        self._fp: FingerprintProfile | None = fp
        self._misfit: str | None = None  # the last warning about the viewport and the screen
        self._identity = _identity(fp)
        # the viewport is pinned to the view's size (WorkerChannel.set_viewport): followed here
        self._view = QWebEngineView.forPage(page)
        self._resizes = _Resizes(lambda: self._guard("resized", self._resized), self._view)
        if self._view is not None:
            self._view.installEventFilter(self._resizes)
        self.channel = self._identity.channel(self._viewport())
        self.channel.counting = counting
        self._waiting: list[Callable[[], None]] = []
        self._calls: dict[int, aio.Future[bool]] = {}  # requests of others (memory.py)
        # `count` asked before the conversation started: answered with the start's own
        self._count_waiters: list[aio.Future[bool]] = []
        # traffic reads waiting for their flush's answer: its id -> the read
        self._flushes: dict[int, Callable[[], None]] = {}
        # the counter's key: this page's, and its frontend document's (each counts from 0)
        self._serial = next(_SERIALS)
        self._generation = 0
        # the page's document's Cross-Origin-Opener-Policy (CDP's name of its value), asked at
        # each commit: whether its popups' first documents may be held (session_browser);
        # None until the backend answered for the document the page holds now
        self.opener_policy: str | None = None
        self._policy_call: int | None = None
        self._frame_id: str | None = None  # the page's main frame's, asked first
        self._started = time.monotonic()
        self.closed = False
        self.page = page
        self.dt = _FrontendPage(host.profile(), self._received)
        self.dt.loadFinished.connect(self._loaded)
        page.urlChanged.connect(lambda _url: self._guard("committed", self._committed))
        page.setDevToolsPage(self.dt)
        self._priming = False  # an empty document loaded for `count` (its history entry goes)

    @property
    def ready(self) -> bool:
        return self.channel.ready

    def when_ready(self, run: Callable[[], None]) -> None:
        """`run` once the page's auto-attach is on and an identity change has reached the
        backend, or after FIRST_LOAD_WAIT_MS (logged)."""
        if self.ready or self.closed:
            run()
            return
        self._waiting.append(run)
        QTimer.singleShot(FIRST_LOAD_WAIT_MS, lambda: self._late(run))

    def collect_garbage(self) -> aio.Future[bool]:
        """`HeapProfiler.collectGarbage` through this page's channel (the page has one devtools
        page: a second frontend for the collection would detach this one for good)."""
        fut: aio.Future[bool] = aio.Future()
        if self.closed or not self.ready:
            fut.set_result(False)
            return fut
        call, send = self.channel.request("HeapProfiler.collectGarbage")
        self._calls[call] = fut
        self._send([send])
        return fut

    def count(self, on: bool) -> aio.Future[bool]:
        """The Network domain on or off for the downloaded bytes (`WorkerChannel.count`):
        resolves True once the page's renderer has it (a load may start), False when that
        cannot be known (the page went, the backend refused)."""
        fut: aio.Future[bool] = aio.Future()
        if self.closed:
            fut.set_result(False)
            return fut
        call, out = self.channel.count(on)
        self._send(out)
        if call is not None:
            self._calls[call] = fut
        elif on and not self.channel.started:
            self._count_waiters.append(fut)
        else:
            fut.set_result(True)
        if on and _never_loaded(self.page):
            return self._primed(fut)
        return fut

    def _primed(self, enabled: aio.Future[bool]) -> aio.Future[bool]:
        """A page that never loaded has no live frame: the backend holds the renderer's
        commands (Network.enable) until a navigation makes one, and the first requests of that
        navigation's document went unreported (measured: a new session's first image, now and
        then its document). An empty document gives the domain its frame first; the operation
        starts its own load once both it and the answer are there (an earlier start took the
        empty document's end for its own: the title read 'about:blank'). Its history entry
        goes at the next commit (`_committed`). Only an operation that counts does this: a
        load of any other kind starts from the page as it is."""
        done: aio.Future[bool] = aio.Future()
        loaded = False

        def settle() -> None:
            if loaded and enabled.done() and not done.done():
                done.set_result(enabled.result())

        def finished(_ok: bool) -> None:
            nonlocal loaded
            self.page.loadFinished.disconnect(finished)
            loaded = True
            self._guard("primed", settle)

        self.page.loadFinished.connect(finished)
        enabled.add_done_callback(lambda _f: settle())
        self._priming = True
        self.page.load(QUrl(BLANK))
        return done

    def traffic(self) -> aio.Future[tuple[CounterKey, int] | None]:
        """The bytes this page's requests took from the network (the hook's sum, see `hook`),
        read once the backend answered a question asked now, so every request that finished
        before is in it; keyed by this page and its frontend document. None for a page that
        went (its count is lost)."""
        fut: aio.Future[tuple[CounterKey, int] | None] = aio.Future()

        def got(value: Any) -> None:
            n = int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0
            if not fut.done():
                fut.set_result((("page", self._serial, self._generation), n))

        def read() -> None:
            if self.closed or sip.isdeleted(self.dt):
                if not fut.done():
                    fut.set_result(None)
                return
            self.dt.runJavaScript(
                READ_TRAFFIC, MAIN, lambda v: self._guard("traffic", lambda: got(v))
            )

        if self.closed or not self.channel.attached:
            read()
            return fut
        call, send = self.channel.request(FLUSH)
        self._flushes[call] = read
        self._send([send])
        return fut

    def set_identity(self, fp: FingerprintProfile | None) -> None:
        self._identity = i = _identity(fp)
        self._fp = fp
        self._send(
            self.channel.set_identity(i.prelude, i.zone, screen=i.screen, user_agent=i.user_agent)
        )
        self._check_fit()

    def close(self) -> None:
        """Before the page goes: the devtools page is detached and deleted at once, so it never
        outlives the app-wide profile (an app that quits right after runs no deferred delete, and
        Qt warns of a profile released before its pages)."""
        if self.closed:
            return
        self.closed = True
        self._waiting = []  # a load waiting on a page that goes never runs
        self._abandon()
        waiters, self._count_waiters = self._count_waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(False)
        if self._view is not None and not sip.isdeleted(self._view):
            self._view.removeEventFilter(self._resizes)
        if not sip.isdeleted(self.page):
            self.page.setDevToolsPage(None)
        if not sip.isdeleted(self.dt):
            sip.delete(self.dt)

    # -- slots (guarded) -------------------------------------------------------------------------

    def _guard(self, what: str, run: Callable[[], None]) -> None:
        try:
            run()
        except Exception as exc:
            self._failed(f"worker_cdp.{what}", exc)

    def _loaded(self, ok: bool) -> None:
        def run() -> None:
            if self.closed:
                return
            # a new frontend document (the first, or after a reattach) starts a new conversation
            self._abandon()
            self._generation += 1  # and a new count
            self._policy_call = None  # the new conversation numbers its commands anew
            counting = self.channel.counting
            self.channel = self._identity.channel(self._viewport())
            self.channel.counting = counting
            self.dt.runJavaScript(hook(self.shared), MAIN, self._hooked)

        self._guard("loaded", run)

    def _hooked(self, result: Any) -> None:
        def run() -> None:
            if self.closed:
                return
            if result is not True:
                self._log("identity.workers", "the devtools channel has no bindings")
                self._release()
                return
            self._send(self.channel.start())
            self._check_fit()

        self._guard("hooked", run)

    def _viewport(self) -> Size | None:
        view = self._view
        if view is None or sip.isdeleted(view):
            return None
        return view.width(), view.height()

    def _resized(self) -> None:
        viewport = self._viewport()
        if viewport is not None and not self.closed:
            self._send(self.channel.set_viewport(viewport))

    def _check_fit(self) -> None:
        """A warning in the session's log when the viewport does not fit the fingerprint's
        screen, at the channel's start and on an identity change (not on resizes: a full-page
        screenshot makes the view as tall as the document for one grab)."""
        viewport = self._viewport()
        misfit = None if viewport is None or self._fp is None else window_misfit(viewport, self._fp)
        if misfit is not None and misfit != self._misfit:
            self._log("identity.screen", misfit)
        self._misfit = misfit

    def _received(self, text: str) -> None:
        self._guard("received", lambda: self._send(self.channel.receive(text)))

    def _late(self, run: Callable[[], None]) -> None:
        def go() -> None:
            if run not in self._waiting:
                return
            self._waiting.remove(run)
            what = (
                "an identity change's answer: it may carry the previous identity"
                if self.channel.attached
                else "the workers' auto-attach: its first workers may run native"
            )
            self._log(
                "identity.workers",
                f"the page's load went on after {FIRST_LOAD_WAIT_MS} ms without {what}",
            )
            self.channel.give_up_changes()
            run()

        self._guard("late", go)

    # -- internals -------------------------------------------------------------------------------

    def _committed(self) -> None:
        if self._priming and self.page.url().toString() not in ("", BLANK):
            self._priming = False
            history = self.page.history()
            if history is not None and history.count() > 1:
                history.clear()  # all but the new document: back has nowhere to go, as before
        self._ask_policy()

    def _ask_policy(self) -> None:
        """The opener policy of the page's document, asked again at each commit (a same-document
        one too: it cannot tell them apart) and once the channel is up."""
        self.opener_policy = None
        self._policy_call = None
        if self.closed or not self.channel.attached:
            return  # asked once the channel is up (Ready)
        if self._frame_id is None:
            call, send = self.channel.request(FRAME_TREE)
        else:
            call, send = self.channel.request(ISOLATION_STATUS, FrameId(self._frame_id))
        self._policy_call = call
        self._send([send])

    def _policy_answered(self, answer: Answered) -> None:
        self._policy_call = None
        if self._frame_id is None:
            self._frame_id = main_frame_id(answer.result) if answer.ok else None
            if self._frame_id is not None:
                self._ask_policy()
            return
        if answer.ok:
            self.opener_policy = opener_policy(answer.result)
        else:
            self._frame_id = None  # asked again at the next commit

    def _abandon(self) -> None:
        calls, self._calls = self._calls, {}
        for fut in calls.values():
            if not fut.done():
                fut.set_result(False)
        flushes, self._flushes = self._flushes, {}
        for read in flushes.values():
            read()  # what the new document (or none) has

    def _release(self) -> None:
        waiting, self._waiting = self._waiting, []
        for run in waiting:
            self._guard("release", run)

    def _send(self, outputs: list[Output]) -> None:  # noqa: PLR0912  one branch per output kind
        for out in outputs:
            if isinstance(out, Send):
                if not self.closed:
                    code = f"InspectorFrontendHost.sendMessageToBackend({json.dumps(out.text)})"
                    self.dt.runJavaScript(code, MAIN)
            elif isinstance(out, Ready):
                ms = round((time.monotonic() - self._started) * 1000)
                if out.ok:
                    self._log("identity.workers", f"workers' auto-attach on after {ms} ms")
                else:
                    self._log("identity.workers", "the workers' auto-attach was refused")
                self._ask_policy()
                self._release()
            elif isinstance(out, Settled):
                self._release()
            elif isinstance(out, Answered) and out.id == self._policy_call:
                self._policy_answered(out)
            elif isinstance(out, Answered) and out.id in self._flushes:
                self._flushes.pop(out.id)()
            elif isinstance(out, Answered) and out.id == self.channel.count_call:
                fut = self._calls.pop(out.id, None)
                waiters, self._count_waiters = self._count_waiters, []
                for w in [*waiters, *([fut] if fut is not None else [])]:
                    if not w.done():
                        w.set_result(out.ok)
            elif isinstance(out, Answered):
                fut = self._calls.pop(out.id, None)
                if fut is not None and not fut.done():
                    fut.set_result(out.ok)
            elif isinstance(out, CdpFailed):
                self._log(
                    "identity.workers",
                    f"{out.method} failed ({out.code} {out.message}): its target may run native",
                )
            elif isinstance(out, WorkerHeld):
                pass  # for the logic's tests: the host has nothing to do
            else:
                assert_never(out)


class SessionWorkers:
    """A session's `PageWorkers`: one per session page while the session has a fingerprint; a
    native session's page gets one only when an operation first counts its downloaded bytes
    (a devtools page costs 12-16 MB), and keeps it."""

    def __init__(
        self, host: DevtoolsHost, fp: FingerprintProfile | None, log: Log, failed: Failed
    ) -> None:
        self._host = host
        self._fp = fp
        self._log = log
        self._failed = failed
        self._pages: dict[int, tuple[QWebEnginePage, PageWorkers | None]] = {}
        self._counting = False  # an operation counts the downloaded bytes (`count`)

    @property
    def fingerprinted(self) -> bool:
        return self._fp is not None

    def page_made(self, page: QWebEnginePage) -> None:
        wanted = self._fp is not None or self._counting
        self._pages[id(page)] = (page, self._attach(page) if wanted else None)

    def page_closing(self, page: QWebEnginePage) -> None:
        _, workers = self._pages.pop(id(page), (page, None))
        if workers is not None:
            workers.close()

    def channel(self, page: QWebEnginePage) -> PageWorkers | None:
        """The page's devtools channel, when it has one (a fingerprinted session's page)."""
        return self._pages.get(id(page), (page, None))[1]

    def when_ready(self, page: QWebEnginePage, run: Callable[[], None]) -> None:
        """`run` (the page's load) once its workers would be reached; at once without them."""
        _, workers = self._pages.get(id(page), (page, None))
        if workers is None:
            run()
        else:
            workers.when_ready(run)

    def set_identity(self, fp: FingerprintProfile | None) -> None:
        """An open session's new identity, for its pages' next workers and the zone at once; a
        native session that gets a fingerprint attaches its open pages now."""
        self._fp = fp
        for key, (page, workers) in list(self._pages.items()):
            if workers is not None:
                workers.set_identity(fp)
            elif fp is not None:
                self._pages[key] = (page, self._attach(page))

    def count(self, on: bool) -> list[aio.Future[bool]]:
        """The Network domain on or off in every page (`PageWorkers.count`), and in the pages
        made while it is on."""
        self._counting = on
        if on:
            for key, (page, workers) in list(self._pages.items()):
                if workers is None:
                    self._pages[key] = (page, self._attach(page))
        return [w.count(on) for _, w in self._pages.values() if w is not None]

    def traffic(self) -> list[aio.Future[tuple[CounterKey, int] | None]]:
        """Each page's count (`PageWorkers.traffic`), read now."""
        return [w.traffic() for _, w in self._pages.values() if w is not None]

    def close(self) -> None:
        for _, workers in self._pages.values():
            if workers is not None:
                workers.close()
        self._pages.clear()

    def _attach(self, page: QWebEnginePage) -> PageWorkers | None:
        # the first page with a channel (the root page) attaches the shared workers
        shared = not any(w is not None and w.shared for _, w in self._pages.values())
        try:
            return PageWorkers(
                self._host,
                page,
                self._fp,
                self._log,
                self._failed,
                shared=shared,
                counting=self._counting,
            )
        except Exception as exc:  # the page works on without them
            self._failed("worker_cdp.attach", exc)
            return None
