"""Run the key server: store, background verifier and hypercorn in one trio nursery.

The store is opened first, outside any nursery, so that a `--db` that cannot be opened ends the
process with one line (StoreOpenError, see __main__). SIGTERM or SIGINT triggers hypercorn's
graceful shutdown (in-flight requests finish, up to `graceful_timeout_s`), then the background
tasks are cancelled and the store closed.
"""

from __future__ import annotations

import logging
import signal
import time
from functools import partial
from pathlib import Path
from typing import cast

import hypercorn.config
import hypercorn.trio
import trio
from hypercorn.typing import ASGIFramework

from .app import KeyServerApp
from .config import Config, PostgresURL
from .store import SQLiteStore, Store
from .verifier import Verifier

log = logging.getLogger("keyserver")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def _hypercorn_config(config: Config) -> hypercorn.config.Config:
    hc = hypercorn.config.Config()
    hc.bind = [config.bind]
    hc.graceful_timeout = config.graceful_timeout_s
    # Hypercorn logs through the standard loggers that `main` configured, once.
    hc.accesslog = logging.getLogger("hypercorn.access") if config.access_log else None
    hc.errorlog = logging.getLogger("hypercorn.error")
    hc.include_server_header = False
    return hc


async def serve(
    config: Config,
    store: Store,
    shutdown: trio.Event,
    *,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until `shutdown` is set, then close `store`; `task_status.started` gets the bound
    URLs."""
    try:
        verifier = Verifier(config, store, now_ms)
        app = KeyServerApp(store, now_ms, verifier.schedule, config.public_url or "")
        async with trio.open_nursery() as background:
            await background.start(verifier.run)
            async with trio.open_nursery() as http:
                binds: list[str] = await http.start(
                    partial(
                        hypercorn.trio.serve,
                        cast("ASGIFramework", app),
                        _hypercorn_config(config),
                        shutdown_trigger=shutdown.wait,
                    )
                )
                # No request is handled before this task yields, so the default origin (which
                # needs the bound port when binding port 0) is in place for the first one.
                if not config.public_url:
                    app.public_url = binds[0]
                log.info("svc-keyserver listening on %s (public URL %s)", binds[0], app.public_url)
                task_status.started(binds)
            # hypercorn.serve returned: shutdown was triggered and in-flight requests finished.
            background.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await store.close()
    log.info("svc-keyserver stopped")


async def open_store(db: Path | PostgresURL, *, pool_size: int = 10) -> Store:
    """The store `--db` names, its schema created if missing; StoreOpenError when it cannot be
    opened."""
    if isinstance(db, Path):
        return SQLiteStore.open(db)
    # Imported here so that a server on SQLite never loads psycopg and libpq.
    from .pg_store import PostgresStore  # noqa: PLC0415

    return await PostgresStore.open(db, pool_size=pool_size)


async def _stop_on_signals(
    shutdown: trio.Event, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        task_status.started()
        async for signum in signals:
            log.info("received %s, shutting down", signal.Signals(signum).name)
            shutdown.set()
            return


async def main_async(config: Config) -> None:
    store = await open_store(config.db, pool_size=config.db_pool_size)
    shutdown = trio.Event()
    async with trio.open_nursery() as nursery:
        await nursery.start(_stop_on_signals, shutdown)
        await serve(config, store, shutdown)
        nursery.cancel_scope.cancel()
