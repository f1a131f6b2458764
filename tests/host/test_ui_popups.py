"""The browser window shows a session's current page: its popup while one is open, the opener
again once it closes (issue 11 point 2). A real engine and window, offscreen, in a child process
(QtWebEngine must be imported before the QApplication exists); pages from a server the child
starts."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import bridge_protocol as bp

pytestmark = pytest.mark.gui

PAGES = {
    "/opener": """<!doctype html><title>Opener</title>
<button id=open style="width:200px;height:80px" onclick="window.open('/popup')">Open</button>""",
    "/popup": """<!doctype html><title>Popup</title>
<button id=close style="width:200px;height:80px" onclick="window.close()">Close</button>""",
}


def test_the_window_shows_the_popup_then_the_opener_again(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu")
    subprocess.run(
        [sys.executable, "-m", "tests.host.test_ui_popups", str(tmp_path)],
        check=True,
        timeout=120,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        data = PAGES.get(self.path, "missing").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def check(tmp_path: Path) -> None:
    from host_app.engine.runtime import engine_application_name, prepare_storage

    os.environ["XDG_DATA_HOME"] = str(prepare_storage(tmp_path))
    engine_application_name()
    from host_app.qt import QApplication, QEvent

    app = QApplication(["svc-app-ui-popups-test"])
    from host_app.config import HostConfig
    from host_app.engine.runtime import Engine, SessionBrowser
    from host_app.engine.window_adapter import WindowAdapter
    from host_app.logic.settings import SettingsStore
    from host_app.ui.main_ui import MainUI

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    config = HostConfig(tmp_path, 1, True, "svc-app", ("--agent",))
    store = SettingsStore(config.settings_path)
    engine = Engine(tmp_path, store.load(), headless=True)

    ui = MainUI(
        WindowAdapter(engine), store, lambda: None, port=config.port, logs_dir=config.logs_dir
    )
    window = ui.browser

    def until(check: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + 30
        while not check():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            app.processEvents()
            # deleteLater: outside exec() only an explicit send runs deferred deletions
            app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            time.sleep(0.01)

    def js(b: SessionBrowser, code: str) -> Any:
        fut = b.run_js(code)
        until(fut.done, "a script result")
        return fut.result()

    def click(b: SessionBrowser, selector: str) -> None:
        box: list[float] = []

        def placed() -> bool:
            # read again until answered: a fresh clone's loaded run got no answer (None) to the
            # first read of the popup's button, its script timed out while the page was busy
            got = js(
                b,
                "JSON.stringify((function(e){if(!e)return null;var r=e.getBoundingClientRect();"
                f"return [r.x+r.width/2,r.y+r.height/2]}})(document.querySelector('{selector}')))",
            )
            if isinstance(got, list):
                box[:] = got
            return bool(box)

        until(placed, selector)
        x, y = box
        b.input.mouse_click(x, y, True)

    engine.session_settings["Session1"] = bp.SessionSettings(profile_id=1, name="Session1")
    window.select("Session1")
    ui.show_browser()
    b = engine.sessions["Session1"]
    root_view = b.view
    assert root_view is not None
    assert window.stack.currentWidget() is root_view
    b.load(f"{base}/opener")
    until(lambda: window.address.text() == f"{base}/opener", "the opener")

    click(b, "#open")
    until(lambda: b.stack.popups == 1, "the popup")
    popup_view = b.view
    assert popup_view is not root_view
    assert b.page is not None
    assert b.profile is not None
    assert b.page.profile() is b.profile  # the session's profile, never the default one
    until(lambda: window.stack.currentWidget() is popup_view, "the window to show the popup")
    until(lambda: window.address.text() == f"{base}/popup", "the popup's address")
    assert window.stack.indexOf(root_view) == -1
    assert root_view.isVisible()  # the opener keeps rendering off screen

    closed: list[bool] = []
    b.page.destroyed.connect(lambda *_: closed.append(True))
    click(b, "#close")  # the popup closes itself
    until(lambda: b.stack.popups == 0, "the popup to close")
    until(lambda: bool(closed), "the closed popup's page to be deleted")
    until(lambda: window.stack.currentWidget() is root_view, "the window to show the opener")
    until(lambda: window.address.text() == f"{base}/opener", "the opener's address")

    # the window's Back on a popup with no history closes it too
    click(b, "#open")
    until(lambda: window.stack.currentWidget() is b.view is not root_view, "the second popup")
    window.back.click()
    until(lambda: window.stack.currentWidget() is root_view, "Back to close the popup")
    assert b.stack.popups == 0

    profile = b.profile
    gone: list[bool] = []
    profile.destroyed.connect(lambda *_: gone.append(True))
    ui.close()  # as the app's Quit does
    engine.shutdown()
    # every page goes, then the profile (it may go only after its last page)
    until(lambda: bool(gone), "the profile to go after its pages")
    server.shutdown()
    server.server_close()
    del ui


if __name__ == "__main__":
    check(Path(sys.argv[1]))
