"""The terminal panel of a browser workspace (spec 1 §1 rule 11): one shell per panel, started when
the panel is first shown, in the user's home directory with SVC_SESSION_ID and SVC_SESSION_URL.

Qt code only: events become `KeyPress`es and cells for `host_app.logic.terminal`, its `View`s are
painted, and the pty is read through a QSocketNotifier so the GUI thread never blocks on the
shell. The process itself is `host_app.ui.pty_process.PtyProcess`.
"""

from __future__ import annotations

import math
import os
import pwd
from collections.abc import Callable, Mapping
from enum import Enum
from typing import assert_never

from host_app.logic.terminal import (
    DEFAULT_PALETTE,
    EXITED_MESSAGE,
    Copy,
    KeyPress,
    Paste,
    Scroll,
    Send,
    Terminal,
    View,
    interpret_key,
    paste_bytes,
    shell_command,
)
from host_app.qt import (
    QApplication,
    QClipboard,
    QColor,
    QContextMenuEvent,
    QCoreApplication,
    QEvent,
    QFocusEvent,
    QFont,
    QFontDatabase,
    QFontMetricsF,
    QInputMethodEvent,
    QKeyEvent,
    QMenu,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPointF,
    QRectF,
    QResizeEvent,
    QShowEvent,
    QSocketNotifier,
    Qt,
    QTimer,
    QWheelEvent,
    QWidget,
    pyqtSignal,
    sip,
)
from host_app.ui.pty_process import PtyProcess

_NAMED_KEYS = {
    Qt.Key.Key_Return: "Enter",
    Qt.Key.Key_Enter: "Enter",
    Qt.Key.Key_Backspace: "Backspace",
    Qt.Key.Key_Tab: "Tab",
    Qt.Key.Key_Backtab: "Backtab",
    Qt.Key.Key_Escape: "Escape",
    Qt.Key.Key_Up: "Up",
    Qt.Key.Key_Down: "Down",
    Qt.Key.Key_Left: "Left",
    Qt.Key.Key_Right: "Right",
    Qt.Key.Key_Home: "Home",
    Qt.Key.Key_End: "End",
    Qt.Key.Key_PageUp: "PageUp",
    Qt.Key.Key_PageDown: "PageDown",
    Qt.Key.Key_Insert: "Insert",
    Qt.Key.Key_Delete: "Delete",
    **{getattr(Qt.Key, f"Key_F{n}"): f"F{n}" for n in range(1, 13)},
}
_KEY_NAMES = {key.value: name for key, name in _NAMED_KEYS.items()}
_WHEEL_LINES = 3
# pyte parses about 0.8 MB/s: 16 KiB per wake-up keeps the GUI thread free within ~20 ms
_READ_CHUNK = 16384
_DRAIN_READS = 64  # what is read of a finished shell's pty before its session is ended


def key_press(event: QKeyEvent) -> KeyPress:
    """A Qt key event as plain data."""
    code = event.key()
    name = _KEY_NAMES.get(code, "")
    if not name and 0x20 <= code <= 0x7E:
        name = chr(code)
    mods = event.modifiers()
    return KeyPress(
        key=name,
        text=event.text(),
        ctrl=bool(mods & Qt.KeyboardModifier.ControlModifier),
        alt=bool(mods & Qt.KeyboardModifier.AltModifier),
        shift=bool(mods & Qt.KeyboardModifier.ShiftModifier),
    )


class _State(Enum):
    IDLE = "idle"  # never shown: no shell yet
    RUNNING = "running"
    EXITED = "exited"  # the shell ended by itself: Enter starts a new one
    CLOSED = "closed"  # close_shell() ended it


class TerminalPanel(QWidget):
    """A terminal running the user's login shell for one browser session.

    Signals: `shell_started(pid)`, `shell_exited(status)` (negative: killed by that signal),
    `title_changed(title)` (the title the shell set with OSC 0/2)."""

    shell_started = pyqtSignal(int)
    shell_exited = pyqtSignal(int)
    title_changed = pyqtSignal(str)

    def __init__(
        self,
        session_id: str,
        current_url: Callable[[], str],
        parent: QWidget | None = None,
        *,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        """`current_url` is read at each shell start. `environment` is the one the user's shell
        inherits (the user's own, before the app changed its own for Qt, e.g. XDG_DATA_HOME);
        the app's current environment when None."""
        super().__init__(parent)
        self._session_id = session_id
        self._current_url = current_url
        self._environment = dict(environment) if environment is not None else None
        self._palette = DEFAULT_PALETTE
        self._fonts = self._make_fonts()
        metrics = QFontMetricsF(self._fonts[(False, False, False)])
        self._cell_width = max(1.0, metrics.horizontalAdvance("M"))
        self._cell_height = max(1.0, float(math.ceil(metrics.lineSpacing())))
        self._ascent = metrics.ascent()
        self._terminal = Terminal(24, 80)
        self._state = _State.IDLE
        self._process: PtyProcess | None = None
        self._notifiers: list[QSocketNotifier] = []
        self._write_notifier: QSocketNotifier | None = None
        self._exit_poll: QTimer | None = None
        self._pidfd: int | None = None
        self._outbox = bytearray()
        self._title = ""
        self._selecting = False
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setCursor(Qt.CursorShape.IBeamCursor)
        self.setAccessibleName("Terminal")
        self.setMinimumSize(int(self._cell_width * 20), int(self._cell_height * 4))
        app = QCoreApplication.instance()
        if app is not None:  # a safety net: the app also calls close_shell() on quit
            app.aboutToQuit.connect(self.close_shell)

    # -- public ---------------------------------------------------------------------------------

    @property
    def shell_pid(self) -> int | None:
        """The running shell's pid (also its process group and session), None when none runs."""
        return self._process.pid if self._process is not None else None

    @property
    def grid_size(self) -> tuple[int, int]:
        """(rows, columns) of the terminal."""
        return (self._terminal.rows, self._terminal.columns)

    def screen_text(self) -> str:
        """The visible lines as text, trailing blanks removed."""
        return self._terminal.text()

    def view(self) -> View:
        """The visible lines as styled runs (colours resolved), and the cursor."""
        return self._terminal.view(self._palette)

    def cell_rect(self, row: int, column: int) -> QRectF:
        """Where a cell of the view is drawn, in widget coordinates."""
        return QRectF(
            column * self._cell_width, row * self._cell_height, self._cell_width, self._cell_height
        )

    def copy(self) -> None:
        """Copies the selection to the clipboard."""
        text = self._terminal.selected_text()
        if text:
            _clipboard().setText(text)

    def paste(self) -> None:
        """Sends the clipboard's text to the shell (bracketed when the shell asked for it)."""
        self._paste_text(_clipboard().text())

    def close_shell(self) -> None:
        """Ends the shell and everything it started (SIGHUP, then SIGKILL after a short grace),
        reaping it. The panel stays; it starts no shell again by itself."""
        if self._process is not None:
            self._stop(show_message=False)
        self._state = _State.CLOSED

    # -- the shell ------------------------------------------------------------------------------

    def _start_shell(self) -> None:
        rows, columns = self._grid()
        self._terminal.resize(rows, columns)
        try:
            entry: pwd.struct_passwd | None = pwd.getpwuid(os.getuid())
        except KeyError:
            entry = None
        command = shell_command(
            self._environment if self._environment is not None else os.environ,
            passwd_shell=entry.pw_shell if entry else None,
            passwd_home=entry.pw_dir if entry else None,
            session_id=self._session_id,
            session_url=self._current_url(),
            is_executable=lambda path: os.access(path, os.X_OK),
        )
        try:
            process = PtyProcess(command, rows, columns)
        except OSError as e:
            self._show_line(f"[cannot start {command.path}: {e.strerror or e}]")
            self._state = _State.EXITED
            return
        self._process = process
        self._state = _State.RUNNING
        assert process.master_fd is not None
        readable = QSocketNotifier(sip.voidptr(process.master_fd), QSocketNotifier.Type.Read, self)
        readable.activated.connect(self._on_readable)
        writable = QSocketNotifier(sip.voidptr(process.master_fd), QSocketNotifier.Type.Write, self)
        writable.setEnabled(False)
        writable.activated.connect(self._flush)
        self._notifiers = [readable, writable]
        self._write_notifier = writable
        self._watch_exit(process.pid)
        self.shell_started.emit(process.pid)

    def _watch_exit(self, pid: int) -> None:
        """The shell may exit while a job it left still holds the pty: watch the pid itself."""
        if hasattr(os, "pidfd_open"):
            self._pidfd = os.pidfd_open(pid)
            exited = QSocketNotifier(sip.voidptr(self._pidfd), QSocketNotifier.Type.Read, self)
            exited.activated.connect(self._on_exit)
            self._notifiers.append(exited)
        else:
            self._exit_poll = QTimer(self)
            self._exit_poll.timeout.connect(self._poll_exit)
            self._exit_poll.start(200)

    def _poll_exit(self) -> None:
        if self._process is not None and self._process.poll() is not None:
            self._on_exit()

    def _on_readable(self) -> None:
        if self._process is None:
            return
        data = self._process.read(_READ_CHUNK)
        if data is None:
            self._on_exit()
        elif data:
            self._apply_output(data)

    def _on_exit(self) -> None:
        if self._process is None:
            return
        for _ in range(_DRAIN_READS):  # bounded: a job left behind may still be writing
            data = self._process.read(_READ_CHUNK)
            if not data:
                break
            self._apply_output(data)
        self._stop(show_message=True)

    def _apply_output(self, data: bytes) -> None:
        replies = self._terminal.feed(data)
        if replies:
            self._send(replies)
        if self._terminal.title != self._title:
            self._title = self._terminal.title
            self.title_changed.emit(self._title)
        self.update()

    def _stop(self, show_message: bool) -> None:
        process, self._process = self._process, None
        for notifier in self._notifiers:
            notifier.setEnabled(False)
            notifier.deleteLater()
        self._notifiers, self._write_notifier = [], None
        if self._exit_poll is not None:
            self._exit_poll.stop()
            self._exit_poll.deleteLater()
            self._exit_poll = None
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        self._outbox.clear()
        if process is None:
            return
        status = process.close()
        if show_message:
            self._show_line(EXITED_MESSAGE)
            self._state = _State.EXITED
        self.shell_exited.emit(status)

    def _show_line(self, text: str) -> None:
        self._terminal.scroll = 0
        self._terminal.feed(f"\r\n{text}\r\n".encode())
        self.update()

    def _send(self, data: bytes) -> None:
        if self._process is None:
            return
        self._outbox += data
        self._flush()

    def _flush(self) -> None:
        if self._process is None:
            return
        if self._outbox:
            written = self._process.write(bytes(self._outbox))
            del self._outbox[:written]
        if self._write_notifier is not None:
            self._write_notifier.setEnabled(bool(self._outbox))

    def _paste_text(self, text: str) -> None:
        if text and self._state is _State.RUNNING:
            self._terminal.scroll = 0
            self._send(paste_bytes(text, self._terminal.modes().bracketed_paste))
            self.update()

    # -- geometry -------------------------------------------------------------------------------

    def _grid(self) -> tuple[int, int]:
        rows = max(1, int(self.height() // self._cell_height))
        columns = max(2, int(self.width() // self._cell_width))
        return rows, columns

    def _cell_at(self, position: QPointF) -> tuple[int, int]:
        return int(position.y() // self._cell_height), int(position.x() // self._cell_width)

    def _make_fonts(self) -> dict[tuple[bool, bool, bool], QFont]:
        base = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        base.setStyleHint(QFont.StyleHint.TypeWriter)
        base.setFixedPitch(True)
        fonts = {}
        for bold in (False, True):
            for italic in (False, True):
                for underline in (False, True):
                    font = QFont(base)
                    font.setBold(bold)
                    font.setItalic(italic)
                    font.setUnderline(underline)
                    fonts[(bold, italic, underline)] = font
        return fonts

    # -- Qt events ------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent | None) -> None:
        super().showEvent(event)
        if self._state is _State.IDLE:
            self._start_shell()

    def resizeEvent(self, event: QResizeEvent | None) -> None:
        super().resizeEvent(event)
        rows, columns = self._grid()
        if (rows, columns) != self.grid_size:
            self._terminal.resize(rows, columns)
            if self._process is not None:
                self._process.resize(rows, columns)
            self.update()

    def focusNextPrevChild(self, next: bool) -> bool:
        return False  # Tab and Shift+Tab belong to the shell

    def event(self, event: QEvent | None) -> bool:
        if event is not None and event.type() == QEvent.Type.ShortcutOverride:
            assert isinstance(event, QKeyEvent)
            if interpret_key(key_press(event)) is not None:
                event.accept()  # keys the shell takes are not the window's shortcuts
                return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent | None) -> None:
        if event is None:
            return
        press = key_press(event)
        if self._state is not _State.RUNNING:
            if press.key == "Enter" and self._state is _State.EXITED:
                self._start_shell()
            event.accept()
            return
        action = interpret_key(press, self._terminal.modes().app_cursor)
        if isinstance(action, Send):
            self._terminal.scroll = 0
            self._send(action.data)
        elif isinstance(action, Copy):
            self.copy()
        elif isinstance(action, Paste):
            self.paste()
        elif isinstance(action, Scroll):
            self._terminal.scroll_by(-action.pages * max(1, self._terminal.rows - 1))
        elif action is None:
            super().keyPressEvent(event)
            return
        else:
            assert_never(action)
        event.accept()
        self.update()

    def inputMethodEvent(self, event: QInputMethodEvent | None) -> None:
        if event is not None and event.commitString() and self._state is _State.RUNNING:
            self._send(event.commitString().encode())
            event.accept()

    def mousePressEvent(self, event: QMouseEvent | None) -> None:
        if event is None:
            return
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        if event.button() == Qt.MouseButton.LeftButton:
            point = self._terminal.point_at(*self._cell_at(event.position()))
            self._terminal.select(point, point)
            self._selecting = True
            self.update()
        elif event.button() == Qt.MouseButton.MiddleButton:
            clipboard = _clipboard()
            if clipboard.supportsSelection():
                self._paste_text(clipboard.text(QClipboard.Mode.Selection))

    def mouseMoveEvent(self, event: QMouseEvent | None) -> None:
        if event is None or not self._selecting or self._terminal.selection is None:
            return
        head = self._terminal.point_at(*self._cell_at(event.position()))
        self._terminal.select(self._terminal.selection.anchor, head)
        self.update()

    def mouseReleaseEvent(self, event: QMouseEvent | None) -> None:
        if event is None or not self._selecting:
            return
        self._selecting = False
        text = self._terminal.selected_text()
        if not text:
            self._terminal.selection = None
        elif _clipboard().supportsSelection():
            _clipboard().setText(text, QClipboard.Mode.Selection)
        self.update()

    def wheelEvent(self, event: QWheelEvent | None) -> None:
        if event is None:
            return
        steps = event.angleDelta().y() / 120
        self._terminal.scroll_by(round(steps * _WHEEL_LINES))
        event.accept()
        self.update()

    def contextMenuEvent(self, event: QContextMenuEvent | None) -> None:
        if event is not None:
            self.context_menu().exec(event.globalPos())

    def context_menu(self) -> QMenu:
        """The panel's menu: Copy (with a selection) and Paste."""
        menu = QMenu(self)
        copy = menu.addAction("Copy")
        paste = menu.addAction("Paste")
        assert copy is not None
        assert paste is not None
        copy.setEnabled(bool(self._terminal.selected_text()))
        copy.triggered.connect(self.copy)
        paste.setEnabled(self._state is _State.RUNNING)
        paste.triggered.connect(self.paste)
        return menu

    def focusInEvent(self, event: QFocusEvent | None) -> None:
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event: QFocusEvent | None) -> None:
        super().focusOutEvent(event)
        self.update()

    def paintEvent(self, event: QPaintEvent | None) -> None:
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), QColor(self._palette.background))
            view = self.view()
            for row, runs in enumerate(view.rows):
                for run in runs:
                    rect = self.cell_rect(row, run.column)
                    rect.setWidth(run.width * self._cell_width)
                    if run.bg != self._palette.background:
                        painter.fillRect(rect, QColor(run.bg))
                    if run.text.strip() or run.underline:
                        painter.setFont(self._fonts[(run.bold, run.italic, run.underline)])
                        painter.setPen(QColor(run.fg))
                        painter.drawText(QPointF(rect.x(), rect.y() + self._ascent), run.text)
            if view.cursor is not None and self._state is _State.RUNNING:
                self._paint_cursor(painter, view, *view.cursor)
        finally:
            painter.end()

    def _paint_cursor(self, painter: QPainter, view: View, row: int, column: int) -> None:
        rect = self.cell_rect(row, column)
        colour = QColor(self._palette.cursor)
        if not self.hasFocus():
            painter.setPen(colour)
            painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5))
            return
        painter.fillRect(rect, colour)
        for run in view.rows[row]:
            if run.column <= column < run.column + len(run.text):
                painter.setFont(self._fonts[(run.bold, run.italic, False)])
                painter.setPen(QColor(self._palette.background))
                painter.drawText(
                    QPointF(rect.x(), rect.y() + self._ascent), run.text[column - run.column]
                )
                break


def _clipboard() -> QClipboard:
    clipboard = QApplication.clipboard()
    assert clipboard is not None
    return clipboard
