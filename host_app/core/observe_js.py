"""The observation scripts (docs/observations.md), run in the isolated world
(ScriptWorldId.ApplicationWorld): read-only (no DOM mutation, no page script called), bounded,
each returning one JSON string.

The isolated world keeps, per document, a private registry `__svcObs`: element -> ref number
(stable within the document) and ref number -> WeakRef(element). It lives in the isolated world's
own global, invisible to the page; the numbers and signatures it gives back stay in the host.
`gen` goes up when the document's root element was replaced in place (document.open, a new
documentElement), so the host can tell `document_replaced` from `navigated` (another timeOrigin).

Frames: the scripts run in each frame's own isolated world, so each document (the main frame's and
every iframe's) has its own registry; its random `id` lets the host find the frame holding it
again. A document reports its rendered iframes as slots (observe's `fr`) and a placeholder content
entry `{k:'frame', f:<slot number>}` where the frame's content goes (host_app/logic/frames.py).
Geometry is in the document's own viewport; the host adds the frames' offsets.
"""

from __future__ import annotations

import json

from .. import scripts
from ..logic.observed import Observed
from ..logic.page_answers import (
    ConformanceReading,
    ElementInfo,
    RefCheck,
    SlotRead,
    read_as,
    read_or,
)
from ..logic.person import DETECT_JS
from .kept import Key
from .page_driver import Call, Focused, Script, kept

# What they share: the registry, roles, names, states, signatures, the hit test.
_COMMON = scripts.load("observe_common.js")

_OBSERVE = scripts.load("observe.js", COMMON=_COMMON, DETECT=DETECT_JS)

# The conformance reader (tests of names and roles, docs/observations.md "Roles").
_PROBE = scripts.load("conformance_reader.js", COMMON=_COMMON)

_CHECK = scripts.load("ref_check.js", COMMON=_COMMON)

# What covers an element at a point (an element's `cov`, an iframe's cover in its parent).
_COVER = scripts.load("cover.js")

# The element-info body over `el`, a function's body (element.js, element_at.js).
_ELEMENT_INFO = scripts.load("element_info.js", COVER=_COVER)

_ELEMENT = scripts.load("element.js", COMMON=_COMMON, ELEMENT_INFO=_ELEMENT_INFO)

# the same read for a node of the selector snapshot (host_app/core/js.py), found by document index
_ELEMENT_AT = scripts.load("element_at.js", COMMON=_COMMON, ELEMENT_INFO=_ELEMENT_INFO)

_SLOT = scripts.load("slot.js", COMMON=_COMMON, COVER=_COVER)

_CHOICE = scripts.load("choice.js", COMMON=_COMMON)

# After a focus, the caret after the element's text (`type` appends): answers "end", or "yes"
# where that cannot be done.
CARET_END = scripts.load("caret_end.js")

_FOCUS = scripts.load("focus.js", COMMON=_COMMON, CARET_END=CARET_END)


def observe(mode: str, frame: dict[str, object] | None = None) -> Call[Observed | None]:
    """The observation script; `frame` (for a frame's document) carries the bounds left and the
    iframe's context parts, label and visual rect (docs/observations.md "Frames"). A key-less
    answer is no document's."""
    code, stub = kept(Script.OBSERVE, _OBSERVE, f"{json.dumps(mode)},{json.dumps(frame)}")
    return Call(Script.OBSERVE, code, read_as(Observed), (mode, frame), stub)


def probe(selector: str) -> Call[list[ConformanceReading]]:
    """What the last observation gave for each node matching `selector` (`_PROBE`)."""
    code, stub = kept(Script.CONFORMANCE, _PROBE, json.dumps(selector))
    read = read_or(list[ConformanceReading], [])
    return Call(Script.CONFORMANCE, code, read, (selector,), stub)


def check(numbers: list[int]) -> Call[RefCheck | None]:
    code, stub = kept(Script.CHECK, _CHECK, json.dumps(numbers))
    return Call(Script.CHECK, code, read_as(RefCheck), (numbers,), stub)


def element(number: int) -> Call[ElementInfo | None]:
    code, stub = kept(Script.ELEMENT, _ELEMENT, str(number))
    return Call(Script.ELEMENT, code, read_as(ElementInfo), (number,), stub)


def choice(number: int) -> Call[int | None]:
    """The chosen option's index of select `number` (None: not a select of the document)."""
    code, stub = kept(Script.CHOICE, _CHOICE, str(number))
    return Call(Script.CHOICE, code, read_as(int), (number,), stub)


def element_at(index: int, tag: str) -> Call[ElementInfo | None]:
    code, stub = kept(Script.ELEMENT_AT, _ELEMENT_AT, f"{index},{json.dumps(tag)}")
    return Call(Script.ELEMENT_AT, code, read_as(ElementInfo), (index, tag), stub)


def slot(number: int, point: tuple[float, float] | None = None) -> Call[SlotRead | None]:
    """The content box of iframe `number` in this document's viewport; with `point`, whether this
    document's hit test there lands on that iframe (the frame is not covered at that point)."""
    code, stub = kept(Script.SLOT, _SLOT, f"{number},{json.dumps(point)}")
    return Call(Script.SLOT, code, read_as(SlotRead), (number, point), stub)


def focus(
    number: int, in_frame: bool = False, end: bool = False, expect: tuple[Key, str] | None = None
) -> Call[Focused]:
    """Answers "no", "yes" or "end" (`CARET_END`); with `expect`, "no" unless the document's key
    and the element's signature are still those."""
    args = f"{number},{json.dumps(in_frame)},{json.dumps(end)},{json.dumps(expect)}"
    code, stub = kept(Script.FOCUS, _FOCUS, args)
    return Call(Script.FOCUS, code, Focused.of, (number, in_frame, end, expect), stub)
