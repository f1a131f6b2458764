"""What the Qt-free drivers of `core/` need of a page, in one place: the protocols that
`host_app.engine.session_browser.SessionBrowser` implements with QtWebEngine (and
tests/host/fakepage.py without it), with the plain values they speak (`Snapshot`, `Focused`),
and what a page is sent: a `Call`, a script named by `Script` with its arguments, whose answer
the page's one method `run` reads once into the call's type.

From the smallest to the whole: `Renderer` (scripts in the page, for the progress waits of
`progress`) and `Loading` (its load counters); `Pointer` (a page with its `Input`, what an action
sends), `Target` (an action's element: `actions.DomTarget` or `ref_target.RefTarget`) and
`DomPage` (a page with its `Dom`, what a selector's target needs); `Downloads`, `Captures`,
`Traffic`, `PageDriver` (the operations' page) and `Probing`; `FrameDriver` (reading and finding
frames), `Events` and `ObsDriver` (observations' page); and `Session`, both, as `dispatch` drives
it. A page's parts are its members (`page.input`, `page.dom`, `page.frames`, `page.captures`,
`page.traffic`, `page.downloads`, `page.events`): the engine's session implements each with a
part of its own, so no one class carries them all. The drivers import them from here
(tests/host/test_folders.py: no other module of `core/` declares a page protocol).
"""

from __future__ import annotations

import enum
import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from bridge_protocol.selectors import DomNode

from ..logic import aio
from ..logic import frames as fl
from ..logic.actionability import Box
from ..logic.downloads import Mark
from ..logic.page_answers import ElementInfo, Tick
from ..logic.page_events import PageEvent
from ..logic.readiness import Probe
from ..logic.traffic import Counters

T = TypeVar("T")

# --- a script sent to a page ---------------------------------------------------------------------


class Script(enum.Enum):
    """Which script a `Call` sends: its file in host_app/scripts/, or what the one-line reads
    that `js` writes out read. A fake page answers a call by this, never by its text."""

    ANIMATIONS_LEFT = "animations_left.js"
    CHECK = "ref_check.js"
    CHOICE = "choice.js"
    CONFORMANCE = "conformance_reader.js"
    DOC_SIZE = "doc_size.js"
    ELEMENT = "element.js"
    ELEMENT_AT = "element_at.js"
    FOCUS = "focus.js"
    FOCUS_AT = "focus_at.js"
    INNER_HEIGHT = "innerHeight"
    OBSERVE = "observe.js"
    OUTER_HTML = "outer_html.js"
    PENDING_LOADS = "pending_loads.js"
    PROBE = "load_probe.js"
    READY_STATE = "document.readyState"
    SCROLL_OFFSETS = "scroll_offsets.js"
    SCROLL_DRAWN = "I.sy===scrollY"
    SLOT = "slot.js"
    SNAPSHOT = "snapshot.js"
    TICK = "tick.js"
    TOGETHER = "together"  # several calls in one round trip (js.together), its args the calls
    VIEWPORT = "[innerWidth,innerHeight]"


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One script for a page's isolated world (built by `js` and `observe_js`): which it is and
    with what arguments (as its builder got them), its text as the page gets it, and how its
    answer is read: `read` takes the JSON the script returned, parsed (None: no answer, the
    document gone), and gives the typed answer, once, where it enters Python (`Renderer.run`)."""

    script: Script
    code: str
    read: Callable[[object], T]
    args: tuple[Any, ...] = ()
    # a short form of `code` that calls the script's function as the document's isolated world
    # keeps it (`kept`), answering UNKEPT where it has none yet (a new document): `code` then
    # keeps it (`Renderer.run` sends the stub first, and `code` after an UNKEPT)
    stub: str | None = None


# what a stub (`Call.stub`) answers where the world keeps no function of its script
UNKEPT = "__svc:unkept"


def unkept(answer: object) -> bool:
    """Whether a stub's answer (or one of a `together` stub's answers) is UNKEPT."""
    return answer == UNKEPT or (isinstance(answer, list) and any(unkept(a) for a in answer))


@functools.cache
def _kept_key(script: Script, function: str) -> str:
    """The key a function is kept under (JSON): hashed once per script text, not per call (the
    texts are module constants of up to 60 KB, built into a call at every read)."""
    return json.dumps(f"{script.name}:{hashlib.sha1(function.encode()).hexdigest()[:12]}")


def kept(script: Script, function: str, args: str) -> tuple[str, str]:
    """The code and stub of a call of `function` (a function expression's text) with `args`
    (the arguments' text). The code keeps the function in the isolated world's
    `__svcFns`, under its script and text's hash; the stub calls it from there. The shared
    library (observe_common.js, ~28 KB) is compiled anew for every text that differs (a
    ref's number is in it): 1.3 ms a read against 0.6 for the same text again and 0.3 for a
    short one, measured here."""
    key = _kept_key(script, function)
    fns = "(window.__svcFns||(window.__svcFns={}))"
    code = f"({fns}[{key}]={function})({args})"
    missing = json.dumps(json.dumps(UNKEPT))
    stub = f"(function(f){{return f?f({args}):{missing};}})({fns}[{key}])"
    return code, stub


# --- the renderer and its loads (progress) -------------------------------------------------------


class Renderer(Protocol):
    """What the progress waits need of a page."""

    @property
    def loop(self) -> aio.Loop: ...
    def run(self, call: Call[T], frame: object = None) -> aio.Future[T]:
        """`call` in the isolated world of the current page's main document, or of `frame` (a
        `HostFrame.handle`), its answer read by `call.read`."""
        ...


class Loading(Renderer, Protocol):
    @property
    def load_starts(self) -> int: ...
    @property
    def loading(self) -> bool: ...


# --- input and an action's target (actions) ------------------------------------------------------


class Input(Protocol):
    """The input an action sends to a page (real mouse, wheel and key events)."""

    pointer: tuple[float, float] | None  # where the last click or hover put the mouse

    def mouse_click(self, x: float, y: float, move: bool, ctrl: bool = False) -> None: ...
    def mouse_move(self, x: float, y: float) -> None: ...
    def wheel(self, x: float, y: float, dx: int, dy: int) -> None: ...
    def key(self, name: str, ctrl: bool = False) -> None: ...
    def type_text(self, text: str) -> None: ...
    def focus_view(self) -> None:
        """The page's view takes the keyboard focus (and the page a focus event)."""
        ...

    def targeted(self, box: Box) -> None:
        """The element an action is aimed at, where it is now (main viewport's CSS px): the
        window outlines it for the person over the view (never in the page)."""
        ...


class Pointer(Renderer, Protocol):
    """A page with its input."""

    @property
    def input(self) -> Input: ...


class Focused(enum.Enum):
    """What focusing an element did."""

    NO = "no"  # it cannot take focus
    YES = "yes"
    AT_END = "end"  # focused, and its caret put after its text (asked with `end`)

    @classmethod
    def of(cls, answer: object) -> Focused:
        """The focus scripts' answer; anything else (a document gone meanwhile) is NO."""
        return next((f for f in cls if f.value == answer), cls.NO)


@dataclass(slots=True)
class Snapshot:
    nodes: list[DomNode]
    hrefs: list[tuple[int, str]]  # anchors' resolved hrefs (index, href)


class Target(Protocol):
    """The element an action is aimed at. `what` names the action and its target in messages
    ("click", "click e5"); `ids` names the target in error details."""

    @property
    def page(self) -> Pointer: ...
    @property
    def what(self) -> str: ...
    @property
    def ids(self) -> dict[str, Any]: ...

    async def element(self) -> ElementInfo | None:
        """The element's live state, in the main frame's viewport; None when the document no
        longer holds it where the target last found it."""
        ...

    async def relocate(self) -> bool:
        """After `element` answered None: find the element again (False: it is gone)."""
        ...

    def element_call(self) -> Call[ElementInfo | None] | None:
        """`element` as one read of the main document, which may go with another (None: it
        is read in steps, through frames)."""
        ...

    def choice_call(self) -> Call[int | None] | None:
        """A select's chosen option (its index) as one read of the main document (None: it
        is read with the element's state)."""
        ...

    def first_read(self) -> tuple[ElementInfo, Tick] | None:
        """The element's state and the input counters if they were read before the action, with
        no input since (a batch's check read them); once: later reads are the page's."""
        ...

    async def focus(self, *, end: bool = False) -> tuple[Focused, Tick]:
        """Focus the element; with `end`, its caret after its text where the control allows
        (a text control's or a contenteditable's selection, set from the isolated world). With
        the page's input counters read after it: the `before` of the keys that follow, in the
        focus's own round trip where the element is in the main document."""
        ...

    async def tag(self) -> str: ...
    def wheel(self, x: float, y: float, dx: int, dy: int) -> None:
        """A wheel event to bring the element into view."""
        ...


class Dom(Protocol):
    """The main document's nodes as a selector reads and focuses them."""

    def snapshot(self) -> aio.Future[Snapshot]: ...
    def element(self, node: DomNode) -> aio.Future[ElementInfo | None]: ...
    def focus(self, node: DomNode, end: bool = False) -> aio.Future[Focused]: ...


class DomPage(Pointer, Protocol):
    """What a selector or link target needs of the page (`PageDriver`)."""

    @property
    def dom(self) -> Dom: ...


# --- the operations' page (operations) -----------------------------------------------------------


class Downloads(Protocol):
    """A session's downloads as an operation waits for them (host_app/engine/downloads.py)."""

    def mark(self) -> Mark: ...
    async def settle(self, mark: Mark, deadline: float, *, clicked: bool = False) -> None: ...


class Captures(Protocol):
    """What a capture or a screenshot reads of the current page."""

    def to_html(self) -> aio.Future[str]: ...
    def document_size(self) -> aio.Future[tuple[int, int, int, int]]: ...
    def grab(self, full_page: bool, height: int) -> aio.Future[Any]: ...
    def save_image(self, image: Any, path: str, fmt: str, quality: int | None) -> int: ...


class Traffic(Protocol):
    """The session's downloaded-bytes counters (logic.traffic)."""

    def read(self) -> aio.Future[Counters]: ...
    def count(self, on: bool) -> aio.Future[None]:
        """The engine's counting on or off (it costs the app's thread while on)."""
        ...


class PageDriver(DomPage, Protocol):
    """A session's current page as the operations drive it; input and element reads are those
    of `DomPage`."""

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

    @property
    def history_index(self) -> int:
        """The current page's entry in its session history (the move's entry once a back or
        forward began)."""
        ...

    failure: tuple[int, str, str] | None  # (load_starts at failure, message, url)
    last_status: int | None

    def probe(self) -> aio.Future[Probe]: ...
    def load(self, url: str) -> None: ...
    def history(self, how: str) -> bool: ...
    def stop(self) -> None: ...
    def title(self) -> str: ...
    def selected(self) -> None: ...
    def log(self, category: str, message: str, **data: Any) -> None:
        """A record in the session's log file."""
        ...

    @property
    def downloads(self) -> Downloads: ...
    @property
    def captures(self) -> Captures: ...
    @property
    def traffic(self) -> Traffic: ...


class Probing(Loading, Protocol):
    def probe(self) -> aio.Future[Probe]: ...


# --- frames and observations (frame_reads, observations) -----------------------------------------


class FrameDriver(Protocol):
    """What reading and finding frames needs of a page (`page.frames`; the engine's
    `engine/page_scripts.PageFrames`)."""

    def frame_tree(self) -> fl.HostFrame: ...
    def run(self, call: Call[T], frame: object = None) -> aio.Future[T]: ...


class Events(Protocol):
    def take(self) -> tuple[list[PageEvent], int]:
        """The page events kept since the last observation, and how many were dropped."""
        ...


class ObsDriver(Pointer, Protocol):
    """What an observation, and acting on its refs (`ref_target`), need of the page."""

    @property
    def load_starts(self) -> int: ...
    @property
    def loading(self) -> bool: ...
    @property
    def page_id(self) -> int:
        """The session's current page (its root page, or a popup: host_app.logic.page_stack)."""
        ...

    def page_open(self, page_id: int) -> bool: ...

    @property
    def downloads(self) -> Downloads: ...
    @property
    def frames(self) -> FrameDriver: ...
    @property
    def captures(self) -> Captures: ...
    @property
    def events(self) -> Events: ...

    def probe(self) -> aio.Future[Probe]: ...


# --- both, as dispatch drives a session ----------------------------------------------------------


class Session(PageDriver, ObsDriver, Protocol):
    """A session's browser as the operations drive it
    (host_app.engine.session_browser.SessionBrowser)."""
