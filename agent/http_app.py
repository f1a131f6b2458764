"""The HTTP edge of the agent: transport rules of spec 1 section 4, envelopes, error mapping.

Every response carries `Connection: close` and `X-Request-Id`; every failure is the spec's
envelope with an id from the one error table. Requests whose Host is not a loopback name are
refused (DNS rebinding), and no CORS header is ever sent, so web pages cannot drive the agent.
"""

from __future__ import annotations

import logging
import traceback
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from quart import Quart, Response, g, request
from quart_trio import QuartTrio
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound, RequestEntityTooLarge

from bridge_protocol import ApiError, ErrorId, SvcError
from bridge_protocol.throttle import LogThrottle

from .routes import register_all
from .routes.toolkit import (
    MAX_TRANSFER_BODY,
    body_limit,
    error_response,
    too_large,
    unsupported_media,
)
from .services import Services

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


def _host_name(host_header: str) -> str:
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


SAFE_METHODS = frozenset({"GET", "HEAD"})
# What a request from the agent's own origin or from no page at all carries (a browser that
# navigates by typing sends `none`); every page of another origin, same-site ones included
# (127.0.0.1:8000 is same-site with the agent), sends something else.
ALLOWED_FETCH_SITES = frozenset({"none", "same-origin"})


def _own_origins(port: int) -> frozenset[str]:
    return frozenset(f"http://{host}:{port}" for host in ("127.0.0.1", "localhost", "[::1]"))


def browser_refusal(headers: Any, port: int) -> ApiError | None:
    """Why a request that a web page may have sent is refused, or None (docs/decisions.md,
    "Browser origins"). Every page the user opens can reach the loopback API; a "simple"
    cross-site request (a form post, `text/plain` fetch, `sendBeacon`) needs no preflight, so
    the headers browsers add by themselves decide: `Origin` must be the agent's own origin and
    `Sec-Fetch-Site` none or same-origin (the media-type rule is `media_refusal`)."""
    origin = headers.get("Origin")
    if origin is not None and origin.strip().lower() not in _own_origins(port):
        return ApiError.of(
            ErrorId.INVALID_REQUEST,
            "requests from web pages are refused: the Origin is not the agent's own",
            origin=origin[:200],
        )
    site = headers.get("Sec-Fetch-Site")
    if site is not None and site.strip().lower() not in ALLOWED_FETCH_SITES:
        return ApiError.of(
            ErrorId.INVALID_REQUEST,
            f"requests from web pages are refused (Sec-Fetch-Site: {site[:40]})",
            sec_fetch_site=site[:40],
        )
    return None


def media_refusal(method: str, headers: Any) -> ApiError | None:
    """415 for a state-changing request whose Content-Type is not JSON, before any body is
    read, even with an empty body (no simple cross-site request can say JSON); an absent
    Content-Type passes only with an empty body (checked in `read_body`): curl and scripts send
    that, and a browser cannot send it cross-site without an `Origin`."""
    if method in SAFE_METHODS:
        return None
    raw = headers.get("Content-Type")
    if raw is None:
        return None
    media = raw.split(";", 1)[0].strip().lower()
    return None if media == "application/json" else unsupported_media(media)


def create_app(services: Services) -> Quart:
    app = QuartTrio("svc-agent", static_folder=None)
    # the largest body any route reads; each route's own limit is checked in `_transport` (by
    # Content-Length) and in `read_body` (by what arrived)
    app.config["MAX_CONTENT_LENGTH"] = MAX_TRANSFER_BODY
    app.config["PROVIDE_AUTOMATIC_OPTIONS"] = False
    app.config["JSON_SORT_KEYS"] = False
    # Failures are logged once, to the NDJSON log, by the handlers below.
    app.logger.disabled = True
    logging.getLogger("quart.app").disabled = True

    refusals = LogThrottle()

    @app.before_request
    async def _transport() -> Response | None:
        g.request_id = "req_" + uuid.uuid4().hex
        host = _host_name(request.headers.get("Host", ""))
        if host not in LOOPBACK_HOSTS:
            return error_response(
                ApiError.of(
                    ErrorId.INVALID_REQUEST,
                    "the Host header must name the loopback interface (127.0.0.1 or localhost)",
                    host=request.headers.get("Host"),
                )
            )
        refused = browser_refusal(request.headers, services.config.port)
        if refused is not None:
            if refusals.allow(trio.current_time()):
                unlogged = refusals.take_suppressed()
                services.logs.write(
                    "http.refused",
                    f"refused {request.method} {request.path} from a web page",
                    level="warning",
                    data={
                        **(refused.details or {}),
                        "method": request.method,
                        "path": request.path[:200],
                        **({"unlogged_before": unlogged} if unlogged else {}),
                    },
                )
            return error_response(refused)
        refused = media_refusal(request.method, request.headers)
        if refused is not None:
            return error_response(refused)
        length = request.content_length
        limit = body_limit(request.path)
        if length is not None and length > limit:
            return error_response(too_large(limit, length))
        return None

    @app.after_request
    async def _headers(response: Response) -> Response:
        response.headers["Connection"] = "close"
        response.headers["X-Request-Id"] = getattr(g, "request_id", "")
        return response

    @app.errorhandler(SvcError)
    async def _svc_error(exc: SvcError) -> Response:
        return error_response(exc.error)

    @app.errorhandler(HTTPException)
    async def _http_error(exc: HTTPException) -> Response:
        if isinstance(exc, NotFound):
            error = ApiError.of(ErrorId.ROUTE_NOT_FOUND, f"no v1 route matches {request.path}")
        elif isinstance(exc, MethodNotAllowed):
            allowed = sorted(m for m in (exc.valid_methods or []) if m != "HEAD")
            error = ApiError.of(
                ErrorId.METHOD_NOT_ALLOWED,
                f"{request.method} is not allowed on {request.path}",
                allowed=allowed,
            )
        elif isinstance(exc, RequestEntityTooLarge):
            error = too_large(body_limit(request.path))
        else:
            error = ApiError.of(ErrorId.INVALID_REQUEST, f"malformed HTTP request: {exc}")
        response = error_response(error)
        if isinstance(exc, MethodNotAllowed):
            response.headers["Allow"] = ", ".join(allowed)  # RFC 9110: a 405 names them
        return response

    @app.errorhandler(Exception)
    async def _unexpected(exc: Exception) -> Response:
        services.logs.write(
            "agent.internal_error",
            f"unexpected failure on {request.method} {request.path}: {exc!r}",
            level="error",
            data={"traceback": traceback.format_exc()[-8000:]},
        )
        return error_response(ApiError.of(ErrorId.INTERNAL_ERROR, "unexpected internal failure"))

    register_all(app, services)
    return app


def closing_asgi(app: Quart) -> Callable[..., Awaitable[None]]:
    """The ASGI app to serve: `app`, with the last message of every response sent shielded.

    Sending the last body message makes hypercorn close the connection (we answer
    `Connection: close`) from inside that send; quart-trio cancels the request's nursery as soon
    as hypercorn reports the disconnect, which lands in the middle of that close, so the socket
    was never shut down and clients reading to EOF hung. Shielding the final send lets it finish.
    """

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        async def send_final_shielded(message: Any) -> None:
            if message.get("type") == "http.response.body" and not message.get("more_body"):
                with trio.CancelScope(shield=True):
                    await send(message)
            else:
                await send(message)

        await app(scope, receive, send_final_shielded)

    return asgi
