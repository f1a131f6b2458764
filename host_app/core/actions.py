"""The one action executor (no Qt here): click, hover, type, clear, press and select on a
`Target`, whether a selector or a link named it (`DomTarget`, found in the DOM snapshot) or a ref
of an observation (`host_app.core.ref_target.RefTarget`, found through the locators kept for it).

The executor reads the element's live state and scrolls it into view only through its target,
and sends input to the target's page, so both kinds of target get the same waits for
actionability, the same keys and the same errors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, assert_never

from bridge_protocol import ErrorId, SvcError
from bridge_protocol.actions import (
    Clear,
    Click,
    ClickLink,
    Press,
    RefClear,
    RefClick,
    RefHover,
    RefPress,
    RefSelect,
    RefType,
    Select,
    Type,
)
from bridge_protocol.selectors import DomNode

from ..logic.actionability import (
    BURST_MAX,
    COVERED,
    DEADLINE_MARGIN,
    NOT_VISIBLE,
    WHEEL_PX,
    Box,
    Sample,
    WaitBound,
    arrow_keys,
    blocker,
    not_actionable,
    per_wheel_event,
    wheel_burst,
    wheel_into,
    wheel_rest,
)
from ..logic.page_answers import ElementInfo, Tick
from ..logic.typing_keys import strokes
from . import js
from .page_driver import Call, DomPage, Focused, Pointer, Snapshot, Target
from .progress import (
    INSERTED_SCRIPTS_WAIT,
    input_done,
    input_done_reading,
    loads_done,
    next_frame,
    pending_loads,
    scroll_done,
    tick,
)

MAX_SCROLL_STEPS = 40
MAX_DISTANCE_STEPS = 2000  # ~2,000,000 px: more than any page Chromium lays out
WHEEL_MAX_UNITS = 1200  # one wheel event's angle at most (ten notches)


Locator = Callable[[Snapshot], DomNode | None]


@dataclass(slots=True)
class DomTarget:
    """A target found in the page's DOM snapshot (a selector's first match, a link's best
    match), found again by `locate` in a fresh snapshot when the document changed under it."""

    page: DomPage
    node: DomNode
    locate: Locator
    what: str
    ids: dict[str, Any]

    async def element(self) -> ElementInfo | None:
        return await self.page.dom.element(self.node)

    def element_call(self) -> Call[ElementInfo | None] | None:
        return None  # the snapshot's node is read through the page's DOM reads

    def choice_call(self) -> Call[int | None] | None:
        return None

    def first_read(self) -> tuple[ElementInfo, Tick] | None:
        return None

    async def relocate(self) -> bool:
        found = self.locate(await self.page.dom.snapshot())
        if found is None:
            return False
        self.node = found
        return True

    async def focus(self, *, end: bool = False) -> tuple[Focused, Tick]:
        return await self.page.dom.focus(self.node, end), await tick(self.page)

    async def tag(self) -> str:
        return self.node.tag

    def wheel(self, x: float, y: float, dx: int, dy: int) -> None:
        self.page.input.wheel(x, y, dx, dy)


def _err(eid: ErrorId, message: str, **details: Any) -> SvcError:
    return SvcError.of(eid, message, **details)


# --- the executor ------------------------------------------------------------------------------

TargetedAction = (
    Click
    | ClickLink
    | Type
    | Clear
    | Press
    | Select
    | RefClick
    | RefHover
    | RefType
    | RefClear
    | RefPress
    | RefSelect
)


# PLR0912: one case per action kind
async def act(target: Target, action: TargetedAction, deadline: float) -> None:  # noqa: PLR0912
    """Run one action on its resolved target; a selector action and its ref twin take the same
    path."""
    match action:
        case (
            Click(mouse_move=move, scroll=scroll)
            | ClickLink(mouse_move=move, scroll=scroll)
            | RefClick(mouse_move=move, scroll=scroll)
        ):
            await click(target, mouse_move=move, scroll=scroll, deadline=deadline)
        case RefHover(scroll=scroll):
            await hover(target, scroll=scroll, deadline=deadline)
        case Type(text=text) | RefType(text=text):
            await engage_editor(target, deadline)
            loads = await pending_loads(target.page)
            info, caret, before = await focused_editable(target, end=True)
            if not info.focused:
                # a control that loads on its focus what its keys need (rustdoc's search box
                # fetches its index then, and drops keys that come before it ran)
                loop = target.page.loop
                end = min(loop.time() + INSERTED_SCRIPTS_WAIT, deadline - DEADLINE_MARGIN)
                await loads_done(target.page, loads.pending, end)
            if info.sink:
                # the sink's own text is not the editor's: the editor's caret goes to its end
                # by its own key binding, as a person's would
                await type_keys(target.page, before, text, end_key=True, ctrl=True)
                # and the editor draws it in its next animation frame (Ace's render loop): the
                # page's timers after input no longer wait for that frame (policy.engine_flags)
                await next_frame(target.page)
            elif caret is Focused.AT_END:
                await type_keys(target.page, before, text)
            else:
                textarea = await target.tag() == "textarea"
                await type_keys(
                    target.page, before, text, end_key=True, ctrl=info.value is None or textarea
                )
        case Clear() | RefClear():
            info = await element_info(target)
            if (info.multiple and info.rows is not None) or info.aria_options is not None:
                await clear_choices(target)
                return
            await engage_editor(target, deadline)
            info, _, before = await focused_editable(target)
            await clear_keys(target.page, before)
            if info.sink:  # drawn by the editor in its next frame, as typed text is
                await next_frame(target.page)
        case Press(key=key) | RefPress(key=key):
            await engage_editor(target, deadline)
            focused, before = await target.focus()
            if focused is Focused.NO:
                raise _err(
                    ErrorId.ACTION_TARGET_NOT_FOUND,
                    f"{target.what}: the element cannot take focus",
                    **target.ids,
                )
            await press_keys(target.page, [key], before=before)
        case Select(value=value) | RefSelect(value=value):
            await choose(target, value)
        case _:
            assert_never(action)


# --- the element's state -----------------------------------------------------------------------


async def element_info(target: Target) -> ElementInfo:
    """The element's live state; when the document changed since the target was found (indices
    moved), the target is found again."""
    return (await _element_counted(target, counters=False))[0]


async def _element_counted(target: Target, *, counters: bool) -> tuple[ElementInfo, Tick | None]:
    """`element_info`; with `counters`, the input counters read in the same round trip where
    the element is read in one (the `before` of the input that follows; None otherwise)."""
    first = target.first_read()
    if first is not None:
        target.page.input.targeted(first[0].box)
        return first
    for _ in range(3):
        call = target.element_call() if counters else None
        if call is None:
            info, now = await target.element(), None
        else:
            info, now = await target.page.run(js.together(call, js.TICK))
        if info is not None:
            target.page.input.targeted(info.box)
            return info, now
        if not await target.relocate():
            break
    raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{target.what}: the element left the document")


WHEEL_INSET = 12.0  # CSS px kept from the viewport's edges (scrollbars, a border)


async def _box_of(target: Target) -> Box | None:
    """The element's box as a scroll moves it (None: it left the document meanwhile)."""
    info = await target.element()
    return None if info is None else info.box


def scroll_goal(info: ElementInfo) -> tuple[float, float, Box]:
    """(x, y) to bring to the middle of `area`, where the wheel turns. Normally the element's
    center and its scrollport; when a clipping ancestor (a sidebar) is out of view, that
    ancestor's center and the viewport: the page scrolls it into view first."""
    port = info.scrollport()
    if port[2] > 0 and port[3] > 0:
        return info.cx, info.cy, port
    view: Box = (0.0, 0.0, info.vw, info.vh)
    if info.clip is None:
        return info.cx, info.cy, view
    x, y, w, h = info.clip
    return x + w / 2, y + h / 2, view


def wheel_units(distance: float, per_event: float = WHEEL_PX) -> int:
    """The wheel angle that moves content `distance` CSS px toward the middle (a negative delta
    scrolls down), WHEEL_MAX_UNITS moving `per_event` px; bounded per event."""
    units = round(distance * WHEEL_MAX_UNITS / max(per_event, 1.0))
    return -max(-WHEEL_MAX_UNITS, min(WHEEL_MAX_UNITS, units))


def wheel_point(x: float, y: float, area: Box) -> tuple[float, float]:
    """The point of `area` nearest to (x, y), WHEEL_INSET inside its edges (at most half its
    size): a person puts the pointer over the part of the page to scroll."""
    ax, ay, aw, ah = area
    ix, iy = min(WHEEL_INSET, aw / 2), min(WHEEL_INSET, ah / 2)
    return (
        min(max(x, ax + ix), max(ax + ix, ax + aw - ix)),
        min(max(y, ay + iy), max(ay + iy, ay + ah - iy)),
    )


async def reachable(target: Target, scroll: bool) -> tuple[ElementInfo, bool]:
    """The element's bounds once its center is in its scrollport (bounded wheel scrolling: each
    event moves at most ~1,000 px; reads that brought the target no nearer are bounded by
    MAX_SCROLL_STEPS, for pages that move meanwhile or a scroller that cannot go further, and
    all events by MAX_DISTANCE_STEPS). A bound on the events from the first distance alone
    failed a button 61,000 px down: the engine scrolled ~600 px per event there, not 1,000.
    With them, whether the last scroll brought it there and held it still for a frame."""
    what = target.what
    still = False
    events = stuck = 0
    nearest = float("inf")
    per_event: float = WHEEL_PX
    last_run: tuple[float, float] | None = None  # (dy, full events' worth) of a vertical run
    while stuck <= MAX_SCROLL_STEPS and events <= MAX_DISTANCE_STEPS:
        info = await element_info(target)
        if not info.visible or info.w <= 0 or info.h <= 0:
            raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is not rendered")
        if info.in_view():
            return info, still
        if not scroll:
            raise _err(
                ErrorId.ACTION_TARGET_NOT_FOUND,
                f"{what}: the element is outside the viewport and scroll is false",
            )
        gx, gy, area = scroll_goal(info)
        ax, ay, aw, ah = area
        dy = gy - (ay + ah / 2)
        dx = gx - (ax + aw / 2) if not ax <= gx < ax + aw else 0
        distance = max(abs(dy), abs(dx))
        if last_run is not None:
            per_event = per_wheel_event(last_run[0], dy, last_run[1], per_event)
        if distance < nearest - 1:
            nearest = distance
        else:
            stuck += 1
        wy = wheel_units(dy, per_event) if abs(dy) >= 1 else 0
        wx = wheel_units(dx, per_event) if abs(dx) >= 1 else 0
        # over the point of its scrollport nearest to it: a sidebar or panel that scrolls on its
        # own gets the wheel (at the viewport's center the document scrolled and a sticky
        # sidebar's link never came into view, and a link inside the viewport but below the
        # sidebar's scrollport was taken as in view and "covered"); a scroller at its end hands
        # the rest on to the page
        px, py = wheel_point(gx, gy, area)
        run = wheel_burst(distance, per_event)
        # full events, then one that moves the rest along the longer axis: the run ends where
        # the target is, read once (a read waits two frames)
        vertical = abs(dy) >= abs(dx)
        full = abs(wy if vertical else wx) == WHEEL_MAX_UNITS
        rest = (
            wheel_units(wheel_rest(dy if vertical else dx, run, per_event), per_event)
            if full
            else 0
        )
        # sent together, as a fast flick of a free wheel: the renderer coalesces the wheel
        # events of one frame into one scroll (4 ms apart, a run of seven spread over two
        # frames and 28 ms of pauses: a click 4,000 px down took 125 ms, 88 ms together)
        if events == 0 and not await target.page.run(js.SCROLL_DRAWN):
            # the page scrolled itself since its last frame (a click's handler scrolled to
            # the top): the compositor, which takes the wheel, still has the old position, and
            # a run sent now lost its first events against the page's end (one far click in
            # five scrolled 600 to 3,000 of 4,800 px and sent two more runs)
            await next_frame(target.page)
        for _ in range(run):
            target.wheel(px, py, wx, wy)
        if rest:
            target.wheel(px, py, 0 if vertical else rest, rest if vertical else 0)
        events += run + (1 if rest else 0)
        # what the run scrolled, in full events (the last one's share counted)
        sent = run + abs(rest) / WHEEL_MAX_UNITS
        last_run = (dy, sent) if full and vertical else None
        arrived = None
        if vertical and not wx and (run < BURST_MAX or not full):
            # the run is sized to put the target's center on the area's middle, or the
            # document's end on the way (a target near the end cannot be centred)
            end = (2 if dy > 0 else 1) if info.clip is None else 0
            arrived = partial(_arrived, y=ay + ah / 2, end=end)
        still = await scroll_done(
            target.page, partial(_box_end_of, target), (info.box, info.doc_end), arrived
        )
    raise _err(
        ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element could not be scrolled into view"
    )


async def _box_end_of(target: Target) -> tuple[Box, int] | None:
    """The element's box and its document's scroll ends (`ElementInfo.doc_end`) as a scroll
    moves it (None: it left the document meanwhile)."""
    info = await target.element()
    return None if info is None else (info.box, info.doc_end)


def _arrived(read: object, *, y: float, end: int) -> bool:
    """Whether a read (`_box_end_of`) shows the scroll of a wheel run over: the box's vertical
    center on `y` to the wheel's precision (one unit is half a pixel), where the run was sized
    to bring it, or the document at the `end` the run went toward (it can go no further). The
    frame that showed it ran the scroll to its end, and the box moved exactly as the scroll
    moved it: a second frame to see it held still (10-16 ms of every far click) proves nothing
    more."""
    if not isinstance(read, tuple) or len(read) != 2:
        return False
    box, doc_end = read
    return abs(box[1] + box[3] / 2 - y) <= 1.0 or bool(end and doc_end & end)


def centring_area(info: ElementInfo) -> Box:
    """Where `centred` puts the element in the middle: its clipping ancestor (a sidebar) when
    that is wholly in view vertically, else the viewport (a code block's horizontal scroller
    cut by the viewport's edge is moved by the page's scrolling)."""
    view: Box = (0.0, 0.0, info.vw, info.vh)
    if info.clip is None:
        return view
    _, y, _, h = info.clip
    return info.scrollport() if y >= 0 and y + h <= info.vh else view


async def centred(target: Target) -> None:
    """Wheels the element's center toward the middle of its scroller, as a person scrolls a
    control out from under a page's sticky header or footer: an element scrolled just into view
    at an edge stayed covered by it (the Node.js documentation's header, measured: its code
    blocks' copy buttons above the viewport failed after 5 s). Best effort: it stops within the
    middle half, or when a read brought the element no nearer (a scroller at its end)."""
    nearest = float("inf")
    for _ in range(MAX_SCROLL_STEPS):
        info = await element_info(target)
        px, py, pw, ph = info.scrollport()
        _, ay, _, ah = centring_area(info)
        if not info.visible or pw <= 0 or ph <= 0:
            return
        dy = info.cy - (ay + ah / 2)
        if abs(dy) <= ah / 4 or abs(dy) >= nearest - 1:
            return
        nearest = abs(dy)
        # over the visible part of its scroller: the element's own point is under the cover,
        # which may scroll on its own (a fixed panel)
        target.wheel(px + pw / 2, py + ph / 2, 0, wheel_units(dy))
        await scroll_done(target.page, partial(_box_of, target), info.box)


async def actionable(
    target: Target, *, scroll: bool, deadline: float | None, click: bool
) -> tuple[ElementInfo, Tick]:
    """The target once it is visible, in view, enabled (for a `click`: a hover shows a disabled
    control's tooltip), stable and hit at its center (logic/actionability:
    bounded wait, then ACTION_TIMEOUT or TIMEOUT naming the cover); a target that left the
    document fails at once with ACTION_TARGET_NOT_FOUND. With the input counters read with its
    last state (in its round trip where one read the element): the `before` of the input."""
    loop = target.page.loop
    start = loop.time()
    bound = WaitBound.of(start, deadline)
    before: Sample | None = None
    scrolled = recentred = False
    while True:
        info, counted = await _element_counted(target, counters=True)
        now = info.sample(click=click)
        reason = blocker(now, before)
        if reason == COVERED and scroll and not recentred and info.in_view():
            recentred = True
            await centred(target)
            before = None
            continue
        if reason != NOT_VISIBLE and not info.in_view() and loop.time() < bound.end:
            info, still = await reachable(target, scroll)
            if not scrolled:
                # the first scroll has its own bound: the wait for actionability starts in view
                scrolled = True
                start = loop.time()
                bound = WaitBound.of(start, deadline)
            # a scroll that ended held still for a frame showed the stillness the next read
            # would wait a frame for (16 ms of a far click)
            before = info.sample(click=click) if still else None
            continue
        if reason != NOT_VISIBLE and not info.in_view():
            raise _err(
                ErrorId.ACTION_TARGET_NOT_FOUND,
                f"{target.what}: the element keeps leaving the viewport",
            )
        if reason is None:
            return info, counted if counted is not None else await tick(target.page)
        if loop.time() >= bound.end and before is not None:
            raise not_actionable(target.what, reason, now, loop.time() - start, bound, **target.ids)
        before = now
        await next_frame(target.page)


async def engage_editor(target: Target, deadline: float) -> None:
    """A code editor's input sink not yet focused is clicked (on the editor, where a person
    clicks): an editor starts taking keys then, while Monaco ignores a focus() of its EditContext
    box. Any other element is left to the action's own focus."""
    info = await element_info(target)
    if info.sink and not info.focused and info.editable and not info.disabled:
        await click(target, mouse_move=True, scroll=True, deadline=deadline)


async def focused_editable(
    target: Target, *, end: bool = False
) -> tuple[ElementInfo, Focused, Tick]:
    """The editable target focused (with `end`, its caret at its end where it can be placed);
    its state before, how it took the focus and the input counters read after that."""
    what = target.what
    info = await element_info(target)
    if info.disabled:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is disabled")
    if info.readonly:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is read-only")
    if not info.editable:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is not editable")
    # an editor's sink holds a scrap of the editor's text at most: a caret set there is not the
    # editor's, and an editor may take a selection in its sink for one of its own
    caret, before = await target.focus(end=end and not info.sink)
    if caret is Focused.NO:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element cannot take focus")
    return info, caret, before


# --- pointer and keys --------------------------------------------------------------------------


async def click(target: Target, *, mouse_move: bool, scroll: bool, deadline: float) -> None:
    info, before = await actionable(target, scroll=scroll, deadline=deadline, click=True)
    target.page.input.mouse_click(info.cx, info.cy, mouse_move)
    await input_done(target.page, before, ups=1)


async def hover(target: Target, *, scroll: bool, deadline: float) -> None:
    info, before = await actionable(target, scroll=scroll, deadline=deadline, click=False)
    page = target.page
    # two moves, each dispatched before the next: Chromium coalesces moves within a frame
    page.input.mouse_move(info.cx + 1, info.cy + 1)
    await input_done(page, before, moves=1)
    before = await tick(page)
    page.input.mouse_move(info.cx, info.cy)
    await input_done(page, before, moves=1)


async def _click_at(page: Pointer, x: float, y: float, ctrl: bool) -> None:
    before = await tick(page)
    page.input.mouse_click(x, y, True, ctrl)
    await input_done(page, before, ups=1)


async def press_keys(
    page: Pointer, keys: list[str], *, ctrl: bool = False, before: Tick | None = None
) -> None:
    """The keys pressed, until the page dispatched them; `before`: the counters read since the
    last input (the focus's), or read here."""
    await input_done(page, await _pressed(page, keys, ctrl, before), keys=len(keys))


async def _pressed(page: Pointer, keys: list[str], ctrl: bool, before: Tick | None) -> Tick:
    """The keys sent; the counters read before them."""
    if before is None:
        before = await tick(page)
    for k in keys:
        page.input.key(k, ctrl=ctrl)
    return before


async def _keys_then_choice(target: Target, keys: list[str], before: Tick | None) -> int:
    """The keys pressed on the focused select, then its chosen option. A target read in one
    call goes with the read of the counters that shows the keys dispatched (a select's step
    read its choice again after that, a round trip of its eight)."""
    call = target.choice_call()
    if call is None:
        await press_keys(target.page, keys, before=before)
        return (await element_info(target)).selected
    before = await _pressed(target.page, keys, False, before)
    chosen = await input_done_reading(target.page, before, call, keys=len(keys))
    return chosen if chosen is not None else (await element_info(target)).selected


async def type_keys(
    page: Pointer, before: Tick, text: str, *, end_key: bool = False, ctrl: bool = False
) -> None:
    """The text typed key by key at the caret. `end_key` first moves the caret to the end with a
    real key (ctrl+End with `ctrl`: a multi-line control), for a control whose caret the focus
    could not place (an email or a number input has no selection API). `before`: the counters
    read after the focus."""
    if end_key:
        page.input.key("End", ctrl=ctrl)
    page.input.type_text(text)
    keys = len(strokes(text)) + end_key
    await input_done(page, before, keys=keys)


async def clear_keys(page: Pointer, before: Tick) -> None:
    page.input.key("A", ctrl=True)
    page.input.key("Delete")
    await input_done(page, before, keys=2)


# --- choices -----------------------------------------------------------------------------------


async def choose(target: Target, value: str) -> None:
    """`select`: a single select moves to the option with real keys (all at once, then checked);
    a list box that allows several (select multiple, multi-selectable ARIA listbox) adds the
    option with ctrl+click on its row (docs/decisions.md)."""
    what = target.what
    info = await element_info(target)
    if info.aria_options is not None:
        await _choose_aria(target, info, name=value)
        return
    if info.options is None:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: not a select element")
    if info.disabled:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is disabled")
    enabled = [i for i, (_, off) in enumerate(info.options) if not off]
    wanted = [i for i in enabled if info.options[i][0] == value]
    if not wanted:
        raise _err(
            ErrorId.ACTION_TARGET_NOT_FOUND,
            f"{what}: no enabled option has the value {value!r}",
            value=value,
        )
    chosen = wanted[0]
    if info.multiple and info.rows is not None:
        if not info.rows[chosen].selected:
            info = await _click_row(target, chosen, ctrl=True)
        if info.rows is None or not info.rows[chosen].selected:
            raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: could not add {value!r}")
        return
    if info.selected == chosen:
        return
    focused, before = await target.focus()
    if focused is Focused.NO:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element cannot take focus")
    # Arrow keys on a focused, closed select move over enabled options and fire input/change.
    now = await _keys_then_choice(target, arrow_keys(enabled, info.selected, chosen), before)
    for _ in range(len(enabled) + 1):  # a page that moved the selection meanwhile
        if now == chosen:
            return
        now = await _keys_then_choice(target, arrow_keys(enabled, now, chosen)[:1], None)
    raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: could not choose {value!r}")


async def _choose_aria(target: Target, info: ElementInfo, *, name: str) -> None:
    """A multi-selectable ARIA listbox: its options are matched by accessible name."""
    assert info.aria_options is not None
    wanted = [i for i, o in enumerate(info.aria_options) if o.name == name and not o.disabled]
    if not wanted:
        raise _err(
            ErrorId.ACTION_TARGET_NOT_FOUND,
            f"{target.what}: no enabled option is named {name!r}",
            value=name,
        )
    chosen = wanted[0]
    if not info.aria_options[chosen].selected:
        info = await _click_row(target, chosen, ctrl=True)
    if info.aria_options is None or not info.aria_options[chosen].selected:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{target.what}: could not add {name!r}")


def _rows(info: ElementInfo) -> list[tuple[Box, bool]]:
    if info.aria_options is not None:
        return [(o.box, o.selected) for o in info.aria_options]
    return [(r.box, r.selected) for r in info.rows or []]


async def _click_row(target: Target, row: int, *, ctrl: bool) -> ElementInfo:
    """Click the list box's option row `row` (wheel-scrolled into the client area first); the
    list box's state after the click."""
    info, _ = await reachable(target, True)
    for _ in range(MAX_SCROLL_STEPS):
        rows = _rows(info)
        if row >= len(rows) or info.client is None:
            break
        box = rows[row][0]
        dy = wheel_into(box, info.client)
        if dy == 0:
            await _click_at(
                target.page, box[0] + min(box[2], info.client[2]) / 2, box[1] + box[3] / 2, ctrl
            )
            return await element_info(target)
        target.wheel(
            info.client[0] + info.client[2] / 2, info.client[1] + info.client[3] / 2, 0, dy
        )
        await next_frame(target.page)
        info = await element_info(target)
    raise _err(
        ErrorId.ACTION_TARGET_NOT_FOUND,
        f"{target.what}: the option could not be scrolled into view",
    )


async def clear_choices(target: Target) -> None:
    """`clear` on a list box that allows several choices: deselect all (a plain click on one
    chosen row keeps only it, a ctrl+click on it drops it; an ARIA listbox gets a ctrl+click
    per chosen option)."""
    info = await element_info(target)
    if info.disabled:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{target.what}: the element is disabled")
    if info.aria_options is not None:
        for _ in range(len(info.aria_options)):
            chosen = [i for i, o in enumerate(info.aria_options or []) if o.selected]
            if not chosen:
                return
            info = await _click_row(target, chosen[0], ctrl=True)
    else:
        chosen = [i for i, r in enumerate(info.rows or []) if r.selected]
        if not chosen:
            return
        info = await _click_row(target, chosen[0], ctrl=False)
        info = await _click_row(target, chosen[0], ctrl=True)
    if any(sel for _, sel in _rows(info)):
        raise _err(
            ErrorId.ACTION_TARGET_NOT_FOUND, f"{target.what}: could not deselect every option"
        )
