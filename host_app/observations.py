"""Observations in the host (docs/observations.md): observe, keep the private locators, run ref
actions after revalidation. No Qt here: the engine hands in an `ObsDriver` (its SessionBrowser).

Private locators are (document key, ref number, signature): the ref number names a WeakRef held
in the isolated world's registry of that document (observe_js), the signature is tag|role|name at
observation time. They stay in `ObservationStore`; nothing of them goes over the bridge.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from bridge_protocol import ErrorId, SvcError
from bridge_protocol import observation as wire
from bridge_protocol.selectors import DomNode

from . import observe_js, operations
from .logic import aio
from .logic.readiness import Probe

KEEP = 64  # locator sets kept; the agent retains 32 observations, so a retained one is always here
MAX_SEMANTICS = 512 * 1024
NAV_SETTLE = 0.15
Key = tuple[float, int]


class ObsDriver(Protocol):
    @property
    def loop(self) -> aio.Loop: ...

    load_starts: int
    loading: bool

    def run_js(self, code: str) -> aio.Future[Any]: ...
    def probe(self) -> aio.Future[Probe]: ...
    def mouse_click(self, x: float, y: float, move: bool) -> None: ...
    def mouse_move(self, x: float, y: float) -> None: ...
    def wheel(self, x: float, y: float, dx: int, dy: int) -> None: ...
    def key(self, name: str, ctrl: bool = False) -> None: ...
    def type_text(self, text: str) -> None: ...
    def focus_view(self) -> None: ...
    def grab(self, full_page: bool, height: int) -> aio.Future[Any]: ...
    def save_image(self, image: Any, path: str, fmt: str, quality: int | None) -> int: ...


@dataclass
class Kept:
    session_id: str
    key: Key
    seq: int
    sigs: dict[int, str]
    image: Path | None = None


@dataclass
class ObservationStore:
    folder: Path
    kept: OrderedDict[str, Kept] = field(default_factory=OrderedDict)
    documents: dict[str, tuple[Key, int]] = field(default_factory=dict)

    def sequence(self, session_id: str, key: Key) -> int:
        last = self.documents.get(session_id)
        if last is not None and last[0] == key:
            return last[1]
        seq = (last[1] if last else 0) + 1
        self.documents[session_id] = (key, seq)
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


def _clip_size(obs: dict[str, Any]) -> None:
    """Drop entries from the end (content first, then elements) until the semantics fit 512 KiB;
    context markers left at a list's end go with them."""
    size = len(json.dumps(obs, ensure_ascii=False, separators=(",", ":")).encode())
    if size <= MAX_SEMANTICS:
        return
    dropped = 0
    for name in ("content", "elements"):
        items = obs.get(name) or []
        while items and size > MAX_SEMANTICS:
            item = items.pop()
            size -= len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode()) + 1
            dropped += isinstance(item, list)
        while items and isinstance(items[-1], int):
            items.pop()
        if not items:
            obs.pop(name, None)
    obs["omitted_node_count"] += dropped


def build(
    raw: dict[str, Any], *, obs_id: str, seq: int, mode: str, captured_at: str
) -> tuple[dict[str, Any], dict[int, str]]:
    """The public observation and the private signatures, from the script's answer."""
    vp = raw.get("vp") or [0, 0, 0, 0]
    dc = raw.get("dc") or [0, 0]
    obs: dict[str, Any] = {
        "id": obs_id,
        "document_sequence": seq,
        "captured_at": captured_at,
        "url": str(raw.get("u", "")),
    }
    if raw.get("ti"):
        obs["title"] = str(raw["ti"])
    obs["mode"] = mode
    obs["viewport"] = {"x": int(vp[0]), "y": int(vp[1]), "w": int(vp[2]), "h": int(vp[3])}
    obs["document"] = {"w": int(dc[0]), "h": int(dc[1])}
    contexts = list(raw.get("cx") or [])
    content = [] if mode == "visual" else list(raw.get("ct") or [])
    elements = list(raw.get("el") or [])
    if mode == "visual":
        used = {e["c"] for e in elements if "c" in e}
        remap = {old: new for new, old in enumerate(sorted(used))}
        contexts = [contexts[i] for i in sorted(used)]
        for e in elements:
            if "c" in e:
                e["c"] = remap[e["c"]]
    if contexts:
        obs["contexts"] = contexts
    if content:
        obs["content"] = wire.encode_content(content, elements)
    if elements:
        obs["elements"] = wire.encode_elements(obs["url"], elements)
    obs["omitted_node_count"] = int(raw.get("om") or 0)
    obs["clipped_text_count"] = int(raw.get("cl") or 0)
    _clip_size(obs)
    kept_refs = {e[0] for e in obs.get("elements", []) if isinstance(e, list)}
    sigs = {int(n): str(s) for n, s in raw.get("sg") or [] if f"e{int(n)}" in kept_refs}
    obs["truncated"] = bool(obs["omitted_node_count"] or obs["clipped_text_count"])
    return obs, sigs


def new_id() -> str:
    return f"obs_{secrets.token_hex(6)}"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


async def observe(
    page: ObsDriver, store: ObservationStore, session_id: str, mode: str
) -> dict[str, Any]:
    """Read the page now; keep the locators; add the viewport PNG for hybrid and visual."""
    captured_at = _now()
    raw = await page.run_js(observe_js.observe(mode))
    if not isinstance(raw, dict) or not isinstance(raw.get("key"), list):
        raise SvcError.of(
            ErrorId.SEMANTIC_EXTRACTION_FAILED,
            "the renderer did not produce a semantic snapshot (no document, or the script failed)",
        )
    key: Key = (float(raw["key"][0]), int(raw["key"][1]))
    seq = store.sequence(session_id, key)
    obs_id = new_id()
    obs, sigs = build(raw, obs_id=obs_id, seq=seq, mode=mode, captured_at=captured_at)
    kept = Kept(session_id, key, seq, sigs)
    if mode in ("hybrid", "visual"):
        image = await page.grab(False, obs["viewport"]["h"])
        path = store.image_path(obs_id)
        size = page.save_image(image, str(path), "png", None)
        kept.image = path
        w, h = int(image.width()), int(image.height())
        vw, vh = obs["viewport"]["w"] or 1, obs["viewport"]["h"] or 1
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
    return obs


# --- ref actions --------------------------------------------------------------------------------


class _RefPage:
    """Adapts an ObsDriver to what `operations`' targeting helpers call, resolving refs (the
    node's index is the ref number) through the isolated-world registry."""

    def __init__(self, page: ObsDriver) -> None:
        self._page = page
        self.loop = page.loop

    def element(self, node: DomNode) -> aio.Future[operations.ElementInfo | None]:
        out: aio.Future[operations.ElementInfo | None] = aio.Future()
        src = self._page.run_js(observe_js.element(node.index))

        def done(f: aio.Future[Any]) -> None:
            try:
                v = f.result()
            except BaseException as exc:
                out.set_exception(exc)
                return
            out.set_result(operations.ElementInfo.from_js(v) if isinstance(v, dict) else None)

        src.add_done_callback(done)
        return out

    def snapshot(self) -> aio.Future[operations.Snapshot]:
        out: aio.Future[operations.Snapshot] = aio.Future()
        out.set_result(operations.Snapshot([], []))
        return out

    def focus(self, node: DomNode) -> aio.Future[bool]:
        self._page.focus_view()
        out: aio.Future[bool] = aio.Future()
        src = self._page.run_js(observe_js.focus(node.index))
        src.add_done_callback(lambda f: out.set_result(bool(f.result())))
        return out

    def wheel(self, x: float, y: float, dx: int, dy: int) -> None:
        self._page.wheel(x, y, dx, dy)

    def mouse_click(self, x: float, y: float, move: bool) -> None:
        self._page.mouse_click(x, y, move)


def _none(_: operations.Snapshot) -> DomNode | None:
    return None


async def revalidate(page: ObsDriver, kept: Kept, obs_id: str, numbers: list[int]) -> None:
    """OBSERVATION_STALE unless the page holds the observation's document and every target still
    has its signature."""
    v = await page.run_js(observe_js.check(sorted(set(numbers))))
    first = f"e{numbers[0]}" if numbers else None
    if not isinstance(v, dict) or not isinstance(v.get("key"), list):
        raise _stale("navigated", obs_id, first, "the page holds no readable document now")
    key = (float(v["key"][0]), int(v["key"][1]))
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
    sigs = v.get("s") or {}
    for n in numbers:
        now = sigs.get(str(n))
        if now is None:
            raise _stale("element_removed", obs_id, f"e{n}", f"e{n} left the document")
        if now != kept.sigs[n]:
            raise _stale(
                "element_changed", obs_id, f"e{n}", f"e{n} changed its role or name; observe again"
            )


async def run_ref_actions(
    page: ObsDriver,
    store: ObservationStore,
    *,
    session_id: str,
    obs_id: str,
    actions: list[dict[str, Any]],
    deadline: float,
) -> None:
    refs = [str(a["ref"]) for a in actions if "ref" in a]
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
    await revalidate(page, kept, obs_id, numbers)
    rp = _RefPage(page)
    starts = page.load_starts
    for index, action in enumerate(actions):
        kind = action["action"]
        if kind == "wait":
            await aio.sleep(page.loop, float(action["seconds"]))
            continue
        if kind == "scroll":
            await revalidate(page, kept, obs_id, [])
            dims = await page.run_js("JSON.stringify([innerWidth,innerHeight])")
            vw, vh = dims if isinstance(dims, list) else (800, 600)
            page.wheel(vw / 2, vh / 2, int(action.get("delta_x", 0)), int(action.get("delta_y", 0)))
            await aio.sleep(page.loop, operations.SCROLL_SETTLE)
            continue
        if index > 0 or page.load_starts != starts:
            # an earlier action may have changed the page: check this target again
            await revalidate(page, kept, obs_id, [int(action["ref"][1:])])
        await _ref_action(page, rp, action)
    await _after_batch(page, starts, deadline)


async def _ref_action(page: ObsDriver, rp: _RefPage, action: dict[str, Any]) -> None:
    kind = str(action["action"])
    ref = str(action["ref"])
    node = DomNode(int(ref[1:]), "", {}, -1)
    what = f"{kind} {ref}"
    driver: Any = rp
    if kind == "click":
        await operations._click_node(
            driver,
            node,
            _none,
            mouse_move=bool(action.get("mouse_move", True)),
            scroll=bool(action.get("scroll", True)),
            what=what,
        )
    elif kind == "hover":
        _, info = await operations._reachable(
            driver, node, _none, bool(action.get("scroll", True)), what
        )
        # two moves: Chromium dispatches mouseover on a moved pointer, once per frame
        page.mouse_move(info.cx + 1, info.cy + 1)
        await aio.sleep(page.loop, 0.03)
        page.mouse_move(info.cx, info.cy)
        await aio.sleep(page.loop, 0.1)
    elif kind == "type":
        _, info = await operations._focused_editable(driver, node, _none, what)
        tag = await page.run_js(observe_js.element(node.index))
        textarea = isinstance(tag, dict) and tag.get("tag") == "textarea"
        page.key("End", ctrl=info.value is None or textarea)
        page.type_text(str(action["text"]))
        await aio.sleep(page.loop, 0.02)
    elif kind == "clear":
        await operations._focused_editable(driver, node, _none, what)
        page.key("A", ctrl=True)
        page.key("Delete")
        await aio.sleep(page.loop, 0.02)
    elif kind == "press":
        await operations._info(driver, node, _none, what)
        if not await rp.focus(node):
            raise SvcError.of(
                ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element cannot take focus", ref=ref
            )
        page.key(str(action["key"]))
        await aio.sleep(page.loop, 0.02)
    elif kind == "select":
        await _select(page, rp, node, str(action["value"]), what)
    else:
        raise SvcError.of(ErrorId.VALIDATION_FAILED, f"unsupported ref action {kind!r}")


async def _select(page: ObsDriver, rp: _RefPage, node: DomNode, value: str, what: str) -> None:
    driver: Any = rp
    _, info = await operations._info(driver, node, _none, what)
    if info.options is None:
        raise SvcError.of(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: not a select element")
    if info.disabled:
        raise SvcError.of(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element is disabled")
    enabled = [i for i, (_, off) in enumerate(info.options) if not off]
    wanted = [i for i in enabled if info.options[i][0] == value]
    if not wanted:
        raise SvcError.of(
            ErrorId.ACTION_TARGET_NOT_FOUND,
            f"{what}: no enabled option has the value {value!r}",
            value=value,
        )
    target = wanted[0]
    if info.selected == target:
        return
    if not await rp.focus(node):
        raise SvcError.of(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: the element cannot take focus")
    for _ in range(len(info.options) + 1):
        if info.selected == target:
            return
        if info.selected < 0 or info.selected not in enabled:
            page.key("Home")
        elif info.selected < target:
            page.key("ArrowDown")
        else:
            page.key("ArrowUp")
        await aio.sleep(page.loop, 0.01)
        _, info = await operations._info(driver, node, _none, what)
    if info.selected != target:
        raise SvcError.of(ErrorId.ACTION_TARGET_NOT_FOUND, f"{what}: could not choose {value!r}")


async def _after_batch(page: ObsDriver, starts: int, deadline: float) -> None:
    """Let a navigation the batch started reach a readable document before the new observation."""
    await aio.sleep(page.loop, 0.05)
    if page.load_starts == starts and not page.loading:
        return
    while page.loop.time() < deadline - 0.5:
        p = await page.probe()
        if not page.loading and p.ready_state in ("interactive", "complete") and p.length > 0:
            break
        await aio.sleep(page.loop, operations.PROBE_INTERVAL)
    await aio.sleep(page.loop, NAV_SETTLE)


def default_folder(data_dir: Path) -> Path:
    return data_dir / "Observations" / str(os.getpid())
