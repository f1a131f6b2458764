"""Stored upstream proxies (spec 1 §2 Proxy, §4 Proxies), their transfers and sticky ids.

A proxy is a row of `proxies`: the alias (its only public identifier, unique case-insensitively,
immutable), the upstream endpoint, the credentials (stored as given, never returned), and a JSON
`settings` object:

    providerx          {enabled, location_parameter, location_value}; absent when never configured
    providery          {enabled, country, state, city, asn}, normalized
    tls                {mode: system|providery} or {certificates: PEM bundle}
    locale             BCP 47 string or null (legacy, kept)
    detect_exit_locale bool
    sticky_ids         {"Session<N>": id}: the managed-provider sticky id of each session

The Free plan can list, read, delete, detach and export (without credentials); creating,
updating, rotating, assigning, importing and using a proxy need Pro (PRO_REQUIRED `proxies`).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import re
import secrets
import ssl
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Protocol

import msgspec
import trio
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from bridge_protocol import ErrorId, ProxyTrust, SvcError
from proxy import Upstream, geolocation, managed_username

from . import proxy_responses as shown
from . import responses, transfers
from .api import ProviderY, ProxyCreate, ProxyExport, ProxyImport, ProxyPatch, Tls
from .config import AgentConfig
from .records import ProxyExit, ProxyRecord, SessionRecord, from_row, name_key
from .sessions import Sessions, pro_required
from .store import Store, now_ms

SECRET_FILE = "agent-secret"
# The private header of spec 1 §4/§5 that lets the owning app export credentials. Its value is
# the secret the agent writes to {data_dir}/agent-secret (mode 0600) at every start.
AUTH_HEADER = "X-Svc-App-Authorization"
MAX_CERT_BYTES = 64 * 1024
MAX_CERTS = 16

ALIAS = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})"
_HOSTNAME = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*\.?$")
_LOCALE = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$")
_PX_VALUE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _invalid(message: str, field: str, **extra: Any) -> SvcError:
    return SvcError.of(ErrorId.VALIDATION_FAILED, message, field=field, **extra)


def not_found(alias: str, **extra: Any) -> SvcError:
    return SvcError.of(ErrorId.PROXY_NOT_FOUND, f"no proxy named {alias!r}", alias=alias, **extra)


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def write_secret(path: Path) -> str:
    """A fresh secret in `path`, readable by this user only (written atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(32)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (secret + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    tmp.replace(path)
    return secret


def _port(value: Any) -> int:
    if not isinstance(value, int) or not 1 <= value <= 65535:
        raise _invalid("upstream_port must be an integer from 1 to 65535", "upstream_port")
    return value


def _new_sticky() -> str:
    return secrets.token_hex(8)


# --- field rules -----------------------------------------------------------------------------


def clean_host(raw: str, field: str = "upstream_host") -> str:
    host = raw.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    if not _HOSTNAME.match(host):
        raise _invalid(
            "upstream_host must be a host name or an IP address (no scheme, port or path)", field
        )
    return host.lower()


def check_username(value: str | None) -> str | None:
    if value is None:
        return None
    if not 1 <= len(value) <= 256 or ":" in value or _CONTROL.search(value):
        raise _invalid(
            "username must be 1-256 characters without ':' or control characters (null clears it)",
            "username",
        )
    return value


def check_password(value: str | None) -> str | None:
    if value is None:
        return None
    if not 1 <= len(value) <= 1024 or _CONTROL.search(value):
        raise _invalid(
            "password must be 1-1024 characters without control characters (null clears it)",
            "password",
        )
    return value


def check_locale(value: str | None) -> str | None:
    if value is None:
        return None
    if not _LOCALE.match(value):
        raise _invalid(f"{value!r} is not a BCP 47 language tag", "locale")
    return value


def providerx_state(
    enabled: bool, parameter: str | None, value: str | None
) -> dict[str, Any] | None:
    """Provider X after the pair rule; None when there is no such configuration."""
    if value is not None:
        value = value.strip()
        if not _PX_VALUE.match(value):
            raise _invalid(
                "providerx_location_value must be 1-64 ASCII letters, digits, '-' or '_'",
                "providerx_location_value",
            )
    if parameter is not None and value is None:
        raise _invalid(
            "a provider X location needs both parameter and value", "providerx_location_value"
        )
    if value is not None and parameter is None:
        raise _invalid(
            "a provider X location needs both parameter and value",
            "providerx_location_parameter",
        )
    if not enabled and parameter is None:
        return None
    return {"enabled": enabled, "location_parameter": parameter, "location_value": value}


def providery_state(py: ProviderY | None) -> dict[str, Any]:
    """Provider Y normalized: trimmed, lowercased, empty values cleared, targeting rules."""
    if py is None:
        return {"enabled": False, "country": None, "state": None, "city": None, "asn": None}

    def norm(value: str | None) -> str | None:
        if value is None:
            return None
        return value.strip().lower() or None

    country, state, city, asn = norm(py.country), norm(py.state), norm(py.city), norm(py.asn)
    if country is not None and not re.fullmatch(r"[a-z]{2}", country):
        raise _invalid("providery.country must be a two-letter country code", "providery.country")
    for key, value in (("state", state), ("city", city)):
        if value is None:
            continue
        if not re.fullmatch(r"[a-z0-9]{1,64}", value):
            raise _invalid(
                f"providery.{key} accepts ASCII letters and digits only (no spaces)",
                f"providery.{key}",
            )
        if country is None:
            raise _invalid(f"providery.{key} requires a country", f"providery.{key}")
    if asn is not None and not re.fullmatch(r"[0-9]{1,10}", asn):
        raise _invalid("providery.asn accepts digits only", "providery.asn")
    return {"enabled": py.enabled, "country": country, "state": state, "city": city, "asn": asn}


def certificate_bundle(text: str) -> str:
    """A validated bundle of 1-16 PEM certificates (at most 64 KiB), re-encoded canonically."""
    field = "tls.certificates"
    raw = text.encode("utf-8")
    if len(raw) > MAX_CERT_BYTES:
        raise _invalid("the certificate bundle exceeds 64 KiB", field, limit=MAX_CERT_BYTES)
    blocks = text.count("-----BEGIN ")
    try:
        certs = x509.load_pem_x509_certificates(raw)
    except ValueError as exc:
        raise _invalid(f"the certificate bundle is not valid PEM: {exc}", field) from None
    if len(certs) != blocks:
        raise _invalid("the bundle may hold only CERTIFICATE blocks", field)
    if not 1 <= len(certs) <= MAX_CERTS:
        raise _invalid(f"the bundle must hold 1-{MAX_CERTS} certificates", field)
    return "".join(c.public_bytes(Encoding.PEM).decode("ascii") for c in certs)


def tls_state(tls: Tls | None) -> dict[str, Any]:
    if tls is None:
        return {"mode": "system"}
    if (tls.mode is None) == (tls.certificates is None):
        raise _invalid("tls takes exactly one of mode or certificates", "tls")
    if tls.mode is not None:
        return {"mode": tls.mode}
    assert tls.certificates is not None
    return {"certificates": certificate_bundle(tls.certificates)}


def check_providers(state: dict[str, Any], blame: str) -> None:
    px = state.get("providerx") or {}
    if px.get("enabled") and state["providery"]["enabled"]:
        raise _invalid("managed providers X and Y cannot both be enabled", blame)


def managed(settings: dict[str, Any]) -> bool:
    px = settings.get("providerx") or {}
    return bool(px.get("enabled") or settings["providery"]["enabled"])


class _ArchivedProviderX(msgspec.Struct):
    enabled: bool = False
    location_parameter: Literal["cc", "country", "st"] | None = None
    location_value: str | None = None


class _ArchivedSettings(msgspec.Struct):
    """A proxy's `settings` inside a transfer archive (unknown keys of later versions ignored)."""

    providerx: _ArchivedProviderX | None = None
    providery: ProviderY | None = None
    tls: Tls | None = None
    locale: str | None = None
    detect_exit_locale: bool = False


class _ExitProviderX(msgspec.Struct):
    enabled: bool = False
    location_parameter: str | None = None
    location_value: str | None = None


class _ExitProviderY(msgspec.Struct):
    enabled: bool = False
    country: str | None = None


class _ExitSettings(msgspec.Struct):
    """The part of a stored `settings` that sessions show (the rest is ignored)."""

    providerx: _ExitProviderX | None = None
    providery: _ExitProviderY | None = None
    locale: str | None = None
    detect_exit_locale: bool = False


_exit_decoder = msgspec.json.Decoder(_ExitSettings)


class ProfileLinks(Protocol):
    """What deleting a proxy needs of the saved profiles (agent.profiles.Profiles)."""

    def detach_proxy(self, alias: str) -> None:
        """Profiles that referenced the proxy `alias` become direct, inside the caller's
        transaction."""
        ...


class Proxies:
    """The repository of `proxies`: the only code that reads or writes that table. What spans
    sessions or saved profiles (deleting, rotating, a session's upstream) takes them as
    arguments, since they are built on top of this repository."""

    def __init__(
        self, store: Store, config: AgentConfig, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._store = store
        self._config = config
        self.secret = write_secret(config.data_dir / SECRET_FILE)
        self._lookup_url = geolocation.parse_url(config.geolocation_url)
        self._system_tls: ssl.SSLContext | None = None
        # exit locations (spec 1 §4 proxy-location), process-local, kept 30 minutes
        self.locations = geolocation.LocationCache(clock=clock)

    # --- plan ----------------------------------------------------------------------------------

    def require_pro(self) -> None:
        if self._config.plan == "free":
            raise pro_required("proxies", self._config.plan)

    # --- reading -------------------------------------------------------------------------------

    def find(self, alias: str) -> ProxyRecord | None:
        if not ALIAS.match(alias):
            return None
        row = self._store.query_one("SELECT * FROM proxies WHERE alias_key=?", (name_key(alias),))
        return None if row is None else from_row(row, ProxyRecord)

    def get(self, alias: str) -> ProxyRecord:
        """The proxy `alias` (any case); PROXY_NOT_FOUND when there is none."""
        record = self.find(alias)
        if record is None:
            raise not_found(alias)
        return record

    @staticmethod
    def settings(record: ProxyRecord) -> dict[str, Any]:
        """A fresh copy of the record's settings, to read or to change and save."""
        value: dict[str, Any] = json.loads(record.settings)
        return value

    def exit_of(self, alias: str) -> ProxyExit | None:
        record = self.find(alias)
        if record is None:
            return None
        settings = _exit_decoder.decode(record.settings)
        px, py = settings.providerx or _ExitProviderX(), settings.providery or _ExitProviderY()
        country = None
        if py.enabled and py.country:
            country = py.country
        elif px.enabled and px.location_parameter in ("cc", "country"):
            country = px.location_value
        return ProxyExit(
            country=country, locale=settings.locale, detect_exit_locale=settings.detect_exit_locale
        )

    def render(self, record: ProxyRecord) -> shown.Proxy:
        """The API's proxy object (credentials never leave: only whether a password is set)."""
        settings = self.settings(record)
        px = settings.get("providerx")
        tls = settings["tls"]
        certificates = tls.get("certificates")
        return shown.Proxy(
            alias=record.alias,
            upstream_host=record.upstream_host,
            upstream_port=record.upstream_port,
            username=record.username,
            password_set=record.password is not None,
            providerx=msgspec.UNSET if px is None else msgspec.convert(px, shown.ProviderXShown),
            providery=msgspec.convert(settings["providery"], shown.ProviderYShown),
            tls=shown.TlsShown(mode=tls.get("mode"))
            if certificates is None
            else shown.TlsShown(
                mode=tls.get("mode"),
                certificates=certificates,
                certificate_count=certificates.count("-----BEGIN "),
            ),
            locale=settings.get("locale"),
            detect_exit_locale=bool(settings.get("detect_exit_locale")),
        )

    def list_all(self) -> list[ProxyRecord]:
        rows = self._store.query("SELECT * FROM proxies ORDER BY id")
        return [from_row(r, ProxyRecord) for r in rows]

    def check_assignable(self, alias: str) -> str:
        """The stored alias to assign to a session or profile, or PRO_REQUIRED / PROXY_NOT_FOUND."""
        self.require_pro()
        return self.get(alias).alias

    # --- writing -------------------------------------------------------------------------------

    def _check_new_alias(self, alias: str, field: str = "alias") -> None:
        if not ALIAS.match(alias):
            raise _invalid(
                "alias must start with a letter and hold at most 64 letters, digits, '-' or '_'",
                field,
            )
        if is_uuid(alias):
            raise _invalid("alias cannot be a UUID", field)
        existing = self.find(alias)
        if existing is not None:
            raise SvcError.of(
                ErrorId.CONFLICT,
                f"a proxy named {existing.alias!r} already exists",
                field="alias",
                alias=alias,
            )

    def _insert(self, alias: str, state: dict[str, Any]) -> ProxyRecord:
        settings = {
            k: state[k]
            for k in ("providerx", "providery", "tls", "locale", "detect_exit_locale")
            if k != "providerx" or state.get("providerx") is not None
        }
        settings["sticky_ids"] = {}
        self._store.execute(
            "INSERT INTO proxies(alias, alias_key, upstream_host, upstream_port, username, "
            "password, settings, created_at) VALUES(?,?,?,?,?,?,?,?)",
            (
                alias,
                name_key(alias),
                state["upstream_host"],
                state["upstream_port"],
                state["username"],
                state["password"],
                json.dumps(settings),
                now_ms(),
            ),
        )
        return self.get(alias)

    def create(self, body: ProxyCreate) -> ProxyRecord:
        self.require_pro()
        self._check_new_alias(body.alias)
        state = {
            "upstream_host": clean_host(body.upstream_host),
            "upstream_port": body.upstream_port,
            "username": check_username(body.username),
            "password": check_password(body.password),
            "providerx": providerx_state(
                body.providerx_enabled,
                body.providerx_location_parameter,
                body.providerx_location_value,
            ),
            "providery": providery_state(body.providery),
            "tls": tls_state(body.tls),
            "locale": check_locale(body.locale),
            "detect_exit_locale": body.detect_exit_locale,
        }
        blame = "providery.enabled" if body.providery and body.providery.enabled else ""
        check_providers(state, blame or "providerx_enabled")
        return self._insert(body.alias, state)

    def patch(self, alias: str, body: ProxyPatch) -> ProxyRecord:
        record = self.get(alias)
        self.require_pro()
        settings = self.settings(record)
        cols: dict[str, Any] = {}
        if body.upstream_host is not msgspec.UNSET:
            cols["upstream_host"] = clean_host(body.upstream_host)
        if body.upstream_port is not msgspec.UNSET:
            cols["upstream_port"] = body.upstream_port
        if body.username is not msgspec.UNSET:
            cols["username"] = check_username(body.username)
        if body.password is not msgspec.UNSET:
            cols["password"] = check_password(body.password)
        was_managed = managed(settings)
        old_px = settings.get("providerx") or {}
        px_fields = (
            body.providerx_enabled,
            body.providerx_location_parameter,
            body.providerx_location_value,
        )
        if any(v is not msgspec.UNSET for v in px_fields):
            enabled = (
                bool(old_px.get("enabled"))
                if isinstance(body.providerx_enabled, msgspec.UnsetType)
                else body.providerx_enabled
            )
            parameter = (
                old_px.get("location_parameter")
                if isinstance(body.providerx_location_parameter, msgspec.UnsetType)
                else body.providerx_location_parameter
            )
            value = (
                old_px.get("location_value")
                if isinstance(body.providerx_location_value, msgspec.UnsetType)
                else body.providerx_location_value
            )
            settings["providerx"] = providerx_state(enabled, parameter, value)
            if settings["providerx"] is None:
                settings.pop("providerx")
        if body.providery is not msgspec.UNSET:
            settings["providery"] = providery_state(body.providery)
        if body.tls is not msgspec.UNSET:
            settings["tls"] = tls_state(body.tls)
        if body.locale is not msgspec.UNSET:
            settings["locale"] = check_locale(body.locale)
        if body.detect_exit_locale is not msgspec.UNSET:
            settings["detect_exit_locale"] = body.detect_exit_locale
        blame = (
            "providery.enabled"
            if body.providery is not msgspec.UNSET and body.providery.enabled
            else "providerx_enabled"
        )
        check_providers(settings, blame)
        if managed(settings) and not was_managed:
            # Re-enabling managed sessions generates new sticky ids (spec 1 §4).
            settings["sticky_ids"] = {}
        cols["settings"] = json.dumps(settings)
        assignments = ", ".join(f"{k}=?" for k in cols)
        self._store.execute(
            f"UPDATE proxies SET {assignments} WHERE id=?", (*cols.values(), record.id)
        )
        return self.get(record.alias)

    def delete(self, alias: str, sessions: Sessions, profiles: ProfileLinks) -> shown.ProxyDeleted:
        """Delete the proxy and detach it from every session and saved profile, atomically."""
        record = self.get(alias)
        with self._store.transaction() as db:
            detached = sessions.detach_proxy(record.alias)
            profiles.detach_proxy(record.alias)
            db.execute("DELETE FROM proxies WHERE id=?", (record.id,))
        return shown.ProxyDeleted(deleted_alias=record.alias, detached_session_ids=detached)

    # --- managed-provider sticky ids -----------------------------------------------------------

    def _save_settings(self, row_id: int, settings: dict[str, Any]) -> None:
        self._store.execute(
            "UPDATE proxies SET settings=? WHERE id=?", (json.dumps(settings), row_id)
        )

    def rotate(self, alias: str, sessions: Sessions) -> ProxyRecord:
        """New sticky ids for every session assigned to this managed proxy."""
        record = self.get(alias)
        self.require_pro()
        settings = self.settings(record)
        if not managed(settings):
            raise SvcError.of(
                ErrorId.CONFLICT,
                f"proxy {record.alias!r} has neither managed provider X nor Y enabled",
                alias=record.alias,
            )
        settings["sticky_ids"] = {
            s.session_id: _new_sticky() for s in sessions.using_proxy(record.alias)
        }
        self._save_settings(record.id, settings)
        return self.get(record.alias)

    def _sticky_id(self, record: ProxyRecord, session_id: str) -> str:
        """The session's persistent sticky id on this proxy (generated on first use)."""
        settings = self.settings(record)
        ids = settings.setdefault("sticky_ids", {})
        if session_id not in ids:
            ids[session_id] = _new_sticky()
            self._save_settings(record.id, settings)
        return str(ids[session_id])

    def session_assigned(self, session_id: str, alias: str | None) -> None:
        """A session's proxy changed (or it was deleted, alias None): its sticky ids on other
        proxies are forgotten, so assigning a different proxy yields new ids; its cached exit
        locations go too (a reused session number must not inherit them)."""
        self.locations.forget_session(session_id)
        keep = None if alias is None else name_key(alias)
        for record in self.list_all():
            settings = self.settings(record)
            if record.alias_key != keep and session_id in settings.get("sticky_ids", {}):
                del settings["sticky_ids"][session_id]
                self._save_settings(record.id, settings)

    # --- the profile proxy listeners ---------------------------------------------------------

    def upstream(self, session: SessionRecord | None) -> Upstream | None:
        """The session's current upstream with the credentials to send (a listener's lookup,
        read at every connection, and the route of the exit-location lookup); None when there
        is no session, it has no proxy, or the plan does not allow using one."""
        if self._config.plan == "free" or session is None or session.proxy_alias is None:
            return None
        proxy = self.find(session.proxy_alias)
        if proxy is None:
            return None
        username = proxy.username
        settings = self.settings(proxy)
        if username is not None and managed(settings):
            sticky = self._sticky_id(proxy, session.session_id)
            username = managed_username(username, settings, sticky)
        return Upstream(
            host=proxy.upstream_host,
            port=proxy.upstream_port,
            alias=proxy.alias,
            username=username,
            password=proxy.password,
        )

    # --- proxy-location ------------------------------------------------------------------------

    async def location(self, session: SessionRecord) -> shown.ProxyLocation:
        """The exit country and time zone of the session's proxy, looked up through it (cached
        30 minutes per session and upstream route)."""
        found = await self.exit_location(session)
        return shown.ProxyLocation(country=found.country, timezone=found.timezone)

    def route_of(self, session: SessionRecord) -> geolocation.RouteKey | None:
        """What decides the session's exit right now (the cache key of its exit location);
        None when it has no usable upstream."""
        upstream = self.upstream(session)
        return None if upstream is None else geolocation.route_key(session.session_id, upstream)

    def trust_of(self, alias: str) -> ProxyTrust | None:
        """What the engine trusts for sessions on the proxy `alias` beyond the system store;
        None when there is no such proxy."""
        record = self.find(alias)
        if record is None:
            return None
        tls = self.settings(record).get("tls") or {}
        certificates = tls.get("certificates")
        if tls.get("mode") == "providery":
            return ProxyTrust(mode="providery")
        return ProxyTrust(mode="system", certificates=certificates)

    async def exit_location(self, session: SessionRecord) -> geolocation.Location:
        """`location` as a typed value (SvcError when there is none to tell)."""
        session_id = session.session_id
        alias = session.proxy_alias
        if alias is None:
            raise SvcError.of(
                ErrorId.PROXY_NOT_FOUND,
                f"session {session_id} uses no proxy (direct networking)",
                id=session_id,
                alias=None,
            )
        record = self.find(alias)
        if record is None:
            raise not_found(alias, id=session_id)
        self.require_pro()
        settings = self.settings(record)
        if not settings.get("detect_exit_locale"):
            raise SvcError.of(
                ErrorId.CONFLICT,
                f"exit location detection is disabled on proxy {record.alias!r}",
                alias=record.alias,
                detect_exit_locale=False,
            )
        upstream = self.upstream(session)
        if upstream is None:  # detached or deleted since the session was read
            raise not_found(alias, id=session_id)
        key = geolocation.route_key(session_id, upstream)
        cached = self.locations.get(key)
        if cached is not None:
            return cached
        try:
            found = await geolocation.fetch_location(
                upstream,
                self._lookup_url,
                seconds=self._config.geolocation_timeout,
                ssl_context=self._ssl_context(settings.get("tls") or {}),
            )
        except geolocation.LookupFailed as exc:
            raise self._lookup_error(upstream.alias, exc) from None
        self.locations.put(key, found)
        return found

    def _lookup_error(self, alias: str, exc: geolocation.LookupFailed) -> SvcError:
        if exc.kind == "proxy":
            return SvcError.of(
                ErrorId.UPSTREAM_UNAVAILABLE,
                f"the exit location lookup through proxy {alias!r} failed; "
                f"proxy {alias}: {exc.source}",
                error_source="proxy",
                proxy_alias=alias,
                source_error=exc.source,
            )
        return SvcError.of(
            ErrorId.UPSTREAM_UNAVAILABLE,
            f"the exit location lookup through proxy {alias!r} got an invalid answer from "
            f"{self._lookup_url.host}: {exc.source}",
            error_source="geolocation",
            proxy_alias=alias,
            source_error=exc.source,
        )

    def _ssl_context(self, tls: dict[str, Any]) -> ssl.SSLContext | None:
        """System trust, plus the proxy's additional trust certificates when it has them (they
        apply to that proxy's sessions, and the lookup is one). Only https lookups use it."""
        if self._lookup_url.scheme != "https":
            return None
        bundle = tls.get("certificates")
        if bundle:
            context = ssl.create_default_context()
            context.load_verify_locations(cadata=bundle)
            return context
        if self._system_tls is None:
            self._system_tls = ssl.create_default_context()
        return self._system_tls

    # --- transfers -----------------------------------------------------------------------------

    def transfer_record(self, alias: str) -> dict[str, Any] | None:
        """The proxy's configuration for an archive, without credentials or sticky ids."""
        record = self.find(alias)
        if record is None:
            return None
        settings = self.settings(record)
        settings.pop("sticky_ids", None)
        return {
            "alias": record.alias,
            "upstream_host": record.upstream_host,
            "upstream_port": record.upstream_port,
            "settings": settings,
            "credentials": None,
        }

    async def export(
        self, body: ProxyExport, authorization: str | None
    ) -> responses.TransferArchive:
        record = self.get(body.alias)
        if body.include_credentials:
            if authorization is None or not hmac.compare_digest(
                authorization.strip().encode(), self.secret.encode()
            ):
                raise _invalid(
                    "including credentials requires the owning app's authorization header",
                    "include_credentials",
                    header=AUTH_HEADER,
                )
            if not body.passphrase:
                raise _invalid(
                    "including credentials requires a non-empty passphrase", "passphrase"
                )
        elif body.passphrase is not None:
            raise _invalid("passphrase is used only with include_credentials:true", "passphrase")
        archived = self.transfer_record(record.alias)
        assert archived is not None
        if body.include_credentials and (record.username or record.password):
            assert body.passphrase
            archived["credentials"] = await trio.to_thread.run_sync(
                transfers.seal_credentials,
                body.passphrase,
                record.alias,
                record.username,
                record.password,
            )
        archive = transfers.Archive(
            kind="proxy",
            version=transfers.TRANSFER_VERSION,
            credentials_included=body.include_credentials,
            proxies=[archived],
        )
        return responses.TransferArchive(
            filename=transfers.filename(record.alias, "svcproxy"),
            contents_base64=transfers.encode(archive),
            credentials_included=body.include_credentials,
        )

    def _archived_state(self, record: dict[str, Any], version: int) -> dict[str, Any]:
        """An archived proxy checked by the rules of a create; VALIDATION_FAILED on contents."""
        try:
            s = msgspec.convert(record["settings"], _ArchivedSettings)
            px = s.providerx or _ArchivedProviderX()
            py = s.providery
            if py is not None and version < 4:
                py = msgspec.structs.replace(py, enabled=False)
            state = {
                "upstream_host": clean_host(str(record["upstream_host"])),
                "upstream_port": _port(record["upstream_port"]),
                "username": None,
                "password": None,
                "providerx": providerx_state(px.enabled, px.location_parameter, px.location_value),
                "providery": providery_state(py),
                "tls": tls_state(s.tls),
                "locale": check_locale(s.locale),
                # Versions before 6 did not carry exit detection: it imports disabled.
                "detect_exit_locale": s.detect_exit_locale if version >= 6 else False,
            }
            check_providers(state, "providery.enabled")
        except msgspec.ValidationError as exc:
            raise transfers.invalid(f"the archive's proxy settings are invalid: {exc}") from None
        except SvcError as exc:
            raise transfers.invalid(
                f"the archive's proxy is invalid: {exc.error.message}",
                archive_field=(exc.error.details or {}).get("field"),
            ) from None
        return state

    async def import_(self, body: ProxyImport) -> ProxyRecord:
        self.require_pro()
        archive = transfers.decode(body.contents_base64, "proxy")
        if len(archive.proxies) != 1 or archive.profiles:
            raise transfers.invalid("a proxy archive holds exactly one proxy")
        record = archive.proxies[0]
        stored_alias = str(record["alias"])
        if body.alias is None and (not ALIAS.match(stored_alias) or is_uuid(stored_alias)):
            raise transfers.invalid(f"the archive's alias {stored_alias!r} is not a valid alias")
        alias = body.alias if body.alias is not None else stored_alias
        state = self._archived_state(record, archive.version)
        self._check_new_alias(alias)
        blob = record.get("credentials")
        if archive.credentials_included and blob is not None:
            if not body.passphrase:
                raise _invalid(
                    "this archive carries credentials: send its passphrase", "passphrase"
                )
            username, password = await trio.to_thread.run_sync(
                transfers.open_credentials, body.passphrase, stored_alias, str(blob)
            )
            state["username"] = check_username(username)
            state["password"] = check_password(password)
        return self._insert(alias, state)

    def link_imported(
        self, alias: str, record: dict[str, Any] | None, version: int
    ) -> tuple[str, bool]:
        """For a profile import: the stored alias of its proxy, creating it from the archive
        (without credentials) when no proxy has that alias; an existing one is never changed."""
        self.require_pro()
        existing = self.find(alias)
        if existing is not None:
            return existing.alias, False
        if record is None:
            raise transfers.invalid(f"the archive references proxy {alias!r} but does not carry it")
        if not ALIAS.match(alias) or is_uuid(alias):
            raise transfers.invalid(f"the archive's proxy alias {alias!r} is not a valid alias")
        state = self._archived_state(record, version)
        self._insert(alias, state)
        return alias, True
