"""A session's folder, `{data_dir}/Browser/Tab-<N>`: the proxy preference its next profile
reads (user_prefs.json), the saved profile's cookies the agent copied there for it, and the
folder's removal once the engine has let go of it."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import msgspec

from bridge_protocol import ErrorId, SvcError, browser_data

from ..logic import aio
from ..qt import QWebEngineProfile
from .asset_scheme import qt_cookie
from .session_log import SessionLog


def removed(path: Path) -> bool:
    """One attempt at removing a session's folder; True once it is gone (the engine's file
    threads may still be closing files there for a moment after its profile went)."""
    shutil.rmtree(path, ignore_errors=True)
    return not os.path.lexists(path)


def remove_later(loop: aio.Loop, storage: Path) -> None:
    """Remove a closed session's folder, trying again for a few seconds."""

    def remove(attempt: int = 0) -> None:
        if not removed(storage) and attempt < 10:
            loop.call_later(0.5, lambda: remove(attempt + 1))

    remove()
    loop.call_later(1.0, lambda: remove(5))


def write_proxy_prefs(storage: Path, proxy_port: int | None, session_id: str) -> None:
    """The route the next profile on `storage` runs on, in its user_prefs.json (read only when
    the profile is created, DESIGN.md)."""
    try:
        storage.mkdir(parents=True, exist_ok=True)
        prefs_path = storage / "user_prefs.json"
        prefs: dict[str, Any] = {}
        with contextlib.suppress(OSError, ValueError):
            loaded = json.loads(prefs_path.read_text("utf-8"))
            if isinstance(loaded, dict):
                prefs = loaded
        if proxy_port is None:
            prefs["proxy"] = {"mode": "direct"}
        else:
            prefs["proxy"] = {
                "mode": "fixed_servers",
                "server": f"127.0.0.1:{int(proxy_port)}",
                "bypass_list": "<-loopback>",
            }
        prefs_path.write_text(json.dumps(prefs), "utf-8")
    except (OSError, ValueError, TypeError) as exc:
        raise SvcError.of(
            ErrorId.PROXY_CONFIGURATION_FAILED,
            f"cannot write the proxy preference of {session_id}: {exc}",
        ) from None


def seed_cookies(profile: QWebEngineProfile, storage: Path, log: SessionLog) -> None:
    """The saved profile's cookies the agent copied for this new session
    (bridge_protocol.browser_data), put into its store before its first request; the copy
    goes once they are in the store's hands."""
    seed = browser_data.seed_cookies(storage)
    try:
        cookies = browser_data.decode(seed.read_bytes())
    except FileNotFoundError:
        return
    except (OSError, msgspec.MsgspecError) as exc:
        _seeded(log, f"the profile's cookies could not be read: {exc}", 0)
        return
    store = profile.cookieStore()
    if store is None:
        return
    for c in cookies:
        store.setCookie(*qt_cookie(c))
    seed.unlink(missing_ok=True)
    _seeded(log, f"{len(cookies)} cookies from the profile", len(cookies))


def _seeded(log: SessionLog, message: str, count: int) -> None:
    log.log("session.cookies_seeded", f"{log.session_id}: {message}", cookies=count)
