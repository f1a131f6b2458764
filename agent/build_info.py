"""The bundle's build metadata, health and status `build` (spec 1 §2 Health data).

`make bundle` writes `svc-build.json` into the bundle (`packaging/build_info.py`); the agent of a
bundle reads it once at start-up. Run from source there is no bundle: `build` is null. A file that
is missing or not of the spec's shape also gives null: health never fails over it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FILE_NAME = "svc-build.json"
STRING_FIELDS = ("id", "configuration", "worktree", "branch", "commit")


def bundle_dir() -> Path | None:
    """The folder a PyInstaller bundle unpacked its data into; None when run from source."""
    if not getattr(sys, "frozen", False):
        return None
    meipass = getattr(sys, "_MEIPASS", None)
    return Path(meipass) if isinstance(meipass, str) else Path(sys.executable).resolve().parent


def parse(raw: bytes) -> dict[str, Any] | None:
    """`{id, configuration, worktree, branch, commit, dirty}` from the file's bytes, or None."""
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if not all(isinstance(data.get(name), str) for name in STRING_FIELDS):
        return None
    if not isinstance(data.get("dirty"), bool):
        return None
    return {name: data[name] for name in (*STRING_FIELDS, "dirty")}


def load(folder: Path | None = None) -> dict[str, Any] | None:
    folder = bundle_dir() if folder is None else folder
    if folder is None:
        return None
    try:
        raw = (folder / FILE_NAME).read_bytes()
    except OSError:
        return None
    return parse(raw)
