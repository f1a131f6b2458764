"""A real X screen for the desktop app's window tests: Xvfb started and stopped by its owner,
xdotool for keys, and photographs of the screen or of one window through Qt's xcb platform."""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

GRAB = r"""
import sys
from PyQt6.QtGui import QGuiApplication
app = QGuiApplication(["grab", "-platform", "xcb"])
window = int(sys.argv[2]) if len(sys.argv) > 2 else 0
image = QGuiApplication.primaryScreen().grabWindow(window).toImage()
image.save(sys.argv[1], "PNG")
colors = {}
w, h = image.width(), image.height()
for y in range(0, h, 7):
    for x in range(0, w, 7):
        p = image.pixel(x, y) & 0xFFFFFF
        colors[p] = colors.get(p, 0) + 1
print(len(colors), w, h, colors.get(0x00CC00, 0), colors.get(0xFFD24D, 0))
"""


def poll(check: Callable[[], bool], what: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class Screen:
    """One Xvfb display; `stop()` ends it (and its process group)."""

    def __init__(self, width: int = 1400, height: int = 900) -> None:
        assert shutil.which("Xvfb"), (
            "Xvfb is missing: `make setup` installs the Debian package xvfb"
        )
        # Xvfb picks a free display number itself and writes it once it listens (-displayfd):
        # two test processes side by side (pytest-xdist's workers) never race for one number.
        read, write = os.pipe()
        try:
            size = f"{width}x{height}x24"
            self.proc = subprocess.Popen(
                ["Xvfb", "-displayfd", str(write), "-screen", "0", size, "-nolisten", "tcp"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(write,),
                start_new_session=True,
            )
        finally:
            os.close(write)
        try:
            with os.fdopen(read, "rb") as pipe:
                ready, _, _ = select.select([pipe], [], [], 10)
                assert ready, "timed out waiting for Xvfb to start"
                number = pipe.readline().strip().decode()
            assert number.isdigit(), f"Xvfb exited {self.proc.poll()} before it listened"
            self.display = f":{number}"
            poll(lambda: Path(f"/tmp/.X11-unix/X{number}").exists(), "Xvfb's socket", 10)
        except AssertionError:
            self.stop()
            raise

    @property
    def env(self) -> dict[str, str]:
        return dict(os.environ, DISPLAY=self.display, QT_QPA_PLATFORM="xcb")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)

    # -- keys --------------------------------------------------------------------------------

    def xdotool(self, *args: str) -> str:
        assert shutil.which("xdotool"), "xdotool is missing: `make setup` installs it"
        r = subprocess.run(
            ["xdotool", *args],
            check=False,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        return r.stdout.strip() if r.returncode == 0 else ""

    def window(self, title: str, timeout: float = 15) -> str:
        """The id of the (first) window whose whole title is `title`."""
        found: list[str] = []

        def look() -> bool:
            found[:] = self.xdotool("search", "--onlyvisible", "--name", f"^{title}$").split()
            return bool(found)

        poll(look, f"a window titled {title!r}", timeout)
        return found[0]

    def keys(self, title: str, *keys: str) -> None:
        """Focus the window titled `title` (there is no window manager: focus moves only when
        asked) and press `keys` there, one combination after the other."""
        self.xdotool("windowfocus", "--sync", self.window(title))
        for key in keys:
            self.xdotool("key", "--clearmodifiers", key)

    def type(self, title: str, text: str) -> None:
        win = self.window(title)
        self.xdotool("windowfocus", "--sync", win)
        self.xdotool("type", "--delay", "15", text)

    # -- photographs ---------------------------------------------------------------------------

    def grab(self, out: Path, window: str | None = None) -> dict[str, int]:
        """Save the screen (or one window) as PNG; counts on a 7 px grid: distinct colours,
        the fixture's #0c0 green, and the route banner's #ffd24d."""
        args = [sys.executable, "-c", GRAB, str(out)] + ([window] if window else [])
        r = subprocess.run(
            args, env=self.env, capture_output=True, text=True, timeout=60, check=True
        )
        colors, _w, _h, green, banner = map(int, r.stdout.split())
        return {"colors": colors, "green": green, "banner": banner}
