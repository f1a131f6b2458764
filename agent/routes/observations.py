"""Observation routes (spec 1 §4 "Observations"): observe, navigate-and-observe, observe an
attached page, read a retained observation, act on its refs, search it."""

from __future__ import annotations

from quart import Quart, Response

from ..api import (
    FindBody,
    NavigateObserveBody,
    ObservationActionsBody,
    ObserveBody,
    PageObserveBody,
)
from ..browser import Browser
from .toolkit import add_route, ok, read_body


def register(app: Quart, browser: Browser) -> None:
    async def observe() -> Response:
        return ok(await browser.observe(await read_body(ObserveBody)))

    async def navigate_observe() -> Response:
        return ok(await browser.navigate_observe(await read_body(NavigateObserveBody)))

    async def page_observe(page_id: str) -> Response:
        return ok(await browser.observe(await read_body(PageObserveBody), page_id))

    async def get_observation(observation_id: str) -> Response:
        return ok(browser.observation(observation_id))

    async def observation_actions(observation_id: str) -> Response:
        body = await read_body(ObservationActionsBody)
        return ok(await browser.observation_actions(observation_id, body))

    async def find(observation_id: str) -> Response:
        return ok(await browser.find(observation_id, await read_body(FindBody)))

    add_route(app, "POST", "/v1/observe", observe)
    add_route(app, "POST", "/v1/navigate/observe", navigate_observe)
    add_route(app, "POST", "/v1/pages/<page_id>/observe", page_observe)
    add_route(app, "GET", "/v1/observations/<observation_id>", get_observation)
    add_route(app, "POST", "/v1/observations/<observation_id>/actions", observation_actions)
    add_route(app, "POST", "/v1/observations/<observation_id>/find", find)
