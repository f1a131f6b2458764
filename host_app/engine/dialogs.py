"""A session's JavaScript dialogs, answered without an application-modal loop.

QtWebEngine's default `javaScriptAlert/Confirm/Prompt` run `QMessageBox::exec()`, and the widgets
API offers only these synchronous hooks: whatever waits inside them (any nested event loop, not
only an application-modal one) holds back Chromium's browser-side work for every page of the
process, measured here. So the session page overrides them and calls `DialogHost`: the policy
answers at once whenever an agent could be waiting (host_app/logic/dialogs.py says when). Only
with no agent operation running anywhere does a person get a window-modal box on the browser
window, waited for in a nested loop; the moment any agent operation starts, the box closes with
the policy's answer, so no agent operation ever waits on a person.
"""

from __future__ import annotations

from typing import Protocol

from bridge_protocol.throttle import LogThrottle

from ..logic import aio
from ..logic.dialogs import (
    Answer,
    Dialog,
    DialogKind,
    Responder,
    kind_of_confirm,
    log_message,
    policy_answer,
    report,
    responder,
)
from ..qt import (
    QDialog,
    QEventLoop,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    Qt,
    QUrl,
    QWidget,
)
from .browser_host import DialogsHost
from .session_log import SessionLog

_Button = QMessageBox.StandardButton


class _PersonDialog:
    """One dialog in front of the person; `by_policy` ends it with the policy's answer."""

    def __init__(self, dialog: Dialog, parent: QWidget) -> None:
        self.dialog = dialog
        self.policy = False
        self.loop = QEventLoop()
        self.box: QMessageBox | QInputDialog
        title = f"{dialog.origin or 'The page'} says"
        if dialog.kind is DialogKind.PROMPT:
            box = QInputDialog(parent)
            box.setInputMode(QInputDialog.InputMode.TextInput)
            box.setTextEchoMode(QLineEdit.EchoMode.Normal)
            box.setLabelText(dialog.message)
            box.setTextValue(dialog.default_text)
            for label in box.findChildren(QLabel):
                label.setTextFormat(Qt.TextFormat.PlainText)  # the website's text, never markup
            self.box = box
        else:
            buttons = _Button.Ok
            if dialog.kind is not DialogKind.ALERT:
                buttons |= _Button.Cancel
            text = dialog.message
            if dialog.kind is DialogKind.BEFOREUNLOAD:
                title = "Leave this page?"
            self.box = QMessageBox(QMessageBox.Icon.NoIcon, title, text, buttons, parent)
            self.box.setTextFormat(Qt.TextFormat.PlainText)
        self.box.setWindowTitle(title)
        self.box.setWindowModality(Qt.WindowModality.WindowModal)
        self.box.finished.connect(lambda _result: self.loop.quit())

    def ask(self) -> Answer:
        self.box.open()
        self.loop.exec()
        box = self.box
        box.deleteLater()
        if self.policy:
            return policy_answer(self.dialog)
        if isinstance(box, QInputDialog):
            accepted = box.result() == QDialog.DialogCode.Accepted.value
            return Answer(accepted, box.textValue() if accepted else None, Responder.PERSON)
        clicked = box.clickedButton()
        accepted = clicked is not None and box.standardButton(clicked) == _Button.Ok
        # an alert has one answer; closing its box is that answer too
        return Answer(accepted or self.dialog.kind is DialogKind.ALERT, None, Responder.PERSON)

    def by_policy(self) -> None:
        self.policy = True
        self.box.done(0)


# At most one dialog waits for the person at a time: a second nested loop could only return
# after the first, so any dialog arriving meanwhile is answered by the policy.
_waiting: list[_PersonDialog] = []


def agent_started() -> None:
    """An agent operation starts (on any session): no dialog may keep Chromium waiting."""
    for person in list(_waiting):
        person.by_policy()


class DialogsOwner(Protocol):
    """What a session's dialogs need of the session: the view its current page is in, the
    engine's say on who answers, and the session's log."""

    @property
    def session_id(self) -> str: ...
    @property
    def loop(self) -> aio.Loop: ...
    @property
    def view(self) -> QWidget | None: ...
    @property
    def host(self) -> DialogsHost: ...
    @property
    def session_log(self) -> SessionLog: ...


class DialogHost:
    def __init__(self, browser: DialogsOwner) -> None:
        self._browser = browser
        self._mine: _PersonDialog | None = None
        self._throttle = LogThrottle()

    def alert(self, origin: QUrl, message: str) -> None:
        self._answer(DialogKind.ALERT, origin, message, "")

    def confirm(self, origin: QUrl, message: str) -> bool:
        return self._answer(kind_of_confirm(message), origin, message, "").accepted

    def prompt(self, origin: QUrl, message: str, default: str) -> tuple[bool, str]:
        answer = self._answer(DialogKind.PROMPT, origin, message, default)
        return answer.accepted, answer.text or ""

    def close(self) -> None:
        """The session closes: a dialog still waiting for the person gets the policy's answer."""
        if self._mine is not None:
            self._mine.by_policy()

    def _answer(self, kind: DialogKind, origin: QUrl, message: str, default: str) -> Answer:
        b = self._browser
        # the security origin comes as a URL with an empty path: report the origin itself
        dialog = Dialog(kind, message, origin.toString().removesuffix("/"), default)
        view = b.view
        who = responder(
            headless=b.host.headless,
            agent_busy=b.host.agent_busy(),
            shown_in_window=b.host.visible_session == b.session_id
            and view is not None
            and view.isVisible(),
            other_dialog_open=bool(_waiting),
        )
        answer = policy_answer(dialog)
        if who is Responder.PERSON and view is not None:
            person = _PersonDialog(dialog, view.window() or view)
            self._mine = person
            _waiting.append(person)
            try:
                answer = person.ask()
            except Exception:  # a broken box must not leave the page blocked
                answer = policy_answer(dialog)
            finally:
                _waiting.remove(person)
                self._mine = None
        event = report(dialog, answer)
        if self._throttle.allow(b.loop.time()):
            message = log_message(dialog, answer)
            unlogged = self._throttle.take_suppressed()
            extra: dict[str, int] = {"unlogged_before": unlogged} if unlogged else {}
            b.session_log.page_event(event, "page.dialog", message, **event.details, **extra)
        else:
            # the observation still counts it (as dropped, past its bound)
            b.session_log.events.add(event)
        return answer
