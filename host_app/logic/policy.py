"""Per-request network decisions of a session (the request interceptor asks; Qt-free).

The interceptor translates Qt's request info into a plain `Request` and asks `NetworkPolicy.
decide`; the answer is a `Verdict` (blocked, and why) or None (let it through). Anything else
that wants a say per request (image size limits, the shared asset cache) plugs in here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge_protocol import SessionSettings
from bridge_protocol.identity import ProxyTrust

from .adblock import FilterEngine

Route = tuple[int | None, ProxyTrust | None]

PASS_SCHEMES = ("data", "blob", "about", "chrome", "qrc", "devtools")
# Only these schemes go to the network, so only they are worth the engine's time.
FILTERED_SCHEMES = ("http", "https", "ws", "wss")
# Reasons a request is blocked; the first two are the session's state, not filtering, and are
# not filter events.
HELD, PAUSED, IMAGE_BLOCKING, ADBLOCK = "held", "paused", "image_blocking", "adblock"
# an image of an over_limit session dropped by the asset scheme (host_app/engine/asset_scheme.py)
IMAGE_SIZE = "image_size"
FILTER_REASONS = (IMAGE_BLOCKING, ADBLOCK, IMAGE_SIZE)


@dataclass(frozen=True, slots=True)
class Request:
    """What the interceptor knows of a request, as plain values. `resource_type` is a
    webRequest type name (`main_frame`, `sub_frame`, `script`, `image`, `xmlhttprequest`...);
    `source_url` is the URL of what made the request (its frame's origin), "" when unknown."""

    url: str
    scheme: str
    resource_type: str
    source_url: str = ""
    method: str = "GET"

    @property
    def main_frame(self) -> bool:
        return self.resource_type == "main_frame"


@dataclass(frozen=True, slots=True)
class Verdict:
    reason: str
    rule: str | None = None
    list: str | None = None

    @property
    def filtered(self) -> bool:
        return self.reason in FILTER_REASONS


@dataclass(slots=True)
class Filters:
    """The app-wide half of adblock, shared by every session's policy: the global switch (app
    settings) and the engine of the lists (None until one is loaded or built)."""

    enabled: bool = True
    engine: FilterEngine | None = None


@dataclass(slots=True)
class NetworkPolicy:
    paused: bool = False
    image_blocking_mode: str = "none"  # none / all / over_limit
    deferred_navigation: bool = False
    # Held for a route change: the session's settings name another route (proxy or trust) than
    # the one its browser context was built on, and the page is not empty. Separate from
    # `paused` so that a person's or the agent's play does not send requests by the old route;
    # only a rebuilt context (Reload and apply, or an agent navigation) ends it.
    held: bool = False
    adblock_enabled: bool = True  # the session's switch; effective only with the global one
    filters: Filters = field(default_factory=Filters)

    @classmethod
    def from_settings(
        cls, settings: SessionSettings, filters: Filters | None = None
    ) -> NetworkPolicy:
        return cls(
            paused=settings.network_paused,
            image_blocking_mode=settings.image_blocking_mode,
            adblock_enabled=settings.adblock_enabled,
            filters=filters if filters is not None else Filters(),
        )

    def apply(self, settings: SessionSettings) -> None:
        """The filtering half of new session settings: read by the session's next request."""
        self.image_blocking_mode = settings.image_blocking_mode
        self.adblock_enabled = settings.adblock_enabled

    @property
    def adblock_active(self) -> bool:
        return self.adblock_enabled and self.filters.enabled and self.filters.engine is not None

    def decide(self, request: Request) -> Verdict | None:
        """Should this request be blocked, and why? Records a main-frame navigation deferred by
        pause. Runs for every request of the session, on the UI thread: no I/O."""
        if request.scheme in PASS_SCHEMES:
            return None
        if self.held:
            return Verdict(HELD)
        if self.paused:
            if request.main_frame:
                self.deferred_navigation = True
            return Verdict(PAUSED)
        if request.resource_type == "image" and self.image_blocking_mode == "all":
            return Verdict(IMAGE_BLOCKING)
        engine = self.filters.engine
        if (
            engine is not None
            and self.adblock_enabled
            and self.filters.enabled
            and request.scheme in FILTERED_SCHEMES
        ):
            # a navigation is first-party to itself; its initiator is the page it leaves
            source = request.url if request.main_frame else request.source_url or request.url
            match = engine.check(request.url, source, request.resource_type)
            if match is not None:
                return Verdict(ADBLOCK, match.rule, match.list)
        return None


def route_of(settings: SessionSettings) -> Route:
    """What a session's browser context is built on and cannot change while it lives: the
    loopback listener (read from user_prefs.json at profile creation) and the extra trust (the
    engine remembers a certificate it was told to accept for the profile's lifetime). A direct
    session has no extra trust, whatever the settings carry."""
    if settings.proxy_port is None:
        return (None, None)
    return (settings.proxy_port, settings.trust)


WEBRTC_POLICY_FLAG = "--force-webrtc-ip-handling-policy"
DISABLE_FEATURES = "--disable-features="
# Chromium defers a page's timers and other non-input tasks after discrete input (a key, a
# click) until the next frame is drawn, for the input's paint. Every agent step that waits
# for the tasks its input set going (a page's zero-delay timer: progress.next_turn) then
# paid up to a frame (16.7 ms, measured 13.8): a select step took 33 ms, 22 without it.
# Chromium before M124 ran them at once, as this does.
ENGINE_DISABLED_FEATURES = ("DeferRendererTasksAfterInput",)


def engine_flags(flags: str) -> str:
    """The engine's command line: `flags` (the person's QTWEBENGINE_CHROMIUM_FLAGS) with the
    WebRTC policy and the features svc turns off. Chromium reads one --disable-features (the
    last), so ours join the person's list rather than follow it; a feature the person
    enables stays enabled."""
    words = flags.split()
    enabled = {
        f
        for w in words
        if w.startswith("--enable-features=")
        for f in w.split("=", 1)[1].split(",")
    }
    ours = [f for f in ENGINE_DISABLED_FEATURES if f not in enabled]
    at = next((i for i, w in enumerate(words) if w.startswith(DISABLE_FEATURES)), None)
    if at is None:
        if ours:
            words.append(DISABLE_FEATURES + ",".join(ours))
    else:
        theirs = [f for f in words[at].split("=", 1)[1].split(",") if f]
        words[at] = DISABLE_FEATURES + ",".join(theirs + [f for f in ours if f not in theirs])
    return with_webrtc_policy(" ".join(words))


def with_webrtc_policy(flags: str) -> str:
    """The engine's command line with WebRTC kept off non-proxied UDP. WebRTC's UDP never goes
    through an HTTP proxy, so a proxied page would learn the machine's addresses from its ICE
    candidates (host, and srflx with any STUN server). QtWebEngine reads no per-profile WebRTC
    preference (`webrtc.ip_handling_policy` in user_prefs.json is ignored, measured) and
    WebRTCPublicInterfacesOnly still gathers over UDP, so the policy is the engine's, for
    every session: direct sessions lose UDP WebRTC too (no candidates at all)."""
    if WEBRTC_POLICY_FLAG in flags:
        return flags
    return f"{flags} {WEBRTC_POLICY_FLAG}=disable_non_proxied_udp".strip()
