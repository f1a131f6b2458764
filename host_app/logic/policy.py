"""Per-request network decisions of a session (the request interceptor asks; Qt-free)."""

from __future__ import annotations

from dataclasses import dataclass

from bridge_protocol import SessionSettings
from bridge_protocol.identity import ProxyTrust

Route = tuple[int | None, ProxyTrust | None]

PASS_SCHEMES = ("data", "blob", "about", "chrome", "qrc", "devtools")


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

    @classmethod
    def from_settings(cls, settings: SessionSettings) -> NetworkPolicy:
        return cls(paused=settings.network_paused, image_blocking_mode=settings.image_blocking_mode)

    def block(self, scheme: str, *, main_frame: bool, image: bool) -> bool:
        """Should this request be blocked? Records a main-frame navigation deferred by pause."""
        if scheme in PASS_SCHEMES:
            return False
        if self.held:
            return True
        if self.paused:
            if main_frame:
                self.deferred_navigation = True
            return True
        return image and self.image_blocking_mode == "all"


def route_of(settings: SessionSettings) -> Route:
    """What a session's browser context is built on and cannot change while it lives: the
    loopback listener (read from user_prefs.json at profile creation) and the extra trust (the
    engine remembers a certificate it was told to accept for the profile's lifetime). A direct
    session has no extra trust, whatever the settings carry."""
    if settings.proxy_port is None:
        return (None, None)
    return (settings.proxy_port, settings.trust)


WEBRTC_POLICY_FLAG = "--force-webrtc-ip-handling-policy"


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
