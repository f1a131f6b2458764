"""The answers of the session and profile routes as structs (issue 39 point 3), and `Shown`, the
base of every answer struct (here and in the modules beside it: proxy_responses,
health_responses, page_responses, observation_responses, capture_events). A repository or the
browser builds one, the route sends it (routes/toolkit.ok), and docs/openapi.yaml's schema of it
is generated from it (agent/openapi.py). A field that some answers leave out is UNSET there
(never sent); every other field is always sent."""

from __future__ import annotations

from typing import Annotated

import msgspec

from bridge_protocol.identity import FingerprintProfile
from bridge_protocol.session_ids import PATTERN as SESSION_ID_PATTERN
from bridge_protocol.settings import ImageBlocking, ImageLimit

from .api import NoPasswords


class Shown(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """An answer's object: exactly its fields (additionalProperties false in the schema)."""


class InactivityLifetimeShown(Shown, frozen=True, tag_field="type", tag="inactivity"):
    """Ends after timeout_seconds without a request for the session."""

    timeout_seconds: int


class IndefiniteLifetimeShown(Shown, frozen=True, tag_field="type", tag="indefinite"):
    """Lives until deleted."""


LifetimeShown = InactivityLifetimeShown | IndefiniteLifetimeShown


# The browsing settings are bridge_protocol.settings' (tests/agent/test_settings_home.py checks
# that each is here); they are written out to keep the spec's order of the object's fields.
class Session(Shown, frozen=True):
    """A persistent session (spec 1 §2 Session)."""

    id: Annotated[str, msgspec.Meta(pattern=SESSION_ID_PATTERN)]
    name: str
    profile: str
    profile_data_id: None
    group: str | None
    proxy_alias: str | None
    adblock_enabled: bool
    image_blocking_mode: ImageBlocking
    image_size_limit_kb: ImageLimit
    created_at: int
    proxy_country: str | None
    proxy_detect_exit_locale: bool
    proxy_locale: str | None
    lifetime: LifetimeShown
    network_paused: bool


class Profile(Shown, frozen=True):
    """A saved profile: a template of new sessions (spec 1 §2 Profile)."""

    id: Annotated[str, msgspec.Meta(extra_json_schema={"format": "uuid"})]
    name: str
    proxy_alias: str | None
    adblock_enabled: bool
    image_blocking_mode: ImageBlocking
    image_size_limit_kb: ImageLimit
    includes_cookies: Annotated[
        bool,
        msgspec.Meta(
            description="True while the app holds cookies staged for this profile (a session's "
            "sign-in saved from the window, or an imported cookies file); sessions made from it "
            "start with them. Values never cross the API."
        ),
    ]
    includes_passwords: NoPasswords
    fingerprint_profile: FingerprintProfile | None
    is_builtin: bool
    created_at: int


# --- the answers' data: what each route of sessions and profiles sends as `data` -------------


class SessionList(Shown, frozen=True):
    sessions: list[Session]


class SessionResult(Shown, frozen=True):
    session: Session


class SessionsClosed(Shown, frozen=True):
    group: str
    deleted_ids: list[str]


class SessionDeleted(Shown, frozen=True):
    deleted_id: str


class SessionPing(Shown, frozen=True):
    session_id: str
    lifetime: LifetimeShown


class NetworkState(Shown, frozen=True):
    session_id: str
    network_paused: bool


class ProfileList(Shown, frozen=True):
    profiles: list[Profile]


class ProfileResult(Shown, frozen=True):
    profile: Profile


class ProfileDeleted(Shown, frozen=True):
    deleted_id: Annotated[str, msgspec.Meta(extra_json_schema={"format": "uuid"})]


class ProfileImported(Shown, frozen=True):
    profile: Profile
    proxy_created: bool


class TransferArchive(Shown, frozen=True):
    """An exported proxy or profile archive."""

    filename: str
    contents_base64: Annotated[
        str,
        msgspec.Meta(
            description="The versioned SQLite transfer container.",
            extra_json_schema={"contentEncoding": "base64"},
        ),
    ]
    credentials_included: bool
