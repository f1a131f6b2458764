"""The fingerprint as the engine's plain values (host_app.logic.identity)."""

from __future__ import annotations

import json

from bridge_protocol.identity import FingerprintProfile, Screen
from host_app.logic import identity as ident


def profile(**changes: object) -> FingerprintProfile:
    base: dict[str, object] = {
        "schema_version": 1,
        "seed": "0123456789abcdef",
        "platform": "Win32",
        "browser_brand": "Google Chrome",
        "browser_version": "140.0.7339.225",
        "user_agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/140.0.0.0 Safari/537.36",
        "locale": "de-DE",
        "timezone": "Europe/Berlin",
        "network_profile": "broadband",
        "hardware_concurrency": 12,
        "device_memory_gib": 16,
        "max_touch_points": 0,
        "screen": Screen(width=2560, height=1440, available_height=1400, device_scale_factor=1.25),
        "graphics_profile": "nvidia-windows",
        "storage_quota_bytes": 1000,
        "canvas_noise_mode": "seeded",
        "audio_noise_mode": "off",
    }
    base.update(changes)
    return FingerprintProfile(**base)  # type: ignore[arg-type]


def test_accept_language_adds_the_base_language() -> None:
    assert ident.accept_language("de-DE") == "de-DE,de;q=0.9"
    assert ident.accept_language("de") == "de"


def test_platform_names() -> None:
    assert ident.platform_name("Win32") == "Windows"
    assert ident.platform_name("MacIntel") == "macOS"
    assert ident.platform_name("Linux x86_64") == "Linux"
    assert (
        ident.platform_name("Linux armv8l", "Mozilla/5.0 (Linux; Android 14) Mobile") == "Android"
    )


def test_grease_and_brand_order_match_the_engine_and_chrome() -> None:
    # the engine's own list for Chromium 140, and Chrome 140's
    assert ident.brand_list("Chromium", "140.0.7339.225") == (
        ("Not=A?Brand", "24.0.0.0"),
        ("Chromium", "140.0.7339.225"),
    )
    assert ident.brand_list("Chrome", "140.0.7339.225") == (
        ("Chromium", "140.0.7339.225"),
        ("Not=A?Brand", "24.0.0.0"),
        ("Google Chrome", "140.0.7339.225"),
    )


def test_engine_identity_values() -> None:
    e = ident.engine_identity(profile())
    assert e.accept_language == "de-DE,de;q=0.9"
    assert (e.hints.platform, e.hints.platform_version, e.hints.arch) == (
        "Windows",
        "10.0.0",
        "x86",
    )
    assert e.hints.enabled
    assert not e.hints.mobile
    assert e.page["deviceMemory"] == 8
    assert e.page["screen"]["availHeight"] == 1400
    assert e.page["webgl"]["unmaskedVendor"] == "Google Inc. (NVIDIA)"
    assert e.page["canvasKey"] == ident.noise_key("0123456789abcdef", "canvas")
    assert e.page["audioKey"] is None
    # the configuration is in the script, as JSON
    assert json.dumps(e.page, sort_keys=True) in e.script()


def test_noise_keys_differ_between_seeds_and_kinds() -> None:
    a = ident.noise_key("0123456789abcdef", "canvas")
    assert a == ident.noise_key("0123456789abcdef", "canvas")
    assert a != ident.noise_key("fedcba9876543210", "canvas")
    assert a != ident.noise_key("0123456789abcdef", "audio")


def test_unknown_graphics_profile_follows_the_platform() -> None:
    assert ident.graphics("something", "macOS")[0] == "Google Inc. (Apple)"
    assert ident.graphics("something", "Linux") == ident.GRAPHICS["generic-mesa"]


def test_device_memory_is_rounded_like_chrome() -> None:
    assert [ident.device_memory(g) for g in (1, 3, 4, 6, 8, 64)] == [1, 2, 4, 4, 8, 8]


def test_browsers_without_client_hints() -> None:
    assert not ident.engine_identity(profile(browser_brand="Firefox")).hints.enabled
    assert ident.engine_identity(profile(browser_brand="Firefox")).page["userAgentData"] is False


def test_workers_list_the_brands_in_the_order_the_page_reads_them() -> None:
    """QtWebEngine 6.11 gives a page the profile's brands product first, then Chromium, then
    GREASE (measured); a service worker's patched list follows it."""
    from host_app.logic.identity import brand_list, page_brand_order

    chrome = page_brand_order(brand_list("Google Chrome", "140.0.7339.225"))
    assert [b for b, _ in chrome] == ["Google Chrome", "Chromium", "Not=A?Brand"]
    chromium = page_brand_order(brand_list("Chromium", "140.0.7339.225"))
    assert [b for b, _ in chromium] == ["Chromium", "Not=A?Brand"]


def test_a_viewport_that_does_not_fit_the_screen_is_named() -> None:
    """The viewport is the Background Browser Size (or the window), never the fingerprint's: a
    smaller screen makes a window larger than its screen, which the session's log warns of."""
    assert ident.window_misfit((1920, 947), profile()) is None
    assert ident.window_misfit((2560, 1400), profile()) is None  # exactly the available area
    laptop = profile(
        screen=Screen(width=1366, height=768, available_height=728, device_scale_factor=1)
    )
    misfit = ident.window_misfit((1920, 947), laptop)
    assert misfit is not None
    assert "1920 x 947" in misfit
    assert "1366 x 768" in misfit
    assert ident.window_misfit((1366, 643), laptop) is None  # the spec's 1366x643 preset
    assert ident.window_misfit((1366, 729), laptop) is not None


def test_hint_headers_say_the_fingerprints_values() -> None:
    fp = profile(
        device_memory_gib=3,
        network_profile="3g",
        screen=Screen(width=412, height=915, available_height=915, device_scale_factor=2.625),
    )
    assert ident.hint_headers(fp) == {
        "device-memory": "2",
        "sec-ch-device-memory": "2",
        "dpr": "2.625",
        "sec-ch-dpr": "2.625",
        "ect": "3g",
        "downlink": "0.7",
        "rtt": "300",
    }
    assert ident.hint_headers(profile(device_memory_gib=0))["device-memory"] == "0.25"
    assert ident.hint_headers(profile())["dpr"] == "1.25"
    assert ident.hint_headers(None) == {}
