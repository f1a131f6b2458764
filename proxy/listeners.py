"""Profile proxy listeners: one loopback listener per proxied session at base_port + (N - 1).

Start-up step 3 of the agent. The relay itself (HTTP forwarding, CONNECT tunnels, upstream auth)
arrives with the proxies issue; until then no session can be assigned a proxy on the wire, so
there is nothing to listen for and this task only holds the place in the start-up order.
"""

from __future__ import annotations

import trio


class ProxyListeners:
    def __init__(self, base_port: int) -> None:
        self.base_port = base_port
        self.ports: list[int] = []

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        await trio.sleep_forever()
