"""Run the real `svc-keyserver` as a child process on a loopback port it picks itself."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

_LISTENING = re.compile(r"svc-keyserver listening on (http://\S+)")


def keyserver_command() -> list[str]:
    script = Path(sys.executable).with_name("svc-keyserver")
    assert script.exists(), f"console script missing: {script} (run make setup)"
    return [str(script)]


def wait_for(probe: Callable[[], T | None], timeout: float, what: str, interval: float = 0.02) -> T:
    """Poll `probe` until it returns something other than None, or fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class KeyServerProcess:
    """One `svc-keyserver`; `db` is a postgresql:// URL, else it runs on `workdir`'s SQLite file."""

    def __init__(self, workdir: Path, args: Sequence[str] = (), db: str | None = None) -> None:
        self.workdir = workdir
        self.db = workdir / "keyserver.sqlite3"
        self.db_arg = db or str(self.db)
        self.log_path = workdir / "keyserver.log"
        self.args = list(args)
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self, timeout: float = 30) -> KeyServerProcess:
        return self.launch().wait_ready(timeout)

    def launch(self) -> KeyServerProcess:
        """Start the process without waiting (several can then come up together)."""
        cmd = [
            *keyserver_command(),
            "--bind",
            "127.0.0.1:0",
            "--db",
            self.db_arg,
            *self.args,
        ]
        env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_KEYSERVER_")}
        self.workdir.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        return self

    def wait_ready(self, timeout: float = 30) -> KeyServerProcess:
        def listening() -> str | None:
            assert self.proc is not None
            match = _LISTENING.search(self.log())
            if match:
                return match.group(1)
            if self.proc.poll() is not None:
                raise AssertionError(f"svc-keyserver exited {self.proc.returncode}:\n{self.log()}")
            return None

        self.url = wait_for(listening, timeout, "svc-keyserver to listen")
        return self

    def terminate(self, timeout: float = 15) -> int:
        """SIGTERM, then wait; kill (and fail) only if it does not stop in time."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
                raise AssertionError(f"svc-keyserver ignored SIGTERM:\n{self.log()}") from None
        return self.proc.returncode
