"""A fake page for the Qt-free host layers (operations, actions, observations, dispatch): a
virtual clock, a small document of elements, and the renderer's counters moved by the input it
receives. It implements `page_driver.PageDriver` and `page_driver.ObsDriver` (so
`page_driver.Session`), answering the isolated-world scripts by the script a call names
(`page_driver.Script`) with the structs of host_app.logic.page_answers. No Qt, no process."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bridge_protocol.selectors import DomNode, build_tree
from host_app.core.page_driver import Call, Focused, Script, Snapshot
from host_app.logic import aio
from host_app.logic.downloads import Mark
from host_app.logic.frames import HostFrame
from host_app.logic.observed import Observed
from host_app.logic.page_answers import ElementInfo, Loads, RefCheck, Tick, wire
from host_app.logic.page_events import PageEvent
from host_app.logic.readiness import Probe
from host_app.logic.traffic import CounterKey, Counters

T = TypeVar("T")


class FakeLoop:
    """`aio.Loop` on virtual time: `run` fires the earliest timer whenever the task waits."""

    class _Timer:
        def __init__(self, callback: Callable[[], None]) -> None:
            self.callback: Callable[[], None] | None = callback

        def cancel(self) -> None:
            self.callback = None

    def __init__(self) -> None:
        self.now = 0.0
        self._timers: list[tuple[float, int, FakeLoop._Timer]] = []
        self._seq = itertools.count()

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], None]) -> FakeLoop._Timer:
        timer = FakeLoop._Timer(callback)
        heapq.heappush(self._timers, (self.now + max(0.0, delay), next(self._seq), timer))
        return timer

    def run(self, coro: Coroutine[Any, None, T], limit: float = 600.0) -> T:
        task = aio.Task(coro)
        task.start()
        while not task.done:
            if not self._timers:
                raise AssertionError("the task waits on nothing the fake can resolve")
            when, _, timer = heapq.heappop(self._timers)
            self.now = max(self.now, when)
            if self.now > limit:
                raise AssertionError(f"the task still runs at {self.now:g} s of virtual time")
            if timer.callback is not None:
                timer.callback()
        if task.exception is not None:
            raise task.exception
        result: T = task.result
        return result


def done(value: Any) -> aio.Future[Any]:
    fut: aio.Future[Any] = aio.Future()
    fut.set_result(value)
    return fut


@dataclass
class El:
    """One element: the document index of the selector snapshot is also its registry number
    (the ref `e<N>` of an observation), so both kinds of target name the same element."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    box: tuple[float, float, float, float] = (100.0, 100.0, 80.0, 20.0)
    editable: bool = False
    value: str | None = None
    options: list[tuple[str, bool]] | None = None  # (value, disabled)
    selected: int = -1
    sig: str = ""

    def info(self) -> ElementInfo:
        x, y, w, h = self.box
        return ElementInfo(
            x=x,
            y=y,
            w=w,
            h=h,
            vw=800,
            vh=600,
            visible=True,
            disabled=False,
            readonly=False,
            editable=self.editable,
            focused=False,
            hit=True,
            value=self.value,
            options=None if self.options is None else list(self.options),
            selected=self.selected,
            tag=self.tag,
        )


class FakeDownloads:
    def __init__(self) -> None:
        self.settled: list[bool] = []

    def mark(self) -> Mark:
        return Mark(0, 0)

    async def settle(self, mark: Mark, deadline: float, *, clicked: bool = False) -> None:
        self.settled.append(clicked)


class FakePage:  # noqa: PLR0904  fakes PageDriver: a method per member
    def __init__(self, elements: list[El], loop: FakeLoop | None = None) -> None:
        self._loop = loop or FakeLoop()
        self.elements = elements
        self.doc_key = (1.0, 1)  # the document's (time origin, registry id)
        self.inputs: list[tuple[Any, ...]] = []  # what a person's mouse and keyboard did
        self.focused: int | None = None
        self.counters = {"f": 0, "m": 0, "u": 0, "k": 0}
        self.failure: tuple[int, str, str] | None = None
        self.last_status: int | None = 200
        self.pointer: tuple[float, float] | None = None
        self.paused = False
        self.page_id = 0
        self.load_starts = 0
        self.history_index = 0
        self.loading = False
        self.url = "http://site.test/"
        self._downloads = FakeDownloads()
        self.selections = 0
        self.records: list[tuple[str, str, dict[str, Any]]] = []
        self.outlined: list[tuple[float, float, float, float]] = []  # the window's outlines
        self.downloaded: dict[CounterKey, int] = {}  # the session's byte counters
        self.counting = False

    # -- what both drivers share -------------------------------------------------------------

    @property
    def loop(self) -> aio.Loop:
        return self._loop

    @property
    def downloads(self) -> FakeDownloads:
        return self._downloads

    # the page's parts (page_driver: `input`, `dom`, `frames`, `captures`, `traffic`,
    # `events`) are the fake itself: one object records what every part was asked

    @property
    def input(self) -> FakePage:
        return self

    @property
    def dom(self) -> FakePage:
        return self

    @property
    def frames(self) -> FakePage:
        return self

    @property
    def captures(self) -> FakePage:
        return self

    @property
    def traffic(self) -> FakePage:
        return self

    @property
    def events(self) -> FakePage:
        return self

    def run(self, call: Call[T], frame: object = None) -> aio.Future[T]:
        """The answer of the script `call` names, a struct, read back by the call's own read
        from its wire form (as the page would send it)."""
        return done(call.read(wire(self.answer(call))))

    def answer(self, call: Call[Any]) -> object:  # noqa: PLR0911, PLR0912  one answer per script
        """What the page's script answers `call`, by its script (no document: None)."""
        match call.script:
            case Script.TOGETHER:  # js.together: each call's answer, in order
                return [wire(self.answer(part)) for part in call.args]
            case Script.TICK:
                self.counters["f"] += 1  # a frame passes between two reads
                c = self.counters
                return Tick(
                    self.doc_key[0], c["f"], c["m"], c["u"], c["k"], False, False, 0, False, c["f"]
                )
            case Script.CHECK:
                sigs: dict[str, str | None] = {str(i): e.sig for i, e in self._live()}
                return RefCheck(self.doc_key, signatures=sigs)
            case Script.ELEMENT:
                (n,) = call.args
                return self.elements[n].info() if n < len(self.elements) else None
            case Script.CHOICE:
                (n,) = call.args
                return self.elements[n].info().selected if n < len(self.elements) else None
            case Script.FOCUS:
                number, _, end, _ = call.args
                return self._focus(number, end)
            case Script.OBSERVE:
                return Observed(self.doc_key, url=self.url, viewport=(0, 0, 800, 600))
            case Script.SCROLL_DRAWN:
                return True
            case Script.SCROLL_OFFSETS:
                return [0, 0]
            case Script.VIEWPORT:
                return [800, 600]
            case Script.PROBE:
                return Probe(self.url, "complete", 100, 200, 1.0)
            case Script.ANIMATIONS_LEFT:
                return 0
            case Script.PENDING_LOADS:
                return Loads(quiet_ms=1000)
            case _:
                raise AssertionError(f"the fake page does not answer {call.script}")

    def _live(self) -> list[tuple[int, El]]:
        return list(enumerate(self.elements))

    def probe(self) -> aio.Future[Probe]:
        return done(Probe(self.url, "complete", 100, 200, 1.0, "Title"))

    def mouse_click(self, x: float, y: float, move: bool, ctrl: bool = False) -> None:
        self.inputs.append(("click", x, y, move, ctrl))
        self.pointer = (x, y)
        self.counters["u"] += 1

    def mouse_move(self, x: float, y: float) -> None:
        self.inputs.append(("move", x, y))
        self.pointer = (x, y)
        self.counters["m"] += 1

    def wheel(self, x: float, y: float, dx: int, dy: int) -> None:
        self.inputs.append(("wheel", x, y, dx, dy))

    def key(self, name: str, ctrl: bool = False) -> None:
        self.inputs.append(("key", name, ctrl))
        self.counters["k"] += 1
        el = self.elements[self.focused] if self.focused is not None else None
        if el is not None and el.options is not None and name in ("ArrowDown", "ArrowUp"):
            step = 1 if name == "ArrowDown" else -1
            enabled = [i for i, (_, off) in enumerate(el.options) if not off]
            at = enabled.index(el.selected) if el.selected in enabled else 0
            el.selected = enabled[max(0, min(len(enabled) - 1, at + step))]

    def targeted(self, box: tuple[float, float, float, float]) -> None:
        self.outlined.append(box)

    def type_text(self, text: str) -> None:
        self.inputs.append(("text", text))
        self.counters["k"] += len(text.encode("utf-16-le")) // 2
        if self.focused is not None:
            el = self.elements[self.focused]
            el.value = (el.value or "") + text

    def grab(self, full_page: bool, height: int) -> aio.Future[Any]:
        raise AssertionError("no image in these tests")

    def save_image(self, image: Any, path: str, fmt: str, quality: int | None) -> int:
        raise AssertionError("no image in these tests")

    def selected(self) -> None:
        self.selections += 1

    def log(self, category: str, message: str, **data: Any) -> None:
        self.records.append((category, message, data))

    # -- PageDriver: the selector snapshot ---------------------------------------------------

    def snapshot(self) -> aio.Future[Snapshot]:
        nodes = [
            DomNode(i, e.tag, dict(e.attrs), -1 if i == 0 else 0)
            for i, e in enumerate(self.elements)
        ]
        build_tree(nodes)
        hrefs = [(i, e.attrs["href"]) for i, e in enumerate(self.elements) if "href" in e.attrs]
        return done(Snapshot(nodes, hrefs))

    def element(self, node: DomNode) -> aio.Future[ElementInfo | None]:
        el = self.elements[node.index] if node.index < len(self.elements) else None
        if el is None or el.tag != node.tag:
            return done(None)
        return done(el.info())

    def focus(self, node: DomNode, end: bool = False) -> aio.Future[Focused]:
        return done(self._focus(node.index, end))

    def _focus(self, index: int, end: bool) -> Focused:
        """As the focus scripts: the caret goes to the end of an editable's text, but not of
        an email or number input's (no selection API there)."""
        self.focused = index
        el = self.elements[index]
        if end and el.editable and el.attrs.get("type") not in ("email", "number"):
            return Focused.AT_END
        return Focused.YES

    def load(self, url: str) -> None:
        self.url = url

    def history(self, how: str) -> bool:
        return False

    def stop(self) -> None:
        pass

    def to_html(self) -> aio.Future[str]:
        return done("<html><body>x</body></html>")

    def read(self) -> aio.Future[Counters]:
        return done(dict(self.downloaded))

    def count(self, on: bool) -> aio.Future[None]:
        self.counting = on
        return done(None)

    def document_size(self) -> aio.Future[tuple[int, int, int, int]]:
        return done((800, 600, 800, 600))

    def title(self) -> str:
        return "Title"

    # -- ObsDriver: observations and frames --------------------------------------------------

    def page_open(self, page_id: int) -> bool:
        return page_id == self.page_id

    def frame_tree(self) -> HostFrame:
        return HostFrame("", self.url, 800, 600, [], "main")

    def focus_view(self) -> None:
        pass

    def take(self) -> tuple[list[PageEvent], int]:
        return [], 0
