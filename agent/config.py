"""The agent's configuration, read once from the environment and passed down (no globals)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import platformdirs

from proxy.geolocation import DEFAULT_TIMEOUT as DEFAULT_GEOLOCATION_TIMEOUT
from proxy.geolocation import DEFAULT_URL as DEFAULT_GEOLOCATION_URL
from proxy.geolocation import parse_url

from .locales import local_timezone, preferred_language

DEFAULT_PORT = 17319
DEFAULT_PROXY_BASE_PORT = 17400
DEFAULT_CONCURRENCY = 8
APP_NAME = "svc"


class ConfigError(Exception):
    """An invalid setting: start-up stops with this one-line message."""


Plan = Literal["free", "pro"]


@dataclass(frozen=True, slots=True)
class AgentConfig:
    data_dir: Path
    port: int = DEFAULT_PORT
    proxy_base_port: int = DEFAULT_PROXY_BASE_PORT
    concurrency: int = DEFAULT_CONCURRENCY
    plan: Plan = "free"
    performance_trace: bool = False
    bridge: Literal["stdio", "none"] = "stdio"
    host: str = "127.0.0.1"
    worker_deadline: float = 30.0
    geolocation_url: str = DEFAULT_GEOLOCATION_URL
    geolocation_timeout: float = DEFAULT_GEOLOCATION_TIMEOUT
    # The user's language (LANGUAGE/LC_ALL/LC_MESSAGES/LANG): the last fallback of a session's
    # automatic language (agent/locales.py).
    preferred_language: str | None = None
    # The machine's time zone (TZ, else the system's): a direct session's automatic timezone.
    local_timezone: str | None = None
    # Why the starts before this one failed, as the supervisor saw them ('' when the last start
    # did not fail): GET /v1/status shows it (host_app/logic/supervision.py Starts.summary).
    start_failures: str = ""

    @property
    def store_path(self) -> Path:
        return self.data_dir / "svc-agent.sqlite3"

    @property
    def logs_dir(self) -> Path:
        return self.data_dir / "Logs"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> AgentConfig:
        env = os.environ if env is None else env
        data_dir = Path(env.get("SVC_DATA_DIR") or platformdirs.user_data_dir(APP_NAME, False))
        return cls(
            data_dir=data_dir.expanduser().resolve(),
            port=_port(env, "SVC_AGENT_PORT", DEFAULT_PORT),
            proxy_base_port=_port(env, "SVC_BROWSER_PROXY_PORT", DEFAULT_PROXY_BASE_PORT),
            concurrency=_int_in(env, "SVC_BROWSER_CONCURRENCY", DEFAULT_CONCURRENCY, 1, 32),
            plan=_plan(env.get("SVC_PLAN")),
            performance_trace=env.get("SVC_BROWSER_PERFORMANCE_TRACE") == "1",
            bridge="stdio" if env.get("SVC_BROWSER_BRIDGE", "stdio") == "stdio" else "none",
            worker_deadline=float(_int_in(env, "SVC_AGENT_WORKER_DEADLINE", 30, 1, 3600)),
            geolocation_url=_geolocation_url(env.get("SVC_GEOLOCATION_URL")),
            geolocation_timeout=_seconds(
                env, "SVC_GEOLOCATION_TIMEOUT", DEFAULT_GEOLOCATION_TIMEOUT, 60.0
            ),
            preferred_language=preferred_language(env),
            local_timezone=local_timezone(env),
            start_failures=env.get("SVC_AGENT_START_FAILURES", "").strip()[:2000],
        )


def _int_in(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw.strip(), 10)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer from {low} to {high}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name}={raw!r} is not an integer from {low} to {high}")
    return value


def _seconds(env: Mapping[str, str], name: str, default: float, high: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        value = -1.0
    if not 0 < value <= high:  # also refuses nan
        raise ConfigError(f"{name}={raw!r} is not a number of seconds above 0 and at most {high:g}")
    return value


def _geolocation_url(raw: str | None) -> str:
    if raw is None or raw.strip() == "":
        return DEFAULT_GEOLOCATION_URL
    try:
        parse_url(raw)
    except ValueError as exc:
        raise ConfigError(f"SVC_GEOLOCATION_URL: {exc}") from None
    return raw.strip()


def _port(env: Mapping[str, str], name: str, default: int) -> int:
    return _int_in(env, name, default, 1, 65535)


def _plan(raw: str | None) -> Plan:
    if raw is None or raw == "":
        return "free"
    value = raw.strip().lower()
    if value == "free":
        return "free"
    if value == "pro":
        return "pro"
    raise ConfigError(f"SVC_PLAN={raw!r} is not 'free' or 'pro'")
