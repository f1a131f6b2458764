"""Spec 2 §1's session precedence, the part `svc` and `svc-mcp` share: the explicit id, then
SVC_SESSION_ID from the client's environment, then the newest existing session (each client
creates one, under the shared lock file, only when none exists)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def newest(sessions: list[dict[str, Any]]) -> str:
    """The session created last (`created_at`, then the number of `Session<N>`)."""

    def key(s: dict[str, Any]) -> tuple[int, int]:
        sid = str(s.get("id", ""))
        number = int(sid[7:]) if sid[7:].isdigit() else 0
        return int(s.get("created_at") or 0), number

    return str(max(sessions, key=key)["id"])


def from_environment(env: Mapping[str, str]) -> str | None:
    return (env.get("SVC_SESSION_ID") or "").strip() or None
