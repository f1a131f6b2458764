"""A session's input: real mouse, wheel and key events sent to the current page's view, as a
person's would reach it (what `core/page_driver.Input` asks of a page)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from bridge_protocol import ErrorId, SvcError

from ..logic.actionability import Box
from ..logic.typing_keys import strokes
from ..qt import (
    QApplication,
    QEvent,
    QFocusEvent,
    QKeyEvent,
    QMouseEvent,
    QPoint,
    QPointF,
    Qt,
    QTest,
    QWebEngineView,
    QWheelEvent,
    QWidget,
)

# The Qt stubs type QTest's static helpers as instance methods.
_QTEST: Any = QTest

KEYS: dict[str, Qt.Key] = {
    "Enter": Qt.Key.Key_Return,
    "Tab": Qt.Key.Key_Tab,
    "Escape": Qt.Key.Key_Escape,
    "Backspace": Qt.Key.Key_Backspace,
    "Delete": Qt.Key.Key_Delete,
    "ArrowUp": Qt.Key.Key_Up,
    "ArrowDown": Qt.Key.Key_Down,
    "ArrowLeft": Qt.Key.Key_Left,
    "ArrowRight": Qt.Key.Key_Right,
    "Home": Qt.Key.Key_Home,
    "End": Qt.Key.Key_End,
    "PageUp": Qt.Key.Key_PageUp,
    "PageDown": Qt.Key.Key_PageDown,
    "Space": Qt.Key.Key_Space,
    "A": Qt.Key.Key_A,
}


class InputOwner(Protocol):
    """What input needs of its session: the view the current page is in."""

    @property
    def session_id(self) -> str: ...
    @property
    def view(self) -> QWebEngineView | None: ...


class PageInput:
    def __init__(self, owner: InputOwner, targeted: Callable[[Box], None]) -> None:
        self._owner = owner
        self._targeted = targeted
        self.pointer: tuple[float, float] | None = None  # where the last click or hover left it

    def _target(self) -> QWidget:
        view = self._owner.view
        if view is None:
            raise SvcError.of(ErrorId.BROWSER_UNAVAILABLE, f"{self._owner.session_id} has no view")
        return view.focusProxy() or view

    def focus_view(self) -> None:
        target = self._target()
        target.setFocus(Qt.FocusReason.OtherFocusReason)
        if not target.hasFocus():
            # a window that is not active (headless, a session in the background) gives its
            # view no focus: the page got the keys but never a focus event (a search box that
            # loads its index on focus stayed empty). Told directly, as each page of a
            # headless browser is focused
            reason = Qt.FocusReason.OtherFocusReason
            QApplication.sendEvent(target, QFocusEvent(QEvent.Type.FocusIn, reason))

    def mouse_click(self, x: float, y: float, move: bool, ctrl: bool = False) -> None:
        target = self._target()
        pos = QPoint(round(x), round(y))
        mod = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
        self.pointer = (x, y)
        if move:
            # QTest.mouseMove reaches no page (it moves the cursor): a Lumino menu, which
            # takes its item from the mousemove, never saw one and its click did nothing
            self.mouse_move(x, y)
        _QTEST.mousePress(target, Qt.MouseButton.LeftButton, mod, pos)
        _QTEST.mouseRelease(target, Qt.MouseButton.LeftButton, mod, pos)

    def mouse_move(self, x: float, y: float) -> None:
        """A local mouse-move event (hover); the OS cursor does not move."""
        target = self._target()
        pos = QPointF(x, y)
        self.pointer = (x, y)
        event = QMouseEvent(
            QEvent.Type.MouseMove,
            pos,
            QPointF(target.mapToGlobal(pos)),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(target, event)

    def wheel(self, x: float, y: float, dx: int, dy: int) -> None:
        # One gesture per call (begin, update, end): a wheel without phases is latched by
        # Chromium to the scroller its sequence first hit for as long as wheels keep coming
        # (~500 ms apart at most), so one that landed while a new document was not yet
        # hit-testable kept every later step of a scroll-into-view going nowhere.
        target = self._target()
        pos = QPointF(x, y)
        glob = QPointF(target.mapToGlobal(pos))
        for phase, delta in (
            (Qt.ScrollPhase.ScrollBegin, QPoint(0, 0)),
            (Qt.ScrollPhase.ScrollUpdate, QPoint(dx, dy)),
            (Qt.ScrollPhase.ScrollEnd, QPoint(0, 0)),
        ):
            event = QWheelEvent(
                pos,
                glob,
                QPoint(0, 0),
                delta,
                Qt.MouseButton.NoButton,
                Qt.KeyboardModifier.NoModifier,
                phase,
                False,
            )
            QApplication.sendEvent(target, event)

    def key(self, name: str, ctrl: bool = False) -> None:
        self.focus_view()
        mod = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
        _QTEST.keyClick(self._target(), KEYS[name], mod)

    def targeted(self, box: Box) -> None:
        self._targeted(box)

    def type_text(self, text: str) -> None:
        self.focus_view()
        target = self._target()
        for stroke in strokes(text):
            if stroke.key is not None:
                _QTEST.keyClick(target, KEYS[stroke.key])
            elif stroke.text.isascii():
                _QTEST.keyClicks(target, stroke.text)  # with its key's code (KeyA...)
            else:
                # a key that produces the character (a layout's "é" key): QTest would abort
                for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                    event = QKeyEvent(kind, 0, Qt.KeyboardModifier.NoModifier, stroke.text)
                    QApplication.sendEvent(target, event)
