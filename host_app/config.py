"""The host app's configuration, read once from the environment (no Qt)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

DEFAULT_PORT = 17319


class ConfigError(ValueError):
    """An invalid setting of the app's environment: the app does not start (one-line message)."""


@dataclass(frozen=True, slots=True)
class HostConfig:
    data_dir: Path
    port: int
    headless: bool
    agent_program: str
    agent_args: tuple[str, ...]
    # a PyInstaller bundle (`make bundle`): the agent is this very executable
    bundled: bool = False

    @property
    def logs_dir(self) -> Path:
        return self.data_dir / "Logs"

    @property
    def settings_path(self) -> Path:
        return self.data_dir / "app-settings.json"

    @property
    def health_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/health"

    @classmethod
    def from_env(cls, *, headless: bool, env: Mapping[str, str] | None = None) -> HostConfig:
        env = os.environ if env is None else env
        raw = env.get("SVC_DATA_DIR") or platformdirs.user_data_dir("svc", False)
        port_raw = (env.get("SVC_AGENT_PORT") or "").strip()
        port = int(port_raw) if port_raw.isdigit() else DEFAULT_PORT if not port_raw else 0
        if not 0 < port < 65536:
            # the agent refuses it too (agent/config.py): polling another port than the one it
            # is told to serve would supervise nothing
            raise ConfigError(
                f"SVC_AGENT_PORT={env.get('SVC_AGENT_PORT')!r} is not an integer from 1 to 65535"
            )
        program, args = agent_command()
        return cls(
            data_dir=Path(raw).expanduser().resolve(),
            port=port,
            headless=headless,
            agent_program=program,
            agent_args=args,
            bundled=is_bundle(),
        )


def is_bundle() -> bool:
    return bool(getattr(sys, "frozen", False))


def agent_command() -> tuple[str, tuple[str, ...]]:
    """`svc-app --agent`: in a bundle this very executable; from source the svc-app beside this
    Python (so the same interpreter runs it)."""
    if is_bundle():
        return sys.executable, ("--agent",)
    script = shutil.which("svc-app", path=str(Path(sys.executable).parent))
    if script:
        return script, ("--agent",)
    return sys.executable, ("-m", "host_app", "--agent")
