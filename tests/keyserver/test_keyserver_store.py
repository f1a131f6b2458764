"""The SQLite store behind the `Store` interface: replay window, vault delete, search order."""

from __future__ import annotations

from pathlib import Path

from keyserver.store import SQLiteStore, Store, UserRecord, VaultState

HOUR_MS = 60 * 60 * 1000


def _store(tmp_path: Path) -> SQLiteStore:
    store = SQLiteStore(tmp_path / "store.sqlite3")
    _: Store = store  # the SQLite backend implements the interface
    return store


def test_nonce_is_accepted_once_for_an_hour(tmp_path: Path) -> None:
    store = _store(tmp_path)
    t = 1_700_000_000_000
    assert store.claim_nonce("n1", t, HOUR_MS)
    assert not store.claim_nonce("n1", t + HOUR_MS - 1, HOUR_MS)
    assert store.claim_nonce("n2", t, HOUR_MS)
    assert store.purge_nonces(t + HOUR_MS) == 2
    assert store.claim_nonce("n1", t + HOUR_MS, HOUR_MS)
    store.close()


def test_vault_delete_marks_then_removes(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.vault_state("k") == VaultState.MISSING
    assert store.vault_append("k", [b"a", b"b"], 5) == 2
    assert store.vault_append("k", [b"c"], 6) == 3
    assert [i.idx for i in store.vault_list("k", 1, 10)] == [2, 3]
    assert store.vault_state("k") == VaultState.ACTIVE
    assert store.vault_delete("k")
    assert store.vault_state("k") == VaultState.DELETED
    assert store.vault_list("k", 0, 10) == []
    store.close()
    # Durable across a reopen.
    store = _store(tmp_path)
    assert store.vault_state("k") == VaultState.DELETED
    store.close()


def _user(kid: str, name: str, status: str = "ok") -> UserRecord:
    return UserRecord(kid, "kbx" + kid, name, "github", 1, "u", status, 1, 1, "")


def test_search_is_a_case_sensitive_prefix_in_order(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for kid, name in [("1", "bob"), ("2", "alice"), ("3", "alicia"), ("4", "Alice"), ("5", "al")]:
        store.user_put(_user(kid, name))
    store.user_put(_user("6", "alfred", status="connection-fail"))
    assert [u.id for u in store.users_search("al", "ok", 10)] == [
        "al@github",
        "alice@github",
        "alicia@github",
    ]
    assert [u.id for u in store.users_search("al", "ok", 2)] == ["al@github", "alice@github"]
    assert [u.kid for u in store.users_search("", "ok", 10)] == ["4", "5", "2", "3", "1"]
    assert store.users_search("\U0010ffff", "ok", 10) == []
    assert [u.kid for u in store.users_due(2, 10)] == ["1", "2", "3", "4", "5", "6"]
    assert store.user_set_status("6", 1, status="ok", ts=9, verified_at=9, err="")
    assert not store.user_set_status("6", 2, status="ok", ts=9, verified_at=9, err="")
    assert [u.kid for u in store.users_due(2, 10)] == ["1", "2", "3", "4", "5"]
    store.close()
