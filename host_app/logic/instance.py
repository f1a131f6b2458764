"""One app per data folder (no Qt): the running app holds an exclusive lock on a file in the
folder, and listens on a local socket where a later launch asks it to show its browser window.

The lock is `flock` on `{data_dir}/svc-app.lock`: the kernel drops it when its holder ends, a
crash or kill -9 included, so a lock is never stale and no pid needs checking for liveness. The
file holds the holder's pid for the message a later launch prints. The descriptor is not
inherited (PEP 446): the agent and the engine's processes never hold it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import socket
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

LOCK_NAME = "svc-app.lock"
SHOW = b"show\n"
SHOWN = b"shown\n"
HEADLESS = b"headless\n"
# what a later launch waits for the running app to answer (it may be starting: the lock is
# taken first, the socket listens once its window exists)
ANSWER_WAIT = 10.0
# the exit status of a later launch that started nothing because an app holds the folder (0
# when it showed that app's window): a client that launched it to get an agent waits for the
# running app's agent instead (clients/coldstart.py)
EXIT_ALREADY_RUNNING = 3


@dataclass(frozen=True, slots=True)
class Held:
    """The lock of a data folder, held until this process ends."""

    fd: int
    path: Path


@dataclass(frozen=True, slots=True)
class Taken:
    """Another live process holds the folder; `pid` 0 when it has not written it yet."""

    pid: int


def acquire(data_dir: Path) -> Held | Taken:
    path = data_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return Taken(holder_pid(path))
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return Held(fd, path)


def holder_pid(path: Path) -> int:
    try:
        text = path.read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return 0
    return int(text) if text.isdigit() else 0


def socket_path(data_dir: Path) -> str:
    """The running app's local socket: in the temporary folder, named for the user and the data
    folder (a socket path is limited to ~100 bytes, a data folder's path is not)."""
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:20]
    return os.path.join(tempfile.gettempdir(), f"svc-app-{os.getuid()}-{digest}.sock")


def ask_to_show(data_dir: Path, timeout: float = ANSWER_WAIT) -> bytes | None:
    """Ask the app running on `data_dir` to show its browser window: its answer (SHOWN or
    HEADLESS), or None when it did not answer within `timeout`."""

    end = time.monotonic() + timeout
    path = socket_path(data_dir)
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return None
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(left)
            sock.connect(path)
            sock.sendall(SHOW)
            answer = sock.makefile("rb").readline(64)
            if answer in (SHOWN, HEADLESS):
                return answer
        time.sleep(0.1)  # not listening yet: the app is starting
