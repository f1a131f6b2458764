"""Sign in once, reuse everywhere (issue 40; docs/decisions.md "Sign in once"): the browser
window's Session > Save sign-in to profile… and Session > Import cookies…

Both end the same way: the person picks a saved profile (or names a new one), the app writes
the cookies where that profile's staged browser data lives (bridge_protocol.browser_data, the
user's eyes only) and turns the profile's `includes_cookies` on through the API; every session
made from the profile afterwards starts with them. The values never cross the API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bridge_protocol import browser_data
from bridge_protocol.browser_data import StagedCookie

from ..logic.cookie_files import CookieFileError, parse
from ..qt import QFileDialog, QInputDialog, QMessageBox, QWidget
from .agent_client import ApiError, ProfileRow, UiApi

SAVE_TITLE = "Save sign-in to profile"
IMPORT_TITLE = "Import cookies"
PICK_TITLE = "Save cookies to profile"
FILE_FILTER = "Cookies files (*.txt *.json);;All files (*)"
MAX_FILE_BYTES = 16 * 1024 * 1024

Say = Callable[[str], None]  # a line in the window's status


def _read(path: Path) -> str:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise CookieFileError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    return path.read_text("utf-8", errors="replace")


class SignIn:
    def __init__(self, parent: QWidget, api: UiApi, data_dir: Path, say: Say) -> None:
        self._parent = parent
        self._api = api
        self._data_dir = data_dir
        self._say = say

    def save(self, session_name: str, cookies: list[StagedCookie]) -> None:
        """A session's sign-in (its live cookies) into a profile the person picks."""
        if not cookies:
            self._warn(
                SAVE_TITLE,
                f"{session_name} holds no cookies yet: sign in on its page first, then save.",
            )
            return
        what = f"the {len(cookies)} cookies of {session_name}"
        self._to_profile(SAVE_TITLE, what, cookies)

    def import_file(self) -> None:
        """A cookies file (Netscape cookies.txt, Playwright's storage state) into a profile."""
        # Qt's own dialog: the same on every desktop (and with none)
        path, _ = QFileDialog.getOpenFileName(
            self._parent,
            IMPORT_TITLE,
            "",
            FILE_FILTER,
            options=QFileDialog.Option.DontUseNativeDialog,
        )
        if not path:
            return
        try:
            cookies = parse(_read(Path(path)))
        except (OSError, CookieFileError) as exc:
            self._warn(IMPORT_TITLE, f"{Path(path).name} was not imported: {exc}")
            return
        if not cookies:
            self._warn(IMPORT_TITLE, f"{Path(path).name} holds no cookie that has not expired.")
            return
        self._to_profile(IMPORT_TITLE, f"the {len(cookies)} cookies of {Path(path).name}", cookies)

    # -- the profile -----------------------------------------------------------------------------

    def _to_profile(self, title: str, what: str, cookies: list[StagedCookie]) -> None:
        self._api.profiles(lambda answer: self._pick(answer, title, what, cookies))

    def _pick(
        self,
        answer: list[ProfileRow] | ApiError,
        title: str,
        what: str,
        cookies: list[StagedCookie],
    ) -> None:
        if isinstance(answer, ApiError):
            self._warn(title, f"The profiles could not be listed: {answer.message}")
            return
        name, ok = QInputDialog.getItem(
            self._parent,
            PICK_TITLE,
            f"Save {what} to the saved profile (pick one, or type a new name).\n"
            "Sessions made from it afterwards start signed in; a profile's earlier cookies "
            "are replaced.",
            [p.name for p in answer],
            0,
            True,
        )
        name = name.strip()
        if not ok or not name:
            return
        found = {p.name.casefold(): p for p in answer}.get(name.casefold())
        if found is not None:
            self._stage(found, title, cookies)
        else:
            self._api.create_profile(name, lambda made: self._made(made, title, cookies))

    def _made(self, made: ProfileRow | ApiError, title: str, cookies: list[StagedCookie]) -> None:
        if isinstance(made, ApiError):
            self._warn(title, f"The profile could not be made: {made.message}")
            return
        self._stage(made, title, cookies)

    def _stage(self, profile: ProfileRow, title: str, cookies: list[StagedCookie]) -> None:
        target = browser_data.staged_cookies(self._data_dir, profile.id)
        try:
            browser_data.write_private(target, browser_data.encode(cookies))
        except OSError as exc:
            self._warn(title, f"The cookies could not be written: {exc}")
            return

        def done(answer: ProfileRow | ApiError) -> None:
            if isinstance(answer, ApiError):
                self._warn(title, f"The profile was not changed: {answer.message}")
                return
            self._say(
                f"{len(cookies)} cookies saved to the profile {answer.name}: new sessions made "
                "from it start signed in."
            )

        self._api.include_cookies(profile.id, done)

    def _warn(self, title: str, text: str) -> None:
        QMessageBox.warning(self._parent, title, text)
