"""GET /v1/health and GET /v1/status: answered at once, never queued behind browser work."""

from __future__ import annotations

import os
from dataclasses import dataclass

import msgspec
import trio
from quart import Quart, Response

from bridge_protocol import ErrorId, SvcError
from bridge_protocol.session_ids import format_session_id
from proxy import ProxyListeners

from .. import health_responses as shown
from ..bridge_client import BridgeClient
from ..config import AgentConfig
from ..context import AgentProcess
from ..health_responses import WorkerShown
from ..scheduler import Scheduler
from ..store import Store
from ..worker import ControlWorker
from .toolkit import add_route, ok


@dataclass(frozen=True)
class Health:
    """What health and status report on."""

    config: AgentConfig
    process: AgentProcess
    store: Store
    scheduler: Scheduler
    bridge: BridgeClient | None
    worker: ControlWorker
    listeners: ProxyListeners


def _worker(ctx: Health) -> tuple[WorkerShown, str | None]:
    """The worker's snapshot, and why health is unhealthy (None: it is not)."""
    state = ctx.worker.state
    return state.snapshot(ctx.scheduler.active_count), state.problem(trio.current_time())


def health_data(ctx: Health) -> shown.Health:
    snapshot, problem = _worker(ctx)
    if problem is not None:
        raise SvcError.of(ErrorId.AGENT_UNHEALTHY, problem, worker=msgspec.to_builtins(snapshot))
    recovery = ctx.store.recovery
    return shown.Health(
        version=ctx.process.version,
        pid=ctx.process.pid,
        browser_proxy_port=ctx.listeners.base_port,
        build=ctx.process.build,
        worker=snapshot,
        database_recovery=None
        if recovery is None
        else msgspec.convert(recovery, shown.DatabaseRecovery),
    )


def status_data(ctx: Health) -> shown.Status:
    bridge_up = ctx.bridge is not None and ctx.bridge.connected
    host_pid = os.getppid()
    snapshot, problem = _worker(ctx)
    detail = f"HTTP on {ctx.config.host}:{ctx.config.port}, worker {snapshot.state}"
    if problem is not None:
        detail += f"; unhealthy: {problem}"
    if ctx.config.start_failures:
        detail += f"; {ctx.config.start_failures}"
    agent_status = "ok"
    if problem is not None:  # never ok while health answers AGENT_UNHEALTHY
        agent_status = "failed" if ctx.worker.state.failed else "unhealthy"
    checks = [
        shown.StatusCheck(
            id="svc_app",
            name="svc app",
            kind="process",
            running=bridge_up,
            status="ok" if bridge_up else "down",
            detail=f"host app pid {host_pid}" if bridge_up else "no host app on the bridge",
            pids=[host_pid] if bridge_up else [],
        ),
        shown.StatusCheck(
            id="agent",
            name="agent",
            kind="process",
            running=True,
            status=agent_status,
            detail=detail,
            pids=[ctx.process.pid],
        ),
        _browser_proxy_check(ctx),
        shown.StatusCheck(
            id="engine_bridge",
            name="engine bridge",
            kind="bridge",
            running=bridge_up,
            status="ok" if bridge_up else "down",
            detail="protocol 4 over the agent's stdin/stdout"
            + ("" if bridge_up else ": not connected"),
            pids=[ctx.process.pid, host_pid] if bridge_up else [ctx.process.pid],
        ),
    ]
    running = sum(1 for c in checks if c.running)
    healthy = running == len(checks) and all(c.status == "ok" for c in checks)
    return shown.Status(
        overall_status="ok" if healthy else "degraded",
        running_count=running,
        total_count=len(checks),
        build=ctx.process.build,
        checks=checks,
    )


def _browser_proxy_check(ctx: Health) -> shown.StatusCheck:
    listeners = ctx.listeners
    ports = listeners.ports
    detail = f"base port {listeners.base_port}, {len(ports)} listening" + "".join(
        f", {format_session_id(n)} on {port}" for n, port in ports.items()
    )
    detail += "".join(
        f"; {format_session_id(n)} cannot listen on {listeners.port_for(n)}: {cause}"
        for n, cause in sorted(listeners.failed.items())
    )
    running = bool(listeners.running)
    return shown.StatusCheck(
        id="browser_proxy",
        name="profile proxy listeners",
        kind="listener",
        running=running,
        status=("degraded" if listeners.failed else "ok") if running else "down",
        detail=detail if running else "the profile proxy listeners are not running",
        pids=[ctx.process.pid] if running else [],
    )


def register(app: Quart, ctx: Health) -> None:
    async def health() -> Response:
        return ok(health_data(ctx))

    async def status() -> Response:
        return ok(status_data(ctx))

    add_route(app, "GET", "/v1/health", health)
    add_route(app, "GET", "/v1/status", status)
