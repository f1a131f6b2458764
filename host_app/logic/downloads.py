"""Downloads: the file name a server suggests made safe, the numbered name that never overwrites,
the report the agent reads, and when an operation still has a download to wait for. Qt-free;
host_app/engine/downloads.py is the Qt edge.

Files go to `{data_dir}/Downloads/<session id>/` under the server's name; a taken name gets
` (1)`, ` (2)`, ... before its extension (docs/decisions.md "Downloads").
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from .page_events import PageEvent, Scalar

FALLBACK_NAME = "download"
NAME_LIMIT = 200  # UTF-8 bytes: leaves room for " (N)" under the usual 255-byte file name limit
MAX_NUMBER = 9999
# Characters that are path separators or reserved on some file system the folder may live on.
_RESERVED = set('/\\:*?"<>|')
TRUST = "untrusted_website_content"


class DownloadState(StrEnum):
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FAILED = "failed"


def safe_name(suggested: str) -> str:
    """A file name that stays inside the downloads folder: the last path part of `suggested`,
    without control characters or reserved characters, not hidden, not `.`/`..`, bounded."""
    last = suggested.replace("\\", "/").rsplit("/", 1)[-1]
    kept = []
    for ch in last:
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") or ch in _RESERVED:
            kept.append("_" if ch in _RESERVED else "")
        else:
            kept.append(ch)
    name = "".join(kept).strip().lstrip(".").rstrip(". ")
    if not name or set(name) <= {"_"}:
        return FALLBACK_NAME
    return _bounded(name, NAME_LIMIT)


def _split(name: str) -> tuple[str, str]:
    dot = name.rfind(".")
    if dot <= 0:
        return name, ""
    return name[:dot], name[dot:]


def _bounded(name: str, limit: int) -> str:
    if len(name.encode()) <= limit:
        return name
    stem, ext = _split(name)
    if len(ext.encode()) > limit // 2:
        stem, ext = name, ""
    room = limit - len(ext.encode())
    return stem.encode()[:room].decode("utf-8", "ignore") + ext


def numbered(name: str, n: int) -> str:
    """`report.csv`, `report (1).csv`, `report (2).csv`, ..."""
    if n == 0:
        return name
    stem, ext = _split(name)
    return f"{stem} ({n}){ext}"


def free_name(name: str, taken: Callable[[str], bool]) -> str:
    """The first of `name`, `name (1)`, ... for which `taken` is false."""
    for n in range(MAX_NUMBER + 1):
        candidate = numbered(name, n)
        if not taken(candidate):
            return candidate
    raise FileExistsError(f"{MAX_NUMBER} files named like {name!r} already exist")


@dataclass(frozen=True, slots=True)
class Download:
    url: str
    file_name: str  # the name chosen in the folder
    path: str
    mime_type: str
    state: DownloadState
    bytesize: int
    total: int  # -1 when the server did not say
    reason: str = ""  # why it failed


def report(d: Download) -> PageEvent:
    """The observation content entry. A completed download carries `output_path` (clients link
    saved files by that key, as for screenshots); a failed one only its name and reason."""
    details: dict[str, Scalar] = {"state": d.state.value, "file_name": d.file_name, "url": d.url}
    if d.state is DownloadState.COMPLETED:
        details["output_path"] = d.path
    details["bytesize"] = d.bytesize
    if d.mime_type:
        details["mime_type"] = d.mime_type
    if d.state is DownloadState.FAILED and d.reason:
        details["reason"] = d.reason
    details["trust"] = TRUST  # the name and URL come from the website
    return PageEvent("download", f"{d.file_name} ({d.state.value})", details)


def log_message(d: Download) -> str:
    if d.state is DownloadState.FAILED:
        return f"download of {d.url} failed: {d.reason}"
    return f"download of {d.url} saved to {d.path} ({d.bytesize} bytes)"


@dataclass(frozen=True, slots=True)
class Mark:
    """Counters at the start of an operation's input."""

    fetches: int  # main-frame requests made by the download manager (`<a download>`)
    requested: int  # downloads the profile was asked for


def expects_download(mark: Mark, now: Mark) -> bool:
    """A download fetch and no download yet: an `<a download>` click (Chromium fetches it
    without a load) whose download has not been announced. Counting main-frame requests against
    load starts instead took a server redirect for one: its second request is not typed as a
    redirect, so every form post answered by a 302 waited the whole announce bound."""
    return now.fetches > mark.fetches and now.requested == mark.requested
