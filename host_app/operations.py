"""The engine operations of docs/bridge.md as coroutines over a `PageDriver` (no Qt here).

`host_app.engine.SessionBrowser` implements `PageDriver` with QtWebEngine; each method returns a
`Future` that a Qt signal or timer resolves. Deadlines and cancellation are exceptions thrown into
the coroutine at its current await; the `finally` blocks stop the browser work they started.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from bridge_protocol import ApiError, ErrorId, SvcError
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
from bridge_protocol.selectors import (
    DomNode,
    SelectorError,
    SelectorList,
    parse_selector,
    query_first,
)

from .logic import aio
from .logic.images import MIME, check_bounds
from .logic.links import best_link, normalize_url, same_document
from .logic.readiness import Failed, Probe, Readiness, Ready, settle_restarts

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
        )


@dataclass(slots=True)
class Snapshot:
    nodes: list[DomNode]
    hrefs: list[tuple[int, str]]  # anchors' resolved hrefs (index, href)


class PageDriver(Protocol):
    @property
    def loop(self) -> aio.Loop: ...
    @property
    def paused(self) -> bool: ...

    load_starts: int  # incremented at every main-frame loadStarted
    failure: tuple[int, str, str] | None  # (load_starts at failure, message, url)
    last_status: int | None

    def probe(self) -> aio.Future[Probe]: ...
    def load(self, url: str) -> None: ...
    def history(self, how: str) -> bool: ...
    def stop(self) -> None: ...
    def snapshot(self) -> aio.Future[Snapshot]: ...
    def element(self, node: DomNode) -> aio.Future[ElementInfo | None]: ...
    def focus(self, node: DomNode) -> aio.Future[bool]: ...
    def mouse_click(self, x: float, y: float, move: bool) -> None: ...
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


async def _click_node(
    page: PageDriver, node: DomNode, locate: Locator, *, mouse_move: bool, scroll: bool, what: str
) -> None:
    _, info = await _reachable(page, node, locate, scroll, what)
    if not info.hit:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is covered by another")
    page.mouse_click(info.cx, info.cy, mouse_move)
    await aio.sleep(page.loop, 0.02)


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
            page, node, locate, mouse_move=action.mouse_move, scroll=action.scroll, what="click"
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
        # append: move the caret to the end with a real key, then type character by character
        page.key("End", ctrl=info.value is None or node.tag == "textarea")
        page.type_text(action.text)
        await aio.sleep(page.loop, 0.02)
    elif isinstance(action, Clear):
        node, locate = await _find(page, action.selector)
        await _focused_editable(page, node, locate, "clear")
        page.key("A", ctrl=True)
        page.key("Delete")
        await aio.sleep(page.loop, 0.02)
    elif isinstance(action, Press):
        node, locate = await _find(page, action.selector)
        node, _ = await _info(page, node, locate, "press")
        if not await page.focus(node):
            raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, "press: the element cannot take focus")
        page.key(action.key)
        await aio.sleep(page.loop, 0.02)
    elif isinstance(action, Select):
        await _select(page, action)
    else:  # pragma: no cover - the union is closed
        raise _err(ErrorId.VALIDATION_FAILED, f"unsupported action {action!r}")


async def _select(page: PageDriver, action: Select) -> None:
    node, locate = await _find(page, action.selector)
    if node.tag != "select":
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, "select: the target is not a select element")
    node, info = await _info(page, node, locate, "select")
    if info.options is None:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, "select: the element left the document")
    if info.disabled:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, "select: the element is disabled")
    enabled = [i for i, (_, off) in enumerate(info.options) if not off]
    wanted = [i for i in enabled if info.options[i][0] == action.value]
    if not wanted:
        raise _err(
            ErrorId.ACTION_TARGET_NOT_FOUND,
            f"select: no enabled option has the value {action.value!r}",
            value=action.value,
        )
    target = wanted[0]
    if info.selected == target:
        return
    if not await page.focus(node):
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, "select: the element cannot take focus")
    # Arrow keys on a focused, closed select move over enabled options and fire input/change.
    for _ in range(len(info.options) + 1):
        current_pos = info.selected
        if current_pos == target:
            return
        if current_pos < 0 or current_pos not in enabled:
            page.key("Home")
        elif current_pos < target:
            page.key("ArrowDown")
        else:
            page.key("ArrowUp")
        await aio.sleep(page.loop, 0.01)
        node, info = await _info(page, node, locate, "select")
    if info.selected != target:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"select: could not choose {action.value!r}")


async def run_actions(page: PageDriver, actions: list[Action], deadline: float) -> None:
    for action in actions:
        await run_action(page, action, deadline)


# --- outputs ----------------------------------------------------------------------------------


def write_file(path: str, data: bytes) -> int:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return len(data)


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
) -> dict[str, Any]:
    t0 = time.monotonic()
    if url is not None and navigate_first:
        ready = await navigate(page, "url", url, strict=strict, opts=opts)
    else:
        ready = await current(page)
    page_ready_ms = int((time.monotonic() - t0) * 1000)
    if actions:
        await run_actions(page, actions, deadline)
        ready = await current(page)
    ready = await settle(page, ready, wait, strict=strict, opts=opts)
    html = await page.to_html()
    rendered_ms = int((time.monotonic() - t0) * 1000)
    p = await page.probe()
    result: dict[str, Any] = {
        "url": p.href,
        "title": p.title,
        "target_http_status": page.last_status,
        "traffic_bytes": await page.traffic_bytes(),
    }
    if output_path is not None:
        result["bytesize"] = write_file(output_path, html.encode("utf-8"))
        result["output_path"] = output_path
    result["timings"] = {
        "page_ready_ms": page_ready_ms,
        "rendered_ms": rendered_ms,
        "written_ms": int((time.monotonic() - t0) * 1000),
    }
    return result


async def screenshot(
    page: PageDriver,
    *,
    output_path: str,
    fmt: str,
    quality: int | None,
    full_page: bool,
    wait: float,
    opts: Options,
) -> dict[str, Any]:
    ready = await current(page)
    await settle(page, ready, wait, strict=False, opts=opts)
    vw, vh, dw, dh = await page.document_size()
    # a full page is checked at the document's size, then rendered at the viewport width
    width, height = (max(vw, dw), max(vh, dh)) if full_page else (vw, vh)
    check_bounds(width, height, full_page=full_page)
    image = await page.grab(full_page, max(vh, dh) if full_page else vh)
    size = page.save_image(image, output_path, fmt, quality)
    p = await page.probe()
    return {
        "url": p.href,
        "output_path": output_path,
        "bytesize": size,
        "format": fmt,
        "mime_type": MIME[fmt],
        "width": int(image.width()),
        "height": int(image.height()),
    }
