"""One session's browser in QtWebEngine: its profile and pages (the root page and its popups),
and the page driving the operations ask of it (`core/page_driver`: `PageDriver`, `ObsDriver`,
so `Session`). Qt objects are translated into plain values here; the decisions are in
`host_app.core.operations`, `host_app.core.actions`, `host_app.core.observations` and
`host_app.logic`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from cryptography.hazmat.primitives import serialization

from bridge_protocol import (
    ErrorId,
    NeedsPerson,
    SessionSettings,
    SvcError,
    browser_data,
)
from bridge_protocol.browser_data import StagedCookie
from bridge_protocol.identity import FingerprintProfile
from bridge_protocol.selectors import DomNode, build_tree

from ..core import js, operations, page_driver
from ..logic import aio, cookie_files, trust
from ..logic import assets as assets_logic
from ..logic.actionability import Box
from ..logic.assets import (
    ASSET_SCHEMES,
    ORIGINAL_SCHEMES,
    AssetPolicy,
    Via,
    shared_partition,
    to_original,
)
from ..logic.filter_events import FILTERED, SUMMARY, FilterEvents
from ..logic.frames import MAX_DEPTH, HostFrame
from ..logic.identity import hint_headers
from ..logic.images import QT_FORMAT, qt_quality
from ..logic.memory import RendererMemory
from ..logic.page_answers import ElementInfo
from ..logic.page_events import PageEvent, PageEvents
from ..logic.page_stack import PageStack
from ..logic.policy import IMAGE_SIZE, NetworkPolicy, Request, Route, Verdict, route_of
from ..logic.readiness import Probe
from ..logic.traffic import CounterKey, Counters
from ..logic.typing_keys import strokes
from ..logic.worker_cdp import hold_cuts_opener
from ..qt import (
    QApplication,
    QBuffer,
    QByteArray,
    QEvent,
    QFocusEvent,
    QIODevice,
    QKeyEvent,
    QMouseEvent,
    QObject,
    QPoint,
    QPointF,
    Qt,
    QTest,
    QUrl,
    QWebEngineCertificateError,
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
from .asset_fetch import FetchRoute
from .asset_fetch import forget as forget_connections
from .asset_scheme import (
    AssetHandler,
    SessionAssets,
    qt_cookie,
    schemes_registered,
    track_cookies,
)
from .asset_scheme import Verdict as AssetVerdict
from .dialogs import DialogHost
from .downloads import SessionDownloads
from .identity import apply_identity
from .session_pages import SessionPages
from .worker_cdp import SessionWorkers

if TYPE_CHECKING:
    from .runtime import Engine


T = TypeVar("T")

MAX_FRAME_TREE = 200  # frames listed per page (the observation reads at most 64 of them)
FRAME_JS_TIMEOUT = 5.0
# the main frame's isolated-world scripts (observation of a large page included) answer well
# within this; past it the document they were sent to is taken to be gone
MAIN_JS_TIMEOUT = 10.0
TRAFFIC_WAIT = 2.0  # a page channel's count: a flush's round trip, then a read
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


def removed(path: Path) -> bool:
    """One attempt at removing a session's folder; True once it is gone (the engine's file
    threads may still be closing files there for a moment after its profile went)."""
    shutil.rmtree(path, ignore_errors=True)
    return not os.path.lexists(path)


def asset_policy(settings: SessionSettings, *, shared_cache: bool) -> AssetPolicy:
    return AssetPolicy(
        image_mode=settings.image_blocking_mode,
        image_limit_bytes=settings.image_size_limit_kb * 1024,
        shared_cache=shared_cache,
    )


# grabs of a full page compared until two agree (then ~1 s more at most)
STABLE_GRABS = 10


_RT = QWebEngineUrlRequestInfo.ResourceType
# Qt's resource types as webRequest type names (what filter rules speak). Workers load scripts;
# a favicon is an image; a navigation preload is the navigation's own request.
RESOURCE_TYPES: dict[QWebEngineUrlRequestInfo.ResourceType, str] = {
    _RT.ResourceTypeMainFrame: "main_frame",
    _RT.ResourceTypeNavigationPreloadMainFrame: "main_frame",
    _RT.ResourceTypeSubFrame: "sub_frame",
    _RT.ResourceTypeNavigationPreloadSubFrame: "sub_frame",
    _RT.ResourceTypeStylesheet: "stylesheet",
    _RT.ResourceTypeScript: "script",
    _RT.ResourceTypeWorker: "script",
    _RT.ResourceTypeSharedWorker: "script",
    _RT.ResourceTypeServiceWorker: "script",
    _RT.ResourceTypeImage: "image",
    _RT.ResourceTypeFavicon: "image",
    _RT.ResourceTypeFontResource: "font",
    _RT.ResourceTypeObject: "object",
    _RT.ResourceTypePluginResource: "object",
    _RT.ResourceTypeMedia: "media",
    _RT.ResourceTypeXhr: "xmlhttprequest",
    _RT.ResourceTypePing: "ping",
    _RT.ResourceTypeCspReport: "csp_report",
    _RT.ResourceTypeWebSocket: "websocket",
}
# what may go through the asset scheme, as host_app.logic.assets names it: never workers (their
# script must be same-origin with the page, which an asset URL is not)
KINDS: dict[QWebEngineUrlRequestInfo.ResourceType, str] = {
    _RT.ResourceTypeImage: "image",
    _RT.ResourceTypeStylesheet: "stylesheet",
    _RT.ResourceTypeScript: "script",
    _RT.ResourceTypeFontResource: "font",
    _RT.ResourceTypeFavicon: "favicon",
}


def _asset_url(url: QUrl) -> QUrl | None:
    """The asset scheme's URL for an http(s) URL (None for any other scheme)."""
    scheme = ASSET_SCHEMES.get(url.scheme().lower())
    if scheme is None:
        return None
    target = QUrl(url)
    target.setScheme(scheme)
    return target


class Interceptor(QWebEngineUrlRequestInterceptor):
    """Translates each request into a `policy.Request` and applies the policy's verdict; runs
    on the UI thread for every request of the profile, so it only reads and translates."""

    def __init__(
        self,
        policy: NetworkPolicy,
        parent: QObject,
        navigation: Callable[[], None],
        filtered: Callable[[Request, Verdict], None],
        assets: SessionAssets | None,
        *,
        download_fetch: Callable[[], None],
    ) -> None:
        super().__init__(parent)
        self.policy = policy
        # told of main-frame requests that are not client redirects; a server redirect's next
        # request is not told apart (it keeps the first request's type: Link, FormSubmitted)
        self.navigation = navigation
        # told of requests Chromium's download manager makes (an `<a download>` click): no
        # load starts for them, and the profile announces their download only later
        self.download_fetch = download_fetch
        self.filtered = filtered  # told of each request blocked by a filter
        self.assets = assets  # None: the asset scheme is not registered (no redirects)
        # client hints the engine answers from the machine -> the fingerprint's value
        # (`logic.identity.hint_headers`; empty for a native session)
        self.hint_headers: dict[str, str] = {}

    def interceptRequest(self, info: QWebEngineUrlRequestInfo | None) -> None:
        if info is None:
            return
        rtype = RESOURCE_TYPES.get(info.resourceType(), "other")
        redirect = QWebEngineUrlRequestInfo.NavigationType.NavigationTypeRedirect
        url = info.requestUrl()
        encoded = bytes(url.toEncoded().data()).decode("ascii", "replace")
        # an asset URL (a stylesheet's relative URL served by the asset scheme) is judged as
        # the URL it stands for, so filters see the real one
        original = to_original(encoded)
        if rtype == "main_frame" and info.isDownload():
            self.download_fetch()
        # a held first document comes back as an asset URL, asked again without being a
        # redirect: it is the same navigation
        if rtype == "main_frame" and info.navigationType() != redirect and original is None:
            self.navigation()
            if self.assets is not None:
                self.assets.page_load()
        source = info.initiator()
        if source.isEmpty():
            source = info.firstPartyUrl()
        request = Request(
            url=original or encoded,
            scheme=original.partition(":")[0] if original else url.scheme(),
            resource_type=rtype,
            source_url=bytes(source.toEncoded().data()).decode("ascii", "replace"),
            method=bytes(info.requestMethod().data()).decode("ascii", "replace"),
        )
        verdict = self.policy.decide(request)
        if verdict is not None:
            info.block(True)
            if verdict.filtered:
                self.filtered(request, verdict)
            return
        if self.hint_headers:
            self._hints(info)
        if self.assets is None:
            return
        if rtype != "main_frame":
            self._asset_step(info, request, KINDS.get(info.resourceType(), "other"))
        elif info.navigationType() != redirect:
            self._hold_first_load(info)

    def _hints(self, info: QWebEngineUrlRequestInfo) -> None:
        """A client hint the site asked for (Accept-CH) says the fingerprint's value, as the
        page's navigator does, where the engine wrote the machine's."""
        for name in info.httpHeaders():
            value = self.hint_headers.get(bytes(name.data()).decode("latin-1").lower())
            if value is not None:
                info.setHttpHeader(name, QByteArray(value.encode("ascii")))

    def _hold_first_load(self, info: QWebEngineUrlRequestInfo) -> None:
        """A popup's first document, once the rules let it go, waits in the asset scheme
        until its workers would get the session's identity (`SessionAssets.hold_first_load`)."""
        assert self.assets is not None
        qurl = info.requestUrl()
        target = _asset_url(qurl)
        if target is None or bytes(info.requestMethod().data()).upper() != b"GET":
            return
        held = qurl.adjusted(QUrl.UrlFormattingOption.RemoveFragment).toString()
        if self.assets.first_load(held, target.toString()):
            info.redirect(target)

    def _asset_step(self, info: QWebEngineUrlRequestInfo, request: Request, kind: str) -> None:
        """After the blocking rules: whether the request goes through the asset scheme
        (host_app/engine/asset_scheme.py), decided by `logic.assets.route` on plain values."""
        assert self.assets is not None
        qurl = info.requestUrl()
        url = qurl.toString()
        policy = self.assets.policy
        has_cookie = policy.shared_cache and bool(self.assets.cookies.matching(url))
        store = self.assets.store
        not_shared = (
            policy.shared_cache
            and store is not None
            and (self.assets.partition, assets_logic.to_original(url) or url) in store.not_shared
        )
        via, limit, shared = assets_logic.route(
            policy,
            url=url,
            method=request.method,
            kind=kind,
            has_cookie=has_cookie,
            not_shared=not_shared,
        )
        if via is Via.NATIVE:
            return
        if via is Via.BACK:
            back = QUrl(qurl)
            back.setScheme(ORIGINAL_SCHEMES[qurl.scheme().lower()])
            info.redirect(back)
            return
        target = _asset_url(qurl)
        if target is not None:
            # the headers as the engine made them for the real URL: after the redirect to the
            # scheme the engine trims the Referer to the origin (a cross-origin redirect)
            self.assets.remember_headers(
                target.toString(),
                {
                    bytes(k.data()).decode("latin-1"): bytes(v.data()).decode("latin-1")
                    for k, v in info.httpHeaders().items()
                },
            )
            info.redirect(target)  # the engine asks again with the asset URL
            return
        first_party = info.firstPartyUrl().toString()
        self.assets.note(url, AssetVerdict(limit, shared, first_party, kind))


class SessionPage(QWebEnginePage):
    """Dialogs go to the session's `DialogHost`, never to Qt's application-modal boxes; a page
    made without one (say, a popup's) answers them by the policy, unreported."""

    def __init__(
        self, profile: QWebEngineProfile, view: QWidget, dialogs: DialogHost | None = None
    ) -> None:
        super().__init__(profile, view)
        self.dialogs = dialogs
        # documents that started loading in the page (main frame, not same-document): a page
        # that reloads its own address has moved on all the same
        self.documents = 0
        self.loadStarted.connect(self._document_started)

    def _document_started(self) -> None:
        self.documents += 1

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


class SessionBrowser:  # noqa: PLR0904  the god object issue 39 point 2 splits
    """One session's profile and pages (the root page and its popups, `session_pages`); the
    current page is `page`, in `view`. Implements `page_driver.Session`."""

    def __init__(self, engine: Engine, session_id: str, profile_id: int) -> None:
        self.engine = engine
        self._loop = engine.loop
        self.session_id = session_id
        self.profile_id = profile_id
        self.lock = aio.Lock()
        self.running: aio.Task | None = None  # the operation holding the lock, if any
        self.running_kind: str | None = None  # its kind, for the window's list
        # what the last observation found waiting for a person, the URL and the document
        # (SessionPage.documents) it was found in
        self._person: tuple[NeedsPerson, str, int] | None = None
        # readiness counters and per-page load state; they follow the current page
        self.stack = PageStack()
        self.policy = NetworkPolicy()
        self.profile: QWebEngineProfile | None = None
        self.pages: SessionPages[SessionPage] | None = None
        self.proxy_port: int | None = None
        self.route: Route = (None, None)  # what the current browser context was built on
        # the context is being replaced (Engine.rebuild): not to be activated by anyone else
        self.rebuilding = False
        self.events = PageEvents()
        self.filter_events = FilterEvents()
        self.dialogs = DialogHost(self)
        self.downloads = SessionDownloads(self)
        self.memory = RendererMemory()
        self.pointer: tuple[float, float] | None = None  # where the last click or hover left it
        self.assets: SessionAssets | None = None
        self._contexts = 0  # browser contexts built so far (each its own asset connections)
        self.workers: SessionWorkers | None = None  # the identity in workers (activate)

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
    def history_index(self) -> int:
        hist = self.page.history() if self.page is not None else None
        return hist.currentItemIndex() if hist is not None else 0

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
        self.route = route_of(settings)
        self.policy = NetworkPolicy.from_settings(settings, self.engine.filters)
        profile = QWebEngineProfile(f"Tab-{self.profile_id}", self.engine.qobject)
        if profile.isOffTheRecord():
            raise SvcError.of(
                ErrorId.BROWSER_CREATION_FAILED, f"{self.session_id}: profile is off the record"
            )
        profile.setCachePath(str(self.storage / "Cache"))
        profile.setPersistentCookiesPolicy(
            QWebEngineProfile.PersistentCookiesPolicy.ForcePersistentCookies
        )
        self.assets = self._assets(settings, profile)
        self._seed_cookies(profile)
        interceptor = Interceptor(
            self.policy,
            profile,
            self._navigation,
            self._filtered,
            self.assets,
            download_fetch=self.downloads.download_fetch,
        )
        interceptor.hint_headers = hint_headers(settings.identity)
        profile.setUrlRequestInterceptor(interceptor)
        self._interceptor = interceptor
        profile.setNotificationPresenter(self._notification)
        apply_identity(profile, settings.identity)
        self.workers = SessionWorkers(
            self.engine.devtools, settings.identity, self._workers_log, self.slot_failed
        )
        self.downloads.attach(profile)
        self.profile = profile
        self.stack = PageStack()
        self.pages = SessionPages(profile, self, self.stack)
        self.apply_settings(settings, None)

    def _assets(
        self, settings: SessionSettings, profile: QWebEngineProfile
    ) -> SessionAssets | None:
        """The session's asset scheme: its handler on the profile, its cookies mirrored."""
        if not schemes_registered():
            return None
        roots = trust.roots_of(settings.trust, trust.read_providery_ca())
        pem = "".join(c.public_bytes(serialization.Encoding.PEM).decode("ascii") for c in roots)
        # a context of its own: connections made for this one are never reused by the next
        self._contexts += 1
        route = FetchRoute(
            proxy_port=settings.proxy_port,
            extra_roots_pem=pem if settings.proxy_port is not None and pem else None,
            owner=f"Tab-{self.profile_id}#{self._contexts}",
        )
        assets = SessionAssets(
            policy=asset_policy(settings, shared_cache=self.engine.settings.shared_asset_cache),
            route=route,
            log_filtered=self._image_dropped,
            log_failed=self._asset_failed,
            store=self.engine.shared_assets,
            partition=shared_partition(settings),
        )
        handler = AssetHandler(assets, profile)
        for name in ASSET_SCHEMES.values():
            profile.installUrlSchemeHandler(name.encode(), handler)
        self._asset_handler = handler
        track_cookies(profile, assets.cookies)
        return assets

    def _seed_cookies(self, profile: QWebEngineProfile) -> None:
        """The saved profile's cookies the agent copied for this new session
        (bridge_protocol.browser_data), put into its store before its first request; the copy
        goes once they are in the store's hands."""
        seed = browser_data.seed_cookies(self.storage)
        try:
            cookies = browser_data.decode(seed.read_bytes())
        except FileNotFoundError:
            return
        except (OSError, msgspec.MsgspecError) as exc:
            self._cookies_log(f"the profile's cookies could not be read: {exc}", 0)
            return
        store = profile.cookieStore()
        if store is None:
            return
        for c in cookies:
            store.setCookie(*qt_cookie(c))
        seed.unlink(missing_ok=True)
        self._cookies_log(f"{len(cookies)} cookies from the profile", len(cookies))

    def _cookies_log(self, message: str, count: int) -> None:
        self.engine.write_session_log(
            self.profile_id,
            "session.cookies_seeded",
            f"{self.session_id}: {message}",
            session_id=self.session_id,
            cookies=count,
        )

    def sign_in(self) -> list[StagedCookie]:
        """The session's live cookies (its sign-in), as a profile stages them; none while the
        session is not open."""
        if self.assets is None:
            return []
        return cookie_files.from_jar(self.assets.cookies.all())

    def _asset_failed(self, url: str, error: str) -> None:
        self.engine.write_session_log(
            self.profile_id,
            "network.asset_failed",
            f"the asset scheme could not fetch {url}: {error}",
            url=url,
            error=error,
        )

    def _image_dropped(self, url: str, limit_kb: int) -> None:
        # the filter events' record and bound (one record per URL per load, then counted)
        request = Request(url=url, scheme=url.partition(":")[0], resource_type="image")
        self._filtered(request, Verdict(IMAGE_SIZE, f"image_size_limit_kb={limit_kb}"))

    def apply_settings(self, settings: SessionSettings, old: SessionSettings | None) -> None:
        """The one path of the settings an open browser takes as they are (its creation in
        `activate` and every change, `Engine.apply_session_settings`): the filters, the asset
        scheme's policy and partition, pause and play, and a changed identity, which the next
        document takes (the open one keeps its identity until it reloads). A changed route is
        the engine's: it needs a new browser context."""
        self.policy.apply(settings)
        self.apply_asset_settings(settings)
        if settings.network_paused != self.paused:
            if settings.network_paused:
                self.pause()
            else:
                self.play()
        if old is not None and old.identity != settings.identity and self.profile is not None:
            apply_identity(self.profile, settings.identity)
            self.identity_changed(settings.identity)

    def apply_asset_settings(self, settings: SessionSettings) -> None:
        if self.assets is not None:
            shared = self.engine.settings.shared_asset_cache
            self.assets.policy = asset_policy(settings, shared_cache=shared)
            # a route change is held until a new context; another proxy id on the same route
            # (the proxy was replaced) reads from its own partition from now on
            self.assets.partition = shared_partition(settings)

    def new_page(self, view: QWebEngineView) -> SessionPage:
        """Every page of the session, the root page and each popup, is made here."""
        assert self.profile is not None
        page = SessionPage(self.profile, view, self.dialogs)
        with contextlib.suppress(AttributeError):
            page.permissionRequested.connect(self._permission)
        page.certificateError.connect(self._certificate_error)
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
        if self.workers is None:
            return
        self.workers.page_made(page)
        channel = self.workers.channel(page)
        # a native session's popup is not held: its channel only counts bytes (the popup's
        # first document may go uncounted, docs/decisions.md "Downloaded bytes")
        assets = self.assets if self.workers.fingerprinted else None
        if first_url and channel is not None and not channel.ready and assets is not None:
            opener_channel = self.workers.channel(opener) if opener is not None else None
            policy = opener_channel.opener_policy if opener_channel is not None else None
            if hold_cuts_opener(policy):
                self._workers_log(
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
        if self.workers is not None:
            self.workers.page_closing(page)

    def identity_changed(self, fp: FingerprintProfile | None) -> None:
        """The session's new fingerprint, on an open session (its profile has it already)."""
        self._interceptor.hint_headers = hint_headers(fp)
        if self.workers is not None:
            self.workers.set_identity(fp)

    def _workers_log(self, category: str, message: str) -> None:
        self.engine.write_session_log(
            self.profile_id, category, f"{self.session_id}: {message}", session_id=self.session_id
        )

    def _certificate_error(self, error: QWebEngineCertificateError) -> None:
        """Accept a certificate the engine rejected only when it chains to the extra roots of
        the route this context was built on (`logic.trust`): an unknown issuer is the one error
        extra roots can answer; every other error (name, dates, weak key...) stays an error."""
        _, extra = self.route
        unknown_issuer = error.type() == QWebEngineCertificateError.Type.CertificateAuthorityInvalid
        roots = trust.roots_of(extra, trust.read_providery_ca()) if unknown_issuer else []
        chain = [bytes(c.toDer().data()) for c in error.certificateChain()]
        host = error.url().host()
        if roots and error.isOverridable() and trust.chain_verifies(chain, host, roots):
            error.acceptCertificate()
            verdict = "accepted"
        else:
            error.rejectCertificate()
            verdict = "rejected"
        self.engine.write_session_log(
            self.profile_id,
            "page.certificate",
            f"certificate for {host} {verdict} ({error.type().name})",
            session_id=self.session_id,
            host=host,
            error=error.type().name,
            verdict=verdict,
        )

    def _navigation(self) -> None:
        self._end_filter_load()

    def _end_filter_load(self) -> None:
        summary = self.filter_events.end_load()
        if summary is not None:
            self.engine.write_session_log(
                self.profile_id,
                SUMMARY,
                f"{summary['blocked']} requests filtered in the last page load",
                session_id=self.session_id,
                **summary,
            )

    def _filtered(self, request: Request, verdict: Verdict) -> None:
        data = self.filter_events.blocked_request(request, verdict)
        if data is not None:
            self.engine.write_session_log(
                self.profile_id,
                FILTERED,
                f"blocked {request.resource_type} ({verdict.reason}): {data['url']}",
                session_id=self.session_id,
                **data,
            )

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
        self._end_filter_load()
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
            self.engine.forget_view(self)
            pages.close_all(profile.deleteLater if profile is not None else lambda: None)
        elif profile is not None:
            profile.deleteLater()

    def drop_data(self) -> None:
        storage = self.storage

        def remove(attempt: int = 0) -> None:
            if not removed(storage) and attempt < 10:
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
        timer = self.loop.call_later(MAIN_JS_TIMEOUT, lambda: fut.set_result(None))
        self.pages.run_js(code).add_done_callback(done)
        return fut

    def run(self, call: page_driver.Call[T], frame: object = None) -> aio.Future[T]:
        """`call` in the current page's main document (`run_js`), or in `frame`'s (a
        `HostFrame.handle`: `run_js_in`), its answer read once, where it enters Python."""
        raw = self.run_js(call.code) if frame is None else self.run_js_in(frame, call.code)
        fut: aio.Future[T] = aio.Future()
        raw.add_done_callback(lambda got: fut.set_result(call.read(got.result())))
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
        probe = await self.run(js.PROBE)
        if probe is None:
            url = self._page().url().toString()
            return Probe(url, "loading", 0, 0, -1.0)
        return probe

    def probe(self) -> aio.Future[Probe]:
        return _spawn(self._probe())

    def load(self, url: str) -> None:
        self.failure = None
        page = self._page()
        if self.workers is None:
            page.load(QUrl(url))
        else:
            # a page's first load waits (bounded) for its workers' auto-attach
            self.workers.when_ready(page, lambda: page.load(QUrl(url)))

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

    async def _snapshot(self) -> page_driver.Snapshot:
        v = await self.run(js.SNAPSHOT)
        if v is None:
            return page_driver.Snapshot([], [])
        nodes = [DomNode(i, n.tag, n.attrs, n.parent) for i, n in enumerate(v.nodes)]
        build_tree(nodes)
        return page_driver.Snapshot(nodes, v.links)

    def snapshot(self) -> aio.Future[page_driver.Snapshot]:
        return _spawn(self._snapshot())

    async def _element(self, node: DomNode) -> ElementInfo | None:
        return await self.run(js.element(node.index, node.tag))

    def element(self, node: DomNode) -> aio.Future[ElementInfo | None]:
        return _spawn(self._element(node))

    async def _focus(self, node: DomNode, end: bool) -> page_driver.Focused:
        self._focus_view()
        return await self.run(js.focus(node.index, node.tag, end))

    def focus(self, node: DomNode, end: bool = False) -> aio.Future[page_driver.Focused]:
        return _spawn(self._focus(node, end))

    def _target(self) -> QWidget:
        view = self.view
        if view is None:
            raise SvcError.of(ErrorId.BROWSER_UNAVAILABLE, f"{self.session_id} has no view")
        return view.focusProxy() or view

    def _focus_view(self) -> None:
        target = self._target()
        target.setFocus(Qt.FocusReason.OtherFocusReason)
        if not target.hasFocus():
            # a window that is not active (headless, a session in the background) gives its
            # view no focus: the page got the keys but never a focus event (a search box that
            # loads its index on focus stayed empty). Told directly, as each page of a
            # headless browser is focused
            reason = Qt.FocusReason.OtherFocusReason
            QApplication.sendEvent(target, QFocusEvent(QEvent.Type.FocusIn, reason))

    def mouse_click(self, x: float, y: float, move: bool, ctrl: bool = False) -> None:
        target = self._target()
        pos = QPoint(round(x), round(y))
        mod = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
        self.pointer = (x, y)
        if move:
            # QTest.mouseMove reaches no page (it moves the cursor): a Lumino menu, which
            # takes its item from the mousemove, never saw one and its click did nothing
            self.mouse_move(x, y)
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

    def targeted(self, box: Box) -> None:
        for listener in self.engine.on_target:
            listener(self.session_id, box)

    def type_text(self, text: str) -> None:
        self._focus_view()
        target = self._target()
        for stroke in strokes(text):
            if stroke.key is not None:
                _QTEST.keyClick(target, KEYS[stroke.key])
            elif stroke.text.isascii():
                _QTEST.keyClicks(target, stroke.text)  # with its key's code (KeyA...)
            else:
                # a key that produces the character (a layout's "é" key): QTest would abort
                for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                    event = QKeyEvent(kind, 0, Qt.KeyboardModifier.NoModifier, stroke.text)
                    QApplication.sendEvent(target, event)

    def to_html(self) -> aio.Future[str]:
        fut: aio.Future[str] = aio.Future()
        self._page().toHtml(lambda html: fut.set_result(html if isinstance(html, str) else ""))
        return fut

    async def _traffic(self) -> Counters:
        counts: dict[CounterKey, int] = {}
        if self.assets is not None:
            counts[("assets", self._contexts, 0)] = self.assets.downloaded
        if self.workers is not None:
            # asked of every page at once, then waited for (bounded: a page whose channel does
            # not answer counts nothing)
            for read in self.workers.traffic():
                got = await aio.within(self._loop, read, TRAFFIC_WAIT, None)
                if got is not None:
                    counts[got[0]] = got[1]
        return counts

    def traffic(self) -> aio.Future[Counters]:
        """The session's downloaded-bytes counters (`logic.traffic`): each page's channel's, the
        asset scheme's fetches'."""
        return _spawn(self._traffic())

    async def _count_traffic(self, on: bool) -> None:
        if self.workers is None:
            return
        for turned in self.workers.count(on):
            await aio.within(self._loop, turned, TRAFFIC_WAIT, False)

    def count_traffic(self, on: bool) -> aio.Future[None]:
        """The pages' channels count the downloaded bytes (the Network domain) or stop: only
        while an operation reports them, its events cost the app's thread (~7 a request).
        Resolves once every page's renderer has it (bounded)."""
        return _spawn(self._count_traffic(on))

    async def _document_size(self) -> tuple[int, int, int, int]:
        return await self.run(js.DOC_SIZE)

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
                inner = await self.run(js.INNER_HEIGHT)
                if inner is not None and inner >= height:
                    break
                await aio.sleep(self.loop, 0.03)
            await aio.sleep(self.loop, 0.15)
            # The compositor rasterizes the newly exposed rows at its own pace (on a loaded
            # machine well after the page's layout matched): a grab is taken once two in a row
            # agree, so a half-painted page is never the answer unless it keeps changing.
            image = view.grab().toImage()
            for _ in range(STABLE_GRABS):
                await aio.sleep(self.loop, 0.1)
                again = view.grab().toImage()
                if again == image:
                    break
                image = again
            return image
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

    def saw_person(self, person: NeedsPerson | None) -> bool:
        """An observation's `needs_person`; True when it is new (nothing, or another page,
        waited before): the person is told then."""
        before = self.waiting_person()
        self._person = (person, *self._document()) if person is not None else None
        return person is not None and before is None

    def waiting_person(self) -> NeedsPerson | None:
        """What waits for a person on the page, until the page has moved on: another URL, or
        another document at the same one (a solved bot check reloads its address)."""
        if self._person is None or self.page is None:
            return None
        person, url, document = self._person
        return person if self._document() == (url, document) else None

    def _document(self) -> tuple[str, int]:
        """The current page's URL and how many documents it has started."""
        if self.page is None:
            return "", 0
        return self.page.url().toString(), getattr(self.page, "documents", 0)

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

    def log(self, category: str, message: str, **data: Any) -> None:
        self.engine.write_session_log(
            self.profile_id, category, message, session_id=self.session_id, **data
        )

    # -- route hold --------------------------------------------------------------------------

    def history_target(self, how: str) -> str | None:
        """The URL a history move (`reload`, `back`, `forward`) of the current page would load:
        what a rebuilt context loads instead, the old context's history being gone with it."""
        page = self.page
        if page is None:
            return None
        hist = page.history()
        if how == "back" and hist is not None:
            url = hist.backItem().url().toString() if hist.canGoBack() else None
        elif how == "forward" and hist is not None:
            url = hist.forwardItem().url().toString() if hist.canGoForward() else None
        else:
            url = page.url().toString()
        return url if url not in (None, "", "about:blank") else None

    @property
    def route_held(self) -> bool:
        """The session waits for Reload and apply: its settings name another route."""
        return self.policy.held

    def hold_route(self) -> None:
        """From now on nothing of this session leaves by the route its context was built on:
        new requests are blocked and loads in flight stopped, the documents stay."""
        if self.policy.held:
            return
        self.policy.held = True
        for state, page in self.pages.states() if self.pages is not None else []:
            if state.loading:
                state.interrupted = state.committed_in_load
            # also on loaded pages: Stop cancels the requests their scripts have in flight
            page.triggerAction(QWebEnginePage.WebAction.Stop)
        self._cut_connections()

    def _cut_connections(self) -> None:
        """End the context's open connections (a WebSocket, a streaming response, keep-alive
        sockets): the hold blocks new requests, but a direct session's open connections do not
        pass a listener the agent could cut. The engine makes a new network context for a
        profile whose cache type changes, which closes them all (a WebSocket closes with 1006),
        while the documents, cookies and storage stay (measured on QtWebEngine 6.11)."""
        profile = self.profile
        if profile is None:
            return
        kind = profile.httpCacheType()
        other = (
            QWebEngineProfile.HttpCacheType.MemoryHttpCache
            if kind != QWebEngineProfile.HttpCacheType.MemoryHttpCache
            else QWebEngineProfile.HttpCacheType.DiskHttpCache
        )
        profile.setHttpCacheType(other)
        profile.setHttpCacheType(kind)
        if self.assets is not None:
            forget_connections(self.assets.route.owner)  # the asset fetches' too

    def release_route(self) -> None:
        """The settings came back to the route this context runs on: nothing to apply; loads
        the hold interrupted after their commit are reloaded, as play does."""
        if not self.policy.held:
            return
        self.policy.held = False
        for state, page in self.pages.states() if self.pages is not None else []:
            if state.interrupted and not self.policy.paused:
                page.triggerAction(QWebEnginePage.WebAction.Reload)
                state.interrupted = False

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
        # "active requests cancelled" (spec 1 §3): also what loaded pages hold open, a
        # WebSocket or a streaming fetch; the documents stay
        self._cut_connections()

    def play(self) -> bool:
        if not self.policy.paused:
            return False
        self.policy.paused = False
        if self.policy.held:
            # a reload now would go nowhere (held) and replace the documents with error pages;
            # Reload and apply reloads on the new route
            self.policy.deferred_navigation = False
            return False
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
