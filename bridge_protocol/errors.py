"""The one error table of svc (spec 1 section 7) and the bridge's own protocol errors.

Error tree, by who is at fault:

    ApiError (msgspec Struct)        the wire object {id, code, message, retryable, details?}
    SvcError (Exception)             carries one ApiError; raised by any layer, answered unchanged
    BridgeProtocolError (Exception)  the peer broke the bridge protocol
        FrameTooLarge                header declares more than MAX_FRAME bytes (fatal: stream lost)
        InvalidEncoding              payload is not UTF-8
        MalformedJson                payload is not JSON
        NotAnObject                  JSON value is not an object
        WrongVersion                 version is not PROTOCOL_VERSION
        UnknownOperation             op is not one of the known operations
        MalformedMessage             fields missing, of the wrong type, or an invalid error object
        UnknownId                    response or cancellation for an id that is not in flight
        DuplicateId                  request reusing an id that is still in flight

Only FrameTooLarge breaks the stream; every other protocol error concerns one frame and the
decoder goes on with the next. `BridgeProtocolError.request_id` holds the frame's id whenever it
could be read, so a host can still answer that request with an error.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import msgspec


class ErrorId(enum.StrEnum):
    INVALID_REQUEST = "INVALID_REQUEST"
    ROUTE_NOT_FOUND = "ROUTE_NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    VALIDATION_FAILED = "VALIDATION_FAILED"
    UNSUPPORTED_MODALITY = "UNSUPPORTED_MODALITY"
    OBSERVATION_TOO_LARGE = "OBSERVATION_TOO_LARGE"
    SESSION_NOT_FOUND = "SESSION_NOT_FOUND"
    PAGE_NOT_FOUND = "PAGE_NOT_FOUND"
    PAGE_MISMATCH = "PAGE_MISMATCH"
    PROXY_NOT_FOUND = "PROXY_NOT_FOUND"
    ACTIVE_PAGE_NOT_FOUND = "ACTIVE_PAGE_NOT_FOUND"
    CONFLICT = "CONFLICT"
    BROWSER_BUSY = "BROWSER_BUSY"
    NETWORK_PAUSED = "NETWORK_PAUSED"
    ACTION_TARGET_NOT_FOUND = "ACTION_TARGET_NOT_FOUND"
    REQUEST_CANCELLED = "REQUEST_CANCELLED"
    RATE_LIMITED = "RATE_LIMITED"
    ACTION_TIMEOUT = "ACTION_TIMEOUT"
    OBSERVATION_STALE = "OBSERVATION_STALE"
    PRO_REQUIRED = "PRO_REQUIRED"
    UPSTREAM_UNAVAILABLE = "UPSTREAM_UNAVAILABLE"
    BROWSER_UNAVAILABLE = "BROWSER_UNAVAILABLE"
    AGENT_UNHEALTHY = "AGENT_UNHEALTHY"
    TIMEOUT = "TIMEOUT"
    PROXY_CONFIGURATION_FAILED = "PROXY_CONFIGURATION_FAILED"
    BROWSER_CREATION_FAILED = "BROWSER_CREATION_FAILED"
    SEMANTIC_EXTRACTION_FAILED = "SEMANTIC_EXTRACTION_FAILED"
    INTERNAL_ERROR = "INTERNAL_ERROR"


@dataclass(frozen=True, slots=True)
class ErrorSpec:
    code: int
    retryable: bool
    http_status: int
    meaning: str


# code and retryable are the spec's; http_status is ours where the spec is silent
# (docs/decisions.md explains each choice).
ERROR_TABLE: dict[ErrorId, ErrorSpec] = {
    ErrorId.INVALID_REQUEST: ErrorSpec(10000, False, 400, "malformed HTTP or JSON"),
    ErrorId.ROUTE_NOT_FOUND: ErrorSpec(10001, False, 404, "no v1 route matches"),
    ErrorId.METHOD_NOT_ALLOWED: ErrorSpec(10002, False, 405, "resource exists, method unsupported"),
    ErrorId.PAYLOAD_TOO_LARGE: ErrorSpec(10003, False, 413, "body over 16 MiB"),
    ErrorId.UNSUPPORTED_MEDIA_TYPE: ErrorSpec(
        10004, False, 415, "JSON endpoint got unsupported content"
    ),
    ErrorId.VALIDATION_FAILED: ErrorSpec(
        10005, False, 422, "parsed request violates field constraints"
    ),
    ErrorId.UNSUPPORTED_MODALITY: ErrorSpec(
        10006, False, 422, "adapter cannot carry the requested observation modality"
    ),
    ErrorId.OBSERVATION_TOO_LARGE: ErrorSpec(
        10007, False, 422, "snapshot or image exceeds its bound"
    ),
    ErrorId.SESSION_NOT_FOUND: ErrorSpec(10100, False, 404, "session id does not exist"),
    ErrorId.PAGE_NOT_FOUND: ErrorSpec(10101, False, 404, "attached page does not exist"),
    ErrorId.PAGE_MISMATCH: ErrorSpec(
        10102, False, 409, "attached page state no longer matches request"
    ),
    ErrorId.PROXY_NOT_FOUND: ErrorSpec(10103, False, 404, "proxy does not exist"),
    ErrorId.ACTIVE_PAGE_NOT_FOUND: ErrorSpec(
        10104, False, 409, "shorthand workflow has no current page"
    ),
    ErrorId.CONFLICT: ErrorSpec(10200, False, 409, "name, state or last-session conflict"),
    ErrorId.BROWSER_BUSY: ErrorSpec(10201, True, 503, "engine servicing incompatible work"),
    ErrorId.NETWORK_PAUSED: ErrorSpec(10202, False, 409, "session networking is paused"),
    ErrorId.ACTION_TARGET_NOT_FOUND: ErrorSpec(10203, False, 422, "click target not found"),
    ErrorId.REQUEST_CANCELLED: ErrorSpec(10204, True, 499, "browser work cancelled"),
    ErrorId.RATE_LIMITED: ErrorSpec(10205, True, 429, "the service itself rate limits the caller"),
    ErrorId.ACTION_TIMEOUT: ErrorSpec(10206, True, 504, "an action's local timeout expired"),
    ErrorId.OBSERVATION_STALE: ErrorSpec(
        10207, False, 409, "observation or element ref no longer matches the live document"
    ),
    ErrorId.PRO_REQUIRED: ErrorSpec(
        10208, False, 403, "Free plan lacks the resource or capability"
    ),
    ErrorId.UPSTREAM_UNAVAILABLE: ErrorSpec(
        10300,
        True,
        502,
        "navigation got a target HTTP error, or the browser/proxy got an invalid upstream result",
    ),
    ErrorId.BROWSER_UNAVAILABLE: ErrorSpec(10301, True, 503, "required engine service unavailable"),
    ErrorId.AGENT_UNHEALTHY: ErrorSpec(
        10302, True, 503, "control worker missed its health deadline"
    ),
    ErrorId.TIMEOUT: ErrorSpec(10303, True, 504, "operation deadline expired"),
    ErrorId.PROXY_CONFIGURATION_FAILED: ErrorSpec(
        10304, False, 500, "engine could not apply the session proxy configuration"
    ),
    ErrorId.BROWSER_CREATION_FAILED: ErrorSpec(
        10305, False, 500, "engine could not create the session browser"
    ),
    ErrorId.SEMANTIC_EXTRACTION_FAILED: ErrorSpec(
        10306, False, 500, "renderer could not produce a valid bounded semantic snapshot"
    ),
    ErrorId.INTERNAL_ERROR: ErrorSpec(10999, False, 500, "unexpected internal failure"),
}

_BY_CODE: dict[int, ErrorId] = {spec.code: eid for eid, spec in ERROR_TABLE.items()}


def error_id_for_code(code: int) -> ErrorId | None:
    return _BY_CODE.get(code)


class ApiError(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """The API error object, identical in HTTP envelopes, capture NDJSON and the bridge."""

    id: str
    code: int
    message: str
    retryable: bool
    details: dict[str, Any] | None = None

    @classmethod
    def of(cls, error_id: ErrorId, message: str, **details: Any) -> ApiError:
        spec = ERROR_TABLE[error_id]
        return cls(
            id=error_id.value,
            code=spec.code,
            message=message,
            retryable=spec.retryable,
            details=details or None,
        )

    @property
    def error_id(self) -> ErrorId:
        return ErrorId(self.id)

    @property
    def http_status(self) -> int:
        return ERROR_TABLE[ErrorId(self.id)].http_status


def check_api_error(error: ApiError) -> str | None:
    """Why `error` is not a valid member of the table, or None when it is."""
    try:
        eid = ErrorId(error.id)
    except ValueError:
        return f"unknown error id {error.id!r}"
    spec = ERROR_TABLE[eid]
    if error.code != spec.code:
        return f"error {eid.value} must have code {spec.code}, got {error.code}"
    if error.retryable is not spec.retryable:
        return f"error {eid.value} must have retryable={spec.retryable}"
    return None


class SvcError(Exception):
    """An error to be answered as the spec's error object, unchanged across every layer."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(f"{error.id}: {error.message}")
        self.error = error

    @classmethod
    def of(cls, error_id: ErrorId, message: str, **details: Any) -> SvcError:
        return cls(ApiError.of(error_id, message, **details))


class BridgeProtocolError(Exception):
    """The peer sent something the bridge protocol does not allow."""

    fatal: bool = False

    def __init__(self, message: str, *, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


class FrameTooLarge(BridgeProtocolError):
    fatal = True


class InvalidEncoding(BridgeProtocolError):
    pass


class MalformedJson(BridgeProtocolError):
    pass


class NotAnObject(BridgeProtocolError):
    pass


class WrongVersion(BridgeProtocolError):
    pass


class UnknownOperation(BridgeProtocolError):
    pass


class MalformedMessage(BridgeProtocolError):
    pass


class UnknownId(BridgeProtocolError):
    pass


class DuplicateId(BridgeProtocolError):
    pass
