"""Saved profiles (session templates), the built-in `Custom` profile, and profile transfers.

A saved profile is a row of `saved_profiles`, named uniquely case-insensitively. `Custom` (direct
networking, adblock on, all images allowed) is built in: never stored, never listed, never
deleted, and its name cannot be taken. A new session takes the named profile, else the
configured default profile (`metadata.default_profile`), else `Custom`. The Default Profile chosen
in the app's Settings (`default_profile` in the app's settings file) becomes that default each
time the setting changes (docs/decisions.md "Default profile").
"""

from __future__ import annotations

import json
import re
import secrets
import unicodedata
import uuid
import zoneinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from bridge_protocol import ErrorId, FingerprintProfile, SvcError, browser_data, settings
from bridge_protocol.settings import BrowsingSettings

from . import responses, transfers
from .api import (
    ProfileCreate,
    ProfileExport,
    ProfileImport,
    ProfilePatch,
)
from .config import AgentConfig
from .records import ProfileRecord, SessionTemplate, from_row, name_key
from .sessions import BUILTIN_PROFILE, CUSTOM_TEMPLATE, pro_required
from .store import Store, now_ms

if TYPE_CHECKING:
    from .proxies import Proxies

# The built-in profile's id: it is never stored, but DELETE and PATCH recognise it (and the
# name `Custom`) to answer CONFLICT instead of "no such profile".
BUILTIN_ID = "00000000-0000-0000-0000-000000000000"
DEFAULT_PROFILE_KEY = "default_profile"
# The host app's settings file in the shared data folder (host_app/config.py `settings_path`,
# host_app/logic/settings.py) and the last value of its `default_profile` taken over.
APP_SETTINGS_FILE = "app-settings.json"
SETTING_TAKEN_KEY = "default_profile_setting"
MAX_NAME = 128

# The engine is QtWebEngine 6.11 on Chromium 140 (Linux): the compatibility template looks like
# that browser on a common desktop, so sites see values consistent with the real engine.
ENGINE_CHROMIUM_VERSION = "140.0.7339.225"
_CHROME_UA = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/140.0.0.0 Safari/537.36"
)


def compatibility_template(seed: str | None = None) -> dict[str, Any]:
    """The fingerprint a profile takes when `fingerprint_profile` is omitted (schema 1)."""
    return {
        "schema_version": 1,
        "seed": seed or secrets.token_hex(16),
        "platform": "Linux x86_64",
        "browser_brand": "Chromium",
        "browser_version": ENGINE_CHROMIUM_VERSION,
        "user_agent": _CHROME_UA,
        "locale": TEMPLATE_LOCALE,
        "timezone": TEMPLATE_TIMEZONE,
        "network_profile": "broadband",
        "hardware_concurrency": 8,
        "device_memory_gib": 8,
        "max_touch_points": 0,
        "screen": {
            "width": 1920,
            "height": 1080,
            "available_height": 1053,
            "device_scale_factor": 1.0,
        },
        "graphics_profile": "generic-mesa",
        "storage_quota_bytes": 64 * 1024**3,
        "canvas_noise_mode": "off",
        "audio_noise_mode": "off",
    }


# The compatibility template's locale: a fingerprint with another one has a custom locale, which
# automatic language never replaces (docs/decisions.md "Exit locale").
TEMPLATE_LOCALE = "en-US"
# Its timezone: a direct session takes the machine's instead (docs/decisions.md "Exit locale").
TEMPLATE_TIMEZONE = "UTC"
# metadata key prefix: the fingerprint of a deleted profile, kept for the sessions made from it.
RETIRED_FINGERPRINT = "retired_fingerprint:"
_fingerprint_decoder = msgspec.json.Decoder(FingerprintProfile)


def template_fingerprint() -> FingerprintProfile:
    """The compatibility template as a struct, with a fixed seed (a session mixes in its own)."""
    return msgspec.convert(compatibility_template(seed="0" * 32), FingerprintProfile)


def _invalid(message: str, field: str) -> SvcError:
    return SvcError.of(ErrorId.VALIDATION_FAILED, message, field=field)


def _check_browser_data(cookies: bool, passwords: bool, *, staged: bool) -> None:
    """The browser-data flags say what the profile holds (spec 1 §4 Profiles): cookies only
    once the app staged them (docs/decisions.md "Sign in once"); passwords never."""
    if passwords:
        raise _invalid(
            "svc keeps no passwords: includes_passwords cannot be true", "includes_passwords"
        )
    if cookies and not staged:
        raise _invalid(
            "includes_cookies becomes true when the app saves a session's sign-in to this "
            "profile (Session > Save sign-in to profile…) or imports a cookies file into it; "
            "this profile holds no cookies",
            "includes_cookies",
        )


def clean_name(raw: str, field: str = "name") -> str:
    """A profile name after trimming: 1-128 characters, none of them control characters."""
    name = unicodedata.normalize("NFC", raw.strip())
    if not 1 <= len(name) <= MAX_NAME:
        raise _invalid(f"{field} must be 1-{MAX_NAME} characters after trimming", field)
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise _invalid(f"{field} must not contain control characters", field)
    return name


def _fingerprint_json(fp: FingerprintProfile | None) -> str | None:
    if fp is None:
        return None
    if fp.screen.available_height > fp.screen.height:
        raise _invalid(
            "screen.available_height cannot exceed screen.height",
            "fingerprint_profile.screen.available_height",
        )
    zones = _timezones()
    if zones and fp.timezone not in zones:
        raise _invalid(f"{fp.timezone!r} is not an IANA time zone", "fingerprint_profile.timezone")
    return msgspec.json.encode(fp).decode()


_ZONES: set[str] | None = None


def _timezones() -> set[str]:
    global _ZONES  # noqa: PLW0603 - read once; the tz database does not change under us
    if _ZONES is None:
        _ZONES = set(zoneinfo.available_timezones()) | {"UTC"}
    return _ZONES


_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _fingerprint(record: ProfileRecord) -> Any:
    fp = record.fingerprint_profile
    return None if fp is None else msgspec.json.decode(fp)


class Profiles:
    """The repository of `saved_profiles`: the only code that reads or writes that table."""

    def __init__(self, store: Store, config: AgentConfig) -> None:
        self._store = store
        self._config = config

    # --- reading -------------------------------------------------------------------------------

    @staticmethod
    def render(record: ProfileRecord) -> responses.Profile:
        """The API's profile object (spec 1 §2 Profile)."""
        fp = record.fingerprint_profile
        return responses.Profile(
            id=record.id,
            name=record.name,
            proxy_alias=record.proxy_alias,
            **settings.rendered(record),
            includes_cookies=record.includes_cookies,
            includes_passwords=record.includes_passwords,
            fingerprint_profile=None
            if fp is None
            else msgspec.json.decode(fp, type=FingerprintProfile),
            is_builtin=False,
            created_at=record.created_at,
        )

    def list_all(self) -> list[ProfileRecord]:
        rows = self._store.query("SELECT * FROM saved_profiles ORDER BY name_key, name, id")
        return [from_row(r, ProfileRecord) for r in rows]

    def _find(self, profile_id: str) -> ProfileRecord | None:
        row = self._store.query_one("SELECT * FROM saved_profiles WHERE id=?", (profile_id,))
        return None if row is None else from_row(row, ProfileRecord)

    def _by_name(self, name: str) -> ProfileRecord | None:
        row = self._store.query_one(
            "SELECT * FROM saved_profiles WHERE name_key=?", (name_key(name.strip()),)
        )
        return None if row is None else from_row(row, ProfileRecord)

    @staticmethod
    def is_builtin_ref(raw: str) -> bool:
        return raw.lower() == BUILTIN_ID or name_key(raw) == name_key(BUILTIN_PROFILE)

    def get(self, raw_id: str, *, action: str) -> ProfileRecord:
        """The saved profile with this id; CONFLICT for the built-in, ROUTE_NOT_FOUND otherwise."""
        if self.is_builtin_ref(raw_id):
            raise SvcError.of(
                ErrorId.CONFLICT,
                f"the built-in profile {BUILTIN_PROFILE} is not stored and cannot be {action}",
                id=raw_id,
                builtin=BUILTIN_PROFILE,
            )
        record = self._find(raw_id.lower()) if _UUID.match(raw_id) else None
        if record is None:
            raise SvcError.of(
                ErrorId.ROUTE_NOT_FOUND, f"no saved profile has the id {raw_id!r}", id=raw_id
            )
        return record

    # --- the default profile and session templates ---------------------------------------------

    def app_setting(self) -> str | None:
        """The Default Profile saved in the app's Settings, or None when there is none."""
        try:
            raw = json.loads((self._config.data_dir / APP_SETTINGS_FILE).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        value = raw.get("default_profile") if isinstance(raw, dict) else None
        return value.strip() or None if isinstance(value, str) else None

    def _take_app_setting(self) -> None:
        """A Default Profile newly chosen in the app's Settings becomes the default. Only a
        change is taken over, so the default keeps following a rename of its profile (and
        stays cleared after its deletion) until the setting changes again."""
        setting = self.app_setting()
        if setting is None or setting == self._store.get_meta(SETTING_TAKEN_KEY):
            return
        with self._store.transaction():
            builtin = name_key(setting) == name_key(BUILTIN_PROFILE)
            self._store.set_meta(DEFAULT_PROFILE_KEY, None if builtin else setting)
            self._store.set_meta(SETTING_TAKEN_KEY, setting)

    def default_profile(self) -> str | None:
        """The configured default profile's name, or None (sessions then take `Custom`)."""
        self._take_app_setting()
        name = self._store.get_meta(DEFAULT_PROFILE_KEY)
        if name is None:
            return None
        record = self._by_name(name)
        return None if record is None else record.name

    def set_default_profile(self, name: str | None) -> str | None:
        """Set the default profile by name (None or `Custom` clears it); returns the name set."""
        if name is None or name_key(name.strip()) == name_key(BUILTIN_PROFILE):
            self._store.set_meta(DEFAULT_PROFILE_KEY, None)
            return None
        record = self._by_name(name)
        if record is None:
            raise _invalid(f"no saved profile named {name!r}", "default_profile")
        self._store.set_meta(DEFAULT_PROFILE_KEY, record.name)
        return record.name

    def resolve_template(self, name: str | None) -> SessionTemplate:
        """Settings a new session takes: the named profile, else the default, else Custom."""
        if name is None:
            name = self.default_profile()
            if name is None:
                return CUSTOM_TEMPLATE
        if name_key(name.strip()) == name_key(BUILTIN_PROFILE):
            return CUSTOM_TEMPLATE
        record = self._by_name(name)
        if record is None:
            raise SvcError.of(
                ErrorId.VALIDATION_FAILED, f"no saved profile named {name!r}", field="profile"
            )
        staged = self._staged(record.id)
        return SessionTemplate(
            name=record.name,
            proxy_alias=record.proxy_alias,
            **settings.rendered(record),
            staged_cookies=staged if record.includes_cookies and staged.is_file() else None,
        )

    def _staged(self, profile_id: str) -> Path:
        return browser_data.staged_cookies(self._config.data_dir, profile_id)

    def session_fingerprint(self, profile_name: str) -> FingerprintProfile | None:
        """The saved fingerprint of the sessions made from the profile `profile_name` (None:
        native identity): the built-in `Custom`'s is the compatibility template; a saved
        profile's is its current one (edits reach its sessions); a deleted profile's is the one
        it had when deleted; a name no profile ever had, the template."""
        if name_key(profile_name.strip()) == name_key(BUILTIN_PROFILE):
            return template_fingerprint()
        record = self._by_name(profile_name)
        if record is not None:
            text = record.fingerprint_profile
        else:
            text = self._store.get_meta(RETIRED_FINGERPRINT + name_key(profile_name.strip()))
            if text is None:
                return template_fingerprint()
        return None if text is None or text == "null" else _fingerprint_decoder.decode(text)

    # --- writing -------------------------------------------------------------------------------

    def _check_name_free(self, name: str, own_id: str | None) -> None:
        if name_key(name) == name_key(BUILTIN_PROFILE):
            raise SvcError.of(
                ErrorId.CONFLICT,
                f"{name!r} is the name of the built-in profile",
                field="name",
                name=name,
            )
        record = self._by_name(name)
        if record is not None and record.id != own_id:
            raise SvcError.of(
                ErrorId.CONFLICT,
                f"a profile named {record.name!r} already exists",
                field="name",
                name=name,
            )

    def _check_plan(self) -> None:
        if self._config.plan == "free":
            row = self._store.query_one("SELECT count(*) AS n FROM saved_profiles")
            if row is not None and row["n"] >= 1:
                raise pro_required("additional_custom_profiles", self._config.plan)

    def _insert(self, values: dict[str, Any]) -> ProfileRecord:
        values = {"id": str(uuid.uuid4()), "created_at": now_ms(), **values}
        values["name_key"] = name_key(values["name"])
        cols = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        with self._store.transaction() as db:
            db.execute(
                f"INSERT INTO saved_profiles({cols}) VALUES({marks})", tuple(values.values())
            )
            # A profile of a deleted one's name takes over its sessions, like a rename would.
            db.execute(
                "DELETE FROM metadata WHERE key=?", (RETIRED_FINGERPRINT + values["name_key"],)
            )
        record = self._find(values["id"])
        assert record is not None
        return record

    def create(self, body: ProfileCreate, proxies: Proxies) -> ProfileRecord:
        _check_browser_data(body.includes_cookies, body.includes_passwords, staged=False)
        name = clean_name(body.name)
        self._check_name_free(name, None)
        self._check_plan()
        proxy_alias = None
        if body.proxy_alias is not None:
            proxy_alias = proxies.check_assignable(body.proxy_alias)
        if body.fingerprint_profile is msgspec.UNSET:
            fingerprint: str | None = msgspec.json.encode(compatibility_template()).decode()
        else:
            fingerprint = _fingerprint_json(body.fingerprint_profile)
        return self._insert(
            {
                "name": name,
                "proxy_alias": proxy_alias,
                **settings.stored(body),
                "includes_cookies": int(body.includes_cookies),
                "includes_passwords": int(body.includes_passwords),
                "fingerprint_profile": fingerprint,
            }
        )

    def patch(self, raw_id: str, body: ProfilePatch, proxies: Proxies) -> ProfileRecord:
        record = self.get(raw_id, action="changed")
        _check_browser_data(
            body.includes_cookies is True,
            body.includes_passwords is True,
            staged=self._staged(record.id).is_file(),
        )
        if body.includes_cookies is False:
            browser_data.remove_staged(self._config.data_dir, record.id)
        sets: dict[str, Any] = {}
        if body.name is not msgspec.UNSET:
            name = clean_name(body.name)
            self._check_name_free(name, record.id)
            sets["name"] = name
            sets["name_key"] = name_key(name)
        if body.proxy_alias is not msgspec.UNSET:
            sets["proxy_alias"] = (
                None if body.proxy_alias is None else proxies.check_assignable(body.proxy_alias)
            )
        sets.update(settings.changes(body))
        for key in ("includes_cookies", "includes_passwords"):
            value = getattr(body, key)
            if value is not msgspec.UNSET:
                sets[key] = int(value)
        if body.fingerprint_profile is not msgspec.UNSET:
            sets["fingerprint_profile"] = _fingerprint_json(body.fingerprint_profile)
        if sets:
            assignments = ", ".join(f"{k}=?" for k in sets)
            with self._store.transaction() as db:
                db.execute(
                    f"UPDATE saved_profiles SET {assignments} WHERE id=?",
                    (*sets.values(), record.id),
                )
                if "name" in sets:
                    db.execute(
                        "DELETE FROM metadata WHERE key=?",
                        (RETIRED_FINGERPRINT + sets["name_key"],),
                    )
                if "name" in sets and self._store.get_meta(DEFAULT_PROFILE_KEY) is not None:
                    default = self._store.get_meta(DEFAULT_PROFILE_KEY) or ""
                    if name_key(default) == record.name_key:
                        db.execute(
                            "UPDATE metadata SET value=? WHERE key=?",
                            (sets["name"], DEFAULT_PROFILE_KEY),
                        )
        new = self._find(record.id)
        assert new is not None
        return new

    def delete(self, raw_id: str) -> str:
        record = self.get(raw_id, action="deleted")
        browser_data.remove_staged(self._config.data_dir, record.id)
        with self._store.transaction() as db:
            db.execute("DELETE FROM saved_profiles WHERE id=?", (record.id,))
            # Its sessions keep the identity they had (docs/decisions.md "Session identity").
            db.execute(
                "INSERT INTO metadata(key, value) VALUES(?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (RETIRED_FINGERPRINT + record.name_key, record.fingerprint_profile or "null"),
            )
            default = self._store.get_meta(DEFAULT_PROFILE_KEY)
            if default is not None and name_key(default) == record.name_key:
                db.execute("DELETE FROM metadata WHERE key=?", (DEFAULT_PROFILE_KEY,))
        return record.id

    def detach_proxy(self, alias: str) -> None:
        """The proxy `alias` is being deleted: profiles that referenced it become direct. Runs
        inside the caller's transaction when there is one (the proxy's deletion)."""
        self._store.execute(
            "UPDATE saved_profiles SET proxy_alias=NULL WHERE lower(proxy_alias)=?",
            (name_key(alias),),
        )

    # --- transfers -----------------------------------------------------------------------------

    def export(self, body: ProfileExport, proxies: Proxies) -> responses.TransferArchive:
        record = self._by_name(body.name)
        if record is None:
            if name_key(body.name.strip()) == name_key(BUILTIN_PROFILE):
                raise SvcError.of(
                    ErrorId.CONFLICT,
                    f"the built-in profile {BUILTIN_PROFILE} is not stored and cannot be exported",
                    field="name",
                    builtin=BUILTIN_PROFILE,
                )
            raise _invalid(f"no saved profile named {body.name!r}", "name")
        archived = {**settings.rendered(record), "fingerprint_profile": _fingerprint(record)}
        archive = transfers.Archive(
            kind="profile", version=transfers.TRANSFER_VERSION, credentials_included=False
        )
        archive.profiles.append(
            {"name": record.name, "proxy_alias": record.proxy_alias, "settings": archived}
        )
        if record.proxy_alias is not None:
            proxy = proxies.transfer_record(record.proxy_alias)
            if proxy is not None:
                archive.proxies.append(proxy)
        return responses.TransferArchive(
            filename=transfers.filename(record.name, "svcprofile"),
            contents_base64=transfers.encode(archive),
            credentials_included=False,
        )

    def import_(self, body: ProfileImport, proxies: Proxies) -> responses.ProfileImported:
        archive = transfers.decode(body.contents_base64, "profile")
        if len(archive.profiles) != 1 or len(archive.proxies) > 1:
            raise transfers.invalid("a profile archive holds one profile and at most one proxy")
        record = archive.profiles[0]
        try:
            chosen = msgspec.convert(record["settings"], _ProfileSettings)
            stored_name = clean_name(str(record["name"]))
        except (msgspec.ValidationError, SvcError) as exc:
            raise transfers.invalid(f"the archive's profile is invalid: {exc}") from None
        name = clean_name(body.name) if body.name is not None else stored_name
        self._check_name_free(name, None)
        self._check_plan()
        proxy_alias: str | None = None
        proxy_created = False
        if record["proxy_alias"] is not None:
            proxy_record = next(
                (p for p in archive.proxies if p["alias"] == record["proxy_alias"]), None
            )
            proxy_alias, proxy_created = proxies.link_imported(
                str(record["proxy_alias"]), proxy_record, archive.version
            )
        profile = self._insert(
            {
                "name": name,
                "proxy_alias": proxy_alias,
                **settings.stored(chosen),
                "includes_cookies": 0,
                "includes_passwords": 0,
                "fingerprint_profile": _imported_fingerprint(chosen.fingerprint_profile),
            }
        )
        return responses.ProfileImported(profile=self.render(profile), proxy_created=proxy_created)


def _imported_fingerprint(fp: FingerprintProfile | msgspec.UnsetType | None) -> str | None:
    """As on creation: an archive that carries no `fingerprint_profile` gives the compatibility
    template (a fresh seed), an explicit null the native identity."""
    if fp is msgspec.UNSET:
        return msgspec.json.encode(compatibility_template()).decode()
    return _fingerprint_json(fp)


class _ProfileSettings(BrowsingSettings, frozen=True):
    """The `settings` of an archived profile: the browsing settings (each left out: its default)
    and the fingerprint (unknown keys of later versions are ignored)."""

    # absent (an archive of another producer): the template; null: the native identity
    fingerprint_profile: FingerprintProfile | msgspec.UnsetType | None = msgspec.UNSET
