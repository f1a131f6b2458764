"""Cookies files people have, read into the cookies a profile stages (docs/decisions.md "Sign in
once"), Qt-free.

- Netscape `cookies.txt` (curl, wget, yt-dlp, the "Get cookies.txt" extensions): one cookie a
  line, seven tab-separated fields (domain, subdomains TRUE/FALSE, path, secure TRUE/FALSE,
  expiry in epoch seconds with 0 for a session cookie, name, value); `#HttpOnly_` before the
  domain marks an HttpOnly cookie; other lines starting with `#` and blank lines are comments.
- Playwright's storage state (`context.storage_state(path=...)`): `{"cookies": [...], "origins":
  [...]}` with `expires` -1 for a session cookie and `sameSite` "Strict", "Lax" or "None"; the
  bare list `context.cookies()` returns; and the JSON list browser extensions export
  (`expirationDate`, `hostOnly`, `sameSite` "no_restriction"/"unspecified"). Origins' local
  storage is not a cookie: it is left out, and said so by the caller.

Every error names the line (Netscape) or the entry (JSON) it is about.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from bridge_protocol.browser_data import SameSite, StagedCookie

from .assets import Cookie

NETSCAPE_FIELDS = 7
HTTP_ONLY_PREFIX = "#HttpOnly_"
MAX_COOKIES = 10_000


class CookieFileError(ValueError):
    """The file is not a cookies file this app reads; the message says where and why."""


def parse(text: str, now: float | None = None) -> list[StagedCookie]:
    """The live cookies of a Netscape or JSON cookies file (expired ones are left out)."""
    stripped = text.lstrip("\ufeff \t\r\n")
    cookies = _json(stripped) if stripped[:1] in "[{" else _netscape(text)
    t = time.time() if now is None else now
    live = [c for c in cookies if c.expires is None or c.expires > t]
    if len(live) > MAX_COOKIES:
        raise CookieFileError(f"{len(live)} cookies: more than the {MAX_COOKIES} a file may hold")
    return live


def from_jar(cookies: Iterable[Cookie], now: float | None = None) -> list[StagedCookie]:
    """A session's live cookies as its cookie store reported them (a sign-in to save)."""
    t = time.time() if now is None else now
    return [
        StagedCookie(
            name=c.name,
            value=c.value,
            domain=c.domain,
            path=c.path or "/",
            expires=c.expires,
            secure=c.secure,
            http_only=c.http_only,
            same_site=_same_site(c.same_site),
        )
        for c in cookies
        if c.expires is None or c.expires > t
    ]


def _netscape(text: str) -> list[StagedCookie]:
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        http_only = line.startswith(HTTP_ONLY_PREFIX)
        if http_only:
            line = line[len(HTTP_ONLY_PREFIX) :]
        elif not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != NETSCAPE_FIELDS:
            raise CookieFileError(
                f"line {number}: {len(fields)} tab-separated fields, not the {NETSCAPE_FIELDS} "
                "of a Netscape cookies.txt line (domain, subdomains, path, secure, expiry, "
                "name, value)"
            )
        domain, subdomains, path, secure, expiry, name, value = fields
        flags = {"TRUE": True, "FALSE": False}
        if subdomains.upper() not in flags or secure.upper() not in flags:
            raise CookieFileError(f"line {number}: the subdomains and secure fields are TRUE/FALSE")
        try:
            expires = float(expiry)
        except ValueError:
            raise CookieFileError(f"line {number}: expiry {expiry!r} is not a number") from None
        host = domain.lstrip(".")
        if not host or (not name and not value):
            raise CookieFileError(f"line {number}: a cookie needs a domain and a name or value")
        out.append(
            StagedCookie(
                name=name,
                value=value,
                domain=f".{host}" if flags[subdomains.upper()] else host,
                path=path or "/",
                expires=expires if expires > 0 else None,
                secure=flags[secure.upper()],
                http_only=http_only,
            )
        )
    return out


def _json(text: str) -> list[StagedCookie]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CookieFileError(f"not valid JSON: {exc}") from None
    entries = data.get("cookies") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise CookieFileError(
            "a JSON cookies file is a list of cookies or Playwright's storage state "
            '({"cookies": [...]})'
        )
    return [_json_cookie(n, e) for n, e in enumerate(entries, 1)]


def _json_cookie(number: int, entry: Any) -> StagedCookie:
    where = f"cookie {number}"
    if not isinstance(entry, dict):
        raise CookieFileError(f"{where}: not an object")
    name, value, domain = entry.get("name"), entry.get("value"), entry.get("domain")
    if not isinstance(name, str) or not isinstance(value, str) or not isinstance(domain, str):
        raise CookieFileError(f"{where}: name, value and domain must be strings")
    host = domain.lstrip(".")
    if not host:
        raise CookieFileError(f"{where}: an empty domain")
    # Playwright: a leading dot is a domain cookie; the extensions say hostOnly
    host_only = entry.get("hostOnly")
    domain_cookie = domain.startswith(".") if not isinstance(host_only, bool) else not host_only
    raw_expiry = entry.get("expires", entry.get("expirationDate"))
    if raw_expiry is not None and (
        isinstance(raw_expiry, bool) or not isinstance(raw_expiry, int | float)
    ):
        raise CookieFileError(f"{where}: expires must be a number")
    session = raw_expiry is None or raw_expiry <= 0 or entry.get("session") is True
    path = entry.get("path", "/")
    return StagedCookie(
        name=name,
        value=value,
        domain=f".{host}" if domain_cookie else host,
        path=path if isinstance(path, str) and path else "/",
        expires=None if session else float(raw_expiry),  # type: ignore[arg-type]
        secure=entry.get("secure") is True,
        http_only=entry.get("httpOnly") is True,
        same_site=_same_site(entry.get("sameSite")),
    )


def _same_site(value: object) -> SameSite | None:
    if not isinstance(value, str):
        return None
    return {
        "strict": "strict",
        "lax": "lax",
        "none": "none",
        "no_restriction": "none",
    }.get(value.lower())  # type: ignore[return-value]
