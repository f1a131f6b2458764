"""The outline of what an agent's action aims at (issue 40 point 2): a frame the browser window
draws over the page view, never in the page (the page cannot see it, and neither can a capture
or a screenshot: they grab the view, which this widget is not part of).

Shown where the action's target is each time the operation reads it (so it follows a scroll),
kept while the operation runs, and gone `LINGER_MS` after it ended."""

from __future__ import annotations

from ..logic.actionability import Box
from ..qt import QColor, QPainter, QPen, QPoint, Qt, QTimer, QWidget

COLOR = QColor("#ff3d7f")
WIDTH = 3  # px of the frame
LINGER_MS = 1200


class Outline(QWidget):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("agentOutline")
        # clicks, keys and the wheel go to the page under it, as if it were not there
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground, True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._hide = QTimer(self)
        self._hide.setSingleShot(True)
        self._hide.timeout.connect(self.hide)
        self.hide()

    def show_at(self, view: QWidget, box: Box, zoom: float) -> None:
        """Around `box` (CSS px of the view's page, at `zoom`), clipped to the view."""
        parent = self.parentWidget()
        if parent is None:
            return
        origin = view.mapTo(parent, QPoint(0, 0))
        x, y, w, h = (round(v * zoom) for v in box)
        left = max(0, x - WIDTH)
        top = max(0, y - WIDTH)
        right = min(view.width(), x + w + WIDTH)
        bottom = min(view.height(), y + h + WIDTH)
        if right - left < 2 * WIDTH or bottom - top < 2 * WIDTH:
            self.hide()  # out of view: nothing to show
            return
        self.setGeometry(origin.x() + left, origin.y() + top, right - left, bottom - top)
        self._hide.stop()
        self.raise_()
        self.show()
        self.update()

    def ended(self) -> None:
        """The operation ended: the outline goes a moment later."""
        if self.isVisible():
            self._hide.start(LINGER_MS)

    def paintEvent(self, event: object) -> None:
        painter = QPainter(self)
        pen = QPen(COLOR)
        pen.setWidth(WIDTH)
        painter.setPen(pen)
        half = WIDTH // 2
        painter.drawRect(self.rect().adjusted(half, half, -half - 1, -half - 1))
        painter.end()
