"""When a pointer action may fire, and what to say when it may not (docs/decisions.md "Actions that
behave like a careful person"). Qt-free: the engine reads the target's state in the isolated world
and hands the plain values in.

Like Playwright's actionability checks, a click or hover waits until its target is visible, stable
(no running animation of its geometry, and the same box on two reads one animation frame
apart) and hit-testable at its center, for at most
ACTIONABILITY_WAIT seconds and never past the operation's deadline. A target that has left the
document is not waited for (spec 1 §4: a missing target fails at once).

Error rule: when the wait runs out, the state that blocks the action is one that goes away by
itself on ordinary pages (an overlay fading, a menu closing, a transition ending), so the failure
is retryable: ACTION_TIMEOUT when the actionability bound ran out, TIMEOUT when the operation's
own deadline cut the wait short (as for wait-for). Both name the covering element by role and
name, never by a selector.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from bridge_protocol import ErrorId, SvcError

ACTIONABILITY_WAIT = 5.0  # seconds a present target may take to become actionable
DEADLINE_MARGIN = 0.3  # the error must reach the agent before the operation's deadline fires
BOX_EPSILON = 0.01  # CSS px: a box that moved less than this between two frames is still

NOT_VISIBLE = "not_visible"
DISABLED = "disabled"
COVERED = "covered"
MOVING = "moving"

Box = tuple[float, float, float, float]


class Cover(msgspec.Struct, frozen=True, array_like=True):
    """The element at the target's click point: its role ("generic" without one) and its
    accessible name (for a generic element, the start of its rendered text). On the wire (an
    element's `cov`, logic/page_answers) `[role, name]`, the role empty without one."""

    role: str
    name: str

    def __post_init__(self) -> None:
        if not self.role:
            msgspec.structs.force_setattr(self, "role", "generic")

    def describe(self) -> str:
        return f'{self.role} "{self.name}"' if self.name else self.role

    def details(self) -> dict[str, str]:
        return {"role": self.role, "name": self.name}

    @classmethod
    def from_js(cls, v: Any) -> Cover | None:
        try:
            return msgspec.convert(v, cls)
        except msgspec.ValidationError:
            return None


@dataclass(frozen=True, slots=True)
class Sample:
    """One read of the target."""

    box: Box
    visible: bool
    hit: bool
    cover: Cover | None = None
    animating: bool = False  # a running or pending animation of its geometry
    disabled: bool = False  # a click's target that is disabled (a hover's never is)

    @property
    def rendered(self) -> bool:
        return self.visible and self.box[2] > 0 and self.box[3] > 0


def blocker(now: Sample, before: Sample | None) -> str | None:
    """Why the target may not be acted on yet (None: it may); `before` is the read one frame
    earlier (None for the first read, which cannot tell stillness yet)."""
    if not now.rendered:
        return NOT_VISIBLE
    if now.disabled:
        return DISABLED
    if not now.hit:
        return COVERED
    if now.animating or before is None or not _same(before.box, now.box):
        return MOVING
    return None


def _same(a: Box, b: Box) -> bool:
    return all(abs(x - y) < BOX_EPSILON for x, y in zip(a, b, strict=True))


@dataclass(frozen=True, slots=True)
class WaitBound:
    end: float  # loop time at which waiting stops
    by_deadline: bool  # the operation's deadline, not ACTIONABILITY_WAIT, sets `end`

    @classmethod
    def of(cls, now: float, deadline: float | None) -> WaitBound:
        own = now + ACTIONABILITY_WAIT
        if deadline is None or own <= deadline - DEADLINE_MARGIN:
            return cls(own, False)
        return cls(max(now, deadline - DEADLINE_MARGIN), True)


def not_actionable(
    what: str, reason: str, last: Sample, waited: float, bound: WaitBound, **ids: Any
) -> SvcError:
    """The error for a target that stayed unactionable until the bound (module docstring)."""
    waited_text = f"{waited:.1f} s"
    if reason == COVERED and last.cover is not None:
        cause = f"the element is covered by {last.cover.describe()}"
    elif reason == COVERED:
        cause = "the element is covered by another"
    elif reason == NOT_VISIBLE:
        cause = "the element is not rendered"
    elif reason == DISABLED:
        cause = "the element is disabled"
    else:
        cause = "the element kept moving"
    details: dict[str, Any] = {**ids, "reason": reason, "waited_s": round(waited, 2)}
    if reason == COVERED and last.cover is not None:
        details["covered_by"] = last.cover.details()
    if bound.by_deadline:
        return SvcError.of(
            ErrorId.TIMEOUT,
            f"{what}: {cause} when the operation's deadline came (waited {waited_text})",
            **details,
        )
    return SvcError.of(
        ErrorId.ACTION_TIMEOUT,
        f"{what}: {cause} (waited {waited_text} for it to become clickable; it may still change)",
        **details,
    )


def arrow_keys(enabled: list[int], current: int, target: int) -> list[str]:
    """The fewest keys that move a focused, closed single select from option `current` to
    `target` (indices into its options): arrows step over enabled options only, Home reaches the
    first enabled one and End the last. Each key is a change the page sees (an input and a change
    event) and a task the renderer runs: 17 arrows from the 2nd to the 19th of 20 options cost
    10 ms of the renderer and 17 change events, End and one arrow 2."""
    goal = enabled.index(target)
    routes: list[list[str]] = [["Home", *["ArrowDown"] * goal]]
    last = len(enabled) - 1
    routes.append(["End", *["ArrowUp"] * (last - goal)])
    if current in enabled:  # arrows first among routes as short (no jump the page sees)
        steps = goal - enabled.index(current)
        routes.insert(0, ["ArrowDown"] * steps if steps > 0 else ["ArrowUp"] * -steps)
    return min(routes, key=len)


# what one wheel event of 1,200 units scrolls: QtWebEngine turns 120 units into the platform's
# wheel scroll lines (Qt's default 3) of 20 px, 60 px (measured: 120, 600 and 1,200 units moved
# the page and a 300 px scroller 60, 300 and 600 px); runs learn the figure where it differs
WHEEL_PX = 600
MAX_WHEEL_PX = 2 * WHEEL_PX  # the most a full event is taken to scroll, whatever a run showed
BURST_MAX = 20  # wheel events sent between two reads of the target's bounds


def wheel_burst(distance: float, per_event: float = WHEEL_PX) -> int:
    """How many full wheel events to send before reading the target's bounds again (the run's
    last, partial event, `wheel_rest`, brings it the rest of the way); one when it is near. A
    person flinging a free-spinning wheel sends such runs; a read after every ~1,000 px made a
    link far down a long page take seconds to reach (a link at 60 % of python3-doc's
    whatsnew/3.11.html: 5.4 s a click, 1.2 s with runs), and runs that kept their last event's
    worth for single steps read a target 4,000 px down four times on the way (each read waits
    two frames). `per_event`: what one full event scrolls, as the last run showed
    (`per_wheel_event`); WHEEL_PX before any run."""
    return max(1, min(BURST_MAX, int(abs(distance) // max(per_event, MIN_WHEEL_PX))))


def wheel_rest(distance: float, events: int, per_event: float) -> float:
    """What is left of `distance` (signed) after `events` full events of `per_event` px, for
    the run's last event to move: 0 when the run covered it or was cut by BURST_MAX."""
    if events >= BURST_MAX:
        return 0.0
    rest = abs(distance) - events * max(per_event, MIN_WHEEL_PX)
    return 0.0 if rest < 1 else (rest if distance > 0 else -rest)


MIN_WHEEL_PX = 100  # the least a full wheel event is taken to scroll, whatever a run showed


def per_wheel_event(before: float, after: float, events: float, known: float) -> float:
    """What one full wheel event scrolled, from the target's distance to its goal before and
    after a run of `events` full events; `known` (the last figure) when the run did not bring
    it nearer (a page that moved meanwhile, a scroller at its end). Chromium scrolled ~600 px
    per event of 1,200 units here, not the 1,000 WHEEL_PX assumes: a target 4,000 px down took
    a run of three, then five single steps."""
    moved = abs(before) - abs(after)
    if events <= 0 or moved <= 0 or ((before > 0) != (after > 0) and after != 0):
        return known
    return min(MAX_WHEEL_PX, max(MIN_WHEEL_PX, moved / events))


def wheel_into(row: Box, client: Box) -> int:
    """The vertical wheel delta that brings an option row into its list box's client area
    (0 when its center is inside already); negative scrolls down, as Qt's angle delta does."""
    cy = row[1] + row[3] / 2
    top, bottom = client[1], client[1] + client[3]
    if top <= cy < bottom:
        return 0
    dy = cy - (top + bottom) / 2
    return -max(-1200, min(1200, round(dy * 1.2)))
