"""Desktop UI: the tray icon and menu (where a tray exists), the browser window with its menu bar,
the settings, logs and info windows. Closing a window hides it; Quit stops the agent and exits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bridge_protocol import NeedsPerson

from ..engine.window_port import WindowPort
from ..logic.settings import PLANS, SIZE_PRESETS, AppSettings, SettingsStore
from ..qt import (
    QAction,
    QApplication,
    QCheckBox,
    QCloseEvent,
    QColor,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QIcon,
    QLabel,
    QMenu,
    QPainter,
    QPixmap,
    QPushButton,
    QSystemTrayIcon,
    Qt,
    QTimer,
    QWidget,
)
from .agent_client import ApiError, UiApi
from .browser_window import BrowserWindow
from .info_window import InfoWindow
from .logs_window import LogsWindow
from .person_notice import PersonNotice
from .widgets import confirm


def app_icon() -> QIcon:
    pix = QPixmap(64, 64)
    pix.fill(QColor(0, 0, 0, 0))
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setBrush(QColor("#2f6fdd"))
    p.setPen(Qt.PenStyle.NoPen)
    p.drawRoundedRect(4, 4, 56, 56, 12, 12)
    p.setPen(QColor("white"))
    font = p.font()
    font.setPixelSize(30)
    font.setBold(True)
    p.setFont(font)
    p.drawText(pix.rect(), Qt.AlignmentFlag.AlignCenter, "S")
    p.end()
    return QIcon(pix)


class SettingsWindow(QDialog):
    def __init__(self, store: SettingsStore, engine: WindowPort, api: UiApi | None = None) -> None:
        super().__init__()
        self.store = store
        self.engine = engine
        self.api = api
        self.setWindowTitle("svc settings")
        self.size_box = QComboBox()
        self.size_box.addItems(list(SIZE_PRESETS))
        self.follow = QCheckBox("Follow browser commands")
        self.challenge = QCheckBox("Wait for bot challenge")
        self.notify = QCheckBox("Send notifications to the agent")
        self.adblock = QCheckBox("Block ads (global switch)")
        self.shared_cache = QCheckBox("Shared asset cache (see the README: off by default)")
        # the saved profiles (GET /v1/profiles) and the built-in Custom; a name typed here that
        # is not saved yet applies once such a profile is saved
        self.profile = QComboBox()
        self.profile.setEditable(True)
        self.plan = QComboBox()
        self.plan.addItems(list(PLANS))
        form = QFormLayout(self)
        form.addRow("Background Browser Size", self.size_box)
        form.addRow(self.follow)
        form.addRow(self.challenge)
        form.addRow(self.notify)
        form.addRow(self.adblock)
        form.addRow(self.shared_cache)
        form.addRow("Default Profile", self.profile)
        form.addRow("Plan", self.plan)
        self.clear_private = QPushButton("Clear &private caches…")
        self.clear_private.setToolTip("Every session's own HTTP cache; cookies and storage stay")
        self.clear_private.clicked.connect(self.clear_private_caches)
        self.clear_shared = QPushButton("Clear s&hared cache…")
        self.clear_shared.setToolTip("The shared asset cache of every partition")
        self.clear_shared.clicked.connect(self.clear_shared_cache)
        caches = QHBoxLayout()
        caches.addWidget(self.clear_private)
        caches.addWidget(self.clear_shared)
        form.addRow("Caches", caches)
        self.note = QLabel("")
        form.addRow(self.note)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.hide)
        form.addRow(buttons)
        self.load(engine.settings)

    def load(self, s: AppSettings) -> None:
        self.size_box.setCurrentText(s.background_size)
        self.follow.setChecked(s.follow_browser_commands)
        self.challenge.setChecked(s.wait_for_bot_challenge)
        self.notify.setChecked(s.send_notifications)
        self.adblock.setChecked(s.adblock_enabled)
        self.shared_cache.setChecked(s.shared_asset_cache)
        self.profile.setCurrentText(s.default_profile)
        self.plan.setCurrentText(s.plan)

    def save(self) -> None:
        s = self.engine.settings.with_changes(
            background_size=self.size_box.currentText(),
            follow_browser_commands=self.follow.isChecked(),
            wait_for_bot_challenge=self.challenge.isChecked(),
            send_notifications=self.notify.isChecked(),
            adblock_enabled=self.adblock.isChecked(),
            shared_asset_cache=self.shared_cache.isChecked(),
            default_profile=self.profile.currentText().strip() or "Custom",
            plan=self.plan.currentText(),
        )
        self.store.save(s)
        self.engine.apply_app_settings(s)
        self.hide()

    def clear_private_caches(self) -> None:
        if confirm(
            self,
            "Clear private caches",
            "Clear the HTTP cache of every session? Cookies, site storage and the shared asset"
            " cache stay.",
            "&Clear",
        ):
            self.engine.clear_private_caches()
            self.note.setText("Private caches cleared.")

    def clear_shared_cache(self) -> None:
        if confirm(
            self,
            "Clear shared cache",
            "Clear the shared asset cache of every partition? Sessions' own caches stay.",
            "&Clear",
        ):
            self.engine.clear_shared_cache()
            self.note.setText("Shared cache cleared.")

    def showEvent(self, event: Any) -> None:
        self.note.setText("")
        self.load(self.engine.settings)
        if self.api is not None:
            self.api.profile_names(self._profiles)
        super().showEvent(event)

    def _profiles(self, answer: list[str] | ApiError) -> None:
        names = ["Custom"] + ([] if isinstance(answer, ApiError) else sorted(answer, key=str.lower))
        typed = self.profile.currentText()
        self.profile.clear()
        self.profile.addItems(names)
        self.profile.setCurrentText(typed)

    def closeEvent(self, event: QCloseEvent | None) -> None:
        if event is not None:
            event.ignore()
        self.hide()


class MainUI:
    def __init__(
        self,
        engine: WindowPort,
        store: SettingsStore,
        quit_app: Callable[[], None],
        *,
        port: int,
        logs_dir: Path,
        user_env: dict[str, str] | None = None,
    ) -> None:
        """`port`: the agent's API; `logs_dir`: the folder the Logs view reads."""
        self.engine = engine
        self.api = UiApi(port)
        self.browser = BrowserWindow(engine, self.api)
        # the shells get the user's environment, not the one the app set for Qt
        self.browser.terminal_env = user_env
        self.settings = SettingsWindow(store, engine, self.api)
        self.logs = LogsWindow(logs_dir, lambda: self.browser.current)
        self.info = InfoWindow(engine, self.api, self.browser.row, self.browser.clear_data_of)
        hooks = self.browser.hooks
        hooks.show_settings = self.show_settings
        hooks.show_logs = self.show_logs
        hooks.show_info = self.info.show_session
        hooks.quit = quit_app
        hooks.rows.append(self.logs.set_sessions)
        hooks.rows.append(lambda _rows: self.info.refresh())
        self.icon = app_icon()
        for window in (self.browser, self.settings, self.logs, self.info):
            window.setWindowIcon(self.icon)
        self.tray = QSystemTrayIcon(self.icon)
        self.tray.setToolTip("svc")
        menu = QMenu()
        self.actions: dict[str, QAction] = {}
        for name, slot in (
            ("Show Browser", self.show_browser),
            ("Settings", self.show_settings),
            ("Logs", self.show_logs),
            ("Quit", quit_app),
        ):
            action = menu.addAction(name)
            assert action is not None
            action.triggered.connect(slot)
            self.actions[name] = action
        self.menu = menu
        self.tray.setContextMenu(menu)
        # a session's page waits for a person: a desktop notification that shows it
        self.notice = PersonNotice(
            self._show_session,
            lambda message, data: engine.write_log("ui.needs_person", message, **data),
            self.tray,
        )
        engine.when_needs_person(self._needs_person)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.applicationStateChanged.connect(self._app_state)

    def agent_state(self, state: str) -> None:
        """The agent's process changed state (the shell's supervisor tells)."""
        self.tray.setToolTip(f"svc: agent {state}")

    def _app_state(self, state: Qt.ApplicationState) -> None:
        # whether browser operations select their session depends on it (Follow browser commands)
        active = state == Qt.ApplicationState.ApplicationActive
        self.engine.write_log(
            "ui.app_state", "the app is " + ("active" if active else "inactive"), active=active
        )

    def start(self) -> None:
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray.show()
        self.show_browser()

    def show_browser(self) -> None:
        self.browser.refresh()
        _bring(self.browser)

    def _show_session(self, session_id: str) -> None:
        self.browser.select(session_id)
        self.show_browser()

    def _needs_person(self, session_id: str, person: NeedsPerson) -> None:
        row = self.browser.row(session_id)
        self.notice.tell(session_id, row.name if row is not None else session_id, person)
        QTimer.singleShot(0, self.browser.refresh)

    def close(self) -> None:
        """At quit: every terminal's shell ends (nothing is left running), no request to the
        agent answers into a window that is going."""
        self.browser.list_timer.stop()
        self.api.close()
        self.browser.close_terminals()

    def show_settings(self) -> None:
        _bring(self.settings)

    def show_logs(self) -> None:
        _bring(self.logs)


def _bring(window: QWidget) -> None:
    window.show()
    window.raise_()
    window.activateWindow()
