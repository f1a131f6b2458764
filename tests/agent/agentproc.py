"""The real agent process for tests, with a scripted host on the other end of its bridge.

`AgentProcess.start()` runs `svc-app --agent` with `SVC_BROWSER_BRIDGE=stdio` exactly as the host
app does, a fresh `SVC_DATA_DIR`, and a free loopback port; its stdin/stdout carry the bridge to a
`PipeHost` (a test double of the host only) whose `answer` each test may replace.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

import bridge_protocol as bp
from bridge_protocol.testing import PipeHost

from ..ports import free_port, listener_base

SVC_APP = shutil.which("svc-app", path=str(Path(sys.executable).parent)) or "svc-app"


def default_answer(request: bp.HostRequest) -> tuple[float, bp.Answer | bp.ApiError]:
    """A host that says yes: a stateless success for every engine command."""
    from .fakebrowser import FakeBrowser, op_of  # it imports this module

    return 0.0, FakeBrowser().default(*op_of(request))


class AgentProcess:
    def __init__(self, data_dir: Path, *, env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.extra_env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.host: PipeHost | None = None
        self.client = httpx.Client(
            base_url=f"http://127.0.0.1:{self.port}", timeout=30, trust_env=False
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
        env.update(
            SVC_DATA_DIR=str(self.data_dir),
            SVC_AGENT_PORT=str(self.port),
            SVC_BROWSER_PROXY_PORT=str(listener_base()),
            SVC_BROWSER_BRIDGE="stdio",
            SVC_PLAN="pro",
        )
        env.update(self.extra_env)
        return env

    def start(self, *, wait: bool = True, answering: bool = True) -> AgentProcess:
        """`answering=False`: nobody reads the bridge (an app whose loop never runs)."""
        self.proc = subprocess.Popen(
            [SVC_APP, "--agent"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env(),
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdin is not None
        if answering:
            self.host = PipeHost(
                self.proc.stdout.fileno(), self.proc.stdin.fileno(), default_answer
            )
            self.host.start()
        if wait:
            self.wait_healthy()
        return self

    def wait_healthy(self, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"agent exited {self.proc.returncode}: {self.stderr()}")
            try:
                if self.client.get("/v1/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise TimeoutError("agent did not become healthy")

    def stderr(self) -> str:
        if self.proc is None or self.proc.stderr is None or self.proc.poll() is None:
            return ""
        return self.proc.stderr.read().decode(errors="replace")

    def request(self, method: str, path: str, body: Any = None, **kw: Any) -> httpx.Response:
        if body is not None:
            kw["json"] = body
        return self.client.request(method, path, **kw)

    def ok(self, method: str, path: str, body: Any = None, **kw: Any) -> dict[str, Any]:
        """The `data` of a success envelope; fails the test on anything else."""
        response = self.request(method, path, body, **kw)
        envelope = response.json()
        assert response.status_code == 200, envelope
        assert envelope["status"] == "ok"
        assert envelope["request_id"] == response.headers["x-request-id"]
        data: dict[str, Any] = envelope["data"]
        return data

    def error(
        self, method: str, path: str, body: Any = None, **kw: Any
    ) -> tuple[int, dict[str, Any]]:
        """(HTTP status, error object) of a failure envelope; fails the test on success."""
        response = self.request(method, path, body, **kw)
        envelope = response.json()
        assert envelope["status"] == "error", envelope
        assert envelope["request_id"] == response.headers["x-request-id"]
        assert response.headers["connection"] == "close"
        error: dict[str, Any] = envelope["error"]
        assert error["code"] == bp.ERROR_TABLE[bp.ErrorId(error["id"])].code
        return response.status_code, error

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 5) -> int:
        code = -1
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(sig)
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.wait(5)
            code = self.proc.returncode
        if self.host is not None:
            self.host.stop()
            self.host = None
        if self.proc is not None:
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()
        return code

    def kill9(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(5)
        self.stop()

    def close(self) -> None:
        self.stop()
        self.client.close()
