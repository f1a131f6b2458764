"""A session's pages: the page it was created with (the root) and the popups its pages opened.

One page is current: the one the agent's routes observe, capture, screenshot and act on, and the
one the browser window shows. A popup the page opens becomes current; when a popup closes, its
opener (or, if that closed first, the opener's opener) becomes current again. The root page never
closes from the page's side (`window.close()` on it is ignored), so a session always has a page.

The readiness counters the operations watch (`load_starts`, `failure`) are session-wide and follow
the current page only: a load on a background page (the opener still navigating behind its popup)
moves nothing, and a switch of the current page counts as a load start, so a wait in progress sees
that the session's page now holds another document. Qt-free: the engine feeds Qt's signals in.
"""

from __future__ import annotations

from dataclasses import dataclass

ROOT = 0
MAX_POPUPS = 5  # open popups per session; a page asking for more gets none (reported as blocked)

BLOCKED_NO_GESTURE = "no user gesture"
BLOCKED_LIMIT = f"more than {MAX_POPUPS} popups open"


@dataclass(slots=True)
class PageState:
    """One page's own load state (the opener keeps its own while a popup is current)."""

    id: int
    opener: int | None
    loading: bool = False
    committed_in_load: bool = False  # the running load committed (Qt's urlChanged during it)
    interrupted: bool = False  # pause stopped a committed load: play reloads this page
    last_status: int | None = None  # HTTP status of the page's document, when known


@dataclass(frozen=True, slots=True)
class Opened:
    page: int
    opener: int


@dataclass(frozen=True, slots=True)
class Blocked:
    reason: str


@dataclass(frozen=True, slots=True)
class Closed:
    page: int
    current: int  # the current page after the close
    switched: bool  # the closed page was the current one


class PageStack:
    def __init__(self, max_popups: int = MAX_POPUPS) -> None:
        self.max_popups = max_popups
        self._pages: dict[int, PageState] = {ROOT: PageState(ROOT, None)}
        self._current = ROOT
        self._next = ROOT + 1
        self.load_starts = 0  # main-frame load starts of the current page, plus switches
        self.failure: tuple[int, str, str] | None = None  # (load_starts then, message, url)

    @property
    def current(self) -> int:
        return self._current

    @property
    def state(self) -> PageState:
        """The current page's state."""
        return self._pages[self._current]

    def page(self, page: int) -> PageState | None:
        return self._pages.get(page)

    def pages(self) -> list[int]:
        return list(self._pages)

    @property
    def popups(self) -> int:
        return len(self._pages) - 1

    def _switch(self, page: int) -> None:
        self._current = page
        # for the operations the session's page now holds another document; a failure recorded
        # for the page left behind must not fail a wait on this one
        self.load_starts += 1
        self.failure = None

    # -- popups ---------------------------------------------------------------------------------

    def request(self, opener: int, *, user_gesture: bool, first_load: bool) -> Opened | Blocked:
        """A page asks for a new window. Like a browser's popup blocker, only a user gesture
        (real input, or script within its activation window) opens one; `first_load`: the popup
        will load a URL (not an empty about:blank window), so it counts as loading until then."""
        if opener not in self._pages:
            return Blocked("the opener is closed")
        if not user_gesture:
            return Blocked(BLOCKED_NO_GESTURE)
        if self.popups >= self.max_popups:
            return Blocked(BLOCKED_LIMIT)
        page = self._next
        self._next += 1
        self._pages[page] = PageState(page, opener, loading=first_load)
        self._switch(page)
        return Opened(page, opener)

    def close(self, page: int) -> Closed | None:
        """A page closed itself (`window.close()`). None when nothing closes: the root page, or a
        page already gone."""
        if page == ROOT or page not in self._pages:
            return None
        gone = self._pages.pop(page)
        # its own popups now lead back to where it came from
        for other in self._pages.values():
            if other.opener == page:
                other.opener = gone.opener
        if page != self._current:
            return Closed(page, self._current, switched=False)
        back = gone.opener if gone.opener in self._pages else ROOT
        self._switch(back)
        return Closed(page, back, switched=True)

    # -- load signals ---------------------------------------------------------------------------

    def load_started(self, page: int) -> None:
        state = self._pages.get(page)
        if state is None:
            return
        state.loading = True
        state.committed_in_load = False
        if page == self._current:
            self.load_starts += 1

    def url_changed(self, page: int) -> None:
        state = self._pages.get(page)
        if state is not None and state.loading:
            state.committed_in_load = True

    def load_finished(self, page: int, failure: tuple[str, str] | None = None) -> None:
        """The page's load ended; `failure` (message, url) when it failed below HTTP."""
        state = self._pages.get(page)
        if state is None:
            return
        state.loading = False
        if failure is not None and page == self._current:
            self.failure = (self.load_starts, failure[0], failure[1])
