"""Bridge messages, protocol version 4, and the validation both ends apply on receipt.

Agent -> host: a request `{version, id, op, ...}` (op `capture`, `browser_attach`,
`browser_action`) or a cancellation `{version, id, op: "cancel"}` for an in-flight id.
Host -> agent: `{version, id, status: "ok", data}` or `{version, id, status: "error", error}`.

Each direction has its own tagged union and one reusable typed decoder. Decoding is strict:
`decode_host_inbound` / `decode_agent_inbound` return a message or raise exactly one
`BridgeProtocolError` subclass naming what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, Final, Generic, Literal, TypeVar, get_args

import msgspec

from .actions import Action, RefAction
from .answers import (
    Answer,
    AttachAnswer,
    CaptureAnswer,
    Done,
    NotificationsAnswer,
    Observation,
    PageAnswer,
    PauseAnswer,
    PlayAnswer,
    ScreenshotAnswer,
)
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
from .identity import FingerprintProfile, ProxyTrust
from .settings import BrowsingSettings

PROTOCOL_VERSION: Final = 4

Seconds = Annotated[float, msgspec.Meta(gt=0, le=86400)]
Settle = Annotated[float, msgspec.Meta(ge=0, le=86400)]
A = TypeVar("A", bound=Answer)


class Command(
    msgspec.Struct,
    Generic[A],
    tag_field="type",
    forbid_unknown_fields=True,
    kw_only=True,
    omit_defaults=True,
):
    """An engine command carried by browser_action; `A` is the type of its answer."""


class Params(
    msgspec.Struct, Generic[A], forbid_unknown_fields=True, kw_only=True, omit_defaults=True
):
    """The parameters of the capture and browser_attach operations; `A` is their answer."""


class SessionSettings(BrowsingSettings, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """What the host needs of a session's settings (docs/bridge.md "apply-session-settings"):
    the browsing settings (bridge_protocol.settings, by the same names) and the rest."""

    profile_id: Annotated[int, msgspec.Meta(ge=1)]
    name: str
    group: str | None = None
    proxy_port: Annotated[int, msgspec.Meta(ge=1, le=65535)] | None = None
    network_paused: bool = False
    # The session's effective browser identity; None: the engine's native identity.
    identity: FingerprintProfile | None = None
    # A proxied session's extra trust; None: the system store only (and for direct sessions).
    trust: ProxyTrust | None = None
    # The stable id of a proxied session's proxy: the sessions of one proxy share its partition
    # `proxy:<id>` of the shared asset cache (spec 1 §1). Private to the bridge.
    proxy_id: Annotated[int, msgspec.Meta(ge=1)] | None = None


# --- engine commands carried by browser_action -------------------------------------------------


class Navigate(Command[PageAnswer], tag="navigate"):
    session_id: str
    url: str | None = None
    navigation: Literal["url", "back", "forward", "reload"] = "url"
    page_id: str | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class Screenshot(Command[ScreenshotAnswer], tag="screenshot"):
    session_id: str
    output_path: str
    format: Literal["png", "jpeg", "webp"] = "png"
    quality: Annotated[int, msgspec.Meta(ge=0, le=100)] | None = None
    full_page: bool = False
    page_id: str | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class Observe(Command[Observation], tag="observe"):
    session_id: str
    mode: Literal["semantic", "hybrid", "visual"] = "semantic"
    page_id: str | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class Pause(Command[PauseAnswer], tag="pause"):
    session_id: str


class Play(Command[PlayAnswer], tag="play"):
    session_id: str


class ApplySessionSettings(Command[Done], tag="apply-session-settings"):
    session_id: str
    settings: SessionSettings


class CloseSession(Command[Done], tag="close-session"):
    session_id: str


class Notifications(Command[NotificationsAnswer], tag="notifications"):
    pass


class Ping(Command[Done], tag="ping"):
    """The agent's liveness check of the host: the host's bridge endpoint answers it itself, on
    the thread that reads the bridge (the app's event loop, where the engine runs), so an app
    that stopped answering shows in the agent's health (agent/engine_watch.py)."""


class ObservationAction(Command[Observation], tag="observation-actions"):
    """Ref actions of POST /v1/observations/{id}/actions (validated by the agent); answers one new
    observation taken after the whole batch."""

    session_id: str
    observation_id: str
    actions: list[RefAction]
    mode: Literal["semantic", "hybrid", "visual"] = "semantic"
    page_id: str | None = None
    timeout: Seconds = 90.0


EngineCommand = (
    Navigate
    | Screenshot
    | Observe
    | Pause
    | Play
    | ApplySessionSettings
    | CloseSession
    | Notifications
    | Ping
    | ObservationAction
)


# --- parameters of the other two operations ---------------------------------------------------


class CaptureParams(Params[CaptureAnswer], kw_only=True):
    session_id: str
    url: str | None = None
    output_path: str
    actions: list[Action] = []
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class AttachParams(Params[AttachAnswer], kw_only=True):
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


def _answer_of(operation: type[Command[Any]] | type[Params[Any]]) -> type[Answer]:
    (answer,) = get_args(operation.__orig_bases__[0])  # type: ignore[union-attr]
    if not (isinstance(answer, type) and issubclass(answer, Answer)):
        raise TypeError(f"{operation.__name__} names no answer type")
    return answer


# The one table operation type -> answer type (the generic parameter of each operation struct).
ANSWERS: Final[Mapping[type[Operation], type[Answer]]] = MappingProxyType(
    {op: _answer_of(op) for op in (CaptureParams, AttachParams, *get_args(EngineCommand))}
)


class _Response(msgspec.Struct, tag_field="status", forbid_unknown_fields=True, kw_only=True):
    version: Version
    id: str


class OkResponse(_Response, tag="ok"):
    """A success as the host sends it."""

    data: Answer


class RawOkResponse(_Response, tag="ok"):
    """A success as the agent receives it: `data` is decoded later with the answer type of the
    request it answers (`ANSWERS`), which only the agent's connection knows."""

    data: msgspec.Raw


class ErrorResponse(_Response, tag="error"):
    error: ApiError


Response = OkResponse | ErrorResponse
ReceivedResponse = RawOkResponse | ErrorResponse


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

    # PLR0911: one return per failure class
    def __call__(self, payload: Payload, exc: Exception) -> BridgeProtocolError:  # noqa: PLR0911
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
_agent_typed: msgspec.json.Decoder[ReceivedResponse] = msgspec.json.Decoder(ReceivedResponse)
_agent_classify = _Classifier("status", ("ok", "error"), MalformedMessage)


def decode_host_inbound(payload: Payload) -> HostInbound:
    """Decode a frame the host received (a request or a cancellation)."""
    try:
        return _host_typed.decode(payload)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise _host_classify(payload, exc) from None


def decode_agent_inbound(payload: Payload) -> ReceivedResponse:
    """Decode a frame the agent received (a response; a success's `data` stays raw)."""
    try:
        message = _agent_typed.decode(payload)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise _agent_classify(payload, exc) from None
    if type(message) is ErrorResponse:
        problem = check_api_error(message.error)
        if problem is not None:
            raise MalformedMessage(f"invalid error object: {problem}", request_id=message.id)
    return message
