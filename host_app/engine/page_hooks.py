"""What each page of a session's context is made with and reports to (`session_pages.PagesOwner`):
the session's page class with its dialogs, permissions and certificate checks; its devtools
channel (`worker_cdp`) from the start; a popup's first document held for its channel; the
pages' events and failures to the session's log, their changes to the engine."""

from __future__ import annotations

from typing import Any, Protocol

from ..logic.page_events import PageEvent
from ..logic.worker_cdp import hold_cuts_opener
from ..qt import QUrl, QWebEnginePage, QWebEngineProfile, QWebEngineView, QWidget
from .asset_scheme import SessionAssets
from .dialogs import DialogHost
from .permissions import PagePermissions
from .session_log import SessionLog
from .session_page import SessionPage
from .worker_cdp import SessionWorkers


class HooksHost(Protocol):
    def show_background(self, view: QWidget) -> None: ...
    def session_changed_id(self, session_id: str) -> None: ...


class PageHooks:
    """A `PagesOwner[SessionPage]` for one browser context (its profile, workers and assets)."""

    def __init__(
        self,
        profile: QWebEngineProfile,
        *,
        dialogs: DialogHost,
        permissions: PagePermissions,
        workers: SessionWorkers | None,
        assets: SessionAssets | None,
        host: HooksHost,
        log: SessionLog,
    ) -> None:
        self._profile = profile
        self._dialogs = dialogs
        self._permissions = permissions
        self._workers = workers
        self._assets = assets
        self._host = host
        self._log = log

    def new_page(self, view: QWebEngineView) -> SessionPage:
        """Every page of the session, the root page and each popup, is made here."""
        page = SessionPage(self._profile, view, self._dialogs)
        self._permissions.connect(page)
        return page

    def page_live(
        self,
        page: QWebEnginePage,
        first_url: str | None = None,
        opener: QWebEnginePage | None = None,
    ) -> None:
        """`first_url`: a popup's first document, which the engine is about to load: it waits
        for the popup's workers' channel, as a root page's first load does (`load`), unless
        the wait would cut the popup from its `opener` (`hold_cuts_opener`)."""
        workers = self._workers
        if workers is None:
            return
        workers.page_made(page)
        channel = workers.channel(page)
        # a native session's popup is not held: its channel only counts bytes (the popup's
        # first document may go uncounted, docs/decisions.md "Downloaded bytes")
        assets = self._assets if workers.fingerprinted else None
        if first_url and channel is not None and not channel.ready and assets is not None:
            opener_channel = workers.channel(opener) if opener is not None else None
            policy = opener_channel.opener_policy if opener_channel is not None else None
            if hold_cuts_opener(policy):
                self._log.named(
                    "identity.workers",
                    f"a popup's first document is not held ({first_url}): its opener sends "
                    f"Cross-Origin-Opener-Policy {policy}, under which the hold would take the "
                    "popup's opener and name; a worker its first script starts may run native",
                )
                return
            # the engine may ask with or without the fragment: both sides compare without it
            requested = QUrl(first_url).adjusted(QUrl.UrlFormattingOption.RemoveFragment)
            assets.hold_first_load(requested.toString(), channel.when_ready)

    def page_closing(self, page: QWebEnginePage) -> None:
        if self._workers is not None:
            self._workers.page_closing(page)

    def show_background(self, view: QWebEngineView) -> None:
        self._host.show_background(view)

    def page_event(self, event: PageEvent, category: str, **data: Any) -> None:
        self._log.page_event(event, category, **data)

    def pages_changed(self) -> None:
        self._host.session_changed_id(self._log.session_id)

    def slot_failed(self, what: str, exc: Exception) -> None:
        self._log.slot_failed(what, exc)

    def log(self, category: str, message: str, **data: Any) -> None:
        self._log.log(category, message, **data)
