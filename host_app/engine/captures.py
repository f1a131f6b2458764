"""Captures of a session's current page: its HTML, its document size, an image of its view (the
viewport, or the full page with the view grown to it) and the image encoded to a file."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from bridge_protocol import ErrorId, SvcError

from ..core import js, operations
from ..core.page_driver import Call
from ..logic import aio
from ..logic.images import QT_FORMAT, qt_quality
from ..qt import QBuffer, QIODevice, QWebEngineView
from .page_scripts import ScriptsOwner, live_page

T = TypeVar("T")

# grabs of a full page compared until two agree (then ~1 s more at most)
STABLE_GRABS = 10


class CapturesOwner(ScriptsOwner, Protocol):
    """What captures need of the session: its current page, the view it is in, and scripts in
    it."""

    @property
    def view(self) -> QWebEngineView | None: ...
    def run(self, call: Call[T], frame: object = None) -> aio.Future[T]: ...


class PageCaptures:
    def __init__(self, owner: CapturesOwner) -> None:
        self._owner = owner

    def to_html(self) -> aio.Future[str]:
        fut: aio.Future[str] = aio.Future()
        live_page(self._owner).toHtml(
            lambda html: fut.set_result(html if isinstance(html, str) else "")
        )
        return fut

    async def _document_size(self) -> tuple[int, int, int, int]:
        return await self._owner.run(js.DOC_SIZE)

    def document_size(self) -> aio.Future[tuple[int, int, int, int]]:
        return aio.spawn(self._document_size())

    async def _grab(self, full_page: bool, height: int) -> Any:
        view = self._owner.view
        loop = self._owner.loop
        assert view is not None
        if not full_page or height <= view.height():
            await aio.sleep(loop, 0.05)
            return view.grab().toImage()
        old = view.size()
        view.resize(old.width(), height)
        try:
            for _ in range(100):
                inner = await self._owner.run(js.INNER_HEIGHT)
                if inner is not None and inner >= height:
                    break
                await aio.sleep(loop, 0.03)
            await aio.sleep(loop, 0.15)
            # The compositor rasterizes the newly exposed rows at its own pace (on a loaded
            # machine well after the page's layout matched): a grab is taken once two in a row
            # agree, so a half-painted page is never the answer unless it keeps changing.
            image = view.grab().toImage()
            for _ in range(STABLE_GRABS):
                await aio.sleep(loop, 0.1)
                again = view.grab().toImage()
                if again == image:
                    break
                image = again
            return image
        finally:
            view.resize(old)

    def grab(self, full_page: bool, height: int) -> aio.Future[Any]:
        return aio.spawn(self._grab(full_page, height))

    def save_image(self, image: Any, path: str, fmt: str, quality: int | None) -> int:
        if fmt == "jpeg":
            image = image.convertToFormat(image.Format.Format_RGB32)
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, QT_FORMAT[fmt], qt_quality(fmt, quality)):
            raise SvcError.of(ErrorId.INTERNAL_ERROR, f"cannot encode the {fmt} image")
        return operations.write_file(path, buffer.data().data())
