"""Scripts run in the isolated world (ScriptWorldId.ApplicationWorld): read-only, invisible to the
page's own scripts, each returning one JSON string. Their text is in host_app/scripts/, each file
saying what its script answers."""

from __future__ import annotations

import json

from .. import scripts
from ..logic.readiness import CHALLENGE_JS
from . import observe_js

PROBE = scripts.load("load_probe.js", CHALLENGE=CHALLENGE_JS)

PENDING_LOADS = scripts.load("pending_loads.js")

ANIMATIONS_LEFT = scripts.load("animations_left.js")

SNAPSHOT = scripts.load("snapshot.js")

_FOCUS = scripts.load("focus_at.js", CARET_END=observe_js.CARET_END)

DOC_SIZE = scripts.load("doc_size.js")

INNER_HEIGHT = "JSON.stringify(innerHeight)"

TICK = scripts.load("tick.js")

_SCROLL_OFFSETS = scripts.template("scroll_offsets.js")
# what every scroll_offsets script begins with
SCROLL_OFFSETS = _SCROLL_OFFSETS[: _SCROLL_OFFSETS.index("($X")]


def scroll_offsets(x: float, y: float) -> str:
    """The scroll offsets of the document and of every element at (x, y) and above it: what a
    wheel turned there moves (a frame under the point moves inside, unseen here)."""
    return scripts.fill(_SCROLL_OFFSETS, X=f"{x:.1f}", Y=f"{y:.1f}")


def element(index: int, tag: str) -> str:
    """The element-info read of host_app/core/observe_js, for a node of the selector snapshot."""
    return observe_js.element_at(index, tag)


def focus(index: int, tag: str, end: bool = False) -> str:
    """Answers "no", "yes" or "end" (`observe_js.CARET_END`)."""
    return f"{_FOCUS}({index},{json.dumps(tag)},{json.dumps(end)})"


# Several reads in one round trip (`together`): each part's answer, or null where the part threw
# or answered no string, so one part's failure is its own, as in a read of its own.
_PART_OPEN = "(function(){try{var r=("
_PART_CLOSE = ");return typeof r==='string'?r:'null'}catch(e){return 'null'}})()"
_JOIN = "+','+\n"
_OPEN = "'['+\n"
_CLOSE = "\n+']'"


def together(*parts: str) -> str:
    """One script answering a JSON array of the parts' answers, in order: the page runs them in
    one task, with no turn between them, and the host pays one round trip instead of one each
    (a step reads the page about fifteen times; each round trip is about half a
    millisecond)."""
    return _OPEN + _JOIN.join(_PART_OPEN + p + _PART_CLOSE for p in parts) + _CLOSE


def parts(code: str) -> list[str] | None:
    """The parts of a `together` script; None for any other script."""
    if not (code.startswith(_OPEN + _PART_OPEN) and code.endswith(_PART_CLOSE + _CLOSE)):
        return None
    inner = code[len(_OPEN) : -len(_CLOSE)].split(_PART_CLOSE + _JOIN + _PART_OPEN)
    inner[0] = inner[0].removeprefix(_PART_OPEN)
    inner[-1] = inner[-1].removesuffix(_PART_CLOSE)
    return inner


# The document as the isolated world serializes it: the fallback when toHtml() misses it.
OUTER_HTML = scripts.load("outer_html.js")
