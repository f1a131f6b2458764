"""The last upstream failure per session, proxy and destination authority (spec 1 §7 rule 5).

The relay records why an upstream refused or failed; the agent asks for it when the engine
reports a navigation failure of that session, for the same proxy and destination, no older than
the navigation attempt. Texts are stripped of credentials and bounded to 8,192 characters plus
a truncation marker; at most `MAX_ENTRIES` keys are kept (the oldest go first).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_SOURCE_CHARS = 8192
TRUNCATED = "… [truncated]"
REDACTED = "[redacted]"
MAX_ENTRIES = 256
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` without any of `secrets` (longest first, so a secret inside another one goes too)."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def bound(text: str, limit: int = MAX_SOURCE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + TRUNCATED


def sanitize(text: str, secrets: Iterable[str]) -> str:
    return bound(redact(text, secrets))


def authority_of_url(url: str) -> str | None:
    """`host:port` of an http(s) URL as the relay sees its destination (the port made explicit)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if not host or parts.scheme not in DEFAULT_PORTS:
        return None
    port = port or DEFAULT_PORTS[parts.scheme]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass(frozen=True, slots=True)
class Failure:
    at: float  # trio.current_time() of the failure
    alias: str
    source: str  # sanitized and bounded


class Diagnostics:
    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._max = max_entries
        self._entries: OrderedDict[tuple[int, str, str], Failure] = OrderedDict()
        # session -> why its listener is not listening (its port taken): every load fails
        self._unbound: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._entries)

    @staticmethod
    def _key(session: int, alias: str, authority: str) -> tuple[int, str, str]:
        return session, alias.casefold(), authority.lower()

    def record(
        self,
        session: int,
        alias: str,
        authority: str,
        source: str,
        *,
        at: float,
        secrets: Iterable[str] = (),
    ) -> Failure:
        failure = Failure(at, alias, sanitize(source, secrets))
        key = self._key(session, alias, authority)
        self._entries.pop(key, None)
        self._entries[key] = failure
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
        return failure

    def latest(self, session: int, alias: str, authority: str, *, since: float) -> Failure | None:
        failure = self._entries.get(self._key(session, alias, authority))
        if failure is None or failure.at < since:
            return None
        return failure

    def unbound(self, session: int, cause: str) -> None:
        self._unbound[session] = cause

    def bound(self, session: int) -> None:
        self._unbound.pop(session, None)

    def unbound_cause(self, session: int) -> str | None:
        return self._unbound.get(session)

    def forget_session(self, session: int) -> None:
        self._unbound.pop(session, None)
        for key in [k for k in self._entries if k[0] == session]:
            del self._entries[key]
