"""The agent's side of the engine: the bridge facade and the session settings the host holds.

Every bridge command goes through `EngineClient.call`, which counts the commands in flight per
session (a session with engine work is not inactive, lifecycle rule 8) and answers
BROWSER_UNAVAILABLE when this process has no bridge. Before a session's first browser operation
in this process, and whenever its settings changed since, the host gets `apply-session-settings`
(docs/bridge.md, general rules); `ensure_settings` keeps what was sent, per session.
"""

from __future__ import annotations

from collections import Counter
from typing import TypeVar

import msgspec
import trio

from bridge_protocol import (
    Answer,
    ApplySessionSettings,
    CloseSession,
    Command,
    ErrorId,
    Notification,
    Notifications,
    Params,
    Pause,
    Play,
    SessionSettings,
    SvcError,
)

from .bridge_client import BridgeClient
from .records import SessionRecord

A = TypeVar("A", bound=Answer)

# The bound of the commands that have no timeout field of their own (pause, play, close-session,
# notifications): they run outside the scheduler, so nothing else would end a hung one.
CONTROL_TIMEOUT = 30.0


def remaining(deadline: float) -> float:
    """The `timeout` to send with a command that must end by `deadline` (TIMEOUT when none is
    left: the host would refuse it anyway, and this says whose deadline it was)."""
    left = deadline - trio.current_time()
    if left <= 0.001:
        raise SvcError.of(ErrorId.TIMEOUT, "the operation's deadline expired")
    return round(left, 3)


class EngineClient:
    def __init__(self, bridge: BridgeClient | None, proxy_base_port: int) -> None:
        self._bridge = bridge
        self._proxy_base_port = proxy_base_port
        self._applied: dict[str, SessionSettings] = {}  # settings the host holds, per session
        self._in_engine: Counter[str] = Counter()  # bridge calls in flight, per session

    @property
    def gone(self) -> bool:
        """The app closed its bridge: the agent is stopping, and no engine is left to retry on."""
        return self._bridge is not None and not self._bridge.connected

    def has_work(self, session_id: str) -> bool:
        """Whether the engine is working for the session right now (scheduled or not)."""
        return self._in_engine[session_id] > 0

    async def call(self, operation: Command[A] | Params[A]) -> A:
        bridge = self._bridge
        if bridge is None:
            raise SvcError.of(ErrorId.BROWSER_UNAVAILABLE, "no engine bridge in this process")
        session_id: str | None = getattr(operation, "session_id", None)
        if session_id is None:
            return await bridge.call(operation)
        self._in_engine[session_id] += 1
        try:
            return await bridge.call(operation)
        finally:
            self._in_engine[session_id] -= 1
            if not self._in_engine[session_id]:
                del self._in_engine[session_id]

    async def bounded_call(self, operation: Command[A] | Params[A], seconds: float) -> A:
        """A call outside the scheduler (control commands), ended with TIMEOUT after `seconds`."""
        with trio.move_on_after(seconds) as scope:
            return await self.call(operation)
        assert scope.cancelled_caught
        raise SvcError.of(ErrorId.TIMEOUT, f"the engine did not answer within {seconds:g} s")

    # --- settings sync -------------------------------------------------------------------------

    def settings(self, session: SessionRecord) -> SessionSettings:
        proxied = session.proxy_alias is not None
        return SessionSettings(
            profile_id=session.id,
            name=session.name,
            group=session.group_name,
            proxy_port=self._proxy_base_port + session.id - 1 if proxied else None,
            adblock_enabled=session.adblock_enabled,
            image_blocking_mode=session.image_blocking_mode,
            image_size_limit_kb=session.image_size_limit_kb,
            network_paused=session.network_paused,
        )

    async def ensure_settings(self, session: SessionRecord) -> None:
        session_id = session.session_id
        settings = self.settings(session)
        if self._applied.get(session_id) != settings:
            await self.call(ApplySessionSettings(session_id=session_id, settings=settings))
            self._applied[session_id] = settings

    # --- control commands ----------------------------------------------------------------------

    async def set_network_paused(self, session: SessionRecord, paused: bool) -> None:
        """Pause or play the session's network, with its settings sent first when needed; the
        whole exchange is bounded by CONTROL_TIMEOUT."""
        session_id = session.session_id
        with trio.move_on_after(CONTROL_TIMEOUT) as scope:
            await self.ensure_settings(session)
            if paused:
                await self.call(Pause(session_id=session_id))
            else:
                await self.call(Play(session_id=session_id))
        if scope.cancelled_caught:
            raise SvcError.of(
                ErrorId.TIMEOUT, f"the engine did not answer within {CONTROL_TIMEOUT:g} s"
            )

    def network_paused_applied(self, session_id: str, paused: bool) -> None:
        """Pause and play change the host's copy of the settings in place: the next operation
        need not send them again for that."""
        applied = self._applied.get(session_id)
        if applied is not None:
            self._applied[session_id] = msgspec.structs.replace(applied, network_paused=paused)

    async def notifications(self) -> list[Notification]:
        answer = await self.bounded_call(Notifications(), CONTROL_TIMEOUT)
        return answer.notifications

    async def close_session(self, session_id: str) -> None:
        """Forget what the host held for the session and tell it to close the session's views
        and browser data (SvcError when the engine did not)."""
        self._applied.pop(session_id, None)
        await self.bounded_call(CloseSession(session_id=session_id), CONTROL_TIMEOUT)
