"""The key server's configuration: one frozen object built once by the command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .users import ServiceURLs

DEFAULT_RECHECK_INTERVAL_S = 24 * 60 * 60
DEFAULT_CHECK_TIMEOUT_S = 10.0
TWITTER_TOKEN_ENV = "SVC_KEYSERVER_TWITTER_BEARER_TOKEN"


@dataclass(frozen=True, slots=True)
class Config:
    bind: str
    db: Path
    # Origin clients sign against, e.g. "https://keys.example.org"; None: http://<bound address>.
    public_url: str | None = None
    services: ServiceURLs = field(default_factory=ServiceURLs)
    # Read at every twitter check, so the token can be rotated without a restart.
    twitter_bearer_token_file: Path | None = None
    twitter_bearer_token: str | None = None
    recheck_interval_s: float = DEFAULT_RECHECK_INTERVAL_S
    check_timeout_s: float = DEFAULT_CHECK_TIMEOUT_S
    check_concurrency: int = 4
    graceful_timeout_s: float = 5.0
    access_log: bool = False
