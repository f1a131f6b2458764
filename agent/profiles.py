"""Saved profiles (session templates) and the built-in `Custom` profile."""

from __future__ import annotations

from typing import Any

from bridge_protocol import ErrorId, SvcError

from .config import AgentConfig
from .sessions import BUILTIN_PROFILE, CUSTOM_DEFAULTS
from .store import Store


class Profiles:
    def __init__(self, store: Store, config: AgentConfig) -> None:
        self._store = store
        self._config = config

    def resolve_template(self, name: str | None) -> dict[str, Any]:
        """Settings a new session takes: the named profile, else the default, else Custom."""
        if name is None or name.casefold() == BUILTIN_PROFILE.casefold():
            return {"name": BUILTIN_PROFILE, **CUSTOM_DEFAULTS}
        raise SvcError.of(
            ErrorId.VALIDATION_FAILED, f"no saved profile named {name!r}", field="profile"
        )
