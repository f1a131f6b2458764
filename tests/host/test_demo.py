"""`make demo`'s job (scripts/demo.py) runs to the end and stops the app."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

DEMO = Path(__file__).resolve().parents[2] / "scripts" / "demo.py"


def test_demo_runs_the_main_job() -> None:
    r = subprocess.run(
        [sys.executable, str(DEMO)],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    out = r.stdout
    folder = re.search(r"data folder (\S+)", out)
    if folder is not None and folder.group(1).startswith(tempfile.gettempdir()):
        # the demo leaves its files for the user; the test does not keep them
        request_cleanup = Path(folder.group(1))
    else:
        request_cleanup = None
    try:
        _check(r, out)
    finally:
        if request_cleanup is not None:
            shutil.rmtree(request_cleanup, ignore_errors=True)


def _check(r: subprocess.CompletedProcess[str], out: str) -> None:
    assert r.returncode == 0, r.stdout + r.stderr
    assert "thanks.html?name=Ada&product=cocoa&notes=no+sugar" in out
    shot = re.search(r"took a screenshot: (\S+\.png)", out)
    assert shot is not None
    assert Path(shot.group(1)).read_bytes().startswith(b"\x89PNG")
    assert "stopped svc-app (exit 0)" in out
