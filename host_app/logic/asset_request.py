"""The request an asset fetch sends, made to be the one the engine would have sent (no Qt).

The asset scheme's job sees only part of the engine's request headers (User-Agent, Accept,
Referer, the client hints, Origin for a CORS request); the engine adds the rest on its network
stack: Sec-Fetch-Site/Mode/Dest, Accept-Encoding, Accept-Language, and its own order. A fetch
that sent less, or another order, would tell a site that something other than the browser
fetched its asset (measured on Chromium 140: tests/host/test_e2e_asset_wire.py compares the two
on one server).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

from .assets import site, to_original

# Chromium's Accept-Encoding for every HTTP(S) subresource; the fetch decodes all four
ACCEPT_ENCODING = "gzip, deflate, br, zstd"
# Sec-Fetch-Dest by the interceptor's kind (a favicon is fetched as an image)
DESTINATIONS = {
    "image": "image",
    "favicon": "image",
    "stylesheet": "style",
    "script": "script",
    "font": "font",
}
# The order Chromium 140 writes a subresource's headers in (measured over HTTP/1.1; on HTTP/2
# the same order, lower-cased, without Connection). Host comes from the transport.
_ORDER = (
    "connection",
    "origin",
    "sec-ch-ua-platform",
    "user-agent",
    "sec-ch-ua",
    "sec-ch-ua-mobile",
    # client hints a site asked for (Accept-CH) follow the low-entropy ones
    "*",
    "accept",
    "sec-fetch-site",
    "sec-fetch-mode",
    "sec-fetch-dest",
    "referer",
    "accept-encoding",
    "accept-language",
    "cookie",
)
# what the job may carry that the fetch sets itself, or that never goes on the wire
_OWN = frozenset(
    {
        "host",
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "te",
        "upgrade",
        "accept-encoding",
        "accept-language",
        "cookie",
        "sec-fetch-site",
        "sec-fetch-mode",
        "sec-fetch-dest",
        "sec-fetch-user",
    }
)


def _origin(url: str) -> tuple[str, str, int | None] | None:
    parts = urlsplit(to_original(url) or url)
    if not parts.scheme or not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:
        return None
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return parts.scheme.lower(), parts.hostname.lower(), port if port is not None else default


def fetch_site(url: str, initiator: str) -> str:
    """Sec-Fetch-Site of a request for `url` made by a document of origin `initiator`."""
    target, source = _origin(url), _origin(initiator) if initiator else None
    if source is None or target is None:
        return "none" if not initiator else "cross-site"
    if source == target:
        return "same-origin"
    if source[0] == target[0] and site(source[1]) == site(target[1]):
        return "same-site"
    return "cross-site"


def trustworthy(url: str) -> bool:
    """A potentially trustworthy URL (https, or http to a loopback host): Chromium sends the
    Sec-Fetch headers only to those."""
    parts = urlsplit(url)
    if parts.scheme.lower() == "https":
        return True
    host = (parts.hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def engine_headers(
    *,
    url: str,
    kind: str,
    initiator: str,
    given: Mapping[str, str],
    accept_language: str,
    cookie: str | None,
) -> list[tuple[str, str]]:
    """The headers, in the engine's order, of a GET of `url` (an original http/https URL) of
    `kind` from a page of origin `initiator`; `given` are the job's headers (the engine's
    User-Agent, Accept, Referer, client hints, and Origin when the request is CORS)."""
    named: dict[str, tuple[str, str]] = {}
    for name, value in given.items():
        low = name.lower()
        if low in _OWN:
            continue
        # a stylesheet served by the scheme is the referrer of its fonts and backgrounds
        named[low] = (name, (to_original(value) or value) if low == "referer" else value)
    cors = "origin" in named
    # HTTP/1.1 only: the fetch leaves it out of an HTTP/2 request, as the engine does
    named["connection"] = ("Connection", "keep-alive")
    if trustworthy(url):
        named["sec-fetch-site"] = ("Sec-Fetch-Site", fetch_site(url, initiator))
        named["sec-fetch-mode"] = ("Sec-Fetch-Mode", "cors" if cors else "no-cors")
        named["sec-fetch-dest"] = ("Sec-Fetch-Dest", DESTINATIONS.get(kind, "empty"))
    named["accept-encoding"] = ("Accept-Encoding", ACCEPT_ENCODING)
    if accept_language:
        named["accept-language"] = ("Accept-Language", accept_language)
    if cookie:
        named["cookie"] = ("Cookie", cookie)
    known = set(_ORDER)
    out: list[tuple[str, str]] = []
    for low in _ORDER:
        if low == "*":
            out.extend(v for k, v in named.items() if k not in known)
        elif low in named:
            out.append(named[low])
    return out
