"""The key server's configuration: one frozen object built once by the command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .users import ServiceURLs

DEFAULT_RECHECK_INTERVAL_S = 24 * 60 * 60
DEFAULT_CHECK_TIMEOUT_S = 10.0
TWITTER_TOKEN_ENV = "SVC_KEYSERVER_TWITTER_BEARER_TOKEN"
DEFAULT_DB_POOL_SIZE = 10


@dataclass(frozen=True, slots=True)
class PostgresURL:
    """A libpq connection URL (postgresql://user:password@host:port/dbname?param=value)."""

    url: str

    def redacted(self) -> str:
        """The URL with any password replaced, for logs and error lines."""
        scheme, sep, rest = self.url.partition("://")
        authority, slash, tail = rest.partition("/")
        userinfo, at, hostport = authority.rpartition("@")
        if at and ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        redacted = f"{scheme}{sep}{userinfo}{at}{hostport}{slash}{tail}"
        if "password=" in redacted:
            redacted = redacted.split("?", 1)[0] + "?..."
        return redacted


@dataclass(frozen=True, slots=True)
class Config:
    bind: str
    # A SQLite file (one process) or a PostgreSQL URL (any number of processes on one database).
    db: Path | PostgresURL
    # PostgreSQL: connections (and worker threads running statements) per process.
    db_pool_size: int = DEFAULT_DB_POOL_SIZE
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
