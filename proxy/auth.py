"""Upstream authorization (pure functions): Basic credentials and managed-provider usernames.

Managed providers (spec 1 §4) take their targeting and sticky session from the username. The
formats (docs/decisions.md "Proxy listeners"):

    provider X   <base>[-<cc|country|st>-<value>]-sessid-<sticky id>
    provider Y   <base>[-country-<cc>[-state-<state>][-city-<city>]][-asn-<asn>]-session-<sticky id>

`<base>` is the stored username (the spec asks users for the base one, without suffixes).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Upstream:
    """Where a session's traffic goes and with which credentials (what the agent's lookup gives).

    The password never appears in repr() and never leaves the proxy package except as the
    Proxy-Authorization header sent to the upstream itself.
    """

    host: str
    port: int
    alias: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def authorization(self) -> bytes | None:
        """The Proxy-Authorization value, or None when the upstream takes no credentials."""
        return basic_authorization(self.username, self.password)

    def secrets(self) -> tuple[str, ...]:
        """Every string that must never appear in a diagnostic or a log line: the password, the
        Basic token, and the username when it is long enough to be told apart from ordinary text
        (a username of 1-3 characters would blank out every occurrence of those letters)."""
        out = [s for s in (self.password,) if s]
        if self.username and len(self.username) >= 4:
            out.append(self.username)
        auth = self.authorization()
        if auth is not None:
            out.append(auth.decode("ascii").removeprefix("Basic "))
        return tuple(out)


def basic_authorization(username: str | None, password: str | None) -> bytes | None:
    """RFC 7617 Basic credentials (UTF-8); None without a username."""
    if not username:
        return None
    token = base64.b64encode(f"{username}:{password or ''}".encode()).decode("ascii")
    return f"Basic {token}".encode("ascii")


def providerx_username(
    base: str, location_parameter: str | None, location_value: str | None, sticky_id: str
) -> str:
    location = ""
    if location_parameter and location_value:
        location = f"-{location_parameter}-{location_value}"
    return f"{base}{location}-sessid-{sticky_id}"


def providery_username(
    base: str,
    sticky_id: str,
    *,
    country: str | None = None,
    state: str | None = None,
    city: str | None = None,
    asn: str | None = None,
) -> str:
    parts = [base]
    if country:
        parts.append(f"country-{country}")
        if state:
            parts.append(f"state-{state}")
        if city:
            parts.append(f"city-{city}")
    if asn:
        parts.append(f"asn-{asn}")
    parts.append(f"session-{sticky_id}")
    return "-".join(parts)


def is_managed(settings: Mapping[str, Any]) -> bool:
    px = settings.get("providerx") or {}
    py = settings.get("providery") or {}
    return bool(px.get("enabled") or py.get("enabled"))


def managed_username(base: str, settings: Mapping[str, Any], sticky_id: str) -> str:
    """The username to send for a proxy's stored `settings` (the base one when not managed)."""
    px = settings.get("providerx") or {}
    py = settings.get("providery") or {}
    if px.get("enabled"):
        return providerx_username(
            base, px.get("location_parameter"), px.get("location_value"), sticky_id
        )
    if py.get("enabled"):
        return providery_username(
            base,
            sticky_id,
            country=py.get("country"),
            state=py.get("state"),
            city=py.get("city"),
            asn=py.get("asn"),
        )
    return base
