"""The vault over real HTTP: signed requests, append order, paging, limits, delete, every auth
failure."""

from __future__ import annotations

import base64
import os
import time

import httpx
import msgspec
import pytest
import trio

from keyserver.armor import b62encode

from .client import Key, now_ms, sign_request
from .conftest import Api
from .process import KeyServerProcess


def _data(items: list[dict[str, object]]) -> list[bytes]:
    return [base64.b64decode(str(item["data"])) for item in items]


def test_post_then_get_in_order(api: Api) -> None:
    key = Key.generate()
    before = now_ms()
    first = [os.urandom(n) for n in (1, 10, 100)]
    r = api.post_items(key, first)
    assert r.status_code == 200, r.text
    assert r.json() == {}
    assert r.headers["content-type"] == "application/json"
    second = [b"four", b"five"]
    assert api.post_items(key, second).status_code == 200

    r = api.vault("GET", key)
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"vault", "idx"}
    assert [item["idx"] for item in body["vault"]] == [1, 2, 3, 4, 5]
    assert _data(body["vault"]) == first + second
    assert body["idx"] == 5
    assert all(set(item) == {"data", "idx", "ts"} for item in body["vault"])
    assert all(before <= item["ts"] <= now_ms() for item in body["vault"])

    r = api.vault("GET", key, query="idx=3")
    assert [item["idx"] for item in r.json()["vault"]] == [4, 5]
    assert r.json()["idx"] == 5

    # Nothing new: the requested index comes back.
    r = api.vault("GET", key, query="idx=5")
    assert r.status_code == 200
    assert r.json() == {"vault": [], "idx": 5}
    r = api.vault("GET", key, query="idx=9")
    assert r.json() == {"vault": [], "idx": 9}

    r = api.vault("GET", key, query="idx=1&limit=2")
    assert [item["idx"] for item in r.json()["vault"]] == [2, 3]
    assert r.json()["idx"] == 3


def test_put_is_the_earlier_form_of_post(api: Api) -> None:
    key = Key.generate()
    assert api.post_items(key, [b"a"], method="PUT").status_code == 200
    assert api.post_items(key, [b"b"], method="POST").status_code == 200
    assert _data(api.vault("GET", key).json()["vault"]) == [b"a", b"b"]


def test_missing_vault_is_404(api: Api) -> None:
    key = Key.generate()
    r = api.vault("GET", key)
    assert r.status_code == 404
    assert r.json() == {"error": {"code": 404, "message": "vault not found"}}
    # An empty array stores nothing, so the vault still has no items.
    assert api.vault("POST", key, b"[]").status_code == 200
    assert api.vault("GET", key).status_code == 404


def test_500_items_limit(api: Api) -> None:
    key = Key.generate()
    r = api.post_items(key, [b"x"] * 501)
    assert r.status_code == 400
    assert "at most 500" in r.json()["error"]["message"]
    assert api.vault("GET", key).status_code == 404  # nothing stored

    assert api.post_items(key, [b"%d" % i for i in range(500)]).status_code == 200
    assert api.vault("GET", key).json()["idx"] == 500


def test_list_limit_default_and_maximum_1000(api: Api) -> None:
    key = Key.generate()
    for start in (0, 500, 1000):
        count = 500 if start < 1000 else 5
        items = [b"%d" % i for i in range(start, start + count)]
        assert api.post_items(key, items).status_code == 200
    r = api.vault("GET", key)
    body = r.json()
    assert len(body["vault"]) == 1000
    assert body["idx"] == 1000
    assert _data(body["vault"][-1:]) == [b"999"]
    # Above the maximum is capped, not an error.
    assert len(api.vault("GET", key, query="limit=5000").json()["vault"]) == 1000
    r = api.vault("GET", key, query="idx=1000")
    assert [i["idx"] for i in r.json()["vault"]] == [1001, 1002, 1003, 1004, 1005]
    for bad in ("limit=0", "limit=x", "idx=-1"):
        r = api.vault("GET", key, query=bad)
        assert r.status_code == 400, bad


def test_bad_bodies(api: Api) -> None:
    key = Key.generate()
    for body in (b"", b"{}", b"[1]", b'[{"data":"not base64!"}]', b"not json"):
        r = api.vault("POST", key, body)
        assert r.status_code == 400, body
        assert r.json()["error"]["code"] == 400


def test_delete_then_every_method_is_404(api: Api) -> None:
    key = Key.generate()
    assert api.post_items(key, [b"secret"] * 3).status_code == 200
    r = api.vault("DELETE", key)
    assert r.status_code == 200, r.text
    assert r.json() == {}
    gone = {"error": {"code": 404, "message": "vault was deleted"}}
    for method, body in (
        ("GET", b""),
        ("POST", b'[{"data":"AA=="}]'),
        ("PUT", b'[{"data":"AA=="}]'),
        ("DELETE", b""),
    ):
        r = api.vault(method, key, body)
        assert r.status_code == 404, method
        assert r.json() == gone


def test_delete_of_a_vault_never_written(api: Api) -> None:
    """keys.pub marks the vault deleted first, then finds no items: 404, and it stays deleted."""
    key = Key.generate()
    r = api.vault("DELETE", key)
    assert r.status_code == 404
    assert r.json()["error"]["message"] == "vault not found"
    assert api.vault("GET", key).json()["error"]["message"] == "vault was deleted"


def test_invalid_path_kid_is_400(api: Api) -> None:
    key = Key.generate()
    r = api.vault("GET", key, path_kid="kex1notakid")
    assert r.status_code == 400


def _forbidden(r: httpx.Response, message: str) -> None:
    assert r.status_code == 403, r.text
    assert r.headers["content-type"] == "application/json"
    error = r.json()["error"]
    assert error["code"] == 403
    assert message in error["message"], error["message"]


def test_missing_header(api: Api) -> None:
    key = Key.generate()
    r = api.http.get(f"{api.base}/vault/{key.kid}?nonce={b62encode(os.urandom(32))}&ts={now_ms()}")
    _forbidden(r, "missing Authorization header")


def test_malformed_header(api: Api) -> None:
    key = Key.generate()
    signed = sign_request(key, "GET", f"{api.base}/vault/{key.kid}")
    for header in ("nonsense", f"{signed.authorization}:extra"):
        r = api.http.get(signed.url, headers={"Authorization": header})
        _forbidden(r, "invalid Authorization header")
    kid, sig = signed.authorization.split(":")
    r = api.http.get(signed.url, headers={"Authorization": f"{kid}:%%%"})
    _forbidden(r, "invalid signature encoding")
    r = api.http.get(signed.url, headers={"Authorization": f"{key.kbx}:{sig}"})
    _forbidden(r, "invalid kid in Authorization header")


def test_wrong_kid(api: Api) -> None:
    alice, bob = Key.generate(), Key.generate()
    assert api.post_items(bob, [b"bob's"]).status_code == 200
    # Alice signs correctly with her own key but asks for Bob's vault.
    r = api.vault("GET", alice, path_kid=bob.kid)
    _forbidden(r, "kid mismatch")


def test_bad_signature(api: Api) -> None:
    alice, mallory = Key.generate(), Key.generate()
    # Mallory signs, claiming to be Alice.
    r = api.vault("GET", mallory, path_kid=alice.kid, header_kid=alice.kid)
    _forbidden(r, "invalid signature")


def test_signature_covers_the_public_url(api: Api) -> None:
    key = Key.generate()
    signed = sign_request(key, "GET", f"https://elsewhere.example/vault/{key.kid}")
    target = signed.url.split("elsewhere.example", 1)[1]
    r = api.http.get(api.base + target, headers={"Authorization": signed.authorization})
    _forbidden(r, "invalid signature")


def test_raw_target_is_signed_as_sent(api: Api) -> None:
    """The server signs over the request target exactly as sent: no re-ordering or re-encoding."""
    key = Key.generate()
    assert api.post_items(key, [b"x"]).status_code == 200
    url = f"{api.base}/vault/{key.kid}?ts={now_ms()}&limit=%31&nonce={b62encode(os.urandom(32))}&idx=0"
    signature = key.sign_detached(f"GET,{url},".encode())
    auth = f"{key.kid}:{base64.b64encode(signature).decode()}"
    r = api.http.send(httpx.Request("GET", url, headers={"Authorization": auth}))
    assert r.status_code == 200, r.text
    assert len(r.json()["vault"]) == 1


def test_old_and_future_ts(api: Api) -> None:
    key = Key.generate()
    assert api.post_items(key, [b"x"]).status_code == 200
    thirty_one_minutes = 31 * 60 * 1000
    _forbidden(api.vault("GET", key, ts=now_ms() - thirty_one_minutes), "timestamp is invalid")
    _forbidden(api.vault("GET", key, ts=now_ms() + thirty_one_minutes), "timestamp is invalid")
    assert api.vault("GET", key, ts=now_ms() - 29 * 60 * 1000).status_code == 200


def test_reused_nonce(api: Api) -> None:
    key = Key.generate()
    nonce = os.urandom(32)
    assert api.post_items(key, [b"x"]).status_code == 200
    assert api.vault("GET", key, nonce=nonce).status_code == 200
    _forbidden(api.vault("GET", key, nonce=nonce), "nonce collision")
    # A nonce is global: another key cannot reuse it either.
    other = Key.generate()
    _forbidden(api.vault("GET", other, nonce=nonce), "nonce collision")


def test_nonce_and_ts_required_and_well_formed(api: Api) -> None:
    key = Key.generate()
    assert api.post_items(key, [b"x"]).status_code == 200
    cases = {
        f"ts={now_ms()}": "nonce is missing",
        f"nonce=abc!def&ts={now_ms()}": "nonce is invalid",
        f"nonce={b62encode(os.urandom(15))}&ts={now_ms()}": "nonce is too short",
        f"nonce={b62encode(os.urandom(32))}": "timestamp (ts) is missing",
        f"nonce={b62encode(os.urandom(32))}&ts=soon": "timestamp (ts) is invalid",
    }
    for query, message in cases.items():
        url = f"{api.base}/vault/{key.kid}?{query}"
        signature = key.sign_detached(f"GET,{url},".encode())
        auth = f"{key.kid}:{base64.b64encode(signature).decode()}"
        _forbidden(api.http.get(url, headers={"Authorization": auth}), message)
    # 16 bytes is enough.
    assert api.vault("GET", key, nonce=os.urandom(16)).status_code == 200


def test_tampered_body(api: Api) -> None:
    key = Key.generate()
    body = msgspec.json.encode([{"data": "AAAA"}])
    signed = sign_request(key, "POST", f"{api.base}/vault/{key.kid}", body)
    tampered = msgspec.json.encode([{"data": "BBBB"}])
    r = api.http.post(signed.url, content=tampered, headers={"Authorization": signed.authorization})
    _forbidden(r, "invalid signature")
    # The same signature with the original body still works: nothing burned the nonce.
    r = api.http.post(signed.url, content=body, headers={"Authorization": signed.authorization})
    assert r.status_code == 200


async def test_concurrent_posts_keep_arrival_order(server: KeyServerProcess) -> None:
    key = Key.generate()
    batches = [[b"%d-%d" % (b, i) for i in range(50)] for b in range(10)]

    async with httpx.AsyncClient(timeout=20) as http:

        async def post(batch: list[bytes]) -> None:
            body = msgspec.json.encode([{"data": base64.b64encode(i).decode()} for i in batch])
            signed = sign_request(key, "POST", f"{server.url}/vault/{key.kid}", body)
            r = await http.post(
                signed.url, content=body, headers={"Authorization": signed.authorization}
            )
            assert r.status_code == 200, r.text

        async with trio.open_nursery() as nursery:
            for batch in batches:
                nursery.start_soon(post, batch)

        signed = sign_request(key, "GET", f"{server.url}/vault/{key.kid}")
        r = await http.get(signed.url, headers={"Authorization": signed.authorization})
    items = r.json()["vault"]
    assert [i["idx"] for i in items] == list(range(1, 501))
    data = _data(items)
    # Each request's items are stored together and in order.
    runs = [data[i : i + 50] for i in range(0, 500, 50)]
    assert sorted(runs) == sorted(batches)
    stamps = [i["ts"] for i in items]
    assert stamps == sorted(stamps)
    assert time.time() * 1000 >= stamps[-1]


@pytest.mark.parametrize("method", ["PATCH", "HEAD"])
def test_vault_wrong_method(api: Api, method: str) -> None:
    key = Key.generate()
    r = api.http.request(method, f"{api.base}/vault/{key.kid}")
    assert r.status_code == 405
    assert r.headers["allow"] == "DELETE, GET, POST, PUT"
