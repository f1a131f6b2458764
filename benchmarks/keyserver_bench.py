"""Key server throughput over real HTTP on loopback.

First, one process on SQLite driven sequentially over one keep-alive connection, each figure beside
the raw SQLite rate of the same rows in the same run: vault POST of 500 items, vault GET of 1,000
items, sigchain PUT.

Then the scaling table (issue 19): the same three requests from CLIENTS concurrent clients, each on
its own vault and sigchain, spread round-robin over 1, 2 and 4 `svc-keyserver` processes sharing one
PostgreSQL database (a throwaway cluster, synchronous_commit=off as SQLite's WAL with
synchronous=NORMAL), beside one process on SQLite under the same load. The processes share
`--public-url`, as behind a load balancer. Every process is stopped with SIGTERM.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import apsw
import httpx
import msgspec
import nacl.signing

from keyserver.armor import b62encode
from keyserver.keys import kex_for_public_key

POST_ROUNDS = 40  # x 500 items
GET_ROUNDS = 20  # x 1,000 items
CHAINS = 40
CHAIN_LENGTH = 10
ITEM_BYTES = 64

# The scaling table: concurrent clients, and per client the requests of each kind.
CLIENTS = 8
SCALE_POSTS = 16  # x 500 items
SCALE_GETS = 24  # x 1,000 items
SCALE_STATEMENTS = 100
SCALE_PROCESSES = (1, 2, 4)
PUBLIC_URL = "https://keys.bench.test"


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class _Signer:
    """Signs like a keys.pub client (see tests/keyserver/client.py for the full client)."""

    def __init__(self) -> None:
        self.key = nacl.signing.SigningKey(os.urandom(32))
        self.kid = kex_for_public_key(bytes(self.key.verify_key))

    def headers(self, method: str, url: str, body: bytes) -> tuple[str, dict[str, str]]:
        sep = "&" if "?" in url else "?"
        signed_url = f"{url}{sep}nonce={b62encode(os.urandom(32))}&ts={_now_ms()}"
        digest = base64.b64encode(hashlib.sha256(body).digest()).decode() if body else ""
        sig = self.key.sign(f"{method},{signed_url},{digest}".encode()).signature
        return signed_url, {"Authorization": f"{self.kid}:{base64.b64encode(sig).decode()}"}


def _statement(key: nacl.signing.SigningKey, kid: str, seq: int, prev: bytes) -> bytes:
    ts = _now_ms()

    def fields(sig: str) -> bytes:
        data = base64.b64encode(b"statement %d" % seq).decode()
        prev_field = f'"prev":"{base64.b64encode(prev).decode()}",' if prev else ""
        return (
            f'{{".sig":"{sig}","data":"{data}","kid":"{kid}",{prev_field}"seq":{seq},"ts":{ts}}}'
        ).encode()

    sig = key.sign(fields("")).signature
    return fields(base64.b64encode(sig).decode())


def _start(
    workdir: Path, db: str | None = None, args: Sequence[str] = ()
) -> tuple[subprocess.Popen[bytes], str]:
    return _wait_listening(*_launch(workdir, db, args))


def _launch(
    workdir: Path, db: str | None = None, args: Sequence[str] = ()
) -> tuple[subprocess.Popen[bytes], Path]:
    script = Path(sys.executable).with_name("svc-keyserver")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "keyserver"]
    workdir.mkdir(parents=True, exist_ok=True)
    log_path = workdir / "keyserver.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [*cmd, "--bind", "127.0.0.1:0", "--db", db or str(workdir / "ks.sqlite3"), *args],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return proc, log_path


def _wait_listening(
    proc: subprocess.Popen[bytes], log_path: Path
) -> tuple[subprocess.Popen[bytes], str]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        match = re.search(r"listening on (http://\S+)", log_path.read_text(errors="replace"))
        if match:
            return proc, match.group(1)
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    raise RuntimeError(f"svc-keyserver did not start:\n{log_path.read_text(errors='replace')}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _timed(fn: Callable[[], None]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def _raw_sqlite(
    workdir: Path, batches: list[list[bytes]], chains: list[list[bytes]]
) -> dict[str, float]:
    """The same rows through apsw directly: one transaction per request's worth of rows."""
    db = apsw.Connection(str(workdir / "raw.sqlite3"))
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(
        "CREATE TABLE vault_items (kid TEXT NOT NULL, idx INTEGER NOT NULL, data BLOB NOT NULL,"
        " ts INTEGER NOT NULL, PRIMARY KEY (kid, idx)) WITHOUT ROWID;"
        "CREATE TABLE statements (kid TEXT NOT NULL, seq INTEGER NOT NULL, raw BLOB NOT NULL,"
        " hash BLOB NOT NULL, PRIMARY KEY (kid, seq)) WITHOUT ROWID;"
    )
    idx = 0

    def insert_items() -> None:
        nonlocal idx
        for batch in batches:
            with db:
                db.executemany(
                    "INSERT INTO vault_items VALUES ('kid', ?, ?, ?)",
                    [(idx + i, item, _now_ms()) for i, item in enumerate(batch, 1)],
                )
            idx += len(batch)

    def select_items() -> None:
        for r in range(GET_ROUNDS):
            rows = db.execute(
                "SELECT idx, data, ts FROM vault_items WHERE kid = 'kid' AND idx > ?"
                " ORDER BY idx LIMIT 1000",
                (r * 1000 % max(idx - 1000, 1),),
            ).fetchall()
            assert len(rows) == 1000

    def insert_statements() -> None:
        for c, chain in enumerate(chains):
            for seq, raw in enumerate(chain, 1):
                with db:
                    db.execute(
                        "INSERT INTO statements VALUES (?, ?, ?, ?)",
                        (f"kid{c}", seq, raw, hashlib.sha256(raw).digest()),
                    )

    items = sum(len(b) for b in batches)
    out = {
        "insert_rows_s": items / _timed(insert_items),
        "select_rows_s": GET_ROUNDS * 1000 / _timed(select_items),
        "statement_rows_s": sum(len(c) for c in chains) / _timed(insert_statements),
    }
    db.close()
    return out


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="keyserver-bench-") as tmp:
        workdir = Path(tmp)
        proc, base = _start(workdir)
        try:
            signer = _Signer()
            vault_url = f"{base}/vault/{signer.kid}"
            batches = [[os.urandom(ITEM_BYTES) for _ in range(500)] for _ in range(POST_ROUNDS)]
            bodies = [
                msgspec.json.encode([{"data": base64.b64encode(i).decode()} for i in batch])
                for batch in batches
            ]
            keys = [nacl.signing.SigningKey(os.urandom(32)) for _ in range(CHAINS)]
            kids = [kex_for_public_key(bytes(k.verify_key)) for k in keys]

            with httpx.Client(timeout=60) as http:

                def post_all() -> None:
                    for body in bodies:
                        url, headers = signer.headers("POST", vault_url, body)
                        r = http.post(url, content=body, headers=headers)
                        assert r.status_code == 200, r.text

                def get_all() -> None:
                    total = POST_ROUNDS * 500
                    for r_ in range(GET_ROUNDS):
                        start = r_ * 1000 % (total - 1000)
                        url, headers = signer.headers("GET", f"{vault_url}?idx={start}", b"")
                        r = http.get(url, headers=headers)
                        assert r.status_code == 200, r.text
                        assert len(r.json()["vault"]) == 1000

                chains: list[list[bytes]] = [[] for _ in range(CHAINS)]

                def put_all() -> None:
                    for seq in range(1, CHAIN_LENGTH + 1):
                        for c, (key, kid) in enumerate(zip(keys, kids, strict=True)):
                            prev = hashlib.sha256(chains[c][-1]).digest() if chains[c] else b""
                            raw = _statement(key, kid, seq, prev)
                            r = http.put(f"{base}/sigchain/{kid}/{seq}", content=raw)
                            assert r.status_code == 200, r.text
                            chains[c].append(raw)

                post_s = _timed(post_all)
                get_s = _timed(get_all)
                put_s = _timed(put_all)
        finally:
            _stop(proc)
        raw = _raw_sqlite(workdir, batches, chains)

    statements = CHAINS * CHAIN_LENGTH
    print(
        f"vault POST, 500 items/request: {POST_ROUNDS / post_s:8.1f} req/s = "
        f"{POST_ROUNDS * 500 / post_s:10,.0f} items/s | raw SQLite insert, same rows: "
        f"{raw['insert_rows_s']:12,.0f} rows/s"
    )
    print(
        f"vault GET, 1,000 items/request: {GET_ROUNDS / get_s:7.1f} req/s = "
        f"{GET_ROUNDS * 1000 / get_s:10,.0f} items/s | raw SQLite select, same rows: "
        f"{raw['select_rows_s']:12,.0f} rows/s"
    )
    print(
        f"sigchain PUT:                 {statements / put_s:8.1f} statements/s     "
        f"| raw SQLite insert, same rows (1 per tx): {raw['statement_rows_s']:10,.0f} rows/s"
    )

    _scaling()


class _Client:
    """One of the concurrent clients of the scaling table: its own key, vault and sigchain."""

    def __init__(self, bases: list[str], first: int) -> None:
        self.signer = _Signer()
        self.bases = bases
        self.turn = first
        self.http = httpx.Client(timeout=120)
        self.chain: list[bytes] = []

    def _base(self) -> str:
        """Round-robin over the processes, as a load balancer would."""
        self.turn += 1
        return self.bases[self.turn % len(self.bases)]

    def _vault(self, method: str, query: str, body: bytes) -> httpx.Response:
        url, headers = self.signer.headers(
            method, f"{PUBLIC_URL}/vault/{self.signer.kid}{query}", body
        )
        target = self._base() + url.removeprefix(PUBLIC_URL)
        return self.http.request(method, target, content=body, headers=headers)

    def post(self, body: bytes) -> None:
        r = self._vault("POST", "", body)
        assert r.status_code == 200, r.text

    def get(self, n: int) -> None:
        total = SCALE_POSTS * 500
        r = self._vault("GET", f"?idx={n * 1000 % (total - 1000)}", b"")
        assert r.status_code == 200, r.text
        assert len(r.json()["vault"]) == 1000

    def put(self) -> None:
        seq = len(self.chain) + 1
        prev = hashlib.sha256(self.chain[-1]).digest() if self.chain else b""
        raw = _statement(self.signer.key, self.signer.kid, seq, prev)
        r = self.http.put(f"{self._base()}/sigchain/{self.signer.kid}/{seq}", content=raw)
        assert r.status_code == 200, r.text
        self.chain.append(raw)


def _load(bases: list[str], bodies: list[bytes]) -> tuple[float, float, float]:
    """(vault POST req/s, vault GET req/s, sigchain PUT/s) from CLIENTS concurrent clients."""
    clients = [_Client(bases, i) for i in range(CLIENTS)]
    try:
        with ThreadPoolExecutor(CLIENTS) as pool:

            def phase(work: Callable[[_Client], None]) -> float:
                started = time.perf_counter()
                for future in [pool.submit(work, c) for c in clients]:
                    future.result()
                return time.perf_counter() - started

            def posts(c: _Client) -> None:
                for body in bodies[:SCALE_POSTS]:
                    c.post(body)

            def gets(c: _Client) -> None:
                for n in range(SCALE_GETS):
                    c.get(n)

            def puts(c: _Client) -> None:
                for _ in range(SCALE_STATEMENTS):
                    c.put()

            post_s, get_s, put_s = phase(posts), phase(gets), phase(puts)
    finally:
        for c in clients:
            c.http.close()
    return (
        CLIENTS * SCALE_POSTS / post_s,
        CLIENTS * SCALE_GETS / get_s,
        CLIENTS * SCALE_STATEMENTS / put_s,
    )


def _run_processes(
    workdir: Path, n: int, db: str | None, bodies: list[bytes]
) -> tuple[float, float, float]:
    launched = [_launch(workdir / f"p{i}", db, ["--public-url", PUBLIC_URL]) for i in range(n)]
    procs: list[subprocess.Popen[bytes]] = [proc for proc, _ in launched]
    try:
        bases = [_wait_listening(proc, log)[1] for proc, log in launched]
        return _load(bases, bodies)
    finally:
        for proc in procs:
            _stop(proc)


def _scaling() -> None:
    from tests.keyserver.postgres import BENCH, running_cluster

    bodies = [
        msgspec.json.encode(
            [{"data": base64.b64encode(os.urandom(ITEM_BYTES)).decode()} for _ in range(500)]
        )
        for _ in range(SCALE_POSTS)
    ]
    rows: list[tuple[str, int, tuple[float, float, float]]] = []
    with tempfile.TemporaryDirectory(prefix="keyserver-scale-") as tmp:
        workdir = Path(tmp)
        rows.append(("SQLite", 1, _run_processes(workdir / "sqlite", 1, None, bodies)))
        with running_cluster(settings=BENCH) as cluster:
            for n in SCALE_PROCESSES:
                url = cluster.create_database(f"bench{n}")
                rows.append(("PostgreSQL", n, _run_processes(workdir / f"pg{n}", n, url, bodies)))

    print(
        f"\nscaling: {CLIENTS} concurrent clients, each its own vault and sigchain, round-robin over"
        f" the processes ({os.cpu_count()} CPUs shared by clients, servers and database)"
    )
    print(
        f"{'store':<11} {'processes':>9} | {'vault POST req/s (items/s)':>27} |"
        f" {'vault GET req/s (items/s)':>26} | {'sigchain PUT/s':>14}"
    )
    for store, n, (post, get, put) in rows:
        print(
            f"{store:<11} {n:>9} | {post:>8.1f} ({post * 500:>10,.0f})     |"
            f" {get:>8.1f} ({get * 1000:>10,.0f})    | {put:>14.1f}"
        )


if __name__ == "__main__":
    main()
