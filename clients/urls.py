"""URL normalization of the clients (spec 2 §4 "Option rules"), and file URIs of outputs.

The rules are the agent's (docs/decisions.md "URL normalization"): trimmed; no scheme means
`https://`, or `http://` for `localhost`, `127.0.0.1` and `::1`; only http and https; scheme and
host lower-cased, the default port dropped, an empty path made `/`. The clients apply them before
sending so that a bad URL is a usage error, answered without starting the app.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit, urlunsplit

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(?![0-9])")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(raw: str) -> str:
    """The absolute http(s) URL for `raw`; ValueError with a one-line reason otherwise."""
    text = raw.strip()
    if not text:
        raise ValueError("the URL is empty")
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in text):
        raise ValueError(f"the URL {raw!r} contains spaces or control characters")
    match = _SCHEME.match(text)
    if match is None:
        bare_host = urlsplit("//" + text).hostname or ""
        text = ("http://" if bare_host in LOCAL_HOSTS else "https://") + text
    elif match.group(1).lower() not in _DEFAULT_PORTS or text[match.end() :][:2] != "//":
        raise ValueError(f"only http and https URLs are accepted, not {raw!r}")
    parts = urlsplit(text)
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
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, parts.fragment))


def file_uri(path: str) -> str:
    """The absolute, percent-encoded file:/// URI of an absolute path."""
    from pathlib import PurePosixPath

    return PurePosixPath(path).as_uri()


def path_of_file_uri(uri: str) -> str:
    """The absolute local path of a file:/// URI; ValueError for anything else."""
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
        raise ValueError("output_uri must be an absolute local file:/// URI")
    if not uri.lower().startswith(("file:///", "file://localhost/")):
        raise ValueError("output_uri must be an absolute local file:/// URI")
    if parts.query or parts.fragment:
        raise ValueError("output_uri must not carry a query or fragment")
    path = unquote(parts.path)
    if not path.startswith("/") or path.endswith("/") or "\x00" in path:
        raise ValueError("output_uri must name a file by its absolute path")
    return path
