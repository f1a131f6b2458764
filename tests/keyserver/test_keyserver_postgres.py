"""Several `svc-keyserver` processes on one PostgreSQL database (issue 19): what one process
guarantees holds across all of them, a lost database answers 503 and recovers, `--db` errors are
one line.

The processes share `--public-url` as they would behind a load balancer: a client signs against
that origin whichever process its request reaches.
"""

from __future__ import annotations

import base64
import os
import subprocess
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import trio

from keyserver.auth import NONCE_REUSED

from .client import Key, Sigchain, Statement, sign_request
from .conftest import make_proof, serve_proof, service_args, user_statement
from .fakes import FakeServices, Route
from .postgres import PostgresCluster, running_cluster
from .process import KeyServerProcess, keyserver_command, wait_for

pytestmark = pytest.mark.e2e  # starts PostgreSQL and key server processes

PUBLIC = "https://keys.example.test"

StartServers = Callable[..., list[KeyServerProcess]]


@pytest.fixture
def start_servers(
    postgres: PostgresCluster, fakes: FakeServices, twitter_token_file: Path, tmp_path: Path
) -> Iterator[StartServers]:
    """start(n, url=None): n processes on one database (a new one unless `url`), launched
    together so that they also create the schema together. All are stopped by SIGTERM after the
    test, and must exit 0."""
    started: list[KeyServerProcess] = []

    def start(n: int, url: str | None = None) -> list[KeyServerProcess]:
        db = url or postgres.create_database(f"multi_{os.urandom(6).hex()}")
        args = [*service_args(fakes, twitter_token_file), "--public-url", PUBLIC]
        procs = [
            KeyServerProcess(tmp_path / f"ks{len(started) + i}", args, db=db) for i in range(n)
        ]
        for proc in procs:
            started.append(proc.launch())
        return [proc.wait_ready() for proc in procs]

    try:
        yield start
    finally:
        failed = [f"exit {code}:\n{p.log()}" for p in started if (code := p.terminate()) != 0]
        assert not failed, failed


def _target(proc: KeyServerProcess, signed_url: str) -> str:
    """The signed public URL, sent to one process."""
    assert signed_url.startswith(PUBLIC)
    return proc.url + signed_url.removeprefix(PUBLIC)


def _items_body(items: list[bytes]) -> bytes:
    return msgspec.json.encode([{"data": base64.b64encode(i).decode()} for i in items])


async def _vault(
    http: httpx.AsyncClient,
    proc: KeyServerProcess,
    key: Key,
    method: str,
    *,
    body: bytes = b"",
    query: str = "",
) -> httpx.Response:
    url = f"{PUBLIC}/vault/{key.kid}" + (f"?{query}" if query else "")
    signed = sign_request(key, method, url, body)
    return await http.request(
        method,
        _target(proc, signed.url),
        content=body,
        headers={"Authorization": signed.authorization},
    )


async def _read_vault(
    http: httpx.AsyncClient, proc: KeyServerProcess, key: Key
) -> list[dict[str, Any]]:
    """Every item, page by page."""
    items: list[dict[str, Any]] = []
    while True:
        r = await _vault(http, proc, key, "GET", query=f"idx={items[-1]['idx'] if items else 0}")
        assert r.status_code == 200, r.text
        page: list[dict[str, Any]] = r.json()["vault"]
        if not page:
            return items
        items += page


async def test_vault_idx_is_gap_free_under_concurrent_posts_to_four_processes(
    start_servers: StartServers,
) -> None:
    servers = start_servers(4)
    key = Key.generate()
    batches = {
        (s, r): [b"%d-%d-%d" % (s, r, i) for i in range(1 + (7 * s + 13 * r) % 40)]
        for s in range(4)
        for r in range(10)
    }
    async with httpx.AsyncClient(timeout=30) as http:

        async def post(s: int, r: int) -> None:
            resp = await _vault(http, servers[s], key, "POST", body=_items_body(batches[(s, r)]))
            assert resp.status_code == 200, resp.text

        async with trio.open_nursery() as nursery:
            for s, r in batches:
                nursery.start_soon(post, s, r)

        views = [await _read_vault(http, proc, key) for proc in servers]

    total = sum(len(b) for b in batches.values())
    items = views[0]
    assert [i["idx"] for i in items] == list(range(1, total + 1))
    assert all(view == items for view in views[1:])  # every process reads the same log
    data = [base64.b64decode(i["data"]) for i in items]
    # Each request's items are stored together and in order.
    at = 0
    runs = []
    while at < len(data):
        s, r, _ = (int(x) for x in data[at].split(b"-"))
        runs.append(data[at : at + len(batches[(s, r)])])
        at += len(batches[(s, r)])
    assert sorted(runs) == sorted(batches.values())
    stamps = [i["ts"] for i in items]
    assert stamps == sorted(stamps)


async def test_a_nonce_used_against_one_process_is_refused_by_every_other(
    start_servers: StartServers,
) -> None:
    servers = start_servers(3)
    key = Key.generate()
    async with httpx.AsyncClient(timeout=30) as http:
        assert (
            await _vault(http, servers[0], key, "POST", body=_items_body([b"x"]))
        ).status_code == 200

        # One after the other.
        signed = sign_request(key, "GET", f"{PUBLIC}/vault/{key.kid}")
        headers = {"Authorization": signed.authorization}
        r = await http.get(_target(servers[0], signed.url), headers=headers)
        assert r.status_code == 200, r.text
        for proc in servers[1:]:
            r = await http.get(_target(proc, signed.url), headers=headers)
            assert r.status_code == 403, r.text
            assert r.json()["error"]["message"] == NONCE_REUSED

        # The same signed POST to every process at once: stored exactly once.
        statuses: list[int] = []
        for n in range(10):
            body = _items_body([b"replay %d" % n])
            signed = sign_request(key, "POST", f"{PUBLIC}/vault/{key.kid}", body)
            statuses.clear()

            async def send(
                proc: KeyServerProcess,
                signed_url: str = signed.url,
                body: bytes = body,
                auth: str = signed.authorization,
            ) -> None:
                r = await http.post(
                    _target(proc, signed_url), content=body, headers={"Authorization": auth}
                )
                statuses.append(r.status_code)
                if r.status_code == 403:
                    assert r.json()["error"]["message"] == NONCE_REUSED

            async with trio.open_nursery() as nursery:
                for proc in servers:
                    nursery.start_soon(send, proc)
            assert sorted(statuses) == [200, 403, 403]

        items = await _read_vault(http, servers[2], key)
    assert [base64.b64decode(i["data"]) for i in items] == [b"x"] + [
        b"replay %d" % n for n in range(10)
    ]


async def test_a_sigchain_seq_is_stored_once_and_every_other_writer_gets_409(
    start_servers: StartServers,
) -> None:
    servers = start_servers(4)
    chain = Sigchain(Key.generate())
    results: dict[int, int] = {}
    async with httpx.AsyncClient(timeout=30) as http:
        for seq in range(1, 11):
            # Four different statements for one seq, one to each process, at once.
            candidates = [chain.next(b"seq %d by writer %d" % (seq, w)) for w in range(4)]
            results.clear()

            async def put(w: int, st: Statement) -> None:
                r = await http.put(
                    f"{servers[w].url}/sigchain/{st.kid}/{st.seq}", content=st.to_bytes()
                )
                results[w] = r.status_code
                if r.status_code == 409:
                    assert r.json()["error"]["message"] == "statement already exists"

            async with trio.open_nursery() as nursery:
                for w, st in enumerate(candidates):
                    nursery.start_soon(put, w, st)
            assert sorted(results.values()) == [200, 409, 409, 409], results
            winner = next(w for w, status in results.items() if status == 200)
            chain.accept(candidates[winner])

        for proc in servers:
            r = await http.get(f"{proc.url}/sigchain/{chain.key.kid}")
            assert r.status_code == 200, r.text
            raw = r.content
            assert raw == b'{"kid":"%s","statements":[%s]}' % (
                chain.key.kid.encode(),
                b",".join(chain.statements),
            )


async def test_a_delete_is_seen_by_every_process_at_once(
    start_servers: StartServers, postgres: PostgresCluster
) -> None:
    servers = start_servers(3)
    key = Key.generate()
    async with httpx.AsyncClient(timeout=30) as http:
        assert (
            await _vault(http, servers[0], key, "POST", body=_items_body([b"a", b"b"]))
        ).status_code == 200
        assert len(await _read_vault(http, servers[1], key)) == 2
        assert (await _vault(http, servers[2], key, "DELETE")).status_code == 200
        for proc in servers:
            for method, body in [
                ("GET", b""),
                ("POST", _items_body([b"c"])),
                ("PUT", _items_body([b"c"])),
                ("DELETE", b""),
            ]:
                r = await _vault(http, proc, key, method, body=body)
                assert r.status_code == 404, (proc.url, method, r.text)

        # Appends racing a delete through another process: once the delete has answered, no
        # item is left and every process answers 404.
        raced = Key.generate()
        assert (
            await _vault(http, servers[0], raced, "POST", body=_items_body([b"first"]))
        ).status_code == 200
        statuses: list[int] = []
        after_delete: list[int] = []  # of the POSTs sent once the DELETE had answered
        posting, deleted = trio.Event(), trio.Event()

        async def keep_posting(proc: KeyServerProcess) -> None:
            # Until three of its POSTs were sent after the DELETE answered.
            sent_late = 0
            for n in range(500):
                sent_after = deleted.is_set()
                r = await _vault(http, proc, raced, "POST", body=_items_body([b"%d" % n] * 5))
                (after_delete if sent_after else statuses).append(r.status_code)
                sent_late += sent_after
                if n == 2:
                    posting.set()
                if sent_late == 3:
                    return
            raise AssertionError("the DELETE did not answer during 500 POSTs")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(keep_posting, servers[0])
            nursery.start_soon(keep_posting, servers[1])
            await posting.wait()  # the DELETE lands among the appends
            r = await _vault(http, servers[2], raced, "DELETE")
            assert r.status_code == 200, r.text
            deleted.set()
        assert set(statuses) <= {200, 404}
        assert after_delete == [404] * 6
        for proc in servers:
            assert (await _vault(http, proc, raced, "GET")).status_code == 404
    dbname = servers[0].db_arg.split("?")[0].rsplit("/", 1)[1]
    with postgres.connect(dbname) as conn:
        row = conn.execute(
            "SELECT count(*) FROM vault_items WHERE kid = %s", (raced.kid,)
        ).fetchone()
    assert row == (0,)


def test_user_search_sees_statements_written_through_any_process(
    start_servers: StartServers, fakes: FakeServices
) -> None:
    servers = start_servers(3)
    chain = Sigchain(Key.generate())
    proof = make_proof("github", f"u{os.urandom(5).hex()}", os.urandom(4).hex())
    serve_proof(fakes, proof, Route(body=proof.page(chain.key)))
    with httpx.Client(timeout=30) as http:
        st = user_statement(chain, proof)
        r = http.put(f"{servers[0].url}/sigchain/{st.kid}/{st.seq}", content=st.to_bytes())
        assert r.status_code == 200, r.text
        chain.accept(st)

        def status_via(proc: KeyServerProcess) -> str | None:
            r = http.get(f"{proc.url}/user/{chain.key.kid}")
            return r.json()["user"]["status"] if r.status_code == 200 else None

        # Checked by the process that took the statement; its result is every process's.
        wait_for(lambda: status_via(servers[1]) == "ok" or None, 10, "the user to be ok", 0.05)
        for proc in servers:
            found = http.get(f"{proc.url}/user/search", params={"q": proof.name}).json()["users"]
            assert [u["kid"] for u in found] == [chain.key.kid]

        # A revoke through another process removes the user for all of them.
        revoke = chain.next(type="revoke", revoke=1)
        r = http.put(
            f"{servers[2].url}/sigchain/{revoke.kid}/{revoke.seq}", content=revoke.to_bytes()
        )
        assert r.status_code == 200, r.text
        for proc in servers:
            assert http.get(f"{proc.url}/user/{chain.key.kid}").status_code == 404
            assert (
                http.get(f"{proc.url}/user/search", params={"q": proof.name}).json()["users"] == []
            )


def test_schema_is_created_once_by_processes_starting_together_and_kept(
    start_servers: StartServers, postgres: PostgresCluster
) -> None:
    servers = start_servers(4)  # launched together on a new, empty database
    url = servers[0].db_arg
    dbname = url.split("?")[0].rsplit("/", 1)[1]
    with postgres.connect(dbname) as conn:
        tables = {
            row[0]
            for row in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            )
        }
    assert tables == {"nonces", "vaults", "vault_items", "statements", "kbx", "users"}
    key = Key.generate()
    body = _items_body([b"kept"])
    signed = sign_request(key, "POST", f"{PUBLIC}/vault/{key.kid}", body)
    r = httpx.post(
        _target(servers[0], signed.url),
        content=body,
        headers={"Authorization": signed.authorization},
    )
    assert r.status_code == 200, r.text
    for proc in servers:
        assert proc.terminate() == 0, proc.log()
    # A later start finds the schema and the data.
    (again,) = start_servers(1, url)
    signed = sign_request(key, "GET", f"{PUBLIC}/vault/{key.kid}")
    r = httpx.get(_target(again, signed.url), headers={"Authorization": signed.authorization})
    assert r.status_code == 200, r.text
    assert [i["idx"] for i in r.json()["vault"]] == [1]


def test_other_database_errors_are_500_not_503(
    start_servers: StartServers, postgres: PostgresCluster
) -> None:
    (server,) = start_servers(1)
    dbname = server.db_arg.split("?")[0].rsplit("/", 1)[1]
    with postgres.connect(dbname) as conn:
        conn.execute("DROP TABLE users")
    key = Key.generate()
    r = httpx.get(f"{server.url}/user/{key.kid}")
    assert r.status_code == 500
    assert r.json() == {"error": {"code": 500, "message": "internal error"}}
    assert 'relation "users" does not exist' in server.log()
    assert httpx.get(f"{server.url}/sigchain/{key.kid}").status_code == 404


# A lost database.


@pytest.fixture
def own_cluster() -> Iterator[PostgresCluster]:
    """A cluster of the test's own, which it may stop and start; on a unix socket and a loopback
    TCP port."""
    with running_cluster(tcp=True) as cluster:
        yield cluster


def _unavailable(r: httpx.Response) -> None:
    assert r.status_code == 503, r.text
    assert r.json() == {"error": {"code": 503, "message": "database unavailable"}}
    assert r.headers["retry-after"] == "1"


def test_a_lost_database_answers_503_and_recovers_without_a_restart(
    start_servers: StartServers, own_cluster: PostgresCluster
) -> None:
    own_cluster.create_database("ks")
    # One process reaches the database over TCP, as from another host; one over its unix socket.
    servers = [
        *start_servers(1, own_cluster.tcp_url("ks")),
        *start_servers(1, own_cluster.url("ks")),
    ]
    key = Key.generate()
    chain = Sigchain(key)

    def post(proc: KeyServerProcess, data: bytes) -> httpx.Response:
        body = _items_body([data])
        signed = sign_request(key, "POST", f"{PUBLIC}/vault/{key.kid}", body)
        return httpx.post(
            _target(proc, signed.url),
            content=body,
            headers={"Authorization": signed.authorization},
            timeout=30,
        )

    for proc in servers:
        assert post(proc, b"before").status_code == 200

    # Every connection cut while idle (an administrator, a failover): nothing is lost, the next
    # requests connect afresh.
    assert own_cluster.terminate_backends("ks") >= 2
    for proc in servers:
        assert post(proc, b"after terminate").status_code == 200
        assert httpx.get(f"{proc.url}/sigchain/{key.kid}").status_code == 404

    # A connection cut in the middle of a request: that request answers 503.
    with own_cluster.connect("ks") as blocker, ThreadPoolExecutor(1) as pool:
        blocker.execute("BEGIN")
        blocker.execute("SELECT 1 FROM vaults WHERE kid = %s FOR UPDATE", (key.kid,))
        pending = pool.submit(post, servers[0], b"cut")

        def waiting_backend() -> int | None:
            with own_cluster.connect("ks") as conn:
                row = conn.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = 'ks'"
                    " AND wait_event_type = 'Lock' AND pid <> %s",
                    (blocker.info.backend_pid,),
                ).fetchone()
            return None if row is None else int(row[0])

        pid = wait_for(waiting_backend, 10, "the POST to wait on the vault's row lock")
        with own_cluster.connect("ks") as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        _unavailable(pending.result(timeout=30))
        blocker.execute("ROLLBACK")
    assert "database unavailable" in servers[0].log()
    assert post(servers[0], b"after the cut").status_code == 200

    # The server is down: every request that needs it answers 503 at once, not after a timeout.
    own_cluster.stop()
    for proc in servers:
        _unavailable(post(proc, b"while down"))
        _unavailable(httpx.get(f"{proc.url}/sigchain/{key.kid}"))
        st = chain.next(b"while down")
        _unavailable(httpx.put(f"{proc.url}/sigchain/{st.kid}/{st.seq}", content=st.to_bytes()))

    # Back: the same processes serve again.
    own_cluster.start()
    for proc in servers:
        assert post(proc, b"back").status_code == 200
    st = chain.next(b"back")
    assert (
        httpx.put(f"{servers[1].url}/sigchain/{st.kid}/{st.seq}", content=st.to_bytes()).status_code
        == 200
    )
    signed = sign_request(key, "GET", f"{PUBLIC}/vault/{key.kid}")
    r = httpx.get(_target(servers[0], signed.url), headers={"Authorization": signed.authorization})
    assert [base64.b64decode(i["data"]) for i in r.json()["vault"]] == [
        b"before",
        b"before",
        b"after terminate",
        b"after terminate",
        b"after the cut",
        b"back",
        b"back",
    ]


# `--db` errors.


def _run_keyserver(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*keyserver_command(), "--bind", "127.0.0.1:0", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_db_errors_are_one_clear_line(postgres: PostgresCluster, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir"
    cases = [
        (
            f"postgresql://postgres:sekrit@/ks?host={missing}",
            f"cannot open the PostgreSQL database postgresql://postgres:***@/ks?host={missing}: ",
            "No such file or directory",
        ),
        (
            postgres.url("no_such_database"),
            f"cannot open the PostgreSQL database {postgres.url('no_such_database')}: ",
            'database "no_such_database" does not exist',
        ),
        (
            "/proc/no-such-dir/keyserver.sqlite3",
            "cannot open the SQLite database /proc/no-such-dir/keyserver.sqlite3: ",
            "No such file or directory",
        ),
    ]
    for db, start, reason in cases:
        done = _run_keyserver("--db", db)
        assert done.returncode == 1, done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("svc-keyserver: error: " + start), done.stderr
        assert reason in done.stderr
        assert "sekrit" not in done.stderr
        assert "Traceback" not in done.stderr

    for db, message in [
        ("mysql://u@h/db", "unsupported database URL scheme 'mysql'"),
        ("postgresql://u:sekrit@h/db?bogus=1", 'invalid URI query parameter: "bogus"'),
    ]:
        done = _run_keyserver("--db", db)
        assert done.returncode == 2, done.stderr
        last = done.stderr.splitlines()[-1]
        assert last.startswith("svc-keyserver: error: argument --db:"), done.stderr
        assert message in last
        assert "sekrit" not in done.stderr


def test_a_due_recheck_is_made_by_one_process(
    start_servers: StartServers, fakes: FakeServices
) -> None:
    """Each process looks for due users every quarter of the re-check interval (here 1 s); a user
    due is checked by the one process that took it, not by all of them."""
    servers = start_servers(3)
    chain = Sigchain(Key.generate())
    proof = make_proof("github", f"u{os.urandom(5).hex()}", os.urandom(4).hex())
    serve_proof(fakes, proof, Route(body=proof.page(chain.key)))
    with httpx.Client(timeout=30) as http:
        st = user_statement(chain, proof)
        assert (
            http.put(
                f"{servers[0].url}/sigchain/{st.kid}/{st.seq}", content=st.to_bytes()
            ).status_code
            == 200
        )

        def status() -> str | None:
            r = http.get(f"{servers[1].url}/user/{chain.key.kid}")
            return str(r.json()["user"]["status"]) if r.status_code == 200 else None

        wait_for(lambda: status() == "ok" or None, 10, "the first check", 0.05)
        # The proof host stops answering: the next re-check hangs until its 5 s timeout.
        gate = threading.Event()
        fetched = len(fakes.requests_to(proof.path))
        serve_proof(fakes, proof, Route(body=proof.page(chain.key), gate=gate, drop=True))
        try:
            wait_for(
                lambda: status() == "connection-fail" or None, 20, "the re-check to time out", 0.1
            )
            # Every process looked for due users about 20 times meanwhile; one fetched.
            assert len(fakes.requests_to(proof.path)) == fetched + 1
        finally:
            gate.set()
