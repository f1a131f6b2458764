"""The renderer's progress as the host waits on it (no Qt here): counters kept by listeners in
the page's isolated world (host_app/core/js.py TICK) tell when input was dispatched, when a frame
was rendered and whether input started a navigation, instead of fixed sleeps."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ..logic import aio
from ..logic.page_answers import Loads, Tick
from . import js
from .page_driver import Call, Loading, Renderer

T = TypeVar("T")

FRAME_WAIT = 0.1  # a page that renders no frames (hidden) is not waited for longer than this
TICK_POLL = 0.002
# input not yet dispatched is read again at once this many times (a read is answered after the
# input the renderer holds: it waits as long as the input takes), then every TICK_POLL: a
# select's keys read a poll early waited 2.5 ms for the next
QUICK_POLLS = 4
# Input the counters cannot see (a cross-origin frame) is taken as dispatched once both
# INPUT_ACK_FRAMES frames and INPUT_ACK_IDLE seconds passed with no new count (a loaded renderer
# may take several frames to receive input), and at the latest after INPUT_ACK_MAX.
INPUT_ACK_FRAMES = 3
INPUT_ACK_IDLE = 0.15
INPUT_ACK_MAX = 1.0
# a control's focus may load what its keys need (a search box fetches its index then), a click
# what it opens (an editor's dialog): the keys, or the observation after the batch, wait this
# long at most for the scripts (and stylesheets) the input inserted
INSERTED_SCRIPTS_WAIT = 3.0
SCRIPTS_POLL = 0.05
# then what the input opens is built: the tree quiet this long (a page that polls for its
# stylesheet looks every 100 ms), for at most TREE_QUIET_MAX
TREE_QUIET = 0.15
TREE_QUIET_MAX = 1.0
# after input, what it set moving (a modal that fades in, a menu that slides open) ends before
# the page is read, for at most this long
ANIMATIONS_MAX = 1.0


async def tick(page: Renderer) -> Tick:
    return await page.run(js.TICK)


DOWNLOAD_CLICK_READ = 0.5


async def download_clicked(page: Renderer) -> bool:
    """Whether the batch clicked an `<a download>` the page did not cancel. Bounded: after a
    click that opened a popup this reads a page that may be replacing its first document, and
    the engine may never answer a script sent to a frame that went away."""
    read = await aio.within(page.loop, page.run(js.TICK), DOWNLOAD_CLICK_READ, None)
    return read is not None and read.download_click


async def next_turn(page: Renderer, first: Tick) -> Tick:
    """Until the document has run a zero-delay timer set by the read that gave `first` (the
    timers its input set before it have run then: they run in order), bounded as `next_frame`.
    The counters after it."""
    end = page.loop.time() + FRAME_WAIT
    now = await tick(page)  # the timer is due at once: it has mostly run by this read
    while (now.turns, now.document) == (first.turns, first.document) and page.loop.time() < end:
        await aio.sleep(page.loop, TICK_POLL)
        now = await tick(page)
    return now


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

    async def counters() -> tuple[Tick, None]:
        return await tick(page), None

    await _dispatched(page, before, counters, (moves, ups, keys))


async def input_done_reading(page: Renderer, before: Tick, read: Call[T], *, keys: int) -> T | None:
    """`input_done`, each of its reads of the counters also reading `read`, in one round trip:
    `read`'s answer from the read that showed the input dispatched (the page's handlers for it
    have run: what it changed shows), None when the wait ended otherwise."""
    both = js.together(js.TICK, read)
    return await _dispatched(page, before, lambda: page.run(both), (0, 0, keys))


async def _dispatched(
    page: Renderer,
    before: Tick,
    poll: Callable[[], Awaitable[tuple[Tick, T | None]]],
    wanted: tuple[int, int, int],
) -> T | None:
    """`input_done`'s wait, reading the counters (and what goes with them) by `poll`; what went
    with the counters that showed the `wanted` (moves, ups, keys) dispatched."""
    moves, ups, keys = wanted
    end = page.loop.time() + INPUT_ACK_MAX
    last = before
    idle_since = before.frames
    idle_at = page.loop.time()
    polls = 0
    while True:
        now, extra = await poll()
        if now.document != before.document:
            return None
        if (
            now.moves - before.moves >= moves
            and now.ups - before.ups >= ups
            and now.keys - before.keys >= keys
        ):
            return extra
        if (now.moves, now.ups, now.keys) != (last.moves, last.ups, last.keys):
            idle_since, idle_at = now.frames, page.loop.time()
        last = now
        t = page.loop.time()
        idle = now.frames - idle_since >= INPUT_ACK_FRAMES and t - idle_at >= INPUT_ACK_IDLE
        if idle or t >= end:
            return None
        polls += 1
        if polls > QUICK_POLLS:
            await aio.sleep(page.loop, TICK_POLL)


# after wheel input: a scroll that shows nothing by SCROLL_QUIET moved nothing (a scroller at its
# end, a wheel another scroller took; the fixed pause every wheel paid before), and one that
# moves is followed until it ends, for at most SCROLL_MAX
SCROLL_QUIET = 0.12
SCROLL_MAX = 1.0


async def scroll_done(
    page: Renderer,
    read: Callable[[], Awaitable[object]],
    before: object,
    arrived: Callable[[object], bool] | None = None,
) -> bool:
    """After wheel input: until the scroll it caused has ended, as `read` (an element's box, a
    scroll offset) shows it once per rendered frame: it changed from `before` and then held for
    a frame, or it did not change within SCROLL_QUIET. Chromium here applies a wheel's whole
    scroll by the next frame; an animated scroll changes it every frame until it ends. A fixed
    0.12 s after each run made a click 4,000 px down cost 0.8 s (seven runs). True when it
    moved and then held: the read is still across a frame, as an actionability check needs.
    `arrived`: the read is exactly where the wheel was to bring it, so the scroll ran its whole
    course in that frame and nothing else moved it: that read is final (True at once)."""
    start = page.loop.time()
    last = before
    moved = False
    while (now := page.loop.time()) < start + SCROLL_MAX:
        if not moved and now >= start + SCROLL_QUIET:
            return False
        await next_frame(page)
        where = await read()
        if moved and where == last:
            return True
        moved = moved or where != last
        if moved and arrived is not None and arrived(where):
            return True
        last = where
    return False


NAV_START_WAIT = 1.0
NAV_START_POLL = 0.01


@dataclass(frozen=True, slots=True)
class LoadMark:
    """The page's loading before some input: its load starts, and whether a load was under
    way already (a main-frame load that has not finished: a slow image holds the window's load
    event, or the engine never reports the end of a first load, issue 12)."""

    starts: int
    loading: bool
    # the document's key and `navigate` events (`Tick`) when read before the input (`read`)
    document: float = -1.0
    navigates: int = -1
    counters: Tick | None = None  # the counters those were read from

    @classmethod
    def of(cls, page: Loading) -> LoadMark:
        return cls(page.load_starts, page.loading)

    @classmethod
    async def read(cls, page: Loading) -> LoadMark:
        """The mark with the document's `navigate` events, so that input after which the
        document started none need not wait a frame for a load start (`navigation_started`)."""
        starts, loading = page.load_starts, page.loading
        return cls.after(starts, loading, await tick(page))

    @classmethod
    def after(cls, starts: int, loading: bool, t: Tick) -> LoadMark:
        """The mark of `starts` and `loading`, taken just before `t` was read (`read`)."""
        return cls(starts, loading, t.document, t.navigates, t)

    @classmethod
    async def with_loads(cls, page: Loading, first: Call[T]) -> tuple[T, LoadMark, Loads]:
        """`read` and `pending_loads` in one round trip, after the call `first` (whose answer
        comes first)."""
        starts, loading = page.load_starts, page.loading
        answer, t, loads = await page.run(js.together(first, js.TICK, js.PENDING_LOADS))
        return answer, cls.after(starts, loading, t), loads

    def moved(self, page: Loading) -> bool:
        """A load started since the mark: a new start, or loading that was not there."""
        return page.load_starts != self.starts or (page.loading and not self.loading)


# what the input set going, as `what_input_set_going` reads it: the counters, the loads, the
# animations left
Going = tuple[Tick, Loads, float | None]
GOING = js.together(js.TICK, js.PENDING_LOADS, js.ANIMATIONS_LEFT)


async def navigation_started(page: Loading, mark: LoadMark, first: Tick | None = None) -> bool:
    """After input: did it start a main-frame navigation? A link or script navigation shows as a
    load start within one animation frame; a form submission the page did not cancel is
    scheduled, so its load start is awaited (bounded: a submission into another window never
    starts one here). A load under way before the input is not one the input started.

    Input after which the main document fired no `navigate` event (a mark `read` before it, the
    same document, no submission, its focus not in a frame) started none: the document's next
    task turn is waited for (what the input set going from a zero-delay timer has run then, a
    dialog's scripts inserted, a navigation begun), not a frame. That frame was a third of a
    step that typed or selected (8 ms on average, 16 at most, against Playwright's 20 ms for
    the action and its snapshot). `first`: the counters read after the input, if they were."""
    if mark.navigates >= 0:
        first = first or await tick(page)
        now = first if first.settled else await next_turn(page, first)
        if mark.moved(page):
            return True
        if (
            now.document == mark.document
            and now.navigates == mark.navigates
            and not now.submitting
            and not now.frame_focus
        ):
            return False
    await next_frame(page)
    if mark.moved(page):
        return True
    if not (await tick(page)).submitting:
        return False
    end = page.loop.time() + NAV_START_WAIT
    while page.loop.time() < end:
        await aio.sleep(page.loop, NAV_START_POLL)
        if mark.moved(page):
            return True
    return False


async def pending_loads(page: Renderer) -> Loads:
    """The main document's external scripts still to run and stylesheets still to load."""
    return await page.run(js.PENDING_LOADS)


async def loads_done(page: Renderer, before: frozenset[str], end: float) -> None:
    """Until the scripts and stylesheets the page inserted since `before` was read have run or
    loaded (their load or error event), at the latest at `end`; then one frame for what they
    set up."""
    while page.loop.time() < end:
        if not (await pending_loads(page)).pending - before:
            break
        await aio.sleep(page.loop, SCRIPTS_POLL)
    await next_frame(page)


async def tree_quiet(page: Renderer, end: float) -> None:
    """Until the document's tree has not changed for TREE_QUIET seconds since this call, at the
    latest at `end`: what a page builds once its code and styles arrived (CKEditor checks for
    a dialog's stylesheet every 100 ms, and fills the dialog then)."""
    start = page.loop.time()
    while (now := page.loop.time()) < end:
        quiet = min((await pending_loads(page)).quiet, now - start)
        if quiet >= TREE_QUIET:
            return
        await aio.sleep(page.loop, SCRIPTS_POLL)


async def animations_done(page: Renderer, end: float, first: float | None = None) -> bool:
    """Until the main document's finite CSS transitions and animations have ended, at the latest
    at `end`; then one frame. An animation that started in the meantime is waited for too.
    `first`: ANIMATIONS_LEFT's answer just read, if it was (None: read it). Whether it waited."""
    waited = False
    while (now := page.loop.time()) < end:
        left = first if first is not None else await page.run(js.ANIMATIONS_LEFT)
        first = None
        if left is None or left <= 0:
            break
        waited = True
        await aio.sleep(page.loop, min(left / 1000 + TICK_POLL, end - now))
    if waited:
        await next_frame(page)
    return waited


async def what_input_set_going(
    page: Renderer, before: Loads, deadline: float, read: Going | None = None
) -> tuple[Tick, bool]:
    """After input that started no navigation, before the page is read: what the input set
    going that a person waits for. The scripts and stylesheets it inserted load, then the tree
    settles: CKEditor fetches a dialog's script and stylesheet on the click that opens it (from
    a timer, after the click), and fills the dialog once both arrived; read at once, the page
    showed the dialog's empty cover. Then the transitions it started end: Bootstrap's modal
    fades its backdrop in, then the dialog; read at once, the backdrop covered everything and
    the dialog was still transparent. Input that inserted and moved nothing is not held (one
    isolated-world round trip). `before`: the document's loads read before the input; `read`:
    what this reads first, if it was read once the input's timers had run. The counters read
    with the loads, before the waits (`download_clicked` need not read them again), and whether
    the page was still at that read (nothing to wait for: the page is as that read found it)."""
    end = deadline - 0.5
    if read is None:
        read = await page.run(GOING)
    counters, loads, left = read
    inserted = loads.inserted != before.inserted
    if inserted:
        t = page.loop.time()
        await loads_done(page, before.pending, min(t + INSERTED_SCRIPTS_WAIT, end))
        await tree_quiet(page, min(page.loop.time() + TREE_QUIET_MAX, end))
        left = None  # read again: what the loads built may animate
    moved = await animations_done(page, min(page.loop.time() + ANIMATIONS_MAX, end), left)
    return counters, not inserted and not moved
