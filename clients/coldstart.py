"""Cold start: launch `svc-app` in the background when the agent is unavailable, then wait for it.

Every command and tool call except `health`, `status`, `svc_status` and the MCP protocol flow may
cold-start. Concurrent clients serialize on an exclusive `fcntl.flock` of one lock file per agent
port (in $XDG_RUNTIME_DIR/svc, else a private folder under the temporary directory) and re-check
health once they hold it, so ten clients started at once launch one app: the first launches and
waits, the others find the agent healthy when their turn comes.

The app is started as `svc-app` (`svc-app --headless` when neither DISPLAY nor WAYLAND_DISPLAY is
set), detached in its own session with no stdio, so it outlives the client that launched it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import IO

from .agent_client import AgentError, make_error

START_DEADLINE = 90.0  # the app's first start builds its store and the engine runtime
POLL = 0.1


class ColdStartFailed(AgentError):
    kind = "transport"


def lock_dir(env: Mapping[str, str]) -> Path:
    runtime = env.get("XDG_RUNTIME_DIR")
    base = Path(runtime) / "svc" if runtime else Path(tempfile.gettempdir()) / f"svc-{os.getuid()}"
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    return base


def lock_path(port: int, env: Mapping[str, str], name: str = "coldstart") -> Path:
    return lock_dir(env) / f"{name}-{port}.lock"


def app_command(env: Mapping[str, str]) -> list[str]:
    """`svc-app`, the one beside this interpreter's scripts when there is one, else from PATH.
    In a bundle (`make bundle`) the one beside this executable: there argv[0] is the name as
    typed (`svc` through a link on PATH), which would look in the working folder."""
    beside_executable = shutil.which("svc-app", path=str(Path(sys.executable).parent))
    program = (
        (beside_executable if getattr(sys, "frozen", False) else None)
        or shutil.which("svc-app", path=str(Path(sys.argv[0]).resolve().parent))
        or beside_executable
        or shutil.which("svc-app", path=env.get("PATH"))
    )
    if program is None:
        raise ColdStartFailed(
            make_error(
                "BROWSER_UNAVAILABLE",
                "the svc agent is not running and svc-app was not found to start it",
                reason="app_not_found",
            )
        )
    headless = not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
    return [program, "--headless"] if headless else [program]


def launch(env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        app_command(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        env=dict(env),
    )


# svc-app's exit status when an app already holds the data folder (host_app/logic/instance.py;
# 0 when it showed that app's window): that app's supervisor brings its agent back, so the
# client goes on waiting for health until its deadline
ALREADY_RUNNING = (0, 3)


def _failed(proc: subprocess.Popen[bytes]) -> bool:
    """The launched app ended without an agent to wait for."""
    code = proc.poll()
    return code is not None and code not in ALREADY_RUNNING


def _exited(proc: subprocess.Popen[bytes]) -> ColdStartFailed:
    return ColdStartFailed(
        make_error(
            "BROWSER_UNAVAILABLE",
            f"svc-app exited with status {proc.returncode} before the agent became healthy",
            reason="app_exited",
            exit_status=proc.returncode,
        )
    )


def _too_slow(base_url: str) -> ColdStartFailed:
    return ColdStartFailed(
        make_error(
            "BROWSER_UNAVAILABLE",
            f"svc-app was started but the agent at {base_url} was not healthy within "
            f"{START_DEADLINE:g} s",
            reason="app_start_timeout",
        )
    )


def _try_lock(handle: IO[bytes]) -> bool:
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def ensure_running_sync(
    port: int,
    base_url: str,
    healthy: Callable[[], bool],
    env: Mapping[str, str] | None = None,
) -> None:
    """Make the agent healthy, launching svc-app at most once across concurrent clients."""
    env = os.environ if env is None else env
    deadline = time.monotonic() + START_DEADLINE
    with lock_path(port, env).open("ab") as handle:
        while not _try_lock(handle):
            if time.monotonic() > deadline:
                raise _too_slow(base_url)
            time.sleep(POLL)
        if healthy():
            return
        proc = launch(env)
        while time.monotonic() < deadline:
            if healthy():
                return
            if _failed(proc):
                raise _exited(proc)
            time.sleep(POLL)
        raise _too_slow(base_url)


async def ensure_running_async(
    port: int,
    base_url: str,
    healthy: Callable[[], Awaitable[bool]],
    env: Mapping[str, str] | None = None,
) -> None:
    """The same for trio code (svc-mcp): the waits are trio sleeps."""
    import trio

    env = os.environ if env is None else env
    deadline = trio.current_time() + START_DEADLINE
    with lock_path(port, env).open("ab") as handle:
        while not _try_lock(handle):
            if trio.current_time() > deadline:
                raise _too_slow(base_url)
            await trio.sleep(POLL)
        if await healthy():
            return
        proc = launch(env)
        _launched.append(proc)
        while trio.current_time() < deadline:
            if await healthy():
                return
            if _failed(proc):
                raise _exited(proc)
            await trio.sleep(POLL)
        raise _too_slow(base_url)


# A long-running svc-mcp keeps its children's handles so that Python reaps them when they end.
_launched: list[subprocess.Popen[bytes]] = []
