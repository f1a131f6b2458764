"""The UI's widgets (offscreen, no browser views): tray menu, session list, settings window
persisted across restarts, closing hides. Runs in a child process: QtWebEngine must be imported
before the QApplication exists, which pytest-qt's shared application does not allow."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bridge_protocol as bp

pytestmark = pytest.mark.gui


def test_menu_sessions_and_settings(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu")
    subprocess.run(
        [sys.executable, "-m", "tests.host.test_ui", str(tmp_path)],
        check=True,
        timeout=120,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )


def check(tmp_path: Path) -> None:
    from host_app.qt import QApplication

    app = QApplication(["svc-app-ui-test"])
    from host_app.config import HostConfig
    from host_app.engine.runtime import Engine
    from host_app.engine.window_adapter import WindowAdapter
    from host_app.logic.settings import SettingsStore
    from host_app.logic.workspace import SessionRow, session_line
    from host_app.ui.main_ui import MainUI

    config = HostConfig(tmp_path, 1, True, "svc-app", ("--agent",))
    store = SettingsStore(config.settings_path)
    engine = Engine(tmp_path, store.load(), headless=True)

    quits: list[int] = []
    ui = MainUI(
        WindowAdapter(engine),
        store,
        lambda: quits.append(1),
        port=config.port,
        logs_dir=config.logs_dir,
    )
    assert list(ui.actions) == ["Show Browser", "Settings", "Logs", "Quit"]
    ui.actions["Quit"].trigger()
    assert quits == [1]
    # without a tray everything is in the browser window's menu bar, with shortcuts
    menus = [a.text() for a in ui.browser.menu_bar.actions()]
    assert menus == ["&File", "&Session", "&View"]
    shortcuts = {n: a.shortcut().toString() for n, a in ui.browser.menu_actions.items()}
    assert shortcuts["Settings"] == "Ctrl+,"
    assert shortcuts["Quit"] == "Ctrl+Q"
    assert shortcuts["Info"] == "Ctrl+Shift+I"
    assert shortcuts["Pause/Play"] == "Ctrl+Shift+P"
    assert shortcuts["Terminal"] == "Ctrl+`"
    assert set(shortcuts) >= {"Logs", "Clear browsing data…", "Delete…"}
    ui.browser.menu_actions["Quit"].trigger()
    assert quits == [1, 1]

    engine.session_settings["Session3"] = bp.SessionSettings(
        profile_id=3, name="Shop", group="g1", proxy_port=17402
    )
    ui.browser.refresh()
    item = ui.browser.sessions.item(0)
    assert item is not None
    # the agent (port 1) does not answer: the list shows what the engine holds
    row = SessionRow(id="Session3", name="Shop", group="g1", proxy_alias=":17402")
    assert item.text() == session_line(row)
    assert "Shop" in item.text()
    assert "Session3" in item.text()
    assert "g1" in item.text()
    assert "17402" in item.text()
    assert "paused" not in item.text()  # only a paused session says so (a badge)

    # the Info view: the agent's installation id from its last start, the data folder's size
    logs = tmp_path / "Logs"
    logs.mkdir(exist_ok=True)
    started = {"id": "x", "created_at": 1, "category": "agent.started", "level": "info",
               "message": "agent listening", "data": {"machine_id": "ABC-123"}}  # fmt: skip
    (logs / "global.ndjson").write_text(json.dumps(started) + "\n")
    (tmp_path / "Browser" / "Tab-3").mkdir(parents=True, exist_ok=True)
    (tmp_path / "Browser" / "Tab-3" / "Cookies").write_bytes(b"c" * 2048)
    ui.info.show_session("Session3")
    shown = {label: w.text() for label, w in ui.info.values.items()}
    assert shown["Federated id"] == "machine-ABC-123.Session3"
    assert shown["Name"] == "Shop"
    assert shown["Group"] == "g1"
    assert shown["Data folder"] == "2.0 KiB"
    assert ui.info.windowTitle() == "Info: Shop"
    ui.info.hide()

    # the Logs view: opened on the selected session, rows readable, filters, malformed lines
    session_log = logs / "sessions" / "3.ndjson"
    session_log.parent.mkdir(exist_ok=True)
    rec = {"id": "r", "created_at": 1700000000000, "level": "info", "message": "m"}
    session_log.write_text(
        json.dumps(rec | {"category": "page.dialog", "data": {"dialog": "alert"}}) + "\n"
        + "not json\n"
        + json.dumps(rec | {"category": "network.filtered", "level": "warning"}) + "\n"
        + '{"partial": '
    )  # fmt: skip
    ui.browser.current = "Session3"
    ui.logs.set_sessions([SessionRow(id="Session3", name="Shop")])
    ui.logs.show()
    table = ui.logs.table

    def column(c: int) -> list[str]:
        return [table.item(r, c).text() for r in range(table.rowCount())]  # type: ignore[union-attr]

    assert ui.logs.source.currentData() == "Session3"
    assert column(2) == ["page.dialog", "malformed", "network.filtered"]
    table.setCurrentCell(0, 0)
    assert '"dialog": "alert"' in ui.logs.details.toPlainText()
    ui.logs.level.setCurrentIndex(ui.logs.level.findData("warning"))
    assert column(2) == ["malformed", "network.filtered"]  # unknown levels always shown
    ui.logs.level.setCurrentIndex(0)
    ui.logs.category.setText("filter")
    assert column(2) == ["network.filtered"]
    ui.logs.category.setText("")
    with session_log.open("a") as f:
        f.write("1}\n")  # the partial line completes: a record without a category
    ui.logs.poll()
    assert column(2)[-1] == "?"
    session_log.write_text(json.dumps(rec | {"category": "after.truncate"}) + "\n")
    ui.logs.poll()
    assert column(2) == ["after.truncate"]
    ui.logs.source.setCurrentIndex(ui.logs.source.findData("global"))
    assert column(2) == ["agent.started"]
    assert not ui.logs.clear_button.isEnabled()  # the global log has no Clear
    ui.logs.hide()

    ui.show_browser()
    assert ui.browser.isVisible()
    ui.browser.close()  # closing hides; the app stays
    assert not ui.browser.isVisible()

    ui.settings.notify.setChecked(True)
    ui.settings.size_box.setCurrentText("1280x720")
    ui.settings.follow.setChecked(False)
    ui.settings.save()
    again = SettingsStore(config.settings_path).load()
    assert again.send_notifications
    assert not again.follow_browser_commands
    assert again.background_dimensions == (1280, 720)
    assert engine.settings == again
    del app


if __name__ == "__main__":
    check(Path(sys.argv[1]))
