"""The small answers of the isolated-world scripts (host_app/core/js.py,
host_app/core/observe_js.py) as typed values, decoded once where a driver receives them: each
script is sent as a `core.page_driver.Call` whose `read` is `read_as`, `read_or` or a struct's
`of`. No Qt here. (The observation's answer is host_app/logic/observed.py's.)

The scripts keep their short keys on the wire; each field names the key it is read from
(`name=`), and an answer that is a list is an `array_like` struct or a typed tuple. Decoding is
lax as the reads it replaced were: a script's 0 or 1 reads as a bool, an integral number as a
float. The fakes answer with these structs, read back from their wire form (`wire`) by the
call's own read, so fake and product share one definition of each answer's shape. The page-load
probe's answer is `logic.readiness.Probe`, an element's cover `logic.actionability.Cover`: the
rules that read them keep them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
from msgspec import field

from .actionability import Box, Cover, Sample

T = TypeVar("T")


def decode(raw: object, kind: type[T]) -> T | None:
    """A script's answer (its JSON, parsed) as `kind`; None when it is not one (no
    answer, the document gone, a malformed answer)."""
    try:
        return msgspec.convert(raw, kind, strict=False)
    except msgspec.ValidationError:
        return None


def read_as(kind: type[T]) -> Callable[[object], T | None]:
    """How a script's answer is read (`core.page_driver.Call.read`) when it is a `kind` (a
    struct, or a keyless answer's typed value: `tuple[int, int]`, `str`), None when it is not."""
    return lambda raw: decode(raw, kind)


def read_or(kind: type[T], default: T) -> Callable[[object], T]:
    """As `read_as`, with `default` for no answer (or a malformed one)."""

    def read(raw: object) -> T:
        value = decode(raw, kind)
        return default if value is None else value

    return read


def wire(answer: object) -> Any:
    """An answer (or a list of its parts) as the script sends it (short keys, lists), as
    a page hands it on before its call reads it."""
    return msgspec.to_builtins(answer)


class OptionRow(msgspec.Struct, frozen=True, array_like=True):
    """An option row of a list box (`select` with `multiple` or a size): its box, whether it is
    selected."""

    x: float
    y: float
    w: float
    h: float
    selected: bool

    @property
    def box(self) -> Box:
        return (self.x, self.y, self.w, self.h)


class AriaOption(msgspec.Struct, frozen=True, array_like=True):
    """An option of a multi-selectable ARIA listbox: its accessible name, state and box."""

    name: str
    selected: bool
    disabled: bool
    x: float
    y: float
    w: float
    h: float

    @property
    def box(self) -> Box:
        return (self.x, self.y, self.w, self.h)


class ElementInfo(msgspec.Struct):
    """An element's live state (observe_js `_ELEMENT_INFO`, for a ref or a selector snapshot's
    node): its box in the main frame's viewport (CSS px), the viewport's size, its state, and
    what actions need to operate it."""

    x: float
    y: float
    w: float
    h: float
    vw: float
    vh: float
    visible: bool = field(name="vis")
    disabled: bool = field(name="dis")
    readonly: bool = field(name="ro")
    editable: bool = field(name="ed")
    focused: bool = field(name="f")
    hit: bool  # elementFromPoint(center) is the element or inside it
    value: str | None = field(default=None, name="v")
    options: list[tuple[str, bool]] | None = field(default=None, name="o")  # (value, disabled)
    selected: int = field(default=-1, name="si")
    multiple: bool = field(default=False, name="m")
    # the element at the center when it is not this one
    cover: Cover | None = field(default=None, name="cov")
    rows: list[OptionRow] | None = field(default=None, name="op")  # a list box's options
    client: Box | None = field(default=None, name="cb")  # a list box's client area
    aria_options: list[AriaOption] | None = field(default=None, name="ao")
    # a running or pending animation of its (or an ancestor's) geometry
    animating: bool = field(default=False, name="an")
    # its clipping ancestors' boxes intersected (a sidebar's scrollport)
    clip: Box | None = field(default=None, name="cl")
    # a wrapped inline box: its largest line's center
    point: tuple[float, float] | None = field(default=None, name="pt")
    # a code editor's hidden input sink: its box is the editor's
    sink: bool = field(default=False, name="sk")
    # the document's scroller at its top (1) and/or bottom (2); 0 unknown
    doc_end: int = field(default=0, name="de")
    tag: str = ""

    @property
    def box(self) -> Box:
        return (self.x, self.y, self.w, self.h)

    @property
    def cx(self) -> float:
        """Where input goes: the box's center, or its largest line's for a wrapped inline."""
        return self.point[0] if self.point is not None else self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.point[1] if self.point is not None else self.y + self.h / 2

    def scrollport(self) -> Box:
        """Where the element can be seen: the viewport within its clipping ancestors' boxes
        (empty when such an ancestor is out of view)."""
        x0, y0, x1, y1 = 0.0, 0.0, self.vw, self.vh
        if self.clip is not None:
            x, y, w, h = self.clip
            x0, y0, x1, y1 = max(x0, x), max(y0, y), min(x1, x + w), min(y1, y + h)
        return (x0, y0, max(0.0, x1 - x0), max(0.0, y1 - y0))

    def in_view(self) -> bool:
        x, y, w, h = self.scrollport()
        return x <= self.cx < x + w and y <= self.cy < y + h and self.w > 0 and self.h > 0

    def sample(self, *, click: bool) -> Sample:
        return Sample(
            self.box,
            self.visible,
            self.hit,
            self.cover,
            self.animating,
            disabled=click and self.disabled,
        )


class SlotRead(msgspec.Struct, frozen=True):
    """An iframe as its parent document sees it (observe_js `_SLOT`): its content box in the
    parent's viewport and that viewport's size; with a point asked, whether the parent's hit
    test there lands on the iframe, and what covers it if not."""

    x: float
    y: float
    w: float
    h: float
    vw: float
    vh: float
    visible: bool = field(default=False, name="vis")
    hit: bool | None = None  # None: no point was asked
    cover: Cover | None = field(default=None, name="cov")


TICK_LENGTH = 11


class Tick(msgspec.Struct, frozen=True, array_like=True):
    """The renderer's counters (host_app/core/js.py TICK)."""

    document: float  # the document's key (its time origin)
    frames: int
    moves: int
    ups: int
    keys: int
    submitting: bool
    # a click on an `<a download>` in the last 2 s that the page did not cancel: Chromium
    # fetches it without a load, and announces the download only later
    download_click: bool = False
    navigates: int = -1  # the main document's `navigate` events (-1: not counted)
    frame_focus: bool = False  # the main document's focus is in a frame
    turns: int = 0  # zero-delay timers run (each read sets the next)
    # one of them, set after the last input these counters count, has run: the timers the
    # input's handlers set have run too (they run in order)
    settled: bool = False

    @classmethod
    def of(cls, raw: object) -> Tick:
        """TICK's answer; anything else (no document answered) is a tick of no document."""
        tick = decode(raw, cls) if isinstance(raw, list) and len(raw) == TICK_LENGTH else None
        return tick if tick is not None else cls(-1.0, 0, 0, 0, 0, False)


class Loads(msgspec.Struct, frozen=True):
    """What a document still loads that its input may have asked for (js.PENDING_LOADS)."""

    pending: frozenset[str] = field(default=frozenset(), name="p")  # scripts, stylesheets by URL
    quiet_ms: float = field(default=0.0, name="q")  # milliseconds since its tree last changed
    # scripts and stylesheets inserted since the document was first read
    inserted: int = field(default=0, name="n")

    @property
    def quiet(self) -> float:
        """Seconds since the document's tree last changed."""
        return self.quiet_ms / 1000

    @classmethod
    def of(cls, raw: object) -> Loads:
        """PENDING_LOADS' answer; anything else (no document answered) is nothing pending."""
        return decode(raw, cls) or cls()


class RefCheck(msgspec.Struct, frozen=True):
    """Which document a frame holds now, and the signatures of the observed elements asked for
    (observe_js `_CHECK`, before a ref action)."""

    key: tuple[float, int]  # the document's (time origin, generation): `core.kept.Key`
    id: str | None = None  # the document's id (`frames.FrameDoc.id`)
    # registry number (as a string) -> the element's signature; None: it left the document
    signatures: dict[str, str | None] = field(default_factory=dict, name="s")


class SnapshotNode(msgspec.Struct, frozen=True, array_like=True):
    """An element of the selector snapshot, in document order: its tag, attributes, and its
    parent's index (-1: none read)."""

    tag: str
    attrs: dict[str, str]
    parent: int


class SnapshotAnswer(msgspec.Struct, frozen=True):
    """The document's elements for the selector engine (host_app/core/js.py SNAPSHOT), and its
    anchors' resolved http(s) hrefs as (element index, href)."""

    nodes: list[SnapshotNode] = field(default_factory=list, name="n")
    links: list[tuple[int, str]] = field(default_factory=list, name="k")


class ConformanceReading(msgspec.Struct, frozen=True):
    """What the last observation gave for one node the conformance reader matched
    (observe_js.probe, tests of names and roles): its `data-` attributes, and its places in the
    observation, most specific first: ("el", index in elements), ("ct", index in content) or
    ("cx", a context part)."""

    attributes: dict[str, str] = field(name="at")
    places: list[tuple[str, int | str]] = field(name="rep")
