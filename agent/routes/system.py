"""GET /v1/health and GET /v1/status: answered at once, never queued behind browser work."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from quart import Quart, Response

from bridge_protocol import ErrorId, SvcError
from bridge_protocol.session_ids import format_session_id
from proxy import ProxyListeners

from ..bridge_client import BridgeClient
from ..config import AgentConfig
from ..context import AgentProcess
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


def health_data(ctx: Health) -> dict[str, Any]:
    worker = ctx.worker.state
    state = worker.state
    if state != "starting":
        state = "busy" if ctx.scheduler.active_count or worker.busy_since else "idle"
    snapshot = worker.snapshot(ctx.scheduler.active_count) | {"state": state}
    if worker.failed or ctx.worker.overdue():
        raise SvcError.of(
            ErrorId.AGENT_UNHEALTHY,
            "the control worker failed" if worker.failed else "the control worker is overdue",
            worker=snapshot,
        )
    return {
        "version": ctx.process.version,
        "pid": ctx.process.pid,
        "browser_proxy_port": ctx.listeners.base_port,
        "build": ctx.process.build,
        "worker": snapshot,
        "database_recovery": ctx.store.recovery,
    }


def status_data(ctx: Health) -> dict[str, Any]:
    bridge_up = ctx.bridge is not None and ctx.bridge.connected
    host_pid = os.getppid()
    checks = [
        {
            "id": "svc_app",
            "name": "svc app",
            "kind": "process",
            "running": bridge_up,
            "status": "ok" if bridge_up else "down",
            "detail": f"host app pid {host_pid}" if bridge_up else "no host app on the bridge",
            "pids": [host_pid] if bridge_up else [],
        },
        {
            "id": "agent",
            "name": "agent",
            "kind": "process",
            "running": True,
            "status": "ok" if not ctx.worker.state.failed else "failed",
            "detail": (
                f"HTTP on {ctx.config.host}:{ctx.config.port}, worker {ctx.worker.state.state}"
            ),
            "pids": [ctx.process.pid],
        },
        _browser_proxy_check(ctx),
        {
            "id": "engine_bridge",
            "name": "engine bridge",
            "kind": "bridge",
            "running": bridge_up,
            "status": "ok" if bridge_up else "down",
            "detail": "protocol 4 over the agent's stdin/stdout"
            + ("" if bridge_up else ": not connected"),
            "pids": [ctx.process.pid, host_pid] if bridge_up else [ctx.process.pid],
        },
    ]
    running = sum(1 for c in checks if c["running"])
    return {
        "overall_status": "ok" if running == len(checks) else "degraded",
        "running_count": running,
        "total_count": len(checks),
        "build": ctx.process.build,
        "checks": checks,
    }


def _browser_proxy_check(ctx: Health) -> dict[str, Any]:
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
    return {
        "id": "browser_proxy",
        "name": "profile proxy listeners",
        "kind": "listener",
        "running": running,
        "status": ("degraded" if listeners.failed else "ok") if running else "down",
        "detail": detail if running else "the profile proxy listeners are not running",
        "pids": [ctx.process.pid] if running else [],
    }


def register(app: Quart, ctx: Health) -> None:
    async def health() -> Response:
        return ok(health_data(ctx))

    async def status() -> Response:
        return ok(status_data(ctx))

    add_route(app, "GET", "/v1/health", health)
    add_route(app, "GET", "/v1/status", status)
