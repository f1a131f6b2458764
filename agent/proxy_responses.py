"""The answers of the proxy routes as structs (issue 39 point 3): what `Proxies` builds and the
routes send; docs/openapi.yaml's schemas of them are generated from them (agent/openapi.py)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from .responses import Shown


class ProviderXShown(Shown, frozen=True):
    """Managed provider X of a proxy."""

    enabled: bool
    location_parameter: Literal["cc", "country", "st"] | None
    location_value: str | None


class ProviderYShown(Shown, frozen=True):
    """Managed provider Y of a proxy (its targeting, normalized; null when not set)."""

    enabled: bool
    country: str | None
    state: str | None
    city: str | None
    asn: str | None


class TlsShown(Shown, frozen=True, kw_only=True):
    """What a proxy's sessions trust: a mode, or additional certificates (then mode is null)."""

    mode: Literal["system", "providery"] | None
    certificates: str | msgspec.UnsetType = msgspec.UNSET
    certificate_count: int | msgspec.UnsetType = msgspec.UNSET


class Proxy(Shown, frozen=True, kw_only=True):
    """A stored proxy; the password is never returned. `providerx` is omitted when no such
    configuration exists."""

    alias: str
    upstream_host: str
    upstream_port: int
    username: str | None
    password_set: bool
    providerx: ProviderXShown | msgspec.UnsetType = msgspec.UNSET
    providery: ProviderYShown
    tls: TlsShown
    locale: str | None
    detect_exit_locale: bool


class ProxyList(Shown, frozen=True):
    proxies: list[Proxy]


class ProxyResult(Shown, frozen=True):
    proxy: Proxy


class ProxyDeleted(Shown, frozen=True):
    deleted_alias: str
    detached_session_ids: list[str]


class ProxyLocation(Shown, frozen=True):
    country: Annotated[
        str,
        msgspec.Meta(
            pattern="^[A-Z]{2}$",
            description="ISO 3166-1 alpha-2 code of the exit, upper case (e.g. DE)",
        ),
    ]
    timezone: Annotated[
        str, msgspec.Meta(description="IANA time zone of the exit (e.g. Europe/Berlin)")
    ]
