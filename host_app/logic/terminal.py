"""The terminal panel's rules, without Qt and without a process (spec 1 §1 rule 11).

A `Terminal` holds a pyte screen with scrollback; it takes the bytes the shell wrote and returns
the bytes pyte answers (device reports). Everything the panel shows or sends is computed here as
plain data: keys become bytes (`interpret_key`), the screen at a scrollback offset becomes rows of
styled runs with resolved colours (`Terminal.view`), a selection becomes text, a paste becomes
bytes (bracketed when the shell asked for it). The panel (`host_app.terminal`) only translates Qt
events into `KeyPress`/cell positions and paints `View`s; the process lives in
`host_app.pty_process`.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import pyte
from pyte.graphics import FG_BG_256
from pyte.screens import Char, StaticDefaultDict

# Private modes as pyte stores them (shifted left by 5, see pyte.modes).
DECCKM = 1 << 5
BRACKETED_PASTE = 2004 << 5

ESC = "\x1b"
CSI = ESC + "["
SS3 = ESC + "O"
PASTE_START = CSI + "200~"
PASTE_END = CSI + "201~"

EXITED_MESSAGE = "[process exited — press Enter to restart]"

# ---------------------------------------------------------------------------------------------
# Colours


@dataclass(frozen=True, slots=True)
class Palette:
    """Colours as "#rrggbb"; `ansi` holds the 16 named colours (8 normal, 8 bright)."""

    foreground: str = "#e5e5e5"
    background: str = "#1e1e1e"
    cursor: str = "#e5e5e5"
    ansi: tuple[str, ...] = tuple("#" + c for c in FG_BG_256[:16])


DEFAULT_PALETTE = Palette()

_NAMED = {
    "black": 0,
    "red": 1,
    "green": 2,
    "brown": 3,
    "yellow": 3,
    "blue": 4,
    "magenta": 5,
    "cyan": 6,
    "white": 7,
}


def resolve_colour(value: str, default: str, palette: Palette) -> str:
    """pyte's colour value (a name, "bright" + name, or 6 hex digits) as "#rrggbb"."""
    if value == "default" or not value:
        return default
    if value in _NAMED:
        return palette.ansi[_NAMED[value]]
    if value.startswith("bright") and value[6:] in _NAMED:
        return palette.ansi[_NAMED[value[6:]] + 8]
    if value == "bfightmagenta":  # pyte 0.8's spelling of SGR 105
        return palette.ansi[13]
    if len(value) == 6:
        try:
            int(value, 16)
        except ValueError:
            return default
        return "#" + value.lower()
    return default


# ---------------------------------------------------------------------------------------------
# Keys


@dataclass(frozen=True, slots=True)
class KeyPress:
    """A key as the panel saw it: `key` is a name ("Enter", "Up", "F5", ...) or the key's own
    character (uppercase letters, punctuation) or "" when unknown; `text` is what it types."""

    key: str
    text: str = ""
    ctrl: bool = False
    alt: bool = False
    shift: bool = False


@dataclass(frozen=True, slots=True)
class Send:
    data: bytes


@dataclass(frozen=True, slots=True)
class Copy:
    pass


@dataclass(frozen=True, slots=True)
class Paste:
    pass


@dataclass(frozen=True, slots=True)
class Scroll:
    """Scroll back (`pages` < 0) or forward through the history."""

    pages: int


KeyAction: TypeAlias = Send | Copy | Paste | Scroll | None

_CURSOR_KEYS = {"Up": "A", "Down": "B", "Right": "C", "Left": "D", "Home": "H", "End": "F"}
_TILDE_KEYS = {
    "Insert": 2,
    "Delete": 3,
    "PageUp": 5,
    "PageDown": 6,
    "F5": 15,
    "F6": 17,
    "F7": 18,
    "F8": 19,
    "F9": 20,
    "F10": 21,
    "F11": 23,
    "F12": 24,
}
_SS3_FKEYS = {"F1": "P", "F2": "Q", "F3": "R", "F4": "S"}
_CTRL_SYMBOLS = {
    "@": 0,
    " ": 0,
    "2": 0,
    "[": 0x1B,
    "3": 0x1B,
    "\\": 0x1C,
    "4": 0x1C,
    "]": 0x1D,
    "5": 0x1D,
    "^": 0x1E,
    "6": 0x1E,
    "_": 0x1F,
    "-": 0x1F,
    "/": 0x1F,
    "7": 0x1F,
    "?": 0x7F,
    "8": 0x7F,
}


def _modifier_param(press: KeyPress) -> int:
    return 1 + int(press.shift) + 2 * int(press.alt) + 4 * int(press.ctrl)


def _meta(press: KeyPress, data: str) -> bytes:
    return ((ESC if press.alt else "") + data).encode()


def _special_key(press: KeyPress, app_cursor: bool) -> str | None:
    key, mods = press.key, _modifier_param(press)
    if key in _CURSOR_KEYS:
        final = _CURSOR_KEYS[key]
        if mods > 1:
            return f"{CSI}1;{mods}{final}"
        return (SS3 if app_cursor else CSI) + final
    if key in _TILDE_KEYS:
        code = _TILDE_KEYS[key]
        return f"{CSI}{code};{mods}~" if mods > 1 else f"{CSI}{code}~"
    if key in _SS3_FKEYS:
        final = _SS3_FKEYS[key]
        return f"{CSI}1;{mods}{final}" if mods > 1 else SS3 + final
    return None


# PLR0911, PLR0912: the key table, one return per key or key group
def interpret_key(press: KeyPress, app_cursor: bool = False) -> KeyAction:  # noqa: PLR0911, PLR0912
    """What a key does in the terminal: the panel's own shortcuts (Ctrl+Shift+C/V, Shift+Insert,
    Shift+PageUp/Down) or the bytes the shell receives; None when the key sends nothing (a bare
    modifier, or a Ctrl+Shift combination left to the application's shortcuts)."""
    key = press.key
    if press.ctrl and press.shift and not press.alt and key in ("C", "V"):
        return Copy() if key == "C" else Paste()
    if press.shift and not press.ctrl and not press.alt:
        if key == "Insert":
            return Paste()
        if key in ("PageUp", "PageDown"):
            return Scroll(-1 if key == "PageUp" else 1)
    special = _special_key(press, app_cursor)
    if special is not None:
        return Send(special.encode())
    if key == "Enter":
        return Send(_meta(press, "\r"))
    if key == "Backspace":
        return Send(_meta(press, "\x08" if press.ctrl else "\x7f"))
    if key == "Backtab" or (key == "Tab" and press.shift):
        return Send(f"{CSI}Z".encode())
    if key == "Tab":
        return Send(_meta(press, "\t"))
    if key == "Escape":
        return Send(_meta(press, ESC))
    if press.ctrl:
        # Ctrl+Shift+letter and Ctrl with keys that have no control code (Ctrl+`, Ctrl+1) stay
        # the window's shortcuts.
        if press.shift and len(key) == 1 and key.isalpha():
            return None
        code = _control_code(key)
        if code is not None:
            return Send(_meta(press, chr(code)))
        if press.text and all(ord(c) < 0x20 or ord(c) == 0x7F for c in press.text):
            return Send(_meta(press, press.text))
        return None
    if press.text:
        return Send(_meta(press, press.text))
    return None


def _control_code(key: str) -> int | None:
    if len(key) != 1:
        return None
    if "A" <= key.upper() <= "Z":
        return ord(key.upper()) - 0x40
    return _CTRL_SYMBOLS.get(key)


def paste_bytes(text: str, bracketed: bool) -> bytes:
    """Pasted text as the shell receives it: line ends as Enter (CR); inside the bracketed paste
    markers when the shell turned that mode on, with any end marker in the text removed so a
    paste cannot end itself early and run what follows."""
    text = text.replace("\r\n", "\r").replace("\n", "\r")
    if not bracketed:
        return text.encode()
    text = text.replace(PASTE_END, "").replace(PASTE_START, "")
    return (PASTE_START + text + PASTE_END).encode()


# ---------------------------------------------------------------------------------------------
# Screen, selection, view

Line: TypeAlias = Mapping[int, Char]
_BLANK: Line = StaticDefaultDict(Char(" "))


@dataclass(frozen=True, slots=True, order=True)
class Point:
    """A cell in absolute lines: 0 is the oldest line kept in the scrollback."""

    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Selection:
    anchor: Point
    head: Point

    def ordered(self) -> tuple[Point, Point]:
        return (self.anchor, self.head) if self.anchor <= self.head else (self.head, self.anchor)

    def span(self, line: int, columns: int) -> tuple[int, int] | None:
        """The selected columns [start, end) on one absolute line, or None."""
        start, end = self.ordered()
        if line < start.line or line > end.line or start == end:
            return None
        first = start.column if line == start.line else 0
        last = end.column + 1 if line == end.line else columns
        return (max(0, first), min(columns, last)) if first < min(columns, last) else None


@dataclass(frozen=True, slots=True)
class Run:
    """Cells of one style on a row, colours resolved (reverse video and selection applied)."""

    column: int
    width: int
    text: str
    fg: str
    bg: str
    bold: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False


@dataclass(frozen=True, slots=True)
class View:
    rows: tuple[tuple[Run, ...], ...]
    cursor: tuple[int, int] | None  # (row, column) when shown
    first_line: int  # the absolute line of row 0

    def text(self) -> str:
        return "\n".join("".join(r.text for r in row).rstrip() for row in self.rows)


@dataclass(frozen=True, slots=True)
class Modes:
    app_cursor: bool
    bracketed_paste: bool


class TerminalScreen(pyte.Screen):
    """A pyte screen that keeps the lines scrolled off its top (`history`, the newest last;
    `pushed` counts all ever pushed) and the answers to the shell (device reports) for the
    caller.

    Not pyte's HistoryScreen: its paging wraps every event method on each attribute access,
    which makes output four times slower (measured: 0.2 against 0.85 MB/s), and a view at an
    offset is all the panel needs."""

    def __init__(self, columns: int, lines: int, history: int) -> None:
        self.replies: list[str] = []
        self.history: deque[Line] = deque(maxlen=history)
        self.pushed = 0
        super().__init__(columns, lines)

    def write_process_input(self, data: str) -> None:
        self.replies.append(data)

    def push_history(self, lines: Sequence[Line]) -> None:
        self.history.extend(lines)
        self.pushed += len(lines)

    def index(self) -> None:
        # Only a scroll of the whole screen feeds the scrollback (as in xterm): a scroll region
        # below a status line is a full-screen program's own business.
        if self.cursor.y == (self.margins.bottom if self.margins else self.lines - 1) and (
            self.margins is None or self.margins.top == 0
        ):
            self.push_history([self.buffer[0]])
        super().index()

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        super().erase_in_display(how, *args, **kwargs)
        if how == 3:  # "clear" also clears the scrollback
            self.history.clear()

    def reset(self) -> None:
        super().reset()
        if hasattr(self, "history"):
            self.history.clear()


def _row_runs(
    line: Line, columns: int, span: tuple[int, int] | None, palette: Palette
) -> tuple[Run, ...]:
    runs: list[Run] = []
    cells: list[str] = []
    style: tuple[str, str, bool, bool, bool, bool] | None = None
    start = 0

    def close(end: int) -> None:
        nonlocal cells, style
        if style is not None:
            fg, bg, bold, italic, underline, reverse = style
            runs.append(
                Run(start, end - start, "".join(cells), fg, bg, bold, italic, underline, reverse)
            )
        cells, style = [], None

    for x in range(columns):
        ch = line[x]
        if ch.data == "":  # the second cell of a wide character: widen the run, then end it
            if style is not None:
                close(x + 1)
            continue
        selected = span is not None and span[0] <= x < span[1]
        fg = resolve_colour(ch.fg, palette.foreground, palette)
        bg = resolve_colour(ch.bg, palette.background, palette)
        if ch.reverse != selected:
            fg, bg = bg, fg
        key = (fg, bg, ch.bold, ch.italics, ch.underscore, ch.reverse != selected)
        if key != style:
            close(x)
            style, start = key, x
        cells.append(ch.data)
    close(columns)
    return tuple(runs)


def _line_text(line: Line, first: int, last: int) -> str:
    return "".join(line[x].data for x in range(first, last))


class Terminal:
    """The emulator state of one terminal: screen, scrollback offset, selection."""

    def __init__(self, rows: int, columns: int, history: int = 5000) -> None:
        self.screen = TerminalScreen(columns, rows, history)
        self._stream = pyte.ByteStream(self.screen)
        self.scroll = 0  # lines scrolled back from the live screen
        self.selection: Selection | None = None

    @property
    def rows(self) -> int:
        return int(self.screen.lines)

    @property
    def columns(self) -> int:
        return int(self.screen.columns)

    @property
    def history_lines(self) -> int:
        return len(self.screen.history)

    @property
    def _top(self) -> int:
        """The absolute number of the live screen's first row (lines are numbered from the
        terminal's start, so a selection stays on its text while the scrollback drops lines)."""
        return int(self.screen.pushed)

    @property
    def title(self) -> str:
        return str(self.screen.title)

    def modes(self) -> Modes:
        mode = self.screen.mode
        return Modes(DECCKM in mode, BRACKETED_PASTE in mode)

    def feed(self, data: bytes) -> bytes:
        """Apply the shell's output; returns the bytes to send back (pyte's device reports)."""
        before = self._top
        self._stream.feed(data)
        if self.scroll:  # keep a scrolled-back view on the same lines while output arrives
            self.scroll = min(self.history_lines, self.scroll + self._top - before)
        replies, self.screen.replies = self.screen.replies, []
        return "".join(replies).encode()

    def resize(self, rows: int, columns: int) -> None:
        rows, columns = max(1, rows), max(1, columns)
        if (rows, columns) == (self.rows, self.columns):
            return
        if rows < self.rows:
            self._shrink(rows)
        self.screen.resize(lines=rows, columns=columns)
        self.scroll = min(self.scroll, self.history_lines)

    def _shrink(self, rows: int) -> None:
        """Fewer rows: the lines below the cursor go first, then the top lines move into the
        scrollback (pyte alone would drop the top lines, and with them the output above)."""
        screen = self.screen
        drop = max(0, screen.cursor.y - (rows - 1))
        lines = [screen.buffer[y] for y in range(screen.lines)]
        screen.push_history(lines[:drop])
        screen.buffer.clear()
        for y, line in enumerate(lines[drop : drop + rows]):
            screen.buffer[y] = line
        screen.cursor.y -= drop
        screen.lines = rows

    def scroll_by(self, lines: int) -> None:
        """Positive scrolls back into the history, negative towards the live screen."""
        self.scroll = max(0, min(self.history_lines, self.scroll + lines))

    def line(self, absolute: int) -> Line:
        """A line by its absolute number; blank once the scrollback no longer holds it."""
        index = absolute - (self._top - self.history_lines)
        if index < 0:
            return _BLANK
        if index < self.history_lines:
            return self.screen.history[index]
        return self.screen.buffer[index - self.history_lines]

    def point_at(self, row: int, column: int) -> Point:
        """The absolute cell under a row and column of the current view."""
        row = max(0, min(self.rows - 1, row))
        column = max(0, min(self.columns - 1, column))
        return Point(self._top - self.scroll + row, column)

    def select(self, anchor: Point, head: Point) -> None:
        self.selection = Selection(anchor, head)

    def selected_text(self) -> str:
        if self.selection is None:
            return ""
        start, end = self.selection.ordered()
        first_kept = self._top - self.history_lines
        last_line = self._top + self.rows - 1
        lines = []
        for number in range(max(first_kept, start.line), min(end.line, last_line) + 1):
            span = self.selection.span(number, self.columns)
            if span is not None:
                lines.append(_line_text(self.line(number), *span).rstrip())
            elif number != end.line:
                lines.append("")
        return "\n".join(lines)

    def view(self, palette: Palette = DEFAULT_PALETTE) -> View:
        first = self._top - self.scroll
        rows = []
        for row in range(self.rows):
            number = first + row
            span = self.selection.span(number, self.columns) if self.selection else None
            rows.append(_row_runs(self.line(number), self.columns, span, palette))
        cursor_row = self.screen.cursor.y + self.scroll
        shown = not self.screen.cursor.hidden and cursor_row < self.rows
        cursor = (cursor_row, min(self.screen.cursor.x, self.columns - 1)) if shown else None
        return View(tuple(rows), cursor, first)

    def text(self) -> str:
        """The visible lines, trailing blanks removed (what a reader of the panel sees)."""
        first = self._top - self.scroll
        return "\n".join(
            _line_text(self.line(first + row), 0, self.columns).rstrip() for row in range(self.rows)
        )


# ---------------------------------------------------------------------------------------------
# The shell to start


@dataclass(frozen=True, slots=True)
class ShellCommand:
    path: str
    argv0: str  # "-name": the shell runs as a login shell
    cwd: str
    env: dict[str, str]


def choose_shell(candidates: list[str | None], is_executable: Callable[[str], bool]) -> str:
    """The first absolute, executable candidate ($SHELL, then the passwd entry), else /bin/sh."""
    for candidate in candidates:
        if candidate and os.path.isabs(candidate) and is_executable(candidate):
            return candidate
    return "/bin/sh"


def user_environment(base_env: Mapping[str, str]) -> dict[str, str]:
    """The environment the user had before a bundle's bootloader set its own: PyInstaller
    points LD_LIBRARY_PATH at the bundle (saving the user's in LD_LIBRARY_PATH_ORIG) and adds
    `_PYI_*`/`_MEIPASS2`; a shell keeping them would load the bundle's libraries into every
    program it starts. The terminal's own size variables are left to the pty."""
    dropped = ("COLUMNS", "LINES", "TERMCAP", "_MEIPASS2", "LD_LIBRARY_PATH_ORIG")
    env = {k: v for k, v in base_env.items() if k not in dropped and not k.startswith("_PYI_")}
    if (
        "_PYI_ARCHIVE_FILE" in base_env
        or "_PYI_APPLICATION_HOME_DIR" in base_env
        or ("LD_LIBRARY_PATH_ORIG" in base_env)
    ):
        original = base_env.get("LD_LIBRARY_PATH_ORIG")
        if original:
            env["LD_LIBRARY_PATH"] = original
        else:
            env.pop("LD_LIBRARY_PATH", None)
    return env


def shell_command(
    base_env: Mapping[str, str],
    *,
    passwd_shell: str | None,
    passwd_home: str | None,
    session_id: str,
    session_url: str,
    is_executable: Callable[[str], bool],
) -> ShellCommand:
    """The user's login shell in the home directory, with the session exported to it."""
    path = choose_shell([base_env.get("SHELL"), passwd_shell], is_executable)
    home = base_env.get("HOME") or passwd_home or "/"
    env = user_environment(base_env)
    env.update(
        TERM="xterm-256color",
        COLORTERM="truecolor",
        HOME=home,
        SVC_SESSION_ID=session_id,
        SVC_SESSION_URL=session_url,
    )
    return ShellCommand(path, "-" + os.path.basename(path), home, env)
