"""Agent supervisor (spec 1 lifecycle rules 3-6) on QProcess, with the bridge on its pipes.

Decisions (health counting, backoff, whether a pid is our own agent) live in
`host_app.logic.supervision`; this module only owns the process, timers and HTTP polls.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from bridge_protocol import BridgeProtocolError
from bridge_protocol.host_endpoint import Handler, HostEndpoint

from .config import HostConfig
from .logic import supervision
from .logic.logfile import HostLog, StderrLines
from .qt import (
    QNetworkAccessManager,
    QNetworkReply,
    QNetworkRequest,
    QObject,
    QProcess,
    QProcessEnvironment,
    QTimer,
    QUrl,
)


class _AgentPipe:
    """The app's end of the bridge: frames to the agent's stdin, its stdout to the endpoint."""

    def __init__(self, proc: QProcess) -> None:
        self._proc = proc
        self._reading = False
        self.endpoint: HostEndpoint | None = None

    def send(self, frame: bytes | bytearray) -> None:
        self._proc.write(frame)
        if not self._reading:
            # out now, not when the event loop next turns to the pipe: after an answer the
            # host logs the operation and updates its windows (0.4 ms of every step). Not
            # from within the endpoint's read: where the pipe is full, Qt reads the agent's
            # output meanwhile, and that would enter the endpoint again.
            self._proc.waitForBytesWritten(0)

    def received(self) -> None:
        if self.endpoint is None:
            return
        self._reading = True
        try:
            self.endpoint.data_received(bytes(self._proc.readAllStandardOutput().data()))
        finally:
            self._reading = False


class Supervisor(QObject):
    def __init__(
        self,
        config: HostConfig,
        handler: Handler,
        log: HostLog,
        child_env: dict[str, str],
    ) -> None:
        super().__init__()
        self.config = config
        self.handler = handler
        self.log = log
        self.child_env = child_env
        self.process: QProcess | None = None
        self.endpoint: HostEndpoint | None = None
        self.health = supervision.HealthCounter()
        self.starts = supervision.Starts()
        self.stopping = False
        self.healthy = False
        self.on_state: list[Callable[[str], None]] = []
        self._nam = QNetworkAccessManager(self)
        self._poll = QTimer(self)
        self._poll.setSingleShot(True)
        self._poll.timeout.connect(self._check_health)
        self._stderr = StderrLines(log)
        self._kill_timer: QTimer | None = None
        self._healthy_at: float | None = None  # monotonic time of the first healthy reply
        self._retry = QTimer(self)
        self._retry.setSingleShot(True)
        self._retry.timeout.connect(self._relaunch)

    # -- start -------------------------------------------------------------------------------

    def start(self) -> None:
        self.stopping = False
        self._terminate_stale()
        self._launch()

    def _terminate_stale(self) -> None:
        """Rule 4: GET /v1/health first; stop a stale agent only when its pid is our own agent
        executable serving this data folder. An agent that hangs or answers without its pid
        (503) is found by its listening socket."""
        pids = {pid for pid in (self._health_pid(),) if pid is not None}
        pids.update(supervision.listening_pids(self.config.port))
        child = self.pid
        for pid in sorted(pids - {child, os.getpid()}):
            self._stop_stale(pid)

    def _health_pid(self) -> int | None:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        body: Any = None
        try:
            with opener.open(self.config.health_url, timeout=1.0) as resp:
                body = json.loads(resp.read())
            pid = (body.get("data") or {}).get("pid")
        except urllib.error.HTTPError as exc:
            with contextlib.suppress(Exception):
                body = json.loads(exc.read())
            try:
                pid = body["error"]["details"]["pid"]
            except (TypeError, KeyError):
                pid = None
        except (OSError, ValueError, AttributeError):
            return None
        return pid if isinstance(pid, int) else None

    def _stop_stale(self, pid: int) -> None:
        if not supervision.is_stale_agent(
            pid, self.config.agent_program, self.config.data_dir, bundled=self.config.bundled
        ):
            self.log.write(
                "supervisor.port_taken",
                f"port {self.config.port} is held by {supervision.describe_pid(pid)}, which is "
                "not an agent this app may stop; leaving it alone",
                level="warning",
                data={"pid": pid},
            )
            return
        self.log.write("supervisor.stale_agent", f"terminating stale agent pid {pid}")
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
            os.kill(pid, signal.SIGCONT)  # a stopped one acts on the SIGTERM only once continued
        deadline = time.monotonic() + supervision.STOP_DEADLINE
        while time.monotonic() < deadline:
            if not os.path.exists(f"/proc/{pid}") or not self._is_own_agent(pid):
                return
            time.sleep(0.05)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)

    def _is_own_agent(self, pid: int) -> bool:
        return supervision.is_own_agent(pid, self.config.agent_program, bundled=self.config.bundled)

    @property
    def launch_env(self) -> dict[str, str]:
        env = dict(self.child_env)
        env["SVC_BROWSER_BRIDGE"] = "stdio"
        env["SVC_DATA_DIR"] = str(self.config.data_dir)
        # the failed starts before this one, for the agent's status (spec: status tells why)
        env["SVC_AGENT_START_FAILURES"] = self.starts.summary()
        return env

    def _launch(self) -> None:
        proc = QProcess(self)
        env = QProcessEnvironment()
        for key, value in self.launch_env.items():
            env.insert(key, value)
        proc.setProcessEnvironment(env)
        proc.setProgram(self.config.agent_program)
        proc.setArguments(list(self.config.agent_args))
        pipe = _AgentPipe(proc)
        endpoint = HostEndpoint(pipe.send, self.handler, on_protocol_error=self._protocol_error)
        pipe.endpoint = endpoint
        proc.readyReadStandardOutput.connect(pipe.received)
        proc.readyReadStandardError.connect(
            lambda: self._stderr.feed(bytes(proc.readAllStandardError().data()))
        )
        proc.finished.connect(lambda code, status: self._finished(proc, endpoint, code))
        proc.errorOccurred.connect(lambda err: self._error(proc, endpoint, err))
        self.process, self.endpoint = proc, endpoint
        self.health = supervision.HealthCounter()
        self.healthy = False
        self._healthy_at = None
        self._stderr.last = ""
        proc.start()
        self.log.write(
            "supervisor.launched",
            "agent launched",
            data={"program": self.config.agent_program, "args": list(self.config.agent_args)},
        )
        self._poll.start(round(supervision.FIRST_POLL * 1000))
        self._notify("starting")

    def _protocol_error(self, exc: BridgeProtocolError) -> None:
        self.log.write("bridge.protocol_error", str(exc), level="error")

    def _error(self, proc: QProcess, endpoint: HostEndpoint, err: QProcess.ProcessError) -> None:
        if err == QProcess.ProcessError.FailedToStart:
            self.log.write("supervisor.failed_to_start", proc.errorString(), level="error")
            self._finished(proc, endpoint, -1)

    def _finished(self, proc: QProcess, endpoint: HostEndpoint, code: int) -> None:
        endpoint.connection_lost()
        self._stderr.flush()
        if proc is not self.process:
            return
        self.process = None
        self.endpoint = None
        self._poll.stop()
        self.healthy = False
        self.log.write("supervisor.exited", f"agent exited with {code}", data={"code": code})
        if self.stopping:
            self._notify("stopped")
            return
        at = self._healthy_at
        healthy_for = 0.0 if at is None else time.monotonic() - at
        cause = self._failure_cause(proc, code)
        delay = self.starts.ended(healthy_for=healthy_for, code=code, cause=cause, at=time.time())
        # every end the app did not ask for says why and when the next try is; an agent that
        # answered health did start: it stopped
        category, what = (
            ("supervisor.start_failed", "the agent did not start")
            if at is None
            else ("supervisor.agent_stopped", f"the agent stopped after {healthy_for:.0f} s")
        )
        self.log.write(
            category,
            f"{what}: {cause}; next attempt in {delay:g} s",
            level="error",
            data={
                "code": code,
                "cause": cause,
                "failures": self.starts.failures,
                "retry_in": delay,
            },
        )
        self._notify("restarting")
        self._retry.start(round(delay * 1000))

    def _failure_cause(self, proc: QProcess, code: int) -> str:
        if code == -1:
            return f"the agent could not be run ({self.config.agent_program}): {proc.errorString()}"
        holders = [
            supervision.describe_pid(pid)
            for pid in supervision.listening_pids(self.config.port)
            if pid != os.getpid()
        ]
        return supervision.exit_cause(code, self._stderr.last, self.config.port, holders)

    def _relaunch(self) -> None:
        if not self.stopping and self.process is None:
            # an orphan that hung or took the port meanwhile (rule 4 before every launch)
            self._terminate_stale()
            self._launch()

    # -- health ------------------------------------------------------------------------------

    def _check_health(self) -> None:
        if self.process is None or self.stopping:
            return
        # every POLL_INTERVAL from the launch whatever the replies take: a hung agent is
        # restarted ~6 s after it stopped answering (a poll started after each reply: 10.5 s)
        self._poll.start(round(supervision.POLL_INTERVAL * 1000))
        request = QNetworkRequest(QUrl(self.config.health_url))
        request.setTransferTimeout(round(supervision.POLL_TIMEOUT * 1000))
        reply = self._nam.get(request)
        if reply is None:
            return
        proc = self.process
        reply.finished.connect(lambda: self._health_reply(reply, proc))

    def _health_reply(self, reply: QNetworkReply, proc: QProcess) -> None:
        ok = reply.error() == QNetworkReply.NetworkError.NoError
        reply.deleteLater()
        if proc is not self.process or self.stopping:
            return
        if ok:
            self.health.success()
            if not self.healthy:
                self.healthy = True
                if self._healthy_at is None:
                    self._healthy_at = time.monotonic()
                self._notify("running")
        elif self.health.failure():
            self.log.write(
                "supervisor.unhealthy",
                f"{supervision.MAX_FAILURES} consecutive health checks failed; restarting",
                level="warning",
            )
            self._poll.stop()
            self._kill(proc)

    # -- stop --------------------------------------------------------------------------------

    def _kill(self, proc: QProcess) -> None:
        proc.terminate()
        QTimer.singleShot(round(supervision.STOP_DEADLINE * 1000), proc.kill)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after STOP_DEADLINE seconds; returns when the agent is gone."""
        self.stopping = True
        self._poll.stop()
        self._retry.stop()
        proc = self.process
        if proc is None or proc.state() == QProcess.ProcessState.NotRunning:
            return
        proc.terminate()
        if not proc.waitForFinished(round(supervision.STOP_DEADLINE * 1000)):
            proc.kill()
            proc.waitForFinished(2000)
        self.log.write("supervisor.stopped", "agent stopped")

    @property
    def pid(self) -> int | None:
        if self.process is None:
            return None
        pid = int(self.process.processId())
        return pid or None

    def _notify(self, state: str) -> None:
        for cb in self.on_state:
            cb(state)
