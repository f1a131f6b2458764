"""A throwaway PostgreSQL cluster for the key server's tests and benchmark.

Debian's `postgresql` package (installed by `make setup`) provides initdb, pg_ctl and postgres
under /usr/lib/postgresql/<version>/bin. The cluster lives in a fresh temporary folder, listens on
a unix socket in that folder (and, with `tcp=True`, on a free loopback port, the way processes on
other hosts reach it), trusts local connections, and is removed on `close`.
PostgreSQL refuses to run as root, so when we are root the folder belongs to `nobody` and every
server command runs as that user.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

import psycopg

UNPRIVILEGED_USER: Final = "nobody"
SUPERUSER: Final = "postgres"
# Durability is not what the tests measure; these keep every commit fast.
FAST: Final = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")
# What the benchmark runs with: data files synced, commits not waiting for their WAL flush (as the
# SQLite store's WAL with synchronous=NORMAL does not).
BENCH: Final = ("synchronous_commit=off",)


def postgres_bindir() -> Path:
    """The newest installed server's bin folder."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if not found:
        raise RuntimeError(
            "PostgreSQL server binaries not found under /usr/lib/postgresql "
            "(the Debian package postgresql; run make setup)"
        )
    return found[-1].parent


class PostgresCluster:
    """initdb + pg_ctl on a temporary folder; `url(dbname)` is what `svc-keyserver --db` takes."""

    def __init__(
        self, *, max_connections: int = 200, settings: tuple[str, ...] = FAST, tcp: bool = False
    ) -> None:
        self.bindir = postgres_bindir()
        self.root = Path(tempfile.mkdtemp(prefix="svc-pg-"))
        self.data = self.root / "data"
        self.log_path = self.root / "postgres.log"
        self.max_connections = max_connections
        self.settings = settings
        self.port = _free_port() if tcp else 5432
        self.tcp = tcp
        self._run_as: dict[str, Any] = {}
        if os.geteuid() == 0:
            user = pwd.getpwnam(UNPRIVILEGED_USER)
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._run_as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        self._command(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--no-sync",
        )

    def _command(self, name: str, *args: str) -> None:
        done = subprocess.run(
            [str(self.bindir / name), *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"},
            **self._run_as,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{name} failed ({done.returncode}):\n{done.stdout}{done.stderr}")

    @property
    def socket_dir(self) -> Path:
        return self.root

    def url(self, dbname: str = "postgres") -> str:
        """The unix socket's URL."""
        host = quote(str(self.socket_dir), safe="")
        return f"postgresql://{SUPERUSER}@/{dbname}?host={host}&port={self.port}"

    def tcp_url(self, dbname: str = "postgres") -> str:
        assert self.tcp, "the cluster listens on a unix socket only"
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def start(self) -> None:
        options = " ".join(
            [
                "-c listen_addresses=" + ("127.0.0.1" if self.tcp else "''"),
                f"-c port={self.port}",
                f"-c unix_socket_directories='{self.socket_dir}'",
                f"-c max_connections={self.max_connections}",
                *(f"-c {setting}" for setting in self.settings),
            ]
        )
        # -w: pg_ctl returns once the server accepts connections.
        self._command(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log_path), "-o", options, "-w", "start"
        )

    def stop(self) -> None:
        self._command("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def connect(self, dbname: str = "postgres") -> psycopg.Connection[tuple[Any, ...]]:
        return psycopg.connect(self.url(dbname), autocommit=True)

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        with self.connect() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def terminate_backends(self, dbname: str) -> int:
        """Cut every connection to `dbname` (as an administrator or a failover would)."""
        with self.connect() as conn:
            rows = conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (dbname,),
            ).fetchall()
        return len(rows)

    def close(self) -> None:
        try:
            if self.running():
                self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def running_cluster(**kwargs: Any) -> Iterator[PostgresCluster]:
    cluster = PostgresCluster(**kwargs)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()
