"""The terminal's process without Qt: a shell on a pty as its controlling terminal, in a session
of its own, ended with everything it started even when it ignores SIGHUP."""

from __future__ import annotations

import os
import select
import signal
import time
from pathlib import Path

import pytest

from host_app.logic.terminal import ShellCommand
from host_app.ui.pty_process import PtyProcess, session_members

pytestmark = pytest.mark.e2e


def spawn(tmp_path: Path) -> PtyProcess:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "PS1": "$ "}
    env["SVC_SESSION_ID"] = "Session9"
    return PtyProcess(ShellCommand("/bin/sh", "-sh", str(tmp_path), env), 24, 80)


def read_until(process: PtyProcess, marker: bytes, timeout: float = 10) -> bytes:
    assert process.master_fd is not None
    seen = b""
    deadline = time.monotonic() + timeout
    while marker not in seen:
        left = deadline - time.monotonic()
        assert left > 0, seen
        select.select([process.master_fd], [], [], left)
        data = process.read()
        assert data is not None, seen
        seen += data
    return seen


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_shell_on_its_own_controlling_pty(tmp_path: Path) -> None:
    process = spawn(tmp_path)
    try:
        assert os.getsid(process.pid) == process.pid
        assert os.getpgid(process.pid) == process.pid
        process.write(b"echo id=$SVC_SESSION_ID dir=$(pwd); stty size; tty\n")
        out = read_until(process, b"/dev/pts/")
        assert f"id=Session9 dir={tmp_path}".encode() in out
        assert b"24 80" in out
        process.resize(30, 100)
        process.write(b"stty size\n")
        read_until(process, b"30 100")
    finally:
        process.close()


def test_close_ends_a_shell_that_ignores_sighup(tmp_path: Path) -> None:
    process = spawn(tmp_path)
    pid = process.pid
    try:
        # the shell becomes a process that ignores SIGHUP and reads no input; a job does too
        process.write(b"trap '' HUP; sleep 300 & exec sleep 301\n")
        deadline = time.monotonic() + 10
        while not (len(session_members(pid)) == 2 and cmdline(pid) == b"sleep\x00301\x00"):
            assert time.monotonic() < deadline, session_members(pid)
            select.select([], [], [], 0.01)
    finally:
        began = time.monotonic()
        status = process.close(grace=0.3)
    assert time.monotonic() - began < 5
    assert status == -signal.SIGKILL
    assert session_members(pid) == []
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert process.read() is None


def test_close_after_the_shell_exited(tmp_path: Path) -> None:
    process = spawn(tmp_path)
    try:
        process.write(b"exit 5\n")
        deadline = time.monotonic() + 10
        while process.poll() is None and time.monotonic() < deadline:
            select.select([], [], [], 0.01)
    finally:
        status = process.close()
    assert status == 5
