"""An exception escaping the app's code called by Qt (a reimplemented virtual such as the asset
scheme's `requestStarted`, a slot) made PyQt abort the whole app with every session in it: once
at exit, seen under gdb (the asset pool refused a late request). `host_app.app._log_uncaught`
installs the hook with which PyQt logs instead of aborting. Run in a child process: without the
hook the child dies of SIGABRT."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.procs import python_child

pytestmark = pytest.mark.e2e

CHILD = """
import sys
from pathlib import Path
from PyQt6.QtCore import QCoreApplication, QEvent, QObject
from host_app.app import _log_uncaught
from host_app.logic.logfile import HostLog

if sys.argv[2] == "hook":
    _log_uncaught(HostLog(Path(sys.argv[1])))
app = QCoreApplication([])


class Broken(QObject):
    def event(self, e):
        if e.type() == QEvent.Type.User:
            raise ValueError("a bug in a reimplemented virtual")
        return super().event(e)


broken = Broken()
QCoreApplication.postEvent(broken, QEvent(QEvent.Type.User))
app.processEvents()
print("went on")
"""


def run_child(logs: Path, mode: str) -> subprocess.CompletedProcess[str]:
    return python_child(CHILD, str(logs), mode)


def test_an_exception_in_a_qt_virtual_is_logged_and_the_app_goes_on(tmp_path: Path) -> None:
    bare = run_child(tmp_path / "bare", "bare")
    assert bare.returncode < 0, bare  # PyQt's default: abort
    hooked = run_child(tmp_path / "logs", "hook")
    assert (hooked.returncode, hooked.stdout.strip()) == (0, "went on"), hooked.stderr
    assert "ValueError: a bug in a reimplemented virtual" in hooked.stderr
    lines = (tmp_path / "logs" / "global.ndjson").read_text("utf-8").splitlines()
    [record] = [json.loads(line) for line in lines]
    assert (record["category"], record["level"]) == ("host.exception", "error")
    assert "a bug in a reimplemented virtual" in record["data"]["traceback"]
