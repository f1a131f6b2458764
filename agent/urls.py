"""URLs and output paths of browser operations (spec 1 §4, docs/decisions.md)."""

from __future__ import annotations

import os
from pathlib import Path

from bridge_protocol import SvcError, outputs, urls

from .api import validation_error


def normalize_url(raw: str, field: str = "url") -> str:
    """The one URL rule (bridge_protocol.urls); a URL it refuses is VALIDATION_FAILED on `field`."""
    try:
        return urls.normalize_url(raw)
    except ValueError as exc:
        raise validation_error(f"{field}: {exc}", field) from None


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
