"""The answers of the page operations (shorthand, attached pages, screenshots) as structs
(issue 39 point 3); docs/openapi.yaml's schemas of them are generated from them
(agent/openapi.py)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from bridge_protocol.answers import ImageFormat

from .responses import Shown

MimeType = Literal["image/png", "image/jpeg", "image/webp"]
MIME_TYPES: dict[ImageFormat, MimeType] = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
}


class PageRef(Shown, frozen=True):
    """A process-local page reference."""

    id: Annotated[str, msgspec.Meta(pattern="^page_")]
    session_id: str
    url: str


class Capture(Shown, frozen=True):
    output_path: str
    bytesize: int
    target_http_status: int | None


class PageOperation(Shown, frozen=True):
    page: PageRef
    capture: Capture


class Screenshot(Shown, frozen=True):
    output_path: str
    bytesize: int
    format: ImageFormat
    mime_type: MimeType
    width: int
    height: int


class ScreenshotResult(Shown, frozen=True):
    page: PageRef
    screenshot: Screenshot
