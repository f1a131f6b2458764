"""The rows of the agent's tables as typed, frozen records (the schema is agent/store.py's).

Each table has one repository, the only code that issues SQL against it, and it hands out these
records: `Sessions` owns `browser_profiles` (SessionRecord), `Profiles` owns `saved_profiles`
(ProfileRecord), `Proxies` owns `proxies` (ProxyRecord). Rendering a record to the API's JSON
shape is its repository's `render`, once per record type.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any, Literal, TypeVar

import msgspec

from bridge_protocol.session_ids import format_session_id
from bridge_protocol.settings import BrowsingSettings

R = TypeVar("R", bound=msgspec.Struct)


def name_key(name: str) -> str:
    """The key a name is stored and compared under (profile and session names, groups, proxy
    aliases are case-insensitive)."""
    return unicodedata.normalize("NFC", name).casefold()


def from_row(row: dict[str, Any], type_: type[R]) -> R:
    # Not strict: SQLite keeps booleans as 0/1 integers.
    return msgspec.convert(row, type_, strict=False)


class SessionRecord(BrowsingSettings, frozen=True, kw_only=True):
    """A row of `browser_profiles`: one persistent session, `Session<id>`, with its browsing
    settings (bridge_protocol.settings)."""

    id: int
    name: str
    name_key: str
    profile: str
    group_name: str | None
    group_key: str | None
    proxy_alias: str | None
    lifetime_type: Literal["inactivity", "indefinite"]
    lifetime_timeout: int | None
    origin: str
    network_paused: bool
    created_at: int

    @property
    def session_id(self) -> str:
        return format_session_id(self.id)


class ProfileRecord(BrowsingSettings, frozen=True, kw_only=True):
    """A row of `saved_profiles`: a session template (the built-in `Custom` is never stored)
    with the browsing settings it gives its sessions."""

    id: str
    name: str
    name_key: str
    proxy_alias: str | None
    includes_cookies: bool
    includes_passwords: bool
    fingerprint_profile: str | None  # JSON text, as stored
    created_at: int


class ProxyRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A row of `proxies`. `settings` is the stored JSON text (agent/proxies.py's docstring
    lists its keys); only `Proxies` reads it."""

    id: int
    alias: str
    alias_key: str
    upstream_host: str
    upstream_port: int
    username: str | None
    password: str | None
    settings: str
    created_at: int


class SessionTemplate(BrowsingSettings, frozen=True, kw_only=True):
    """What a new session takes from its profile (a saved one, or the built-in `Custom`): its
    proxy and browsing settings."""

    name: str
    proxy_alias: str | None
    # the profile's staged cookies (bridge_protocol.browser_data), when it includes them
    staged_cookies: Path | None = None


class ProxyExit(msgspec.Struct, frozen=True, kw_only=True):
    """What a session shows of its proxy: the targeted exit country and the locale settings."""

    country: str | None = None
    locale: str | None = None
    detect_exit_locale: bool = False
