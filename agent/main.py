"""Agent process: start-up order of spec 1 lifecycle rule 7, and a clean SIGTERM.

1. open the store (creating the current schema), 2. open the bridge, 3. start the profile proxy
listeners, 4. start the control worker, 5. accept HTTP on 127.0.0.1:$SVC_AGENT_PORT.
Each step, once done, writes its record to the global log (agent.store_opened,
agent.bridge_opened, agent.listeners_started, agent.worker_started, agent.started), so the log
shows the order the steps ran in (tests/agent/test_lifecycle.py reads it).
SIGTERM or SIGINT stops accepting, cancels in-flight work, closes the store and exits 0.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from typing import Any

import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve

from . import http11
from .bridge_client import BridgeClient
from .config import AgentConfig, ConfigError
from .engine_watch import watch_engine
from .http_app import closing_asgi, create_app
from .logs import LogWriter
from .scheduler import Scheduler
from .services import build_services
from .store import Store


def _stdio_bridge(ctx_logs: list[LogWriter]) -> BridgeClient:
    # The bridge owns the real stdout; anything printed by accident goes to stderr instead.
    out_fd, in_fd = os.dup(1), os.dup(0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def report(exc: Exception) -> None:
        for logs in ctx_logs:
            logs.write("bridge.protocol_error", str(exc), level="error")

    return BridgeClient(
        trio.lowlevel.FdStream(out_fd), trio.lowlevel.FdStream(in_fd), on_protocol_error=report
    )


def _hypercorn_config(config: AgentConfig) -> HypercornConfig:
    http11.install()
    hc = HypercornConfig()
    hc.bind = [f"{config.host}:{config.port}"]
    hc.accesslog = None
    hc.errorlog = None
    hc.graceful_timeout = 0.5
    hc.keep_alive_timeout = 1
    hc.include_server_header = False
    hc.h11_max_incomplete_size = 64 * 1024
    return hc


async def run(
    config: AgentConfig, *, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED
) -> None:
    store = Store(config.store_path)  # 1
    logs = LogWriter(config.logs_dir, store.machine_id)
    logs.write("agent.store_opened", f"store {config.store_path} open")
    logs_ref = [logs]
    bridge = _stdio_bridge(logs_ref) if config.bridge == "stdio" else None  # 2
    scheduler = Scheduler(config.concurrency)
    services = build_services(config, store, logs, scheduler, bridge)
    shutdown = services.process.stopping
    try:
        async with trio.open_nursery() as nursery:
            if bridge is not None:
                await nursery.start(bridge.run)
                nursery.start_soon(_exit_when_bridge_closes, bridge, shutdown)
                nursery.start_soon(watch_engine, bridge, services.worker.state)
                logs.write("agent.bridge_opened", "engine bridge open on stdin/stdout")
            await nursery.start(services.proxy_listeners.run)  # 3
            logs.write(
                "agent.listeners_started",
                f"profile proxy listeners started, base port {config.proxy_base_port}",
                data={"base_port": config.proxy_base_port},
            )
            services.worker.started()  # 4
            logs.write("agent.worker_started", "control worker started")
            app = create_app(services)
            await nursery.start(  # 5
                lambda task_status: hypercorn_serve(
                    closing_asgi(app),
                    _hypercorn_config(config),
                    shutdown_trigger=shutdown.wait,
                    task_status=task_status,
                )
            )
            await nursery.start(services.sessions.expire_forever)
            nursery.start_soon(_signals, shutdown)
            logs.write(
                "agent.started",
                f"agent listening on {config.host}:{config.port}",
                # the installation id: the desktop app's Info view shows federated session
                # ids (machine-<id>.Session<N>) from it
                data={
                    "pid": os.getpid(),
                    "concurrency": config.concurrency,
                    "machine_id": store.machine_id,
                },
            )
            task_status.started(services)
            await shutdown.wait()
            nursery.cancel_scope.deadline = trio.current_time() + 1.0
    finally:
        logs.write("agent.stopped", "agent stopped")
        logs.close()
        store.close()


async def _signals(shutdown: trio.Event) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            shutdown.set()
            return


async def _exit_when_bridge_closes(bridge: BridgeClient, shutdown: trio.Event) -> None:
    # The host app is our parent: when it closes the bridge, nobody is left to serve.
    await bridge.wait_closed()
    shutdown.set()


def main() -> int:
    try:
        config = AgentConfig.from_env()
    except ConfigError as exc:
        print(f"svc agent: configuration error: {exc}", file=sys.stderr)
        return 2
    try:
        trio.run(run, config)
    except (Exception, BaseExceptionGroup) as exc:
        cause = _leaf(exc)
        if isinstance(cause, OSError):
            # one line, the supervisor's record of why the start failed (a held port: errno 98)
            print(f"svc agent: cannot start: {cause}", file=sys.stderr)
            return 1
        traceback.print_exception(exc, file=sys.stderr)
        # the last line is what the supervisor's record says of the exit (a traceback's is
        # its frame)
        print(f"svc agent: stopped by {type(cause).__name__}: {cause}", file=sys.stderr)
        return 1
    return 0


def _leaf(exc: BaseException) -> BaseException:
    """The first error that is not a group (what stopped a task in a nursery arrives wrapped in
    exception groups): an OSError first, the bind of a held port."""
    if isinstance(exc, BaseExceptionGroup):
        leaves = [_leaf(inner) for inner in exc.exceptions]
        return next((e for e in leaves if isinstance(e, OSError)), leaves[0])
    return exc
