"""The Logs view (spec 1 §1 Log files): tails the selected session's NDJSON file, or the global
one as its own entry; shows time, level, category and message a row, the record's data on
demand; filters by level and category; Clear Logs removes only the selected session's file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..logic.logview import LEVELS, LogEntry, LogTail, matches
from ..logic.workspace import SessionRow
from ..qt import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QKeySequence,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QTimer,
    QVBoxLayout,
)
from .widgets import HidingWindow, confirm

MAX_ROWS = 5000
POLL_MS = 500
GLOBAL = "global"


class LogsWindow(HidingWindow):
    escape_hides = True

    def __init__(self, logs_dir: Path, selected: Callable[[], str | None]) -> None:
        super().__init__()
        self.setWindowTitle("svc logs")
        self.resize(1000, 560)
        self.logs_dir = logs_dir
        self.selected = selected
        self.source = QComboBox()
        self.source.setToolTip("Which log file: a session's, or the app's global log")
        self.source.currentIndexChanged.connect(lambda _i: self._switch())
        self.level = QComboBox()
        self.level.addItem("All levels", None)
        for level in LEVELS[1:]:
            self.level.addItem(f"{level} and above", level)
        self.level.currentIndexChanged.connect(lambda _i: self._rerender())
        self.category = QLineEdit()
        self.category.setPlaceholderText("Category contains…")
        self.category.textChanged.connect(lambda _t: self._rerender())
        self.clear_button = QPushButton("Clear Logs")
        self.clear_button.setToolTip("Remove this session's log file (Ctrl+Shift+K)")
        self.clear_button.setShortcut(QKeySequence("Ctrl+Shift+K"))
        self.clear_button.clicked.connect(self.clear_logs)
        top = QHBoxLayout()
        top.addWidget(QLabel("Log"))
        top.addWidget(self.source, 1)
        top.addWidget(self.level)
        top.addWidget(self.category, 1)
        top.addWidget(self.clear_button)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Time", "Level", "Category", "Message"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)  # type: ignore[union-attr]
        header = self.table.horizontalHeader()
        assert header is not None
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.currentCellChanged.connect(lambda row, *_: self._details(row))
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setPlaceholderText("Select a record to see its data.")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.details)
        split.setSizes([420, 140])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        self.entries: list[LogEntry] = []
        self.shown: list[LogEntry] = []
        self.tail: LogTail | None = None
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)

    # -- sources -------------------------------------------------------------------------------

    def set_sessions(self, rows: list[SessionRow]) -> None:
        """The entries: the global log, then one per session (the list the browser window
        shows), keeping the current choice."""
        current = self.source.currentData()
        wanted = [(GLOBAL, "Global (app and agent)")] + [
            (r.id, f"{r.name} ({r.id})") for r in sorted(rows, key=lambda r: r.number)
        ]
        have = [
            (self.source.itemData(i), self.source.itemText(i)) for i in range(self.source.count())
        ]
        if have == wanted:
            return
        self.source.blockSignals(True)
        self.source.clear()
        for key, text in wanted:
            self.source.addItem(text, key)
        index = self.source.findData(current)
        self.source.setCurrentIndex(max(index, 0))
        self.source.blockSignals(False)
        if self.source.currentData() != current:
            self._switch()

    def path(self) -> Path:
        key = self.source.currentData()
        if not isinstance(key, str) or key == GLOBAL:
            return self.logs_dir / "global.ndjson"
        return self.logs_dir / "sessions" / f"{key.removeprefix('Session')}.ndjson"

    def showEvent(self, event: object) -> None:
        # opened on the session selected in the browser window
        sid = self.selected()
        index = self.source.findData(sid) if sid is not None else -1
        if index >= 0 and index != self.source.currentIndex():
            self.source.setCurrentIndex(index)
        elif self.tail is None:
            self._switch()
        self.timer.start(POLL_MS)
        super().showEvent(event)  # type: ignore[arg-type]

    def hideEvent(self, event: object) -> None:
        self.timer.stop()
        super().hideEvent(event)  # type: ignore[arg-type]

    def _switch(self) -> None:
        self.tail = LogTail(self.path())
        self.entries = []
        self.clear_button.setEnabled(self.source.currentData() not in (None, GLOBAL))
        self._rerender()
        self.poll()

    # -- reading -------------------------------------------------------------------------------

    def poll(self) -> None:
        if self.tail is None:
            return
        reset, new = self.tail.read()
        if reset:
            self.entries = []
            self._rerender()
        if new:
            self.entries.extend(new)
            del self.entries[:-MAX_ROWS]
            self._append([e for e in new if self._wanted(e)])

    def _wanted(self, entry: LogEntry) -> bool:
        level = self.level.currentData()
        return matches(
            entry,
            min_level=level if isinstance(level, str) else None,
            category=self.category.text(),
        )

    def _rerender(self) -> None:
        self.table.setRowCount(0)
        self.shown = []
        self.details.clear()
        self._append([e for e in self.entries if self._wanted(e)])

    def _append(self, entries: list[LogEntry]) -> None:
        if not entries:
            return
        at_bottom = self._at_bottom()
        self.shown.extend(entries)
        overflow = len(self.shown) - MAX_ROWS
        if overflow > 0:
            del self.shown[:overflow]
            for _ in range(min(overflow, self.table.rowCount())):
                self.table.removeRow(0)
        start = self.table.rowCount()
        entries = entries[-MAX_ROWS:]
        self.table.setRowCount(start + len(entries))
        for i, e in enumerate(entries):
            for col, text in enumerate((e.time_text, e.level, e.category, e.message)):
                item = QTableWidgetItem(text)
                if e.malformed or e.level in ("warning", "error"):
                    item.setForeground(Qt.GlobalColor.darkRed)
                self.table.setItem(start + i, col, item)
        if at_bottom:
            self.table.scrollToBottom()

    def _at_bottom(self) -> bool:
        bar = self.table.verticalScrollBar()
        return bar is None or bar.value() >= bar.maximum() - 2

    def _details(self, row: int) -> None:
        if not 0 <= row < len(self.shown):
            self.details.clear()
            return
        e = self.shown[row]
        head = f"{e.time_text}  {e.level}  {e.category}" + (
            f"  {e.session_id}" if e.session_id else ""
        )
        self.details.setPlainText(f"{head}\n{e.message}\n\n{e.data_json or '(no data)'}")

    # -- clearing ------------------------------------------------------------------------------

    def clear_logs(self) -> None:
        key = self.source.currentData()
        if not isinstance(key, str) or key == GLOBAL:
            return
        if not confirm(
            self,
            "Clear Logs",
            f"Remove the log file of {self.source.currentText()}? Other sessions' logs and the"
            " global log are kept; the next record starts a new file.",
            "&Clear",
        ):
            return
        try:
            self.path().unlink(missing_ok=True)
        except OSError as exc:
            self.details.setPlainText(f"Could not remove {self.path()}: {exc}")
            return
        self._switch()
