"""What the agent did, as it happens (issue 40 point 2): each browser operation is one
`agent.operation` record in the session's log (kind, the target's role and name for ref
actions, outcome, error id, milliseconds; never the typed text) and one line of the browser
window's activity list for the selected session, newest first. A real engine and window,
offscreen, in a child process (QtWebEngine must be imported before the QApplication exists);
operations go through the engine's bridge handler as the agent's do."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bridge_protocol as bp
from bridge_protocol.actions import RefClick, RefType
from bridge_protocol.messages import ActionRequest, ObservationAction, Observe

from .inengine import child_result, configure, log_data, run_child, start_engine
from .routes import Routes, html

pytestmark = pytest.mark.gui

SECRET = "hunter2-secret"
PAGE = """<!doctype html><title>Sign in</title>
<label>Password <input type=password id=pw></label>
<button id=go style="width:200px;height:60px" onclick="document.title='pressed'">Sign in</button>"""


def test_each_operation_is_a_record_and_a_line_of_the_activity_list(tmp_path: Path) -> None:
    with Routes({"/": lambda: html(PAGE)}) as site:
        proc = run_child("tests.host.test_ui_activity", str(tmp_path), site.url("/"), timeout=120)
    result = child_result(proc)
    lines, records = result["lines"], result["records"]
    # newest first: the failed click, the click, the typing, the observation
    assert len(lines) == 4, lines
    assert "observe semantic — ok" in lines[3]
    assert "type textbox “Password” 14 characters — ok" in lines[2]
    assert "click button “Sign in” — ok" in lines[1]
    assert "click e999 — failed ACTION_TARGET_NOT_FOUND" in lines[0]
    assert [r["kind"] for r in records] == ["observe", "actions", "actions", "actions"]
    assert [r["outcome"] for r in records] == ["ok", "ok", "ok", "failed"]
    assert records[1]["steps"] == [
        {"action": "type", "role": "textbox", "name": "Password", "detail": "14 characters"}
    ]
    assert records[3]["error_id"] == "ACTION_TARGET_NOT_FOUND"
    assert all(isinstance(r["ms"], int) for r in records)
    assert result["other_session_lines"] == []  # the list follows the selected session
    assert SECRET not in json.dumps(result)
    logs = [p for p in (tmp_path / "Logs").rglob("*.ndjson") if p.is_file()]
    assert logs
    assert SECRET not in "".join(p.read_text("utf-8") for p in logs)


def check(data_dir: Path, url: str) -> None:
    from host_app.engine.window_adapter import WindowAdapter
    from host_app.ui.browser_window import BrowserWindow

    app, engine = start_engine(data_dir, "svc-app-ui-activity-test")
    for n in (1, 2):
        configure(engine, n)
    window = BrowserWindow(WindowAdapter(engine))
    window.show()
    window.select("Session1")
    b = engine.browser("Session1")
    b.load(url)

    def until(ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + 30
        while not ready():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            app.processEvents()
            time.sleep(0.01)

    until(lambda: b.title() == "Sign in", "the page")
    answers: list[Any] = []

    class Answer:
        def ok(self, data: Any) -> None:
            answers.append(data)

        def error(self, error: Any) -> None:
            answers.append(error)

    def run(command: Any) -> Any:
        before = len(answers)
        request = ActionRequest(version=bp.PROTOCOL_VERSION, id=f"r{before}", command=command)
        engine.handle(request, Answer())  # type: ignore[arg-type]
        until(lambda: len(answers) > before, "the operation")
        return answers[-1]

    obs = run(Observe(session_id="Session1", wait=0))
    refs = {e[2]: e[0] for e in obs.elements}  # name -> ref
    obs_id = obs.id
    run(ObservationAction("Session1", obs_id, [RefType(ref=refs["Password"], text=SECRET)]))
    obs_id = run(
        ObservationAction("Session1", obs_id, [RefClick(ref=refs["Sign in"])], page_id=None)
    ).id
    run(ObservationAction("Session1", obs_id, [RefClick(ref="e999")]))
    until(lambda: len(window.activity.lines()) == 4, "the activity list")
    lines = window.activity.lines()
    window.select("Session2")
    other = window.activity.lines()
    records = log_data(data_dir, 1, "agent.operation")
    engine.shutdown()
    window.close()
    print(json.dumps({"lines": lines, "records": records, "other_session_lines": other}))


if __name__ == "__main__":
    check(Path(sys.argv[1]), sys.argv[2])
