"""The terminal panel with a real shell on a real pty (offscreen): the session's variables, the
home directory, colours, resize, Ctrl+C, Tab, scrollback, copy/paste through the clipboard,
exit and restart with the current URL, and close_shell() leaving no process behind.

Runs in a child process: `host_app.qt` imports QtWebEngine, which must happen before the
QApplication exists (pytest-qt's shared application does not allow that)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.gui

URL = "https://example.test/page?q=1"


def test_terminal_panel(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home))
    env["SHELL"] = shutil.which("bash") or "/bin/sh"
    env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu")
    subprocess.run(
        [sys.executable, "-m", "tests.host.test_terminal", str(tmp_path)],
        check=True,
        timeout=110,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    # the artifact: a screenshot of the panel with colours, a selection and the cursor
    assert (tmp_path / "terminal.png").stat().st_size > 1000


def proc_state(pid: int) -> str | None:
    """A process's state letter ("Z": a zombie), None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2 :].split()[0]


def group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def cmdline(pid: int) -> list[bytes]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def check(artifacts: Path) -> None:
    from host_app.qt import (
        QApplication,
        QLineEdit,
        QPoint,
        QPointF,
        Qt,
        QVBoxLayout,
        QWheelEvent,
        QWidget,
    )
    from host_app.qt import QTest as QTestClass

    # PyQt6's stubs declare QTest's static functions as instance methods.
    QTest: Any = QTestClass

    app = QApplication(["svc-terminal-test"])
    from host_app.logic.terminal import DEFAULT_PALETTE, EXITED_MESSAGE
    from host_app.ui.pty_process import session_members
    from host_app.ui.terminal import TerminalPanel

    home = os.environ["HOME"]
    url = [URL]
    window = QWidget()
    layout = QVBoxLayout(window)
    other = QLineEdit(window)
    # the shell inherits the user's environment, not the one the app changed for Qt
    user_env = dict(os.environ, SVC_TEST_MARK="user-env")
    os.environ["SVC_TEST_MARK"] = "app-internal"
    panel = TerminalPanel("Session7", lambda: url[0], window, environment=user_env)
    layout.addWidget(other)
    layout.addWidget(panel)
    window.resize(700, 480)
    started: list[int] = []
    panel.shell_started.connect(started.append)

    def shell_pid() -> int | None:  # read afresh: mypy would narrow the property for good
        return panel.shell_pid

    def lines() -> list[str]:  # one per row
        return panel.screen_text().split("\n")

    def wait(condition: Callable[[], object], what: str, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            app.processEvents()
            if condition():
                return
            time.sleep(0.005)
        raise AssertionError(f"timed out waiting for {what}; screen:\n{panel.screen_text()}")

    def run(command: str) -> None:
        QTest.keyClicks(panel, command)
        QTest.keyClick(panel, Qt.Key.Key_Return)

    def wait_line(line: str, timeout: float = 15) -> None:
        wait(lambda: line in lines(), repr(line), timeout)

    # Created only when first displayed.
    app.processEvents()
    assert shell_pid() is None
    window.show()
    window.activateWindow()
    panel.setFocus()
    wait(lambda: shell_pid() is not None, "the shell")
    assert started == [shell_pid()]
    pid = shell_pid()
    assert pid is not None
    assert os.getpgid(pid) == pid
    assert os.getsid(pid) == pid
    wait(lambda: panel.screen_text().strip(), "a prompt")
    prompt = panel.screen_text().strip().splitlines()[-1]

    def at_prompt() -> bool:
        cursor = panel.view().cursor
        return cursor is not None and lines()[cursor[0]] == prompt

    def settle() -> None:  # nothing more is coming: the shell waits at its prompt
        wait(at_prompt, "the prompt")

    # The session's variables, the home directory.
    run("echo $SVC_SESSION_ID $SVC_SESSION_URL")
    wait_line(f"Session7 {URL}")
    run('echo "id=$SVC_SESSION_ID url=$SVC_SESSION_URL term=$TERM"')
    wait_line(f"id=Session7 url={URL} term=xterm-256color")
    run("echo mark=$SVC_TEST_MARK")
    wait_line("mark=user-env")
    run("pwd")
    wait_line(home)
    # The shell's commands get SIGPIPE and SIGXFSZ at their defaults (Python, which starts the
    # shell, ignores them): `yes | head -1` ends quietly.
    run("grep SigIgn /proc/self/status; yes | head -1")
    wait(lambda: any(x.startswith("SigIgn:") for x in lines()), "the ignored signals")
    ignored = int(next(x for x in lines() if x.startswith("SigIgn:")).split()[1], 16)
    # SIGPIPE, SIGXFSZ, SIGINT, SIGQUIT have their defaults in the shell's commands
    assert ignored & (1 << 12 | 1 << 24 | 1 << 1 | 1 << 2) == 0, hex(ignored)
    wait_line("y")
    assert not any("Broken pipe" in x for x in lines())
    run("echo login=$0")
    wait(lambda: any(x.startswith("login=-") for x in lines()), "a login shell ($0 = -name)")

    # Colours: a red run.
    run(r"printf '\033[31mred\033[0m\n'")

    def red_run() -> bool:
        return any(
            r.text == "red" and r.fg == DEFAULT_PALETTE.ansi[1]
            for row in panel.view().rows
            for r in row
        )

    wait(red_run, "a red run")

    # Resize: the pty's size follows the widget.
    rows, columns = panel.grid_size
    run("stty size")
    wait_line(f"{rows} {columns}")
    window.resize(900, 360)
    wait(lambda: panel.grid_size != (rows, columns), "the grid to change")
    rows2, columns2 = panel.grid_size
    assert columns2 > columns
    run("stty size")
    wait_line(f"{rows2} {columns2}")

    # Tab stays in the terminal (completion), focus does not move.
    assert app.focusWidget() is panel
    Path(home, "tab-target-file.txt").write_text("tab-42\n")
    QTest.keyClicks(panel, "cat tab-tar")
    QTest.keyClick(panel, Qt.Key.Key_Tab)
    QTest.keyClick(panel, Qt.Key.Key_Return)
    wait_line("tab-42")
    assert app.focusWidget() is panel

    # Ctrl+C interrupts a foreground job.
    run("sleep 100")

    shell = pid

    def sleepers() -> list[int]:
        return [p for p in session_members(shell) if cmdline(p)[:2] == [b"sleep", b"100"]]

    wait(sleepers, "sleep 100 to run")
    QTest.keyClick(panel, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    wait(lambda: not sleepers(), "sleep to be interrupted", timeout=10)
    run("echo after-$((40+2))")
    wait_line("after-42", timeout=10)

    # Scrollback: Shift+PageUp shows earlier lines, Shift+PageDown returns.
    run("seq 1 300")
    wait_line("300")
    settle()
    live = panel.screen_text()
    QTest.keyClick(panel, Qt.Key.Key_PageUp, Qt.KeyboardModifier.ShiftModifier)
    assert panel.screen_text() != live
    assert "300" not in lines()
    QTest.keyClick(panel, Qt.Key.Key_PageDown, Qt.KeyboardModifier.ShiftModifier)
    assert panel.screen_text() == live

    def wheel(notches: int) -> None:
        centre = QPointF(panel.rect().center())
        event = QWheelEvent(
            centre,
            QPointF(panel.mapToGlobal(centre)),
            QPoint(),
            QPoint(0, 120 * notches),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(panel, event)

    wheel(2)  # up: 6 lines back
    assert lines()[0] == str(int(live.splitlines()[0]) - 6)
    wheel(-2)
    assert panel.screen_text() == live

    # The title the shell sets.
    titles: list[str] = []
    panel.title_changed.connect(titles.append)
    run(r"printf '\033]0;my-title\007'")
    wait(lambda: titles == ["my-title"], "the title")

    # Copy a mouse selection with Ctrl+Shift+C; paste with Ctrl+Shift+V.
    run("echo CLIP-ME-77")
    wait_line("CLIP-ME-77")
    settle()
    row = lines().index("CLIP-ME-77")
    start = panel.cell_rect(row, 0).center().toPoint()
    end = panel.cell_rect(row, len("CLIP-ME-77") - 1).center().toPoint()
    QTest.mousePress(panel, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(panel, end)
    QTest.mouseRelease(panel, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    clipboard = QApplication.clipboard()
    assert clipboard is not None
    clipboard.clear()
    QTest.keyClick(
        panel,
        Qt.Key.Key_C,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert clipboard.text() == "CLIP-ME-77"
    clipboard.setText("echo pasted-$((2+3))")
    QTest.keyClick(
        panel,
        Qt.Key.Key_V,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    QTest.keyClick(panel, Qt.Key.Key_Return)
    wait_line("pasted-5")
    menu = panel.context_menu()
    actions = {a.text(): a for a in menu.actions()}
    assert list(actions) == ["Copy", "Paste"]
    assert actions["Copy"].isEnabled()
    clipboard.setText("echo menu-$((3*3))")
    actions["Paste"].trigger()
    QTest.keyClick(panel, Qt.Key.Key_Return)
    wait_line("menu-9")
    menu.deleteLater()
    run(r"printf '\033[1;32mgreen \033[44;37mon blue\033[0m \033[7mreverse\033[0m\n'")
    wait_line("green on blue reverse")
    panel.grab().save(str(artifacts / "terminal.png"))

    # The shell exits by itself: a message; Enter starts a new one with the current URL.
    exited: list[int] = []
    panel.shell_exited.connect(exited.append)
    run("exit 3")
    wait(lambda: EXITED_MESSAGE in panel.screen_text(), "the exit message")
    assert exited == [3]
    assert shell_pid() is None
    assert proc_state(pid) is None
    url[0] = "https://example.test/next"
    QTest.keyClick(panel, Qt.Key.Key_Return)
    wait(lambda: shell_pid() is not None, "a new shell")
    pid = shell_pid()
    assert pid is not None
    run('echo "now=$SVC_SESSION_URL"')
    wait_line("now=https://example.test/next")

    # The shell exits while a job it left still holds the pty: its exit is seen all the same
    # (the pid is watched, not only the pty) and the job is ended with it.
    run("sleep 300 & echo left=$!; exit")
    wait(lambda: len(exited) == 2, "the second exit")
    left = int(next(x for x in lines() if x.startswith("left="))[5:])
    assert proc_state(left) in (None, "Z")
    assert proc_state(pid) is None
    QTest.keyClick(panel, Qt.Key.Key_Return)
    wait(lambda: shell_pid() is not None, "a third shell")
    pid = shell_pid()
    assert pid is not None

    # close_shell(): the shell, its group and a job in a group of its own are all gone.
    run("sleep 300 & echo bg=$!")
    wait(lambda: any(x.startswith("bg=") for x in lines()), "a background job")
    job = int(next(x for x in lines() if x.startswith("bg="))[3:])
    assert os.getpgid(job) != pid  # job control gave it a group of its own
    panel.close_shell()
    assert shell_pid() is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # ended and reaped: not even a zombie
    # the group's last members get their SIGKILL when the scheduler next runs them, and an
    # orphan's zombie is init's to reap: on a loaded machine the group outlives the shell a moment
    wait(lambda: not group_exists(pid), "the shell's process group to be gone")
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)
    assert session_members(pid) == []
    assert proc_state(job) in (None, "Z")  # an orphan is init's to reap
    QTest.keyClick(panel, Qt.Key.Key_Return)
    app.processEvents()
    assert shell_pid() is None  # a closed panel starts nothing by itself
    window.close()


if __name__ == "__main__":
    check(Path(sys.argv[1]))
