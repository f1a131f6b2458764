"""The app's temporary directory for generated outputs (spec 1 §4 "Screenshots": without `output`
the file goes under the app's temporary screenshots directory; captures likewise):
`{data_dir}/Temporary/Screenshots` and `{data_dir}/Temporary/Captures`, pruned by age and by total
size (docs/decisions.md "Generated output paths").

What to remove is decided by `plan_prune`, pure over (path, mtime, size) entries; `prune` reads
the folders and removes; `TemporaryOutputs` runs it, at most once a minute, when an operation is
handed a generated path (before its file is written, so the new file is never a candidate).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import trio

TEMPORARY_DIR = "Temporary"
Kind = Literal["Captures", "Screenshots"]
KINDS: tuple[Kind, ...] = ("Captures", "Screenshots")


@dataclass(frozen=True, slots=True)
class Bounds:
    """A file older than `max_age` seconds goes; beyond `max_bytes` in all, the oldest go; a file
    younger than `grace` seconds stays whatever the size (its client may not have read it yet)."""

    max_age: float = 24 * 3600.0
    max_bytes: int = 1024**3
    grace: float = 300.0


DEFAULT_BOUNDS = Bounds()
PRUNE_EVERY = 60.0  # seconds between two prunes at most


@dataclass(frozen=True, slots=True)
class Entry:
    path: str
    mtime: float
    size: int


def plan_prune(
    entries: Iterable[Entry], now: float, bounds: Bounds = DEFAULT_BOUNDS
) -> list[Entry]:
    """The entries to remove, oldest last: every one older than `max_age`; and, newest first,
    once the kept ones would exceed `max_bytes`, that one and every older one past the grace.
    Files within the grace count toward the total but are never removed."""
    remove: list[Entry] = []
    total = 0
    full = False
    for entry in sorted(entries, key=lambda e: e.mtime, reverse=True):
        age = now - entry.mtime
        if age > bounds.max_age:
            remove.append(entry)
            continue
        if age > bounds.grace and (full or total + entry.size > bounds.max_bytes):
            full = True
            remove.append(entry)
            continue
        total += entry.size
    return remove


def scan(folder: Path) -> list[Entry]:
    """The regular files directly in `folder` (a symbolic link or a folder there is not ours
    to remove); none when it does not exist."""
    entries: list[Entry] = []
    try:
        with os.scandir(folder) as it:
            for item in it:
                try:
                    if not item.is_file(follow_symlinks=False):
                        continue
                    st = item.stat(follow_symlinks=False)
                except OSError:
                    continue
                entries.append(Entry(item.path, st.st_mtime, st.st_size))
    except OSError:
        return []
    return entries


def prune(root: Path, now: float, bounds: Bounds = DEFAULT_BOUNDS) -> list[str]:
    """Remove what `plan_prune` says of the files under `root`'s kinds (one budget for all);
    the paths removed (one already gone is skipped)."""
    entries = [entry for kind in KINDS for entry in scan(root / kind)]
    removed: list[str] = []
    for entry in plan_prune(entries, now, bounds):
        try:
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(entry.path)
    return removed


class TemporaryOutputs:
    def __init__(
        self,
        data_dir: Path,
        bounds: Bounds = DEFAULT_BOUNDS,
        *,
        every: float = PRUNE_EVERY,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.root = data_dir / TEMPORARY_DIR
        self._bounds = bounds
        self._every = every
        self._clock = clock
        self._last = -math.inf
        self._running = False

    @staticmethod
    def relative(kind: Kind, name: str) -> str:
        """A generated output's path under {data_dir}."""
        return f"{TEMPORARY_DIR}/{kind}/{name}"

    async def handed_out(self) -> list[str]:
        """A generated path was handed out: prune (in a thread) unless one ran less than
        `every` seconds ago or is running; the paths removed."""
        now = self._clock()
        if self._running or now - self._last < self._every:
            return []
        self._running = True
        self._last = now
        try:
            return await trio.to_thread.run_sync(prune, self.root, now, self._bounds)
        finally:
            self._running = False
