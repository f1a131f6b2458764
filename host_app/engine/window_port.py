"""What the windows (`host_app.ui`) may read of the engine and ask of it: their one door into the
runtime (issue 39 point 2). `engine/window_adapter.WindowAdapter` implements it over the `Engine`
and its sessions' browsers; the app shell hands that to the windows, which import this module and
no other of the engine.

Reads are plain values (rows, `Live`, URLs, the view to place in the window); every change is an
operation. The protocol declares methods and read-only properties only, so a window typed
against it cannot assign the engine's state (tests/host/test_folders.py checks both)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from bridge_protocol import NeedsPerson
from bridge_protocol.browser_data import StagedCookie

from ..logic.actionability import Box
from ..logic.activity import Activity
from ..logic.settings import AppSettings
from ..logic.workspace import Live, SessionRow
from ..qt import QIcon, QWidget


@dataclass(frozen=True, slots=True)
class SessionState:
    """What the engine holds of one session now, as the windows read it."""

    # its row from the settings the engine holds, for while the agent does not answer; None
    # when the engine holds none
    held: SessionRow | None = None
    # whether its open browser has its network paused; None with no browser open
    paused: bool | None = None
    live: Live = field(default_factory=Live)  # its page's title and host, its operation, its badges
    url: str | None = None  # the address of its current page; None without one
    icon: QIcon | None = None  # that page's favicon
    # the view of its current page (its root page, or the popup that is current), to place in
    # the window; None while its browser is not open
    view: QWidget | None = None
    zoom: float = 1.0  # that page's zoom factor
    route_held: bool = False  # it waits for Reload and apply: its settings name another route


class WindowPort(Protocol):
    # -- reads -----------------------------------------------------------------------------

    @property
    def data_dir(self) -> Path:
        """The app's data folder (a session's browser data, the logs)."""
        ...

    @property
    def settings(self) -> AppSettings:
        """The app settings the engine runs on now."""
        ...

    def held_ids(self) -> frozenset[str]:
        """The sessions the engine holds settings for (used since the app started)."""
        ...

    def session(self, session_id: str) -> SessionState:
        """What the engine holds of the session now. Never starts its browser (the windows also
        read while the engine shuts down, and a context started then outlives the app)."""
        ...

    def activities_of(self, session_id: str) -> list[Activity]:
        """What agents did in the session, oldest first."""
        ...

    def sign_in(self, session_id: str) -> list[StagedCookie]:
        """The session's live cookies, as a profile stages them; none while it is not open."""
        ...

    # -- what the windows hear -------------------------------------------------------------

    def when_changed(self, listener: Callable[[str], None]) -> None:
        """`listener(session_id)` whenever a session's state changes."""
        ...

    def when_operation(self, listener: Callable[[str], None]) -> None:
        """`listener(session_id)` when an agent's operation selects its session for the view."""
        ...

    def when_targeted(self, listener: Callable[[str, Box], None]) -> None:
        """`listener(session_id, box)` when an operation aims at the element in `box`."""
        ...

    def when_activity(self, listener: Callable[[Activity], None]) -> None:
        """`listener(activity)` as each agent operation ends."""
        ...

    def when_needs_person(self, listener: Callable[[str, NeedsPerson], None]) -> None:
        """`listener(session_id, person)` when a session's page newly waits for a person."""
        ...

    # -- operations ------------------------------------------------------------------------

    def open(self, session_id: str) -> None:
        """The person wants to see the session: its browser starts (lazily, spec 1 §1), when
        the engine holds its settings."""
        ...

    def view_shown(self, session_id: str) -> None:
        """The window shows the session's view now."""
        ...

    def view_left(self, view: QWidget) -> None:
        """The window no longer shows `view`: it renders off screen at the Background Browser
        Size (a never-shown view grabs blank)."""
        ...

    def load(self, session_id: str, url: str) -> bool:
        """Load `url` in the session's current page; False when it has none open."""
        ...

    def history(self, session_id: str, how: str) -> None:
        """Back, forward or reload the session's current page, as the agent's history moves;
        nothing without a page."""
        ...

    def set_paused(self, session_id: str, paused: bool) -> None:
        """Pause or resume the network of the session's open browser (nothing without one)."""
        ...

    def reload_and_apply(self, session_id: str) -> None:
        """The route banner's button: a new browser context on the new route, then the page."""
        ...

    def clear_browsing_data(self, session_id: str) -> None:
        """The session's cookies, storage, cache and history go (no other session's)."""
        ...

    def apply_app_settings(self, settings: AppSettings) -> None:
        """The app settings saved in the settings window apply now."""
        ...

    def clear_private_caches(self) -> None:
        """Every session's own HTTP cache; cookies, storage and the shared cache stay."""
        ...

    def clear_shared_cache(self) -> None:
        """The shared asset cache of every partition."""
        ...

    def write_log(self, category: str, message: str, **data: object) -> None:
        """A record in the app's global log."""
        ...
