"""The Info view of one session: who it is (ids, name, group, profile), how it reaches the web
(proxy and exit country, filtering), how long it lives, how much its data folder holds, and
Clear browsing data for that session only."""

from __future__ import annotations

from collections.abc import Callable

from ..engine.window_port import WindowPort
from ..logic.logview import machine_id_from_global_log
from ..logic.workspace import ProxyLocation, SessionRow, folder_size, info_lines
from ..qt import QFormLayout, QLabel, QPushButton, Qt, QTimer, QVBoxLayout, QWidget
from .agent_client import ApiError, UiApi
from .widgets import HidingWindow


class InfoWindow(HidingWindow):
    escape_hides = True

    def __init__(
        self,
        engine: WindowPort,
        api: UiApi | None,
        row_of: Callable[[str], SessionRow | None],
        clear: Callable[[QWidget, str], bool],
    ) -> None:
        super().__init__()
        self.clear = clear
        self.engine = engine
        self.api = api
        self.row_of = row_of
        self.session_id: str | None = None
        self.location: ProxyLocation | None = None
        # measured when the view opens and when the engine changes the session, not at every
        # read of the session list (a large profile folder takes a while to walk)
        self.data_bytes = 0
        self.machine_id: str | None = None
        self.resize(520, 380)
        self.form = QFormLayout()
        self.values: dict[str, QLabel] = {}
        self.clear_button = QPushButton("Clear browsing data…")
        self.clear_button.setToolTip(
            "Cookies, site storage, cache and history of this session only"
        )
        self.clear_button.clicked.connect(self.clear_data)
        self.note = QLabel("")
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.note)
        layout.addWidget(self.clear_button)
        engine.when_changed(self._changed)

    def show_session(self, session_id: str) -> None:
        self.session_id = session_id
        self.location = None
        self.note.setText("")
        row = self.row_of(session_id)
        if row is not None and row.proxy_alias and self.api is not None:
            self.api.proxy_location(session_id, self._located)
        self._measure()
        self.show_values()
        self.show()
        self.raise_()

    def _located(self, answer: ProxyLocation | ApiError) -> None:
        if not isinstance(answer, ApiError):
            self.location = answer
            self.show_values()

    def refresh(self) -> None:
        """The session list was read again (names, proxies and pauses may have changed)."""
        if self.isVisible():
            self.show_values()

    def _changed(self, session_id: str) -> None:
        if session_id == self.session_id and self.isVisible():
            QTimer.singleShot(0, self._remeasured)

    def _remeasured(self) -> None:
        self._measure()
        self.show_values()

    def _measure(self) -> None:
        data_dir = self.engine.data_dir
        number = (self.session_id or "").removeprefix("Session")
        self.data_bytes = folder_size(data_dir / "Browser" / f"Tab-{number}")
        self.machine_id = machine_id_from_global_log(data_dir / "Logs" / "global.ndjson")

    def show_values(self) -> None:
        sid = self.session_id
        row = self.row_of(sid) if sid else None
        if sid is None or row is None:
            self.setWindowTitle("svc session info")
            return
        self.setWindowTitle(f"Info: {row.name}")
        lines = info_lines(
            row, machine_id=self.machine_id, location=self.location, data_bytes=self.data_bytes
        )
        for label, value in lines:
            widget = self.values.get(label)
            if widget is None:
                widget = QLabel()
                widget.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                self.values[label] = widget
                self.form.addRow(label, widget)
            widget.setText(value)

    def clear_data(self) -> None:
        if self.session_id is not None and self.clear(self, self.session_id):
            self.note.setText("Browsing data cleared.")
