"""Observations in the host (docs/observations.md): observe, keep the private locators, run ref
actions after revalidation. No Qt here: the engine hands in an `ObsDriver` (its SessionBrowser).

Private locators are (document, registry number, signature): the registry number names a WeakRef
held in the isolated world's registry of that document (observe_js), the document is the main
frame's or a frame's (`logic.frames.FrameDoc`), the signature is tag|role|name at observation time.
Public refs are numbered by the host (`RefTable`), unique across frames. They stay in
`ObservationStore`; nothing of them goes over the bridge.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, assert_never

import msgspec
from msgspec import structs

from bridge_protocol import ErrorId, Observation, SvcError
from bridge_protocol import observation as wire
from bridge_protocol.actions import (
    RefAction,
    RefClear,
    RefClick,
    RefHover,
    RefPress,
    RefScroll,
    RefSelect,
    RefType,
    RefWait,
)

from ..logic import aio
from ..logic import frames as fl
from ..logic import page_answers as answers
from ..logic.observed import Element, Entry, Observed
from ..logic.page_answers import Loads, RefCheck
from ..logic.page_events import PageEvent
from ..logic.person import needs_person
from . import frame_reads, js, observe_js, operations
from .actions import act
from .kept import Kept, Key
from .page_driver import Call, Focused, ObsDriver
from .progress import (
    LoadMark,
    navigation_started,
    scroll_done,
)
from .ref_target import Prepared, RefTarget

KEEP = 64  # locator sets kept; the agent retains 32 observations, so a retained one is always here
DOCUMENTS_KEPT = 32  # per session: documents whose sequence number is remembered
MAX_SEMANTICS = 512 * 1024


@dataclass
class _Documents:
    last: int = 0
    seen: OrderedDict[Key, int] = field(default_factory=OrderedDict)


@dataclass
class ObservationStore:
    folder: Path
    kept: OrderedDict[str, Kept] = field(default_factory=OrderedDict)
    documents: dict[str, _Documents] = field(default_factory=dict)
    refs: dict[str, fl.RefTable] = field(default_factory=dict)

    def ref_table(self, session_id: str, seq: int) -> fl.RefTable:
        """The session's public ref numbers for its current main document (sequence `seq`)."""
        table = self.refs.get(session_id)
        if table is None or table.seq != seq:
            table = self.refs[session_id] = fl.RefTable(seq)
        return table

    def sequence(self, session_id: str, key: Key) -> int:
        """A new document gets the next number; a document seen before keeps its number (the
        opener, current again after its popup closed, is the same document as before)."""
        docs = self.documents.setdefault(session_id, _Documents())
        seq = docs.seen.get(key)
        if seq is None:
            docs.last += 1
            seq = docs.last
        docs.seen[key] = seq
        docs.seen.move_to_end(key)
        while len(docs.seen) > DOCUMENTS_KEPT:
            docs.seen.popitem(last=False)
        return seq

    def add(self, obs_id: str, kept: Kept) -> None:
        self.kept[obs_id] = kept
        while len(self.kept) > KEEP:
            _, old = self.kept.popitem(last=False)
            _remove(old.image)

    def image_path(self, obs_id: str) -> Path:
        return self.folder / f"{obs_id}.png"

    def drop_session(self, session_id: str) -> None:
        for obs_id in [k for k, v in self.kept.items() if v.session_id == session_id]:
            _remove(self.kept.pop(obs_id).image)
        self.documents.pop(session_id, None)
        self.refs.pop(session_id, None)

    def clear(self) -> None:
        self.kept.clear()
        shutil.rmtree(self.folder, ignore_errors=True)


def _remove(path: Path | None) -> None:
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()


def _stale(cause: str, obs_id: str, ref: str | None, message: str) -> SvcError:
    details: dict[str, Any] = {"cause": cause, "observation_id": obs_id}
    if ref is not None:
        details["ref"] = ref
    return SvcError.of(ErrorId.OBSERVATION_STALE, message, **details)


# room for the counters, set after the clip (`"omitted_node_count":N,"clipped_text_count":N,`)
_COUNTERS_ROOM = 64
# seconds before an observation's read is tried once more
RETRY_READ = 0.3


def _clip_size(obs: dict[str, Any]) -> int:
    """Drop entries from the end (content first, then elements) until the semantics fit 512 KiB;
    context markers left at a list's end go with them. Returns the entries dropped."""
    size = _COUNTERS_ROOM + len(json.dumps(obs, ensure_ascii=False, separators=(",", ":")).encode())
    if size <= MAX_SEMANTICS:
        return 0
    dropped = 0
    for name in ("content", "elements"):
        items = obs.get(name) or []
        while items and size > MAX_SEMANTICS:
            item = items.pop()
            size -= len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode()) + 1
            dropped += not isinstance(item, int)
        while items and isinstance(items[-1], int):
            items.pop()
        if not items:
            obs.pop(name, None)
    return dropped


def build(
    answer: Observed,
    *,
    obs_id: str,
    seq: int,
    mode: str,
    captured_at: str,
    events: Sequence[PageEvent] = (),
    events_dropped: int = 0,
) -> tuple[dict[str, Any], dict[int, str]]:
    """The public observation and the private signatures, from the script's answer; the page
    events since the last observation come first in `content` (also in visual mode). The header
    is compact (docs/observations.md "Top level"): the time in ISO 8601's basic format, `mode`
    only when not semantic, geometry as arrays, counters only when non-zero; `url` is for the
    agent, which sends it once per response (bridge_protocol.observation.for_page)."""
    obs: dict[str, Any] = {
        "id": obs_id,
        "seq": seq,
        "at": wire.basic_time(captured_at),
        "url": answer.url,
    }
    if answer.title:
        obs["title"] = answer.title
    if mode != "semantic":
        obs["mode"] = mode
    person = needs_person(answer.person)
    if person is not None:
        obs["needs_person"] = msgspec.to_builtins(person)
    obs["vp"] = [int(v) for v in answer.viewport]
    obs["doc"] = [int(v) for v in answer.document]
    contexts = list(answer.contexts)
    content = [Entry.of(e) for e in events]
    if mode != "visual":
        content.extend(answer.content)
    elements = list(answer.elements)
    if mode == "visual":
        used = sorted({e.context for e in elements if e.context >= 0})
        remap = {old: new for new, old in enumerate(used)}
        contexts = [contexts[i] for i in used]
        elements = [
            e if e.context < 0 else structs.replace(e, context=remap[e.context]) for e in elements
        ]
    # the observation's encoding reads the entries in the script's form
    obs.update(
        wire.encode_semantics(obs["url"], contexts, answers.wire(content), answers.wire(elements))
    )
    omitted = answer.omitted + events_dropped + _clip_size(obs)
    kept_refs = {e[0] for e in obs.get("elements", []) if isinstance(e, list)}
    sigs = {n: s for n, s in answer.signatures if f"e{n}" in kept_refs}
    if omitted:
        obs["omitted_node_count"] = omitted
    if answer.clipped:
        obs["clipped_text_count"] = answer.clipped
    obs["truncated"] = bool(omitted or answer.clipped)
    return obs, sigs


def _labels(elements: list[Element], kept: dict[int, str]) -> dict[int, tuple[str, str]]:
    out = {}
    for e in elements:
        if e.ref[1:].isdigit() and int(e.ref[1:]) in kept:
            out[int(e.ref[1:])] = (e.role, e.name)
    return out


def new_id() -> str:
    return f"obs_{secrets.token_hex(6)}"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


async def observe(
    page: ObsDriver,
    store: ObservationStore,
    session_id: str,
    mode: str,
    seen: Observed | None = None,
) -> Observation:
    """Read the page now (`seen`: the main document's read, if it was just read); keep the
    locators; add the viewport PNG for hybrid and visual."""
    captured_at = _now()
    tree = page.frames.frame_tree()
    answer = seen or await page.run(observe_js.observe(mode))
    if answer is None:
        # the document was being replaced (a popup leaving about:blank, a late commit): read
        # the one that replaced it once more before failing
        await aio.sleep(page.loop, RETRY_READ)
        tree = page.frames.frame_tree()
        answer = await page.run(observe_js.observe(mode))
    if answer is None:
        raise SvcError.of(
            ErrorId.SEMANTIC_EXTRACTION_FAILED,
            "the renderer did not produce a semantic snapshot (no document, or the script failed)",
        )
    key: Key = answer.key
    seq = store.sequence(session_id, key)
    root = fl.FrameRead(answer, fl.FrameDoc(answer.frame_id, key))
    await frame_reads.read(page.frames, tree, root, mode)
    merged = fl.merge(root, store.ref_table(session_id, seq))
    obs_id = new_id()
    events, dropped = page.events.take()
    obs, sigs = build(
        merged.answer,
        obs_id=obs_id,
        seq=seq,
        mode=mode,
        captured_at=captured_at,
        events=events,
        events_dropped=dropped,
    )
    kept = Kept(session_id, key, seq, sigs, page=page.page_id, docs=merged.docs)
    kept.locators = {n: merged.locators[n] for n in sigs if n in merged.locators}
    kept.labels = _labels(merged.answer.elements, sigs)
    if mode in ("hybrid", "visual"):
        image = await page.captures.grab(False, obs["vp"][3])
        path = store.image_path(obs_id)
        size = page.captures.save_image(image, str(path), "png", None)
        kept.image = path
        w, h = int(image.width()), int(image.height())
        vw, vh = obs["vp"][2] or 1, obs["vp"][3] or 1
        obs["image"] = {
            "output_path": str(path),
            "bytesize": size,
            "format": "png",
            "mime_type": "image/png",
            "width": w,
            "height": h,
            "scale_x": w / vw,
            "scale_y": h / vh,
        }
    store.add(obs_id, kept)
    return msgspec.convert(obs, Observation)


def _check_sigs(v: RefCheck, kept: Kept, obs_id: str, numbers: list[int]) -> None:
    for n in numbers:
        now = v.signatures.get(str(kept.locate(n)[1]))
        if now is None:
            raise _stale("element_removed", obs_id, f"e{n}", f"e{n} left the document")
        if now != kept.sigs[n]:
            raise _stale(
                "element_changed", obs_id, f"e{n}", f"e{n} changed its role or name; observe again"
            )


# --- ref actions --------------------------------------------------------------------------------


async def revalidate(page: ObsDriver, kept: Kept, obs_id: str, numbers: list[int]) -> None:
    """OBSERVATION_STALE unless the page (the session's root page or a popup) holds the
    observation's document, each frame holding a target holds the document it had, and every
    target still has its signature."""
    call = _check(page, kept, obs_id, numbers)
    await _verify(page, kept, obs_id, numbers, await page.run(call))


def _check(page: ObsDriver, kept: Kept, obs_id: str, numbers: list[int]) -> Call[RefCheck | None]:
    """The main document's check of `revalidate`, once the page is known to be the
    observation's."""
    first = f"e{numbers[0]}" if numbers else None
    if kept.page != page.page_id:
        # another page of the session is current: for the agent the session's page moved
        if page.page_open(kept.page):
            message = "a popup is the session's current page now; observe it (its refs are new)"
        else:
            message = "the observation's page (a popup) closed; observe the current page again"
        raise _stale("navigated", obs_id, first, message)
    main = {kept.locate(n) for n in numbers}
    return observe_js.check(sorted(local for doc, local in main if doc == 0))


async def _verify(
    page: ObsDriver, kept: Kept, obs_id: str, numbers: list[int], v: RefCheck | None
) -> None:
    """`revalidate` on the main document's check answer `v`, then each frame's."""
    by_doc: dict[int, list[int]] = {}
    for n in numbers:
        by_doc.setdefault(kept.locate(n)[0], []).append(n)
    main = by_doc.pop(0, [])
    first = f"e{numbers[0]}" if numbers else None
    if v is None:
        raise _stale("navigated", obs_id, first, "the page holds no readable document now")
    key = v.key
    if key[0] != kept.key[0]:
        raise _stale(
            "navigated", obs_id, first, "the page navigated since the observation; observe again"
        )
    if key[1] != kept.key[1]:
        raise _stale(
            "document_replaced",
            obs_id,
            first,
            "the document was replaced since the observation; observe again",
        )
    _check_sigs(v, kept, obs_id, main)
    if not by_doc:
        return
    tree = page.frames.frame_tree()
    for d, ns in sorted(by_doc.items()):
        locals_ = sorted({kept.locate(n)[1] for n in ns})
        _, fv = await frame_reads.resolve(
            page.frames, tree, kept, obs_id, d, numbers=locals_, ref=f"e{ns[0]}"
        )
        _check_sigs(fv, kept, obs_id, ns)


async def run_ref_actions(
    page: ObsDriver,
    store: ObservationStore,
    *,
    session_id: str,
    obs_id: str,
    actions: Sequence[RefAction],
    deadline: float,
    mode: str,
) -> Observed | None:
    """The batch run on the refs of observation `obs_id`; the main document's reading in
    `mode` when it was read with the page after the batch (`_after_batch`), else None."""
    refs = [a.ref for a in actions if not isinstance(a, RefScroll | RefWait)]
    kept = store.kept.get(obs_id)
    if kept is None or kept.session_id != session_id:
        raise _stale(
            "evicted",
            obs_id,
            refs[0] if refs else None,
            f"observation {obs_id!r} is no longer kept by the engine; observe again",
        )
    numbers = []
    for ref in refs:
        n = int(ref[1:])
        if n not in kept.sigs:
            raise SvcError.of(
                ErrorId.ACTION_TARGET_NOT_FOUND,
                f"{ref} is not an element of observation {obs_id}",
                ref=ref,
            )
        numbers.append(n)
    # whole batch first: document sequence and every target before any input
    checked, first, before, loads = await _checked(page, kept, obs_id, numbers, actions[0])
    await _verify(page, kept, obs_id, numbers, checked)
    mark = page.downloads.mark()
    page.input.pointer = None
    for index, action in enumerate(actions):
        match action:
            case RefWait(seconds=seconds):
                await aio.sleep(page.loop, seconds)
            case RefScroll(delta_x=dx, delta_y=dy):
                await revalidate(page, kept, obs_id, [])
                vw, vh = await page.run(js.VIEWPORT)
                # after a click or hover of this batch the wheel goes where the mouse is (a
                # frame or scroll box under it scrolls, as for a person); else at the viewport's
                # center
                x, y = page.input.pointer if page.input.pointer is not None else (vw / 2, vh / 2)
                offsets = js.scroll_offsets(x, y)
                unscrolled = await page.run(offsets)
                page.input.wheel(x, y, dx, dy)
                await scroll_done(page, partial(page.run, offsets), unscrolled)
            case RefClick() | RefHover() | RefType() | RefClear() | RefPress() | RefSelect():
                if index > 0 or page.load_starts != before.starts:
                    first = None
                    # an earlier action may have changed the page: check this target again
                    number = int(action.ref[1:])
                    if index > 0 and await navigation_started(page, before):
                        await _replaced(page, kept, obs_id, number, index=index, deadline=deadline)
                    else:
                        await revalidate(page, kept, obs_id, [number])
                target = RefTarget(
                    page,
                    kept,
                    obs_id,
                    action.ref,
                    what=f"{action.__struct_config__.tag} {action.ref}",  # "click e5"
                    scroll=action.scroll if isinstance(action, RefClick | RefHover) else True,
                    first=first,
                )
                first = None  # read for the first action only
                await act(target, action, deadline)
            case _:
                assert_never(action)
    after, seen = await _after_batch(page, before, loads, deadline, mode)
    clicked = await after.download_clicked(page)
    await page.downloads.settle(mark, deadline, clicked=clicked)
    framed = {kept.locate(n)[0] for n in numbers} - {0}
    if framed:
        await frame_reads.settle(page, [kept.docs[d] for d in sorted(framed)], deadline)
    # the page as the batch left it, read with the first read after the input, stands for the
    # observation's read when nothing was waited for since (no download, no frame's document)
    return seen if not framed and not clicked and page.downloads.mark() == mark else None


async def _checked(
    page: ObsDriver, kept: Kept, obs_id: str, numbers: list[int], first: RefAction
) -> tuple[RefCheck | None, Prepared | None, LoadMark, Loads]:
    """`revalidate`'s check of the batch's targets, the load mark and the loads, in one round
    trip; with them the first action's target's state where it is in the main document, and
    the input counters (its first read: no input comes between). A select is focused in it
    too, where it still has its document and signature (docs/decisions.md "A select's focus
    goes with the batch's check")."""
    check = _check(page, kept, obs_id, numbers)
    targeted = numbers and not isinstance(first, RefScroll | RefWait)
    doc, local = kept.locate(numbers[0]) if targeted else (-1, 0)
    if doc != 0:
        checked, before, loads = await LoadMark.with_loads(page, check)
        return checked, None, before, loads
    element = observe_js.element(local)
    focused: Focused | None = None
    if isinstance(first, RefSelect):
        expect = (kept.key, kept.sigs[numbers[0]])
        page.input.focus_view()
        call = js.together(check, element, observe_js.focus(local, expect=expect))
        (checked, info, focused), before, loads = await LoadMark.with_loads(page, call)
    else:
        (checked, info), before, loads = await LoadMark.with_loads(
            page, js.together(check, element)
        )
    counters = before.counters
    found = Prepared(info, counters, focused) if info and counters else None
    return checked, found, before, loads


async def _replaced(
    page: ObsDriver, kept: Kept, obs_id: str, number: int, *, index: int, deadline: float
) -> None:
    """An earlier action of the batch started a main-frame navigation: wait until it replaced
    the document (OBSERVATION_STALE: the target went with it) or ended without doing so (a
    download, a 204), then check the target. The action was sent to the old document
    meanwhile and reported done, its input lost with the page (python3-doc: type, click Go,
    type again: 10 of 10)."""
    try:
        while page.loading and page.loop.time() < deadline - 0.5:
            await revalidate(page, kept, obs_id, [number])
            await aio.sleep(page.loop, operations.PROBE_INTERVAL)
        await revalidate(page, kept, obs_id, [number])
    except SvcError as exc:
        if (exc.error.details or {}).get("cause") not in ("navigated", "document_replaced"):
            raise
        raise _stale(
            "navigated",
            obs_id,
            f"e{number}",
            f"an earlier action of this batch navigated the page: action {index + 1} and the "
            "rest were not run; observe the new page",
        ) from exc


async def _after_batch(
    page: ObsDriver, before: LoadMark, loads: Loads, deadline: float, mode: str
) -> tuple[operations.AfterInput, Observed | None]:
    """The page after the batch (`operations.after_input`); a document a navigation brought
    settles before the new observation (`operations.document_settled`). The main document's
    observation read with the first read after the input, when the page was still then
    (`operations.after_input_reading`): a round trip of a step's ten."""
    after, seen = await operations.after_input_reading(
        page, before, loads, deadline, observe_js.observe(mode)
    )
    if after.navigated:
        await operations.document_settled(page, deadline)
    return after, seen


def default_folder(data_dir: Path) -> Path:
    return data_dir / "Observations" / str(os.getpid())
