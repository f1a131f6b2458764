"""Debian's Chromium, headless, for tests that need a real browser beside svc's engine: a page's
DOM once its scripts and requests are done (`--dump-dom` under a virtual-time budget)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def run_chromium(url: str, profile: Path, *extra: str, budget_ms: int = 5000) -> str:
    """Load `url` in headless Chromium with a fresh `profile` until its scripts and requests are
    done (at most `budget_ms` of the page's virtual time); the DOM. `extra`: more command-line
    switches."""
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            *extra,
            f"--virtual-time-budget={budget_ms}",
            "--dump-dom",
            url,
        ],
        check=False,
        capture_output=True,
        timeout=60,
        start_new_session=True,
    )
    return proc.stdout.decode(errors="replace")
