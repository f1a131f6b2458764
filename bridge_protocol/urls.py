"""The URL rule of the agent and the clients (spec 1 §4 `url`, spec 2 §4 "Option rules";
docs/decisions.md "URL normalization"), one function so that the two can never disagree.

Trimmed; no scheme means `https://`, or `http://` for `localhost`, `127.0.0.1` and `::1`; only
http and https; scheme and host lower-cased, the default port dropped, an empty path made `/`; a
space in the path, query or fragment is sent as `%20`, as a browser's address bar does (an agent
that builds `search?q=two words` means those words); one in the host, or a control character
anywhere, is refused.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(?![0-9])")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(raw: str) -> str:
    """The absolute http(s) URL for `raw`; ValueError with a one-line reason otherwise."""
    text = raw.strip()
    if not text:
        raise ValueError("the URL is empty")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise ValueError(f"the URL {raw!r} contains control characters")
    match = _SCHEME.match(text)
    if match is None:
        bare_host = urlsplit("//" + text).hostname or ""
        text = ("http://" if bare_host in LOCAL_HOSTS else "https://") + text
    elif match.group(1).lower() not in _DEFAULT_PORTS or text[match.end() :][:2] != "//":
        raise ValueError(f"only http and https URLs are accepted, not {raw!r}")
    parts = urlsplit(text)
    if " " in parts.netloc:
        raise ValueError(f"the URL {raw!r} has a space in its host")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"the URL {raw!r} has an invalid port") from None
    host = parts.hostname
    if not host:
        raise ValueError(f"the URL {raw!r} has no host")
    scheme = parts.scheme.lower()
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc += f":{port}"
    if parts.username is not None:
        netloc = f"{parts.netloc.rpartition('@')[0]}@{netloc}"
    path, query, fragment = (
        p.replace(" ", "%20") for p in (parts.path, parts.query, parts.fragment)
    )
    return urlunsplit((scheme, netloc, path or "/", query, fragment))
