"""Desktop UI: tray icon and menu, browser window (sessions beside the live view), settings and
logs windows. Closing a window hides it; Quit stops the agent and exits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bridge_protocol import SessionSettings

from .config import HostConfig
from .engine import Engine
from .logic.settings import PLANS, SIZE_PRESETS, AppSettings, SettingsStore
from .qt import (
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
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPainter,
    QPixmap,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QSystemTrayIcon,
    Qt,
    QTimer,
    QToolButton,
    QUrl,
    QVBoxLayout,
    QWidget,
)
from .session_browser import SessionBrowser
from .supervisor import Supervisor


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


ROUTE_BANNER = (
    "This session's proxy or trust settings changed. The open page is kept and its network is"
    " held until it is reloaded on the new route."
)


def session_line(session_id: str, settings: SessionSettings, paused: bool) -> str:
    """The session list's text: name, id, group, proxy, paused (plain, testable)."""
    name = settings.name or session_id
    group = settings.group or "-"
    port = settings.proxy_port
    proxy = f"proxy :{port}" if port else "direct"
    state = "paused" if paused else "active"
    return f"{name}  ({session_id})  group {group}  {proxy}  {state}"


class HidingWindow(QWidget):
    def closeEvent(self, event: QCloseEvent | None) -> None:
        if event is not None:
            event.ignore()
        self.hide()


class BrowserWindow(HidingWindow):
    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        self.setWindowTitle("svc browser")
        self.resize(1280, 800)
        self.sessions = QListWidget()
        self.sessions.currentItemChanged.connect(lambda *_: self._select_current())
        self.stack = QStackedWidget()
        self.placeholder = QLabel("No session selected.\nSessions appear when the agent uses them.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack.addWidget(self.placeholder)
        self.address = QLineEdit()
        self.address.returnPressed.connect(self._go)
        self.back = self._button("◀", "Back", "back")
        self.forward = self._button("▶", "Forward", "forward")
        self.reload = self._button("⟳", "Reload", "reload")
        self.pause = QToolButton()
        self.pause.setText("Pause")
        self.pause.setCheckable(True)
        self.pause.toggled.connect(self._pause_toggled)
        bar = QHBoxLayout()
        for w in (self.back, self.forward, self.reload):
            bar.addWidget(w)
        bar.addWidget(self.address, 1)
        bar.addWidget(self.pause)
        # spec 1 §4 Sessions: a change that needs a new browser context leaves the open page as
        # it is (its network held) and offers to apply it
        self.banner = QWidget()
        self.banner_text = QLabel(ROUTE_BANNER)
        self.banner_text.setWordWrap(True)
        self.apply_route = QPushButton("Reload and apply")
        self.apply_route.clicked.connect(self._reload_and_apply)
        banner_layout = QHBoxLayout(self.banner)
        banner_layout.addWidget(self.banner_text, 1)
        banner_layout.addWidget(self.apply_route)
        self.banner.setVisible(False)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(bar)
        rl.addWidget(self.banner)
        rl.addWidget(self.stack, 1)
        split = QSplitter()
        split.addWidget(self.sessions)
        split.addWidget(right)
        split.setSizes([320, 960])
        layout = QVBoxLayout(self)
        layout.addWidget(split)
        self.current: str | None = None
        engine.on_session_changed.append(lambda _sid: QTimer.singleShot(0, self.refresh))
        engine.on_operation.append(self._operation)

    def _button(self, text: str, tip: str, how: str) -> QToolButton:
        b = QToolButton()
        b.setText(text)
        b.setToolTip(tip)
        b.clicked.connect(lambda: self._page_action(how))
        return b

    def _browser(self) -> SessionBrowser | None:
        return self.engine.sessions.get(self.current or "")

    def _page_action(self, how: str) -> None:
        # as the agent's history moves: Back on a popup with no history closes it
        b = self._browser()
        if b is not None and b.page is not None:
            b.history(how)

    def _go(self) -> None:
        b = self._browser()
        text = self.address.text().strip()
        if b is not None and b.page is not None and text:
            if "://" not in text:
                text = "https://" + text
            b.page.load(QUrl(text))

    def _pause_toggled(self, on: bool) -> None:
        b = self._browser()
        if b is None:
            return
        if on:
            b.pause()
        else:
            b.play()
        self.pause.setText("Play" if on else "Pause")
        self.refresh()

    def _reload_and_apply(self) -> None:
        if self.current is not None:
            self.engine.reload_and_apply(self.current)

    def _operation(self, session_id: str) -> None:
        # selected for the next view; the window is not raised
        QTimer.singleShot(0, lambda: self.select(session_id))

    def refresh(self) -> None:
        ids = sorted(self.engine.session_settings, key=lambda s: int(s[7:] or 0))
        self.sessions.blockSignals(True)
        self.sessions.clear()
        for sid in ids:
            b = self.engine.sessions.get(sid)
            settings = self.engine.session_settings[sid]
            paused = b.paused if b is not None else settings.network_paused
            item = QListWidgetItem(session_line(sid, settings, paused))
            item.setData(Qt.ItemDataRole.UserRole, sid)
            self.sessions.addItem(item)
            if sid == self.current:
                self.sessions.setCurrentItem(item)
        self.sessions.blockSignals(False)
        b = self._browser()
        if b is not None:
            self._show(b)
        self.banner.setVisible(b is not None and b.route_held)
        if b is not None and b.page is not None:
            self.address.setText(b.page.url().toString())
            self.pause.blockSignals(True)
            self.pause.setChecked(b.paused)
            self.pause.setText("Play" if b.paused else "Pause")
            self.pause.blockSignals(False)

    def select(self, session_id: str) -> None:
        if session_id == self.current:
            self.refresh()
            return
        self.current = session_id
        b = self.engine.browser(session_id) if session_id in self.engine.session_settings else None
        self._show(b)
        self.refresh()

    def _show(self, b: SessionBrowser | None) -> None:
        """Show the session's current page: its root page, or the popup that is current; the
        view shown before goes back to rendering off screen (a closed popup's view has already
        left the stack)."""
        want = b.view if b is not None else None
        have = self.stack.currentWidget()
        if have is (want if want is not None else self.placeholder):
            return
        if have is not None and have is not self.placeholder:
            self.stack.removeWidget(have)
            self.engine.show_background(have)
        if b is None or want is None:
            self.stack.setCurrentWidget(self.placeholder)
            return
        want.hide()
        want.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, False)
        self.stack.addWidget(want)
        self.stack.setCurrentWidget(want)
        want.show()
        self.engine.visible_session = b.session_id

    def _select_current(self) -> None:
        item = self.sessions.currentItem()
        if item is not None:
            self.select(str(item.data(Qt.ItemDataRole.UserRole)))


class SettingsWindow(QDialog):
    def __init__(self, store: SettingsStore, engine: Engine) -> None:
        super().__init__()
        self.store = store
        self.engine = engine
        self.setWindowTitle("svc settings")
        self.size_box = QComboBox()
        self.size_box.addItems(list(SIZE_PRESETS))
        self.follow = QCheckBox("Follow browser commands")
        self.challenge = QCheckBox("Wait for bot challenge")
        self.notify = QCheckBox("Send notifications to the agent")
        self.adblock = QCheckBox("Block ads (global switch)")
        self.profile = QLineEdit()
        self.plan = QComboBox()
        self.plan.addItems(list(PLANS))
        form = QFormLayout(self)
        form.addRow("Background Browser Size", self.size_box)
        form.addRow(self.follow)
        form.addRow(self.challenge)
        form.addRow(self.notify)
        form.addRow(self.adblock)
        form.addRow("Default Profile", self.profile)
        form.addRow("Plan", self.plan)
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
        self.profile.setText(s.default_profile)
        self.plan.setCurrentText(s.plan)

    def save(self) -> None:
        s = self.engine.settings.with_changes(
            background_size=self.size_box.currentText(),
            follow_browser_commands=self.follow.isChecked(),
            wait_for_bot_challenge=self.challenge.isChecked(),
            send_notifications=self.notify.isChecked(),
            adblock_enabled=self.adblock.isChecked(),
            default_profile=self.profile.text().strip() or "Custom",
            plan=self.plan.currentText(),
        )
        self.store.save(s)
        self.engine.apply_app_settings(s)
        self.hide()

    def closeEvent(self, event: QCloseEvent | None) -> None:
        if event is not None:
            event.ignore()
        self.hide()


class LogsWindow(HidingWindow):
    """Tails the global log; tolerates partial lines and resets on truncation."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.setWindowTitle("svc logs")
        self.resize(900, 500)
        self.path = path
        self.offset = 0
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setMaximumBlockCount(5000)
        QVBoxLayout(self).addWidget(self.text)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)

    def showEvent(self, event: Any) -> None:
        self.timer.start(1000)
        self.poll()
        super().showEvent(event)

    def hideEvent(self, event: Any) -> None:
        self.timer.stop()
        super().hideEvent(event)

    def poll(self) -> None:
        try:
            size = self.path.stat().st_size
            if size < self.offset:
                self.offset = 0
                self.text.clear()
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return
        end = data.rfind(b"\n")
        if end < 0:
            return
        self.offset += end + 1
        for line in data[: end + 1].decode("utf-8", "replace").splitlines():
            if line.strip():
                self.text.appendPlainText(line)


class MainUI:
    def __init__(
        self,
        engine: Engine,
        supervisor: Supervisor,
        store: SettingsStore,
        config: HostConfig,
        quit_app: Callable[[], None],
    ) -> None:
        self.engine = engine
        self.supervisor = supervisor
        self.browser = BrowserWindow(engine)
        self.settings = SettingsWindow(store, engine)
        self.logs = LogsWindow(config.logs_dir / "global.ndjson")
        self.icon = app_icon()
        self.browser.setWindowIcon(self.icon)
        self.tray = QSystemTrayIcon(self.icon)
        self.tray.setToolTip("svc")
        menu = QMenu()
        self.actions: dict[str, QAction] = {}
        for name, slot in (
            ("Show Browser", self.show_browser),
            ("Settings", self.settings.show),
            ("Logs", self.logs.show),
            ("Quit", quit_app),
        ):
            action = menu.addAction(name)
            assert action is not None
            action.triggered.connect(slot)
            self.actions[name] = action
        self.menu = menu
        self.tray.setContextMenu(menu)
        supervisor.on_state.append(lambda state: self.tray.setToolTip(f"svc: agent {state}"))
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.applicationStateChanged.connect(self._app_state)

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
        self.browser.show()
        self.browser.raise_()
        self.browser.activateWindow()
