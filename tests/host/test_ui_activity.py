"""What the agent did, as it happens (issue 40 point 2): each browser operation is one
`agent.operation` record in the session's log (kind, the target's role and name for ref
actions, outcome, error id, milliseconds; never the typed text) and one line of the browser
window's activity list for the selected session, newest first. A real engine and window,
offscreen, in a child process (QtWebEngine must be imported before the QApplication exists);
operations go through the engine's bridge handler as the agent's do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import bridge_protocol as bp
from bridge_protocol.actions import RefClick, RefType
from bridge_protocol.messages import ActionRequest, ObservationAction, Observe

pytestmark = pytest.mark.gui

SECRET = "hunter2-secret"
PAGE = """<!doctype html><title>Sign in</title>
<label>Password <input type=password id=pw></label>
<button id=go style="width:200px;height:60px" onclick="document.title='pressed'">Sign in</button>"""


def test_each_operation_is_a_record_and_a_line_of_the_activity_list(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu")
    subprocess.run(
        [sys.executable, "-m", "tests.host.test_ui_activity", str(tmp_path)],
        check=True,
        timeout=120,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    result = json.loads((tmp_path / "result.json").read_text("utf-8"))
    lines, records = result["lines"], result["records"]
    # newest first: the failed click, the click, the typing, the observation
    assert len(lines) == 4, lines
    assert "observe semantic — ok" in lines[3]
    assert "type textbox “Password” 14 characters — ok" in lines[2]
    assert "click button “Sign in” — ok" in lines[1]
    assert "click e999 — failed ACTION_TARGET_NOT_FOUND" in lines[0]
    assert [r["data"]["kind"] for r in records] == ["observe", "actions", "actions", "actions"]
    assert [r["data"]["outcome"] for r in records] == ["ok", "ok", "ok", "failed"]
    assert records[1]["data"]["steps"] == [
        {"action": "type", "role": "textbox", "name": "Password", "detail": "14 characters"}
    ]
    assert records[3]["data"]["error_id"] == "ACTION_TARGET_NOT_FOUND"
    assert all(isinstance(r["data"]["ms"], int) for r in records)
    assert result["other_session_lines"] == []  # the list follows the selected session
    assert SECRET not in json.dumps(result)
    logs = [p for p in (tmp_path / "Logs").rglob("*.ndjson") if p.is_file()]
    assert logs
    assert SECRET not in "".join(p.read_text("utf-8") for p in logs)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        data = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def check(tmp_path: Path) -> None:
    from host_app.engine import engine_application_name, prepare_storage

    os.environ["XDG_DATA_HOME"] = str(prepare_storage(tmp_path))
    engine_application_name()
    from host_app.qt import QApplication

    app = QApplication(["svc-app-ui-activity-test"])
    from host_app.browser_window import BrowserWindow
    from host_app.engine import Engine
    from host_app.logic.logfile import HostLog
    from host_app.logic.settings import AppSettings

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    log = HostLog(tmp_path / "Logs")
    engine = Engine(tmp_path, AppSettings(), headless=True, log=log)
    for n in (1, 2):
        engine.session_settings[f"Session{n}"] = bp.SessionSettings(profile_id=n, name=f"S{n}")
    window = BrowserWindow(engine)
    window.show()
    window.select("Session1")
    b = engine.browser("Session1")
    b.load(f"http://127.0.0.1:{server.server_port}/")

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
    records = [
        json.loads(line)
        for line in (tmp_path / "Logs" / "sessions" / "1.ndjson").read_text().splitlines()
        if '"agent.operation"' in line
    ]
    (tmp_path / "result.json").write_text(
        json.dumps({"lines": lines, "records": records, "other_session_lines": other})
    )
    engine.shutdown()
    window.close()
    server.shutdown()


if __name__ == "__main__":
    check(Path(sys.argv[1]))
