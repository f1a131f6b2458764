"""Request bodies of every v1 route as closed msgspec Structs (spec 1 sections 4 and 8).

An unknown field, a wrong type or a value out of range fails decoding; `decode_body` turns that
into VALIDATION_FAILED with `details.field` naming the offending field.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeVar

import msgspec

from bridge_protocol import Action, ErrorId, SvcError
from bridge_protocol.actions import RefAction
from bridge_protocol.identity import FingerprintProfile
from bridge_protocol.session_ids import PATTERN as SESSION_ID_PATTERN
from bridge_protocol.settings import (
    BrowsingSettings,
    SettingsChange,
    SettingsChoice,
)

T = TypeVar("T")

Seconds = Annotated[float, msgspec.Meta(gt=0, le=86400)]
Settle = Annotated[float, msgspec.Meta(ge=0, le=86400)]
NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
# Session names are bounded like groups (spec 1 §5 gives groups 1-128 characters and names no
# bound; an unbounded name made every session list carry it: issue 12).
SessionName = Annotated[
    str, msgspec.Meta(min_length=1, max_length=128, pattern=r"^[^\x00-\x1f\x7f]*$")
]
Mode = Literal["semantic", "hybrid", "visual"]
SessionIdField = Annotated[str, msgspec.Meta(pattern=SESSION_ID_PATTERN)]


class Body(
    msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True, frozen=True
):
    pass


class UNSET_T:
    """Marks a field the client did not send (distinct from an explicit null)."""


# --- sessions ----------------------------------------------------------------------------------


class InactivityLifetime(
    msgspec.Struct, tag_field="type", tag="inactivity", forbid_unknown_fields=True
):
    timeout_seconds: Annotated[int, msgspec.Meta(ge=1, le=31_536_000)] = 120


class IndefiniteLifetime(
    msgspec.Struct, tag_field="type", tag="indefinite", forbid_unknown_fields=True
):
    pass


Lifetime = InactivityLifetime | IndefiniteLifetime


# The browsing settings (adblock, image blocking) come from bridge_protocol.settings, their one
# definition.


class SessionCreate(Body, SettingsChoice, frozen=True):
    name: SessionName | None = None
    group: str | None = None
    profile: NonEmpty | None = None
    proxy_alias: NonEmpty | None = None
    lifetime: Lifetime | None = None


class SessionPatch(Body, SettingsChange, frozen=True):
    name: SessionName | msgspec.UnsetType = msgspec.UNSET
    proxy_alias: NonEmpty | msgspec.UnsetType | None = msgspec.UNSET


class SessionsClose(Body, frozen=True):
    group: str


# --- profiles ----------------------------------------------------------------------------------

NoPasswords = Annotated[
    bool,
    msgspec.Meta(description="Always false - svc keeps no passwords (true is VALIDATION_FAILED)."),
]


class ProfileCreate(Body, BrowsingSettings, frozen=True):
    name: NonEmpty
    proxy_alias: NonEmpty | None = None
    includes_cookies: Annotated[
        bool,
        msgspec.Meta(
            description="Only false on creation (nothing is staged for a profile not yet made); "
            "VALIDATION_FAILED otherwise."
        ),
    ] = False
    includes_passwords: NoPasswords = False
    fingerprint_profile: FingerprintProfile | msgspec.UnsetType | None = msgspec.UNSET


class ProfilePatch(Body, SettingsChange, frozen=True):
    name: NonEmpty | msgspec.UnsetType = msgspec.UNSET
    proxy_alias: NonEmpty | msgspec.UnsetType | None = msgspec.UNSET
    includes_cookies: (
        Annotated[
            bool,
            msgspec.Meta(
                description="true only while the app has staged cookies for the profile "
                "(VALIDATION_FAILED otherwise); false removes them."
            ),
        ]
        | msgspec.UnsetType
    ) = msgspec.UNSET
    includes_passwords: NoPasswords | msgspec.UnsetType = msgspec.UNSET
    fingerprint_profile: FingerprintProfile | msgspec.UnsetType | None = msgspec.UNSET


# A transfer archive in base64: the 12 MiB limit is checked on the decoded archive (with a
# message naming it); this bound only keeps the text within the import routes' body limit.
ArchiveText = Annotated[str, msgspec.Meta(min_length=1, max_length=16 * 1024 * 1024 + 64 * 1024)]


class ProfileExport(Body, frozen=True):
    name: NonEmpty


class ProfileImport(Body, frozen=True):
    contents_base64: ArchiveText
    name: NonEmpty | None = None


# --- proxies -----------------------------------------------------------------------------------

Alias = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")]


class ProviderY(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    enabled: bool
    country: str | None = None
    state: str | None = None
    city: str | None = None
    asn: str | None = None


class Tls(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    mode: Literal["system", "providery"] | None = None
    certificates: Annotated[str, msgspec.Meta(min_length=1, max_length=65536)] | None = None


class ProxyCreate(Body, frozen=True):
    alias: Alias
    upstream_host: NonEmpty
    upstream_port: Annotated[int, msgspec.Meta(ge=1, le=65535)]
    username: str | None = None
    password: str | None = None
    providerx_enabled: bool = False
    providerx_location_parameter: Literal["cc", "country", "st"] | None = None
    providerx_location_value: NonEmpty | None = None
    providery: ProviderY | None = None
    tls: Tls | None = None
    locale: str | None = None
    detect_exit_locale: bool = True


class ProxyPatch(Body, frozen=True):
    upstream_host: NonEmpty | msgspec.UnsetType = msgspec.UNSET
    upstream_port: Annotated[int, msgspec.Meta(ge=1, le=65535)] | msgspec.UnsetType = msgspec.UNSET
    username: str | msgspec.UnsetType | None = msgspec.UNSET
    password: str | msgspec.UnsetType | None = msgspec.UNSET
    providerx_enabled: bool | msgspec.UnsetType = msgspec.UNSET
    providerx_location_parameter: Literal["cc", "country", "st"] | msgspec.UnsetType | None = (
        msgspec.UNSET
    )
    providerx_location_value: NonEmpty | msgspec.UnsetType | None = msgspec.UNSET
    providery: ProviderY | msgspec.UnsetType = msgspec.UNSET
    tls: Tls | msgspec.UnsetType = msgspec.UNSET
    locale: str | msgspec.UnsetType | None = msgspec.UNSET
    detect_exit_locale: bool | msgspec.UnsetType = msgspec.UNSET


class ProxyExport(Body, frozen=True):
    alias: Alias
    include_credentials: bool
    passphrase: str | None = None


class ProxyImport(Body, frozen=True):
    contents_base64: ArchiveText
    alias: Alias | None = None
    passphrase: str | None = None


# --- browser operations ------------------------------------------------------------------------


class NavigateBody(Body, frozen=True):
    url: NonEmpty
    session_id: SessionIdField | None = None
    profile: NonEmpty | None = None
    proxy: NonEmpty | None = None
    output: NonEmpty | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class NavigateObserveBody(Body, frozen=True):
    url: NonEmpty | None = None
    session_id: SessionIdField | None = None
    profile: NonEmpty | None = None
    proxy: NonEmpty | None = None
    navigation: Literal["url", "back", "forward", "reload"] = "url"
    mode: Mode = "semantic"
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class PerformBody(Body, frozen=True):
    actions: Annotated[list[Action], msgspec.Meta(min_length=1, max_length=100)]
    session_id: SessionIdField | None = None
    output: NonEmpty | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class CaptureBody(Body, frozen=True):
    session_id: SessionIdField | None = None
    output: NonEmpty | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class ScreenshotBody(Body, frozen=True):
    session_id: SessionIdField | None = None
    output: NonEmpty | None = None
    format: Literal["png", "jpeg", "webp"] = "png"
    quality: Annotated[int, msgspec.Meta(ge=0, le=100)] | None = None
    full_page: bool = False
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class PageScreenshotBody(Body, frozen=True):
    output: NonEmpty | None = None
    format: Literal["png", "jpeg", "webp"] = "png"
    quality: Annotated[int, msgspec.Meta(ge=0, le=100)] | None = None
    full_page: bool = False
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class ObserveBody(Body, frozen=True):
    session_id: SessionIdField | None = None
    mode: Mode = "semantic"
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class PageObserveBody(Body, frozen=True):
    mode: Mode = "semantic"
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class CapturesBody(Body, frozen=True):
    url: NonEmpty
    output: NonEmpty | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0
    actions: Annotated[list[Action], msgspec.Meta(max_length=100)] = []
    session_id: SessionIdField | None = None
    profile: NonEmpty | None = None
    group: str | None = None
    proxy: NonEmpty | None = None
    retry: Annotated[int, msgspec.Meta(ge=0, le=100)] = 1
    retry_delay: Annotated[float, msgspec.Meta(ge=0, le=86400)] = 3.0


class PagesBody(Body, frozen=True):
    url: NonEmpty
    session_id: SessionIdField | None = None
    profile: NonEmpty | None = None
    group: str | None = None
    proxy: NonEmpty | None = None
    output: NonEmpty | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class PageActionBody(Body, frozen=True):
    action: Action
    output: NonEmpty | None = None
    timeout: Seconds = 90.0
    wait: Settle = 1.0


class ObservationActionsBody(Body, frozen=True):
    actions: Annotated[list[RefAction], msgspec.Meta(min_length=1, max_length=32)]
    mode: Mode = "semantic"


class FindBody(Body, frozen=True):
    query: str | None = None
    role: str | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 20


# --- decoding ----------------------------------------------------------------------------------

_PATH = re.compile(r"at `\$((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*)`")


def validation_error(message: str, field: str | None, **extra: Any) -> SvcError:
    details: dict[str, Any] = dict(extra)
    if field is not None:
        details["field"] = field
    return SvcError.of(ErrorId.VALIDATION_FAILED, message, **details)


def decode_body(raw: bytes, type_: type[T]) -> T:
    """Decode a JSON body into a closed struct, or raise INVALID_REQUEST / VALIDATION_FAILED."""
    try:
        result: T = msgspec.json.decode(raw, type=type_)
    except msgspec.ValidationError as exc:
        text = str(exc)
        match = _PATH.search(text)
        field = match.group(1).lstrip(".") if match else None
        named = re.search(r"(?:unknown|missing required) field `([^`]*)`|^`([^`]*)`: ", text)
        if named:
            name = named.group(1) or named.group(2)
            field = f"{field}.{name}" if field else name
        raise validation_error(text, field or None) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise SvcError.of(ErrorId.INVALID_REQUEST, f"malformed JSON body: {exc}") from None
    except RecursionError:
        # msgspec bounds nesting by the interpreter's recursion limit and says so this way
        raise SvcError.of(
            ErrorId.INVALID_REQUEST, "malformed JSON body: nested too deeply"
        ) from None
    return result
