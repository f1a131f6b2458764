"""The windows' door into the engine (`engine/window_port.WindowPort`) over the `Engine` and its
sessions' browsers: the one module that reads `Engine` and `SessionBrowser` for the windows, so a
change of either changes this module and not a window."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bridge_protocol import NeedsPerson, SessionSettings
from bridge_protocol.browser_data import StagedCookie

from ..logic.actionability import Box
from ..logic.activity import Activity
from ..logic.settings import AppSettings
from ..logic.workspace import Live, SessionRow
from ..qt import QUrl, QWidget
from . import session_assets
from .runtime import Engine
from .session_browser import SessionBrowser
from .window_port import SessionState, WindowPort


def _row_of(session_id: str, settings: SessionSettings, paused: bool) -> SessionRow:
    """A row from what the engine holds, while the agent does not answer."""
    return SessionRow(
        id=session_id, name=settings.name or session_id, group=settings.group,
        proxy_alias=f":{settings.proxy_port}" if settings.proxy_port else None,
        network_paused=paused,
    )  # fmt: skip


class WindowAdapter(WindowPort):
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def _browser(self, session_id: str) -> SessionBrowser | None:
        """The session's browser as it is: never started here."""
        return self._engine.sessions.get(session_id)

    # -- reads -----------------------------------------------------------------------------

    @property
    def data_dir(self) -> Path:
        return self._engine.data_dir

    @property
    def settings(self) -> AppSettings:
        return self._engine.settings

    def held_ids(self) -> frozenset[str]:
        return frozenset(self._engine.session_settings)

    def session(self, session_id: str) -> SessionState:
        settings = self._engine.session_settings.get(session_id)
        b = self._browser(session_id)
        held = None
        if settings is not None:
            paused = b.paused if b is not None else settings.network_paused
            held = _row_of(session_id, settings, paused)
        if b is None:
            return SessionState(held=held, live=self._live(session_id, None))
        view = b.view
        page = view.page() if view is not None else None
        return SessionState(
            held=held,
            paused=b.paused if b.active else None,
            live=self._live(session_id, b),
            url=b.page.url().toString() if b.page is not None else None,
            icon=b.page.icon() if b.page is not None else None,
            view=view,
            zoom=page.zoomFactor() if page is not None else 1.0,
            route_held=b.hold.held,
        )

    def _live(self, session_id: str, b: SessionBrowser | None) -> Live:
        acts = self._engine.activities.of(session_id)
        failed = acts[-1].error_id if acts and acts[-1].outcome == "failed" else None
        if b is None or b.page is None:
            return Live(failed=failed)
        person = b.person.waiting()
        return Live(
            title=b.page.title(),
            host=b.page.url().host(),
            running=b.running_kind,
            needs_person=person.kind if person is not None else None,
            failed=failed,
        )

    def activities_of(self, session_id: str) -> list[Activity]:
        return self._engine.activities.of(session_id)

    def sign_in(self, session_id: str) -> list[StagedCookie]:
        b = self._browser(session_id)
        return session_assets.sign_in(b.assets if b is not None else None)

    # -- what the windows hear -------------------------------------------------------------

    def when_changed(self, listener: Callable[[str], None]) -> None:
        self._engine.on_session_changed.append(listener)

    def when_operation(self, listener: Callable[[str], None]) -> None:
        self._engine.on_operation.append(listener)

    def when_targeted(self, listener: Callable[[str, Box], None]) -> None:
        self._engine.on_target.append(listener)

    def when_activity(self, listener: Callable[[Activity], None]) -> None:
        self._engine.activities.listeners.append(listener)

    def when_needs_person(self, listener: Callable[[str, NeedsPerson], None]) -> None:
        self._engine.on_needs_person.append(listener)

    # -- operations ------------------------------------------------------------------------

    def open(self, session_id: str) -> None:
        if session_id in self._engine.session_settings:
            self._engine.browser(session_id)

    def view_shown(self, session_id: str) -> None:
        self._engine.visible_session = session_id

    def view_left(self, view: QWidget) -> None:
        self._engine.show_background(view)

    def load(self, session_id: str, url: str) -> bool:
        b = self._browser(session_id)
        if b is None or b.page is None:
            return False
        b.page.load(QUrl(url))
        return True

    def history(self, session_id: str, how: str) -> None:
        b = self._browser(session_id)
        if b is not None and b.page is not None:
            b.history(how)

    def set_paused(self, session_id: str, paused: bool) -> None:
        b = self._browser(session_id)
        if b is not None:
            b.hold.pause() if paused else b.hold.play()

    def reload_and_apply(self, session_id: str) -> None:
        self._engine.reload_and_apply(session_id)

    def clear_browsing_data(self, session_id: str) -> None:
        self._engine.clear_browsing_data(session_id)

    def apply_app_settings(self, settings: AppSettings) -> None:
        self._engine.apply_app_settings(settings)

    def clear_private_caches(self) -> None:
        self._engine.clear_private_caches()

    def clear_shared_cache(self) -> None:
        self._engine.clear_shared_cache()

    def write_log(self, category: str, message: str, **data: object) -> None:
        self._engine.write_log(category, message, **data)
