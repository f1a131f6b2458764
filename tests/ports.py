"""Ports for the processes tests start.

A session's proxy listener is at a fixed offset from the app's base port (spec 1 §1: session N
listens on base + N - 1). A base taken from the kernel's ephemeral range would collide, sooner
or later, with the source port of some outgoing connection and fail a session at random
(`proxy.listener_failed`, Address already in use: seen in a soak of issue 12), so the base
is chosen below that range."""

from __future__ import annotations

import random
import socket

EPHEMERAL_FIRST = 32768
LISTENERS = 512  # sessions a test process may create in one app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def listener_base() -> int:
    """A base for SVC_BROWSER_PROXY_PORT below the ephemeral range whose first ports are free."""
    for _ in range(50):
        base = random.randrange(16000, EPHEMERAL_FIRST - LISTENERS)
        if all(_free(base + i) for i in range(8)):
            return base
    raise RuntimeError("no free range of ports for proxy listeners")
