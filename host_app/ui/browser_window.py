"""The browser window: every persisted session beside the selected one's live view, its address
bar, the route banner, its terminal, and a menu bar (File, Session, View) so that everything is
reachable without a system tray. Session state (the list, pause and play, delete) goes through
the agent's API like any other client's, so the window and the API always agree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import msgspec

from ..engine.window_port import SessionState, WindowPort
from ..logic.actionability import Box
from ..logic.activity import Activity
from ..logic.workspace import SessionRow, address_url, list_order, session_line
from ..qt import (
    QAction,
    QHBoxLayout,
    QKeySequence,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMenuBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    Qt,
    QTimer,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from .activity_panel import ActivityPanel
from .agent_client import ApiError, UiApi
from .outline import Outline
from .sign_in import SignIn
from .terminal import TerminalPanel
from .widgets import HidingWindow, confirm

TITLE = "svc browser"
ROUTE_BANNER = (
    "This session's proxy or trust settings changed. The open page is kept and its network is"
    " held until it is reloaded on the new route."
)
# the banner's colour, distinct from anything else in the window (tests find it in a grab)
BANNER_STYLE = "background: #ffd24d; color: #222; padding: 4px;"
LIST_INTERVAL_MS = 1000
NO_PAGE = "No page open in {name}.\nType an address above to open one."


@dataclass(slots=True)
class WindowHooks:
    """What the app (MainUI) fills in: the other windows, and who follows the session list."""

    show_settings: Callable[[], None] = lambda: None
    show_logs: Callable[[], None] = lambda: None
    show_info: Callable[[str], None] = lambda _sid: None
    quit: Callable[[], None] = lambda: None
    sessions_gone: list[Callable[[set[str]], None]] = field(default_factory=list)
    rows: list[Callable[[list[SessionRow]], None]] = field(default_factory=list)


W = TypeVar("W", bound=QWidget)


def _hidden(widget: W) -> W:
    widget.setVisible(False)
    return widget


def _single_shot(parent: QWidget, slot: Callable[[], None]) -> QTimer:
    """A timer that runs `slot` once when started; started again before, it runs it once."""
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.timeout.connect(slot)
    return timer


class BrowserWindow(HidingWindow):
    def __init__(self, engine: WindowPort, api: UiApi | None = None) -> None:
        super().__init__()
        self.engine = engine
        self.api = api
        self.sign_in = SignIn(self, api, engine.data_dir, self._say) if api is not None else None
        self.setWindowTitle(TITLE)
        self.resize(1280, 800)
        self.rows: dict[str, SessionRow] = {}
        self.current: str | None = None
        self.hooks = WindowHooks()
        # one terminal per session, made when its panel is first displayed (spec 1 §1 rule 11)
        self.terminal_env: dict[str, str] | None = None
        self.terminals: dict[str, TerminalPanel] = {}
        self.terminal_area = _hidden(QStackedWidget())

        self.sessions = QListWidget()
        self.sessions.setAccessibleName("Sessions")  # what a screen reader calls the list
        self.sessions.currentItemChanged.connect(lambda *_: self._select_current())
        self.stack = QStackedWidget()
        self.placeholder = QLabel("No session selected.\nCreate one with `svc session create`.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack.addWidget(self.placeholder)
        self.address = QLineEdit()
        self.address.setPlaceholderText("Address (example.com, localhost:8000, https://...)")
        self.address.returnPressed.connect(self._go)
        self.back = self._button("◀", "Back (Alt+Left)", "back")
        self.forward = self._button("▶", "Forward (Alt+Right)", "forward")
        self.reload = self._button("⟳", "Reload (F5)", "reload")
        self.pause = self._button("Pause", "Pause or resume this session's network (Ctrl+Shift+P)")
        self.pause.clicked.connect(self.toggle_pause)
        self.status = _hidden(QLabel(""))
        self.status.setWordWrap(True)
        self.banner = self._banner()
        self.page_split = QSplitter(Qt.Orientation.Vertical)
        self.page_split.addWidget(self._view_split())
        self.page_split.addWidget(self.terminal_area)
        self.page_split.setSizes([520, 280])
        self.hooks.sessions_gone.append(self.close_terminals)
        split = QSplitter()
        split.addWidget(self.sessions)
        split.addWidget(self._right())
        split.setSizes([320, 960])
        layout = QVBoxLayout(self)
        self.menu_bar = QMenuBar(self)
        layout.setMenuBar(self.menu_bar)
        layout.addWidget(split)
        self.menu_actions: dict[str, QAction] = {}
        self._menus()
        self.list_timer = QTimer(self)
        self.list_timer.timeout.connect(self.poll_sessions)
        # one refresh for however many changes one turn of the event loop brings (each agent
        # operation reports its start and its end)
        self._refresh_soon = _single_shot(self, self.refresh)
        engine.when_changed(lambda _sid: self._refresh_soon.start(0))
        engine.when_operation(self._operation)

    def _view_split(self) -> QSplitter:
        """The page, and beside it what agents did there (host_app.ui.activity_panel); over the
        page, the outline of what an agent's action aims at (host_app.ui.outline)."""
        self.activity = ActivityPanel(self.engine)
        self.outline = Outline(self.stack)
        self.engine.when_targeted(self._targeted)
        self.engine.when_activity(self._ended)
        split = QSplitter()
        split.addWidget(self.stack)
        split.addWidget(self.activity)
        split.setSizes([700, 260])
        return split

    def _right(self) -> QWidget:
        bar = QHBoxLayout()
        for w in (self.back, self.forward, self.reload):
            bar.addWidget(w)
        bar.addWidget(self.address, 1)
        bar.addWidget(self.pause)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(bar)
        rl.addWidget(self.status)
        rl.addWidget(self.banner)
        rl.addWidget(self.page_split, 1)
        return right

    def _banner(self) -> QWidget:
        # spec 1 §4 Sessions: a change that needs a new browser context leaves the open page as
        # it is (its network held) and offers to apply it
        banner = QWidget()
        banner.setObjectName("routeBanner")
        banner.setStyleSheet(f"#routeBanner {{{BANNER_STYLE}}}")
        banner.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.banner_text = QLabel(ROUTE_BANNER)
        self.banner_text.setWordWrap(True)
        self.apply_route = QPushButton("Reload and apply")
        self.apply_route.clicked.connect(self._reload_and_apply)
        banner_layout = QHBoxLayout(banner)
        banner_layout.addWidget(self.banner_text, 1)
        banner_layout.addWidget(self.apply_route)
        banner.setVisible(False)
        return banner

    # -- menus -------------------------------------------------------------------------------

    def _menus(self) -> None:
        def add(menu_name: str, name: str, slot: Callable[[], None], keys: str = "") -> None:
            menu = self._menu(menu_name)
            action = menu.addAction(name)
            assert action is not None
            if keys:
                action.setShortcut(QKeySequence(keys))
                action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(lambda _checked=False: slot())
            self.menu_actions[name] = action

        # the hooks are read when triggered: MainUI sets them after the window is built
        add("&File", "Settings", lambda: self.hooks.show_settings(), "Ctrl+,")  # noqa: PLW0108
        add("&File", "Logs", lambda: self.hooks.show_logs(), "Ctrl+Shift+L")  # noqa: PLW0108
        # hides the window; the app and the agent stay (spec 1 lifecycle rule 1)
        add("&File", "Close Window", self.hide, "Ctrl+Shift+W")
        add("&File", "Quit", lambda: self.hooks.quit(), "Ctrl+Q")  # noqa: PLW0108
        # Ctrl+Shift: the terminal passes those on (Ctrl+I is Tab and Ctrl+P history there)
        add("&Session", "Info", self.show_info, "Ctrl+Shift+I")
        add("&Session", "Pause/Play", self.toggle_pause, "Ctrl+Shift+P")
        add("&Session", "Clear browsing data…", self.clear_data, "Ctrl+Shift+Del")
        add("&Session", "Delete…", self.delete_session, "Ctrl+Shift+D")
        add("&Session", "Save sign-in to profile…", self.save_sign_in, "Ctrl+Shift+E")
        add("&Session", "Import cookies…", self.import_cookies, "Ctrl+Shift+O")
        add("&View", "Terminal", self.toggle_terminal, "Ctrl+`")
        add("&View", "Activity", self._toggle_activity, "Ctrl+Shift+A")
        add("&View", "Address bar", self._focus_address, "Ctrl+L")
        add("&View", "Session list", self.sessions.setFocus, "Ctrl+Shift+S")
        add("&View", "Back", lambda: self._page_action("back"), "Alt+Left")
        add("&View", "Forward", lambda: self._page_action("forward"), "Alt+Right")
        add("&View", "Reload", lambda: self._page_action("reload"), "F5")

    def _menu(self, name: str) -> QMenu:
        for action in self.menu_bar.actions():
            menu = action.menu()
            if action.text() == name and isinstance(menu, QMenu):
                return menu
        added = self.menu_bar.addMenu(name)
        assert added is not None
        return added

    def _button(self, text: str, tip: str, how: str | None = None) -> QToolButton:
        """A tool button; `how`: the page action it runs (back, forward, reload)."""
        b = QToolButton()
        b.setText(text)
        b.setToolTip(tip)
        if how is not None:
            b.clicked.connect(lambda: self._page_action(how))
        return b

    def _targeted(self, session_id: str, box: Box) -> None:
        """An operation of `session_id` aims at `box`: outlined when that session's page is
        the one shown."""
        state = self.engine.session(session_id)
        view = state.view
        if (
            session_id != self.current
            or view is None
            or self.stack.currentWidget() is not view
            or not self.isVisible()
        ):
            return
        self.outline.show_at(view, box, state.zoom)

    def _ended(self, activity: Activity) -> None:
        if activity.session_id == self.current:
            self.outline.ended()

    def _toggle_activity(self) -> None:
        self.activity.setVisible(not self.activity.isVisible())

    def _focus_address(self) -> None:
        self.address.setFocus()
        self.address.selectAll()

    # -- the session list ----------------------------------------------------------------------

    def showEvent(self, event: object) -> None:
        self.list_timer.start(LIST_INTERVAL_MS)
        self.poll_sessions()
        super().showEvent(event)  # type: ignore[arg-type]

    def hideEvent(self, event: object) -> None:
        self.list_timer.stop()
        super().hideEvent(event)  # type: ignore[arg-type]

    def poll_sessions(self) -> None:
        """Every persisted session, as GET /v1/sessions lists them (those created, renamed or
        deleted by the API show up within a second)."""
        if self.api is None:
            self.refresh()
            return
        self.api.sessions(self._sessions_answer)

    def _sessions_answer(self, answer: list[SessionRow] | ApiError) -> None:
        if isinstance(answer, ApiError):
            self.refresh()  # the engine's own view until the agent answers again
            return
        gone = set(self.rows) - {r.id for r in answer}
        self.rows = {r.id: r for r in answer}
        if gone:
            for cb in self.hooks.sessions_gone:
                cb(gone)
        for listener in self.hooks.rows:
            listener(answer)
        self.refresh()

    def row(self, session_id: str) -> SessionRow | None:
        """The session as the API last listed it (as the engine holds it while the agent does
        not answer); a running browser's pause state is the newest (a pause from the API is
        applied to it before the API answers)."""
        row = self.rows.get(session_id)
        state = self.engine.session(session_id)
        if row is None:
            return state.held
        paused = state.paused
        if paused is not None and paused != row.network_paused:
            return msgspec.structs.replace(row, network_paused=paused)
        return row

    def _listed(self) -> list[SessionRow]:
        ids = set(self.rows) | self.engine.held_ids()
        rows = [r for r in (self.row(sid) for sid in ids) if r is not None]
        return sorted(rows, key=list_order)

    def refresh(self) -> None:
        rows = self._listed()
        states = {row.id: self.engine.session(row.id) for row in rows}
        self._fill_list([(row.id, session_line(row, states[row.id].live)) for row in rows], states)
        waiting = sum(1 for state in states.values() if state.live.needs_person)
        # the title says it too: seen in the task bar while the window is behind others
        self.setWindowTitle(f"{TITLE}: {waiting} needs you" if waiting else TITLE)
        if self.current is not None and all(r.id != self.current for r in rows):
            self.current = None
        shown = self.engine.session(self.current) if self.current is not None else SessionState()
        self._show(self.current, shown)
        self.banner.setVisible(shown.route_held)
        current = self.row(self.current) if self.current else None
        paused = current is not None and current.network_paused
        self.pause.setText("Play" if paused else "Pause")
        if shown.url is not None and not self.address.hasFocus():
            self.address.setText(shown.url)
        for w in (self.pause, self.address):
            w.setEnabled(current is not None)

    def _fill_list(self, lines: list[tuple[str, str]], states: dict[str, SessionState]) -> None:
        """The list's items, rebuilt only when the sessions or their order changed; a row whose
        line changed (a title, a badge: many times a second while agents work) is rewritten in
        place, as a rebuild would reset the list's scrolling."""
        items = [self.sessions.item(i) for i in range(self.sessions.count())]
        shown = [str(item.data(Qt.ItemDataRole.UserRole)) for item in items if item is not None]
        self.sessions.blockSignals(True)
        if shown != [sid for sid, _ in lines]:
            self.sessions.clear()
            for sid, text in lines:
                item = QListWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, sid)
                self.sessions.addItem(item)
        for i, (sid, text) in enumerate(lines):
            if sid == self.current and self.sessions.currentRow() != i:
                self.sessions.setCurrentRow(i)
            shown_item = self.sessions.item(i)
            if shown_item is None:
                continue
            if shown_item.text() != text:
                shown_item.setText(text)
            icon = states[sid].icon
            if icon is not None:
                shown_item.setIcon(icon)  # the page's favicon
        self.sessions.blockSignals(False)

    def select(self, session_id: str) -> None:
        if session_id == self.current:
            self.refresh()
            return
        self.current = session_id
        self.activity.show_session(session_id)
        self.address.clear()
        self.status.setVisible(False)
        # the person wants to see it: its browser starts (lazily, spec 1 §1)
        self.engine.open(session_id)
        self.refresh()
        self._show_terminal()

    def _operation(self, session_id: str) -> None:
        # selected for the next view; the window is not raised
        QTimer.singleShot(0, lambda: self.select(session_id))

    def _select_current(self) -> None:
        item = self.sessions.currentItem()
        if item is not None:
            self.select(str(item.data(Qt.ItemDataRole.UserRole)))

    # -- the live view ---------------------------------------------------------------------------

    def _show(self, session_id: str | None, state: SessionState) -> None:
        """Show the session's current page: its root page, or the popup that is current; the
        view shown before goes back to rendering off screen (a closed popup's view has already
        left the stack)."""
        want = state.view
        have = self.stack.currentWidget()
        if want is None:
            row = self.row(self.current) if self.current else None
            self.placeholder.setText(
                NO_PAGE.format(name=row.name)
                if row is not None
                else "No session selected.\nCreate one with `svc session create`."
            )
        if have is (want if want is not None else self.placeholder):
            return
        if have is not None and have is not self.placeholder:
            self.stack.removeWidget(have)
            self.engine.view_left(have)
        if session_id is None or want is None:
            self.stack.setCurrentWidget(self.placeholder)
            return
        want.hide()
        want.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, False)
        self.stack.addWidget(want)
        self.stack.setCurrentWidget(want)
        want.show()
        self.engine.view_shown(session_id)

    # -- actions ---------------------------------------------------------------------------------

    def _page_action(self, how: str) -> None:
        # as the agent's history moves: Back on a popup with no history closes it
        if self.current is not None:
            self.engine.history(self.current, how)

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def _go(self) -> None:
        sid = self.current
        text = self.address.text()
        if sid is None or not text.strip():
            return
        url = address_url(text)
        if url is None:
            self._say(
                f"“{text.strip()}” is not a web address. svc has no search engine: type an"
                " address such as example.com or localhost:8000."
            )
            return
        self._say("")
        if not self.engine.load(sid, url) and self.api is not None:
            # no page open: the host may hold no settings for this session yet (not used since
            # the app started): the agent's navigation sends them (route, identity) first
            self.api.navigate(sid, url, self._navigated)

    def _navigated(self, answer: ApiError | None) -> None:
        if isinstance(answer, ApiError):
            self._say(f"Could not open the page: {answer.message}")
        self.refresh()

    def toggle_pause(self) -> None:
        sid = self.current
        if sid is None:
            return
        row = self.row(sid)
        paused = row is not None and row.network_paused
        if self.api is None:
            self.engine.set_paused(sid, not paused)
            self.refresh()
            return
        self.pause.setEnabled(False)
        self.api.set_paused(sid, not paused, self._paused_answer)

    def _paused_answer(self, answer: bool | ApiError) -> None:
        if isinstance(answer, ApiError):
            self._say(f"Could not change the network state: {answer.message}")
        self.poll_sessions()

    def _reload_and_apply(self) -> None:
        if self.current is not None:
            self.engine.reload_and_apply(self.current)

    def show_info(self) -> None:
        if self.current is not None:
            self.hooks.show_info(self.current)

    def clear_data(self) -> None:
        if self.current is not None and self.clear_data_of(self, self.current):
            self._say("Browsing data cleared.")

    def clear_data_of(self, asking: QWidget, session_id: str) -> bool:
        """Session > Clear browsing data and the Info view's button: after a confirmation,
        this session's cookies, storage, cache and history (no other session's)."""
        row = self.row(session_id)
        if row is None or not confirm(
            asking,
            "Clear browsing data",
            f"Clear the cookies, site storage, cache and history of {row.name} ({session_id})?"
            " Its open pages close. Other sessions are not touched.",
            "&Clear",
        ):
            return False
        self.engine.clear_browsing_data(session_id)
        return True

    def save_sign_in(self) -> None:
        """Session > Save sign-in to profile… (host_app.ui.sign_in)."""
        sid = self.current
        row = self.row(sid) if sid else None
        if sid is None or row is None or self.sign_in is None:
            return
        self.sign_in.save(f"{row.name} ({sid})", self.engine.sign_in(sid))

    def import_cookies(self) -> None:
        if self.sign_in is not None:
            self.sign_in.import_file()

    def delete_session(self) -> None:
        sid = self.current
        row = self.row(sid) if sid else None
        if sid is None or row is None or self.api is None:
            return
        if confirm(
            self,
            "Delete session",
            f"Delete {row.name} ({sid}) with its cookies, storage and settings? This cannot be"
            " undone.",
            "&Delete",
        ):
            self.api.delete(sid, self._deleted)

    def _deleted(self, answer: str | ApiError) -> None:
        if isinstance(answer, ApiError):
            self._say(f"Could not delete the session: {answer.message}")
        self.poll_sessions()

    # -- terminals -------------------------------------------------------------------------------

    def toggle_terminal(self) -> None:
        """View > Terminal: shows the selected session's terminal panel and gives it the keys;
        on a panel that has them already, hides it."""
        panel = self.terminals.get(self.current or "")
        if self.terminal_area.isVisible() and panel is not None and not panel.hasFocus():
            panel.setFocus()
            return
        if self.terminal_area.isVisible():
            self.terminal_area.setVisible(False)
            return
        if self.current is None:
            self._say("Select a session first: each session has its own terminal.")
            return
        self.terminal_area.setVisible(True)
        self._show_terminal(focus=True)

    def _show_terminal(self, *, focus: bool = False) -> None:
        sid = self.current
        if sid is None or not self.terminal_area.isVisible():
            return
        panel = self.terminals.get(sid)
        if panel is None:
            panel = TerminalPanel(
                sid, lambda: self._session_url(sid), environment=self.terminal_env
            )
            self.terminals[sid] = panel
            self.terminal_area.addWidget(panel)
        self.terminal_area.setCurrentWidget(panel)
        if focus:
            panel.setFocus()

    def _session_url(self, session_id: str) -> str:
        return self.engine.session(session_id).url or ""

    def close_terminals(self, session_ids: set[str] | None = None) -> None:
        """End the shells of `session_ids` (deleted sessions), or of every session (quit)."""
        for sid in list(self.terminals) if session_ids is None else session_ids:
            panel = self.terminals.pop(sid, None)
            if panel is not None:
                panel.close_shell()
                self.terminal_area.removeWidget(panel)
                panel.deleteLater()
