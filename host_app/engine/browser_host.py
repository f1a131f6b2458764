"""What a session's browser needs of the engine that holds it: `runtime.Engine` implements
`BrowserHost`, and a session's browser (`session_browser`) and its parts see the engine only
through it (they never name the engine's class, so no import leads back to `runtime`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from ..logic import aio
from ..logic.actionability import Box
from ..logic.notifications import NotificationQueue
from ..logic.policy import Filters
from ..logic.settings import AppSettings
from ..qt import QObject, QWidget
from .shared_assets import SharedAssets
from .worker_cdp import DevtoolsHost


class LogSink(Protocol):
    """The host's log file."""

    def write_log(self, category: str, message: str, **data: Any) -> None: ...
    def write_session_log(
        self, profile_id: int, category: str, message: str, **data: Any
    ) -> None: ...


class DialogsHost(Protocol):
    """What a session's dialogs need of the engine to choose who answers them."""

    @property
    def headless(self) -> bool: ...
    @property
    def visible_session(self) -> str | None: ...
    def agent_busy(self) -> bool:
        """An agent operation runs on some session."""
        ...


class BrowserHost(LogSink, DialogsHost, Protocol):
    """What a session's browser needs of its engine: the app's settings and shared parts, and
    the engine told of what happens to the session."""

    @property
    def loop(self) -> aio.Loop: ...
    @property
    def data_dir(self) -> Path: ...
    @property
    def settings(self) -> AppSettings: ...
    @property
    def filters(self) -> Filters: ...
    @property
    def qobject(self) -> QObject:
        """The parent of the sessions' profiles."""
        ...

    @property
    def devtools(self) -> DevtoolsHost: ...
    @property
    def shared_assets(self) -> SharedAssets: ...
    @property
    def notifications(self) -> NotificationQueue: ...
    def show_background(self, view: QWidget) -> None: ...
    def forget_view(self, session_id: str) -> None:
        """The session's views are going (the window shows none of them any more)."""
        ...

    def session_changed_id(self, session_id: str) -> None: ...
    def operation_selected(self, session_id: str) -> None:
        """A browser operation runs on the session (the window may follow it)."""
        ...

    def targeted(self, session_id: str, box: Box) -> None:
        """An action aims at `box` on the session's page (the window outlines it)."""
        ...
