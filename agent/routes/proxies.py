"""Routes of this area: being written (issue 3)."""

from __future__ import annotations

from quart import Quart

from ..context import AgentContext


def register(app: Quart, ctx: AgentContext) -> None:
    """Registers nothing yet."""
