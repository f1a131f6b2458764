"""Browser routes: shorthand page operations, screenshots, POST /v1/captures, attached pages and
GET /v1/notifications (spec 1 §4). The work is `agent.browser.Browser`'s, the capture stream's
(`agent.capture_stream`) and the notification log's (`agent.notification_log`)."""

from __future__ import annotations

import re
from typing import TypeVar, cast

from quart import Quart, Response, current_app, g
from quart_trio import QuartTrio

from ..api import (
    CaptureBody,
    CapturesBody,
    NavigateBody,
    PageActionBody,
    PagesBody,
    PageScreenshotBody,
    PerformBody,
    ScreenshotBody,
)
from ..browser import Browser
from ..capture_stream import CaptureJob
from ..notification_log import NotificationLog
from .toolkit import add_route, ok, read_body

T = TypeVar("T")
_MISSING = re.compile(r"missing required field `([^`]*)`(?: - at `\$([^`]*)`)?")


def request_id() -> str:
    return str(g.request_id)


def register(
    app: Quart, browser: Browser, capture_job: CaptureJob, notification_log: NotificationLog
) -> None:
    async def navigate() -> Response:
        return ok(await browser.navigate(await read_body(NavigateBody), request_id()))

    async def perform() -> Response:
        return ok(await browser.perform(await read_body(PerformBody), request_id()))

    async def capture() -> Response:
        return ok(await browser.capture(await read_body(CaptureBody), request_id()))

    async def screenshot() -> Response:
        return ok(await browser.screenshot(await read_body(ScreenshotBody), request_id()))

    async def captures() -> Response:
        plan = await capture_job.preflight(await read_body(CapturesBody), request_id())
        nursery = cast(QuartTrio, current_app).nursery
        response = Response(
            capture_job.stream(plan, nursery),
            status=200,
            content_type="application/x-ndjson",
        )
        response.timeout = None  # Quart's 60 s RESPONSE_TIMEOUT would cut a long capture
        return response

    async def pages() -> Response:
        return ok(await browser.attach(await read_body(PagesBody), request_id()))

    async def page_actions(page_id: str) -> Response:
        body = await read_body(PageActionBody)
        return ok(await browser.page_action(page_id, body, request_id()))

    async def page_screenshot(page_id: str) -> Response:
        body = await read_body(PageScreenshotBody)
        return ok(await browser.screenshot(body, request_id(), page_id))

    async def notifications() -> Response:
        return ok(await notification_log.read())

    add_route(app, "GET", "/v1/notifications", notifications)
    add_route(app, "POST", "/v1/navigate", navigate)
    add_route(app, "POST", "/v1/perform", perform)
    add_route(app, "POST", "/v1/capture", capture)
    add_route(app, "POST", "/v1/screenshot", screenshot)
    add_route(app, "POST", "/v1/captures", captures)
    add_route(app, "POST", "/v1/pages", pages)
    add_route(app, "POST", "/v1/pages/<page_id>/actions", page_actions)
    add_route(app, "POST", "/v1/pages/<page_id>/screenshot", page_screenshot)
