"""The agent's one SQLite store (apsw): current schema only, validated at open.

WAL with synchronous=NORMAL: a committed transaction survives the process being killed (it is in
the OS's hands); only a power cut can lose the last ones. Every write the API reports done is
committed before the answer.

A file whose schema does not match is moved aside as a backup, a report is written next to it,
and a fresh store starts; the report stays visible in health's `database_recovery`.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw

from bridge_protocol import settings

HISTORY_LIMIT = 1000  # requests kept (with their events); older ones are pruned

SCHEMA: dict[str, str] = {
    "metadata": """CREATE TABLE metadata (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) STRICT""",
    "browser_profiles": f"""CREATE TABLE browser_profiles (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        profile TEXT NOT NULL,
        group_name TEXT,
        group_key TEXT,
        proxy_alias TEXT,
        {settings.columns()},
        lifetime_type TEXT NOT NULL,
        lifetime_timeout INTEGER,
        origin TEXT NOT NULL,
        network_paused INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
    ) STRICT""",
    "saved_profiles": f"""CREATE TABLE saved_profiles (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        proxy_alias TEXT,
        {settings.columns()},
        includes_cookies INTEGER NOT NULL,
        includes_passwords INTEGER NOT NULL,
        fingerprint_profile TEXT,
        created_at INTEGER NOT NULL
    ) STRICT""",
    "proxies": """CREATE TABLE proxies (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        alias TEXT NOT NULL,
        alias_key TEXT NOT NULL UNIQUE,
        upstream_host TEXT NOT NULL,
        upstream_port INTEGER NOT NULL,
        username TEXT,
        password TEXT,
        settings TEXT NOT NULL,
        created_at INTEGER NOT NULL
    ) STRICT""",
    "requests": """CREATE TABLE requests (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        session_id TEXT,
        url TEXT,
        created_at INTEGER NOT NULL,
        finished_at INTEGER,
        outcome TEXT,
        exit_code INTEGER,
        output_path TEXT,
        target_http_status INTEGER,
        traffic_bytes INTEGER NOT NULL DEFAULT 0,
        result TEXT
    ) STRICT""",
    "events": """CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        request_id TEXT NOT NULL,
        event TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL
    ) STRICT""",
}
INDEXES = ["CREATE INDEX events_request ON events(request_id)"]


def now_ms() -> int:
    return int(time.time() * 1000)


def _normalize_sql(sql: str) -> str:
    return " ".join(sql.split())


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.recovery: dict[str, Any] | None = None
        self._db = self._open()
        self.machine_id = self._machine_id()
        raw = self._meta("database_recovery")
        if raw is not None and self.recovery is None:
            self.recovery = json.loads(raw)

    # --- opening and validation ----------------------------------------------------------------

    def _connect(self) -> apsw.Connection:
        db = apsw.Connection(str(self.path))
        db.setbusytimeout(5000)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.wal_autocheckpoint(1000)
        return db

    def _open(self) -> apsw.Connection:
        try:
            db = self._connect()
            problems = self._schema_problems(db)
        except apsw.Error as exc:
            problems = [f"unreadable store: {exc}"]
            db = None
        if not problems:
            assert db is not None
            return db
        if db is not None:
            db.close()
        if problems == ["empty"]:
            db = self._connect()
            self._create(db)
            return db
        return self._recover(problems)

    def _schema_problems(self, db: apsw.Connection) -> list[str]:
        rows: dict[str, str] = {
            str(name): str(sql)
            for name, sql in db.execute(
                "SELECT name, sql FROM sqlite_master WHERE type='table' "
                "AND name NOT LIKE 'sqlite_%'"
            ).fetchall()
        }
        if not rows:
            return ["empty"]
        problems = []
        for name, sql in SCHEMA.items():
            if name not in rows:
                problems.append(f"missing table {name}")
            elif _normalize_sql(rows[name]) != _normalize_sql(sql):
                problems.append(f"table {name} does not match the current schema")
        problems += [f"unexpected table {name}" for name in rows if name not in SCHEMA]
        if not problems:
            check = db.execute("PRAGMA quick_check").fetchall()
            if check != [("ok",)]:
                problems.append(
                    "integrity check failed: " + "; ".join(str(r[0]) for r in check[:5])
                )
        return problems

    def _create(self, db: apsw.Connection) -> None:
        with db:
            for sql in SCHEMA.values():
                db.execute(sql)
            for sql in INDEXES:
                db.execute(sql)

    def _recover(self, problems: list[str]) -> apsw.Connection:
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        backup = self.path.with_name(f"{self.path.name}.backup-{stamp}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                src.rename(Path(str(backup) + suffix))
        report = self.path.with_name(f"{self.path.name}.recovery-{stamp}.json")
        report.write_text(json.dumps({"backup_path": str(backup), "problems": problems}, indent=2))
        db = self._connect()
        self._create(db)
        self.recovery = {
            "schema_version": 0,
            "backup_path": str(backup),
            "report_path": str(report),
            "issue_count": len(problems),
            "retained_sessions": 0,
        }
        with db:
            db.execute(
                "INSERT INTO metadata(key, value) VALUES('database_recovery', ?)",
                (json.dumps(self.recovery),),
            )
        return db

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM metadata WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def get_meta(self, key: str) -> str | None:
        """One `metadata` entry (e.g. `default_profile`), or None."""
        return self._meta(key)

    def set_meta(self, key: str, value: str | None) -> None:
        """Set or (with None) remove one `metadata` entry, committed before returning."""
        with self._db:
            if value is None:
                self._db.execute("DELETE FROM metadata WHERE key=?", (key,))
            else:
                self._db.execute(
                    "INSERT INTO metadata(key, value) VALUES(?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    (key, value),
                )

    def _machine_id(self) -> str:
        existing = self._meta("machine_id")
        if existing is not None:
            return existing
        value = str(uuid.uuid4()).upper()
        with self._db:
            self._db.execute("INSERT INTO metadata(key, value) VALUES('machine_id', ?)", (value,))
        return value

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[apsw.Connection]:
        with self._db:
            yield self._db

    def query(self, sql: str, args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        cursor = self._db.execute(sql, args)
        try:
            names = [d[0] for d in cursor.getdescription()]
        except apsw.ExecutionCompleteError:
            return []
        return [dict(zip(names, row, strict=True)) for row in cursor]

    def query_one(self, sql: str, args: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        rows = self.query(sql, args)
        return rows[0] if rows else None

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> int:
        """Run one statement in its own transaction; return the last inserted rowid."""
        with self._db:
            self._db.execute(sql, args)
            rowid = int(self._db.last_insert_rowid())
        return rowid

    def integrity_check(self) -> str:
        row = self._db.execute("PRAGMA integrity_check").fetchone()
        return "no result" if row is None else str(row[0])

    # --- request history -----------------------------------------------------------------------

    def record_request(
        self, request_id: str, kind: str, session_id: str | None, url: str | None
    ) -> None:
        with self._db:
            self._db.execute(
                "INSERT INTO requests(id, kind, session_id, url, created_at) VALUES(?,?,?,?,?)",
                (request_id, kind, session_id, url, now_ms()),
            )
            self._prune()

    def record_event(self, request_id: str, event: str, data: dict[str, Any]) -> None:
        self.execute(
            "INSERT INTO events(request_id, event, data, created_at) VALUES(?,?,?,?)",
            (request_id, event, json.dumps(data), now_ms()),
        )

    def finish_request(self, request_id: str, **fields: Any) -> None:
        allowed = {"outcome", "exit_code", "output_path", "target_http_status", "traffic_bytes"}
        cols = [k for k in fields if k in allowed]
        sets = ", ".join(f"{c}=?" for c in cols)
        result = json.dumps(fields.get("result")) if "result" in fields else None
        self.execute(
            f"UPDATE requests SET finished_at=?, result=?{', ' + sets if sets else ''} WHERE id=?",
            (now_ms(), result, *(fields[c] for c in cols), request_id),
        )

    def _prune(self) -> None:
        row = self._db.execute("SELECT max(seq) FROM requests").fetchone()
        top = row[0] if row and row[0] is not None else 0
        cutoff = top - HISTORY_LIMIT
        if cutoff > 0 and top % 100 == 0:
            self._db.execute(
                "DELETE FROM events WHERE request_id IN (SELECT id FROM requests WHERE seq <= ?)",
                (cutoff,),
            )
            self._db.execute("DELETE FROM requests WHERE seq <= ?", (cutoff,))
