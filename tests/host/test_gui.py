"""The desktop app in a real X server (Xvfb): while another app has the focus, a browser operation
makes the browser window show its session's live view without bringing the window forward."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .hostproc import HostApp
from .site import Site
from .xscreen import Screen, poll

pytestmark = pytest.mark.gui

# another application whose window takes the focus, so svc-app is inactive; it prints
# "active" / "inactive" whenever its window's activation changes
OTHER_APP = r"""
from PyQt6.QtCore import QTimer
from PyQt6.QtWidgets import QApplication, QWidget
app = QApplication(["other", "-platform", "xcb"])
w = QWidget()
w.setWindowTitle("another app")
w.setGeometry(1300, 820, 90, 70)
w.show()
w.activateWindow()
state = [None]
def report():
    if w.isActiveWindow() != state[0]:
        state[0] = w.isActiveWindow()
        print("active" if state[0] else "inactive", flush=True)
timer = QTimer()
timer.timeout.connect(report)
timer.start(20)
app.exec()
"""


@pytest.fixture
def xvfb() -> Iterator[Screen]:
    screen = Screen()
    try:
        yield screen
    finally:
        screen.stop()


class OtherApp:
    """Another application in front: svc-app is inactive while its window has the focus."""

    def __init__(self, screen: Screen) -> None:
        env = screen.env
        self.proc = subprocess.Popen(
            [sys.executable, "-c", OTHER_APP],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        poll(lambda: self.lines[-1:] == ["active"], "the other app to take the focus")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _records(app: HostApp, category: str) -> list[dict[str, Any]]:
    path = app.data_dir / "Logs" / "global.ndjson"
    return [
        rec["data"]
        for rec in map(json.loads, path.read_text("utf-8").splitlines())
        if rec.get("category") == category
    ]


def _selected(app: HostApp) -> list[str]:
    return [str(data["session_id"]) for data in _records(app, "ui.session_selected")]


def _inactive(app: HostApp) -> bool:
    states = _records(app, "ui.app_state")
    return bool(states) and states[-1]["active"] is False


@pytest.mark.parametrize("follow", [True, False], ids=["follow-on", "follow-off"])
def test_inactive_app_shows_the_commanded_session_without_coming_forward(
    xvfb: Screen, site: Site, tmp_path: Path, follow: bool
) -> None:
    settings = json.dumps({"follow_browser_commands": follow})
    app = HostApp(
        tmp_path / "gui",
        env={"DISPLAY": xvfb.display, "QT_QPA_PLATFORM": "xcb", "_SETTINGS": settings},
    )
    app.start(gui=True)
    other = None
    try:
        sid = app.new_session()
        other = OtherApp(xvfb)  # the user works in another app
        poll(lambda: _inactive(app), "svc-app to become inactive")
        data = app.ok(
            "POST",
            "/v1/navigate",
            {"url": site.url("/footer?h=3000"), "session_id": sid, "wait": 1},
        )
        assert data["page"]["url"] == site.url("/footer?h=3000")  # the same result either way
        shot = tmp_path / "screen.png"
        if follow:
            poll(lambda: _selected(app) == [sid], "the session to be selected")
            # the browser window now shows the session's live view (its green page) ...
            poll(lambda: xvfb.grab(shot)["green"] > 1000, "the window to show the session")
            colors = xvfb.grab(shot)["colors"]
            assert shot.stat().st_size > 5000
            assert colors > 20, f"the screen looks blank ({colors} colors)"
        else:
            assert _selected(app) == []
            assert xvfb.grab(shot)["green"] == 0  # the window still shows no session
        # ... and was not brought forward: the other app kept the focus throughout
        assert other.lines == ["active"]
    finally:
        if other is not None:
            other.stop()
        app.stop()
