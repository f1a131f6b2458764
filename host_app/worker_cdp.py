"""The identity in workers, the Qt side (docs/decisions.md "Identity", "Workers"): the session's
fingerprint reaches dedicated, nested and service workers through the Chrome DevTools Protocol,
carried in-process by Qt's devtools frontend page (no remote-debugging port). The protocol's
decisions are in `host_app.logic.worker_cdp`; this module moves its messages.

- `DevtoolsHost`: one off-the-record profile for the whole app (made on first use), whose request
  interceptor blocks every request but the frontend document, so the inspector app never runs
  and never enables Debugger, Runtime or Network on the page.
- `SessionWorkers`: a session's devtools pages, one hidden page per session page, only while the
  session has a fingerprint (a native session attaches nothing). `page.setDevToolsPage(dt)`
  makes Qt load the frontend document into `dt` and attach it to the page; the engine's
  compatibility script then gives `dt` `InspectorFrontendHost.sendMessageToBackend` (we send
  through it) and calls `DevToolsAPI.dispatchMessage` (we replace it: each message is logged to
  `dt`'s own console with a mark, read in `javaScriptConsoleMessage`).

The one place CDP failures and Qt callbacks are translated: every slot is guarded (an exception
escaping a slot aborts the app: the bindings call qFatal) and logs through the session's
`slot_failed`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from bridge_protocol.identity import FingerprintProfile

from .logic import aio
from .logic.identity import engine_identity, window_misfit
from .logic.worker_cdp import (
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
    main_frame_id,
    opener_policy,
    user_agent_override,
)
from .qt import (
    QEvent,
    QObject,
    QTimer,
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineScript,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineView,
    sip,
)

FRONTEND = "devtools://devtools/bundled/inspector.html"
MARK = "\x01svc-cdp:"
# a first load waits this long at most for the auto-attach: it comes in 0.1-0.25 s, but a
# load going on without it leaks the machine's values in the first workers, so the bound only
# stops a channel that never comes up from holding the page
FIRST_LOAD_WAIT_MS = 5000
MAIN = QWebEngineScript.ScriptWorldId.MainWorld
# Installed in the devtools page once its document has loaded: the engine looks these two up on
# every message, so ours receive everything (a chunked message is joined first).
#
# With SHARED (one page of each session), the session's shared workers are also attached from
# here. A shared worker is not auto-attached to a page's client, and its first start never waits
# for a debugger (only the browser-level auto-attach, which Qt's frontend may not use, makes it
# wait), so it is attached as soon as the engine reports it, before its script is fetched: from
# this page's JavaScript, as a round trip through the app (2.5-60 ms) would often come after the
# worker started. It asks for `Debugger.enable` and `Debugger.pause`, which the backend holds
# until the worker's agent exists: the worker pauses at its first statement when they reach it
# in time (a race of the engine's own, docs/decisions.md "Shared workers"), else at its next,
# and the app (`logic.worker_cdp`, on `Debugger.paused`) evaluates the prelude, resumes and
# disables the debugger. Only workers of this session's browser context; ids from 1e9, out of
# the app's range (the app ignores their answers).
_HOOK = r"""(() => {
  const MARK = %(mark)s, SHARED = %(shared)s;
  const send = (m) => InspectorFrontendHost.sendMessageToBackend(JSON.stringify(m));
  const ours = new Map();  // id -> what it asked
  const seen = new Set();
  let context = null, next = 1e9;
  const ask = (what, m) => { m.id = next++; ours.set(m.id, what); send(m); };
  const shared = (text) => {
    // only answers to its own questions and reports of new targets concern it
    if (!ours.size && !text.includes('"Target.targetCreated"')) return;
    let m;
    try { m = JSON.parse(text); } catch (e) { return; }
    if (m.id !== undefined && ours.has(m.id)) {
      const what = ours.get(m.id);
      ours.delete(m.id);
      if (!m.result) return;
      if (what === 'self') context = m.result.targetInfo.browserContextId;
      if (what === 'attach') {
        const sessionId = m.result.sessionId;
        send({ id: next++, method: 'Debugger.enable', sessionId, params: {} });
        send({ id: next++, method: 'Debugger.pause', sessionId, params: {} });
      }
      return;
    }
    if (m.method !== 'Target.targetCreated') return;
    const t = m.params.targetInfo;
    if (t.type !== 'shared_worker' || context === null || t.browserContextId !== context
        || seen.has(t.targetId)) return;
    seen.add(t.targetId);
    ask('attach', { method: 'Target.attachToTarget',
      params: { targetId: t.targetId, flatten: true } });
  };
  // the Page domain is on only for the new-document script: its events (a dozen a navigation)
  // stay here rather than cross to the app's thread
  const got = (text) => {
    if (text.startsWith('{"method":"Page.')) return;
    if (SHARED) shared(text);
    console.log(MARK + text);
  };
  let parts = null, size = 0;
  DevToolsAPI.dispatchMessage = got;
  DevToolsAPI.dispatchMessageChunk = (chunk, messageSize) => {
    if (messageSize) { parts = [chunk]; size = messageSize; } else if (parts) parts.push(chunk);
    const all = parts ? parts.join('') : '';
    if (parts && all.length >= size) { parts = null; got(all); }
  };
  if (SHARED) {
    ask('self', { method: 'Target.getTargetInfo', params: {} });
    ask('discover', { method: 'Target.setDiscoverTargets',
      params: { discover: true, filter: [{ type: 'shared_worker' }] } });
  }
  return typeof InspectorFrontendHost === 'object';
})()"""


def hook(shared: bool) -> str:
    return _HOOK % {"mark": json.dumps(MARK), "shared": json.dumps(shared)}


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


class PageWorkers:
    """One session page's devtools page and its CDP conversation."""

    def __init__(
        self,
        host: DevtoolsHost,
        page: QWebEnginePage,
        fp: FingerprintProfile,
        log: Log,
        failed: Failed,
        *,
        shared: bool = False,
    ) -> None:
        """`shared`: this page's channel attaches the session's shared workers (one page per
        session does, or each would pause and resume the same worker)."""
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
        self._waiting: list[Callable[[], None]] = []
        self._calls: dict[int, aio.Future[bool]] = {}  # requests of others (memory.py)
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
        page.urlChanged.connect(lambda _url: self._guard("committed", self._ask_policy))
        page.setDevToolsPage(self.dt)

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
            self._policy_call = None  # the new conversation numbers its commands anew
            self.channel = self._identity.channel(self._viewport())
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

    def _release(self) -> None:
        waiting, self._waiting = self._waiting, []
        for run in waiting:
            self._guard("release", run)

    def _send(self, outputs: list[Output]) -> None:
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
            elif isinstance(out, Answered):
                fut = self._calls.pop(out.id, None)
                if fut is not None and not fut.done():
                    fut.set_result(out.ok)
            elif isinstance(out, CdpFailed):
                self._log(
                    "identity.workers",
                    f"{out.method} failed ({out.code} {out.message}): its target may run native",
                )


class SessionWorkers:
    """A session's `PageWorkers`, one per session page while the session has a fingerprint."""

    def __init__(
        self, host: DevtoolsHost, fp: FingerprintProfile | None, log: Log, failed: Failed
    ) -> None:
        self._host = host
        self._fp = fp
        self._log = log
        self._failed = failed
        self._pages: dict[int, tuple[QWebEnginePage, PageWorkers | None]] = {}

    def page_made(self, page: QWebEnginePage) -> None:
        workers = self._attach(page) if self._fp is not None else None
        self._pages[id(page)] = (page, workers)

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

    def close(self) -> None:
        for _, workers in self._pages.values():
            if workers is not None:
                workers.close()
        self._pages.clear()

    def _attach(self, page: QWebEnginePage) -> PageWorkers | None:
        assert self._fp is not None
        # the first page with a channel (the root page) attaches the shared workers
        shared = not any(w is not None and w.shared for _, w in self._pages.values())
        try:
            return PageWorkers(self._host, page, self._fp, self._log, self._failed, shared=shared)
        except Exception as exc:  # the page works on without them
            self._failed("worker_cdp.attach", exc)
            return None
