"""URL normalization of the clients (spec 2 §4 "Option rules"), and file URIs of outputs.

The rule is the agent's own (bridge_protocol.urls). The clients apply it before sending so that
a bad URL is a usage error, answered without starting the app.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from bridge_protocol.urls import normalize_url

__all__ = ["file_uri", "normalize_url", "path_of_file_uri"]


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
