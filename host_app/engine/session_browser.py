"""One session's browser in QtWebEngine: its profile and pages (the root page and its popups),
and the page the operations drive (`core/page_driver.Session`). Its jobs are its parts', each
seeing the session through a narrow protocol: the requests (`interceptor`), the pages
(`session_pages`, made and hooked by `page_hooks`), scripts in them (`page_scripts`), input
(`page_input`), captures (`captures`), the byte counters (`traffic`), the network held for a
route change or a pause (`route_hold`), what waits for a person (`person`), dialogs, downloads,
the session's log (`session_log`); the engine is seen through `browser_host.BrowserHost`. Qt
objects are translated into plain values there; the decisions are in `host_app.core` and
`host_app.logic`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from bridge_protocol import ErrorId, SessionSettings, SvcError
from bridge_protocol.identity import FingerprintProfile

from ..core import js, page_driver
from ..logic import aio
from ..logic.identity import hint_headers
from ..logic.memory import RendererMemory
from ..logic.page_stack import PageStack
from ..logic.policy import NetworkPolicy, Route, route_of
from ..logic.readiness import Probe
from ..qt import QUrl, QWebEnginePage, QWebEngineProfile, QWebEngineView
from . import session_assets
from .asset_fetch import forget as forget_connections
from .asset_scheme import AssetHandler, SessionAssets
from .browser_host import BrowserHost
from .captures import PageCaptures
from .dialogs import DialogHost
from .downloads import SessionDownloads
from .identity import apply_identity
from .interceptor import Interceptor
from .page_hooks import PageHooks
from .page_input import PageInput
from .page_scripts import PageDom, PageFrames, live_page, run_js
from .permissions import PagePermissions
from .person import PersonWatch
from .route_hold import RouteHold
from .session_log import SessionLog
from .session_page import SessionPage
from .session_pages import SessionPages
from .session_storage import seed_cookies, write_proxy_prefs
from .traffic import SessionTraffic
from .worker_cdp import SessionWorkers

T = TypeVar("T")


class SessionBrowser:
    """One session's profile and pages (the root page and its popups, `session_pages`); the
    current page is `page`, in `view`. Implements `page_driver.Session`, its parts (`input`,
    `dom`, `frames`, `captures`, `traffic`, `downloads`, `events`) by the children below."""

    def __init__(self, host: BrowserHost, session_id: str, profile_id: int) -> None:
        self.host = host
        self.loop: aio.Loop = host.loop
        self.session_id = session_id
        self.profile_id = profile_id
        self.storage = host.data_dir / "Browser" / f"Tab-{profile_id}"
        self.lock = aio.Lock()
        self.running: aio.Task | None = None  # the operation holding the lock, if any
        self.running_kind: str | None = None  # its kind, for the window's list
        # readiness counters and per-page load state; they follow the current page
        self.stack = PageStack()
        self.policy = NetworkPolicy()
        self.profile: QWebEngineProfile | None = None
        self.pages: SessionPages[SessionPage] | None = None
        self.proxy_port: int | None = None
        self.route: Route = (None, None)  # what the current browser context was built on
        # the context is being replaced (Engine.rebuild): not to be activated by anyone else
        self.rebuilding = False
        self.session_log = SessionLog(host, session_id, profile_id)
        self.events = self.session_log.events
        self.dialogs = DialogHost(self)
        self.downloads = SessionDownloads(
            host.data_dir / "Downloads" / session_id, self.loop, self.session_log
        )
        self.memory = RendererMemory()
        self.assets: SessionAssets | None = None
        self.contexts = 0  # browser contexts built so far (each its own asset connections)
        self.workers: SessionWorkers | None = None  # the identity in workers (activate)
        self.permissions = PagePermissions(host, self.session_log, lambda: self.route)
        self.input = PageInput(self, lambda box: host.targeted(session_id, box))
        self.frames = PageFrames(self)
        self.dom = PageDom(self, self.input.focus_view)
        self.captures = PageCaptures(self)
        self.traffic = SessionTraffic(self)
        self.hold = RouteHold(self)
        self.person = PersonWatch(self)
        self._interceptor: Interceptor | None = None
        self._asset_handler: AssetHandler | None = None

    @property
    def view(self) -> QWebEngineView | None:
        return self.pages.view if self.pages is not None else None

    @property
    def page(self) -> SessionPage | None:
        return self.pages.page if self.pages is not None else None

    @property
    def active(self) -> bool:
        return self.page is not None

    @property
    def load_starts(self) -> int:
        return self.stack.load_starts

    @property
    def loading(self) -> bool:
        return self.stack.state.loading

    @property
    def paused(self) -> bool:
        return self.policy.paused

    @property
    def history_index(self) -> int:
        hist = self.page.history() if self.page is not None else None
        return hist.currentItemIndex() if hist is not None else 0

    @property
    def page_id(self) -> int:
        return self.stack.current

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

    # -- lifecycle ---------------------------------------------------------------------------

    def activate(self, settings: SessionSettings) -> None:
        if self.page is not None:
            return
        write_proxy_prefs(self.storage, settings.proxy_port, self.session_id)
        self.proxy_port = settings.proxy_port
        self.route = route_of(settings)
        self.policy = NetworkPolicy.from_settings(settings, self.host.filters)
        profile = QWebEngineProfile(f"Tab-{self.profile_id}", self.host.qobject)
        if profile.isOffTheRecord():
            raise SvcError.of(
                ErrorId.BROWSER_CREATION_FAILED, f"{self.session_id}: profile is off the record"
            )
        profile.setCachePath(str(self.storage / "Cache"))
        profile.setPersistentCookiesPolicy(
            QWebEngineProfile.PersistentCookiesPolicy.ForcePersistentCookies
        )
        installed = session_assets.install(
            settings,
            profile,
            # a context of its own: connections made for this one are never reused by the next
            owner=f"Tab-{self.profile_id}#{self.contexts + 1}",
            shared_cache=self.host.settings.shared_asset_cache,
            store=self.host.shared_assets,
            log=self.session_log,
        )
        if installed is not None:
            self.contexts += 1
            self.assets, self._asset_handler = installed
        else:
            self.assets = None
        seed_cookies(profile, self.storage, self.session_log)
        interceptor = Interceptor(
            self.policy,
            profile,
            self.session_log.end_load,
            self.session_log.filtered,
            self.assets,
            download_fetch=self.downloads.download_fetch,
        )
        interceptor.hint_headers = hint_headers(settings.identity)
        profile.setUrlRequestInterceptor(interceptor)
        self._interceptor = interceptor
        profile.setNotificationPresenter(self.permissions.notification)
        apply_identity(profile, settings.identity)
        self.workers = SessionWorkers(
            self.host.devtools,
            settings.identity,
            self.session_log.named,
            self.session_log.slot_failed,
        )
        self.downloads.attach(profile)
        self.profile = profile
        self.stack = PageStack()
        hooks = PageHooks(
            profile,
            dialogs=self.dialogs,
            permissions=self.permissions,
            workers=self.workers,
            assets=self.assets,
            host=self.host,
            log=self.session_log,
        )
        self.pages = SessionPages(profile, hooks, self.stack)
        self.apply_settings(settings, None)

    def apply_settings(self, settings: SessionSettings, old: SessionSettings | None) -> None:
        """The one path of the settings an open browser takes as they are (its creation in
        `activate` and every change, `Engine.apply_session_settings`): the filters, the asset
        scheme's policy and partition, pause and play, and a changed identity, which the next
        document takes (the open one keeps its identity until it reloads). A changed route is
        the engine's: it needs a new browser context."""
        self.policy.apply(settings)
        if self.assets is not None:
            session_assets.apply_settings(
                self.assets, settings, shared_cache=self.host.settings.shared_asset_cache
            )
        if settings.network_paused != self.paused:
            if settings.network_paused:
                self.hold.pause()
            else:
                self.hold.play()
        if old is not None and old.identity != settings.identity and self.profile is not None:
            apply_identity(self.profile, settings.identity)
            self._identity_changed(settings.identity)

    def _identity_changed(self, fp: FingerprintProfile | None) -> None:
        """The session's new fingerprint, on an open session (its profile has it already)."""
        if self._interceptor is not None:
            self._interceptor.hint_headers = hint_headers(fp)
        if self.workers is not None:
            self.workers.set_identity(fp)

    def close(self) -> None:
        self.session_log.end_load()
        if self.assets is not None:
            forget_connections(self.assets.route.owner)
        pages, profile = self.pages, self.profile
        self.pages = None
        self.profile = None
        self.dialogs.close()
        self.downloads.cancel_all()
        if self.workers is not None:
            self.workers.close()
            self.workers = None
        if pages is not None:
            self.host.forget_view(self.session_id)
            pages.close_all(profile.deleteLater if profile is not None else lambda: None)
        elif profile is not None:
            profile.deleteLater()

    # -- PageDriver --------------------------------------------------------------------------

    def run_js(self, code: str) -> aio.Future[Any]:
        """`code` in the current page's main document, its JSON answer parsed (not read into a
        type: the typed way is `run`)."""
        return run_js(self, code)

    def run(self, call: page_driver.Call[T], frame: object = None) -> aio.Future[T]:
        return self.frames.run(call, frame)

    async def _probe(self) -> Probe:
        probe = await self.run(js.PROBE)
        if probe is None:
            url = live_page(self).url().toString()
            return Probe(url, "loading", 0, 0, -1.0)
        return probe

    def probe(self) -> aio.Future[Probe]:
        return aio.spawn(self._probe())

    def page_open(self, page_id: int) -> bool:
        return self.stack.page(page_id) is not None

    def load(self, url: str) -> None:
        self.failure = None
        page = live_page(self)
        if self.workers is None:
            page.load(QUrl(url))
        else:
            # a page's first load waits (bounded) for its workers' auto-attach
            self.workers.when_ready(page, lambda: page.load(QUrl(url)))

    def history(self, how: str) -> bool:
        page = live_page(self)
        hist = page.history()
        if how == "back":
            if hist is None or not hist.canGoBack():
                # a popup with nowhere to go back to closes and its opener is current again, as
                # a phone browser's back does for a tab a link opened: the agent's way out
                return self.pages is not None and self.pages.close_popup(
                    self.stack.current, by="back"
                )
            action = QWebEnginePage.WebAction.Back
        elif how == "forward":
            if hist is None or not hist.canGoForward():
                return False
            action = QWebEnginePage.WebAction.Forward
        else:
            action = QWebEnginePage.WebAction.Reload
        if self.workers is None:
            page.triggerAction(action)
        else:
            # as a load: after an identity change reached the page's channel (a reload is how
            # an open page takes a new identity)
            self.workers.when_ready(page, lambda: page.triggerAction(action))
        return True

    def stop(self) -> None:
        if self.page is not None:
            self.page.triggerAction(QWebEnginePage.WebAction.Stop)

    def title(self) -> str:
        return self.page.title() if self.page is not None else ""

    def selected(self) -> None:
        self.host.operation_selected(self.session_id)

    def log(self, category: str, message: str, **data: Any) -> None:
        self.session_log.log(category, message, **data)
