"""Browser data the app stages for a saved profile (spec 1 §4 Profiles: "The browser-data flags
are used only after the app staged imported browser data; cookie and password values never
cross the API"; docs/decisions.md "Sign in once").

The app (its window) writes a profile's cookies to `staged_cookies(data_dir, profile_id)`: a
session's sign-in saved to the profile, or a cookies file imported. The agent accepts
`includes_cookies: true` only while that file exists, and copies it into a new session's
browser folder (`seed_cookies`) when the session is made from the profile; the app puts those
cookies into the session's cookie store when it first opens the session, before any request,
and removes the copy. The values travel as files between the two processes of one
installation, never through the HTTP API.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Literal

import msgspec

SameSite = Literal["lax", "strict", "none"]
MAX_STAGED_BYTES = 8 * 1024 * 1024  # a browser's whole cookie jar is far smaller


class StagedCookie(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One cookie as a browser holds it. `domain` with a leading dot is a domain cookie (its
    subdomains get it too); without, a host-only cookie of that host."""

    name: str
    value: str
    domain: str
    path: str = "/"
    expires: float | None = None  # seconds since the epoch; None: a session cookie
    secure: bool = False
    http_only: bool = False
    same_site: SameSite | None = None


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(list[StagedCookie])


def staged_cookies(data_dir: Path, profile_id: str) -> Path:
    """Where a saved profile's staged cookies are kept (`profile_id`: its UUID)."""
    return data_dir / "Browser" / "Staged" / profile_id / "cookies.json"


def seed_cookies(browser_dir: Path) -> Path:
    """The copy a new session's browser folder (`{data_dir}/Browser/Tab-<N>`) holds until the
    app has put its cookies into the session's store."""
    return browser_dir / "staged-cookies.json"


def encode(cookies: list[StagedCookie]) -> bytes:
    return _ENCODER.encode(cookies)


def decode(data: bytes) -> list[StagedCookie]:
    """Raises msgspec.ValidationError / DecodeError for a file that is not ours."""
    return _DECODER.decode(data)


def write_private(path: Path, data: bytes) -> None:
    """`data` at `path`, readable by the user alone, replaced at once (never half written)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".staged-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def copy_private(source: Path, target: Path) -> None:
    write_private(target, source.read_bytes())


def remove_staged(data_dir: Path, profile_id: str) -> None:
    """A profile's staged data, gone (its flag turned off, or the profile deleted)."""
    shutil.rmtree(staged_cookies(data_dir, profile_id).parent, ignore_errors=True)
