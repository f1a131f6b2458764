"""URL normalization and the `fuzzy-link` match of the click-link action."""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from urllib.parse import quote, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str) -> str | None:
    """The normalized absolute HTTP(S) form of `url`, or None when it is not HTTP(S).

    Scheme and host lower-cased, the default port dropped, an empty path made `/`; in the path,
    query and fragment, escapes of unreserved characters decoded and every other escape kept
    with upper-case hex (RFC 3986 equivalence, section 6.2.2), and characters a URL cannot hold
    (spaces, controls, non-ASCII) percent-encoded as UTF-8. Never an escape of a reserved
    character decoded: `%2F`, `%3F`, `%26`, `%3D`, `%23` keep their meaning (data, not syntax).
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if parts.username is not None:
        userinfo = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{userinfo}@{netloc}"
    path = _escapes(parts.path) or "/"
    return urlunsplit((scheme, netloc, path, _escapes(parts.query), _escapes(parts.fragment)))


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# what a path, query or fragment may hold literally (RFC 3986 pchar, "/", "?"; "#" only in a
# fragment, where urlsplit leaves it) besides unreserved characters and escapes
_LITERAL = frozenset("!$&'()*+,;=:@/?#[]")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


def _escapes(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        m = _ESCAPE.match(text, i) if c == "%" else None
        if m is not None:
            decoded = chr(int(m.group(1), 16))
            out.append(decoded if decoded in _UNRESERVED else "%" + m.group(1).upper())
            i += 3
            continue
        if c in _UNRESERVED or c in _LITERAL or c == "%":
            out.append(c)  # a lone "%" stays, as browsers leave it
        else:
            out.append(quote(c, safe=""))
        i += 1
    return "".join(out)


def same_document(a: str, b: str) -> bool:
    """True when `a` and `b` differ at most by their fragment."""
    na, nb = normalize_url(a), normalize_url(b)
    if na is None or nb is None:
        return False
    return na.split("#", 1)[0] == nb.split("#", 1)[0]


def has_fragment(url: str) -> bool:
    return "#" in url


def similarity(a: str, b: str) -> float:
    if a == b:
        return 1.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def best_link(
    wanted: str, hrefs: Sequence[tuple[int, str]], threshold: float
) -> tuple[int, str, float] | None:
    """The anchor (snapshot index, href, score) whose normalized href best matches `wanted`.

    Threshold 1 needs an exact normalized match; otherwise the score is difflib's ratio over the
    normalized URLs and the first anchor in document order wins ties. None when no anchor scores
    at least `threshold`.
    """
    target = normalize_url(wanted)
    if target is None:
        return None
    best: tuple[int, str, float] | None = None
    for index, href in hrefs:
        norm = normalize_url(href)
        if norm is None:
            continue
        score = 1.0 if norm == target else similarity(norm, target)
        if threshold >= 1.0 and score < 1.0:
            continue
        if score >= threshold and (best is None or score > best[2]):
            best = (index, href, score)
            if score == 1.0:
                break
    return best
