"""Garbage collection in a session's renderer, asked for by the host (docs/decisions.md
"Renderer memory"; the policy of when is host_app/logic/memory.py).

QtWebEngine's renderers never collected the documents a page left (measured: +5 MiB per
navigation of a 300-row page, +77 MiB for a large one, no plateau; forcing a collection made
both flat). Nothing in the Qt API asks for one, and V8's `--expose-gc` would show a `gc`
function to every page. The DevTools protocol has `HeapProfiler.collectGarbage`: an in-process
DevTools frontend (`QWebEnginePage.setDevToolsPage`, no debugging port, nothing another process
can reach) is attached to the page for the command and detached at once (~0.4 s, during which
a `debugger` statement of the page would pause it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from .. import scripts
from ..logic import aio
from ..logic.memory import RendererMemory, pss_kib
from ..qt import QWebEnginePage, QWebEngineProfile, QWebEngineScript, QWebEngineView

MAIN_WORLD = QWebEngineScript.ScriptWorldId.MainWorld
COMMAND_ID = 987_654_321
LOAD_WAIT = 5.0
ANSWER_WAIT = 3.0
SCRIPT_WAIT = 2.0
POLL = 0.02

# In the frontend's own page: catch the answer to our command, then send it.
SEND = scripts.load("collect_garbage.js", COMMAND_ID=str(COMMAND_ID))
DONE = "JSON.stringify(window.__svcGc?window.__svcGc.done:null)"


class GcChannel(Protocol):
    """A page's own devtools channel (host_app.engine.worker_cdp): the collection goes through
    it."""

    def collect_garbage(self) -> aio.Future[bool]: ...


def renderer_pss(page: QWebEnginePage) -> tuple[int, int]:
    """(pid, PSS in KiB) of the page's renderer process; (0, 0) when there is none."""
    pid = int(page.renderProcessPid() or 0)
    if pid <= 0:
        return 0, 0
    try:
        return pid, pss_kib(Path(f"/proc/{pid}/smaps_rollup").read_text())
    except OSError:
        return pid, 0


class RendererCollector:
    """Collects garbage in renderers through a short-lived DevTools frontend page, kept on an
    off-the-record profile of its own so that it never touches a session's storage."""

    def __init__(self, loop: aio.Loop) -> None:
        self._loop = loop
        self._profile: QWebEngineProfile | None = None

    def _frontend_profile(self) -> QWebEngineProfile:
        if self._profile is None:
            self._profile = QWebEngineProfile()  # off the record
        return self._profile

    async def collect_if_due(
        self, page: QWebEnginePage, memory: RendererMemory, channel: GcChannel | None = None
    ) -> tuple[int, int] | None:
        """PSS in KiB (before, after) of the collection made, or None when none was due (or
        it could not be made). A page with a devtools channel of its own (`channel`) is
        collected through it: a page has one devtools page, and attaching another one would
        detach that channel for good."""
        pid, before = renderer_pss(page)
        if not pid or not before or not memory.due(pid, before):
            return None
        if channel is not None:
            collected = await aio.within(self._loop, channel.collect_garbage(), ANSWER_WAIT, False)
        else:
            collected = await self.collect(page)
        if not collected:
            return None
        after = renderer_pss(page)[1] or before
        memory.collected(before, after)
        return before, after

    async def collect(self, page: QWebEnginePage) -> bool:
        view = QWebEngineView()
        frontend = QWebEnginePage(self._frontend_profile(), view)
        view.setPage(frontend)
        loaded: aio.Future[bool] = aio.Future()

        def finished(ok: bool) -> None:
            if not loaded.done():
                loaded.set_result(ok)

        frontend.loadFinished.connect(finished)
        timer = self._loop.call_later(LOAD_WAIT, lambda: finished(False))
        try:
            page.setDevToolsPage(frontend)
            if not await loaded:
                return False
            if await self._js(frontend, SEND) != "sent":
                return False
            end = self._loop.time() + ANSWER_WAIT
            while self._loop.time() < end:
                done = await self._js(frontend, DONE)
                if done is not False:  # True: answered; None: no hook, the command was sent
                    return True
                await aio.sleep(self._loop, POLL)
            return False
        finally:
            timer.cancel()
            page.setDevToolsPage(None)
            view.setPage(None)
            frontend.deleteLater()
            view.deleteLater()

    def _js(self, page: QWebEnginePage, code: str) -> aio.Future[Any]:
        fut: aio.Future[Any] = aio.Future()

        def done(result: Any) -> None:
            try:
                fut.set_result(json.loads(result) if isinstance(result, str) else None)
            except ValueError:
                fut.set_result(None)

        page.runJavaScript(code, MAIN_WORLD, done)
        # bounded: the session's lock is held meanwhile, and an unanswered script must not keep it
        return aio.within(self._loop, fut, SCRIPT_WAIT, None)

    def close(self) -> None:
        if self._profile is not None:
            self._profile.deleteLater()
            self._profile = None
