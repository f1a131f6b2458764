"""A real web application's server for one test module: started in its own process group,
waited for until a page of it answers 200, and stopped with its whole group (servers that fork a
child per request, as roundup-server does, leave none behind)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx


@contextmanager
def app_server(
    command: Sequence[str],
    cwd: Path,
    probe: str,
    *,
    stop: int = signal.SIGTERM,
    timeout: float = 60,
    env: dict[str, str] | None = None,
    log: str = "server.log",
) -> Iterator[None]:
    """Runs `command` in `cwd` (its output in `cwd`/`log`, its environment `env`, else this
    one's) until `probe` answers 200; then stops its group with `stop` (a server that only
    reads may be killed at once: uvicorn's graceful stop waits for the browser's open keep-alive
    connections, ~10 s)."""
    log_path = cwd / log
    with log_path.open("wb") as out:
        server = subprocess.Popen(
            list(command),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            env=env,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + timeout
            while True:
                assert server.poll() is None, log_path.read_text("utf-8", "replace")
                try:
                    if httpx.get(probe, trust_env=False).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, f"{command[0]} did not answer {probe}"
                time.sleep(0.1)
            yield
        finally:
            os.killpg(server.pid, stop)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(5)
            # a forked child of the group may outlive its parent's SIGTERM
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(server.pid, signal.SIGKILL)
