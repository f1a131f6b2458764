"""The 41 routes of spec 1 section 4, registered by area; no other route exists."""

from __future__ import annotations

from quart import Quart

from ..context import AgentContext
from . import browser, observations, profiles, proxies, sessions, system


def register_all(app: Quart, ctx: AgentContext) -> None:
    for area in (system, sessions, profiles, proxies, browser, observations):
        area.register(app, ctx)
