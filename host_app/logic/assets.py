"""Which requests go through the app's asset scheme, and the rules that scheme applies (no Qt):
the image size limit of `over_limit` and the shared asset cache's eligibility and storability
(spec 1 §1 "Filtering", "Shared asset cache"; docs/architecture.md "Assets").

The engine lets the request interceptor redirect a request to a custom scheme whose handler
answers it from Python. The asset URL is the original with only its scheme renamed
(`https://h/a.png` -> `svcasset-https://h/a.png`): host, port, path and query stay, so a relative
URL inside a stylesheet served that way resolves to an asset URL of the same host and the
original is recovered exactly.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Literal
from urllib.parse import urlsplit

from publicsuffixlist import PublicSuffixList

from bridge_protocol import SessionSettings

ASSET_PREFIX = "svcasset-"
ASSET_SCHEMES = {"http": "svcasset-http", "https": "svcasset-https"}
ORIGINAL_SCHEMES = {v: k for k, v in ASSET_SCHEMES.items()}
DEFAULT_PORTS = {"svcasset-http": 80, "svcasset-https": 443}

# What the interceptor's resource types become here; everything else is "other".
Kind = Literal["image", "stylesheet", "script", "font", "favicon", "other"]
SHARED_KINDS: frozenset[str] = frozenset({"image", "stylesheet", "script", "font", "favicon"})

SHARED_MAX_BYTES = 512 * 1024 * 1024
SHARED_MAX_ENTRY = 32 * 1024 * 1024


def to_asset(url: str) -> str | None:
    """The asset URL of an http(s) URL; None for any other scheme."""
    scheme, sep, rest = url.partition(":")
    target = ASSET_SCHEMES.get(scheme.lower())
    return f"{target}{sep}{rest}" if target and sep else None


def to_original(url: str) -> str | None:
    """The http(s) URL an asset URL stands for; None when `url` is not an asset URL."""
    scheme, sep, rest = url.partition(":")
    target = ORIGINAL_SCHEMES.get(scheme.lower())
    return f"{target}{sep}{rest}" if target and sep else None


class Via(Enum):
    """What the interceptor does with a request after the blocking rules passed it."""

    NATIVE = "native"  # the engine's own network stack (and the session's private cache)
    ASSET = "asset"  # the asset scheme: redirect an http(s) URL, keep an asset URL
    BACK = "back"  # an asset URL that must go native: redirect it to its original URL


@dataclass(frozen=True, slots=True)
class AssetPolicy:
    """A session's part of the decision (its settings and the app's switch)."""

    image_mode: str = "none"  # none / all / over_limit
    image_limit_bytes: int = 0
    shared_cache: bool = False

    def limits(self, kind: str) -> bool:
        return kind == "image" and self.image_mode == "over_limit"


def route(
    policy: AssetPolicy,
    *,
    url: str,
    method: str,
    kind: str,
    has_cookie: bool,
    not_shared: bool = False,
) -> tuple[Via, bool, bool]:
    """(what to do, apply the image limit, use the shared cache) for one request the blocking
    rules passed. Only images of `over_limit` sessions and shared-cache-eligible requests ever
    reach the scheme; every other request of every session stays native, as before.
    `not_shared`: the URL's last answer could not be shared (`NotShared`)."""
    original = to_original(url)
    limit = policy.limits(kind) and method.upper() == "GET"
    if original is None and not limit and not policy.shared_cache:
        return Via.NATIVE, False, False  # the usual case, decided without parsing the URL
    scheme = urlsplit(original or url).scheme.lower()
    if scheme not in ASSET_SCHEMES:
        return Via.NATIVE, False, False
    shared = (
        policy.shared_cache
        and not not_shared
        and shared_request_eligible(method=method, kind=kind, has_cookie=has_cookie)
    )
    wanted = limit or shared
    if original is not None:
        return (Via.ASSET if wanted else Via.BACK), limit, shared
    return (Via.ASSET if wanted else Via.NATIVE), limit, shared


# -- the image size limit -----------------------------------------------------------------------


def over_limit(content_length: int | None, read: int, limit_bytes: int) -> bool:
    """Is the image over the limit: by its declared length, or by the bytes read so far (a body
    without a length is read only until one byte past the limit)."""
    if content_length is not None and content_length > limit_bytes:
        return True
    return read > limit_bytes


# -- cookies the session holds (mirrored from its cookie store) ---------------------------------


@dataclass(frozen=True, slots=True)
class Cookie:
    name: str
    value: str
    domain: str  # ".example.com" for a domain cookie, "example.com" for a host-only one
    path: str
    secure: bool
    same_site: str  # "none", "lax", "strict" or "" (unspecified: Lax, as Chromium does)
    expires: float | None  # epoch seconds; None for a session cookie
    http_only: bool = False

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.name, self.domain.lower(), self.path)


def _domain_matches(host: str, domain: str) -> bool:
    host, domain = host.lower(), domain.lower()
    if domain.startswith("."):
        bare = domain[1:]
        return host == bare or host.endswith(domain)
    return host == domain


def _path_matches(path: str, cookie_path: str) -> bool:
    if path == cookie_path or not cookie_path:
        return True
    if path.startswith(cookie_path):
        return cookie_path.endswith("/") or path[len(cookie_path)] == "/"
    return False


@functools.cache
def _suffixes() -> PublicSuffixList:
    return PublicSuffixList()  # the list the package ships (no download)


def site(host: str) -> str:
    """The registrable domain ("schemeless site") of a host, as browsers compute it with the
    public suffix list; an IP address, a public suffix itself or a single label is its own."""
    host = host.lower().strip("[]").rstrip(".")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return host
    return _suffixes().privatesuffix(host) or host


class CookieJar:
    """The session's cookies as its cookie store reports them (added and removed). The request
    interceptor cannot see request headers, so a URL with a matching cookie is known here."""

    def __init__(self) -> None:
        self._cookies: dict[tuple[str, str, str], Cookie] = {}

    def add(self, cookie: Cookie) -> None:
        self._cookies[cookie.key] = cookie

    def remove(self, cookie: Cookie) -> None:
        self._cookies.pop(cookie.key, None)

    def clear(self) -> None:
        self._cookies.clear()

    def __len__(self) -> int:
        return len(self._cookies)

    def all(self) -> list[Cookie]:
        """Every cookie the store holds (a sign-in to save)."""
        return list(self._cookies.values())

    def matching(self, url: str, now: float | None = None) -> list[Cookie]:
        """Every live cookie whose domain, path and Secure flag fit `url`, whatever SameSite
        says: the shared cache's "carries cookies" is this list being non-empty."""
        if not self._cookies:
            return []
        parts = urlsplit(to_original(url) or url)
        host, path = parts.hostname or "", parts.path or "/"
        https = parts.scheme.lower() == "https"
        t = time.time() if now is None else now
        return [
            c
            for c in self._cookies.values()
            if _domain_matches(host, c.domain)
            and _path_matches(path, c.path)
            and (https or not c.secure)
            and (c.expires is None or c.expires > t)
        ]

    def header(self, url: str, first_party: str, now: float | None = None) -> str | None:
        """The Cookie header the engine would send with a subresource request for `url` from a
        page of `first_party`: Strict and Lax (the default) cookies only same-site (by the
        public suffix list), longest paths first."""
        cookies = self.matching(url, now)
        if not cookies:
            return None
        host = urlsplit(to_original(url) or url).hostname or ""
        top = urlsplit(to_original(first_party) or first_party)
        same_site = bool(top.hostname) and site(top.hostname or "") == site(host)
        sent = [c for c in cookies if c.same_site == "none" or same_site]
        if not sent:
            return None
        sent.sort(key=lambda c: -len(c.path))
        return "; ".join(f"{c.name}={c.value}" for c in sent)


# -- the shared asset cache's rules ----------------------------------------------------------------


NOT_SHARED_TTL = 3600.0
NOT_SHARED_MAX = 10_000


class NotShared:
    """(partition, URL)s whose last answer could not be shared (not public, personalized,
    too large, a redirect...): for NOT_SHARED_TTL seconds their requests stay on the engine's
    own network and private cache. Without it, such an asset went through the asset scheme on
    every page load, was stored nowhere and was fetched again each time. Bounded (oldest out);
    written by the fetch threads, read by the interceptor."""

    def __init__(
        self,
        ttl: float = NOT_SHARED_TTL,
        max_entries: int = NOT_SHARED_MAX,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self.clock = clock
        self._lock = threading.Lock()
        self._until: OrderedDict[tuple[str, str], float] = OrderedDict()

    def add(self, partition: str, url: str) -> None:
        key = (partition, url)
        with self._lock:
            self._until.pop(key, None)
            self._until[key] = self.clock() + self.ttl
            while len(self._until) > self.max_entries:
                self._until.popitem(last=False)

    def __contains__(self, key: tuple[str, str]) -> bool:
        with self._lock:
            until = self._until.get(key)
            if until is None:
                return False
            if until <= self.clock():
                del self._until[key]
                return False
            return True

    def __len__(self) -> int:
        return len(self._until)

    def clear(self) -> None:
        with self._lock:
            self._until.clear()


def shared_request_eligible(*, method: str, kind: str, has_cookie: bool) -> bool:
    """What the interceptor can judge: an HTTP(S) GET of an image, stylesheet, script, font or
    favicon with no cookie of the session for its URL."""
    return method.upper() == "GET" and kind in SHARED_KINDS and not has_cookie


_REQUEST_EXCLUDED = (
    "authorization",
    "proxy-authorization",
    "cookie",
    "range",
    "if-range",
    "if-none-match",
    "if-modified-since",
    "if-match",
    "if-unmodified-since",
)


def _directives(value: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in value.split(","):
        name, _, arg = part.strip().partition("=")
        if name:
            out[name.strip().lower()] = arg.strip().strip('"')
    return out


def request_headers_eligible(headers: dict[str, str]) -> str | None:
    """Why the request's own headers exclude it from the shared cache (None: they do not):
    authorization, cookies, ranges, validators, or a no-cache directive."""
    low = {k.lower(): v for k, v in headers.items()}
    for name in _REQUEST_EXCLUDED:
        if name in low:
            return name
    cc = _directives(low.get("cache-control", ""))
    if "no-cache" in cc or "no-store" in cc or ("max-age" in cc and cc["max-age"] == "0"):
        return "no-cache"
    if "no-cache" in low.get("pragma", "").lower():
        return "no-cache"
    return None


def freshness_lifetime(headers: dict[str, str]) -> float | None:
    """Seconds a response stays fresh in a shared cache (s-maxage, then max-age), None when it
    names none: Expires is not read, heuristic freshness is not used."""
    cc = _directives(headers.get("cache-control", ""))
    for name in ("s-maxage", "max-age"):
        if name in cc:
            try:
                return max(0.0, float(int(cc[name])))
            except ValueError:
                return None
    return None


def storable(  # noqa: PLR0911  one return per reason it may not be stored
    status: int, headers: dict[str, str], size: int | None, max_entry: int = SHARED_MAX_ENTRY
) -> str | None:
    """Why a response may not be stored in the shared cache (None: it may). `headers` have
    lower-case names. Stored only when fresh, explicitly public, status 200, identity-encoded
    and at most `max_entry` bytes; never personalized (Vary: Cookie, Set-Cookie) or a
    Content-Disposition response."""
    if status != 200:
        return "status"
    cc = _directives(headers.get("cache-control", ""))
    if "public" not in cc:
        return "not_public"
    if {"private", "no-store", "no-cache"} & cc.keys():
        return "not_public"
    lifetime = freshness_lifetime(headers)
    age = _int(headers.get("age")) or 0
    if lifetime is None or age >= lifetime:
        return "not_fresh"
    if headers.get("content-encoding", "identity").strip().lower() not in ("", "identity"):
        return "encoded"
    vary = {v.strip().lower() for v in headers.get("vary", "").split(",") if v.strip()}
    if "cookie" in vary or "*" in vary:
        return "vary_cookie"
    # one stored copy serves sessions of other identities (User-Agent, languages): a response
    # that varies on anything but the encoding (a stored one is identity) is not shared
    if vary - {"accept-encoding"}:
        return "vary"
    if "set-cookie" in headers:
        return "set_cookie"
    if "content-disposition" in headers:
        return "content_disposition"
    if size is None or size > max_entry:
        return "too_large"
    return None


# -- what would show the asset scheme to the page -------------------------------------------

_CSS_URL = re.compile(rb"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))""", re.IGNORECASE)
_CSS_IMPORT = re.compile(rb"""@import\s+(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_ABSOLUTE = re.compile(rb"^\s*(?:[a-z][a-z0-9+.-]*:|#)", re.IGNORECASE)


def refers_relatively(stylesheet: bytes) -> bool:
    """Does a stylesheet name anything by a URL relative to its own (`url(img/a.png)`,
    `url(//cdn/x)`, `@import "b.css"`, the strings of `image-set`)? Served by the asset scheme,
    such a URL resolves under the scheme's name: the page reads it back (computed styles,
    Resource Timing), and the engine requests it without the Referer and client hints of a real
    request (measured). Comments are not skipped: a false positive only costs sharing."""
    if b"image-set(" in stylesheet.lower():
        return True
    for found in (*_CSS_URL.finditer(stylesheet), *_CSS_IMPORT.finditer(stylesheet)):
        target = next((g for g in found.groups() if g is not None), b"")
        if target.strip() and not _ABSOLUTE.match(target):
            return True
    return False


def cors_script(kind: str, headers: Mapping[str, str]) -> bool:
    """A script requested in CORS mode (a module, or `crossorigin`): a module's
    `import.meta.url` and its relative imports follow the URL that served it, so the asset
    scheme's name would show (measured); the engine fetches those itself."""
    return kind == "script" and any(k.lower() == "origin" for k in headers)


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def shared_partition(settings: SessionSettings) -> str:
    """The session's partition of the shared asset cache (spec 1 §1): direct sessions share
    `direct`, the sessions of one proxy share `proxy:<its stable id>`. A proxied session whose
    settings name no proxy id gets a partition of its own listener (shares with no one)."""
    if settings.proxy_port is None:
        return "direct"
    if settings.proxy_id is not None:
        return f"proxy:{settings.proxy_id}"
    return f"proxy-listener:{settings.proxy_port}"
