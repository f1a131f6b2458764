"""A ref of an observation as an action's target (no Qt here): the other kind of
`page_driver.Target`, beside the selector's `actions.DomTarget`.

A ref resolves through the locators kept for its observation to (document, registry number); the
stale checks of docs/observations.md ran before the action (`observations.revalidate`), so a
ref is never looked up again. For an element in a frame, geometry is in the main frame's
viewport: the element's box in its frame plus each frame's content-box offset in its parent;
`hit` holds when the frame's own hit test lands on the element and each ancestor's lands on the
iframe at that point; the frames on the way are scrolled first (real wheel input inside each),
outermost first.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import partial
from typing import Any

from msgspec.structs import replace

from bridge_protocol import ErrorId, SvcError

from ..logic import frames as fl
from ..logic.page_answers import ElementInfo, Tick
from . import frame_reads, js, observe_js
from .kept import Kept
from .page_driver import Call, Focused, ObsDriver
from .progress import scroll_done, tick

MAX_FRAME_SCROLLS = 60  # wheel events per action to bring an element in a frame into view


@dataclass(frozen=True, slots=True)
class Prepared:
    """What the batch's check read of an action's target before any input (its first read):
    its state, the input counters after, and its focus if it was focused then (a select's,
    `observations._checked`)."""

    info: ElementInfo
    counters: Tick
    focused: Focused | None = None


class RefTarget:
    """Ref `e<N>` of observation `obs_id` as the target of one action (`what`); `scroll` is the
    action's flag, which also governs scrolling the frames on the way."""

    def __init__(
        self,
        page: ObsDriver,
        kept: Kept,
        obs_id: str,
        ref: str,
        *,
        what: str,
        scroll: bool,
        first: Prepared | None = None,
    ) -> None:
        self.page = page
        self.kept = kept
        self.obs_id = obs_id
        self.ref = ref
        self.number = int(ref[1:])
        self.what = what
        self.ids: dict[str, Any] = {"ref": ref}
        self.scroll = scroll
        # frames are looked up once per action: a frame may have moved since the last one
        self._handles: dict[int, object] = {}
        self._outer: fl.Level | None = None
        self._scrolls = 0
        self._first = (first.info, first.counters) if first is not None else None
        self._focused = (
            (first.focused, first.counters) if first is not None and first.focused else None
        )

    async def _chain(self, d: int) -> list[tuple[fl.FrameDoc, object]]:
        ids: list[int] = []
        x = d
        while x > 0:
            ids.append(x)
            x = self.kept.docs[x].parent
        tree = self.page.frames.frame_tree()
        out: list[tuple[fl.FrameDoc, object]] = [(self.kept.docs[0], tree.handle)]
        for x in reversed(ids):
            if x not in self._handles:
                self._handles[x], _ = await frame_reads.resolve(
                    self.page.frames, tree, self.kept, self.obs_id, x, numbers=[], ref=None
                )
            out.append((self.kept.docs[x], self._handles[x]))
        return out

    async def _geometry(
        self, chain: list[tuple[fl.FrameDoc, object]], local: int
    ) -> tuple[list[fl.Level], ElementInfo] | None:
        levels: list[fl.Level] = []
        rendered = True
        for (_, handle), (doc, _) in itertools.pairwise(chain):
            s = await self.page.run(observe_js.slot(doc.slot), handle)
            if s is None:
                return None  # the iframe left its document
            rendered = rendered and s.visible
            levels.append(fl.Level(s.vw, s.vh, fl.Box(s.x, s.y, s.w, s.h)))
        info = await self.page.run(observe_js.element(local), chain[-1][1])
        if info is None:
            return None
        levels.append(fl.Level(info.vw, info.vh))
        self._outer = levels[0]
        return levels, info if rendered else replace(info, visible=False)

    def first_read(self) -> tuple[ElementInfo, Tick] | None:
        first, self._first = self._first, None
        return first

    def choice_call(self) -> Call[int | None] | None:
        d, local = self.kept.locate(self.number)
        return observe_js.choice(local) if d == 0 else None

    def element_call(self) -> Call[ElementInfo | None] | None:
        d, local = self.kept.locate(self.number)
        return observe_js.element(local) if d == 0 else None

    async def element(self) -> ElementInfo | None:
        d, local = self.kept.locate(self.number)
        if d == 0:
            return await self.page.run(observe_js.element(local))
        chain = await self._chain(d)
        geo = await self._geometry(chain, local)
        stuck = 0
        while geo is not None:
            levels, info = geo
            if not info.visible or info.w <= 0 or info.h <= 0:
                break
            step = fl.scroll_step(levels, info.cx, info.cy)
            if step is None:
                break
            if not self.scroll:
                raise SvcError.of(
                    ErrorId.ACTION_TARGET_NOT_FOUND,
                    f"{self.ref}: the element is outside the viewport of its frame and scroll is "
                    "false",
                    ref=self.ref,
                )
            if self._scrolls >= MAX_FRAME_SCROLLS or stuck >= 3:
                raise SvcError.of(
                    ErrorId.ACTION_TARGET_NOT_FOUND,
                    f"{self.ref}: the element could not be scrolled into view through its frames",
                    ref=self.ref,
                )
            self._scrolls += 1
            self.page.input.wheel(step.x, step.y, step.dx, step.dy)
            await scroll_done(self.page, partial(self._geometry, chain, local), geo)
            geo = await self._geometry(chain, local)
            # a wheel that moved nothing (the wrong scroller took it) counts toward giving up
            stuck = stuck + 1 if geo is not None and geo == (levels, info) else 0
        if geo is None:
            return None
        levels, info = geo
        offs = fl.offsets(levels)
        ox, oy = offs[-1]
        gx, gy = ox + info.cx, oy + info.cy
        hit = info.hit and fl.shown(levels, info.cx, info.cy)
        cover = info.cover
        for i in range(len(chain) - 1):
            if not hit:
                break
            point = (gx - offs[i][0], gy - offs[i][1])
            call = observe_js.slot(chain[i + 1][0].slot, point)
            s = await self.page.run(call, chain[i][1])
            hit = s is not None and s.hit is True
            if not hit and s is not None:
                # what covers the frame there, in the document that holds it
                cover = s.cover
        return replace(
            info,
            x=info.x + ox,
            y=info.y + oy,
            vw=levels[0].vw,
            vh=levels[0].vh,
            hit=hit,
            cover=cover,
        )

    async def relocate(self) -> bool:
        return False

    async def tag(self) -> str:
        """The element's tag, read in its own frame."""
        d, local = self.kept.locate(self.number)
        frame = None if d == 0 else (await self._chain(d))[-1][1]
        info = await self.page.run(observe_js.element(local), frame)
        return info.tag if info is not None else ""

    async def focus(self, *, end: bool = False) -> tuple[Focused, Tick]:
        self.page.input.focus_view()
        done, self._focused = self._focused, None
        if done is not None and not end:
            return done
        d, local = self.kept.locate(self.number)
        if d == 0:
            return await self.page.run(js.together(observe_js.focus(local, end=end), js.TICK))
        chain = await self._chain(d)
        focused = await self.page.run(observe_js.focus(local, True, end), chain[-1][1])
        return focused, await tick(self.page)  # the counters are the main frame's

    def wheel(self, x: float, y: float, dx: int, dy: int) -> None:
        outer = self._outer
        if outer is not None and outer.slot is not None:
            # scrolling the main frame for a target in a frame: not over that frame, which
            # would take the wheel itself
            x, y = fl.free_point(fl.Box(0.0, 0.0, outer.vw, outer.vh), outer.slot)
        self.page.input.wheel(x, y, dx, dy)
