"""The shared asset cache's files (no Qt): `{data_dir}/Browser/SharedAssets/<partition>/`, one
body and one small JSON head per stored response, an index in memory rebuilt from the heads at
start, pruned by last access to the size bound (spec 1 §1 "Shared asset cache"; the rules of
what may be stored are host_app/logic/assets.py). Thread-safe: the asset scheme's worker
threads read and write it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..logic.assets import SHARED_MAX_BYTES, SHARED_MAX_ENTRY, NotShared


@dataclass(slots=True)
class Entry:
    partition: str
    url: str
    content_type: str
    size: int
    expires: float  # epoch seconds: served only before
    last_access: float
    path: Path  # the body; the head is path.with_suffix(".json")


def _name(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class SharedAssets:
    def __init__(
        self,
        root: Path,
        *,
        max_bytes: int = SHARED_MAX_BYTES,
        max_entry: int = SHARED_MAX_ENTRY,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.max_entry = max_entry
        self.clock = clock
        self._lock = threading.Lock()
        # one fetch at a time per (partition, URL): a page asking twice at once (an <img> and a
        # stylesheet's background) and two sessions loading one page share the first fetch
        self._fetching: dict[tuple[str, str], tuple[threading.Lock, list[int]]] = {}
        self._entries: dict[tuple[str, str], Entry] = {}
        self._total = 0
        # answers that could not be shared: their URLs stay native for a while
        self.not_shared = NotShared()
        self._load()

    @property
    def total_bytes(self) -> int:
        return self._total

    def __len__(self) -> int:
        return len(self._entries)

    def _load(self) -> None:
        if not self.root.is_dir():
            return
        for head in self.root.glob("*/*.json"):
            try:
                raw = json.loads(head.read_text("utf-8"))
                body = head.with_suffix(".body")
                entry = Entry(
                    partition=str(raw["partition"]),
                    url=str(raw["url"]),
                    content_type=str(raw["content_type"]),
                    size=body.stat().st_size,
                    expires=float(raw["expires"]),
                    last_access=head.stat().st_mtime,
                    path=body,
                )
            except (OSError, ValueError, KeyError, TypeError):
                with contextlib.suppress(OSError):
                    head.unlink()
                continue
            self._entries[(entry.partition, entry.url)] = entry
            self._total += entry.size
        with self._lock:
            self._prune()

    @contextlib.contextmanager
    def fetching(self, partition: str, url: str) -> Iterator[None]:
        """Held around a miss's fetch and store: a second miss of the same key waits, then
        finds the first one's copy."""
        key = (partition, url)
        with self._lock:
            gate, users = self._fetching.setdefault(key, (threading.Lock(), [0]))
            users[0] += 1
        try:
            with gate:
                yield
        finally:
            with self._lock:
                users[0] -= 1
                if not users[0]:
                    del self._fetching[key]

    def get(self, partition: str, url: str) -> tuple[str, bytes] | None:
        """(content type, body) of a fresh stored response; a stale one is removed."""
        now = self.clock()
        with self._lock:
            entry = self._entries.get((partition, url))
            if entry is None:
                return None
            if entry.expires <= now:
                self._remove(entry)
                return None
            entry.last_access = now
        try:
            body = entry.path.read_bytes()
            # the head's mtime is the last access, so the order survives a restart
            os.utime(entry.path.with_suffix(".json"), (now, now))
        except OSError:
            with self._lock:
                self._remove(entry)
            return None
        if len(body) != entry.size:
            with self._lock:
                self._remove(entry)
            return None
        return entry.content_type, body

    def put(
        self, partition: str, url: str, content_type: str, body: bytes, lifetime: float
    ) -> bool:
        if len(body) > self.max_entry or len(body) > self.max_bytes or lifetime <= 0:
            return False
        now = self.clock()
        folder = self.root / _name(partition)
        name = _name(url)
        path = folder / f"{name}.body"
        head = {
            "partition": partition,
            "url": url,
            "content_type": content_type,
            "expires": now + lifetime,
        }
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f".{name}.{threading.get_ident()}.tmp"
            tmp.write_bytes(body)
            os.replace(tmp, path)
            path.with_suffix(".json").write_text(json.dumps(head), "utf-8")
        except OSError:
            return False
        with self._lock:
            old = self._entries.pop((partition, url), None)
            if old is not None:
                self._total -= old.size
            self._entries[(partition, url)] = Entry(
                partition, url, content_type, len(body), now + lifetime, now, path
            )
            self._total += len(body)
            self._prune()
        return True

    def _remove(self, entry: Entry) -> None:
        if self._entries.pop((entry.partition, entry.url), None) is None:
            return
        self._total -= entry.size
        for p in (entry.path, entry.path.with_suffix(".json")):
            with contextlib.suppress(OSError):
                p.unlink()

    def _prune(self) -> None:
        if self._total <= self.max_bytes:
            return
        for entry in sorted(self._entries.values(), key=lambda e: e.last_access):
            if self._total <= self.max_bytes:
                break
            self._remove(entry)

    def clear(self, partition: str | None = None) -> None:
        """Everything, or one partition."""
        if partition is None:
            self.not_shared.clear()
        with self._lock:
            for entry in list(self._entries.values()):
                if partition is None or entry.partition == partition:
                    self._remove(entry)
            target = self.root if partition is None else self.root / _name(partition)
            shutil.rmtree(target, ignore_errors=True)
