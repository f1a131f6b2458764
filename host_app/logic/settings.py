"""App settings (spec 1: Background Browser Size, Follow browser commands, Wait for bot
challenge, Send notifications to the agent, global adblock, Default Profile, plan), kept in
`{data_dir}/app-settings.json` so they survive restarts."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

# Background Browser Size presets (CSS px); the spec's default is the first.
SIZE_PRESETS: dict[str, tuple[int, int]] = {
    "1920x947": (1920, 947),
    "1366x643": (1366, 643),
    "1280x720": (1280, 720),
    "1440x789": (1440, 789),
    "2560x1291": (2560, 1291),
}
DEFAULT_SIZE = "1920x947"
PLANS = ("free", "pro")


@dataclass(frozen=True, slots=True)
class AppSettings:
    background_size: str = DEFAULT_SIZE
    follow_browser_commands: bool = True
    wait_for_bot_challenge: bool = True
    send_notifications: bool = False
    adblock_enabled: bool = True
    # the shared asset cache (spec 1 §1), on by default: docs/decisions.md "Shared asset cache"
    shared_asset_cache: bool = True
    default_profile: str = "Custom"
    plan: str = "free"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def background_dimensions(self) -> tuple[int, int]:
        return SIZE_PRESETS.get(self.background_size, SIZE_PRESETS[DEFAULT_SIZE])

    def with_changes(self, **changes: Any) -> AppSettings:
        return _clean(replace(self, **changes))


def _clean(s: AppSettings) -> AppSettings:
    if s.background_size not in SIZE_PRESETS:
        s = replace(s, background_size=DEFAULT_SIZE)
    if s.plan not in PLANS:
        s = replace(s, plan="free")
    if not s.default_profile.strip():
        s = replace(s, default_profile="Custom")
    return s


class SettingsStore:
    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self, *, plan_override: str | None = None) -> AppSettings:
        raw: dict[str, Any] = {}
        with contextlib.suppress(OSError, ValueError):
            loaded = json.loads(self.path.read_text("utf-8"))
            if isinstance(loaded, dict):
                raw = loaded
        defaults = AppSettings()
        values: dict[str, Any] = {}
        for name in (
            "background_size",
            "follow_browser_commands",
            "wait_for_bot_challenge",
            "send_notifications",
            "adblock_enabled",
            "shared_asset_cache",
            "default_profile",
            "plan",
        ):
            default = getattr(defaults, name)
            value = raw.get(name, default)
            values[name] = value if type(value) is type(default) else default
        settings = _clean(AppSettings(**values))
        if plan_override in PLANS:
            settings = replace(settings, plan=plan_override)
        return settings

    def save(self, settings: AppSettings) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = asdict(settings)
        data.pop("extra", None)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", "utf-8")
        os.replace(tmp, self.path)
