"""What every route module uses: envelopes, the body reader, route registration. Routes import
this, never agent.http_app (which imports the routes)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
from quart import Quart, Response, g, request

from bridge_protocol import ApiError, ErrorId, SvcError, failure

from ..api import decode_body

T = TypeVar("T")

MAX_BODY = 16 * 1024 * 1024  # spec 1 §4 transport rule 2
# A transfer archive may be 12 MiB (spec 1 §8), which is 16 MiB in base64: the two import routes
# take that plus room for the rest of their body (docs/decisions.md "Transfer bodies").
MAX_TRANSFER_BODY = MAX_BODY + 64 * 1024
TRANSFER_IMPORTS = frozenset({"/v1/proxy-transfers/import", "/v1/profile-transfers/import"})


def body_limit(path: str) -> int:
    """The largest request body the route at `path` reads."""
    return MAX_TRANSFER_BODY if path in TRANSFER_IMPORTS else MAX_BODY


def too_large(limit: int, length: int | None = None) -> ApiError:
    size = "request body" if length is None else f"request body of {length} bytes"
    return ApiError.of(
        ErrorId.PAYLOAD_TOO_LARGE, f"{size} exceeds the {limit}-byte limit", limit=limit
    )


_encoder = msgspec.json.Encoder()


def json_response(payload: Any, status: int = 200) -> Response:
    return Response(_encoder.encode(payload), status=status, content_type="application/json")


class _Success(msgspec.Struct, tag_field="status", tag="ok"):
    """bridge_protocol's SuccessEnvelope as the agent writes it: `data` is an answer struct."""

    request_id: str
    data: msgspec.Struct


def ok(data: msgspec.Struct) -> Response:
    """The success envelope of `data`, one of the answer structs (agent/responses.py and the
    modules beside it)."""
    return json_response(_Success(request_id=g.request_id, data=data))


def error_response(error: ApiError) -> Response:
    return json_response(failure(g.request_id, error), status=error.http_status)


async def read_body(type_: type[T], *, required: bool = False) -> T:
    """The request body decoded into `type_`; an empty body counts as `{}`. The media type was
    checked before the body was read (`media_refusal`); a body needs one."""
    data = await request.get_data(cache=False)
    assert isinstance(data, bytes)
    limit = body_limit(request.path)
    if len(data) > limit:  # a body without Content-Length, read up to the largest limit
        raise SvcError(too_large(limit))
    if not data.strip():
        if required:
            raise SvcError.of(ErrorId.VALIDATION_FAILED, "a JSON object body is required")
        return decode_body(b"{}", type_)
    if "Content-Type" not in request.headers:
        raise SvcError(unsupported_media(""))
    return decode_body(data, type_)


def unsupported_media(media: str) -> ApiError:
    """UNSUPPORTED_MEDIA_TYPE for a body of media type `media` ("" when none was said)."""
    return ApiError.of(
        ErrorId.UNSUPPORTED_MEDIA_TYPE,
        f"request bodies must be application/json, not {media or 'unspecified'}",
        content_type=media or None,
    )


class NoBody(msgspec.Struct, forbid_unknown_fields=True):
    """For routes that take no body: nothing, or an empty object."""


Handler = Callable[..., Awaitable[Response]]


def add_route(app: Quart, method: str, path: str, handler: Handler) -> None:
    app.add_url_rule(path, endpoint=f"{method} {path}", view_func=handler, methods=[method])
