"""The desktop app in a real X server (Xvfb): the browser window shows a session's live view."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .hostproc import HostApp
from .site import Site

pytestmark = pytest.mark.gui

GRAB = r"""
import sys
from PyQt6.QtGui import QGuiApplication
app = QGuiApplication(["grab", "-platform", "xcb"])
image = QGuiApplication.primaryScreen().grabWindow(0).toImage()
image.save(sys.argv[1], "PNG")
colors = set()
w, h = image.width(), image.height()
for y in range(0, h, 7):
    for x in range(0, w, 7):
        colors.add(image.pixel(x, y))
print(len(colors), w, h)
"""


def _free_display() -> int:
    for n in range(91, 200):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise RuntimeError("no free X display number")


@pytest.fixture
def xvfb() -> Iterator[str]:
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (make test installs the Debian package xvfb)")
    n = _free_display()
    proc = subprocess.Popen(
        ["Xvfb", f":{n}", "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 10
        while not Path(f"/tmp/.X11-unix/X{n}").exists():
            assert proc.poll() is None, "Xvfb exited"
            assert time.monotonic() < deadline, "Xvfb did not start"
            time.sleep(0.05)
        yield f":{n}"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def _grab(display: str, out: Path) -> int:
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb")
    r = subprocess.run(
        [sys.executable, "-c", GRAB, str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(r.stdout.split()[0])


def test_browser_window_shows_the_live_view(xvfb: str, site: Site, tmp_path: Path) -> None:
    app = HostApp(tmp_path / "gui", env={"DISPLAY": xvfb, "QT_QPA_PLATFORM": "xcb"})
    app.start(gui=True)
    try:
        sid = app.new_session()
        app.ok("POST", "/v1/navigate", {"url": site.url("/table"), "session_id": sid, "wait": 1})
        time.sleep(1.0)
        shot = tmp_path / "window.png"
        colors = _grab(xvfb, shot)
        assert shot.stat().st_size > 5000
        assert colors > 20, f"the screen looks blank ({colors} colors)"
    finally:
        app.stop()
