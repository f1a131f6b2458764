"""A session's pages in QtWebEngine: the root page and the popups its pages open
(`target=_blank`, `window.open`, a form's `target`), all in the session's own profile.

Each page lives in its own view, its parent: a page without one is garbage collected and its view
silently falls back to the default profile (DESIGN.md). Qt's signals are translated here into
`logic.page_stack` calls; the stack decides which page is current, and the session's routes,
input and the browser window follow `view` and `page` below. What the agent must learn (a popup
opened, closed or was blocked) becomes a page event for the next observation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, Protocol, TypeVar

from ..logic import aio
from ..logic.page_events import PageEvent
from ..logic.page_stack import ROOT, Blocked, PageStack, PageState
from ..logic.readiness import RENDERER_GONE
from ..qt import (
    QWebEngineLoadingInfo,
    QWebEngineNewWindowRequest,
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineScript,
    QWebEngineView,
)

P = TypeVar("P", bound=QWebEnginePage)  # the session's page class
_END = QWebEnginePage.RenderProcessTerminationStatus
RENDERER_ENDS = {
    _END.AbnormalTerminationStatus: "abnormally",
    _END.CrashedTerminationStatus: "crashed",
    _END.KilledTerminationStatus: "killed",
}
P_co = TypeVar("P_co", bound=QWebEnginePage, covariant=True)
WORLD = QWebEngineScript.ScriptWorldId.ApplicationWorld
CATEGORY = "page.popup"  # the session log record of every popup event


class PagesOwner(Protocol[P_co]):
    """What a session's pages need from their session (`session_browser.SessionBrowser`)."""

    def new_page(self, view: QWebEngineView) -> P_co:
        """The session's page class in `view`, with its per-page connections (dialogs and the
        like apply to popups as to the root page)."""
        ...

    def page_live(
        self,
        page: QWebEnginePage,
        first_url: str | None = None,
        opener: QWebEnginePage | None = None,
    ) -> None:
        """`page` holds the web contents it keeps: the root page once made, a popup once it
        adopted the contents its opener made (what was attached to its own first contents,
        a devtools page, went with them); `first_url`: what a popup is about to load;
        `opener`: the page whose document opened it."""
        ...

    def show_background(self, view: QWebEngineView) -> None: ...
    def page_event(self, event: PageEvent, category: str, **data: Any) -> None: ...
    def pages_changed(self) -> None: ...
    def page_closing(self, page: QWebEnginePage) -> None:
        """`page` is about to be deleted (what hangs on it goes first)."""
        ...

    def slot_failed(self, what: str, exc: Exception) -> None:
        """A handler of a Qt signal failed (logged: an exception escaping a slot would abort
        the whole host)."""
        ...

    def log(self, category: str, message: str, **data: Any) -> None: ...


def _guarded(handler: Callable[..., None]) -> Callable[..., None]:
    def run(self: SessionPages[Any], *args: Any) -> None:
        try:
            handler(self, *args)
        except Exception as exc:
            self.owner.slot_failed(handler.__name__.strip("_"), exc)

    run.__name__ = handler.__name__
    return run


@dataclass(eq=False)
class _Slot(Generic[P]):
    view: QWebEngineView
    page: P
    pending: set[aio.Future[Any]] = field(default_factory=set)
    renderer_gone: bool = False  # since its last load started: the engine's "error 0" follows
    loading: str = ""  # the URL of the load under way, as the engine announced its start; "" after


class SessionPages(Generic[P]):
    def __init__(self, profile: QWebEngineProfile, owner: PagesOwner[P], stack: PageStack) -> None:
        self.profile = profile
        self.owner = owner
        self.stack = stack
        self._slots: dict[int, _Slot[P]] = {}
        self._slots[ROOT] = self._make(ROOT)
        self.owner.page_live(self._slots[ROOT].page)

    # -- the current page ------------------------------------------------------------------------

    @property
    def view(self) -> QWebEngineView:
        return self._slots[self.stack.current].view

    @property
    def page(self) -> P:
        return self._slots[self.stack.current].page

    def views(self) -> list[QWebEngineView]:
        return [s.view for s in self._slots.values()]

    def states(self) -> list[tuple[PageState, P]]:
        out = []
        for page_id, slot in self._slots.items():
            state = self.stack.page(page_id)
            if state is not None:
                out.append((state, slot.page))
        return out

    def run_js(self, code: str) -> aio.Future[Any]:
        """Run `code` in the isolated world of the current page. The future resolves with None
        when that page closes first (Qt may never call back for a deleted page)."""
        fut: aio.Future[Any] = aio.Future()
        slot = self._slots[self.stack.current]
        if slot.renderer_gone:
            fut.set_result(None)  # no renderer: it would never answer
            return fut
        slot.pending.add(fut)

        def done(result: Any) -> None:
            slot.pending.discard(fut)
            fut.set_result(result)

        slot.page.runJavaScript(code, WORLD, done)
        return fut

    # -- Qt signals ------------------------------------------------------------------------------

    def _make(self, page_id: int) -> _Slot[P]:
        view = QWebEngineView()
        page = self.owner.new_page(view)
        view.setPage(page)
        # never the default profile: a popup shares its session's cookies, storage and proxy
        assert view.page() is page
        assert page.profile() is self.profile
        page.loadStarted.connect(partial(self.stack.load_started, page_id))
        page.urlChanged.connect(partial(self._url_changed, page_id))
        page.loadingChanged.connect(partial(self._loading_changed, page_id))
        page.renderProcessTerminated.connect(partial(self._renderer_gone, page_id))
        page.newWindowRequested.connect(partial(self._new_window, page_id))
        page.windowCloseRequested.connect(partial(self._close_requested, page_id))
        self.owner.show_background(view)
        return _Slot(view, page)

    @_guarded
    def _url_changed(self, page_id: int, _url: Any) -> None:
        self._document_going(page_id)
        self.stack.url_changed(page_id)
        self.owner.pages_changed()

    @_guarded
    def _document_going(self, page_id: int) -> None:
        """A navigation committed: scripts sent to the old document may never be answered
        (a cross-origin commit swaps the renderer, measured with a popup that opened on another
        origin), so their futures resolve with None, as for a closed page."""
        slot = self._slots.get(page_id)
        if slot is None:
            return
        for fut in list(slot.pending):
            fut.set_result(None)
        slot.pending.clear()

    @_guarded
    def _renderer_gone(
        self, page_id: int, status: QWebEnginePage.RenderProcessTerminationStatus, code: int
    ) -> None:
        """The page's renderer process ended (a crash of the engine on some content, or the
        system killed it): its document is gone and would never answer a script, and a load
        under way fails with the cause instead of the engine's bare "error 0"."""
        slot = self._slots.get(page_id)
        if slot is None or status == _END.NormalTerminationStatus:
            return
        how = RENDERER_ENDS.get(status, "abnormally")
        # the URL of a load under way as its start announced it: before its commit url() is
        # still the old one (or empty for a new page), and requestedUrl() was seen empty once
        # in ~1,500 runs and, on a busy machine, still the old document's (about:blank) in 1
        # of 5; without a load, the document's
        url = slot.loading or slot.page.requestedUrl().toString() or slot.page.url().toString()
        slot.renderer_gone = True
        self._document_going(page_id)
        message = f"{RENDERER_GONE} ({how}, exit code {code})"
        self.stack.load_finished(page_id, (message, url))
        self.owner.log(
            "page.renderer_gone",
            f"the renderer of {url} ended ({how}, exit code {code}); blank until it loads again",
            url=url,
            termination=how,
            exit_code=code,
        )

    @_guarded
    def _loading_changed(self, page_id: int, info: QWebEngineLoadingInfo) -> None:
        status = info.status()
        slot = self._slots.get(page_id)
        if status == QWebEngineLoadingInfo.LoadStatus.LoadStartedStatus:
            if slot is not None:
                slot.renderer_gone = False
                slot.loading = info.url().toString()
            return
        if slot is not None:
            slot.loading = ""
        if slot is not None and slot.renderer_gone:
            self.stack.load_finished(page_id)  # the failure said so already, with its cause
            return
        failure = None
        if (
            status == QWebEngineLoadingInfo.LoadStatus.LoadFailedStatus
            and info.errorDomain() != QWebEngineLoadingInfo.ErrorDomain.HttpStatusCodeDomain
            and info.errorCode() != -3  # ERR_ABORTED: a newer navigation or Stop
        ):
            failure = (info.errorString() or f"error {info.errorCode()}", info.url().toString())
        self.stack.load_finished(page_id, failure)

    @_guarded
    def _new_window(self, opener: int, request: QWebEngineNewWindowRequest | None) -> None:
        if request is None:
            return
        url = request.requestedUrl().toString()
        first_load = url not in ("", "about:blank")
        outcome = self.stack.request(
            opener, user_gesture=request.isUserInitiated(), first_load=first_load
        )
        if isinstance(outcome, Blocked):
            # not adopted: the page's window.open got a window that is closed at once
            self._event(
                f"popup blocked ({outcome.reason}): {url}",
                event="blocked",
                url=url,
                reason=outcome.reason,
            )
            return
        slot: _Slot[P] | None = None
        try:
            slot = self._make(outcome.page)
            request.openIn(slot.page)
            opener_slot = self._slots.get(opener)
            self.owner.page_live(
                slot.page,
                url if first_load else None,
                opener_slot.page if opener_slot is not None else None,
            )
        except Exception:
            self.stack.close(outcome.page)  # the stack must not name a page that is not there
            if slot is not None:
                self._dispose(slot)
            raise
        self._slots[outcome.page] = slot
        self._event(f"popup opened: {url}", event="opened", url=url)
        self.owner.pages_changed()

    @_guarded
    def _close_requested(self, page_id: int) -> None:
        self.close_popup(page_id, by="page")

    def close_popup(self, page_id: int, *, by: str) -> bool:
        """Close a popup (the page's `window.close()`, or a back move with no history left);
        False for the root page, which stays."""
        slot = self._slots.get(page_id)
        closed = self.stack.close(page_id)
        if slot is None or closed is None:
            return False
        del self._slots[page_id]
        url = slot.page.url().toString()
        self._dispose(slot)
        if closed.switched:
            back = self.page.url().toString()
            text = f"popup closed: {url}; back on its opener {back}"
        else:
            text = f"background popup closed: {url}"
        self._event(text, event="closed", url=url, current=closed.switched, by=by)
        self.owner.pages_changed()
        return True

    def _event(self, text: str, **details: str | bool) -> None:
        # the log record's data: the same details, `event` named `popup` (page_event's own
        # parameter is called event)
        data = {("popup" if k == "event" else k): v for k, v in details.items()}
        self.owner.page_event(PageEvent("popup", text, dict(details)), CATEGORY, **data)

    # -- teardown --------------------------------------------------------------------------------

    def _dispose(self, slot: _Slot[P]) -> None:
        for fut in list(slot.pending):
            fut.set_result(None)
        slot.pending.clear()
        slot.page.triggerAction(QWebEnginePage.WebAction.Stop)
        self.owner.page_closing(slot.page)
        slot.view.setParent(None)  # out of the browser window, if it showed this page
        slot.view.hide()
        slot.view.deleteLater()  # the page, its child, goes with it

    def close_all(self, gone: Callable[[], None]) -> None:
        """Close every page; `gone` runs once the last page is destroyed (the profile may go only
        after its last page: Qt warns otherwise)."""
        slots = list(self._slots.values())
        self._slots.clear()
        left = [len(slots)]

        def one_gone(*_: Any) -> None:
            left[0] -= 1
            if left[0] == 0:
                gone()

        for slot in slots:
            for fut in list(slot.pending):
                fut.set_result(None)
            slot.page.triggerAction(QWebEnginePage.WebAction.Stop)
            self.owner.page_closing(slot.page)
            slot.view.hide()
            slot.view.setParent(None)
            slot.view.setPage(None)
            slot.page.destroyed.connect(one_gone)
            slot.page.deleteLater()
            slot.view.deleteLater()
