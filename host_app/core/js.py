"""Scripts run in the isolated world (ScriptWorldId.ApplicationWorld): read-only, invisible to the
page's own scripts, each returning one JSON string. Their text is in host_app/scripts/, each file
saying what its script answers; each is sent as a `page_driver.Call` that names it and reads its
answer into a typed value."""

from __future__ import annotations

import json
from typing import Any, TypeVar, overload

from .. import scripts
from ..logic.page_answers import ElementInfo, Loads, SnapshotAnswer, Tick, read_as, read_or
from ..logic.readiness import CHALLENGE_JS, Probe
from . import observe_js
from .page_driver import Call, Focused, Script

PROBE = Call(Script.PROBE, scripts.load("load_probe.js", CHALLENGE=CHALLENGE_JS), read_as(Probe))

PENDING_LOADS = Call(Script.PENDING_LOADS, scripts.load("pending_loads.js"), Loads.of)

# milliseconds (0: none left; None: no answer)
ANIMATIONS_LEFT = Call(Script.ANIMATIONS_LEFT, scripts.load("animations_left.js"), read_as(float))

SNAPSHOT = Call(Script.SNAPSHOT, scripts.load("snapshot.js"), read_as(SnapshotAnswer))

_FOCUS = scripts.load("focus_at.js", CARET_END=observe_js.CARET_END)

# [viewport width, viewport height, document width, document height]; zeros without an answer
DOC_SIZE = Call(
    Script.DOC_SIZE,
    scripts.load("doc_size.js"),
    read_or(tuple[int, int, int, int], (0, 0, 0, 0)),
)

INNER_HEIGHT = Call(Script.INNER_HEIGHT, "JSON.stringify(innerHeight)", read_as(int))

# the viewport's width and height; 800 x 600 without an answer
VIEWPORT = Call(
    Script.VIEWPORT,
    "JSON.stringify([innerWidth,innerHeight])",
    read_or(tuple[float, float], (800.0, 600.0)),
)

# whether the document's scroll position is the one its last animation frame drew (tick.js
# records it): a scroll the page made since may not have reached the compositor yet
SCROLL_DRAWN = Call(
    Script.SCROLL_DRAWN,
    "(function(){var I=window.__svcTick;return JSON.stringify(!I||I.sy===undefined||"
    "(I.sx===scrollX&&I.sy===scrollY));})()",
    read_or(bool, True),
)
READY_STATE = Call(Script.READY_STATE, "JSON.stringify(document.readyState)", read_as(str))

TICK = Call(Script.TICK, scripts.load("tick.js"), Tick.of)

A = TypeVar("A")
B = TypeVar("B")
C = TypeVar("C")

_SCROLL_OFFSETS = scripts.template("scroll_offsets.js")


def scroll_offsets(x: float, y: float) -> Call[list[float] | None]:
    """The scroll offsets of the document and of every element at (x, y) and above it: what a
    wheel turned there moves (a frame under the point moves inside, unseen here)."""
    code = scripts.fill(_SCROLL_OFFSETS, X=f"{x:.1f}", Y=f"{y:.1f}")
    return Call(Script.SCROLL_OFFSETS, code, read_as(list[float]), (x, y))


def element(index: int, tag: str) -> Call[ElementInfo | None]:
    """The element-info read of host_app/core/observe_js, for a node of the selector snapshot."""
    return observe_js.element_at(index, tag)


def focus(index: int, tag: str, end: bool = False) -> Call[Focused]:
    """Answers "no", "yes" or "end" (`observe_js.CARET_END`)."""
    code = f"{_FOCUS}({index},{json.dumps(tag)},{json.dumps(end)})"
    return Call(Script.FOCUS_AT, code, Focused.of, (index, tag, end))


# Several reads in one round trip (`together`): each part's answer, or null where the part threw
# or answered no string, so one part's failure is its own, as in a read of its own.
_PART_OPEN = "(function(){try{var r=("
_PART_CLOSE = ");return typeof r==='string'?r:'null'}catch(e){return 'null'}})()"
_JOIN = "+','+\n"
_OPEN = "'['+\n"
_CLOSE = "\n+']'"


def joined(*codes: str) -> str:
    """The text of `together`: one script answering a JSON array of the codes' answers."""
    return _OPEN + _JOIN.join(_PART_OPEN + c + _PART_CLOSE for c in codes) + _CLOSE


@overload
def together(a: Call[A], b: Call[B], /) -> Call[tuple[A, B]]: ...
@overload
def together(a: Call[A], b: Call[B], c: Call[C], /) -> Call[tuple[A, B, C]]: ...
def together(*calls: Call[Any]) -> Call[Any]:
    """The calls as one, answering each call's answer in order, as each call reads it (no
    answer, or one of another length: each reads none): the page runs them in one task, with
    no turn between them, and the host pays one round trip instead of one each (a step reads
    the page about fifteen times; each round trip is about half a millisecond). Its `args` are
    the calls, which a fake page answers one by one."""

    def read(raw: object) -> tuple[Any, ...]:
        answers = raw if isinstance(raw, list) and len(raw) == len(calls) else [None] * len(calls)
        return tuple(c.read(r) for c, r in zip(calls, answers, strict=True))

    # the parts' stubs where they have one: a part that answers UNKEPT has the whole sent again
    stub = joined(*(c.stub or c.code for c in calls)) if any(c.stub for c in calls) else None
    return Call(Script.TOGETHER, joined(*(c.code for c in calls)), read, calls, stub)


# The document as the isolated world serializes it: the fallback when toHtml() misses it.
OUTER_HTML = Call(Script.OUTER_HTML, scripts.load("outer_html.js"), read_as(str))
