"""The engine operations of docs/bridge.md as coroutines over a `PageDriver` (no Qt here).

`host_app.engine.SessionBrowser` implements `PageDriver` with QtWebEngine; each method returns a
`Future` that a Qt signal or timer resolves. Deadlines and cancellation are exceptions thrown into
the coroutine at its current await; the `finally` blocks stop the browser work they started.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from bridge_protocol import (
    ApiError,
    AttachAnswer,
    CaptureAnswer,
    ErrorId,
    ScreenshotAnswer,
    SvcError,
    Timings,
    outputs,
)
from bridge_protocol.actions import (
    Action,
    Clear,
    Click,
    ClickLink,
    Press,
    Select,
    Type,
    Wait,
    WaitFor,
)
from bridge_protocol.answers import ImageFormat
from bridge_protocol.selectors import (
    DomNode,
    SelectorError,
    SelectorList,
    parse_selector,
    query_first,
)

from . import js
from .logic import aio
from .logic.actionability import (
    NOT_VISIBLE,
    Box,
    Cover,
    Sample,
    WaitBound,
    arrow_keys,
    blocker,
    not_actionable,
    wheel_into,
)
from .logic.downloads import Mark
from .logic.images import MIME, check_bounds
from .logic.links import best_link, normalize_url, same_document
from .logic.readiness import (
    Failed,
    Probe,
    Readiness,
    Ready,
    html_is_unread,
    is_skeleton,
    settle_restarts,
)

PROBE_INTERVAL = 0.05
SETTLE_PROBE_INTERVAL = 0.1
WAIT_FOR_INTERVAL = 0.1
MAX_SCROLL_STEPS = 40
MAX_DISTANCE_STEPS = 2000  # ~2,000,000 px: more than any page Chromium lays out
SCROLL_SETTLE = 0.12


@dataclass(slots=True)
class ElementInfo:
    x: float
    y: float
    w: float
    h: float
    vw: float
    vh: float
    visible: bool
    disabled: bool
    readonly: bool
    editable: bool
    focused: bool
    hit: bool  # elementFromPoint(center) is the element or inside it
    value: str | None
    options: list[tuple[str, bool]] | None  # select: (value, disabled)
    selected: int
    multiple: bool
    cover: Cover | None = None  # the element at the center when it is not this one
    rows: list[tuple[Box, bool]] | None = None  # list box options: (box, selected)
    client: Box | None = None  # a list box's client area
    aria_options: list[tuple[str, bool, bool, Box]] | None = None  # (name, selected, disabled, box)
    animating: bool = False  # a running or pending animation of its (or an ancestor's) geometry

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    def in_view(self) -> bool:
        return 0 <= self.cx < self.vw and 0 <= self.cy < self.vh and self.w > 0 and self.h > 0

    @classmethod
    def from_js(cls, v: dict[str, Any]) -> ElementInfo:
        """From the isolated-world element script's compact answer (host_app/js.py)."""
        opts = v.get("o")
        return cls(
            x=float(v["x"]),
            y=float(v["y"]),
            w=float(v["w"]),
            h=float(v["h"]),
            vw=float(v["vw"]),
            vh=float(v["vh"]),
            visible=bool(v["vis"]),
            disabled=bool(v["dis"]),
            readonly=bool(v["ro"]),
            editable=bool(v["ed"]),
            focused=bool(v["f"]),
            hit=bool(v["hit"]),
            value=v.get("v"),
            options=None if opts is None else [(str(a), bool(b)) for a, b in opts],
            selected=int(v.get("si", -1)),
            multiple=bool(v.get("m")),
            cover=Cover.from_js(v.get("cov")),
            animating=bool(v.get("an")),
            rows=None
            if v.get("op") is None
            else [((float(a), float(b), float(c), float(d)), bool(e)) for a, b, c, d, e in v["op"]],
            client=None if v.get("cb") is None else _box(v["cb"]),
            aria_options=None
            if v.get("ao") is None
            else [(str(n), bool(sl), bool(ds), _box(rest)) for n, sl, ds, *rest in v["ao"]],
        )

    def sample(self) -> Sample:
        return Sample(
            (self.x, self.y, self.w, self.h), self.visible, self.hit, self.cover, self.animating
        )


def _box(v: list[Any]) -> Box:
    return (float(v[0]), float(v[1]), float(v[2]), float(v[3]))


@dataclass(slots=True)
class Snapshot:
    nodes: list[DomNode]
    hrefs: list[tuple[int, str]]  # anchors' resolved hrefs (index, href)


class Downloads(Protocol):
    """A session's downloads as an operation waits for them (host_app/downloads.py)."""

    def mark(self) -> Mark: ...
    async def settle(self, mark: Mark, deadline: float, *, clicked: bool = False) -> None: ...


class PageDriver(Protocol):
    @property
    def loop(self) -> aio.Loop: ...
    @property
    def paused(self) -> bool: ...

    @property
    def load_starts(self) -> int:
        """Incremented at every main-frame loadStarted of the current page, and when another
        page (a popup, its opener) becomes current."""
        ...

    @property
    def loading(self) -> bool:
        """A main-frame load of the current page is under way."""
        ...

    failure: tuple[int, str, str] | None  # (load_starts at failure, message, url)
    last_status: int | None

    def probe(self) -> aio.Future[Probe]: ...
    def load(self, url: str) -> None: ...
    def history(self, how: str) -> bool: ...
    def stop(self) -> None: ...
    def snapshot(self) -> aio.Future[Snapshot]: ...
    def element(self, node: DomNode) -> aio.Future[ElementInfo | None]: ...
    def focus(self, node: DomNode) -> aio.Future[bool]: ...
    def run_js(self, code: str) -> aio.Future[Any]: ...
    def mouse_click(self, x: float, y: float, move: bool, ctrl: bool = False) -> None: ...
    def wheel(self, x: float, y: float, dx: int, dy: int) -> None: ...
    def key(self, name: str, ctrl: bool = False) -> None: ...
    def type_text(self, text: str) -> None: ...
    def to_html(self) -> aio.Future[str]: ...
    def traffic_bytes(self) -> aio.Future[int]: ...
    def document_size(self) -> aio.Future[tuple[int, int, int, int]]: ...
    def grab(self, full_page: bool, height: int) -> aio.Future[Any]: ...
    def save_image(self, image: Any, path: str, fmt: str, quality: int | None) -> int: ...
    def title(self) -> str: ...
    def selected(self) -> None: ...
    @property
    def downloads(self) -> Downloads: ...


@dataclass(slots=True)
class Options:
    wait_for_bot_challenge: bool = True


def _err(eid: ErrorId, message: str, **details: Any) -> SvcError:
    return SvcError.of(eid, message, **details)


# --- navigation -------------------------------------------------------------------------------


async def navigate(
    page: PageDriver, how: str, url: str | None, *, strict: bool, opts: Options
) -> Ready:
    """Start a navigation and wait for main-frame readiness (rules 6-8)."""
    if page.paused:
        raise _err(ErrorId.NETWORK_PAUSED, "the session's network is paused; play it first")
    page.selected()
    old = await page.probe()
    previous = page.last_status
    if how == "url":
        assert url is not None
        target = normalize_url(url) or url
        if old.href and "#" in target and same_document(old.href, target) and target != old.href:
            r = Readiness(
                "same-document", old=old, previous_status=previous, target=target, strict=strict
            )
        else:
            r = Readiness(
                "url",
                old=old,
                previous_status=previous,
                target=target,
                strict=strict,
                challenge_wait=opts.wait_for_bot_challenge,
            )
        page.load(target)
    else:
        r = Readiness(
            "history" if how in ("back", "forward") else "reload",
            old=old,
            previous_status=previous,
            strict=strict,
            challenge_wait=opts.wait_for_bot_challenge,
        )
        if not page.history(how):
            # nothing to go back or forward to: the page stays as it is
            return Ready(old.href, old.title, previous, old.origin)
    return await _await_ready(page, r)


async def _await_ready(page: PageDriver, r: Readiness) -> Ready:
    starts = page.load_starts
    done = False
    try:
        while True:
            if page.paused:
                raise _err(
                    ErrorId.NETWORK_PAUSED, "the session was paused while the navigation ran"
                )
            if page.load_starts != starts:
                starts = page.load_starts
                r.started()
            failure = page.failure
            if failure is not None and failure[0] >= starts and r.committed is None:
                page.failure = None
                raise SvcError(_failed(r, failure))
            p = await page.probe()
            outcome = r.probe(p, page.loop.time())
            if isinstance(outcome, Ready):
                page.last_status = outcome.status
                done = True
                return outcome
            if isinstance(outcome, Failed):
                if r.committed is not None:
                    page.last_status = r.committed.status or None
                done = True
                raise SvcError(outcome.error)
            await aio.sleep(page.loop, PROBE_INTERVAL)
    finally:
        if not done:
            page.stop()


def _failed(r: Readiness, failure: tuple[int, str, str]) -> ApiError:
    _, message, url = failure
    if "BLOCKED_BY_CLIENT" in message.upper():
        return ApiError.of(ErrorId.NETWORK_PAUSED, "the session's network is paused")
    outcome = r.load_failed(message, url)
    assert isinstance(outcome, Failed)
    return outcome.error


async def settle(
    page: PageDriver, ready: Ready, wait: float, *, strict: bool, opts: Options
) -> Ready:
    """Wait `wait` seconds after readiness; restart when another main-frame navigation begins."""
    while True:
        end = page.loop.time() + wait
        starts = page.load_starts
        restarted = False
        while page.loop.time() < end:
            await aio.sleep(page.loop, min(SETTLE_PROBE_INTERVAL, max(0.0, end - page.loop.time())))
            if page.load_starts != starts:
                restarted = True
                break
            if wait >= SETTLE_PROBE_INTERVAL:
                p = await page.probe()
                if settle_restarts(ready, p):
                    restarted = True
                    break
        if not restarted:
            return ready
        old = Probe(ready.url, "complete", 1, 0, ready.origin, ready.title)
        r = Readiness(
            "url",
            old=old,
            previous_status=ready.status,
            strict=strict,
            challenge_wait=opts.wait_for_bot_challenge,
        )
        r.started()
        ready = await _await_ready(page, r)


async def current(page: PageDriver) -> Ready:
    p = await page.probe()
    return Ready(p.href, p.title, page.last_status, p.origin)


# --- actions ----------------------------------------------------------------------------------


def _selector(text: str) -> SelectorList:
    try:
        return parse_selector(text)
    except SelectorError as exc:
        raise _err(ErrorId.VALIDATION_FAILED, str(exc), selector=text) from None


async def _find(page: PageDriver, text: str) -> tuple[DomNode, Locator]:
    sel = _selector(text)
    snap = await page.snapshot()
    node = query_first(snap.nodes, sel)
    if node is None:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"no element matches {text!r}", selector=text)
    return node, _by_selector(sel)


Locator = Callable[[Snapshot], DomNode | None]


async def _info(
    page: PageDriver, node: DomNode, locate: Locator, what: str
) -> tuple[DomNode, ElementInfo]:
    """The element's live state; when the document changed since the snapshot (indices moved),
    the target is located again in a fresh snapshot."""
    for _ in range(3):
        info = await page.element(node)
        if info is not None:
            return node, info
        found = locate(await page.snapshot())
        if found is None:
            break
        node = found
    raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element left the document")


def _by_selector(sel: SelectorList) -> Locator:
    return lambda snap: query_first(snap.nodes, sel)


async def _reachable(
    page: PageDriver, node: DomNode, locate: Locator, scroll: bool, what: str
) -> tuple[DomNode, ElementInfo]:
    """The element's bounds once its center is in the viewport (bounded wheel scrolling: each
    event moves at most ~1,000 px, and the number of events is bounded by the distance to the
    target when it was first seen, plus MAX_SCROLL_STEPS for pages that move meanwhile)."""
    steps, budget = 0, MAX_SCROLL_STEPS
    while steps <= budget:
        steps += 1
        node, info = await _info(page, node, locate, what)
        if not info.visible or info.w <= 0 or info.h <= 0:
            raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is not rendered")
        if info.in_view():
            return node, info
        if not scroll:
            raise _err(
                ErrorId.ACTION_TARGET_NOT_FOUND,
                f"{what}: the element is outside the viewport and scroll is false",
            )
        dy = info.cy - info.vh / 2
        dx = info.cx - info.vw / 2 if not 0 <= info.cx < info.vw else 0
        if steps == 1:
            # A target far down a long page needs more events than a near one.
            budget += min(MAX_DISTANCE_STEPS, int(max(abs(dy), abs(dx)) // 1000))
        # Chromium scrolls ~100 CSS px per 120 units of wheel angle; bounded per event
        wy = -max(-1200, min(1200, round(dy * 1.2))) if abs(dy) >= 1 else 0
        wx = -max(-1200, min(1200, round(dx * 1.2))) if abs(dx) >= 1 else 0
        page.wheel(info.vw / 2, info.vh / 2, wx, wy)
        await aio.sleep(page.loop, SCROLL_SETTLE)
    raise _err(
        ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element could not be scrolled into view"
    )


# --- renderer progress: waiting on real signals ------------------------------------------------

FRAME_WAIT = 0.1  # a page that renders no frames (hidden) is not waited for longer than this
TICK_POLL = 0.002
# Input the counters cannot see (a cross-origin frame) is taken as dispatched once both
# INPUT_ACK_FRAMES frames and INPUT_ACK_IDLE seconds passed with no new count (a loaded renderer
# may take several frames to receive input), and at the latest after INPUT_ACK_MAX.
INPUT_ACK_FRAMES = 3
INPUT_ACK_IDLE = 0.15
INPUT_ACK_MAX = 1.0


class Renderer(Protocol):
    """What the progress waits need of a page."""

    @property
    def loop(self) -> aio.Loop: ...
    def run_js(self, code: str) -> aio.Future[Any]: ...


@dataclass(frozen=True, slots=True)
class Tick:
    """The renderer's counters (host_app/js.py TICK)."""

    document: float
    frames: int
    moves: int
    ups: int
    keys: int
    submitting: bool
    # a click on an `<a download>` in the last 2 s that the page did not cancel: Chromium
    # fetches it without a load, and announces the download only later
    download_click: bool = False

    @classmethod
    def of(cls, v: Any) -> Tick:
        if isinstance(v, list) and len(v) == 7:
            return cls(
                float(v[0]), int(v[1]), int(v[2]), int(v[3]), int(v[4]), bool(v[5]), bool(v[6])
            )
        return cls(-1.0, 0, 0, 0, 0, False)


async def tick(page: Renderer) -> Tick:
    return Tick.of(await page.run_js(js.TICK))


DOWNLOAD_CLICK_READ = 0.5


async def download_clicked(page: Renderer) -> bool:
    """Whether the batch clicked an `<a download>` the page did not cancel. Bounded: after a
    click that opened a popup this reads a page that may be replacing its first document, and
    the engine may never answer a script sent to a frame that went away."""
    read = aio.within(page.loop, page.run_js(js.TICK), DOWNLOAD_CLICK_READ, None)
    return Tick.of(await read).download_click


async def next_frame(page: Renderer) -> None:
    """Until the renderer has run one animation frame after this call (a requestAnimationFrame
    round trip in the isolated world): style, layout and rAF-aligned input of that frame are
    done."""
    first = await tick(page)
    end = page.loop.time() + FRAME_WAIT
    while page.loop.time() < end:
        await aio.sleep(page.loop, TICK_POLL)
        now = await tick(page)
        if now.frames != first.frames or now.document != first.document:
            return


async def input_done(
    page: Renderer, before: Tick, *, moves: int = 0, ups: int = 0, keys: int = 0
) -> None:
    """Until the renderer has dispatched the input sent since `before` (counted by the isolated
    world's listeners; the page's handlers for it have run when the count shows), or another
    document took over; input the counters cannot see ends the wait when nothing more comes
    (INPUT_ACK_* above)."""
    end = page.loop.time() + INPUT_ACK_MAX
    last = before
    idle_since = before.frames
    idle_at = page.loop.time()
    while True:
        now = await tick(page)
        if now.document != before.document:
            return
        if (
            now.moves - before.moves >= moves
            and now.ups - before.ups >= ups
            and now.keys - before.keys >= keys
        ):
            return
        if (now.moves, now.ups, now.keys) != (last.moves, last.ups, last.keys):
            idle_since, idle_at = now.frames, page.loop.time()
        last = now
        t = page.loop.time()
        idle = now.frames - idle_since >= INPUT_ACK_FRAMES and t - idle_at >= INPUT_ACK_IDLE
        if idle or t >= end:
            return
        await aio.sleep(page.loop, TICK_POLL)


NAV_START_WAIT = 1.0


class Loading(Renderer, Protocol):
    @property
    def load_starts(self) -> int: ...
    @property
    def loading(self) -> bool: ...


async def navigation_started(page: Loading, starts: int) -> bool:
    """After input: did it start a main-frame navigation? A link or script navigation shows as a
    load start within one animation frame; a form submission the page did not cancel is
    scheduled, so its load start is awaited (bounded: a submission into another window never
    starts one here)."""
    await next_frame(page)
    if page.load_starts != starts or page.loading:
        return True
    if not (await tick(page)).submitting:
        return False
    end = page.loop.time() + NAV_START_WAIT
    while page.loop.time() < end:
        await aio.sleep(page.loop, PROBE_INTERVAL / 5)
        if page.load_starts != starts or page.loading:
            return True
    return False


# --- pointer actions --------------------------------------------------------------------------


async def actionable(
    page: PageDriver,
    node: DomNode,
    locate: Locator,
    *,
    scroll: bool,
    what: str,
    deadline: float | None,
    ids: dict[str, Any],
) -> tuple[DomNode, ElementInfo]:
    """The target once it is visible, in view, stable and hit at its center (logic/actionability:
    bounded wait, then ACTION_TIMEOUT or TIMEOUT naming the cover); a target that left the
    document fails at once with ACTION_TARGET_NOT_FOUND."""
    start = page.loop.time()
    bound = WaitBound.of(start, deadline)
    before: Sample | None = None
    scrolled = False
    while True:
        node, info = await _info(page, node, locate, what)
        now = info.sample()
        reason = blocker(now, before)
        if reason != NOT_VISIBLE and not info.in_view() and page.loop.time() < bound.end:
            node, info = await _reachable(page, node, locate, scroll, what)
            if not scrolled:
                # the first scroll has its own bound: the wait for actionability starts in view
                scrolled = True
                start = page.loop.time()
                bound = WaitBound.of(start, deadline)
            before = None
            continue
        if reason != NOT_VISIBLE and not info.in_view():
            raise _err(
                ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element keeps leaving the viewport"
            )
        if reason is None:
            return node, info
        if page.loop.time() >= bound.end and before is not None:
            raise not_actionable(what, reason, now, page.loop.time() - start, bound, **ids)
        before = now
        await next_frame(page)


async def _click_node(
    page: PageDriver,
    node: DomNode,
    locate: Locator,
    *,
    mouse_move: bool,
    scroll: bool,
    what: str,
    deadline: float | None = None,
    ids: dict[str, Any] | None = None,
) -> None:
    _, info = await actionable(
        page, node, locate, scroll=scroll, what=what, deadline=deadline, ids=ids or {}
    )
    before = await tick(page)
    page.mouse_click(info.cx, info.cy, mouse_move)
    await input_done(page, before, ups=1)


async def _click_at(page: PageDriver, x: float, y: float, ctrl: bool) -> None:
    before = await tick(page)
    page.mouse_click(x, y, True, ctrl)
    await input_done(page, before, ups=1)


async def press_keys(page: PageDriver, keys: list[str], *, ctrl: bool = False) -> None:
    before = await tick(page)
    for k in keys:
        page.key(k, ctrl=ctrl)
    await input_done(page, before, keys=len(keys))


async def type_keys(page: PageDriver, text: str, *, end_ctrl: bool) -> None:
    """Append: the caret goes to the end with a real key (ctrl+End in a multi-line control),
    then the text is typed key by key."""
    before = await tick(page)
    page.key("End", ctrl=end_ctrl)
    page.type_text(text)
    # QTest types one key per UTF-16 unit
    await input_done(page, before, keys=1 + len(text.encode("utf-16-le")) // 2)


async def clear_keys(page: PageDriver) -> None:
    before = await tick(page)
    page.key("A", ctrl=True)
    page.key("Delete")
    await input_done(page, before, keys=2)


async def _focused_editable(
    page: PageDriver, node: DomNode, locate: Locator, what: str
) -> tuple[DomNode, ElementInfo]:
    node, info = await _info(page, node, locate, what)
    if info.disabled:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is disabled")
    if info.readonly:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is read-only")
    if not info.editable:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is not editable")
    if not await page.focus(node):
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element cannot take focus")
    return node, info


async def run_action(page: PageDriver, action: Action, deadline: float) -> None:
    if isinstance(action, Wait):
        await aio.sleep(page.loop, action.seconds)
    elif isinstance(action, Click):
        node, locate = await _find(page, action.selector)
        await _click_node(
            page,
            node,
            locate,
            mouse_move=action.mouse_move,
            scroll=action.scroll,
            what="click",
            deadline=deadline,
            ids={"selector": action.selector},
        )
    elif isinstance(action, ClickLink):
        snap = await page.snapshot()
        found = best_link(action.link, snap.hrefs, action.match.threshold)
        if found is None:
            raise _err(
                ErrorId.ACTION_TARGET_NOT_FOUND,
                f"no link matches {action.link!r} at threshold {action.match.threshold}",
                link=action.link,
            )
        node = snap.nodes[found[0]]
        href = found[1]

        def by_href(snap: Snapshot) -> DomNode | None:
            for index, h in snap.hrefs:
                if h == href:
                    return snap.nodes[index]
            return None

        await _click_node(
            page,
            node,
            by_href,
            mouse_move=action.mouse_move,
            scroll=action.scroll,
            what="click-link",
            deadline=deadline,
            ids={"link": action.link},
        )
    elif isinstance(action, WaitFor):
        sel = _selector(action.selector)
        own = None if action.timeout is None else page.loop.time() + action.timeout
        while True:
            snap = await page.snapshot()
            if query_first(snap.nodes, sel) is not None:
                return
            now = page.loop.time()
            if own is not None and own <= deadline and now >= own:
                raise _err(
                    ErrorId.ACTION_TIMEOUT,
                    f"wait-for {action.selector!r}: no match within {action.timeout} s",
                    selector=action.selector,
                )
            await aio.sleep(page.loop, WAIT_FOR_INTERVAL)
    elif isinstance(action, Type):
        node, locate = await _find(page, action.selector)
        node, info = await _focused_editable(page, node, locate, "type")
        await type_keys(page, action.text, end_ctrl=info.value is None or node.tag == "textarea")
    elif isinstance(action, Clear):
        node, locate = await _find(page, action.selector)
        node, info = await _info(page, node, locate, "clear")
        if (info.multiple and info.rows is not None) or info.aria_options is not None:
            await clear_choices(page, node, locate, "clear")
            return
        await _focused_editable(page, node, locate, "clear")
        await clear_keys(page)
    elif isinstance(action, Press):
        node, locate = await _find(page, action.selector)
        node, _ = await _info(page, node, locate, "press")
        if not await page.focus(node):
            raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, "press: the element cannot take focus")
        await press_keys(page, [action.key])
    elif isinstance(action, Select):
        await _select(page, action)
    else:  # pragma: no cover - the union is closed
        raise _err(ErrorId.VALIDATION_FAILED, f"unsupported action {action!r}")


async def _select(page: PageDriver, action: Select) -> None:
    node, locate = await _find(page, action.selector)
    if node.tag != "select":
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, "select: the target is not a select element")
    await choose(page, node, locate, action.value, "select")


async def choose(page: PageDriver, node: DomNode, locate: Locator, value: str, what: str) -> None:
    """`select`: a single select moves to the option with real keys (all at once, then checked);
    a list box that allows several (select multiple, multi-selectable ARIA listbox) adds the
    option with ctrl+click on its row (docs/decisions.md)."""
    node, info = await _info(page, node, locate, what)
    if info.aria_options is not None:
        await _choose_aria(page, node, locate, info, name=value, what=what)
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
    target = wanted[0]
    if info.multiple and info.rows is not None:
        if not info.rows[target][1]:
            node, info = await _click_row(page, node, locate, target, ctrl=True, what=what)
        if info.rows is None or not info.rows[target][1]:
            raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: could not add {value!r}")
        return
    if info.selected == target:
        return
    if not await page.focus(node):
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element cannot take focus")
    # Arrow keys on a focused, closed select move over enabled options and fire input/change.
    await press_keys(page, arrow_keys(enabled, info.selected, target))
    node, info = await _info(page, node, locate, what)
    for _ in range(len(info.options or []) + 1):  # a page that moved the selection meanwhile
        if info.selected == target:
            return
        await press_keys(page, arrow_keys(enabled, info.selected, target)[:1])
        node, info = await _info(page, node, locate, what)
    raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: could not choose {value!r}")


async def _choose_aria(
    page: PageDriver, node: DomNode, locate: Locator, info: ElementInfo, *, name: str, what: str
) -> None:
    """A multi-selectable ARIA listbox: its options are matched by accessible name."""
    assert info.aria_options is not None
    wanted = [i for i, (n, _, off, _) in enumerate(info.aria_options) if n == name and not off]
    if not wanted:
        raise _err(
            ErrorId.ACTION_TARGET_NOT_FOUND,
            f"{what}: no enabled option is named {name!r}",
            value=name,
        )
    target = wanted[0]
    if not info.aria_options[target][1]:
        node, info = await _click_row(page, node, locate, target, ctrl=True, what=what)
    if info.aria_options is None or not info.aria_options[target][1]:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: could not add {name!r}")


def _rows(info: ElementInfo) -> list[tuple[Box, bool]]:
    if info.aria_options is not None:
        return [(box, sel) for _, sel, _, box in info.aria_options]
    return info.rows or []


async def _click_row(
    page: PageDriver, node: DomNode, locate: Locator, row: int, *, ctrl: bool, what: str
) -> tuple[DomNode, ElementInfo]:
    """Click the list box's option row `row` (wheel-scrolled into the client area first); the
    list box's state after the click."""
    node, info = await _reachable(page, node, locate, True, what)
    for _ in range(MAX_SCROLL_STEPS):
        rows = _rows(info)
        if row >= len(rows) or info.client is None:
            break
        box = rows[row][0]
        dy = wheel_into(box, info.client)
        if dy == 0:
            await _click_at(
                page, box[0] + min(box[2], info.client[2]) / 2, box[1] + box[3] / 2, ctrl
            )
            return await _info(page, node, locate, what)
        page.wheel(info.client[0] + info.client[2] / 2, info.client[1] + info.client[3] / 2, 0, dy)
        await next_frame(page)
        node, info = await _info(page, node, locate, what)
    raise _err(
        ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the option could not be scrolled into view"
    )


async def clear_choices(page: PageDriver, node: DomNode, locate: Locator, what: str) -> None:
    """`clear` on a list box that allows several choices: deselect all (a plain click on one
    chosen row keeps only it, a ctrl+click on it drops it; an ARIA listbox gets a ctrl+click
    per chosen option)."""
    node, info = await _info(page, node, locate, what)
    if info.disabled:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is disabled")
    if info.aria_options is not None:
        for _ in range(len(info.aria_options)):
            chosen = [i for i, (_, sel, _, _) in enumerate(info.aria_options or []) if sel]
            if not chosen:
                return
            node, info = await _click_row(page, node, locate, chosen[0], ctrl=True, what=what)
    else:
        chosen = [i for i, (_, sel) in enumerate(info.rows or []) if sel]
        if not chosen:
            return
        node, info = await _click_row(page, node, locate, chosen[0], ctrl=False, what=what)
        node, info = await _click_row(page, node, locate, chosen[0], ctrl=True, what=what)
    if any(sel for _, sel in _rows(info)):
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: could not deselect every option")


async def run_actions(page: PageDriver, actions: list[Action], deadline: float) -> None:
    """Run `actions`; the downloads they started complete or fail before this returns."""
    mark = page.downloads.mark()
    for action in actions:
        await run_action(page, action, deadline)
    await page.downloads.settle(mark, deadline, clicked=await download_clicked(page))


# --- outputs ----------------------------------------------------------------------------------


async def _after_actions(page: PageDriver, before: Ready, starts: int, deadline: float) -> Ready:
    """The page after the actions: a navigation they started (it shows as a load start within one
    animation frame of the last input's dispatch) is let reach a readable document; one that
    commits nothing (a download, a 204) ends with its loading."""
    if await navigation_started(page, starts):
        while page.loop.time() < deadline - 0.5:
            p = await page.probe()
            if not page.loading and p.ready_state in ("interactive", "complete") and p.length > 0:
                if p.origin != before.origin and p.status:
                    page.last_status = p.status
                break
            await aio.sleep(page.loop, PROBE_INTERVAL)
    return await current(page)


HTML_REREAD = 0.05


async def rendered_html(page: PageDriver, deadline: float) -> str:
    """The rendered document's source for a capture. toHtml() has been seen to answer the bare
    skeleton for a document that is there (busy pages, busy engine): that is never written;
    the source is read again, then from the isolated world, until the deadline, then the
    capture fails (spec 1 §4 rule 6: a non-empty rendered source, or an error)."""
    html = await page.to_html()
    tries = 0
    # the page is read only for a skeleton: an ordinary capture pays nothing
    while is_skeleton(html) and html_is_unread(html, (await page.probe()).length):
        tries += 1
        if page.loop.time() >= deadline - 0.5:
            raise _err(
                ErrorId.TIMEOUT,
                "the rendered document could not be read before the deadline",
                reason="empty_serialization",
            )
        await aio.sleep(page.loop, HTML_REREAD)
        if tries % 2:
            read = await page.run_js(js.OUTER_HTML)
            html = read if isinstance(read, str) else ""
        else:
            html = await page.to_html()
    return html


def write_file(path: str, data: bytes) -> int:
    """`data` at a client's output path, by the one output policy (VALIDATION_FAILED naming
    `output` when refused or when the write fails)."""
    try:
        return outputs.write_atomically(path, data)
    except outputs.OutputPathError as exc:
        raise _err(ErrorId.VALIDATION_FAILED, str(exc), field="output") from None


async def capture(
    page: PageDriver,
    *,
    url: str | None,
    actions: list[Action],
    wait: float,
    output_path: str | None,
    deadline: float,
    opts: Options,
    navigate_first: bool = True,
    strict: bool = False,
) -> AttachAnswer:
    t0 = time.monotonic()
    if url is not None and navigate_first:
        ready = await navigate(page, "url", url, strict=strict, opts=opts)
    else:
        ready = await current(page)
    page_ready_ms = int((time.monotonic() - t0) * 1000)
    if actions:
        starts = page.load_starts
        await run_actions(page, actions, deadline)
        ready = await _after_actions(page, ready, starts, deadline)
    ready = await settle(page, ready, wait, strict=strict, opts=opts)
    html = await rendered_html(page, deadline)
    rendered_ms = int((time.monotonic() - t0) * 1000)
    p = await page.probe()
    traffic = await page.traffic_bytes()
    bytesize = None
    if output_path is not None:
        bytesize = write_file(output_path, html.encode("utf-8"))
    return AttachAnswer(
        url=p.href,
        title=p.title,
        target_http_status=page.last_status,
        traffic_bytes=traffic,
        bytesize=bytesize,
        output_path=output_path,
        timings=Timings(
            page_ready_ms=page_ready_ms,
            rendered_ms=rendered_ms,
            written_ms=int((time.monotonic() - t0) * 1000),
        ),
    )


async def capture_file(
    page: PageDriver,
    *,
    url: str | None,
    actions: list[Action],
    wait: float,
    output_path: str,
    deadline: float,
    opts: Options,
) -> CaptureAnswer:
    """The capture operation: `capture`, with the file it must write."""
    a = await capture(
        page,
        url=url,
        actions=actions,
        wait=wait,
        output_path=output_path,
        deadline=deadline,
        opts=opts,
    )
    assert a.bytesize is not None
    return CaptureAnswer(
        url=a.url,
        title=a.title,
        target_http_status=a.target_http_status,
        traffic_bytes=a.traffic_bytes,
        bytesize=a.bytesize,
        output_path=output_path,
        timings=a.timings,
    )


async def screenshot(
    page: PageDriver,
    *,
    output_path: str,
    fmt: ImageFormat,
    quality: int | None,
    full_page: bool,
    wait: float,
    opts: Options,
) -> ScreenshotAnswer:
    ready = await current(page)
    await settle(page, ready, wait, strict=False, opts=opts)
    vw, vh, dw, dh = await page.document_size()
    # a full page is checked at the document's size, then rendered at the viewport width
    width, height = (max(vw, dw), max(vh, dh)) if full_page else (vw, vh)
    check_bounds(width, height, full_page=full_page)
    image = await page.grab(full_page, max(vh, dh) if full_page else vh)
    size = page.save_image(image, output_path, fmt, quality)
    p = await page.probe()
    return ScreenshotAnswer(
        url=p.href,
        output_path=output_path,
        bytesize=size,
        format=fmt,
        mime_type=MIME[fmt],
        width=int(image.width()),
        height=int(image.height()),
    )
