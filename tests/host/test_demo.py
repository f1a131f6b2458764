"""`make demo`'s job (python -m host_app.demo) runs to the end and stops the app."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e


def test_demo_runs_the_main_job() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "host_app.demo"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "thanks.html?name=Ada&product=cocoa&notes=no+sugar" in out
    shot = re.search(r"took a screenshot: (\S+\.png)", out)
    assert shot is not None
    assert Path(shot.group(1)).read_bytes().startswith(b"\x89PNG")
    assert "stopped svc-app (exit 0)" in out
