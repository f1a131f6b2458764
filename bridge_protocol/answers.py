"""What the host answers to each bridge operation (docs/bridge.md), as structs.

Each operation struct in `messages` names its answer type as its generic parameter
(`class Navigate(Command[PageAnswer], ...)`), so `BridgeClient.call(Navigate(...))` is typed
`PageAnswer` for mypy, and `messages.ANSWERS` is the one runtime table operation -> answer type
that the agent's connection decodes each answer with, straight from the frame.

Answers are strict both ways (unknown fields refused) because both ends move together: the agent
and the host app ship in one bundle.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
Count = Annotated[int, msgspec.Meta(ge=0)]
Millis = Annotated[int, msgspec.Meta(ge=0)]
ImageFormat = Literal["png", "jpeg", "webp"]
ObservationMode = Literal["semantic", "hybrid", "visual"]


class Answer(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Base of every answer."""


class Done(Answer, kw_only=True):
    """`{}`: apply-session-settings, close-session."""


class PageAnswer(Answer, kw_only=True):
    """navigate: where the session's page is now. `url` is the final normalized URL;
    `target_http_status` null for non-HTTP documents or same-document moves."""

    url: str | None = None
    title: str | None = None
    target_http_status: int | None = None


class Timings(Answer, kw_only=True):
    """Milliseconds from the start of the operation."""

    page_ready_ms: Millis
    rendered_ms: Millis
    written_ms: Millis


class AttachAnswer(PageAnswer, kw_only=True):
    """browser_attach: the page, and the capture when one was asked for (`bytesize` and
    `output_path` only then)."""

    traffic_bytes: Count = 0
    bytesize: Count | None = None
    output_path: str | None = None
    timings: Timings


class CaptureAnswer(PageAnswer, kw_only=True):
    """capture: the page and the file written."""

    traffic_bytes: Count = 0
    bytesize: Count
    output_path: str
    timings: Timings


class ScreenshotAnswer(Answer, kw_only=True):
    url: str | None = None
    output_path: str
    bytesize: Count
    format: ImageFormat
    mime_type: str
    width: Count
    height: Count


class ObservationImage(Answer, kw_only=True):
    """The viewport PNG of a hybrid or visual observation."""

    output_path: str
    bytesize: Count
    format: Literal["png"]
    mime_type: Literal["image/png"]
    width: Count
    height: Count
    scale_x: float
    scale_y: float


# An item of `content` or `elements` in the compact wire form (bridge_protocol.observation): an
# int is a context marker, a list is an entry whose positions that module defines, a string (in
# `content`) a table cell that is just its text.
WireItem = int | str | list[Any]
# a context path, [n, tail]: contexts[n] + " > " + tail, or a table's rows [head, "row", i, j]
WireContext = str | list[Any]


PersonKind = Literal["bot_check", "captcha", "two_factor"]


class NeedsPerson(Answer, kw_only=True):
    """The page waits for a person (docs/observations.md "Pages that need a person"): a bot
    check, a CAPTCHA or a one-time code; `text` is the page's own words about it."""

    kind: PersonKind
    vendor: str
    text: str = ""
    trust: Literal["untrusted_website_content"]  # always sent (defaults are omitted)


class Observation(Answer, kw_only=True):
    """observe, observation-actions: docs/observations.md "Top level". Field order is the order
    clients see; `truncated` has no default so that it is always present."""

    id: NonEmpty
    seq: Annotated[int, msgspec.Meta(ge=1)]
    at: str
    url: str | None = None
    title: str | None = None
    mode: ObservationMode | None = None
    needs_person: NeedsPerson | None = None
    vp: Annotated[list[int], msgspec.Meta(min_length=4, max_length=4)]
    doc: Annotated[list[int], msgspec.Meta(min_length=2, max_length=2)]
    contexts: list[WireContext] = []
    content: list[WireItem] = []
    elements: list[WireItem] = []
    omitted_node_count: Count = 0
    clipped_text_count: Count = 0
    truncated: bool
    image: ObservationImage | None = None


class PauseAnswer(Answer, kw_only=True):
    network_paused: bool


class PlayAnswer(Answer, kw_only=True):
    """`reloaded`: the pause had interrupted or deferred a navigation, now run again."""

    network_paused: bool
    reloaded: bool


class Notification(Answer, kw_only=True):
    """A notification a site showed (`displayed_at`: ISO 8601)."""

    session_id: str
    origin: str
    title: str
    body: str
    notification_id: str
    persistent: bool
    displayed_at: str


class NotificationsAnswer(Answer, kw_only=True):
    """Oldest first, at most 256."""

    notifications: list[Notification] = []
