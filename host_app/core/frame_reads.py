"""Frames of an observation in the host (docs/observations.md "Frames"): reading every frame's
document in its own isolated world, finding a document's frame again for revalidation and ref
actions, and waiting for frames after a batch. No Qt here: the engine hands in an `ObsDriver`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bridge_protocol import ErrorId, SvcError

from ..logic import aio
from ..logic import frames as fl
from ..logic.observed import Observed
from ..logic.page_answers import RefCheck
from . import js, observe_js, operations
from .kept import Kept
from .page_driver import FrameDriver, ObsDriver

NAV_SETTLE = 0.15
FRAME_SETTLE_MAX = 5.0

MAX_VISITED, MAX_ENTRIES, MAX_BYTES = 50_000, 5_000, 512 * 1024


@dataclass
class _Used:
    """What the documents read so far used of the bounds (spec §8), all frames together."""

    visited: int = 0
    content: int = 0
    elements: int = 0
    bytes: int = 0
    el_bytes: int = 0

    def add(self, answer: Observed) -> None:
        self.visited += answer.visited
        self.content += len(answer.content)
        self.elements += len(answer.elements)
        self.bytes += answer.used_bytes
        self.el_bytes += answer.used_element_bytes

    def full(self) -> bool:
        return self.visited >= MAX_VISITED or (
            self.content >= MAX_ENTRIES and self.elements >= MAX_ENTRIES
        )

    def left(self) -> dict[str, object]:
        return {
            "v": max(0, MAX_VISITED - self.visited),
            "e": max(0, MAX_ENTRIES - self.content),
            "el": max(0, MAX_ENTRIES - self.elements),
            "b": max(0, MAX_BYTES - self.bytes),
            "eb": max(0, MAX_BYTES - self.el_bytes),
        }


async def read(page: FrameDriver, tree: fl.HostFrame, root: fl.FrameRead, mode: str) -> None:
    """Read the documents of the frames below the main frame's, depth first in document order,
    each in its own isolated world with what the bounds leave; a slot with no frame, or over the
    bounds, gets a note instead."""
    used = _Used()
    used.add(root.answer)
    count = 1
    vp = root.answer.viewport
    top = fl.Box(0.0, 0.0, vp[2], vp[3])

    async def read(
        fr: fl.FrameRead,
        hf: fl.HostFrame,
        path: tuple[int, ...],
        off: tuple[float, float],
        clip: fl.Box,
    ) -> None:
        nonlocal count
        slots = fr.answer.slots
        pairs = fl.match(slots, hf.children)
        for s in slots:
            i = pairs.get(s.n)
            if i is None:
                fr.notes[s.n] = f"frame {s.src} (not read: the engine has no such frame)"
                continue
            child = hf.children[i]
            coff = (off[0] + s.x, off[1] + s.y)
            cclip = clip.inter(fl.Box(coff[0], coff[1], s.w, s.h))
            if mode == "visual" and cclip.empty:
                continue  # nothing of it shows: no element of it can be in a visual observation
            if count >= fl.MAX_FRAMES or len(path) >= fl.MAX_DEPTH or used.full():
                fr.notes[s.n] = f"frame {child.url} (not read: observation bounds)"
                fr.answer.omitted += 1
                continue
            budget = used.left()
            budget.update(
                pre=list(s.parts),
                lab=s.label,
                vis=[cclip.x - coff[0], cclip.y - coff[1], cclip.w, cclip.h],
            )
            count += 1
            answer = await page.run(observe_js.observe(mode, budget), child.handle)
            if answer is None:
                fr.notes[s.n] = f"frame {child.url} (not readable)"
                continue
            used.add(answer)
            doc = fl.FrameDoc(
                answer.frame_id,
                answer.key,
                slot=s.n,
                path=(*path, i),
                label=s.label or child.url,
            )
            sub = fl.FrameRead(answer, doc)
            fr.children[s.n] = sub
            await read(sub, child, (*path, i), coff, cclip)

    await read(root, tree, (), (0.0, 0.0), top)


def _stale(
    cause: str, kept: Kept, d: int, obs_id: str, *, ref: str | None, message: str
) -> SvcError:
    """OBSERVATION_STALE for a frame's document, as observations' own (same details)."""
    label = kept.docs[d].label if d < len(kept.docs) else ""
    details: dict[str, Any] = {"cause": cause, "observation_id": obs_id}
    if ref is not None:
        details["ref"] = ref
    return SvcError.of(
        ErrorId.OBSERVATION_STALE, f"the frame {label!r} {message}; observe again", **details
    )


async def resolve(
    page: FrameDriver,
    tree: fl.HostFrame,
    kept: Kept,
    obs_id: str,
    d: int,
    *,
    numbers: list[int],
    ref: str | None,
) -> tuple[object, RefCheck]:
    """The engine frame holding document `d` of the observation now, with the check script's
    answer there for its registry `numbers`; OBSERVATION_STALE when the document is gone: the
    frame navigated (its iframe is still in its parent) or left the document (it is not)."""
    doc = kept.docs[d]
    first = tree.at(doc.path)
    candidates = ([first] if first is not None else []) + [
        f for p, f in tree.walk() if p and f is not first
    ]
    for hf in candidates:
        v = await page.run(observe_js.check(numbers), hf.handle)
        if v is None or v.id != doc.id:
            continue
        key = v.key
        if key[0] != doc.key[0]:
            raise _stale(
                "navigated", kept, d, obs_id, ref=ref, message="navigated since the observation"
            )
        if key[1] != doc.key[1]:
            raise _stale(
                "document_replaced", kept, d, obs_id, ref=ref, message="had its document replaced"
            )
        return hf.handle, v
    if doc.parent <= 0:
        parent: object = tree.handle
    else:
        parent, _ = await resolve(page, tree, kept, obs_id, doc.parent, numbers=[], ref=ref)
    if await page.run(observe_js.slot(doc.slot), parent) is None:
        raise _stale("element_removed", kept, d, obs_id, ref=ref, message="left the document")
    raise _stale("navigated", kept, d, obs_id, ref=ref, message="navigated since the observation")


async def settle(page: ObsDriver, docs: list[fl.FrameDoc], deadline: float) -> None:
    """The engine reports no load of a frame: after a batch that acted inside frames, give a
    navigation it started time to commit, then wait (bounded) until those frames' documents are
    no longer loading."""
    await aio.sleep(page.loop, NAV_SETTLE)
    end = min(deadline - 0.5, page.loop.time() + FRAME_SETTLE_MAX)
    while page.loop.time() < end:
        tree = page.frames.frame_tree()
        states = []
        for doc in docs:
            hf = tree.at(doc.path)
            if hf is not None:
                states.append(await page.run(js.READY_STATE, hf.handle))
        if all(s in ("interactive", "complete", None) for s in states):
            return
        await aio.sleep(page.loop, operations.PROBE_INTERVAL)
