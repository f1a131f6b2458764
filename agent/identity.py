"""A session's effective browser identity and trust: what `SessionSettings.identity` and
`.trust` carry (docs/decisions.md "Session identity", "Exit locale", "Per-proxy trust").

- The fingerprint is the session's profile's (`Profiles.session_fingerprint`), None for native
  identity, with a per-session seed: HMAC-SHA256 under a random per-install key kept in
  `metadata` (`identity_key`) of the profile's seed, the session's number and its creation time.
  It survives agent restarts without a schema change, differs between sessions made from one
  profile, and changes when the profile's seed is edited.
- Timezone and language are resolved here (spec 1 §4 "Automatic language/timezone"); the saved
  fingerprint is never changed. Native identity overrides nothing.
- Trust is the session's proxy's `tls`; None for direct sessions.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import msgspec
import trio

from bridge_protocol import FingerprintProfile, ProxyTrust, SvcError
from proxy import geolocation

from .config import AgentConfig
from .locales import language_for_country, zone_for_country
from .logs import LogWriter
from .profiles import TEMPLATE_LOCALE, TEMPLATE_TIMEZONE, Profiles
from .proxies import Proxies
from .records import SessionRecord
from .store import Store

IDENTITY_KEY = "identity_key"
# A failed exit lookup is not retried on the same route for this long: every operation would
# otherwise wait out the lookup's timeout again while the service or the proxy is down.
RETRY_FAILED_LOOKUP = 60.0


def install_key(store: Store) -> bytes:
    """The per-install secret that session seeds derive from (created on first use)."""
    value = store.get_meta(IDENTITY_KEY)
    if value is None:
        value = secrets.token_hex(32)
        store.set_meta(IDENTITY_KEY, value)
    return bytes.fromhex(value)


def session_seed(key: bytes, profile_seed: str, session: SessionRecord) -> str:
    message = f"{profile_seed}|{session.id}|{session.created_at}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:32]


class SessionIdentity:
    def __init__(
        self,
        store: Store,
        config: AgentConfig,
        logs: LogWriter,
        profiles: Profiles,
        proxies: Proxies,
    ) -> None:
        self._key = install_key(store)
        self._config = config
        self._logs = logs
        self._profiles = profiles
        self._proxies = proxies
        self._failed: dict[geolocation.RouteKey, float] = {}  # route -> when its lookup failed

    def fingerprint(self, session: SessionRecord) -> FingerprintProfile | None:
        """The session's saved fingerprint with its own seed (None: native identity)."""
        saved = self._profiles.session_fingerprint(session.profile)
        if saved is None:
            return None
        return msgspec.structs.replace(saved, seed=session_seed(self._key, saved.seed, session))

    async def effective(self, session: SessionRecord) -> FingerprintProfile | None:
        """The fingerprint the engine applies: `fingerprint` with the automatic timezone and,
        unless its locale is custom (not the template's), the automatic language."""
        fingerprint = self.fingerprint(session)
        if fingerprint is None:
            return None  # disabled controls stay native
        timezone, language = await self._automatic(session, fingerprint)
        changes: dict[str, str] = {}
        if timezone is not None:
            changes["timezone"] = timezone
        if language is not None and fingerprint.locale == TEMPLATE_LOCALE:
            changes["locale"] = language
        return msgspec.structs.replace(fingerprint, **changes) if changes else fingerprint

    def proxy_id(self, session: SessionRecord) -> int | None:
        if session.proxy_alias is None:
            return None
        record = self._proxies.find(session.proxy_alias)
        return None if record is None else record.id

    def trust(self, session: SessionRecord) -> ProxyTrust | None:
        if session.proxy_alias is None:
            return None
        return self._proxies.trust_of(session.proxy_alias)

    async def _automatic(
        self, session: SessionRecord, fingerprint: FingerprintProfile
    ) -> tuple[str | None, str | None]:
        """(timezone, language) to apply; None keeps the fingerprint's value."""
        preferred = self._config.preferred_language
        if session.proxy_alias is None:
            # it leaves from this machine: the template's placeholder zone becomes the
            # machine's, as its locale becomes the user's language (a custom zone stays); a
            # proxied session never takes it, which would tell the proxy's sites where the user is
            local = self._config.local_timezone
            return (local if fingerprint.timezone == TEMPLATE_TIMEZONE else None), preferred
        shown = self._proxies.exit_of(session.proxy_alias)
        if shown is None:  # deleted since the session was read: nothing to say of the exit
            return None, preferred
        if shown.detect_exit_locale:
            found = await self._detected(session)
            if found is None:
                return None, None
            return found.timezone, language_for_country(found.country)
        country = (shown.country or "").upper()
        if country in geolocation.ISO_COUNTRIES:
            return zone_for_country(country), language_for_country(country)
        return None, preferred

    async def _detected(self, session: SessionRecord) -> geolocation.Location | None:
        route = self._proxies.route_of(session)
        if route is None:  # no usable upstream (plan, proxy gone): no exit to look up
            return None
        failed_at = self._failed.get(route)
        now = trio.current_time()
        if failed_at is not None and now - failed_at < RETRY_FAILED_LOOKUP:
            return None
        try:
            return await self._proxies.exit_location(session)
        except SvcError as exc:
            self._failed[route] = now
            self._logs.write(
                "session.exit_locale_failed",
                f"the exit location of {session.session_id} could not be detected through "
                f"proxy {session.proxy_alias!r}; keeping the fingerprint's timezone and "
                f"language: {exc.error.message}",
                level="warning",
                profile_id=session.id,
                data={"error_id": exc.error.id, "proxy_alias": session.proxy_alias},
            )
            return None

    def forget_failures(self) -> None:
        """A proxy's settings changed: its next lookup is tried at once."""
        self._failed.clear()
