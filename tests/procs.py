"""Process checks the tests share."""

from __future__ import annotations

from pathlib import Path


def alive(pid: int) -> bool:
    """Running (an exited process nobody reaped yet is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
