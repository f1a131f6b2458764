"""A session's downloads: `QWebEngineProfile.downloadRequested` saved under
`{data_dir}/Downloads/<session id>/`, followed to completion or failure, reported as page events.

Naming, the report and the waiting rule are Qt-free (host_app/logic/downloads.py); this module
translates the Qt download request into them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..logic import aio
from ..logic.downloads import (
    Download,
    DownloadState,
    Mark,
    expects_download,
    free_name,
    log_message,
    report,
    safe_name,
)
from ..qt import QWebEngineDownloadRequest, QWebEngineProfile
from .session_log import SessionLog

_State = QWebEngineDownloadRequest.DownloadState
POLL = 0.02
ANNOUNCE_WAIT = 2.0  # how long a main-frame request that started no load may take to become one
# leaves the operation time to observe, write and answer before its deadline (the host's deadline
# also starts a bridge hop after the agent's); half a second was too little on a loaded machine
DEADLINE_MARGIN = 1.0


@dataclass
class _Item:
    request: QWebEngineDownloadRequest
    url: str
    name: str
    path: Path
    seq: int  # its number among the session's download requests
    done: aio.Future[None] = field(default_factory=aio.Future)


class SessionDownloads:
    def __init__(self, folder: Path, loop: aio.Loop, log: SessionLog) -> None:
        self.folder = folder  # {data_dir}/Downloads/<session id>
        self._loop = loop
        self._log = log
        self._active: dict[int, _Item] = {}
        self.requested = 0
        self.fetches = 0  # main-frame requests of the download manager (the interceptor counts)

    def attach(self, profile: QWebEngineProfile) -> None:
        profile.downloadRequested.connect(self._requested)

    def download_fetch(self) -> None:
        self.fetches += 1

    def mark(self) -> Mark:
        return Mark(self.fetches, self.requested)

    def _taken(self, name: str) -> bool:
        reserved = any(item.name == name for item in self._active.values())
        return reserved or (self.folder / name).exists()

    def _requested(self, request: QWebEngineDownloadRequest | None) -> None:
        if request is None or request.isSavePageDownload():
            return
        self.requested += 1
        url = request.url().toString()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            name = free_name(safe_name(request.suggestedFileName()), self._taken)
        except OSError as exc:
            request.cancel()
            self._report(url, safe_name(request.suggestedFileName()), request, str(exc))
            return
        request.setDownloadDirectory(str(self.folder))
        request.setDownloadFileName(name)
        item = _Item(request, url, name, self.folder / name, self.requested)
        self._active[request.id()] = item
        # bound to the request's id, not to the item: the item holds the request, and a
        # callable on the engine's object that leads back to its wrapper forms a cycle the
        # collector may clear while the engine still emits (asset_scheme.AssetHandler)
        request.stateChanged.connect(partial(self._state_of, request.id()))
        request.accept()

    def _state_of(self, request_id: int, state: QWebEngineDownloadRequest.DownloadState) -> None:
        item = self._active.get(request_id)
        if item is not None:
            self._state(item, state)

    def _state(self, item: _Item, state: QWebEngineDownloadRequest.DownloadState) -> None:
        if state == _State.DownloadCompleted:
            self._finish(item, "")
        elif state in (_State.DownloadInterrupted, _State.DownloadCancelled):
            reason = item.request.interruptReasonString() or "cancelled"
            self._finish(item, reason)
            if state == _State.DownloadInterrupted:
                # Chromium keeps an interrupted download resumable; we do not resume, so drop it
                item.request.cancel()

    def _finish(self, item: _Item, failure: str) -> None:
        if self._active.pop(item.request.id(), None) is None:
            return
        self._report(item.url, item.name, item.request, failure, item.path)
        item.done.set_result(None)

    def _report(
        self,
        url: str,
        name: str,
        request: QWebEngineDownloadRequest,
        failure: str,
        path: Path | None = None,
    ) -> None:
        completed = not failure and path is not None
        size = path.stat().st_size if completed and path is not None else request.receivedBytes()
        download = Download(
            url=url,
            file_name=name,
            path=str(path or ""),
            mime_type=request.mimeType(),
            state=DownloadState.COMPLETED if completed else DownloadState.FAILED,
            bytesize=size,
            total=request.totalBytes(),
            reason=failure,
        )
        event = report(download)
        self._log.page_event(event, "page.download", log_message(download), **event.details)

    async def settle(self, mark: Mark, deadline: float, *, clicked: bool = False) -> None:
        """Wait for the downloads the operation started to complete or fail; what is still
        running near the deadline is cancelled and reported failed. `clicked`: the page saw a
        click on an `<a download>` that it did not cancel, so a download is coming even if its
        request has not reached the interceptor yet (a busy machine)."""
        loop = self._loop
        until = deadline - DEADLINE_MARGIN
        start = loop.time()
        announce = min(until, start + ANNOUNCE_WAIT)
        waited = False
        while loop.time() < announce:
            now = self.mark()
            if not expects_download(mark, now) and not (
                clicked and now.requested == mark.requested
            ):
                break
            waited = True
            await aio.sleep(loop, POLL)
        if waited:
            # the one wait that can cost a step its whole bound, so that one taken for nothing
            # (a form post answered by a redirect did, issue 36) shows in the log
            came = self.requested > mark.requested
            self._log.log(
                "page.download_wait",
                f"waited {loop.time() - start:.2f} s for a download to be announced "
                f"({'it came' if came else 'none came'})",
                announced=came,
                clicked=clicked,
            )
        while self._started_since(mark) and loop.time() < until:
            await aio.sleep(loop, POLL)
        for item in self._started_since(mark):
            self._finish(item, "did not finish within the operation's deadline")
            item.request.cancel()

    def _started_since(self, mark: Mark) -> list[_Item]:
        return [i for i in self._active.values() if i.seq > mark.requested]

    def cancel_all(self) -> None:
        for item in list(self._active.values()):
            self._finish(item, "the session closed")
            item.request.cancel()
