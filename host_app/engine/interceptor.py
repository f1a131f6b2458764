"""A session's request interceptor: each request of the profile translated into a plain
`policy.Request`, the policy's verdict applied (blocked, or sent through the asset scheme), and
the fingerprint's client hints written where the engine wrote the machine's. Runs on the UI
thread for every request, so it only reads and translates; the decisions are
`host_app.logic.policy`'s and `host_app.logic.assets`'.
"""

from __future__ import annotations

from collections.abc import Callable

from ..logic import assets as assets_logic
from ..logic.assets import ASSET_SCHEMES, ORIGINAL_SCHEMES, Via, to_original
from ..logic.policy import NetworkPolicy, Request, Verdict
from ..qt import (
    QByteArray,
    QObject,
    QUrl,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
)
from .asset_scheme import SessionAssets
from .asset_scheme import Verdict as AssetVerdict

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


def asset_url(url: QUrl) -> QUrl | None:
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
        target = asset_url(qurl)
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
        target = asset_url(qurl)
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
