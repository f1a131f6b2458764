"""URLs and output paths of browser operations (spec 1 §4, docs/decisions.md)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bridge_protocol import SvcError, outputs

from .api import validation_error

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(?![0-9])")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(raw: str, field: str = "url") -> str:
    """An absolute http(s) URL: scheme-less input gets https:// (http:// for a loopback host),
    scheme and host lower-cased, default port dropped, an empty path made `/`."""
    text = raw.strip()
    if not text or any(ord(c) < 0x21 or ord(c) == 0x7F for c in text):
        raise validation_error(f"{field} must be an HTTP(S) URL without spaces", field)
    match = _SCHEME.match(text)
    if match is None:
        bare_host = urlsplit("//" + text).hostname or ""
        text = ("http://" if bare_host in LOCAL_HOSTS else "https://") + text
    elif match.group(1).lower() not in _DEFAULT_PORTS or text[match.end() :][:2] != "//":
        raise validation_error(f"{field} must be an http or https URL, not {raw!r}", field)
    parts = urlsplit(text)
    try:
        port = parts.port
    except ValueError:
        raise validation_error(f"{field} has an invalid port: {raw!r}", field) from None
    host = parts.hostname
    if not host:
        raise validation_error(f"{field} has no host: {raw!r}", field)
    scheme = parts.scheme.lower()
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc += f":{port}"
    if parts.username is not None:
        userinfo = parts.netloc.rpartition("@")[0]
        netloc = f"{userinfo}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, parts.fragment))


def same_url(a: str, b: str) -> bool:
    try:
        return normalize_url(a) == normalize_url(b)
    except SvcError:
        return a == b


def output_path(data_dir: Path, raw: str | None, default: str) -> str:
    """Absolute: a relative `raw` against the agent's working directory; absent: `default` under
    {data_dir} (docs/decisions.md, "Browser operations"); refused by the one output policy
    (bridge_protocol.outputs: regular files only, nothing under /proc, /sys, /dev)."""
    if raw is not None and raw.endswith(("/", os.sep)):
        raise validation_error("output must name a file, not a directory", "output")
    path = (
        str(data_dir / default) if raw is None else os.path.abspath(os.path.join(os.getcwd(), raw))
    )
    try:
        return outputs.check(path)
    except outputs.OutputPathError as exc:
        raise validation_error(str(exc), "output") from None
