"""The agent's side of the engine: the bridge facade and the session settings the host holds.

Every bridge command goes through `EngineClient.call`, which counts the commands in flight per
session (a session with engine work is not inactive, lifecycle rule 8) and answers
BROWSER_UNAVAILABLE when this process has no bridge. Before a session's first browser operation
in this process, and whenever its settings changed since, the host gets `apply-session-settings`
(docs/bridge.md, general rules); `ensure_settings` keeps what was sent, per session. A saved
change the host must hold before it is answered (a new route, trust or exit locale) is pushed
at once (`push_settings`). The settings carry the session's effective identity and trust
(agent/identity.py).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol, TypeVar

import msgspec
import trio

from bridge_protocol import (
    Answer,
    ApplySessionSettings,
    CloseSession,
    Command,
    ErrorId,
    FingerprintProfile,
    Notification,
    Notifications,
    Params,
    Pause,
    Play,
    ProxyTrust,
    SessionSettings,
    SvcError,
    settings,
)
from bridge_protocol.session_ids import session_number

from .bridge_client import BridgeClient
from .logs import LogWriter
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


class SettingsSource(Protocol):
    """What the settings need beyond the session's row (agent.identity.SessionIdentity)."""

    async def effective(self, session: SessionRecord) -> FingerprintProfile | None: ...

    def trust(self, session: SessionRecord) -> ProxyTrust | None: ...

    def proxy_id(self, session: SessionRecord) -> int | None: ...


class EngineClient:
    def __init__(
        self,
        bridge: BridgeClient | None,
        proxy_base_port: int,
        *,
        identity: SettingsSource,
        read_session: Callable[[int], SessionRecord | None],
        logs: LogWriter,
        push_timeout: float,
        routes_ready: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._bridge = bridge
        self._routes_ready = routes_ready
        self._proxy_base_port = proxy_base_port
        self._identity = identity
        self._read_session = read_session
        self._logs = logs
        self._push_timeout = push_timeout
        self._applied: dict[str, SessionSettings] = {}  # settings the host holds, per session
        self._in_engine: Counter[str] = Counter()  # bridge calls in flight, per session
        # One settings exchange per session at a time: an operation's sync and a change's push
        # must not overtake each other, or the host could end up holding the older settings.
        self._settings_locks: defaultdict[str, trio.Lock] = defaultdict(trio.Lock)

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

    async def settings(self, session: SessionRecord) -> SessionSettings:
        proxied = session.proxy_alias is not None
        return SessionSettings(
            profile_id=session.id,
            name=session.name,
            group=session.group_name,
            proxy_port=self._proxy_base_port + session.id - 1 if proxied else None,
            **settings.rendered(session),
            network_paused=session.network_paused,
            identity=await self._identity.effective(session),
            trust=self._identity.trust(session),
            proxy_id=self._identity.proxy_id(session) if proxied else None,
        )

    async def ensure_settings(self, session: SessionRecord) -> SessionRecord:
        """Send the session's settings unless the host holds them already; returns the session
        as it was when they were computed (read again under the session's settings lock, so a
        change saved meanwhile is what gets sent)."""
        session_id = session.session_id
        async with self._settings_locks[session_id]:
            current = self._read_session(session.id) or session
            settings = await self.settings(current)
            if self._applied.get(session_id) != settings:
                if self._routes_ready is not None and settings.proxy_port is not None:
                    # the engine may connect to the session's listener as soon as it holds
                    # these settings: it must be listening by then
                    await self._routes_ready()
                # Until the host answers, what it holds is unknown: a cancelled or failed send
                # leaves nothing recorded, so the next operation sends again.
                self._applied.pop(session_id, None)
                await self.call(ApplySessionSettings(session_id=session_id, settings=settings))
                self._applied[session_id] = settings
            return current

    async def push_settings(self, session_ids: Iterable[str]) -> None:
        """A change was saved that the host must hold before the change is answered (a route,
        trust, exit locale): send these sessions' settings now, at most `push_timeout` seconds
        in all. Failures are logged, never raised: the change stays saved and the settings go
        with the session's next operation (docs/decisions.md "Settings pushed with a change")."""
        if self._routes_ready is not None:
            # whoever connects once the change has answered (the engine, or any client of the
            # session's port) finds the listener of a new proxied route bound, with or without
            # an engine to push to (bounded by the listeners' own settle timeout)
            await self._routes_ready()
        if self._bridge is None:
            return
        ids = list(dict.fromkeys(session_ids))
        with trio.move_on_after(self._push_timeout) as scope:
            async with trio.open_nursery() as nursery:
                for session_id in ids:
                    nursery.start_soon(self._push_one, session_id)
        if scope.cancelled_caught:
            self._logs.write(
                "session.settings_push_failed",
                f"the engine did not take the new settings of {', '.join(ids)} within "
                f"{self._push_timeout:g} s; they go with each session's next operation",
                level="warning",
            )

    async def _push_one(self, session_id: str) -> None:
        number = session_number(session_id)
        session = None if number is None else self._read_session(number)
        if session is None:
            return
        try:
            await self.ensure_settings(session)
        except SvcError as exc:
            self._logs.write(
                "session.settings_push_failed",
                f"the engine did not take the new settings of {session_id}: "
                f"{exc.error.message}; they go with its next operation",
                level="info" if exc.error.id == ErrorId.BROWSER_UNAVAILABLE else "warning",
                profile_id=session.id,
            )

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
        self._settings_locks.pop(session_id, None)
        await self.bounded_call(CloseSession(session_id=session_id), CONTROL_TIMEOUT)
