"""The engine operations of docs/bridge.md as coroutines over a `PageDriver` (no Qt here):
navigation and readiness, selector actions (run by `host_app.core.actions`), captures, screenshots.

`host_app.engine.session_browser.SessionBrowser` implements `PageDriver` with QtWebEngine; each
method returns a `Future` that a Qt signal or timer resolves. Deadlines and cancellation are
exceptions thrown into the coroutine at its current await; the `finally` blocks stop the browser
work they started.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, TypeVar, assert_never

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

from ..logic import aio
from ..logic.images import MIME, check_bounds
from ..logic.links import best_link, normalize_url, same_document
from ..logic.page_answers import Loads, Tick
from ..logic.readiness import (
    RENDERER_GONE,
    Failed,
    Probe,
    Readiness,
    Ready,
    html_is_unread,
    is_skeleton,
    settle_restarts,
)
from ..logic.traffic import grown
from . import js
from .actions import DomTarget, act
from .page_driver import Call, PageDriver, Probing, Renderer, Snapshot
from .progress import (
    GOING,
    Going,
    LoadMark,
    download_clicked,
    navigation_started,
    pending_loads,
    what_input_set_going,
)

T = TypeVar("T")

PROBE_INTERVAL = 0.05
# after input that started a navigation, how often the page is probed for its readable document:
# the load ends between two probes, and at 50 ms half a probe interval was a fifth of a link
# click's step
READABLE_POLL = 0.01
# after input, how long a document with content may stay loading before it is read as it is
STILL_WRITING = 3.0
SETTLE_PROBE_INTERVAL = 0.1
WAIT_FOR_INTERVAL = 0.1


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
        # a URL with a fragment that differs from the page's at most by its fragment, the
        # page's own URL included, is a move within the document: the engine loads nothing
        if old.href and "#" in target and same_document(old.href, target):
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
        return await _await_ready(page, r)
    r = Readiness(
        "history" if how in ("back", "forward") else "reload",
        old=old,
        previous_status=previous,
        strict=strict,
        challenge_wait=opts.wait_for_bot_challenge,
    )
    moves = {"back": -1, "forward": 1}.get(how)
    entry = None if moves is None else page.history_index + moves
    if not page.history(how):
        # nothing to go back or forward to: the page stays as it is
        return Ready(old.href, old.title, previous, old.origin)
    return await _await_ready(page, r, entry)


async def _await_ready(page: PageDriver, r: Readiness, entry: int | None = None) -> Ready:
    """`entry`: the history entry a back or forward move goes to."""
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
            # a load failure counts before the commit; the renderer's end at any time (the
            # document is gone and no probe would ever answer)
            if (
                failure is not None
                and failure[0] >= starts
                and (r.committed is None or failure[1].startswith(RENDERER_GONE))
            ):
                page.failure = None
                raise SvcError(_failed(r, failure))
            p = await page.probe()
            if not page.loading and (
                r.kind == "restart" or (entry is not None and page.history_index == entry)
            ):
                r.history_moved(page.loop.time())
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
            if outcome is not None:  # None: not yet
                assert_never(outcome)
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
            "restart",
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


async def _find(page: PageDriver, text: str, what: str) -> DomTarget:
    """The selector's first match in the DOM snapshot, found again the same way later."""
    sel = _selector(text)
    node = query_first((await page.dom.snapshot()).nodes, sel)
    if node is None:
        raise _err(ErrorId.ACTION_TARGET_NOT_FOUND, f"no element matches {text!r}", selector=text)
    return DomTarget(
        page, node, lambda snap: query_first(snap.nodes, sel), what, {"selector": text}
    )


async def _find_link(page: PageDriver, action: ClickLink) -> DomTarget:
    """The anchor whose href best matches the link, found again by that href."""
    snap = await page.dom.snapshot()
    found = best_link(action.link, snap.hrefs, action.match.threshold)
    if found is None:
        raise _err(
            ErrorId.ACTION_TARGET_NOT_FOUND,
            f"no link matches {action.link!r} at threshold {action.match.threshold}",
            link=action.link,
        )
    index, href, _ = found

    def by_href(snap: Snapshot) -> DomNode | None:
        for i, h in snap.hrefs:
            if h == href:
                return snap.nodes[i]
        return None

    return DomTarget(page, snap.nodes[index], by_href, "click-link", {"link": action.link})


async def _wait_for(page: PageDriver, action: WaitFor, deadline: float) -> None:
    sel = _selector(action.selector)
    own = None if action.timeout is None else page.loop.time() + action.timeout
    while True:
        snap = await page.dom.snapshot()
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


async def run_action(page: PageDriver, action: Action, deadline: float) -> None:
    """One selector action: the target is resolved here, the action run by `actions.act`."""
    match action:
        case Wait(seconds=seconds):
            await aio.sleep(page.loop, seconds)
        case WaitFor():
            await _wait_for(page, action, deadline)
        case ClickLink():
            await act(await _find_link(page, action), action, deadline)
        case Select(selector=selector):
            target = await _find(page, selector, "select")
            # a selector's `select` is for <select> elements (a ref's takes ARIA list boxes too)
            if target.node.tag != "select":
                raise _err(
                    ErrorId.ACTION_TARGET_NOT_FOUND, "select: the target is not a select element"
                )
            await act(target, action, deadline)
        case Click(selector=selector):
            await act(await _find(page, selector, "click"), action, deadline)
        case Type(selector=selector):
            await act(await _find(page, selector, "type"), action, deadline)
        case Clear(selector=selector):
            await act(await _find(page, selector, "clear"), action, deadline)
        case Press(selector=selector):
            await act(await _find(page, selector, "press"), action, deadline)
        case _:
            assert_never(action)


async def run_actions(page: PageDriver, actions: list[Action], deadline: float) -> None:
    """Run `actions`; the downloads they started complete or fail before this returns."""
    mark = page.downloads.mark()
    for action in actions:
        await run_action(page, action, deadline)
    await page.downloads.settle(mark, deadline, clicked=await download_clicked(page))


# --- outputs ----------------------------------------------------------------------------------


async def readable(page: Probing, deadline: float) -> Probe | None:
    """After input that started a navigation (`navigation_started`): until the page's document
    is readable, whose probe this is (None: the deadline came first, or a document that a
    script keeps writing is read as it is). One that commits nothing (a download, a 204) ends
    with its loading."""
    shown_since: float | None = None  # since when the document has had content
    while page.loop.time() < deadline - 0.5:
        p = await page.probe()
        if not page.loading and p.ready_state in ("interactive", "complete") and p.length > 0:
            return p
        # A document a script opened and keeps writing (`w = window.open(); w.document.
        # write(...)` without `close()`) stays "loading" for good: the wait ran to the
        # deadline and failed TIMEOUT (90 s). What it shows after a while is read.
        now = page.loop.time()
        shown_since = (shown_since or now) if p.length > 0 and not page.loading else None
        if shown_since is not None and now - shown_since >= STILL_WRITING:
            return None
        await aio.sleep(page.loop, READABLE_POLL)
    return None


async def document_settled(page: Probing, deadline: float) -> None:
    """After a navigation the input started reached a readable document, before it is read:
    one rendered frame (its layout, its first animation-frame callbacks), and a navigation its
    scripts started at once (a redirect from its load handler, a form a script submits) followed
    to its readable document. This replaced a fixed 0.15 s pause after every navigating batch,
    most of a link click's step (0.25 s, against Playwright's click, load and snapshot 0.11 s)."""
    mark = LoadMark.of(page)
    if await navigation_started(page, mark):
        await readable(page, deadline)


@dataclass(frozen=True, slots=True)
class AfterInput:
    """What followed a batch of input: whether it started a navigation, and then the readable
    document's probe (None: the deadline, or a document a script keeps writing, cut the wait)."""

    navigated: bool
    document: Probe | None = None
    # without a navigation: the counters read after the input (their `download_click`)
    counters: Tick | None = None

    async def download_clicked(self, page: Renderer) -> bool:
        """`progress.download_clicked`, from the counters already read if they were."""
        if self.counters is not None and self.counters.document >= 0:
            return self.counters.download_click
        return await download_clicked(page)


async def after_input(page: Probing, mark: LoadMark, loads: Loads, deadline: float) -> AfterInput:
    """After a batch of input (a ref batch, a capture's actions), before the page is read: a
    navigation it started reaches a readable document (`readable`); without one, what it set
    going is let end (`what_input_set_going`). `mark` and `loads` were read before the batch.
    The first read of each goes in one round trip: what the input set going is read with the
    counters that tell whether its timers have run (then that read stands for both)."""
    return (await _after_input(page, mark, loads, deadline, None))[0]


async def after_input_reading(
    page: Probing, mark: LoadMark, loads: Loads, deadline: float, then: Call[T]
) -> tuple[AfterInput, T | None]:
    """`after_input`, `then` read in its first read: its answer when that read found the page
    still (the input's timers run, no navigation, nothing loading or moving that the input set
    going), so that it is what a read after the waits would have answered; else None."""
    return await _after_input(page, mark, loads, deadline, then)


async def _after_input(
    page: Probing, mark: LoadMark, loads: Loads, deadline: float, then: Call[T] | None
) -> tuple[AfterInput, T | None]:
    going: Going | None = None
    extra: T | None = None
    if mark.navigates >= 0:  # without the Navigation API the first read is a frame away
        if then is None:
            going = await page.run(GOING)
        else:
            both: tuple[Going, T] = await page.run(js.together(GOING, then))
            going, extra = both
    if await navigation_started(page, mark, going[0] if going else None):
        return AfterInput(True, await readable(page, deadline)), None
    settled = going if going is not None and going[0].settled else None
    counters, still = await what_input_set_going(page, loads, deadline, settled)
    return AfterInput(False, counters=counters), extra if still and settled else None


async def _after_actions(
    page: PageDriver, before: Ready, mark: LoadMark, loads: Loads, deadline: float
) -> Ready:
    """The page after the actions; a navigation they started gives the page its status."""
    p = (await after_input(page, mark, loads, deadline)).document
    if p is not None and p.origin != before.origin and p.status:
        page.last_status = p.status
    return await current(page)


HTML_REREAD = 0.05
# toHtml() of a page's first document has been seen never to answer (issue 12): past this, the
# document is read from the isolated world instead
TO_HTML_PATIENCE = 2.0


async def rendered_html(page: PageDriver, deadline: float) -> str:
    """The rendered document's source for a capture. toHtml() has been seen to answer the bare
    skeleton for a document that is there, or not to answer at all (a first capture among busy
    sessions, about one in fifty: `make bench BENCH=first_capture`): neither is ever written;
    the source is read from the isolated world, then again from both, until the deadline, then
    the capture fails (spec 1 §4 rule 6: a non-empty rendered source, or an error)."""
    html: str | None = await aio.within(page.loop, page.captures.to_html(), TO_HTML_PATIENCE, None)
    unanswered = html is None
    reads = 0
    rendered = 0
    # an ordinary capture reads the page once: the loop runs only for a missing serialization
    while html is None or is_skeleton(html):
        rendered = (await page.probe()).length
        if html is not None and not html_is_unread(html, rendered):
            break  # the document really is (nearly) empty
        reads += 1
        if page.loop.time() >= deadline - 0.5:
            page.log(
                "capture.unread_serialization",
                "the rendered document could not be read before the deadline",
                rendered_length=rendered,
                reads=reads,
                unanswered=unanswered,
            )
            raise _err(
                ErrorId.TIMEOUT,
                "the rendered document could not be read before the deadline",
                reason="empty_serialization",
            )
        if reads > 1:
            await aio.sleep(page.loop, HTML_REREAD)
        if reads % 2:
            html = await page.run(js.OUTER_HTML)
        else:
            html = await aio.within(page.loop, page.captures.to_html(), TO_HTML_PATIENCE, None)
    if reads:
        # logged so that how often it happens stays visible
        page.log(
            "capture.unread_serialization",
            "the engine's serialization "
            + ("did not answer" if unanswered else "answered an empty document")
            + f"; the document was read again ({reads} read(s))",
            rendered_length=rendered,
            reads=reads,
            unanswered=unanswered,
        )
    assert html is not None
    return html


def write_file(path: str, data: bytes) -> int:
    """`data` at a client's output path, by the one output policy (VALIDATION_FAILED naming
    `output` when refused or when the write fails)."""
    try:
        return outputs.write_atomically(path, data)
    except outputs.OutputPathError as exc:
        raise _err(ErrorId.VALIDATION_FAILED, str(exc), field="output") from None


async def capture(  # noqa: PLR0913  capture's options, keyword-only
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
    # what the session downloads from here to the write (docs/decisions.md "Downloaded bytes")
    await page.traffic.count(True)
    try:
        downloaded = await page.traffic.read()
        if url is not None and navigate_first:
            ready = await navigate(page, "url", url, strict=strict, opts=opts)
        else:
            ready = await current(page)
        page_ready_ms = int((time.monotonic() - t0) * 1000)
        if actions:
            before = await LoadMark.read(page)
            loads = await pending_loads(page)
            await run_actions(page, actions, deadline)
            ready = await _after_actions(page, ready, before, loads, deadline)
        ready = await settle(page, ready, wait, strict=strict, opts=opts)
        html = await rendered_html(page, deadline)
        rendered_ms = int((time.monotonic() - t0) * 1000)
        p = await page.probe()
        traffic = grown(downloaded, await page.traffic.read())
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
    finally:
        page.traffic.count(False)


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
    vw, vh, dw, dh = await page.captures.document_size()
    # a full page is checked at the document's size, then rendered at the viewport width
    width, height = (max(vw, dw), max(vh, dh)) if full_page else (vw, vh)
    check_bounds(width, height, full_page=full_page)
    image = await page.captures.grab(full_page, max(vh, dh) if full_page else vh)
    size = page.captures.save_image(image, output_path, fmt, quality)
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
