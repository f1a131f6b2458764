"""The terminal panel's rules without Qt or a process: keys, rendering, selection, paste, shell."""

from __future__ import annotations

import subprocess
import sys

import pytest

from host_app.logic.terminal import (
    DEFAULT_PALETTE,
    Copy,
    KeyPress,
    Paste,
    Scroll,
    Send,
    Terminal,
    interpret_key,
    paste_bytes,
    resolve_colour,
    shell_command,
)

P = DEFAULT_PALETTE


def send(press: KeyPress, app_cursor: bool = False) -> bytes:
    action = interpret_key(press, app_cursor)
    assert isinstance(action, Send), action
    return action.data


def test_logic_imports_no_qt() -> None:
    code = (
        "import sys, host_app.logic.terminal, host_app.ui.pty_process\n"
        "assert not [m for m in sys.modules if m.startswith('PyQt6')]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize(
    ("press", "expected"),
    [
        (KeyPress("A", "a"), b"a"),
        (KeyPress("", "é"), "é".encode()),
        (KeyPress("Enter", "\r"), b"\r"),
        (KeyPress("Backspace", "\x08"), b"\x7f"),
        (KeyPress("Backspace", ctrl=True), b"\x08"),
        (KeyPress("Tab", "\t"), b"\t"),
        (KeyPress("Backtab", shift=True), b"\x1b[Z"),
        (KeyPress("Escape", "\x1b"), b"\x1b"),
        (KeyPress("Up"), b"\x1b[A"),
        (KeyPress("Down"), b"\x1b[B"),
        (KeyPress("Right"), b"\x1b[C"),
        (KeyPress("Left"), b"\x1b[D"),
        (KeyPress("Home"), b"\x1b[H"),
        (KeyPress("End"), b"\x1b[F"),
        (KeyPress("Left", ctrl=True), b"\x1b[1;5D"),
        (KeyPress("PageUp"), b"\x1b[5~"),
        (KeyPress("PageDown"), b"\x1b[6~"),
        (KeyPress("Insert"), b"\x1b[2~"),
        (KeyPress("Delete"), b"\x1b[3~"),
        (KeyPress("F1"), b"\x1bOP"),
        (KeyPress("F4"), b"\x1bOS"),
        (KeyPress("F5"), b"\x1b[15~"),
        (KeyPress("F12"), b"\x1b[24~"),
        (KeyPress("F5", shift=True), b"\x1b[15;2~"),
        (KeyPress("C", "c", ctrl=True), b"\x03"),
        (KeyPress("C", "\x03", ctrl=True), b"\x03"),
        (KeyPress("D", "", ctrl=True), b"\x04"),
        (KeyPress("Z", "", ctrl=True), b"\x1a"),
        (KeyPress("[", "", ctrl=True), b"\x1b"),
        (KeyPress(" ", " ", ctrl=True), b"\x00"),
        (KeyPress("B", "b", alt=True), b"\x1bb"),
        (KeyPress("X", "", ctrl=True, alt=True), b"\x1b\x18"),
    ],
)
def test_keys_become_bytes(press: KeyPress, expected: bytes) -> None:
    assert send(press) == expected


def test_application_cursor_mode_uses_ss3() -> None:
    assert send(KeyPress("Up"), app_cursor=True) == b"\x1bOA"
    assert send(KeyPress("Home"), app_cursor=True) == b"\x1bOH"
    assert send(KeyPress("Up", ctrl=True), app_cursor=True) == b"\x1b[1;5A"
    term = Terminal(5, 20)
    assert not term.modes().app_cursor
    term.feed(b"\x1b[?1h")
    assert term.modes().app_cursor
    term.feed(b"\x1b[?1l")
    assert not term.modes().app_cursor


def test_panel_shortcuts() -> None:
    assert interpret_key(KeyPress("C", "C", ctrl=True, shift=True)) == Copy()
    assert interpret_key(KeyPress("V", "V", ctrl=True, shift=True)) == Paste()
    assert interpret_key(KeyPress("Insert", shift=True)) == Paste()
    assert interpret_key(KeyPress("PageUp", shift=True)) == Scroll(-1)
    assert interpret_key(KeyPress("PageDown", shift=True)) == Scroll(1)
    # other Ctrl+Shift letters are left to the window's shortcuts; bare modifiers send nothing
    assert interpret_key(KeyPress("Q", "Q", ctrl=True, shift=True)) is None
    assert interpret_key(KeyPress("`", "`", ctrl=True)) is None  # the window's View > Terminal
    assert interpret_key(KeyPress("1", "1", ctrl=True)) is None
    assert interpret_key(KeyPress("", "\x1c", ctrl=True)) == Send(b"\x1c")
    assert interpret_key(KeyPress("", "")) is None


def test_paste_bytes() -> None:
    assert paste_bytes("a\nb\r\nc", bracketed=False) == b"a\rb\rc"
    assert paste_bytes("ls\n", bracketed=True) == b"\x1b[200~ls\r\x1b[201~"
    # a paste cannot end the bracket early and run what follows
    assert paste_bytes("x\x1b[201~rm -rf ~\n", bracketed=True) == b"\x1b[200~xrm -rf ~\r\x1b[201~"
    term = Terminal(5, 20)
    term.feed(b"\x1b[?2004h")
    assert term.modes().bracketed_paste


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("default", P.foreground),
        ("red", P.ansi[1]),
        ("brown", P.ansi[3]),
        ("brightblue", P.ansi[12]),
        ("bfightmagenta", P.ansi[13]),
        ("ff8000", "#ff8000"),
        ("zzzzzz", P.foreground),
        ("nonsense", P.foreground),
    ],
)
def test_colours(value: str, expected: str) -> None:
    assert resolve_colour(value, P.foreground, P) == expected


def test_view_runs_colours_and_attributes() -> None:
    term = Terminal(3, 20)
    term.feed(b"ab\x1b[31mred\x1b[0m \x1b[1;44mB\x1b[0m\x1b[7mR\x1b[0m")
    term.feed(b"\r\n\x1b[38;5;208mX\x1b[38;2;1;2;3mY\x1b[0m")
    view = term.view()
    row = view.rows[0]
    texts = [(r.column, r.text) for r in row]
    assert texts[:5] == [(0, "ab"), (2, "red"), (5, " "), (6, "B"), (7, "R")]
    assert row[1].fg == P.ansi[1]
    assert row[1].bg == P.background
    assert row[3].bold
    assert row[3].bg == P.ansi[4]
    assert row[4].reverse
    assert (row[4].fg, row[4].bg) == (P.background, P.foreground)
    assert sum(r.width for r in row) == 20
    second = view.rows[1]
    assert second[0].fg == "#ff8700"
    assert second[1].fg == "#010203"
    assert view.cursor == (1, 2)
    assert view.text().splitlines()[0] == "abred BR"


def test_cursor_hidden_and_wide_characters() -> None:
    term = Terminal(2, 10)
    term.feed("日本x".encode())
    row = term.view().rows[0]
    assert "".join(r.text for r in row).startswith("日本x")
    assert sum(r.width for r in row) == 10
    assert term.view().cursor == (0, 5)
    term.feed(b"\x1b[?25l")
    assert term.view().cursor is None


def test_scrollback() -> None:
    term = Terminal(3, 10)
    term.feed(b"".join(b"line%d\r\n" % n for n in range(10)))
    assert term.text() == "line8\nline9\n"
    assert term.history_lines == 8
    term.scroll_by(2)
    assert term.text() == "line6\nline7\nline8"
    assert term.view().cursor is None  # the cursor's row is below the view
    term.feed(b"more\r\n")  # output keeps a scrolled-back view where it is
    assert term.text() == "line6\nline7\nline8"
    term.scroll_by(100)
    assert term.scroll == term.history_lines
    assert term.text().splitlines()[0] == "line0"
    term.scroll_by(-1000)
    assert term.scroll == 0
    assert term.text() == "line9\nmore\n"


def test_selection_text() -> None:
    term = Terminal(4, 12)
    term.feed(b"hello world\r\nsecond line\r\nthird")
    first = term.point_at(0, 6)
    term.select(first, term.point_at(1, 5))
    assert term.selected_text() == "world\nsecond"
    # backwards selection reads the same; selected cells are drawn reversed
    term.select(term.point_at(1, 5), first)
    assert term.selected_text() == "world\nsecond"
    runs = term.view().rows[0]
    selected = [r for r in runs if r.fg == P.background]
    assert [(r.column, r.text) for r in selected] == [(6, "world ")]
    term.select(first, first)
    assert term.selected_text() == ""


def test_selection_in_scrollback_survives_scrolling() -> None:
    term = Terminal(2, 8)
    term.feed(b"old\r\nnew\r\nnewer\r\n")
    term.scroll_by(2)
    assert term.text().splitlines()[0] == "old"
    term.select(term.point_at(0, 0), term.point_at(0, 2))
    term.scroll_by(-2)
    assert term.selected_text() == "old"


def test_resize_and_device_reports() -> None:
    term = Terminal(5, 20)
    term.resize(10, 40)
    assert (term.rows, term.columns) == (10, 40)
    term.feed(b"abc")
    assert term.feed(b"\x1b[6n") == b"\x1b[1;4R"
    term.feed(b"\x1b]0;my title\x07")
    assert term.title == "my title"


def test_shell_command() -> None:
    env = {"SHELL": "/bin/zsh", "HOME": "/home/u", "PATH": "/bin", "COLUMNS": "80"}
    command = shell_command(
        env,
        passwd_shell="/bin/bash",
        passwd_home="/home/p",
        session_id="Session4",
        session_url="https://a.test/",
        is_executable=lambda p: p == "/bin/zsh",
    )
    assert (command.path, command.argv0, command.cwd) == ("/bin/zsh", "-zsh", "/home/u")
    assert command.env["SVC_SESSION_ID"] == "Session4"
    assert command.env["SVC_SESSION_URL"] == "https://a.test/"
    assert command.env["TERM"] == "xterm-256color"
    assert command.env["PATH"] == "/bin"
    assert "COLUMNS" not in command.env
    # $SHELL unusable: the passwd entry; neither: /bin/sh; no $HOME: the passwd home
    other = shell_command(
        {"SHELL": "zsh"},
        passwd_shell="/bin/bash",
        passwd_home="/home/p",
        session_id="s",
        session_url="",
        is_executable=lambda p: True,
    )
    assert (other.path, other.argv0, other.cwd) == ("/bin/bash", "-bash", "/home/p")
    fallback = shell_command(
        {},
        passwd_shell=None,
        passwd_home=None,
        session_id="s",
        session_url="",
        is_executable=lambda p: False,
    )
    assert (fallback.path, fallback.argv0, fallback.cwd) == ("/bin/sh", "-sh", "/")


def test_shrinking_keeps_the_cursor_line_and_moves_the_top_into_the_scrollback() -> None:
    term = Terminal(5, 10)
    term.feed(b"a\r\nb\r\nc\r\nd\r\n$ x")
    term.resize(3, 10)
    assert term.text() == "c\nd\n$ x"
    assert term.view().cursor == (2, 3)
    term.scroll_by(2)
    assert term.text() == "a\nb\nc"
    # with the cursor at the top, the blank lines below it go and nothing moves
    top = Terminal(5, 10)
    top.feed(b"$ ")
    top.resize(2, 10)
    assert (top.text(), top.history_lines, top.view().cursor) == ("$\n", 0, (0, 2))
    top.resize(4, 12)
    assert (top.rows, top.columns) == (4, 12)
    assert top.feed(b"\x1b[6n") == b"\x1b[1;3R"


def test_scrollback_bounds_and_regions() -> None:
    term = Terminal(2, 8, history=5)
    term.feed(b"".join(b"l%d\r\n" % n for n in range(10)))
    assert term.history_lines == 5
    term.scroll_by(2)
    assert term.text() == "l7\nl8"
    term.select(term.point_at(0, 0), term.point_at(0, 1))
    assert term.selected_text() == "l7"
    # more output: the view and the selection stay on their text while old lines are dropped
    term.feed(b"l10\r\n")
    assert term.text() == "l7\nl8"
    assert term.selected_text() == "l7"
    term.feed(b"l11\r\nl12\r\nl13\r\n")
    assert term.selected_text() == ""  # l7 has left the scrollback
    assert term.text() == "l8\nl9"  # the oldest kept
    # a scroll region that does not start at the top does not feed the scrollback
    region = Terminal(4, 8)
    region.feed(b"\x1b[2;4r\x1b[4;1H" + b"x\r\n" * 5)
    assert region.history_lines == 0
    region.feed(b"\x1b[r\x1b[4;1H" + b"y\r\n" * 2)
    assert region.history_lines == 2
    # "clear" (ED 3) empties it
    region.feed(b"\x1b[3J")
    assert region.history_lines == 0
    assert region.scroll == 0


def test_a_bundles_library_path_does_not_reach_the_shell() -> None:
    from host_app.logic.terminal import user_environment

    bundled = {
        "PATH": "/usr/bin",
        "LD_LIBRARY_PATH": "/opt/svc/_internal",
        "LD_LIBRARY_PATH_ORIG": "/home/u/lib",
        "_PYI_APPLICATION_HOME_DIR": "/opt/svc/_internal",
        "_PYI_PARENT_PROCESS_LEVEL": "1",
        "COLUMNS": "80",
    }
    assert user_environment(bundled) == {"PATH": "/usr/bin", "LD_LIBRARY_PATH": "/home/u/lib"}
    del bundled["LD_LIBRARY_PATH_ORIG"]
    assert user_environment(bundled) == {"PATH": "/usr/bin"}
    # from source: the user's own library path is theirs
    assert user_environment({"LD_LIBRARY_PATH": "/mine"}) == {"LD_LIBRARY_PATH": "/mine"}
