"""The key server's storage: a small interface (`Store`) and its embedded SQLite implementation.
The shared PostgreSQL store is `pg_store.py`, built on the types and rows here; `server.open_store`
picks the backend for `--db` (a file: SQLite; a postgresql:// URL: PostgreSQL).

Every method is one short transaction. Each write that other processes sharing the database could
race with decides inside its own transaction (vault index, nonce, statement seq, user seq), so any
number of server processes on one PostgreSQL database keep the rules one process keeps. SQLite
methods run on the server's trio thread (a local file answers in microseconds); PostgreSQL ones
in worker threads. Times are Unix milliseconds.

Errors: `StoreUnavailable` (the database cannot be reached now: HTTP 503, retry later) and
`StoreOpenError` (the `--db` given cannot be opened at start: one line, exit 1). Anything else a
backend raises is a bug or a broken schema (HTTP 500, logged).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

import apsw

from .sigchain import ChainTip


class StoreUnavailable(Exception):
    """The database cannot be reached right now (connection refused or lost); the request may be
    retried. The message says why, for the log."""


class StoreOpenError(Exception):
    """The configured database cannot be opened or prepared; the message is one line for the
    operator."""


@dataclass(frozen=True, slots=True)
class VaultItem:
    idx: int
    data: bytes
    ts: int


class VaultState:
    MISSING: Final = "missing"  # never written
    ACTIVE: Final = "active"
    DELETED: Final = "deleted"


@dataclass(frozen=True, slots=True)
class StoredStatement:
    seq: int
    raw: bytes
    hash: bytes
    revoke: int
    type: str


@dataclass(frozen=True, slots=True)
class UserRecord:
    kid: str
    kbx: str
    name: str
    service: str
    seq: int
    url: str
    status: str
    ts: int  # when the status was last set
    verified_at: int  # when the status was last ok (0: never)
    err: str

    @property
    def id(self) -> str:
        return f"{self.name}@{self.service}"


class Store(Protocol):
    # Replay protection
    async def claim_nonce(self, nonce: str, now_ms: int, ttl_ms: int) -> bool: ...
    async def purge_nonces(self, now_ms: int) -> int: ...

    # Vault
    async def vault_state(self, kid: str) -> str: ...
    async def vault_append(self, kid: str, items: Sequence[bytes], ts: int) -> int | None: ...
    async def vault_list(self, kid: str, after: int, limit: int) -> list[VaultItem]: ...
    async def vault_delete(self, kid: str) -> bool: ...

    # Sigchain
    async def sigchain_tip(self, kid: str) -> ChainTip | None: ...
    async def statement(self, kid: str, seq: int) -> StoredStatement | None: ...
    async def statements(self, kid: str) -> list[StoredStatement]: ...
    async def statement_append(self, kid: str, kbx: str, st: StoredStatement) -> bool: ...
    async def kid_for_kbx(self, kbx: str) -> str | None: ...

    # Users
    async def user_get(self, kid: str) -> UserRecord | None: ...
    async def user_put(self, record: UserRecord) -> None: ...
    async def user_delete(self, kid: str, seq: int) -> None: ...
    async def user_set_status(
        self, kid: str, seq: int, *, status: str, ts: int, verified_at: int, err: str
    ) -> bool: ...
    async def users_with_id(self, user_id: str, status: str) -> list[UserRecord]: ...
    async def users_search(self, prefix: str, status: str, limit: int) -> list[UserRecord]: ...
    async def users_due(
        self, checked_before: int, limit: int, *, now_ms: int, lease_ms: int
    ) -> list[UserRecord]:
        """Users whose status was last set before `checked_before`, oldest first. A store shared
        by several processes hands each one out once per `lease_ms`, so that one process checks
        it; a store of one process may return it at every call (the verifier skips a user it is
        already checking)."""
        ...

    async def close(self) -> None: ...


_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS nonces (
    nonce TEXT PRIMARY KEY,
    expires INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS nonces_expires ON nonces (expires);

CREATE TABLE IF NOT EXISTS vaults (
    kid TEXT PRIMARY KEY,
    last_idx INTEGER NOT NULL DEFAULT 0,
    deleted INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vault_items (
    kid TEXT NOT NULL,
    idx INTEGER NOT NULL,
    data BLOB NOT NULL,
    ts INTEGER NOT NULL,
    PRIMARY KEY (kid, idx)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS statements (
    kid TEXT NOT NULL,
    seq INTEGER NOT NULL,
    raw BLOB NOT NULL,
    hash BLOB NOT NULL,
    revoke INTEGER NOT NULL,
    type TEXT NOT NULL,
    PRIMARY KEY (kid, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kbx (
    kbx TEXT PRIMARY KEY,
    kid TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS users (
    kid TEXT PRIMARY KEY,
    kbx TEXT NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    service TEXT NOT NULL,
    seq INTEGER NOT NULL,
    url TEXT NOT NULL,
    status TEXT NOT NULL,
    ts INTEGER NOT NULL,
    verified_at INTEGER NOT NULL,
    err TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS users_status_id ON users (status, id, kid);
CREATE INDEX IF NOT EXISTS users_ts ON users (ts);
"""

_USER_COLUMNS: Final = "kid, kbx, name, service, seq, url, status, ts, verified_at, err"


_USER_UPDATE: Final = ", ".join(
    f"{c} = excluded.{c}" for c in ["id", *_USER_COLUMNS.split(", ")] if c != "kid"
)


def _user_params(record: UserRecord) -> tuple[str | int, ...]:
    """The values of `id, <_USER_COLUMNS>`."""
    return (
        record.id,
        record.kid,
        record.kbx,
        record.name,
        record.service,
        record.seq,
        record.url,
        record.status,
        record.ts,
        record.verified_at,
        record.err,
    )


def _user(row: Sequence[Any]) -> UserRecord:
    kid, kbx, name, service, seq, url, status, ts, verified_at, err = row
    return UserRecord(
        kid=str(kid),
        kbx=str(kbx),
        name=str(name),
        service=str(service),
        seq=int(seq),
        url=str(url),
        status=str(status),
        ts=int(ts),
        verified_at=int(verified_at),
        err=str(err),
    )


class SQLiteStore:
    """`Store` on one apsw connection (WAL journal, synchronous=NORMAL)."""

    def __init__(self, path: str | Path) -> None:
        self._db = apsw.Connection(str(path))
        self._db.set_busy_timeout(5000)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        with self._db:
            self._db.execute(_SCHEMA)

    @classmethod
    def open(cls, path: Path) -> SQLiteStore:
        """The store in the file `path`, its folder and schema created if missing; StoreOpenError
        (one line) when it cannot be opened."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return cls(path)
        except (OSError, apsw.Error) as exc:
            raise StoreOpenError(f"cannot open the SQLite database {path}: {exc}") from None

    @contextmanager
    def _tx(self) -> Iterator[apsw.Cursor]:
        with self._db:
            yield self._db.cursor()

    async def close(self) -> None:
        self._db.close()

    # Replay protection

    async def claim_nonce(self, nonce: str, now_ms: int, ttl_ms: int) -> bool:
        with self._tx() as cur:
            row = cur.execute("SELECT expires FROM nonces WHERE nonce = ?", (nonce,)).fetchone()
            if row is not None and int(row[0]) > now_ms:
                return False
            cur.execute(
                "INSERT OR REPLACE INTO nonces (nonce, expires) VALUES (?, ?)",
                (nonce, now_ms + ttl_ms),
            )
            return True

    async def purge_nonces(self, now_ms: int) -> int:
        with self._tx() as cur:
            cur.execute("DELETE FROM nonces WHERE expires <= ?", (now_ms,))
            return self._db.changes()

    # Vault

    async def vault_state(self, kid: str) -> str:
        row = self._db.execute("SELECT deleted FROM vaults WHERE kid = ?", (kid,)).fetchone()
        if row is None:
            return VaultState.MISSING
        return VaultState.DELETED if row[0] else VaultState.ACTIVE

    async def vault_append(self, kid: str, items: Sequence[bytes], ts: int) -> int | None:
        """Append in order after the vault's last index; returns the new last index, or None when
        the vault was deleted (nothing is stored)."""
        with self._tx() as cur:
            row = cur.execute(
                "SELECT last_idx, deleted FROM vaults WHERE kid = ?", (kid,)
            ).fetchone()
            if row is not None and row[1]:
                return None
            last = int(row[0]) if row is not None else 0
            cur.executemany(
                "INSERT INTO vault_items (kid, idx, data, ts) VALUES (?, ?, ?, ?)",
                [(kid, last + i, data, ts) for i, data in enumerate(items, start=1)],
            )
            last += len(items)
            cur.execute(
                "INSERT INTO vaults (kid, last_idx) VALUES (?, ?)"
                " ON CONFLICT (kid) DO UPDATE SET last_idx = excluded.last_idx",
                (kid, last),
            )
            return last

    async def vault_list(self, kid: str, after: int, limit: int) -> list[VaultItem]:
        return [
            VaultItem(idx=int(idx), data=bytes(data), ts=int(ts))
            for idx, data, ts in self._db.execute(
                "SELECT idx, data, ts FROM vault_items WHERE kid = ? AND idx > ?"
                " ORDER BY idx LIMIT ?",
                (kid, after, limit),
            )
        ]

    async def vault_delete(self, kid: str) -> bool:
        """Mark the vault deleted, then remove its items; True when it had items."""
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO vaults (kid, deleted) VALUES (?, 1)"
                " ON CONFLICT (kid) DO UPDATE SET deleted = 1",
                (kid,),
            )
            cur.execute("DELETE FROM vault_items WHERE kid = ?", (kid,))
            return self._db.changes() > 0

    # Sigchain

    async def sigchain_tip(self, kid: str) -> ChainTip | None:
        row = self._db.execute(
            "SELECT seq, hash FROM statements WHERE kid = ? ORDER BY seq DESC LIMIT 1", (kid,)
        ).fetchone()
        if row is None:
            return None
        return ChainTip(seq=int(row[0]), hash=bytes(row[1]))

    async def statement(self, kid: str, seq: int) -> StoredStatement | None:
        row = self._db.execute(
            "SELECT seq, raw, hash, revoke, type FROM statements WHERE kid = ? AND seq = ?",
            (kid, seq),
        ).fetchone()
        return None if row is None else _statement(row)

    async def statements(self, kid: str) -> list[StoredStatement]:
        return [
            _statement(row)
            for row in self._db.execute(
                "SELECT seq, raw, hash, revoke, type FROM statements WHERE kid = ? ORDER BY seq",
                (kid,),
            )
        ]

    async def statement_append(self, kid: str, kbx: str, st: StoredStatement) -> bool:
        """Store a statement; False when that seq already exists."""
        with self._tx() as cur:
            try:
                cur.execute(
                    "INSERT INTO statements (kid, seq, raw, hash, revoke, type)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (kid, st.seq, st.raw, st.hash, st.revoke, st.type),
                )
            except apsw.ConstraintError:
                return False
            cur.execute("INSERT OR IGNORE INTO kbx (kbx, kid) VALUES (?, ?)", (kbx, kid))
            return True

    async def kid_for_kbx(self, kbx: str) -> str | None:
        row = self._db.execute("SELECT kid FROM kbx WHERE kbx = ?", (kbx,)).fetchone()
        return None if row is None else str(row[0])

    # Users

    async def user_get(self, kid: str) -> UserRecord | None:
        row = self._db.execute(
            f"SELECT {_USER_COLUMNS} FROM users WHERE kid = ?", (kid,)
        ).fetchone()
        return None if row is None else _user(row)

    async def user_put(self, record: UserRecord) -> None:
        """Store the key's user, unless a user from a later statement of that key is stored."""
        with self._tx() as cur:
            cur.execute(
                f"INSERT INTO users (id, {_USER_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                f" ON CONFLICT (kid) DO UPDATE SET {_USER_UPDATE} WHERE excluded.seq >= users.seq",
                _user_params(record),
            )

    async def user_delete(self, kid: str, seq: int) -> None:
        """Remove the key's user if it is still the one of statement `seq`."""
        with self._tx() as cur:
            cur.execute("DELETE FROM users WHERE kid = ? AND seq = ?", (kid, seq))

    async def user_set_status(
        self, kid: str, seq: int, *, status: str, ts: int, verified_at: int, err: str
    ) -> bool:
        """Record a check's result, unless the user changed (other seq) while it ran."""
        with self._tx() as cur:
            cur.execute(
                "UPDATE users SET status = ?, ts = ?, verified_at = ?, err = ?"
                " WHERE kid = ? AND seq = ?",
                (status, ts, verified_at, err, kid, seq),
            )
            return self._db.changes() > 0

    async def users_with_id(self, user_id: str, status: str) -> list[UserRecord]:
        return [
            _user(row)
            for row in self._db.execute(
                f"SELECT {_USER_COLUMNS} FROM users WHERE status = ? AND id = ? ORDER BY kid",
                (status, user_id),
            )
        ]

    async def users_search(self, prefix: str, status: str, limit: int) -> list[UserRecord]:
        """Users whose `name@service` starts with `prefix` (case-sensitive), sorted by it."""
        rows = self._db.execute(
            f"SELECT {_USER_COLUMNS} FROM users WHERE status = ? AND id >= ? ORDER BY id, kid",
            (status, prefix),
        )
        found: list[UserRecord] = []
        try:
            for row in rows:
                record = _user(row)
                if len(found) >= limit or not record.id.startswith(prefix):
                    break
                found.append(record)
        finally:
            rows.close()
        return found

    async def users_due(
        self, checked_before: int, limit: int, *, now_ms: int, lease_ms: int
    ) -> list[UserRecord]:
        # One process per SQLite file: no lease to take.
        return [
            _user(row)
            for row in self._db.execute(
                f"SELECT {_USER_COLUMNS} FROM users WHERE ts < ? ORDER BY ts LIMIT ?",
                (checked_before, limit),
            )
        ]


def _statement(row: Sequence[Any]) -> StoredStatement:
    seq, raw, hash_, revoke, type_ = row
    return StoredStatement(
        seq=int(seq),
        raw=bytes(raw),
        hash=bytes(hash_),
        revoke=int(revoke),
        type=str(type_),
    )
