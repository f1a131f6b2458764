"""Both stores behind the `Store` interface: replay window, vault delete, search order, the user
seq rules; each test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from keyserver.config import PostgresURL
from keyserver.pg_store import PostgresStore
from keyserver.store import SQLiteStore, Store, StoredStatement, UserRecord, VaultState

from .conftest import STORES
from .postgres import PostgresCluster

HOUR_MS = 60 * 60 * 1000

Opener = Callable[[], Awaitable[Store]]


@pytest.fixture(params=STORES)
async def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Opener]:
    """Opens the test's store (again, to check what is durable); closes every one it opened."""
    opened: list[Store] = []
    if request.param == "sqlite":

        async def opener() -> Store:
            store: Store = SQLiteStore(tmp_path / "store.sqlite3")
            opened.append(store)
            return store

    else:
        cluster: PostgresCluster = request.getfixturevalue("postgres")
        url = PostgresURL(cluster.create_database(f"store_{os.urandom(6).hex()}"))

        async def opener() -> Store:
            store: Store = await PostgresStore.open(url, pool_size=4)
            opened.append(store)
            return store

    try:
        yield opener
    finally:
        for store in opened:
            await store.close()


async def test_nonce_is_accepted_once_for_an_hour(open_store: Opener) -> None:
    store = await open_store()
    t = 1_700_000_000_000
    assert await store.claim_nonce("n1", t, HOUR_MS)
    assert not await store.claim_nonce("n1", t + HOUR_MS - 1, HOUR_MS)
    assert await store.claim_nonce("n2", t, HOUR_MS)
    assert await store.purge_nonces(t + HOUR_MS) == 2
    assert await store.claim_nonce("n1", t + HOUR_MS, HOUR_MS)
    # An expired nonce that was not purged yet is accepted again, and then held again.
    assert await store.claim_nonce("n1", t + 2 * HOUR_MS, HOUR_MS)
    assert not await store.claim_nonce("n1", t + 2 * HOUR_MS + 1, HOUR_MS)


async def test_vault_delete_marks_then_removes(open_store: Opener) -> None:
    store = await open_store()
    assert await store.vault_state("k") == VaultState.MISSING
    assert await store.vault_append("k", [b"a", b"b"], 5) == 2
    assert await store.vault_append("k", [b"c"], 6) == 3
    assert [(i.idx, i.data, i.ts) for i in await store.vault_list("k", 1, 10)] == [
        (2, b"b", 5),
        (3, b"c", 6),
    ]
    assert [i.idx for i in await store.vault_list("k", 0, 2)] == [1, 2]
    assert await store.vault_state("k") == VaultState.ACTIVE
    assert await store.vault_delete("k")
    assert await store.vault_state("k") == VaultState.DELETED
    assert await store.vault_list("k", 0, 10) == []
    # An append that arrives after the delete stores nothing.
    assert await store.vault_append("k", [b"late"], 7) is None
    assert await store.vault_list("k", 0, 10) == []
    assert not await store.vault_delete("k")
    await store.close()
    # Durable across a reopen.
    store = await open_store()
    assert await store.vault_state("k") == VaultState.DELETED


async def test_statement_seq_is_stored_once(open_store: Opener) -> None:
    store = await open_store()
    first = StoredStatement(seq=1, raw=b"{1}", hash=b"h1", revoke=0, type="")
    assert await store.sigchain_tip("kid") is None
    assert await store.statement_append("kid", "kbx", first)
    other = StoredStatement(seq=1, raw=b"{other}", hash=b"h2", revoke=0, type="")
    assert not await store.statement_append("kid", "kbx", other)
    assert await store.statements("kid") == [first]
    tip = await store.sigchain_tip("kid")
    assert tip is not None
    assert (tip.seq, tip.hash) == (1, b"h1")
    assert await store.kid_for_kbx("kbx") == "kid"
    assert await store.kid_for_kbx("nope") is None


def _user(kid: str, name: str, status: str = "ok", seq: int = 1) -> UserRecord:
    return UserRecord(kid, "kbx" + kid, name, "github", seq, "u", status, 1, 1, "")


async def test_search_is_a_case_sensitive_prefix_in_order(open_store: Opener) -> None:
    store = await open_store()
    for kid, name in [("1", "bob"), ("2", "alice"), ("3", "alicia"), ("4", "Alice"), ("5", "al")]:
        await store.user_put(_user(kid, name))
    await store.user_put(_user("6", "alfred", status="connection-fail"))
    assert [u.id for u in await store.users_search("al", "ok", 10)] == [
        "al@github",
        "alice@github",
        "alicia@github",
    ]
    assert [u.id for u in await store.users_search("al", "ok", 2)] == [
        "al@github",
        "alice@github",
    ]
    assert [u.kid for u in await store.users_search("", "ok", 10)] == ["4", "5", "2", "3", "1"]
    assert await store.users_search("\U0010ffff", "ok", 10) == []
    assert await store.users_search("bob@github\U0010ffff", "ok", 10) == []
    assert [u.kid for u in await store.users_search("bob@github", "ok", 10)] == ["1"]
    assert await store.user_set_status("6", 1, status="ok", ts=9, verified_at=9, err="")
    assert not await store.user_set_status("6", 2, status="ok", ts=9, verified_at=9, err="")
    assert [u.kid for u in await store.users_due(2, 10, now_ms=5, lease_ms=10)] == [
        "1",
        "2",
        "3",
        "4",
        "5",
    ]


async def test_due_users_are_handed_out_once_per_lease_on_a_shared_store(
    open_store: Opener,
) -> None:
    store = await open_store()
    for kid in "abc":
        await store.user_put(_user(kid, "n" + kid))
    due = await store.users_due(2, 2, now_ms=100, lease_ms=50)
    assert [u.kid for u in due] == ["a", "b"]
    if isinstance(store, PostgresStore):
        # Another process asking now gets the rest; after the lease, all again.
        assert [u.kid for u in await store.users_due(2, 10, now_ms=120, lease_ms=50)] == ["c"]
        assert await store.users_due(2, 10, now_ms=149, lease_ms=50) == []
        assert [u.kid for u in await store.users_due(2, 10, now_ms=150, lease_ms=50)] == [
            "a",
            "b",
        ]
    else:
        # One process per SQLite file: its verifier skips users it is already checking.
        assert [u.kid for u in await store.users_due(2, 10, now_ms=120, lease_ms=50)] == [
            "a",
            "b",
            "c",
        ]


async def test_a_user_from_an_earlier_statement_never_replaces_a_later_one(
    open_store: Opener,
) -> None:
    """Two processes may store a key's users out of order; the later statement's user stays."""
    store = await open_store()
    await store.user_put(_user("k", "new", seq=4))
    await store.user_put(_user("k", "old", seq=3))
    user = await store.user_get("k")
    assert user is not None
    assert (user.name, user.seq) == ("new", 4)
    # The revoke of statement 3 does not remove the user of statement 4.
    await store.user_delete("k", 3)
    assert await store.user_get("k") is not None
    await store.user_delete("k", 4)
    assert await store.user_get("k") is None


def test_a_server_on_sqlite_never_loads_psycopg() -> None:
    code = (
        "import sys, keyserver.__main__, keyserver.server, keyserver.store;"
        " print(any(m.split('.')[0] == 'psycopg' for m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=60
    ).stdout
    assert out.strip() == "False"
