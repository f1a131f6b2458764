"""Per-request network decisions of a session (the request interceptor asks; Qt-free)."""

from __future__ import annotations

from dataclasses import dataclass

from bridge_protocol import SessionSettings

PASS_SCHEMES = ("data", "blob", "about", "chrome", "qrc", "devtools")


@dataclass(slots=True)
class NetworkPolicy:
    paused: bool = False
    image_blocking_mode: str = "none"  # none / all / over_limit
    deferred_navigation: bool = False

    @classmethod
    def from_settings(cls, settings: SessionSettings) -> NetworkPolicy:
        return cls(paused=settings.network_paused, image_blocking_mode=settings.image_blocking_mode)

    def block(self, scheme: str, *, main_frame: bool, image: bool) -> bool:
        """Should this request be blocked? Records a main-frame navigation deferred by pause."""
        if scheme in PASS_SCHEMES:
            return False
        if self.paused:
            if main_frame:
                self.deferred_navigation = True
            return True
        return image and self.image_blocking_mode == "all"
