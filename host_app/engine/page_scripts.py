"""Scripts in a session's current page: in the main frame's isolated world (`run_js`, the raw
text), a typed `page_driver.Call` there or in one frame's (`PageFrames.run`, with the page's
frames as plain data), and the DOM reads the selectors drive (`PageDom`). Answers come back as
JSON text, parsed here and read once by the call; no answer in time counts as no document.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from bridge_protocol import ErrorId, SvcError
from bridge_protocol.selectors import DomNode, build_tree

from ..core import js, page_driver
from ..logic import aio
from ..logic.frames import MAX_DEPTH, HostFrame
from ..logic.page_answers import ElementInfo
from ..qt import QWebEngineFrame, QWebEngineScript
from .session_page import SessionPage
from .session_pages import SessionPages

MAX_FRAME_TREE = 200  # frames listed per page (the observation reads at most 64 of them)
FRAME_JS_TIMEOUT = 5.0
# the main frame's isolated-world scripts (observation of a large page included) answer well
# within this; past it the document they were sent to is taken to be gone
MAIN_JS_TIMEOUT = 10.0
WORLD = QWebEngineScript.ScriptWorldId.ApplicationWorld
T = TypeVar("T")


class ScriptsOwner(Protocol):
    """What running scripts needs of the session: its current page and its pages."""

    @property
    def loop(self) -> aio.Loop: ...
    @property
    def session_id(self) -> str: ...
    @property
    def page(self) -> SessionPage | None: ...
    @property
    def pages(self) -> SessionPages[SessionPage] | None: ...


def live_page(owner: ScriptsOwner) -> SessionPage:
    """The current page; BROWSER_UNAVAILABLE when the session has none."""
    page = owner.page
    if page is None:
        raise SvcError.of(ErrorId.BROWSER_UNAVAILABLE, f"{owner.session_id} has no browser")
    return page


def run_js(owner: ScriptsOwner, code: str) -> aio.Future[Any]:
    """`code` in the current page's main frame (isolated world), its JSON answer decoded."""
    fut: aio.Future[Any] = aio.Future()
    live_page(owner)
    pages = owner.pages
    assert pages is not None

    def done(raw: aio.Future[Any]) -> None:
        timer.cancel()
        result = raw.result()
        if not isinstance(result, str):
            fut.set_result(None)
            return
        try:
            fut.set_result(json.loads(result))
        except ValueError:
            fut.set_result(None)

    # A script sent to a document that is being replaced (a popup leaving its first
    # about:blank) may never be answered: no answer in time counts as no document.
    timer = owner.loop.call_later(MAIN_JS_TIMEOUT, lambda: fut.set_result(None))
    pages.run_js(code).add_done_callback(done)
    return fut


class PageFrames:
    """The current page's frames, and typed calls in them or in its main document (what
    `core/page_driver.FrameDriver` asks)."""

    def __init__(self, owner: ScriptsOwner) -> None:
        self._owner = owner

    def run(self, call: page_driver.Call[T], frame: object = None) -> aio.Future[T]:
        """`call` in the current page's main document (`run_js`), or in `frame`'s (a
        `HostFrame.handle`), its answer read once, where it enters Python."""
        if call.stub is not None:
            return aio.spawn(self._run_kept(call, call.stub, frame))
        raw = self._send(call.code, frame)
        fut: aio.Future[T] = aio.Future()
        raw.add_done_callback(lambda got: fut.set_result(call.read(got.result())))
        return fut

    def _send(self, code: str, frame: object) -> aio.Future[Any]:
        return run_js(self._owner, code) if frame is None else self._run_in(frame, code)

    async def _run_kept(self, call: page_driver.Call[T], stub: str, frame: object) -> T:
        """The function the document's world keeps, else (a new document) the whole script,
        which keeps it for the next call."""
        raw = await self._send(stub, frame)
        return call.read(await self._send(call.code, frame) if page_driver.unkept(raw) else raw)

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

        return node(live_page(self._owner).mainFrame(), 0)

    def _run_in(self, frame: object, code: str) -> aio.Future[Any]:
        """`run_js` in one frame's isolated world; None when the frame is gone."""
        fut: aio.Future[Any] = aio.Future()
        live_page(self._owner)
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

        timer = self._owner.loop.call_later(FRAME_JS_TIMEOUT, late)
        frame.runJavaScript(code, WORLD, done)
        return fut


class PageDom:
    """The main document's nodes, read and focused for the selectors (`core/actions`)."""

    def __init__(self, page: page_driver.Renderer, focus_view: Callable[[], None]) -> None:
        self._page = page
        self._focus_view = focus_view

    async def _snapshot(self) -> page_driver.Snapshot:
        v = await self._page.run(js.SNAPSHOT)
        if v is None:
            return page_driver.Snapshot([], [])
        nodes = [DomNode(i, n.tag, n.attrs, n.parent) for i, n in enumerate(v.nodes)]
        build_tree(nodes)
        return page_driver.Snapshot(nodes, v.links)

    def snapshot(self) -> aio.Future[page_driver.Snapshot]:
        return aio.spawn(self._snapshot())

    async def _element(self, node: DomNode) -> ElementInfo | None:
        return await self._page.run(js.element(node.index, node.tag))

    def element(self, node: DomNode) -> aio.Future[ElementInfo | None]:
        return aio.spawn(self._element(node))

    async def _focus(self, node: DomNode, end: bool) -> page_driver.Focused:
        self._focus_view()
        return await self._page.run(js.focus(node.index, node.tag, end))

    def focus(self, node: DomNode, end: bool = False) -> aio.Future[page_driver.Focused]:
        return aio.spawn(self._focus(node, end))
