"""A browser identity (spec 1 §2 Profile, `fingerprint_profile`) and a proxy's trust, as the API
takes them and as the host applies them (`SessionSettings.identity`, `SessionSettings.trust`).

The agent stores and validates a profile's fingerprint with these structs and sends the host the
session's effective identity: the fingerprint with its timezone and language already resolved
(exit locale, docs/decisions.md), or None for the engine's native identity.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

FpText = Annotated[str, msgspec.Meta(min_length=1, max_length=512)]


class Screen(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    width: Annotated[int, msgspec.Meta(ge=1, le=16384)]
    height: Annotated[int, msgspec.Meta(ge=1, le=16384)]
    available_height: Annotated[int, msgspec.Meta(ge=1, le=16384)]
    device_scale_factor: Annotated[float, msgspec.Meta(gt=0, le=8)]


class FingerprintProfile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    schema_version: Literal[1]
    seed: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{8,64}$")]
    platform: FpText
    browser_brand: FpText
    browser_version: FpText
    user_agent: FpText
    locale: Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")]
    timezone: FpText
    network_profile: FpText
    hardware_concurrency: Annotated[int, msgspec.Meta(ge=1, le=256)]
    device_memory_gib: Annotated[int, msgspec.Meta(ge=1, le=1024)]
    max_touch_points: Annotated[int, msgspec.Meta(ge=0, le=32)]
    screen: Screen
    graphics_profile: FpText
    storage_quota_bytes: Annotated[int, msgspec.Meta(ge=0)]
    canvas_noise_mode: Literal["off", "seeded"]
    audio_noise_mode: Literal["off", "seeded"]


class ProxyTrust(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """What a proxied session's engine trusts beyond the system store (spec 1 §4 Proxies,
    `tls`): provider Y's published CA (`mode: providery`), or the proxy's own additional
    certificates (`certificates`, a PEM bundle of 1-16, validated by the agent). Never a blanket
    accept: a chain is verified against these roots, with host name and validity."""

    mode: Literal["system", "providery"] = "system"
    certificates: str | None = None
