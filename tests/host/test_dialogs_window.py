"""Dialogs in front of a person (issue 11, point 1): with the app not headless and no agent
operation running, a dialog of the session shown in the browser window opens as a window-modal
box on that window and the person's answer reaches the page; an agent operation that starts on
another session meanwhile answers the open dialog by the policy and runs without waiting.

The real engine and browser window, offscreen, in a child process (QtWebEngine must be imported
before the QApplication exists; a dialog waits in a nested event loop, so the checks run from
timers inside it)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .inengine import child_result, configure, log_data, run_child, start_engine
from .routes import Routes, html

pytestmark = pytest.mark.gui

PERSON = """<!doctype html><html><head><title>start</title></head><body><p>person</p><script>
setTimeout(function () {
  alert('Hi <b>person</b>');
  document.title = 'confirmed ' + confirm('Sure?');
  setTimeout(function () { document.title = 'prompted ' + prompt('Name?', 'Ada'); }, 100);
}, 300);
</script></body></html>"""

BACKGROUND = """<!doctype html><html><head><title>background</title></head><body>
<p>working</p></body></html>"""


def test_a_person_answers_in_a_window_modal_box_and_an_agent_operation_takes_over(
    tmp_path: Path,
) -> None:
    with Routes({"/person": lambda: html(PERSON), "/background": lambda: html(BACKGROUND)}) as s:
        proc = run_child(
            "tests.host.test_dialogs_window",
            str(tmp_path),
            s.url("/person"),
            s.url("/background"),
            timeout=120,
        )
    result = child_result(proc)
    assert result["boxes"] == [
        {
            "text": "Hi <b>person</b>",
            "modality": "WindowModal",
            "window": "svc browser",
            "plain": True,
        },
        {"text": "Sure?", "modality": "WindowModal", "window": "svc browser", "plain": True},
        {"text": "Name?", "modality": "WindowModal", "window": "svc browser", "plain": True},
    ]
    # the agent's operation on the other session did not wait for the person
    assert result["background_title"] == "background"
    assert result["agent_seconds"] < 5
    assert result["title"] == "prompted Ada"
    assert result["events"] == [
        ["Hi <b>person</b>", "alert", "accepted", "person"],
        ["Sure?", "confirm", "dismissed", "person"],
        ["Name?", "prompt", "accepted", "policy"],
    ]
    assert result["logged"] == ["alert", "confirm", "prompt"]


def run(data_dir: Path, person_url: str, background_url: str) -> dict[str, Any]:
    from host_app.core import dispatch
    from host_app.engine.window_adapter import WindowAdapter
    from host_app.qt import QApplication, QDialog, QInputDialog, QLabel, QMessageBox, Qt, QTimer
    from host_app.ui.browser_window import BrowserWindow

    app, engine = start_engine(data_dir, "svc-app-dialogs-test", headless=False)
    for n in (1, 2):
        configure(engine, n)
    window = BrowserWindow(WindowAdapter(engine))
    window.show()
    window.select("Session1")
    person, background = engine.browser("Session1"), engine.browser("Session2")
    background.load(background_url)
    person.load(person_url)

    out: dict[str, Any] = {"boxes": []}
    state: dict[str, Any] = {"seen": None}

    def open_box() -> QMessageBox | QInputDialog | None:
        for w in QApplication.topLevelWidgets() + window.findChildren(QDialog):
            if isinstance(w, QMessageBox | QInputDialog) and w.isVisible():
                return w
        return None

    def text(box: QMessageBox | QInputDialog) -> str:
        return box.text() if isinstance(box, QMessageBox) else box.labelText()

    def finish() -> None:
        events, _ = person.events.take()
        out["events"] = [
            [e.text, e.details["dialog"], e.details["answer"], e.details["by"]] for e in events
        ]
        out["logged"] = [d["dialog"] for d in log_data(data_dir, 1, "page.dialog")]
        app.quit()

    class Answers:
        def __init__(self, started: float) -> None:
            self.started = started

        def ok(self, data: dict[str, Any]) -> None:
            out["agent_seconds"] = time.monotonic() - self.started
            out["background_title"] = data["title"]

            def titled() -> None:
                out["title"] = person.title()
                if out["title"].startswith("prompted"):
                    finish()
                else:
                    QTimer.singleShot(50, titled)

            titled()

        def error(self, error: Any) -> None:
            out["error"] = repr(error)
            app.quit()

    async def do_title() -> dict[str, Any]:
        return {"title": await background.run_js("JSON.stringify(document.title)")}

    def tick() -> None:
        box = open_box()
        if box is None or box is state["seen"]:
            return
        state["seen"] = box
        parent = box.parentWidget()
        top = parent.window() if parent is not None else None
        out["boxes"].append(
            {
                "text": text(box),
                "modality": box.windowModality().name,
                "window": top.windowTitle() if top is not None else None,
                # the website's text is shown as text, never as markup
                "plain": [
                    label.textFormat() == Qt.TextFormat.PlainText
                    for label in box.findChildren(QLabel)
                    if label.text() == text(box)
                ]
                == [True],
            }
        )
        if isinstance(box, QMessageBox):
            # the person answers: OK to the alert, Cancel to the confirm
            choice = QMessageBox.StandardButton.Ok
            if text(box) == "Sure?":
                choice = QMessageBox.StandardButton.Cancel
            button = box.button(choice)
            assert button is not None
            QTimer.singleShot(100, button.click)
        else:
            # an agent operation on the other session while the person's prompt is open
            started = time.monotonic()
            job = dispatch.Job(background, "title", 10.0, do_title)  # type: ignore[arg-type]
            engine._run(job, Answers(started))  # type: ignore[arg-type]

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(30)
    QTimer.singleShot(int(os.environ.get("_DLG_LIMIT", "60000")), app.quit)
    app.exec()
    engine.shutdown()
    window.close()
    return out


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]), sys.argv[2], sys.argv[3])))
