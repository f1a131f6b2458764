"""The session's page class: JavaScript dialogs go to the session's `DialogHost`, never to Qt's
application-modal boxes, and the documents a page started are counted."""

from __future__ import annotations

from typing import Any

from ..qt import QUrl, QWebEnginePage, QWebEngineProfile, QWidget
from .dialogs import DialogHost


class SessionPage(QWebEnginePage):
    """Dialogs go to the session's `DialogHost`, never to Qt's application-modal boxes; a page
    made without one (say, a popup's) answers them by the policy, unreported."""

    def __init__(
        self, profile: QWebEngineProfile, view: QWidget, dialogs: DialogHost | None = None
    ) -> None:
        super().__init__(profile, view)
        self.dialogs = dialogs
        # documents that started loading in the page (main frame, not same-document): a page
        # that reloads its own address has moved on all the same
        self.documents = 0
        self.loadStarted.connect(self._document_started)

    def _document_started(self) -> None:
        self.documents += 1

    def javaScriptConsoleMessage(self, *args: Any) -> None:
        """Page console output is not the app's business."""

    def javaScriptAlert(self, origin: QUrl, message: str | None) -> None:
        if self.dialogs is not None:
            self.dialogs.alert(origin, message or "")

    def javaScriptConfirm(self, origin: QUrl, message: str | None) -> bool:
        return self.dialogs is None or self.dialogs.confirm(origin, message or "")

    def javaScriptPrompt(
        self, origin: QUrl, message: str | None, default: str | None
    ) -> tuple[bool, str]:
        if self.dialogs is None:
            return True, default or ""
        return self.dialogs.prompt(origin, message or "", default or "")
