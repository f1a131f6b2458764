"""The page registry: attached pages, the shorthand current page of each session, the most recent
shorthand session and the URL the host last reported per session (spec 1 §4, lifecycle rule 9).

Plain data and rules, no I/O and no trio: the orchestrator (agent/browser.py) tells it what the
host answered, and it answers which page an operation is about. Page ids are process-local by
design: an agent restart forgets them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from bridge_protocol import ErrorId, SvcError

from .page_responses import PageRef
from .records import name_key
from .urls import same_url


def new_page_id() -> str:
    return "page_" + uuid.uuid4().hex


@dataclass
class Page:
    """A page reference: the session's shorthand current page, or an attached page pinned to the
    session, URL and proxy of its attach time."""

    id: str
    session_id: str
    url: str
    attached: bool = False
    proxy_alias: str | None = None

    def ref(self) -> PageRef:
        return PageRef(id=self.id, session_id=self.session_id, url=self.url)


class PageRegistry:
    def __init__(self) -> None:
        self._attached: dict[str, Page] = {}  # by page id
        self._current: dict[str, Page] = {}  # shorthand current page by session id
        self._last_session: str | None = None  # most recently selected shorthand session
        self._live_url: dict[str, str] = {}  # the session's page URL as the host last said

    @property
    def last_session(self) -> str | None:
        return self._last_session

    def live_url(self, session_id: str) -> str | None:
        return self._live_url.get(session_id)

    def current_page(self, session_id: str) -> Page:
        """The session's shorthand page, made on first use at the URL the host last reported
        (the host has one page per session, so a new reference still names a live page)."""
        page = self._current.get(session_id)
        if page is None:
            url = self._live_url.get(session_id, "about:blank")
            page = self._current[session_id] = Page(new_page_id(), session_id, url)
        return page

    def select(self, session_id: str | None) -> Page:
        """Shorthand rules 3-4: the named session's page, else the most recent one. The caller
        has checked that a named session exists."""
        if session_id is not None:
            self._last_session = session_id
            return self.current_page(session_id)
        if self._last_session is None or self._last_session not in self._current:
            raise SvcError.of(
                ErrorId.ACTIVE_PAGE_NOT_FOUND,
                "no current page: navigate first, or name a session_id",
            )
        return self._current[self._last_session]

    def retarget(self, session_id: str, url: str) -> Page:
        """Shorthand rule 7: a navigation replaces the session's retry target at once, before
        the engine works on it, and makes the session the most recent one."""
        page = self.current_page(session_id)
        page.url = url
        self._last_session = session_id
        return page

    def loading(self, session_id: str, url: str) -> None:
        """The host is about to navigate the session's page to `url`: a pinned page attached at
        another URL no longer matches, even if the navigation fails."""
        self._live_url[session_id] = url

    def saw_url(self, session_id: str, url: str | None, page: Page | None = None) -> None:
        """The host reported the session's page at `url` (nothing when it said no URL)."""
        if not url:
            return
        self._live_url[session_id] = url
        current = self._current.get(session_id)
        if current is not None:
            current.url = url
        if page is not None:
            page.url = url

    def attach(self, session_id: str, url: str, proxy_alias: str | None) -> Page:
        page = Page(new_page_id(), session_id, url, attached=True, proxy_alias=proxy_alias)
        self._attached[page.id] = page
        return page

    def attached(self, page_id: str) -> Page:
        page = self._attached.get(page_id)
        if page is None:
            raise SvcError.of(
                ErrorId.PAGE_NOT_FOUND,
                f"page {page_id!r} does not exist (page ids end with the agent process)",
                page_id=page_id,
            )
        return page

    def check_pinned(self, page: Page, proxy_alias: str | None) -> None:
        """An attached page still is what it was attached as: same proxy (`proxy_alias` is the
        session's now), same document URL."""
        if (proxy_alias and name_key(proxy_alias)) != (
            page.proxy_alias and name_key(page.proxy_alias)
        ):
            raise SvcError.of(
                ErrorId.PAGE_MISMATCH,
                f"the proxy of {page.session_id} changed since page {page.id} was attached",
                page_id=page.id,
                field="proxy",
                attached=page.proxy_alias,
                current=proxy_alias,
            )
        live = self._live_url.get(page.session_id)
        if live is not None and not same_url(live, page.url):
            raise SvcError.of(
                ErrorId.PAGE_MISMATCH,
                f"the page of {page.session_id} moved to another URL since page {page.id} "
                "was attached",
                page_id=page.id,
                field="url",
                attached=page.url,
                current=live,
            )

    def forget_session(self, session_id: str) -> None:
        """The session closed: its pages, current page and live URL go with it."""
        self._current.pop(session_id, None)
        self._live_url.pop(session_id, None)
        if self._last_session == session_id:
            self._last_session = None
        for page_id in [p.id for p in self._attached.values() if p.session_id == session_id]:
            del self._attached[page_id]
