"""Fixtures of the client tests: the installed `svc` / `svc-mcp` as subprocesses against the real
app headless (one app per module, fresh sessions per test) and the host tests' fixture site."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.host.hostproc import HostApp
from tests.ports import free_port

BIN = Path(sys.executable).parent
SVC = str(BIN / "svc")
SVC_MCP = str(BIN / "svc-mcp")


@dataclass
class Run:
    code: int
    out: bytes
    err: str

    @property
    def text(self) -> str:
        return self.out.decode()


def client_env(port: int, **extra: str) -> dict[str, str]:
    """The environment of a client: the app's port, no inherited SVC_SESSION_* variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    env["SVC_AGENT_PORT"] = str(port)
    env.update(extra)
    return env


def svc(
    port: int,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    cwd: Path | None = None,
    stdin: bytes | None = None,
) -> Run:
    proc = subprocess.run(
        [SVC, *args],
        check=False,
        env=client_env(port, **(env or {})),
        capture_output=True,
        timeout=timeout,
        cwd=cwd,
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr.decode())


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostApp]:
    app = HostApp(tmp_path_factory.mktemp("clients")).start()
    try:
        yield app
    finally:
        app.stop()


@pytest.fixture
def fresh(host: HostApp) -> Iterator[HostApp]:
    """The module's app with no sessions before and after the test."""
    for s in host.ok("GET", "/v1/sessions")["sessions"]:
        host.client.delete(f"/v1/sessions/{s['id']}")
    yield host
    for s in host.ok("GET", "/v1/sessions")["sessions"]:
        host.client.delete(f"/v1/sessions/{s['id']}")


def svc_app_processes(data_dir: Path) -> list[int]:
    """Pids of svc-app processes (host and agent) whose SVC_DATA_DIR is `data_dir`."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if not any(part.endswith(b"svc-app") for part in cmdline[:2]):
            continue
        if f"SVC_DATA_DIR={data_dir}".encode() in environ:
            pids.append(int(entry.name))
    return pids


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                kill(pid, signal.SIGKILL)


__all__ = [
    "SVC",
    "SVC_MCP",
    "Run",
    "client_env",
    "free_port",
    "kill_all",
    "svc",
    "svc_app_processes",
]
