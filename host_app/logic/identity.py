"""A session's fingerprint (`bridge_protocol.FingerprintProfile`) as the plain values the engine
takes: the User-Agent and Accept-Language headers, the client hints, and the configuration of
the identity page script (`host_app.logic.identity_script`). No Qt here: `host_app.engine.identity`
hands these values to the profile.

What each field controls, and what is not covered, is in docs/decisions.md ("Session identity").
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from bridge_protocol.identity import FingerprintProfile

from .identity_script import SCRIPT_TEMPLATE

# Chrome's GREASE brand (components/embedder_support/user_agent_utils.cc): the characters and
# versions it picks from, and the order it shuffles the brand list into, all seeded by the major
# version, so a given version always shows the same list, as a real Chrome of that version does.
_GREASE_CHARS = (" ", "(", ":", "-", ".", "/", ")", ";", "=", "?", "_")
_GREASE_VERSIONS = ("8", "99", "24")
_ORDERS_2 = ((0, 1), (1, 0))
_ORDERS_3 = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))

# Brand names as a profile may spell them -> the brand Chromium-based browsers report.
_BRANDS = {
    "chrome": "Google Chrome",
    "google chrome": "Google Chrome",
    "edge": "Microsoft Edge",
    "microsoft edge": "Microsoft Edge",
    "opera": "Opera",
    "brave": "Brave",
    "vivaldi": "Vivaldi",
}
# Browsers without User-Agent Client Hints: their identity hides navigator.userAgentData and
# sends no Sec-CH-UA headers.
_NO_CLIENT_HINTS = {"firefox", "safari", "mozilla firefox", "apple safari"}

# graphics_profile -> (unmasked vendor, unmasked renderer), as Chrome's ANGLE reports them on
# that kind of machine. Chrome always masks VENDOR/RENDERER as "WebKit"/"WebKit WebGL".
GRAPHICS: dict[str, tuple[str, str]] = {
    "generic-mesa": (
        "Google Inc. (Intel)",
        "ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)",
    ),
    "intel-windows": (
        "Google Inc. (Intel)",
        "ANGLE (Intel, Intel(R) UHD Graphics 620 Direct3D11 vs_5_0 ps_5_0, D3D11)",
    ),
    "nvidia-windows": (
        "Google Inc. (NVIDIA)",
        "ANGLE (NVIDIA, NVIDIA GeForce GTX 1650 Direct3D11 vs_5_0 ps_5_0, D3D11)",
    ),
    "amd-windows": (
        "Google Inc. (AMD)",
        "ANGLE (AMD, AMD Radeon(TM) Graphics Direct3D11 vs_5_0 ps_5_0, D3D11)",
    ),
    "apple-silicon": (
        "Google Inc. (Apple)",
        "ANGLE (Apple, ANGLE Metal Renderer: Apple M1, Unspecified Version)",
    ),
}
# An unknown graphics profile takes the usual GPU of its platform, so the strings never contradict
# the platform.
_GRAPHICS_BY_OS = {"Windows": "intel-windows", "macOS": "apple-silicon"}
WEBGL_VENDOR = "WebKit"
WEBGL_RENDERER = "WebKit WebGL"

# network_profile -> what navigator.connection reports (effectiveType, downlink Mbit/s, rtt ms),
# in the steps Chrome rounds them to. Nothing is throttled: QtWebEngine has no such control.
NETWORK: dict[str, tuple[str, float, int]] = {
    "broadband": ("4g", 10.0, 50),
    "cable": ("4g", 10.0, 50),
    "fiber": ("4g", 10.0, 50),
    "wifi": ("4g", 10.0, 50),
    "mobile": ("4g", 2.5, 150),
    "4g": ("4g", 2.5, 150),
    "3g": ("3g", 0.7, 300),
    "2g": ("2g", 0.25, 1800),
}

# Kept generic: the engine's own hint is the host's kernel version, which would single it out.
_PLATFORM_VERSION = {"Windows": "10.0.0", "macOS": "14.6.0", "Linux": "6.8.0", "Chrome OS": ""}


@dataclass(frozen=True)
class ClientHints:
    """The values of `QWebEngineClientHints`; `brands` is the full-version list, GREASE
    included (Chromium derives `navigator.userAgentData.brands` and Sec-CH-UA from it)."""

    enabled: bool
    platform: str
    platform_version: str
    full_version: str
    brands: tuple[tuple[str, str], ...]
    arch: str
    bitness: str
    mobile: bool
    model: str

    @property
    def form_factors(self) -> tuple[str, ...]:
        """Chrome's `formFactors` hint: a phone's browser says Mobile, a desktop's Desktop."""
        return ("Mobile",) if self.mobile else ("Desktop",)


@dataclass(frozen=True)
class EngineIdentity:
    user_agent: str
    accept_language: str
    hints: ClientHints
    page: dict[str, Any]  # the identity script's configuration (JSON-serializable)

    def script(self) -> str:
        return SCRIPT_TEMPLATE.replace("/*CONFIG*/", json.dumps(self.page, sort_keys=True))

    @property
    def pdf_plugins(self) -> bool:
        """Whether `navigator.plugins` lists the five PDF viewer entries every desktop browser
        lists (Chrome, Edge, Firefox, Safari alike; `navigator.pdfViewerEnabled` true). A phone
        lists none. An empty list on a desktop Chrome is the best known sign of a headless
        Chrome (FingerprintJS's BotD flags it)."""
        return not self.hints.mobile


def accept_language(locale: str) -> str:
    """`de-DE` -> `de-DE,de;q=0.9`, as Chrome sends for one preferred language."""
    base = locale.split("-", 1)[0]
    if base.lower() == locale.lower():
        return locale
    return f"{locale},{base};q=0.9"


def platform_name(platform: str, user_agent: str = "") -> str:
    """navigator.platform -> the client-hint platform (`Sec-CH-UA-Platform`)."""
    p = platform.lower()
    if "android" in user_agent.lower() or (p.startswith("linux arm") and "Mobile" in user_agent):
        return "Android"
    if p.startswith("win"):
        return "Windows"
    if p.startswith("mac"):
        return "macOS"
    if p.startswith(("iphone", "ipad", "ipod")):
        return "iOS"
    if "cros" in user_agent.lower():
        return "Chrome OS"
    if p.startswith("linux"):
        return "Linux"
    return "Unknown"


def _arch(platform: str) -> str:
    p = platform.lower()
    return "arm" if "arm" in p or "aarch64" in p else "x86"


def major(version: str) -> int:
    m = re.match(r"\d+", version)
    return int(m.group()) if m else 0


def grease_brand(major_version: int) -> tuple[str, str]:
    """Chrome's GREASE brand and its major version for a given browser major version."""
    seed = major_version
    chars = _GREASE_CHARS
    name = f"Not{chars[seed % len(chars)]}A{chars[(seed + 1) % len(chars)]}Brand"
    return name, _GREASE_VERSIONS[seed % len(_GREASE_VERSIONS)]


def brand_list(brand: str, full_version: str) -> tuple[tuple[str, str], ...]:
    """The full-version brand list in Chrome's order: GREASE, Chromium and the browser's brand
    (none for Chromium itself), shuffled by the major version."""
    seed = major(full_version)
    grease, grease_major = grease_brand(seed)
    items: list[tuple[str, str]] = [(grease, f"{grease_major}.0.0.0"), ("Chromium", full_version)]
    name = _BRANDS.get(brand.strip().lower(), brand.strip())
    if name.lower() != "chromium":
        items.append((name, full_version))
    order = _ORDERS_2[seed % 2] if len(items) == 2 else _ORDERS_3[seed % 6]
    shuffled: list[tuple[str, str]] = list(items)
    for i, pos in enumerate(order):
        shuffled[pos] = items[i]
    return tuple(shuffled)


def client_hints(fp: FingerprintProfile) -> ClientHints:
    os_name = platform_name(fp.platform, fp.user_agent)
    mobile = "Mobile" in fp.user_agent or os_name in ("Android", "iOS")
    return ClientHints(
        enabled=fp.browser_brand.strip().lower() not in _NO_CLIENT_HINTS,
        platform=os_name,
        platform_version=_PLATFORM_VERSION.get(os_name, ""),
        full_version=fp.browser_version,
        brands=brand_list(fp.browser_brand, fp.browser_version),
        arch="arm" if os_name in ("Android", "iOS") else _arch(fp.platform),
        bitness="64",
        mobile=mobile,
        model="",
    )


def device_memory(gib: int) -> float:
    """navigator.deviceMemory as Chrome reports it: a power of two, at most 8."""
    value = 0.25
    while value * 2 <= min(gib, 8):
        value *= 2
    return value


def graphics(profile: str, os_name: str) -> tuple[str, str]:
    key = profile.strip().lower()
    if key not in GRAPHICS:
        key = _GRAPHICS_BY_OS.get(os_name, "generic-mesa")
    return GRAPHICS[key]


def noise_key(seed: str, what: str) -> int:
    """A 32-bit key for one kind of noise: the same seed always gives the same noise, and canvas
    and audio noise are independent of each other."""
    digest = hashlib.sha256(f"{what}:{seed}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def network(profile: str) -> tuple[str, float, int]:
    return NETWORK.get(profile.strip().lower(), NETWORK["broadband"])


def page_brand_order(brands: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    """The order a page reads the profile's brands in: QtWebEngine 6.11 lists them product
    first, then Chromium, then the GREASE brand, whatever order they were given in (measured
    with a Chrome and a Chromium fingerprint, stable across runs)."""

    def rank(item: tuple[str, str]) -> int:
        name = item[0]
        if name == "Chromium":
            return 1
        return 2 if name.startswith("Not") and name.endswith("Brand") else 0

    return sorted(brands, key=rank)


def page_brand_lists(hints: ClientHints) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(brand, major version) and (brand, full version), in the order a page reads them: what
    the workers' prelude and the pages' user-agent override both answer."""
    ordered = page_brand_order(hints.brands)
    return [(b, v.split(".", 1)[0]) for b, v in ordered], ordered


def window_misfit(viewport: tuple[int, int], fp: FingerprintProfile) -> str | None:
    """Why a window with this viewport cannot be on the fingerprint's screen (None: it can).
    The viewport is the Background Browser Size or the window's (spec 1), never the
    fingerprint's: a page that compares `innerWidth`/`innerHeight` with `screen.width`/
    `availHeight` sees a window larger than its screen."""
    width, height = viewport
    s = fp.screen
    if width <= s.width and height <= s.available_height:
        return None
    return (
        f"the viewport ({width} x {height}) does not fit the fingerprint's screen ({s.width} x "
        f"{s.height}, {s.available_height} available): pages can see a window larger than its "
        "screen; a Background Browser Size (or a window) within the screen avoids it"
    )


def _number(value: float) -> str:
    """A number as Chrome writes it in a client-hint header: `4`, `0.5`, `1.25`."""
    return str(int(value)) if value == int(value) else repr(value)


def hint_headers(fp: FingerprintProfile | None) -> dict[str, str]:
    """The client hints a site asks for with Accept-CH that the engine answers from the machine
    (its memory, its display's scale, its own network estimate), by lower-case header name, as
    the fingerprint's navigator says them: a request that carries one gets this value instead.
    Empty for a native session. The viewport's hints stay the engine's (the view is real)."""
    if fp is None:
        return {}
    memory = _number(device_memory(fp.device_memory_gib))
    scale = _number(fp.screen.device_scale_factor)
    effective, downlink, rtt = network(fp.network_profile)
    return {
        "device-memory": memory,
        "sec-ch-device-memory": memory,
        "dpr": scale,
        "sec-ch-dpr": scale,
        "ect": effective,
        "downlink": _number(downlink),
        "rtt": str(rtt),
    }


def engine_identity(fp: FingerprintProfile) -> EngineIdentity:
    hints = client_hints(fp)
    majors, fulls = page_brand_lists(hints)
    vendor, renderer = graphics(fp.graphics_profile, hints.platform)
    effective, downlink, rtt = network(fp.network_profile)
    screen = fp.screen
    page: dict[str, Any] = {
        "platform": fp.platform,
        "hardwareConcurrency": fp.hardware_concurrency,
        "deviceMemory": device_memory(fp.device_memory_gib),
        "maxTouchPoints": fp.max_touch_points,
        "screen": {
            "width": screen.width,
            "height": screen.height,
            "availWidth": screen.width,
            "availHeight": min(screen.available_height, screen.height),
            "colorDepth": 24,
        },
        "devicePixelRatio": screen.device_scale_factor,
        "quota": fp.storage_quota_bytes,
        "locale": fp.locale,
        "timezone": fp.timezone,
        "canvasKey": noise_key(fp.seed, "canvas") if fp.canvas_noise_mode == "seeded" else None,
        "audioKey": noise_key(fp.seed, "audio") if fp.audio_noise_mode == "seeded" else None,
        "webgl": {
            "vendor": WEBGL_VENDOR,
            "renderer": WEBGL_RENDERER,
            "unmaskedVendor": vendor,
            "unmaskedRenderer": renderer,
        },
        "connection": {"effectiveType": effective, "downlink": downlink, "rtt": rtt},
        "userAgentData": hints.enabled,
        # for the workers the engine gives its own brands (service and shared workers)
        "uaData": {
            "brands": [list(pair) for pair in majors],
            "fullVersionList": [list(pair) for pair in fulls],
            "uaFullVersion": hints.full_version,
            "platform": hints.platform,
            "platformVersion": hints.platform_version,
            "architecture": hints.arch,
            "bitness": hints.bitness,
            "model": hints.model,
            "mobile": hints.mobile,
            "formFactors": list(hints.form_factors),
        },
    }
    return EngineIdentity(fp.user_agent, accept_language(fp.locale), hints, page)
