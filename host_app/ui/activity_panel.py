"""The browser window's activity list (issue 40 point 2): what agents did in the selected
session, newest first, one line an operation (host_app.logic.activity), as each one ends.

A failed operation's line is marked; the list follows the session the window shows."""

from __future__ import annotations

from ..engine.window_port import WindowPort
from ..logic.activity import Activity
from ..qt import QColor, QListWidget, QListWidgetItem, QTimer

FAILED_COLOR = QColor(176, 32, 32)
SHOWN = 100  # lines in the list (the session's log has every operation)


class ActivityPanel(QListWidget):
    def __init__(self, engine: WindowPort) -> None:
        super().__init__()
        self.setObjectName("activity")
        self.setAccessibleName("Activity")  # what a screen reader calls the list
        self.setToolTip("What agents did in this session, newest first")
        self.setMinimumWidth(220)
        self.setWordWrap(True)
        self._engine = engine
        self._session: str | None = None
        # an operation ends on the engine's side of the event loop: the list is drawn after
        engine.when_activity(lambda a: QTimer.singleShot(0, lambda: self._added(a)))

    def show_session(self, session_id: str | None) -> None:
        self._session = session_id
        self.clear()
        if session_id is None:
            return
        for activity in self._engine.activities_of(session_id)[-SHOWN:]:
            self.insertItem(0, _item(activity))

    def lines(self) -> list[str]:
        """The list's lines, top (newest) first."""
        return [self.item(i).text() for i in range(self.count())]  # type: ignore[union-attr]

    def _added(self, activity: Activity) -> None:
        if activity.session_id != self._session:
            return
        self.insertItem(0, _item(activity))
        while self.count() > SHOWN:
            self.takeItem(self.count() - 1)


def _item(activity: Activity) -> QListWidgetItem:
    item = QListWidgetItem(activity.line())
    if activity.outcome == "failed":
        item.setForeground(FAILED_COLOR)
    return item
