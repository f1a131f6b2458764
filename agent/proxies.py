"""Stored upstream proxies."""

from __future__ import annotations

from bridge_protocol import ErrorId, SvcError

from .config import AgentConfig
from .store import Store


class Proxies:
    def __init__(self, store: Store, config: AgentConfig) -> None:
        self._store = store
        self._config = config

    def check_assignable(self, alias: str) -> str:
        """The stored alias to assign to a session, or PRO_REQUIRED / PROXY_NOT_FOUND."""
        raise SvcError.of(ErrorId.PROXY_NOT_FOUND, f"no proxy named {alias!r}", alias=alias)
