"""Key server throughput over real HTTP on loopback, each figure beside the raw SQLite rate of the
same rows in the same run: vault POST of 500 items, vault GET of 1,000 items, sigchain PUT.

Starts `svc-keyserver` on a free loopback port with a temporary database, drives it sequentially
over one keep-alive connection with signed requests, then stops it with SIGTERM.
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
from collections.abc import Callable
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


def _start(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    script = Path(sys.executable).with_name("svc-keyserver")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "keyserver"]
    log_path = workdir / "keyserver.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [*cmd, "--bind", "127.0.0.1:0", "--db", str(workdir / "ks.sqlite3")],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
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
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
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


if __name__ == "__main__":
    main()
