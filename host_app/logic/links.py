"""URL normalization and the `fuzzy-link` match of the click-link action."""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher
from urllib.parse import quote, unquote, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
_SAFE_PATH = "/:@!$&'()*+,;=-._~"
_SAFE_QUERY = _SAFE_PATH + "?"


def normalize_url(url: str) -> str | None:
    """The normalized absolute HTTP(S) form of `url`, or None when it is not HTTP(S).

    Scheme and host lower-cased, the default port dropped, an empty path made `/`, percent
    escapes re-encoded one way (upper-case hex, unreserved characters decoded); query and
    fragment kept.
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
    path = quote(unquote(parts.path), safe=_SAFE_PATH) or "/"
    query = quote(unquote(parts.query), safe=_SAFE_QUERY + "=&")
    fragment = quote(unquote(parts.fragment), safe=_SAFE_QUERY + "=&#")
    return urlunsplit((scheme, netloc, path, query, fragment))


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
