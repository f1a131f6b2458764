"""A session's asset scheme (host_app/engine/asset_scheme.py) on its profile: the handler
installed for each asset scheme, the profile's cookies mirrored (read back as the session's
sign-in), the fetch route of the context, and the policy its settings give."""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization

from bridge_protocol import SessionSettings
from bridge_protocol.browser_data import StagedCookie

from ..logic import cookie_files, trust
from ..logic.assets import ASSET_SCHEMES, AssetPolicy, shared_partition
from ..qt import QWebEngineProfile
from .asset_fetch import FetchRoute
from .asset_scheme import AssetHandler, SessionAssets, schemes_registered, track_cookies
from .session_log import SessionLog
from .shared_assets import SharedAssets


def asset_policy(settings: SessionSettings, *, shared_cache: bool) -> AssetPolicy:
    return AssetPolicy(
        image_mode=settings.image_blocking_mode,
        image_limit_bytes=settings.image_size_limit_kb * 1024,
        shared_cache=shared_cache,
    )


def apply_settings(assets: SessionAssets, settings: SessionSettings, *, shared_cache: bool) -> None:
    assets.policy = asset_policy(settings, shared_cache=shared_cache)
    # a route change is held until a new context; another proxy id on the same route (the
    # proxy was replaced) reads from its own partition from now on
    assets.partition = shared_partition(settings)


def install(
    settings: SessionSettings,
    profile: QWebEngineProfile,
    *,
    owner: str,
    shared_cache: bool,
    store: SharedAssets,
    log: SessionLog,
) -> tuple[SessionAssets, AssetHandler] | None:
    """The session's asset scheme on `profile` (None when the schemes are not registered);
    `owner` names the context's own fetch connections (never reused by the next context)."""
    if not schemes_registered():
        return None
    roots = trust.roots_of(settings.trust, trust.read_providery_ca())
    pem = "".join(c.public_bytes(serialization.Encoding.PEM).decode("ascii") for c in roots)
    route = FetchRoute(
        proxy_port=settings.proxy_port,
        extra_roots_pem=pem if settings.proxy_port is not None and pem else None,
        owner=owner,
    )
    assets = SessionAssets(
        policy=asset_policy(settings, shared_cache=shared_cache),
        route=route,
        log_filtered=log.image_dropped,
        log_failed=log.asset_failed,
        store=store,
        partition=shared_partition(settings),
    )
    handler = AssetHandler(assets, profile)
    for name in ASSET_SCHEMES.values():
        profile.installUrlSchemeHandler(name.encode(), handler)
    track_cookies(profile, assets.cookies)
    return assets, handler


def sign_in(assets: SessionAssets | None) -> list[StagedCookie]:
    """The session's live cookies (its sign-in, mirrored by its asset scheme), as a profile
    stages them; none while the session is not open."""
    if assets is None:
        return []
    return cookie_files.from_jar(assets.cookies.all())
