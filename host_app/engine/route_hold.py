"""A session's network held: for a route change (nothing leaves by the route its context was
built on until Reload and apply, or its next navigating operation, builds a new one) and by
pause and play (spec 1 §3). The flags are the session's `NetworkPolicy`'s, which its
interceptor reads at every request; here the pages' loads are stopped and reloaded, and the
context's open connections cut."""

from __future__ import annotations

from typing import Protocol

from ..logic.page_stack import PageStack, PageState
from ..logic.policy import NetworkPolicy
from ..qt import QWebEnginePage, QWebEngineProfile
from .asset_fetch import forget as forget_connections
from .asset_scheme import SessionAssets
from .session_page import SessionPage
from .session_pages import SessionPages


class HoldOwner(Protocol):
    """What holding the network needs of the session: its policy, profile, asset fetches and
    pages."""

    @property
    def policy(self) -> NetworkPolicy: ...
    @property
    def profile(self) -> QWebEngineProfile | None: ...
    @property
    def assets(self) -> SessionAssets | None: ...
    @property
    def pages(self) -> SessionPages[SessionPage] | None: ...
    @property
    def stack(self) -> PageStack: ...


class RouteHold:
    def __init__(self, owner: HoldOwner) -> None:
        self._owner = owner

    def history_target(self, how: str) -> str | None:
        """The URL a history move (`reload`, `back`, `forward`) of the current page would load:
        what a rebuilt context loads instead, the old context's history being gone with it."""
        pages = self._owner.pages
        page = pages.page if pages is not None else None
        if page is None:
            return None
        hist = page.history()
        if how == "back" and hist is not None:
            url = hist.backItem().url().toString() if hist.canGoBack() else None
        elif how == "forward" and hist is not None:
            url = hist.forwardItem().url().toString() if hist.canGoForward() else None
        else:
            url = page.url().toString()
        return url if url not in (None, "", "about:blank") else None

    @property
    def held(self) -> bool:
        """The session waits for Reload and apply: its settings name another route."""
        return self._owner.policy.held

    def _states(self) -> list[tuple[PageState, SessionPage]]:
        pages = self._owner.pages
        return pages.states() if pages is not None else []

    def hold(self) -> None:
        """From now on nothing of this session leaves by the route its context was built on:
        new requests are blocked and loads in flight stopped, the documents stay."""
        policy = self._owner.policy
        if policy.held:
            return
        policy.held = True
        for state, page in self._states():
            if state.loading:
                state.interrupted = state.committed_in_load
            # also on loaded pages: Stop cancels the requests their scripts have in flight
            page.triggerAction(QWebEnginePage.WebAction.Stop)
        self.cut_connections()

    def cut_connections(self) -> None:
        """End the context's open connections (a WebSocket, a streaming response, keep-alive
        sockets): the hold blocks new requests, but a direct session's open connections do not
        pass a listener the agent could cut. The engine makes a new network context for a
        profile whose cache type changes, which closes them all (a WebSocket closes with 1006),
        while the documents, cookies and storage stay (measured on QtWebEngine 6.11)."""
        profile = self._owner.profile
        if profile is None:
            return
        kind = profile.httpCacheType()
        other = (
            QWebEngineProfile.HttpCacheType.MemoryHttpCache
            if kind != QWebEngineProfile.HttpCacheType.MemoryHttpCache
            else QWebEngineProfile.HttpCacheType.DiskHttpCache
        )
        profile.setHttpCacheType(other)
        profile.setHttpCacheType(kind)
        assets = self._owner.assets
        if assets is not None:
            forget_connections(assets.route.owner)  # the asset fetches' too

    def release(self) -> None:
        """The settings came back to the route this context runs on: nothing to apply; loads
        the hold interrupted after their commit are reloaded, as play does."""
        policy = self._owner.policy
        if not policy.held:
            return
        policy.held = False
        for state, page in self._states():
            if state.interrupted and not policy.paused:
                page.triggerAction(QWebEnginePage.WebAction.Reload)
                state.interrupted = False

    def pause(self) -> None:
        policy = self._owner.policy
        if policy.paused:
            return
        policy.paused = True
        policy.deferred_navigation = False
        for state, page in self._states():
            state.interrupted = False
            if state.loading:
                # Stop before commit restores the previous document (Chromium keeps it); a stop
                # after commit leaves a partial document, so play must reload.
                state.interrupted = state.committed_in_load
                page.triggerAction(QWebEnginePage.WebAction.Stop)
        # "active requests cancelled" (spec 1 §3): also what loaded pages hold open, a
        # WebSocket or a streaming fetch; the documents stay
        self.cut_connections()

    def play(self) -> bool:
        policy = self._owner.policy
        if not policy.paused:
            return False
        policy.paused = False
        if policy.held:
            # a reload now would go nowhere (held) and replace the documents with error pages;
            # Reload and apply reloads on the new route
            policy.deferred_navigation = False
            return False
        deferred = policy.deferred_navigation
        policy.deferred_navigation = False
        reloaded = False
        for state, page in self._states():
            # a deferred navigation is the current page's (only it is driven while paused)
            if state.interrupted or (deferred and state is self._owner.stack.state):
                page.triggerAction(QWebEnginePage.WebAction.Reload)
                reloaded = reloaded or state is self._owner.stack.state
            state.interrupted = False
        return reloaded
