"""Which session a tool targets when its arguments name none (spec 2 §1), as `svc` chooses:
the explicit session_id, then SVC_SESSION_ID from svc-mcp's environment, then the newest existing
session, creating one only when none exists. The creation is serialized with every other client
of the same agent (`svc` too) on the lock file `svc` uses, and the sessions are listed again once
the lock is held, so clients asking at the same moment create one session between them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import trio

from ..coldstart import lock_path
from ..session_rule import from_environment, newest

POLL = 0.05

Call = Callable[..., Awaitable[dict[str, Any]]]


async def select(call: Call, port: int, env: Mapping[str, str], explicit: str | None) -> str:
    """The session id to send; `call(method, path, body=None)` reaches the agent."""
    chosen = explicit or from_environment(env)
    if chosen:
        return chosen
    sessions = (await call("GET", "/v1/sessions"))["sessions"]
    if sessions:
        return newest(sessions)
    import fcntl

    with lock_path(port, env, "session").open("ab") as handle:
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await trio.sleep(POLL)
        sessions = (await call("GET", "/v1/sessions"))["sessions"]
        if sessions:
            return newest(sessions)
        return str((await call("POST", "/v1/sessions", {}))["session"]["id"])
