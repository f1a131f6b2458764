"""The real host app, `svc-app --headless`, as a subprocess with its own data folder and port."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from ..ports import free_port, listener_base

if TYPE_CHECKING:
    from ..proxy.servers import UpstreamProxy

SVC_APP = str(Path(sys.executable).parent / "svc-app")


class HostApp:
    def __init__(
        self, data_dir: Path, *, env: dict[str, str] | None = None, wrap: Sequence[str] = ()
    ) -> None:
        """`wrap` is a command the app runs under (a tracer): `proc` is then that command's."""
        self.data_dir = data_dir
        self.wrap = list(wrap)
        self.port = free_port()
        self.extra_env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.client = httpx.Client(
            base_url=f"http://127.0.0.1:{self.port}", timeout=60, trust_env=False
        )
        self.log_path = data_dir / "host-stderr.log"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
        env.update(
            SVC_DATA_DIR=str(self.data_dir),
            SVC_AGENT_PORT=str(self.port),
            SVC_BROWSER_PROXY_PORT=str(listener_base()),
            SVC_PLAN="pro",
            QT_QPA_PLATFORM="offscreen",
            QTWEBENGINE_CHROMIUM_FLAGS="--no-sandbox --disable-gpu",
            # tests stay offline: the real mirror is never asked (a refused port fails at once);
            # the adblock tests give their own mirror
            SVC_FILTER_LISTS_URL="https://127.0.0.1:9/lists",
        )
        env.update(self.extra_env)
        return env

    def start(self, timeout: float = 60, *, gui: bool = False) -> HostApp:
        self.launch(gui=gui)
        self.wait_healthy(timeout)
        return self

    def launch(self, *, gui: bool = False, command: Sequence[str] = ()) -> HostApp:
        """Start the app without waiting for its agent; `command` instead of `svc-app`."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.extra_env.get("_SETTINGS"):
            (self.data_dir / "app-settings.json").write_text(self.extra_env["_SETTINGS"])
        program = list(command) or [SVC_APP]
        with self.log_path.open("ab") as err:
            self.proc = subprocess.Popen(
                [*self.wrap, *program] if gui else [*self.wrap, *program, "--headless"],
                stdin=subprocess.DEVNULL,
                stdout=err,
                stderr=err,
                env=self.env(),
                start_new_session=True,
            )
        return self

    def wait_healthy(self, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"svc-app exited {self.proc.returncode}")
            with contextlib.suppress(httpx.TransportError):
                r = self.client.get("/v1/health")
                if r.status_code == 200:
                    return dict(r.json()["data"])
            time.sleep(0.1)
        raise TimeoutError("the agent did not become healthy")

    def ok(self, method: str, path: str, body: Any = None, **kw: Any) -> dict[str, Any]:
        r = self.client.request(method, path, json=body, **kw)
        envelope = r.json()
        assert r.status_code == 200, f"{envelope}\n{self.state()}"
        assert envelope["status"] == "ok", f"{envelope}\n{self.state()}"
        return dict(envelope["data"])

    def state(self) -> str:
        """What a failed request's message adds: whether the app still runs, the last lines of
        its stderr and of the global log (an engine that went away says why there)."""
        lines = [f"svc-app: {'running' if self.proc and self.proc.poll() is None else 'ended'}"]
        if self.proc is not None and self.proc.returncode is not None:
            lines[0] += f" ({self.proc.returncode})"
        for path in (self.log_path, self.data_dir / "Logs" / "global.ndjson"):
            with contextlib.suppress(OSError):
                tail = path.read_text("utf-8", "replace").splitlines()[-15:]
                lines += [f"-- {path.name}:", *tail]
        return "\n".join(lines)

    def error(
        self, method: str, path: str, body: Any = None, **kw: Any
    ) -> tuple[int, dict[str, Any]]:
        r = self.client.request(method, path, json=body, **kw)
        envelope = r.json()
        assert envelope["status"] == "error", envelope
        return r.status_code, dict(envelope["error"])

    def new_proxy(self, alias: str, upstream: UpstreamProxy, **fields: Any) -> dict[str, Any]:
        """POST /v1/proxies for a local upstream, with its credentials; `fields` add to it."""
        body: dict[str, Any] = {
            "alias": alias,
            "upstream_host": "127.0.0.1",
            "upstream_port": upstream.port,
            "username": upstream.username,
            "password": upstream.password,
        }
        return self.ok("POST", "/v1/proxies", body | fields)

    def new_session(self, **fields: Any) -> str:
        return str(self.ok("POST", "/v1/sessions", fields)["session"]["id"])

    def stream(self, path: str, body: Any) -> list[dict[str, Any]]:
        lines = []
        with self.client.stream("POST", path, json=body) as r:
            assert r.status_code == 200, r.read()
            for line in r.iter_lines():
                if line.strip():
                    lines.append(json.loads(line))
        return lines

    def agent_pid(self) -> int:
        return int(self.ok("GET", "/v1/health")["pid"])

    def stop(self) -> None:
        if self.proc is not None and (self.proc.poll() or 0) < 0:
            # it died of a signal before we stopped it: its crash report says where
            # (faulthandler's for Python; the engine's own checks trap, SIGTRAP, and say why on
            # stderr, so its last lines too)
            crash = self.data_dir / "Logs" / "host-crash.txt"
            report = [f"svc-app died ({self.proc.returncode}):"]
            with contextlib.suppress(OSError):
                report.append(crash.read_text())
            with contextlib.suppress(OSError):
                report += self.log_path.read_text("utf-8", "replace").splitlines()[-30:]
            print("\n".join(report), file=sys.stderr)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)
        self.client.close()
