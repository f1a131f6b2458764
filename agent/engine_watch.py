"""The engine's liveness as the agent sees it: a ping over the bridge every PING_INTERVAL, which
the host's bridge endpoint answers on the app's event loop (bridge_protocol Ping). Until the
first answer the worker reports `starting`; a ping that waits longer than the worker's deadline
makes health AGENT_UNHEALTHY (agent/worker.py), and nothing is cancelled: a host that comes back
answers, and health is healthy again."""

from __future__ import annotations

from typing import Any

import trio

from bridge_protocol import Ping, SvcError

from .bridge_client import BridgeClient
from .worker import WorkerState

PING_INTERVAL = 2.0


async def watch_engine(
    bridge: BridgeClient,
    state: WorkerState,
    *,
    task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED,
) -> None:
    state.started_at = trio.current_time()
    task_status.started()
    while True:
        state.engine_waiting_since = trio.current_time()
        try:
            await bridge.call(Ping())
        except SvcError:
            return  # the bridge closed: the agent is stopping
        state.engine_waiting_since = None
        state.awaiting_engine = False
        await trio.sleep(PING_INTERVAL)
