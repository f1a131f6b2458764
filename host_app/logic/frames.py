"""Frames in observations (docs/observations.md "Frames"), without Qt.

Every document of a page (the main frame's and each iframe's) is read by the observation script in
its own isolated world. A parent's script reports its iframes as *slots* (registry number, name,
src, content box); the engine reports its frames (`HostFrame`: html name, URL, size, children).
`match` pairs them; `merge` splices each frame's answer into its parent's at the slot's place;
`RefTable` gives refs unique across frames; `scroll_step` plans the wheel input that brings an
element inside nested frames into view.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from msgspec import structs

from .observed import Element, Entry, Observed, Slot

MAX_FRAMES = 64  # documents read per observation, main frame included
MAX_DEPTH = 8  # nesting depth of frames read
MAX_REFS = 100_000  # ref numbers remembered per main document before the table starts over


@dataclass(slots=True)
class HostFrame:
    """A frame as the engine exposes it; `handle` is the engine's own object, opaque here."""

    name: str
    url: str
    w: float
    h: float
    children: list[HostFrame] = field(default_factory=list)
    handle: object = None

    def walk(self, path: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], HostFrame]]:
        """Every frame of the tree with its path of child indices, breadth first."""
        out: list[tuple[tuple[int, ...], HostFrame]] = []
        queue = [(path, self)]
        while queue:
            p, f = queue.pop(0)
            out.append((p, f))
            queue.extend(((*p, i), c) for i, c in enumerate(f.children))
        return out

    def at(self, path: tuple[int, ...]) -> HostFrame | None:
        f: HostFrame | None = self
        for i in path:
            if f is None or i >= len(f.children):
                return None
            f = f.children[i]
        return f


def _same_size(s: Slot, f: HostFrame) -> bool:
    # the engine reports -1 when it has no size (not laid out): no evidence either way
    if f.w < 0 or f.h < 0:
        return True
    return abs(s.w - f.w) <= 1.5 and abs(s.h - f.h) <= 1.5


# PLR0912: the pairing rules, in order
def match(slots: list[Slot], frames: list[HostFrame]) -> dict[int, int]:  # noqa: PLR0912
    """Slot number -> index into `frames` (a parent's child frames). Each pairing is unambiguous
    or made in document order: by name (unique on both sides), then by URL (the k-th slot with a
    src to the k-th frame at that URL, sizes agreeing), then by size in order. A slot left over
    has no frame (not created yet, or gone); a frame left over has no rendered slot (hidden)."""
    pairs: dict[int, int] = {}
    free = set(range(len(frames)))

    def take(slot: Slot, index: int) -> None:
        pairs[slot.n] = index
        free.discard(index)

    for s in slots:
        if not s.name:
            continue
        same = [i for i in free if frames[i].name == s.name]
        if len(same) == 1 and sum(1 for o in slots if o.name == s.name) == 1:
            take(s, same[0])
    by_url: dict[str, list[Slot]] = {}
    for s in slots:
        if s.n not in pairs and s.src and s.src not in ("about:blank", "about:srcdoc"):
            by_url.setdefault(s.src, []).append(s)
    for url, group in by_url.items():
        found = sorted(i for i in free if frames[i].url == url)
        if len(found) == len(group):
            for s, i in zip(group, found, strict=True):
                if _same_size(s, frames[i]):
                    take(s, i)
        else:
            for s in group:
                fit = [i for i in found if i in free and _same_size(s, frames[i])]
                if len(fit) == 1:
                    take(s, fit[0])
    for s in slots:
        if s.n in pairs:
            continue
        # a frame whose URL is some slot's src belongs to that slot, not to this one
        claimed = {s2.src for s2 in slots if s2.n not in pairs and s2 is not s}
        fit = [
            i
            for i in sorted(free)
            if _same_size(s, frames[i]) and (frames[i].url == s.src or frames[i].url not in claimed)
        ]
        if fit:
            take(s, fit[0])
    return pairs


@dataclass(frozen=True, slots=True)
class FrameDoc:
    """One document of an observation, as the host keeps it (private): its registry id and key,
    where it sits (parent document index, the iframe's number there, the engine's child path)."""

    id: str
    key: tuple[float, int]
    parent: int = -1
    slot: int = 0
    path: tuple[int, ...] = ()
    label: str = ""


@dataclass(slots=True)
class FrameRead:
    """One document's script answer with the reads (or notes) of its slots."""

    answer: Observed
    doc: FrameDoc
    children: dict[int, FrameRead] = field(default_factory=dict)
    notes: dict[int, str] = field(default_factory=dict)


@dataclass(slots=True)
class RefTable:
    """Public ref numbers for (document id, registry number), per main document: unique across
    frames, and the same element keeps its number across observations of the document."""

    seq: int
    numbers: dict[tuple[str, int], int] = field(default_factory=dict)
    next: int = 1

    def public(self, doc: str, n: int) -> int:
        key = (doc, n)
        found = self.numbers.get(key)
        if found is None:
            if len(self.numbers) >= MAX_REFS:
                self.numbers.clear()  # numbers are never reused: only stability is lost
            found = self.numbers[key] = self.next
            self.next += 1
        return found


@dataclass(slots=True)
class Merged:
    answer: Observed  # the documents' answers as one, for observations.build
    docs: list[FrameDoc]
    locators: dict[int, tuple[int, int]]  # public number -> (document index, registry number)


_Emitted = tuple[list[Entry], list[Element], list[tuple[int, str]]]


class _Merger:
    def __init__(self, table: RefTable) -> None:
        self.table = table
        self.contexts: list[str] = []
        self.index: dict[str, int] = {}
        self.docs: list[FrameDoc] = []
        self.locators: dict[int, tuple[int, int]] = {}
        self.omitted = 0
        self.clipped = 0

    def ctx(self, answer: Observed, i: int) -> int:
        """Context `i` of a document's answer in the pooled contexts (-1: none)."""
        table = answer.contexts
        if not 0 <= i < len(table):
            return -1
        s = table[i]
        j = self.index.get(s)
        if j is None:
            j = self.index[s] = len(self.contexts)
            self.contexts.append(s)
        return j

    def pub(self, di: int, ref: str) -> str:
        n = self.table.public(self.docs[di].id, int(ref[1:]))
        self.locators[n] = (di, int(ref[1:]))
        return f"e{n}"

    def emit(self, fr: FrameRead, parent: int) -> _Emitted:
        """One document's content, elements and signatures, its frames' spliced in."""
        di = len(self.docs)
        self.docs.append(replace(fr.doc, parent=parent))
        answer = fr.answer
        self.omitted += answer.omitted
        self.clipped += answer.clipped
        # elements first, frames emitted where their iframe is: public numbers follow document order
        reads: dict[int, _Emitted] = {}
        slots_at: dict[int, list[int]] = {}
        for s in answer.slots:
            slots_at.setdefault(s.insert_at, []).append(s.n)
        own = answer.elements
        elements: list[Element] = []
        for i in range(len(own) + 1):
            for n in slots_at.get(i, []):
                child = fr.children.get(n)
                if child is not None and n not in reads:
                    reads[n] = self.emit(child, di)
                    elements.extend(reads[n][1])
            if i < len(own):
                e = own[i]
                elements.append(
                    structs.replace(e, context=self.ctx(answer, e.context), ref=self.pub(di, e.ref))
                )
        for n, child in fr.children.items():
            if n not in reads:
                reads[n] = self.emit(child, di)
        content: list[Entry] = []
        for item in answer.content:
            c = self.ctx(answer, item.context)
            if item.kind == "frame" and item.frame is not None:
                n = item.frame
                if n in reads:
                    content.extend(reads[n][0])
                    continue
                content.append(Entry("frame", fr.notes.get(n, "frame (not read)"), c))
                continue
            refs = [self.pub(di, r) for r in item.refs]
            content.append(structs.replace(item, context=c, refs=refs))
        sigs = [(self.table.public(fr.doc.id, n), s) for n, s in answer.signatures]
        for r in reads.values():
            sigs.extend(r[2])
        return content, elements, sigs


def merge(root: FrameRead, table: RefTable, max_entries: int = 5000) -> Merged:
    """The documents' answers as one, in document order: a frame's content replaces its slot's
    placeholder, its elements go where the slot was met; contexts are pooled, refs made public.
    When content and elements together exceed `max_entries`, content is cut from the end."""
    m = _Merger(table)
    content, elements, sigs = m.emit(root, -1)
    omitted = m.omitted
    if len(content) + len(elements) > max_entries:
        keep = max(0, max_entries - len(elements))
        omitted += len(content) - keep
        del content[keep:]
    # the main document's own fields pass as they are (url, title, viewport, ...), less the ones
    # frames add for the host
    answer = structs.replace(
        root.answer,
        contexts=m.contexts,
        content=content,
        elements=elements,
        signatures=sigs,
        omitted=omitted,
        clipped=m.clipped,
        frame_id="",
        slots=[],
        visited=0,
        used_bytes=0,
        used_element_bytes=0,
    )
    return Merged(answer, m.docs, m.locators)


@dataclass(frozen=True, slots=True)
class Box:
    x: float
    y: float
    w: float
    h: float

    def inter(self, o: Box) -> Box:
        x, y = max(self.x, o.x), max(self.y, o.y)
        return Box(
            x,
            y,
            max(0.0, min(self.x + self.w, o.x + o.w) - x),
            max(0.0, min(self.y + self.h, o.y + o.h) - y),
        )

    def has(self, px: float, py: float) -> bool:
        return self.x <= px < self.x + self.w and self.y <= py < self.y + self.h

    @property
    def empty(self) -> bool:
        return self.w < 1 or self.h < 1


@dataclass(frozen=True, slots=True)
class Level:
    """One document of the chain from the main frame to the target's frame: its viewport size
    and, except for the last, the content box of the next frame's iframe in its viewport."""

    vw: float
    vh: float
    slot: Box | None = None


def offsets(levels: list[Level]) -> list[tuple[float, float]]:
    """Each level's viewport origin in the main frame's viewport."""
    out = [(0.0, 0.0)]
    for lv in levels[:-1]:
        assert lv.slot is not None
        ox, oy = out[-1]
        out.append((ox + lv.slot.x, oy + lv.slot.y))
    return out


def visible(levels: list[Level]) -> list[Box]:
    """Each level's visible region in main-frame coordinates (its viewport clipped by every
    ancestor's)."""
    offs = offsets(levels)
    out: list[Box] = []
    for (ox, oy), lv in zip(offs, levels, strict=True):
        b = Box(ox, oy, lv.vw, lv.vh)
        out.append(b if not out else out[-1].inter(b))
    return out


@dataclass(frozen=True, slots=True)
class Wheel:
    x: float  # where, in the main frame's viewport
    y: float
    dx: int  # native wheel deltas (negative scrolls toward the bottom/right)
    dy: int


def _wheel_delta(d: float) -> int:
    # Chromium scrolls ~100 CSS px per 120 units of wheel angle; bounded per event
    return -max(-1200, min(1200, round(d * 1.2))) if abs(d) >= 1 else 0


def free_point(region: Box, avoid: Box | None) -> tuple[float, float]:
    """A point of `region` outside `avoid` (the nested frame, which would take the wheel), in
    the largest strip left; the region's center when the frame fills it."""
    a = region.inter(avoid) if avoid is not None else None
    if a is None or a.empty:
        return region.x + region.w / 2, region.y + region.h / 2
    strips = [
        Box(region.x, region.y, region.w, a.y - region.y),
        Box(region.x, a.y + a.h, region.w, region.y + region.h - a.y - a.h),
        Box(region.x, region.y, a.x - region.x, region.h),
        Box(a.x + a.w, region.y, region.x + region.w - a.x - a.w, region.h),
    ]
    best = max(strips, key=lambda b: max(0.0, b.w) * max(0.0, b.h))
    if best.w < 2 or best.h < 2:
        return region.x + region.w / 2, region.y + region.h / 2
    return best.x + best.w / 2, best.y + best.h / 2


def scroll_step(levels: list[Level], px: float, py: float) -> Wheel | None:
    """The next wheel event that brings the point (px, py) of the last level's viewport (an
    element's center) into view through every frame, or None when it is in view. Outermost
    first: a level aims at the part of the next iframe nearest the point, so the frame shows
    before the wheel goes inside it; the wheel goes to a point of the level's visible region
    outside the nested frame."""
    offs = offsets(levels)
    vis = visible(levels)
    last = len(levels) - 1
    gx, gy = offs[last][0] + px, offs[last][1] + py  # the point in main-frame coordinates
    for i, lv in enumerate(levels):
        qx, qy = gx - offs[i][0], gy - offs[i][1]
        if i < last:
            s = lv.slot
            assert s is not None
            mx, my = min(8.0, s.w / 4), min(8.0, s.h / 4)
            qx = min(max(qx, s.x + mx), s.x + s.w - mx)
            qy = min(max(qy, s.y + my), s.y + s.h - my)
        if 0 <= qx < lv.vw and 0 <= qy < lv.vh:
            continue
        if vis[i].empty:
            return None  # nothing of this frame shows: no point to send a wheel to
        avoid = None
        if i < last and lv.slot is not None:
            sl = lv.slot
            assert sl is not None
            avoid = Box(offs[i][0] + sl.x, offs[i][1] + sl.y, sl.w, sl.h)
        wx, wy = free_point(vis[i], avoid)
        dy = qy - lv.vh / 2
        dx = qx - lv.vw / 2 if not 0 <= qx < lv.vw else 0.0
        return Wheel(wx, wy, _wheel_delta(dx), _wheel_delta(dy))
    return None


def shown(levels: list[Level], px: float, py: float) -> bool:
    """Whether the last level's point (px, py) lies in the visible region of every level."""
    offs = offsets(levels)
    return visible(levels)[-1].has(offs[-1][0] + px, offs[-1][1] + py)
