"""A child process on a new pseudo-terminal, in a session of its own (no Qt).

The child is started in a new session (`start_new_session`) and makes the pty its controlling
terminal before it becomes the shell: a two-line Python prelude does `TIOCSCTTY` and `execv`, so no
`preexec_fn` runs in the (multi-threaded) app between fork and exec. The shell's pid is the
session's id and its process group's, so `close` can end everything the shell started, including
jobs that job control moved into groups of their own.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from host_app.logic.terminal import ShellCommand

# Python ignores SIGPIPE and SIGXFSZ at startup, an app started in the background by a
# non-interactive shell has SIGINT and SIGQUIT ignored, and exec keeps ignored signals ignored:
# the prelude gives them back their defaults, or `yes | head` would complain and Ctrl+C would
# not stop a command in the user's shell.
_EXEC_WITH_CTTY = (
    "import fcntl, os, signal, sys, termios\n"
    "for name in ('SIGPIPE', 'SIGXFSZ', 'SIGINT', 'SIGQUIT', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU'):\n"
    "    signal.signal(getattr(signal, name), signal.SIG_DFL)\n"
    "fcntl.ioctl(0, termios.TIOCSCTTY, 0)\n"
    "os.execve(sys.argv[1], [sys.argv[2]], os.environ)\n"
)


def set_window_size(fd: int, rows: int, columns: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


def session_members(sid: int) -> list[int]:
    """Live (neither zombie nor dead) processes whose session is `sid`, from /proc; [] if none."""
    members = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        # state ppid pgrp session ...
        if len(fields) >= 4 and fields[0] not in ("Z", "X") and int(fields[3]) == sid:
            members.append(int(entry))
    return members


def _signal_session(sid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(sid, sig)
    for pid in session_members(sid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


class PtyProcess:
    """One running shell and the master side of its pty (non-blocking)."""

    def __init__(self, command: ShellCommand, rows: int, columns: int) -> None:
        master, slave = os.openpty()
        try:
            set_window_size(slave, rows, columns)
            self._popen = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _EXEC_WITH_CTTY, command.path, command.argv0],
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=command.cwd if os.path.isdir(command.cwd) else "/",
                env=command.env,
                start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        self.master_fd: int | None = master

    @property
    def pid(self) -> int:
        return self._popen.pid

    def resize(self, rows: int, columns: int) -> None:
        if self.master_fd is not None:
            set_window_size(self.master_fd, rows, columns)

    def read(self, limit: int = 65536) -> bytes | None:
        """What the shell wrote so far (b"" when nothing), or None once its side is closed."""
        if self.master_fd is None:
            return None
        try:
            data = os.read(self.master_fd, limit)
        except BlockingIOError:
            return b""
        except OSError as e:  # Linux reports a closed slave side as EIO
            if e.errno == errno.EIO:
                return None
            raise
        return data or None

    def write(self, data: bytes) -> int:
        """Writes what the pty takes now; returns how many bytes that was."""
        if self.master_fd is None:
            return len(data)
        try:
            return os.write(self.master_fd, data)
        except BlockingIOError:
            return 0
        except OSError as e:
            if e.errno == errno.EIO:
                return len(data)
            raise

    def poll(self) -> int | None:
        return self._popen.poll()

    def close(self, grace: float = 0.5) -> int:
        """Ends the shell and everything in its session: SIGHUP (with SIGCONT for stopped jobs),
        the pty closed, SIGKILL for what is left after `grace` seconds; the shell is reaped.
        Returns its exit status (negative: the signal)."""
        sid = self.pid
        _signal_session(sid, signal.SIGHUP)
        _signal_session(sid, signal.SIGCONT)
        if self.master_fd is not None:
            os.close(self.master_fd)
            self.master_fd = None
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if self._popen.poll() is not None and not session_members(sid):
                break
            time.sleep(0.01)
        if self._popen.poll() is None or session_members(sid):
            _signal_session(sid, signal.SIGKILL)
        status = self._popen.wait(timeout=10)
        # SIGKILL is delivered when the scheduler next runs the process: on a loaded machine a job
        # of the shell can still be running (not yet a zombie) after the shell was reaped
        deadline = time.monotonic() + 5
        while session_members(sid) and time.monotonic() < deadline:
            _signal_session(sid, signal.SIGKILL)
            time.sleep(0.01)
        return status
