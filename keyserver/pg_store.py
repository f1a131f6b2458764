"""`Store` on PostgreSQL, shared by any number of key server processes on one or several hosts.

Driver: psycopg 3's blocking API, each store call run in a worker thread by
`trio.to_thread.run_sync` (psycopg's async API is built on asyncio and does not run under trio).
At most `pool_size` calls run at once per process, each on a connection of its own from a small
pool kept here; waiting for a turn happens in trio, where it is cancellable.

Concurrency between processes is decided by PostgreSQL inside each call's transaction (READ
COMMITTED), never by state in a process:

- vault append: one upsert of the vault row raises `last_idx` under the row lock, so concurrent
  appends to one vault are serialized, get consecutive index ranges, and see a delete that
  committed before them (they then store nothing);
- nonce: one INSERT .. ON CONFLICT that replaces only an expired row, so exactly one claim wins;
- sigchain: INSERT .. ON CONFLICT DO NOTHING on (kid, seq), so exactly one writer stores a seq;
- users: an upsert that never replaces a user from a later statement, a delete and a status
  update conditional on the statement seq they are about;
- re-checks: due users are leased to the one process that takes them (FOR UPDATE SKIP LOCKED).

This module is the one place psycopg's exceptions are translated: a failure to reach the server
or a connection lost mid-call (psycopg.OperationalError) becomes StoreUnavailable (HTTP 503); the
broken connection is dropped and the next call connects afresh, so the server recovers on its own
when the database comes back. Other database errors propagate (HTTP 500).
"""

from __future__ import annotations

import logging
import select
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, Final, TypeVar

import psycopg
import trio
from psycopg import pq
from psycopg.conninfo import conninfo_to_dict

from .config import PostgresURL
from .sigchain import ChainTip
from .store import (
    _USER_COLUMNS,
    _USER_UPDATE,
    StoredStatement,
    StoreOpenError,
    StoreUnavailable,
    UserRecord,
    VaultItem,
    VaultState,
    _statement,
    _user,
    _user_params,
)

log = logging.getLogger("keyserver.store")

T = TypeVar("T")
Conn = psycopg.Connection[tuple[Any, ...]]

# Connection parameters the URL may set; these when it does not. A connect gives up after 5 s; on
# TCP, data the server does not acknowledge within 30 s (a host gone without closing) and an idle
# connection whose peer stopped answering keepalives fail the connection instead of hanging.
CONNECT_DEFAULTS: Final = {"connect_timeout": 5, "tcp_user_timeout": 30_000, "keepalives_idle": 60}
# Taken for the schema transaction, so that processes starting together create it once.
_SCHEMA_LOCK: Final = 0x73766B73  # "svks"

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS nonces (
    nonce TEXT COLLATE "C" PRIMARY KEY,
    expires BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS nonces_expires ON nonces (expires);

CREATE TABLE IF NOT EXISTS vaults (
    kid TEXT COLLATE "C" PRIMARY KEY,
    last_idx BIGINT NOT NULL DEFAULT 0,
    -- The ts of the last append: items' ts never decrease along idx, whatever the hosts' clocks.
    last_ts BIGINT NOT NULL DEFAULT 0,
    deleted BOOLEAN NOT NULL DEFAULT false
);
CREATE TABLE IF NOT EXISTS vault_items (
    kid TEXT COLLATE "C" NOT NULL,
    idx BIGINT NOT NULL,
    data BYTEA NOT NULL,
    ts BIGINT NOT NULL,
    PRIMARY KEY (kid, idx)
);

CREATE TABLE IF NOT EXISTS statements (
    kid TEXT COLLATE "C" NOT NULL,
    seq BIGINT NOT NULL,
    raw BYTEA NOT NULL,
    hash BYTEA NOT NULL,
    revoke BIGINT NOT NULL,
    type TEXT NOT NULL,
    PRIMARY KEY (kid, seq)
);
CREATE TABLE IF NOT EXISTS kbx (
    kbx TEXT COLLATE "C" PRIMARY KEY,
    kid TEXT COLLATE "C" NOT NULL
);

-- Search is a case-sensitive prefix of id in code point order, as on SQLite: collation "C".
CREATE TABLE IF NOT EXISTS users (
    kid TEXT COLLATE "C" PRIMARY KEY,
    kbx TEXT NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    name TEXT NOT NULL,
    service TEXT NOT NULL,
    seq BIGINT NOT NULL,
    url TEXT NOT NULL,
    status TEXT COLLATE "C" NOT NULL,
    ts BIGINT NOT NULL,
    verified_at BIGINT NOT NULL,
    err TEXT NOT NULL,
    -- Until then the user's re-check belongs to the process that took it (users_due).
    check_after BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS users_status_id ON users (status, id, kid);
CREATE INDEX IF NOT EXISTS users_ts ON users (ts);
"""


def one_line(exc: BaseException) -> str:
    """A libpq message (often several lines with hints) as one line."""
    text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    return text or type(exc).__name__


def _prefix_end(prefix: str) -> str | None:
    """The least string above every string that starts with `prefix` (code point order), or None
    when there is none."""
    while prefix:
        last = ord(prefix[-1]) + 1
        if last == 0xD800:  # surrogates cannot be stored; the next code point is U+E000
            last = 0xE000
        if last <= 0x10FFFF:
            return prefix[:-1] + chr(last)
        prefix = prefix[:-1]
    return None


def check_url(db: PostgresURL) -> dict[str, Any]:
    """The URL's connection parameters; StoreOpenError (one line) when libpq would refuse it."""
    try:
        return conninfo_to_dict(db.url)
    except psycopg.ProgrammingError as exc:
        raise StoreOpenError(f"invalid PostgreSQL URL {db.redacted()}: {one_line(exc)}") from None


class _Connections:
    """Idle connections for reuse by worker threads; the caller bounds how many are in use."""

    def __init__(self, conninfo: str, defaults: dict[str, Any]) -> None:
        self._conninfo = conninfo
        self._defaults = defaults
        self._idle: list[Conn] = []
        self._lock = threading.Lock()
        self._closed = False

    def connect(self) -> Conn:
        conn: Conn = psycopg.connect(self._conninfo, autocommit=True, **self._defaults)
        return conn

    @staticmethod
    def _usable(conn: Conn) -> bool:
        """An idle connection is usable when nothing arrived on its socket since its last call:
        a server that ended it (restart, pg_terminate_backend, idle timeout) has sent an error or
        closed the socket. No round trip."""
        if conn.closed or conn.broken:
            return False
        try:
            poller = select.poll()  # not select.select: no limit on the descriptor's number
            poller.register(conn.fileno(), select.POLLIN)
            return not poller.poll(0)
        except (OSError, ValueError, psycopg.Error):
            return False

    @contextmanager
    def connection(self) -> Iterator[Conn]:
        conn: Conn | None = None
        with self._lock:
            while self._idle:
                candidate = self._idle.pop()
                if self._usable(candidate):
                    conn = candidate
                    break
                candidate.close()
        if conn is None:
            conn = self.connect()
        try:
            yield conn
        finally:
            keep = (
                not conn.closed
                and not conn.broken
                and conn.info.transaction_status == pq.TransactionStatus.IDLE
            )
            with self._lock:
                if keep and not self._closed:
                    self._idle.append(conn)
                    conn = None
            if conn is not None:
                conn.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


class PostgresStore:
    """`Store` on one PostgreSQL database. Build with `await PostgresStore.open(url)`."""

    def __init__(self, connections: _Connections, pool_size: int) -> None:
        self._connections = connections
        self._limiter = trio.CapacityLimiter(pool_size)

    @classmethod
    async def open(cls, db: PostgresURL, *, pool_size: int = 10) -> PostgresStore:
        """Connect once, create the schema if missing; StoreOpenError (one line) otherwise."""
        params = check_url(db)
        defaults = {k: v for k, v in CONNECT_DEFAULTS.items() if k not in params}
        connections = _Connections(db.url, defaults)
        try:
            await trio.to_thread.run_sync(partial(_create_schema, connections))
        except psycopg.Error as exc:
            connections.close()
            raise StoreOpenError(
                f"cannot open the PostgreSQL database {db.redacted()}: {one_line(exc)}"
            ) from None
        log.info("store: PostgreSQL %s (up to %d connections)", db.redacted(), pool_size)
        return cls(connections, pool_size)

    async def close(self) -> None:
        # Called once the server's tasks ended: no call is running (a worker thread is never
        # abandoned), so every connection is idle.
        self._connections.close()

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(conn, *args)` on a pooled connection in a worker thread."""
        return await trio.to_thread.run_sync(
            partial(self._in_connection, fn, *args), limiter=self._limiter
        )

    def _in_connection(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            with self._connections.connection() as conn:
                return fn(conn, *args)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(one_line(exc)) from exc

    # Replay protection

    async def claim_nonce(self, nonce: str, now_ms: int, ttl_ms: int) -> bool:
        return await self._call(_claim_nonce, nonce, now_ms, ttl_ms)

    async def purge_nonces(self, now_ms: int) -> int:
        return await self._call(_purge_nonces, now_ms)

    # Vault

    async def vault_state(self, kid: str) -> str:
        return await self._call(_vault_state, kid)

    async def vault_append(self, kid: str, items: Sequence[bytes], ts: int) -> int | None:
        return await self._call(_vault_append, kid, list(items), ts)

    async def vault_list(self, kid: str, after: int, limit: int) -> list[VaultItem]:
        return await self._call(_vault_list, kid, after, limit)

    async def vault_delete(self, kid: str) -> bool:
        return await self._call(_vault_delete, kid)

    # Sigchain

    async def sigchain_tip(self, kid: str) -> ChainTip | None:
        return await self._call(_sigchain_tip, kid)

    async def statement(self, kid: str, seq: int) -> StoredStatement | None:
        return await self._call(_statement_get, kid, seq)

    async def statements(self, kid: str) -> list[StoredStatement]:
        return await self._call(_statements, kid)

    async def statement_append(self, kid: str, kbx: str, st: StoredStatement) -> bool:
        return await self._call(_statement_append, kid, kbx, st)

    async def kid_for_kbx(self, kbx: str) -> str | None:
        return await self._call(_kid_for_kbx, kbx)

    # Users

    async def user_get(self, kid: str) -> UserRecord | None:
        return await self._call(_user_get, kid)

    async def user_put(self, record: UserRecord) -> None:
        await self._call(_user_put, record)

    async def user_delete(self, kid: str, seq: int) -> None:
        await self._call(_user_delete, kid, seq)

    async def user_set_status(
        self, kid: str, seq: int, *, status: str, ts: int, verified_at: int, err: str
    ) -> bool:
        fn = partial(_user_set_status, status=status, ts=ts, verified_at=verified_at, err=err)
        return await self._call(fn, kid, seq)

    async def users_with_id(self, user_id: str, status: str) -> list[UserRecord]:
        return await self._call(_users_with_id, user_id, status)

    async def users_search(self, prefix: str, status: str, limit: int) -> list[UserRecord]:
        return await self._call(_users_search, prefix, status, limit)

    async def users_due(
        self, checked_before: int, limit: int, *, now_ms: int, lease_ms: int
    ) -> list[UserRecord]:
        return await self._call(_users_due, checked_before, limit, now_ms, now_ms + lease_ms)


# The calls, each on one connection in a worker thread. Connections are in autocommit mode: a
# single statement is its own transaction; several run in `conn.transaction()`.


def _create_schema(connections: _Connections) -> None:
    with connections.connect() as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        conn.execute(_SCHEMA)


def _claim_nonce(conn: Conn, nonce: str, now_ms: int, ttl_ms: int) -> bool:
    # Inserts a new nonce or replaces an expired one; a live one makes no row.
    row = conn.execute(
        "INSERT INTO nonces (nonce, expires) VALUES (%s, %s)"
        " ON CONFLICT (nonce) DO UPDATE SET expires = excluded.expires"
        " WHERE nonces.expires <= %s RETURNING 1",
        (nonce, now_ms + ttl_ms, now_ms),
    ).fetchone()
    return row is not None


def _purge_nonces(conn: Conn, now_ms: int) -> int:
    return conn.execute("DELETE FROM nonces WHERE expires <= %s", (now_ms,)).rowcount


def _vault_state(conn: Conn, kid: str) -> str:
    row = conn.execute("SELECT deleted FROM vaults WHERE kid = %s", (kid,)).fetchone()
    if row is None:
        return VaultState.MISSING
    return VaultState.DELETED if row[0] else VaultState.ACTIVE


def _vault_append(conn: Conn, kid: str, items: list[bytes], ts: int) -> int | None:
    with conn.transaction():
        # Raising last_idx locks the vault's row until commit: appends to one vault take turns,
        # each after the previous one's range and no earlier in time; a deleted vault makes no
        # row.
        row = conn.execute(
            "INSERT INTO vaults AS v (kid, last_idx, last_ts) VALUES (%s, %s, %s)"
            " ON CONFLICT (kid) DO UPDATE SET last_idx = v.last_idx + excluded.last_idx,"
            " last_ts = GREATEST(v.last_ts, excluded.last_ts)"
            " WHERE NOT v.deleted RETURNING v.last_idx, v.last_ts",
            (kid, len(items), ts),
        ).fetchone()
        if row is None:
            return None
        last, ts = int(row[0]), int(row[1])
        conn.execute(
            "INSERT INTO vault_items (kid, idx, data, ts)"
            " SELECT %s, %s + n, data, %s FROM unnest(%s::bytea[]) WITH ORDINALITY AS t(data, n)",
            (kid, last - len(items), ts, items),
            binary=True,
        )
        return last


def _vault_list(conn: Conn, kid: str, after: int, limit: int) -> list[VaultItem]:
    rows = conn.execute(
        "SELECT idx, data, ts FROM vault_items WHERE kid = %s AND idx > %s ORDER BY idx LIMIT %s",
        (kid, after, limit),
        binary=True,
    ).fetchall()
    return [VaultItem(idx=int(idx), data=bytes(data), ts=int(ts)) for idx, data, ts in rows]


def _vault_delete(conn: Conn, kid: str) -> bool:
    """Mark the vault deleted (under its row lock, after any append in progress), then remove its
    items; True when it had items."""
    with conn.transaction():
        conn.execute(
            "INSERT INTO vaults AS v (kid, deleted) VALUES (%s, true)"
            " ON CONFLICT (kid) DO UPDATE SET deleted = true",
            (kid,),
        )
        return conn.execute("DELETE FROM vault_items WHERE kid = %s", (kid,)).rowcount > 0


def _sigchain_tip(conn: Conn, kid: str) -> ChainTip | None:
    row = conn.execute(
        "SELECT seq, hash FROM statements WHERE kid = %s ORDER BY seq DESC LIMIT 1", (kid,)
    ).fetchone()
    if row is None:
        return None
    return ChainTip(seq=int(row[0]), hash=bytes(row[1]))


def _statement_get(conn: Conn, kid: str, seq: int) -> StoredStatement | None:
    row = conn.execute(
        "SELECT seq, raw, hash, revoke, type FROM statements WHERE kid = %s AND seq = %s",
        (kid, seq),
    ).fetchone()
    return None if row is None else _statement(row)


def _statements(conn: Conn, kid: str) -> list[StoredStatement]:
    rows = conn.execute(
        "SELECT seq, raw, hash, revoke, type FROM statements WHERE kid = %s ORDER BY seq", (kid,)
    ).fetchall()
    return [_statement(row) for row in rows]


def _statement_append(conn: Conn, kid: str, kbx: str, st: StoredStatement) -> bool:
    """Store a statement; False when that seq already exists (a concurrent writer of the same seq
    waits for the first one's commit, then finds it)."""
    with conn.transaction():
        row = conn.execute(
            "INSERT INTO statements (kid, seq, raw, hash, revoke, type)"
            " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (kid, seq) DO NOTHING RETURNING 1",
            (kid, st.seq, st.raw, st.hash, st.revoke, st.type),
        ).fetchone()
        if row is None:
            return False
        conn.execute(
            "INSERT INTO kbx (kbx, kid) VALUES (%s, %s) ON CONFLICT (kbx) DO NOTHING", (kbx, kid)
        )
        return True


def _kid_for_kbx(conn: Conn, kbx: str) -> str | None:
    row = conn.execute("SELECT kid FROM kbx WHERE kbx = %s", (kbx,)).fetchone()
    return None if row is None else str(row[0])


def _user_get(conn: Conn, kid: str) -> UserRecord | None:
    row = conn.execute(f"SELECT {_USER_COLUMNS} FROM users WHERE kid = %s", (kid,)).fetchone()
    return None if row is None else _user(row)


def _user_put(conn: Conn, record: UserRecord) -> None:
    conn.execute(
        f"INSERT INTO users (id, {_USER_COLUMNS})"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
        f" ON CONFLICT (kid) DO UPDATE SET {_USER_UPDATE} WHERE excluded.seq >= users.seq",
        _user_params(record),
    )


def _user_delete(conn: Conn, kid: str, seq: int) -> None:
    conn.execute("DELETE FROM users WHERE kid = %s AND seq = %s", (kid, seq))


def _user_set_status(
    conn: Conn, kid: str, seq: int, *, status: str, ts: int, verified_at: int, err: str
) -> bool:
    cur = conn.execute(
        # The result ends the re-check's lease (users_due).
        "UPDATE users SET status = %s, ts = %s, verified_at = %s, err = %s, check_after = 0"
        " WHERE kid = %s AND seq = %s",
        (status, ts, verified_at, err.replace("\x00", "\ufffd"), kid, seq),
    )
    return cur.rowcount > 0


def _users_with_id(conn: Conn, user_id: str, status: str) -> list[UserRecord]:
    rows = conn.execute(
        f"SELECT {_USER_COLUMNS} FROM users WHERE status = %s AND id = %s ORDER BY kid",
        (status, user_id),
    ).fetchall()
    return [_user(row) for row in rows]


def _users_search(conn: Conn, prefix: str, status: str, limit: int) -> list[UserRecord]:
    """Users whose `name@service` starts with `prefix` (case-sensitive), sorted by it: the index
    range [prefix, _prefix_end(prefix))."""
    end = _prefix_end(prefix)
    rows = conn.execute(
        f"SELECT {_USER_COLUMNS} FROM users WHERE status = %s AND id >= %s"
        + (" AND id < %s" if end is not None else "")
        + " AND starts_with(id, %s) ORDER BY id, kid LIMIT %s",
        (status, prefix, *([end] if end is not None else []), prefix, limit),
    ).fetchall()
    return [_user(row) for row in rows]


def _users_due(
    conn: Conn, checked_before: int, limit: int, now_ms: int, lease_until: int
) -> list[UserRecord]:
    """Take the lease of the oldest due users nobody holds (rows another process is taking are
    skipped, not waited for): each re-check is made by one process."""
    rows = conn.execute(
        f"UPDATE users SET check_after = %s WHERE kid IN ("
        " SELECT kid FROM users WHERE ts < %s AND check_after <= %s"
        " ORDER BY ts LIMIT %s FOR UPDATE SKIP LOCKED"
        f") RETURNING {_USER_COLUMNS}",
        (lease_until, checked_before, now_ms, limit),
    ).fetchall()
    return sorted((_user(row) for row in rows), key=lambda u: (u.ts, u.kid))
