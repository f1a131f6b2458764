"""Browser operations: session selection, the page registry, scheduling, and the bridge."""

from __future__ import annotations

from typing import Any

from bridge_protocol import ErrorId, Pause, Play, SvcError

from .context import AgentContext


class Browser:
    def __init__(self, ctx: AgentContext) -> None:
        self._ctx = ctx

    async def _call(self, command: Any) -> dict[str, Any]:
        bridge = self._ctx.bridge
        if bridge is None:
            raise SvcError.of(ErrorId.BROWSER_UNAVAILABLE, "no engine bridge in this process")
        return await bridge.call(command)

    async def set_network_paused(self, session_id: str, paused: bool) -> dict[str, Any]:
        command = Pause(session_id=session_id) if paused else Play(session_id=session_id)
        await self._call(command)
        self._ctx.sessions.set_paused(session_id, paused)
        self._ctx.sessions.touch(session_id)
        return {"session_id": session_id, "network_paused": paused}

    async def session_closed(self, session_id: str) -> None:
        """Drop the session's pages and tell the host to close its views and browser data."""
