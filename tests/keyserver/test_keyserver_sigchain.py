"""Sigchains over real HTTP: canonical bytes, prev and revoke rules, sizes, 409s."""

from __future__ import annotations

import os

import pytest

from .client import Key, Sigchain, Statement
from .conftest import Api, Proof, make_proof, serve_proof, user_statement
from .fakes import FakeServices, Route


def _error(api_response: object, status: int, message: str) -> None:
    import httpx

    assert isinstance(api_response, httpx.Response)
    assert api_response.status_code == status, api_response.text
    error = api_response.json()["error"]
    assert error["code"] == status
    assert message in error["message"], error["message"]


def test_chain_with_prev_and_revoke(api: Api) -> None:
    chain = Sigchain(Key.generate())
    kid = chain.key.kid
    first = api.add(chain, chain.next(b"one", type="note"))
    second = api.add(chain, chain.next(b"two"))
    third = api.add(chain, chain.next(type="revoke", revoke=2))
    assert b'"prev"' not in first
    assert b'"revoke":2' in third

    r = api.http.get(f"{api.base}/sigchain/{kid}")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert body["kid"] == kid
    assert [st["seq"] for st in body["statements"]] == [1, 2, 3]
    # Statements come back in their canonical bytes.
    expected = b'{"kid":"%s","statements":[%s,%s,%s]}' % (kid.encode(), first, second, third)
    assert r.content == expected
    assert api.http.get(f"{api.base}/sigchain/{kid}/2").content == second


def test_sequence_and_prev_rules(api: Api) -> None:
    chain = Sigchain(Key.generate())
    # seq 1 must be first and have no prev.
    skipped = Statement(chain.key.kid, 2, b"x", prev=os.urandom(32), ts=1)
    skipped.sig = chain.key.sign_detached(skipped.bytes_to_sign())
    _error(api.put_statement(skipped), 400, "invalid sigchain sequence expected 1, got 2")
    with_prev = Statement(chain.key.kid, 1, b"x", prev=os.urandom(32), ts=1)
    with_prev.sig = chain.key.sign_detached(with_prev.bytes_to_sign())
    _error(api.put_statement(with_prev), 400, "expected empty")

    api.add(chain, chain.next(b"one"))
    # seq N must be last + 1.
    gap = Statement(chain.key.kid, 3, b"x", prev=os.urandom(32), ts=1)
    gap.sig = chain.key.sign_detached(gap.bytes_to_sign())
    _error(api.put_statement(gap), 400, "expected 2, got 3")
    # prev must be the hash of the previous statement's full bytes.
    wrong_prev = Statement(chain.key.kid, 2, b"x", prev=os.urandom(32), ts=1)
    wrong_prev.sig = chain.key.sign_detached(wrong_prev.bytes_to_sign())
    _error(api.put_statement(wrong_prev), 400, "invalid sigchain previous")
    no_prev = Statement(chain.key.kid, 2, b"x", ts=1)
    no_prev.sig = chain.key.sign_detached(no_prev.bytes_to_sign())
    _error(api.put_statement(no_prev), 400, "invalid sigchain previous")
    api.add(chain, chain.next(b"two"))


def test_revoke_rules(api: Api) -> None:
    chain = Sigchain(Key.generate())
    api.add(chain, chain.next(b"one"))
    _error(api.put_statement(chain.next(type="revoke", revoke=2)), 400, "earlier statement")
    _error(api.put_statement(chain.next(type="revoke", revoke=5)), 400, "earlier statement")
    api.add(chain, chain.next(type="revoke", revoke=1))
    # A revoke cannot be revoked.
    _error(api.put_statement(chain.next(type="revoke", revoke=2)), 400, "revoking a revoke")


def test_data_required_unless_revoke(api: Api) -> None:
    chain = Sigchain(Key.generate())
    _error(api.put_statement(chain.next(type="note")), 400, "no data")
    api.add(chain, chain.next(b"x"))


def test_data_size_limit_16_kib(api: Api) -> None:
    chain = Sigchain(Key.generate())
    _error(api.put_statement(chain.next(os.urandom(16 * 1024 + 1))), 400, "16KiB")
    api.add(chain, chain.next(os.urandom(16 * 1024)))


def test_byte_exact_canonical_form(api: Api) -> None:
    chain = Sigchain(Key.generate())
    st = chain.next(b"data")
    raw = st.to_bytes()
    variants = [
        raw.replace(b'","', b'", "', 1),  # a space
        raw[:-1] + b',"extra":1}',  # an unknown field
        raw.replace(b'"seq":1', b'"seq":1.0'),
        raw + b"\n",
        raw.replace(b'"kid"', b'"kid"', 1).replace(b'{".sig"', b'{ ".sig"'),
    ]
    data_first = (
        b'{"data":"ZGF0YQ==",".sig":"'
        + raw.split(b'".sig":"')[1].split(b'"')[0]
        + b'"'
        + raw.split(b'"data":"ZGF0YQ=="')[1]
    )
    variants.append(data_first)
    for variant in variants:
        _error(api.put_statement(variant, st.kid, 1), 400, "")
    api.add(chain, st)


def test_signature_checked(api: Api) -> None:
    alice, mallory = Key.generate(), Key.generate()
    st = Statement(alice.kid, 1, b"forged", ts=1)
    st.sig = mallory.sign_detached(st.bytes_to_sign())
    _error(api.put_statement(st), 400, "invalid statement signature")
    # kbx keys cannot sign.
    st = Statement(alice.kbx, 1, b"x", ts=1)
    st.sig = alice.sign_detached(st.bytes_to_sign())
    _error(api.put_statement(st), 400, "invalid statement kid")


def test_path_must_match_statement(api: Api) -> None:
    chain = Sigchain(Key.generate())
    other = Key.generate()
    st = chain.next(b"x")
    _error(api.put_statement(st, other.kid, 1), 400, "invalid kid")
    _error(api.put_statement(st, st.kid, 2), 400, "invalid seq")
    _error(api.put_statement(b"", st.kid, 1), 400, "missing body")


def test_existing_seq_is_409(api: Api) -> None:
    chain = Sigchain(Key.generate())
    st = chain.next(b"x")
    api.add(chain, st)
    _error(api.put_statement(st), 409, "statement already exists")
    # Another statement for the same seq too.
    other = Statement(chain.key.kid, 1, b"different", ts=5)
    other.sig = chain.key.sign_detached(other.bytes_to_sign())
    _error(api.put_statement(other), 409, "statement already exists")


def test_unknown_sigchain_is_404(api: Api) -> None:
    key = Key.generate()
    _error(api.http.get(f"{api.base}/sigchain/{key.kid}"), 404, "sigchain not found")
    _error(api.http.get(f"{api.base}/sigchain/notakid"), 404, "sigchain not found")
    _error(api.http.get(f"{api.base}/sigchain/{key.kid}/1"), 404, "statement not found")
    _error(api.http.get(f"{api.base}/sigchain/{key.kid}/x"), 404, "statement not found")


def test_user_name_taken_by_another_key_is_409(api: Api, fakes: FakeServices) -> None:
    name = "u" + os.urandom(5).hex()
    first, second = Sigchain(Key.generate()), Sigchain(Key.generate())
    proof: Proof = make_proof("github", name, os.urandom(4).hex())
    serve_proof(fakes, proof, Route(body=proof.page(first.key)))
    api.add(first, user_statement(first, proof))
    api.wait_user_status(first.key.kid, "ok")

    other_proof = make_proof("github", name, os.urandom(4).hex())
    r = api.put_statement(user_statement(second, other_proof))
    _error(r, 409, f"user already exists with key {first.key.kid}")
    # The same key may restate its own user.
    api.add(first, user_statement(first, proof))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b'{"k":"%(kid)s","n":"Alice","sq":1,"sr":"github","u":"https://gist.github.com/Alice/1"}',
            "invalid github name",
        ),
        (
            b'{"k":"%(kid)s","n":"alice","sq":1,"sr":"myspace","u":"https://myspace.com/alice"}',
            "unsupported service",
        ),
        (
            b'{"k":"%(kid)s","n":"alice","sq":1,"sr":"github","u":"https://gist.github.com/bob/1"}',
            "invalid github gist url",
        ),
        (
            b'{"k":"%(kid)s","n":"alice","sq":2,"sr":"github","u":"https://gist.github.com/alice/1"}',
            "user seq",
        ),
        (
            b'{"n":"alice","k":"%(kid)s","sq":1,"sr":"github","u":"https://gist.github.com/alice/1"}',
            "canonical",
        ),
        (
            b'{"k":"kex1x","n":"alice","sq":1,"sr":"github","u":"https://gist.github.com/alice/1"}',
            "user kid",
        ),
        (b"not json", "invalid user statement data"),
    ],
)
def test_invalid_user_statement_is_400(api: Api, data: bytes, message: str) -> None:
    chain = Sigchain(Key.generate())
    st = chain.next(data % {b"kid": chain.key.kid.encode()}, type="user")
    _error(api.put_statement(st), 400, message)
