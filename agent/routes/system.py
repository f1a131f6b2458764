"""GET /v1/health and GET /v1/status: answered at once, never queued behind browser work."""

from __future__ import annotations

import os
from typing import Any

from quart import Quart, Response

from bridge_protocol import ErrorId, SvcError

from ..context import AgentContext
from .toolkit import add_route, ok


def health_data(ctx: AgentContext) -> dict[str, Any]:
    worker = ctx.services["worker"]
    state = ctx.worker.state
    if state != "starting":
        state = "busy" if ctx.scheduler.active_count or ctx.worker.busy_since else "idle"
    snapshot = ctx.worker.snapshot(ctx.scheduler.active_count) | {"state": state}
    if ctx.worker.failed or worker.overdue():
        raise SvcError.of(
            ErrorId.AGENT_UNHEALTHY,
            "the control worker failed" if ctx.worker.failed else "the control worker is overdue",
            worker=snapshot,
        )
    return {
        "version": ctx.version,
        "pid": ctx.pid,
        "browser_proxy_port": ctx.services["proxy_listeners"].base_port,
        "build": ctx.build,
        "worker": snapshot,
        "database_recovery": ctx.store.recovery,
    }


def status_data(ctx: AgentContext) -> dict[str, Any]:
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
            "status": "ok" if not ctx.worker.failed else "failed",
            "detail": f"HTTP on {ctx.config.host}:{ctx.config.port}, worker {ctx.worker.state}",
            "pids": [ctx.pid],
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
            "pids": [ctx.pid, host_pid] if bridge_up else [ctx.pid],
        },
    ]
    running = sum(1 for c in checks if c["running"])
    return {
        "overall_status": "ok" if running == len(checks) else "degraded",
        "running_count": running,
        "total_count": len(checks),
        "build": ctx.build,
        "checks": checks,
    }


def _browser_proxy_check(ctx: AgentContext) -> dict[str, Any]:
    listeners = ctx.services["proxy_listeners"]
    ports = listeners.ports
    detail = f"base port {listeners.base_port}, {len(ports)} listening" + "".join(
        f", Session{n} on {port}" for n, port in ports.items()
    )
    detail += "".join(
        f"; Session{n} cannot listen on {listeners.port_for(n)}: {cause}"
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
        "pids": [ctx.pid] if running else [],
    }


def register(app: Quart, ctx: AgentContext) -> None:
    async def health() -> Response:
        return ok(health_data(ctx))

    async def status() -> Response:
        return ok(status_data(ctx))

    add_route(app, "GET", "/v1/health", health)
    add_route(app, "GET", "/v1/status", status)
