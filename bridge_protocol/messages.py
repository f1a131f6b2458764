"""Bridge messages, protocol version 4, and the validation both ends apply on receipt.

Agent -> host: a request `{version, id, op, ...}` (op `capture`, `browser_attach`,
`browser_action`) or a cancellation `{version, id, op: "cancel"}` for an in-flight id.
Host -> agent: `{version, id, status: "ok", data}` or `{version, id, status: "error", error}`.

Each direction has its own tagged union and one reusable typed decoder. Decoding is strict:
`decode_host_inbound` / `decode_agent_inbound` return a message or raise exactly one
`BridgeProtocolError` subclass naming what is wrong.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec

from .actions import Action
from .errors import (
    ApiError,
    BridgeProtocolError,
    InvalidEncoding,
    MalformedJson,
    MalformedMessage,
    NotAnObject,
    UnknownOperation,
    WrongVersion,
    check_api_error,
)

PROTOCOL_VERSION: Final = 4

Seconds = Annotated[float, msgspec.Meta(gt=0, le=86400)]
Settle = Annotated[float, msgspec.Meta(ge=0, le=86400)]


class _Command(
    msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True, omit_defaults=True
):
    pass


# --- engine commands carried by browser_action -------------------------------------------------


class Navigate(_Command, tag="navigate"):
    session_id: str
    url: str | None = None
    navigation: Literal["url", "back", "forward", "reload"] = "url"
    page_id: str | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class Perform(_Command, tag="perform"):
    session_id: str
    actions: list[Action]
    page_id: str | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class Screenshot(_Command, tag="screenshot"):
    session_id: str
    output_path: str
    format: Literal["png", "jpeg", "webp"] = "png"
    quality: Annotated[int, msgspec.Meta(ge=0, le=100)] | None = None
    full_page: bool = False
    page_id: str | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class Observe(_Command, tag="observe"):
    session_id: str
    mode: Literal["semantic", "hybrid", "visual"] = "semantic"
    page_id: str | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class Pause(_Command, tag="pause"):
    session_id: str


class Play(_Command, tag="play"):
    session_id: str


class ApplySessionSettings(_Command, tag="apply-session-settings"):
    session_id: str
    settings: dict[str, Any]


class CloseSession(_Command, tag="close-session"):
    session_id: str


class HostSettings(_Command, tag="host-settings"):
    pass


class Notifications(_Command, tag="notifications"):
    pass


class ObservationAction(_Command, tag="observation-actions"):
    """Ref actions of POST /v1/observations/{id}/actions (validated by the agent); answers one new
    observation taken after the whole batch."""

    session_id: str
    observation_id: str
    actions: list[dict[str, Any]]
    mode: Literal["semantic", "hybrid", "visual"] = "semantic"
    page_id: str | None = None
    timeout: Seconds = 90.0


class Find(_Command, tag="find"):
    """Search of a retained observation; `observation` is the agent's stored copy."""

    session_id: str
    observation_id: str
    observation: dict[str, Any]
    query: str | None = None
    role: str | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 20
    timeout: Seconds = 30.0


EngineCommand = (
    Navigate
    | Perform
    | Screenshot
    | Observe
    | Pause
    | Play
    | ApplySessionSettings
    | CloseSession
    | HostSettings
    | Notifications
    | ObservationAction
    | Find
)


# --- parameters of the other two operations ---------------------------------------------------


class CaptureParams(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    session_id: str
    url: str | None = None
    output_path: str
    actions: list[Action] = []
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class AttachParams(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    session_id: str
    url: str
    navigate: bool = True
    output_path: str | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


# --- frames ------------------------------------------------------------------------------------


# `version` is a Literal so that msgspec checks it in C; a mismatch takes the slow path below,
# which names it WrongVersion.
Version = Literal[4]


class _Request(msgspec.Struct, tag_field="op", forbid_unknown_fields=True, kw_only=True):
    version: Version
    id: str


class CaptureRequest(_Request, tag="capture"):
    params: CaptureParams


class AttachRequest(_Request, tag="browser_attach"):
    params: AttachParams


class ActionRequest(_Request, tag="browser_action"):
    command: EngineCommand


class Cancel(_Request, tag="cancel"):
    """Cancels the in-flight request with the same id."""


Request = CaptureRequest | AttachRequest | ActionRequest
HostInbound = CaptureRequest | AttachRequest | ActionRequest | Cancel
Operation = CaptureParams | AttachParams | EngineCommand
OPERATIONS: tuple[str, ...] = ("capture", "browser_attach", "browser_action")


class _Response(msgspec.Struct, tag_field="status", forbid_unknown_fields=True, kw_only=True):
    version: Version
    id: str


class OkResponse(_Response, tag="ok"):
    data: dict[str, Any]


class ErrorResponse(_Response, tag="error"):
    error: ApiError


Response = OkResponse | ErrorResponse


def make_request(request_id: str, operation: Operation) -> Request:
    if isinstance(operation, CaptureParams):
        return CaptureRequest(version=PROTOCOL_VERSION, id=request_id, params=operation)
    if isinstance(operation, AttachParams):
        return AttachRequest(version=PROTOCOL_VERSION, id=request_id, params=operation)
    return ActionRequest(version=PROTOCOL_VERSION, id=request_id, command=operation)


# --- decoding with classification --------------------------------------------------------------

Payload = bytes | bytearray | memoryview


class _Classifier:
    """The slow path, taken only for a frame that failed typed decoding: it finds the one
    protocol error that applies, in the order version, shape, tag, fields."""

    def __init__(
        self, tag_field: str, known_tags: tuple[str, ...], unknown_tag: type[BridgeProtocolError]
    ) -> None:
        self._tag_field = tag_field
        self._known_tags = known_tags
        self._unknown_tag = unknown_tag

    def __call__(self, payload: Payload, exc: Exception) -> BridgeProtocolError:
        if isinstance(exc, RecursionError):
            return MalformedJson(f"frame payload is nested too deeply: {exc}")
        try:
            value = msgspec.json.decode(payload)
        except RecursionError as deep:
            return MalformedJson(f"frame payload is nested too deeply: {deep}")
        except UnicodeDecodeError:
            return InvalidEncoding("frame payload is not valid UTF-8")
        except msgspec.DecodeError as generic:
            try:
                bytes(payload).decode("utf-8")
            except UnicodeDecodeError:
                return InvalidEncoding("frame payload is not valid UTF-8")
            return MalformedJson(f"frame payload is not JSON: {generic}")
        if not isinstance(value, dict):
            return NotAnObject(f"frame payload is a JSON {type(value).__name__}, not an object")
        raw_id = value.get("id")
        request_id = raw_id if isinstance(raw_id, str) else None
        version = value.get("version")
        if type(version) is not int or version != PROTOCOL_VERSION:
            return WrongVersion(
                f"protocol version {version!r} is not {PROTOCOL_VERSION}", request_id=request_id
            )
        tag = value.get(self._tag_field)
        if tag not in self._known_tags:
            return self._unknown_tag(
                f"unknown {self._tag_field} {tag!r}; expected one of "
                + ", ".join(self._known_tags),
                request_id=request_id,
            )
        return MalformedMessage(f"malformed {tag} frame: {exc}", request_id=request_id)


_host_typed: msgspec.json.Decoder[HostInbound] = msgspec.json.Decoder(HostInbound)
_host_classify = _Classifier("op", (*OPERATIONS, "cancel"), UnknownOperation)
_agent_typed: msgspec.json.Decoder[Response] = msgspec.json.Decoder(Response)
_agent_classify = _Classifier("status", ("ok", "error"), MalformedMessage)


def decode_host_inbound(payload: Payload) -> HostInbound:
    """Decode a frame the host received (a request or a cancellation)."""
    try:
        return _host_typed.decode(payload)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise _host_classify(payload, exc) from None


def decode_agent_inbound(payload: Payload) -> Response:
    """Decode a frame the agent received (a response)."""
    try:
        message = _agent_typed.decode(payload)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise _agent_classify(payload, exc) from None
    if type(message) is ErrorResponse:
        problem = check_api_error(message.error)
        if problem is not None:
            raise MalformedMessage(f"invalid error object: {problem}", request_id=message.id)
    return message
