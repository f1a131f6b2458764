"""`svc-keyserver`: the command line of the key server."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import platformdirs
import trio

from .config import (
    DEFAULT_CHECK_TIMEOUT_S,
    DEFAULT_DB_POOL_SIZE,
    DEFAULT_RECHECK_INTERVAL_S,
    TWITTER_TOKEN_ENV,
    Config,
    PostgresURL,
)
from .server import main_async
from .store import StoreOpenError
from .users import ServiceURLs


def _default_db() -> Path:
    data_dir = os.environ.get("SVC_DATA_DIR") or platformdirs.user_data_dir("svc")
    return Path(data_dir) / "keyserver.sqlite3"


def _origin(value: str) -> str:
    value = value.rstrip("/")
    if not value.startswith(("http://", "https://")):
        raise argparse.ArgumentTypeError(f"expected an http(s) URL, got {value!r}")
    return value


_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def _db(value: str) -> Path | PostgresURL:
    """A postgresql:// URL, or else a SQLite file path; any other URL scheme is refused."""
    if value.startswith(_POSTGRES_SCHEMES):
        # Imported here so that a server on SQLite never loads psycopg and libpq.
        from .pg_store import check_url  # noqa: PLC0415

        db = PostgresURL(value)
        try:
            check_url(db)
        except StoreOpenError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return db
    scheme, sep, _ = value.partition("://")
    if sep and scheme.isalnum():
        raise argparse.ArgumentTypeError(
            f"unsupported database URL scheme {scheme!r}: expected a SQLite file path or a "
            "postgresql:// URL"
        )
    return Path(value)


def _pool_size(value: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= 1000:
        raise argparse.ArgumentTypeError(f"expected an integer from 1 to 1000, got {value!r}")
    return int(value)


def _positive(value: str) -> float:
    number = float(value)
    if number <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {value!r}")
    return number


def build_parser() -> argparse.ArgumentParser:
    defaults = ServiceURLs()
    p = argparse.ArgumentParser(
        prog="svc-keyserver",
        description="Key server: vault, sigchain and user search for keys.pub clients.",
    )
    p.add_argument("--bind", default="127.0.0.1:8080", help="HOST:PORT to listen on (port 0: any)")
    p.add_argument(
        "--db",
        type=_db,
        default=None,
        help="SQLite database file (one process), or a postgresql://user@host/dbname URL shared by "
        "any number of server processes (schema created on first start)",
    )
    p.add_argument(
        "--db-pool-size",
        type=_pool_size,
        default=DEFAULT_DB_POOL_SIZE,
        help=f"PostgreSQL connections per process (default {DEFAULT_DB_POOL_SIZE})",
    )
    p.add_argument(
        "--public-url",
        type=_origin,
        default=None,
        help="origin clients sign requests against (default: http://<bound address>)",
    )
    p.add_argument("--github-api-url", type=_origin, default=defaults.github_api)
    p.add_argument("--reddit-url", type=_origin, default=defaults.reddit)
    p.add_argument("--twitter-api-url", type=_origin, default=defaults.twitter_api)
    p.add_argument(
        "--https-base-url",
        type=_origin,
        default=None,
        help="fetch https proofs from this origin with Host: <domain> (default: the domain itself)",
    )
    p.add_argument(
        "--twitter-bearer-token-file",
        type=Path,
        default=None,
        help=f"file holding the Twitter API v2 bearer token, read at each check "
        f"(else ${TWITTER_TOKEN_ENV})",
    )
    p.add_argument(
        "--recheck-interval",
        type=_positive,
        default=DEFAULT_RECHECK_INTERVAL_S,
        help="seconds between re-checks of each user's proof (default: one day)",
    )
    p.add_argument("--check-timeout", type=_positive, default=DEFAULT_CHECK_TIMEOUT_S)
    p.add_argument("--access-log", action="store_true", help="log every request")
    p.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return p


def config_from_args(args: argparse.Namespace) -> Config:
    return Config(
        bind=args.bind,
        db=args.db or _default_db(),
        db_pool_size=args.db_pool_size,
        public_url=args.public_url,
        services=ServiceURLs(
            github_api=args.github_api_url,
            reddit=args.reddit_url,
            twitter_api=args.twitter_api_url,
            https_base=args.https_base_url,
        ),
        twitter_bearer_token_file=args.twitter_bearer_token_file,
        twitter_bearer_token=os.environ.get(TWITTER_TOKEN_ENV) or None,
        recheck_interval_s=args.recheck_interval,
        check_timeout_s=args.check_timeout,
        access_log=args.access_log,
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        trio.run(main_async, config_from_args(args))
    except StoreOpenError as exc:
        print(f"svc-keyserver: error: {exc}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
