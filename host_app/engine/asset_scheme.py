"""The asset scheme (`svcasset-http`, `svcasset-https`): requests the interceptor sends here are
answered from Python (host_app/engine/asset_fetch.py in worker threads, the rules in
host_app/logic/assets.py). Used for images of `over_limit` sessions, whose size must be known
before the body is downloaded (the Qt bindings have no response interceptor, DESIGN.md), and
for the shared asset cache when it is on.

Registered before the QApplication exists (`register_schemes`) as SecureScheme (an https page
may load it), CorsEnabled (fonts and `crossorigin` scripts need it), FetchApiAllowed, and
ContentSecurityPolicyIgnored: a page's CSP checks the redirect's target, and a CSP of
`img-src 'self'` would otherwise block the page's own images (measured).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from bridge_protocol.browser_data import StagedCookie

from ..logic.asset_request import engine_headers
from ..logic.assets import (
    ASSET_SCHEMES,
    DEFAULT_PORTS,
    AssetPolicy,
    Cookie,
    CookieJar,
    cors_script,
    freshness_lifetime,
    over_limit,
    refers_relatively,
    request_headers_eligible,
    storable,
    to_original,
)
from ..qt import (
    QBuffer,
    QByteArray,
    QDateTime,
    QIODevice,
    QNetworkCookie,
    QObject,
    QTimer,
    QUrl,
    QWebEngineProfile,
    QWebEngineUrlRequestJob,
    QWebEngineUrlScheme,
    QWebEngineUrlSchemeHandler,
    pyqtSignal,
    sip,
)
from .asset_fetch import Aborted, Fetch, Fetched, FetchRoute
from .shared_assets import SharedAssets

MAX_VERDICTS = 4096
SWEEP_MS = 500  # how soon a fetch of a request the engine dropped is aborted
BLOCKING_KINDS = frozenset({"script", "stylesheet"})  # may block the parser
MAX_FAILED_RECORDS = 100  # network.asset_failed records per page load, one per URL
_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="svc-asset")
# fetches under way and their jobs: the app's exit aborts them rather than waiting (the
# interpreter joins the pool's threads at exit), and a sweep aborts those whose job the engine
# deleted (`_Main.sweep`), whether their session lives on or went with its handler
_ACTIVE: dict[Fetch, QWebEngineUrlRequestJob] = {}


def abort_all() -> None:
    for fetch in list(_ACTIVE):
        fetch.abort()


def register_schemes() -> None:
    """Before the QApplication: the engine reads scheme registrations once, at start."""
    flags = (
        QWebEngineUrlScheme.Flag.SecureScheme
        | QWebEngineUrlScheme.Flag.CorsEnabled
        | QWebEngineUrlScheme.Flag.FetchApiAllowed
        | QWebEngineUrlScheme.Flag.ContentSecurityPolicyIgnored
    )
    for name in ASSET_SCHEMES.values():
        if QWebEngineUrlScheme.schemeByName(name.encode()).name():
            continue
        scheme = QWebEngineUrlScheme(name.encode())
        # host and port kept: relative URLs in a stylesheet served by the scheme resolve on the
        # same host, and `/x.png` does not lose it
        scheme.setSyntax(QWebEngineUrlScheme.Syntax.HostAndPort)
        scheme.setDefaultPort(DEFAULT_PORTS[name])
        scheme.setFlags(flags)
        QWebEngineUrlScheme.registerScheme(scheme)


def schemes_registered() -> bool:
    return all(QWebEngineUrlScheme.schemeByName(n.encode()).name() for n in ASSET_SCHEMES.values())


class _Main(QObject):
    """Carries a worker thread's result to the UI thread (a queued signal), and sweeps the
    fetches of requests the engine dropped."""

    done = pyqtSignal(object)

    def __init__(self) -> None:
        super().__init__()
        self.done.connect(lambda cb: cb())
        self._sweep = QTimer(self)
        self._sweep.setInterval(SWEEP_MS)
        self._sweep.timeout.connect(self.sweep)

    def track(self, fetch: Fetch, job: QWebEngineUrlRequestJob) -> None:
        _ACTIVE[fetch] = job
        if not self._sweep.isActive():
            self._sweep.start()

    def sweep(self) -> None:
        for fetch, job in list(_ACTIVE.items()):
            if sip.isdeleted(job):
                del _ACTIVE[fetch]
                fetch.abort()
        if not _ACTIVE:
            self._sweep.stop()


_MAIN: list[_Main] = []  # made with the first handler, in the UI thread


def _to_main(callback: Callable[[], None]) -> None:
    _MAIN[0].done.emit(callback)


# runs the callback once a condition holds (at once if it does)
Wait = Callable[[Callable[[], None]], None]


@dataclass(frozen=True, slots=True)
class Verdict:
    limit: bool
    shared: bool
    first_party: str
    kind: str


@dataclass(slots=True)
class SessionAssets:
    """One session's state the interceptor and the scheme handler share (UI thread only)."""

    policy: AssetPolicy
    route: FetchRoute
    log_filtered: Callable[[str, int], None]  # (url, limit in KiB) of a dropped image
    # (url, error) of a fetch that failed: the engine shows only a broken resource
    log_failed: Callable[[str, str], None] = lambda url, error: None
    cookies: CookieJar = field(default_factory=CookieJar)
    failed_logged: set[str] = field(default_factory=set)  # this page load's
    store: SharedAssets | None = None  # the shared asset cache, and this session's partition
    partition: str = "direct"
    verdicts: OrderedDict[str, Verdict] = field(default_factory=OrderedDict)
    # the engine's headers for the real URL of an asset URL (the interceptor's first sight)
    sent: OrderedDict[str, dict[str, str]] = field(default_factory=OrderedDict)
    # a popup's first document held until its workers would get the identity: its URL -> the
    # wait (`worker_cdp.PageWorkers.when_ready`) until the interceptor sends it here, then its
    # asset URL -> the wait until the handler has its job (hold_first_load)
    first_loads: dict[str, Wait] = field(default_factory=dict)
    holding: dict[str, Wait] = field(default_factory=dict)
    # what this session's fetches took from the network (docs/decisions.md "Downloaded
    # bytes"); not a shared-cache hit, a failed or aborted fetch, nor an image dropped over
    # the limit (a blocked request)
    downloaded: int = 0

    def note(self, asset_url: str, verdict: Verdict) -> None:
        _bounded_put(self.verdicts, asset_url, verdict)

    def remember_headers(self, asset_url: str, headers: dict[str, str]) -> None:
        _bounded_put(self.sent, asset_url, headers)

    def dropped(self, url: str) -> None:
        # bounded by the session's filter events (one record per URL per load, then counted)
        self.log_filtered(url, self.policy.image_limit_bytes // 1024)

    def page_load(self) -> None:
        self.failed_logged.clear()

    def failed(self, url: str, error: str) -> None:
        if url in self.failed_logged or len(self.failed_logged) >= MAX_FAILED_RECORDS:
            return
        self.failed_logged.add(url)
        self.log_failed(url, error)

    def hold_first_load(self, url: str, wait: Wait) -> None:
        """The next main-frame GET of `url` goes through the scheme, whose handler redirects
        it back once `wait` runs its callback; until then that document does not exist, so no
        worker of it can start. Forgotten once `wait` is over, whether the request came or
        not (a blocked or posted navigation never comes)."""
        self.first_loads[url] = wait

        def over() -> None:
            if self.first_loads.get(url) is wait:
                del self.first_loads[url]

        wait(over)

    def first_load(self, url: str, asset_url: str) -> bool:
        """Whether the interceptor's main-frame request of `url` is a held first load (then
        it goes to `asset_url`)."""
        wait = self.first_loads.pop(url, None)
        if wait is None:
            return False
        self.holding[asset_url] = wait
        return True


V = TypeVar("V")


def _bounded_put(table: OrderedDict[str, V], key: str, value: V) -> None:
    table[key] = value
    table.move_to_end(key)
    while len(table) > MAX_VERDICTS:
        table.popitem(last=False)


def _cookie_of(c: QNetworkCookie) -> Cookie:
    same = c.sameSitePolicy()
    same_site = {
        QNetworkCookie.SameSite.None_: "none",
        QNetworkCookie.SameSite.Lax: "lax",
        QNetworkCookie.SameSite.Strict: "strict",
    }.get(same, "")
    expires = None if c.isSessionCookie() else float(c.expirationDate().toSecsSinceEpoch())
    return Cookie(
        name=bytes(c.name().data()).decode("latin-1"),
        value=bytes(c.value().data()).decode("latin-1"),
        domain=c.domain(),
        path=c.path() or "/",
        secure=c.isSecure(),
        same_site=same_site,
        expires=expires,
        http_only=c.isHttpOnly(),
    )


def qt_cookie(c: StagedCookie) -> tuple[QNetworkCookie, QUrl]:
    """A staged cookie as the cookie store's `setCookie` takes it: a host-only cookie has no
    domain attribute and names its host by the origin (a domain attribute would make it a
    domain cookie); a domain cookie keeps its leading dot."""
    cookie = QNetworkCookie(
        c.name.encode("latin-1", "replace"), c.value.encode("latin-1", "replace")
    )
    cookie.setPath(c.path or "/")
    cookie.setSecure(c.secure)
    cookie.setHttpOnly(c.http_only)
    if c.same_site is not None:
        cookie.setSameSitePolicy(
            {
                "none": QNetworkCookie.SameSite.None_,
                "lax": QNetworkCookie.SameSite.Lax,
                "strict": QNetworkCookie.SameSite.Strict,
            }[c.same_site]
        )
    if c.expires is not None:
        cookie.setExpirationDate(QDateTime.fromSecsSinceEpoch(int(c.expires)))
    host = c.domain.lstrip(".")
    origin = QUrl(f"{'https' if c.secure else 'http'}://{host}{c.path or '/'}")
    if c.domain.startswith("."):
        cookie.setDomain(c.domain)
    return cookie, origin


def track_cookies(profile: QWebEngineProfile, jar: CookieJar) -> None:
    store = profile.cookieStore()
    if store is None:
        return
    store.cookieAdded.connect(lambda c: jar.add(_cookie_of(c)))
    store.cookieRemoved.connect(lambda c: jar.remove(_cookie_of(c)))
    # persisted cookies are reported only once loaded
    store.loadAllCookies()


def _work(fetch: Fetch, store: SharedAssets | None, partition: str, kind: str) -> Fetched:
    """In a worker thread: the shared cache's copy when it has a fresh one, else the network
    (and the response stored when the rules allow)."""
    if store is None:
        # fetched for the image limit, or for sharing but its request headers excluded it
        return _leave_to_engine(fetch.run(), kind)
    hit = _hit(fetch, store, partition)
    if hit is not None:
        return hit
    with store.fetching(partition, fetch.url):
        # a concurrent miss of the same asset may have stored it meanwhile
        return _hit(fetch, store, partition) or _fetch_and_store(fetch, store, partition, kind)


def _hit(fetch: Fetch, store: SharedAssets, partition: str) -> Fetched | None:
    found = store.get(partition, fetch.url)
    if found is None:
        return None
    content_type, body = found
    limit = fetch.limit_bytes
    dropped = limit is not None and over_limit(len(body), 0, limit)
    return Fetched(
        200,
        {"content-type": content_type},
        body=b"" if dropped else body,
        dropped=dropped,
        hit=True,
    )


def _fetch_and_store(fetch: Fetch, store: SharedAssets, partition: str, kind: str) -> Fetched:
    got = fetch.run()
    if got.dropped:
        return got  # over the image limit: nothing to learn about sharing
    if _leave_to_engine(got, kind).native:
        return got
    if (
        got.location is None
        and storable(got.status, got.headers, len(got.body), store.max_entry) is None
    ):
        lifetime = (freshness_lifetime(got.headers) or 0.0) - _age(got.headers)
        store.put(partition, fetch.url, got.headers.get("content-type", ""), got.body, lifetime)
    else:
        store.not_shared.add(partition, fetch.url)
    return got


def _leave_to_engine(got: Fetched, kind: str) -> Fetched:
    """A stylesheet naming relative URLs is not served by the scheme, stored or not: they would
    resolve under the scheme's name. The handler redirects it back (`_to_engine`), which also
    remembers it as not shared."""
    if kind == "stylesheet" and got.status == 200 and refers_relatively(got.body):
        got.native = True
    return got


def _age(headers: dict[str, str]) -> float:
    try:
        return max(0.0, float(headers.get("age", "0").split(",")[0]))
    except ValueError:
        return 0.0


class AssetHandler(QWebEngineUrlSchemeHandler):
    def __init__(self, assets: SessionAssets, profile: QWebEngineProfile) -> None:
        super().__init__(profile)
        if not _MAIN:
            _MAIN.append(_Main())
        self.assets = assets
        self.profile = profile

    def requestStarted(self, job: QWebEngineUrlRequestJob | None) -> None:
        if job is None:
            return
        if sip.isdeleted(self.profile):
            # the session is going: its profile went before the engine's last requests
            job.fail(QWebEngineUrlRequestJob.Error.RequestAborted)
            return
        asset_url = job.requestUrl().toString()
        original = to_original(asset_url)
        held = self.assets.holding.pop(asset_url, None)
        if held is not None and original is not None:
            held(lambda: None if sip.isdeleted(job) else job.redirect(QUrl(original)))
            return
        if original is None or bytes(job.requestMethod().data()).upper() != b"GET":
            job.fail(QWebEngineUrlRequestJob.Error.RequestDenied)
            return
        headers = {
            bytes(k.data()).decode("latin-1"): bytes(v.data()).decode("latin-1")
            for k, v in job.requestHeaders().items()
        }
        # kept, not taken: two requests of one URL (two frames) may be in flight at once
        verdict = self.assets.verdicts.get(asset_url)
        if verdict is None:
            # the interceptor saw every request that reaches here; a verdict pushed out of the
            # bounded table is rebuilt: the limit only for what asks for an image, no sharing
            image = headers.get("Accept", "").startswith("image/")
            limited = image and self.assets.policy.image_mode == "over_limit"
            verdict = Verdict(limited, False, "", "image" if image else "other")
        if not verdict.limit and cors_script(verdict.kind, headers):
            self._to_engine(job, original)
            return
        cookie = self.assets.cookies.header(original, verdict.first_party)
        if cookie is not None:
            headers["Cookie"] = cookie
        limit = self.assets.policy.image_limit_bytes if verdict.limit else None
        store = self.assets.store
        if not verdict.shared or request_headers_eligible(headers) is not None:
            store = None
        source = job.initiator()
        initiator = source.toString() if not source.isEmpty() else verdict.first_party
        wire = engine_headers(
            url=original,
            kind=verdict.kind,
            initiator=initiator,
            given=self.assets.sent.get(asset_url, headers),
            accept_language=self.profile.httpAcceptLanguage(),
            cookie=cookie,
        )
        fetch = Fetch(original, wire, self.assets.route, limit_bytes=limit)
        try:
            future = _POOL.submit(_work, fetch, store, self.assets.partition, verdict.kind)
        except RuntimeError:
            # the app is exiting (the pool takes no more work) while the engine still asks
            job.fail(QWebEngineUrlRequestJob.Error.RequestAborted)
            return
        # A Python callable connected to the job's `destroyed` crashed the app (SIGSEGV): the
        # engine makes the job, so nothing keeps its wrapper alive, and once the wrapper fell
        # into a garbage cycle the collector cleared the callable with it while the engine
        # still held the job; the job's deletion then ran the cleared function. A job the
        # engine dropped is found by a sweep instead (`_Main.sweep`).
        _MAIN[0].track(fetch, job)

        def finished(fut: Future[Fetched]) -> None:
            _to_main(lambda: self._answer(job, original, fut, fetch, verdict))

        future.add_done_callback(finished)

    def _answer(
        self,
        job: QWebEngineUrlRequestJob,
        original: str,
        fut: Future[Fetched],
        fetch: Fetch,
        verdict: Verdict,
    ) -> None:
        # a request that came only for the shared cache (no image limit): the engine's own
        # network may fetch it instead
        engine_may = not verdict.limit
        _ACTIVE.pop(fetch, None)
        if sip.isdeleted(job):
            return  # the engine cancelled the request; its fetch was aborted
        if sip.isdeleted(self) or sip.isdeleted(self.profile):
            # the session went (deleted, rebuilt) while the fetch was finishing: nothing is
            # left to answer or to store cookies in (an exception here would abort the app)
            return
        # read, not raised: a raised exception's traceback holds this frame, and with it the
        # job's wrapper, in a reference cycle with the future
        exc = fut.exception()
        if isinstance(exc, Aborted):
            job.fail(QWebEngineUrlRequestJob.Error.RequestAborted)
            return
        if isinstance(exc, (OSError, ValueError)):
            if engine_may:
                # say, a certificate chain the engine completes (AIA) and OpenSSL does not
                self.assets.failed(original, f"{exc}; the engine fetched it itself")
                self._to_engine(job, original)
                return
            self.assets.failed(original, str(exc))
            job.fail(QWebEngineUrlRequestJob.Error.RequestFailed)
            return
        got = fut.result()  # any other exception is a bug: raised as before
        if not got.hit and not got.dropped:
            self.assets.downloaded += got.received
        self._store_cookies(original, got.set_cookies)
        if got.native:
            self._to_engine(job, original)
        elif got.location is not None:
            job.redirect(QUrl(got.location))
        elif got.dropped:
            self.assets.dropped(original)
            job.fail(QWebEngineUrlRequestJob.Error.RequestDenied)
        elif got.status >= 400 and engine_may and verdict.kind in BLOCKING_KINDS:
            # failing a request the interceptor redirected here crashed the renderer for a
            # parser-blocking script (QtWebEngine 6.11.2, measured: test_e2e_shared_assets);
            # the engine fetches it again and the page gets the site's own answer. An image or
            # a font fails as before (one request, no crash).
            self._to_engine(job, original)
        elif got.status >= 400:
            job.fail(
                QWebEngineUrlRequestJob.Error.UrlNotFound
                if got.status in (404, 410)
                else QWebEngineUrlRequestJob.Error.RequestFailed
            )
        else:
            self._reply(job, got.headers.get("content-type", ""), got.body)

    def _to_engine(self, job: QWebEngineUrlRequestJob, original: str) -> None:
        """The engine's own network fetches it: remembered as not shared (the interceptor
        then leaves the URL alone), and the request redirected back to its original URL."""
        store = self.assets.store
        if store is not None:
            store.not_shared.add(self.assets.partition, original)
        job.redirect(QUrl(original))

    def _reply(self, job: QWebEngineUrlRequestJob, content_type: str, body: bytes) -> None:
        buf = QBuffer(job)
        buf.setData(QByteArray(body))
        buf.open(QIODevice.OpenModeFlag.ReadOnly)
        mime = content_type.split(";", 1)[0].strip() or "application/octet-stream"
        job.reply(mime.encode("latin-1", "replace"), buf)

    def _store_cookies(self, url: str, set_cookies: list[str]) -> None:
        """The response's cookies go to the session's cookie store, as the engine's own fetch
        would have put them there."""
        store = self.profile.cookieStore()
        if store is None or not set_cookies:
            return
        for raw in set_cookies:
            for c in QNetworkCookie.parseCookies(QByteArray(raw.encode("latin-1", "replace"))):
                store.setCookie(c, QUrl(url))
