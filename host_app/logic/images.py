"""Screenshot bounds and formats (spec 1 §4 "Screenshots", §8)."""

from __future__ import annotations

from bridge_protocol import ErrorId, SvcError

MAX_AXIS = 16_384
MAX_PIXELS = 16_000_000
MIME = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
QT_FORMAT = {"png": "PNG", "jpeg": "JPEG", "webp": "WEBP"}


def check_bounds(width: int, height: int, *, full_page: bool) -> None:
    """Raise OBSERVATION_TOO_LARGE when an image of width x height would exceed the bounds."""
    if width > MAX_AXIS or height > MAX_AXIS or width * height > MAX_PIXELS:
        what = "the full page" if full_page else "the image"
        raise SvcError.of(
            ErrorId.OBSERVATION_TOO_LARGE,
            f"{what} is {width}x{height} px; the bound is {MAX_AXIS} px per axis and "
            f"{MAX_PIXELS:,} px in total",
            width=width,
            height=height,
            max_axis=MAX_AXIS,
            max_pixels=MAX_PIXELS,
        )


def qt_quality(fmt: str, quality: int | None) -> int:
    """QImage.save's quality argument: -1 (the codec's default) for PNG or when unset."""
    if fmt == "png" or quality is None:
        return -1
    return max(0, min(100, quality))
