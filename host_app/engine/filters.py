"""The filter lists' adapter: loads the stored engine and refreshes the lists on a worker thread,
and hands each engine to the Qt thread, where every session's interceptor reads it (`Filters`).
Start-up and browsing never wait for it: until the first engine arrives, nothing is filtered by
lists (image blocking and pause do not depend on it)."""

from __future__ import annotations

import threading
import time
from typing import Any

from ..logic.adblock import Fetch, FilterEngine, FilterStore, https_fetch
from ..logic.logfile import HostLog
from ..logic.policy import Filters
from ..qt import QObject, pyqtSignal

RETRY_AFTER = 3600.0  # after a failed refresh; the previous engine serves meanwhile
CHECK_EVERY = 600.0  # how often the worker asks whether the four days are up


class FilterService(QObject):
    # emitted on the worker thread, delivered on the Qt thread (a queued connection)
    _ready = pyqtSignal(object, str)

    def __init__(
        self,
        filters: Filters,
        store: FilterStore,
        urls: dict[str, str],
        log: HostLog | None,
        *,
        fetch: Fetch = https_fetch,
    ) -> None:
        super().__init__()
        self.filters = filters
        self.store = store
        self.urls = urls
        self.log = log
        self.fetch = fetch
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ready.connect(self._install)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="svc-filter-lists", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        # a refresh in progress is not waited for: the thread is a daemon and its writes are
        # atomic replacements, so an exit mid-way leaves the previous engine in place
        self._stop.set()

    def _write(self, category: str, message: str, level: str = "info", **data: Any) -> None:
        if self.log is not None:
            self.log.write(category, message, level=level, data=data)

    def _install(self, engine: FilterEngine, how: str) -> None:
        self.filters.engine = engine
        self._write(
            "filters.ready",
            f"filter engine {how}: {engine.rules} network rules",
            rules=engine.rules,
        )

    def _run(self) -> None:
        try:
            engine = self.store.load()
        except Exception as exc:
            engine = None
            self._write("filters.load_failed", f"stored filter engine unusable: {exc!r}", "warning")
        if engine is not None:
            self._ready.emit(engine, "loaded")
        retry_at = 0.0
        while not self._stop.is_set():
            if time.monotonic() >= retry_at and self.store.due():
                retry_at = self._refresh()
            self._stop.wait(CHECK_EVERY)

    def _refresh(self) -> float:
        """One refresh; when the next may be tried (monotonic time)."""
        started = time.monotonic()
        try:
            engine = self.store.refresh(self.fetch, self.urls)
        except Exception as exc:
            kept = "the previous engine is kept" if self.filters.engine else "no engine yet"
            self._write(
                "filters.refresh_failed",
                f"filter lists not refreshed ({kept}): {exc!r}",
                "warning",
                error=repr(exc),
            )
            return time.monotonic() + RETRY_AFTER
        self._write(
            "filters.refreshed",
            f"filter lists downloaded and built in {time.monotonic() - started:.1f} s",
            urls=self.urls,
        )
        self._ready.emit(engine, "refreshed")
        return 0.0
