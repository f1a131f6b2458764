"""The events of the POST /v1/captures stream as structs (issue 39 point 3, spec 1 §6): each
struct is the `data` of one event and names it (`EVENT`); agent/capture_stream.py emits them and
docs/openapi.yaml's CaptureStreamLine is generated from them (agent/openapi.py). The event
`capture.failed` carries the API error object (bridge_protocol's ApiError) instead."""

from __future__ import annotations

from typing import ClassVar, Literal

from bridge_protocol import ApiError

from .responses import Shown

FAILED = "capture.failed"
Outcome = Literal["success", "target_error"]


class CaptureEvent(Shown, frozen=True):
    """Base of the events' data: `EVENT` is the event's name on its line."""

    EVENT: ClassVar[str]


class ProxyTraffic(Shown, frozen=True):
    """What the session downloaded from the network during the capture, headers included
    (blocked, failed, cancelled and shared-cache requests not counted)."""

    proxy_alias: str | None
    bytes: int


class CaptureStarted(CaptureEvent, frozen=True):
    EVENT = "capture.started"

    url: str
    session_id: str


class CaptureBrowserRequested(CaptureEvent, frozen=True):
    EVENT = "capture.browser_requested"

    session_id: str
    attempt: int


class CaptureRetrying(CaptureEvent, frozen=True):
    """A retryable error with retries left: the next attempt after retry_delay seconds."""

    EVENT = "capture.retrying"

    attempt: int
    retry_delay: float
    error: ApiError


class CapturePageReady(CaptureEvent, frozen=True):
    EVENT = "capture.page_ready"

    url: str | None
    target_http_status: int | None
    elapsed_ms: int


class CaptureRendered(CaptureEvent, frozen=True):
    EVENT = "capture.rendered"

    elapsed_ms: int


class CaptureWriting(CaptureEvent, frozen=True):
    EVENT = "capture.writing"

    output_path: str
    elapsed_ms: int


class CaptureTraffic(CaptureEvent, frozen=True):
    EVENT = "capture.traffic"

    session_id: str
    proxy_traffic: ProxyTraffic


class CaptureCompleted(CaptureEvent, frozen=True):
    EVENT = "capture.completed"

    output_path: str
    bytesize: int
    url: str
    target_http_status: int | None
    session_id: str
    capture_id: str
    proxy_traffic: ProxyTraffic
    outcome: Outcome


class CaptureFinished(CaptureEvent, frozen=True):
    """The last line: exit_code 0 completed, 1 unsuccessful (outcome target_error, or failed)."""

    EVENT = "capture.finished"

    exit_code: int


# in the stream's order (spec 1 §6); capture.failed, the error object, comes before finished
EVENTS: tuple[type[CaptureEvent], ...] = (
    CaptureStarted,
    CaptureBrowserRequested,
    CapturePageReady,
    CaptureRendered,
    CaptureWriting,
    CaptureRetrying,
    CaptureTraffic,
    CaptureCompleted,
    CaptureFinished,
)
