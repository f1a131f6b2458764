"""Small pieces the app's windows share."""

from __future__ import annotations

from ..qt import QCloseEvent, QKeyEvent, QMessageBox, Qt, QWidget


class HidingWindow(QWidget):
    """Closing hides the window (spec 1 §1 Lifecycle rule 1: the app stays resident)."""

    # tool windows (Logs, Info) close on Escape; the browser window does not: pages use it
    escape_hides = False

    def keyPressEvent(self, event: QKeyEvent | None) -> None:
        if self.escape_hides and event is not None and event.key() == Qt.Key.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(event)

    def closeEvent(self, event: QCloseEvent | None) -> None:
        if event is not None:
            event.ignore()
        self.hide()


def confirm(parent: QWidget, title: str, text: str, action: str) -> bool:
    """Ask before something that cannot be undone; Cancel is the default button, `action` (with
    its mnemonic, e.g. "&Clear") the one that goes ahead."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(text)
    go = box.addButton(action, QMessageBox.ButtonRole.AcceptRole)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel)
    box.exec()
    return box.clickedButton() is go
