"""The issue's three vectors (seed 0x01 x 32), plus keys.pub's armor vector."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keyserver import armor, keys, sigchain
from keyserver.auth import AuthRequest, authorize

from .client import Key, Sigchain, sign_request
from .conftest import Api

SEED = b"\x01" * 32
KID = "kex132yw8ht5p8cetl2jmvknewjawt9xwzdlrk2pyxlnwjyqrdq0dawqqph077"
KBX = "kbx1rvd43h2sag2tvrdp0duse5p82nvhpjd6hpjwhv7q7vqklega8atshec5ws"
NONCE = "0El6XFXwsUFD8J2vGxsaboW7rZYnQRBP5d9erwRwd29"
REQUEST_SIG = (
    "K0KnYYnx+VnhpRS0lBJVfwSaYa3zweapGtc87Uh4h1pfv/VeVMaS/YRD/d+Y+U3ANFMkR+OFGRYniWirFK3sBg=="
)
STATEMENT = (
    b'{".sig":"j5FZVQKWrnclXHHHIVX7JZ0letgR22cGl7ItlAUHqEsW+kCCMZvDBGEunVJScjVphrqGrPb7oCuMZouGv7GwCQ==",'
    b'"data":"dGVzdGluZw==","kid":"kex132yw8ht5p8cetl2jmvknewjawt9xwzdlrk2pyxlnwjyqrdq0dawqqph077",'
    b'"seq":1,"ts":1234567890001}'
)


def test_kid_and_kbx_vector() -> None:
    key = Key(SEED)
    assert key.kid == KID
    assert keys.kbx_for_kex(keys.parse_kid(KID)) == KBX
    parsed = keys.parse_kid(KBX)
    assert parsed.type == "kbx"
    assert str(parsed) == KBX
    # Classic bech32: the same data under bech32m's constant would not parse.
    assert keys.bech32_decode(KID) == ("kex", bytes(key.signing_key.verify_key))


@pytest.mark.parametrize(
    "bad",
    [
        KID[:-1] + ("q" if KID[-1] != "q" else "p"),  # checksum
        KID.upper(),  # a second spelling
        "kpe1" + KID[4:],  # unknown type
        KID[:20],
        "",
    ],
)
def test_kid_rejects(bad: str) -> None:
    with pytest.raises(keys.InvalidKeyId):
        keys.parse_kid(bad)


def test_request_signature_vector() -> None:
    key = Key(SEED)
    url = f"https://keys.pub/vault/{KID}?idx=123"
    signed = sign_request(key, "GET", url, nonce=armor.b62decode(NONCE), ts=1234567890001)
    assert signed.url == f"https://keys.pub/vault/{KID}?idx=123&nonce={NONCE}&ts=1234567890001"
    assert signed.authorization == f"{KID}:{REQUEST_SIG}"

    # The server's check accepts exactly that request at that time, once.
    seen: set[str] = set()

    def claim(nonce: str, now: int) -> bool:
        fresh = nonce not in seen
        seen.add(nonce)
        return fresh

    request = AuthRequest(
        method="GET",
        url=signed.url,
        query=signed.url.split("?", 1)[1],
        authorization=signed.authorization,
        body=b"",
    )
    assert str(authorize(request, KID, 1234567890001, claim)) == KID
    with pytest.raises(Exception, match="nonce collision"):
        authorize(request, KID, 1234567890001, claim)


def test_statement_vector_bytes() -> None:
    chain = Sigchain(Key(SEED))
    st = chain.next(b"testing", ts=1234567890001)
    assert st.to_bytes() == STATEMENT
    parsed = sigchain.parse_statement(STATEMENT)
    assert parsed.to_bytes() == STATEMENT
    assert parsed.data == b"testing"
    assert parsed.seq == 1


def test_statement_vector_over_http(api: Api) -> None:
    r = api.put_statement(STATEMENT, KID, 1)
    assert r.status_code == 200, r.text
    assert r.json() == {}
    r = api.http.get(f"{api.base}/sigchain/{KID}")
    assert r.status_code == 200
    assert r.content == b'{"kid":"' + KID.encode() + b'","statements":[' + STATEMENT + b"]}"
    assert api.http.get(f"{api.base}/sigchain/{KID}/1").content == STATEMENT


def test_armor_matches_keys_pub() -> None:
    """keys.pub `encoding/saltpack_test.go`: 128 bytes of 0x01."""
    expected = (
        "BEGIN TEST MESSAGE.\n"
        "0El6XFXwsUFD8J2 vGxsaboW7rZYnQR BP5d9erwRwd290E l6XFXwsUFD8J2vG\n"
        "xsaboW7rZYnQRBP 5d9erwRwd290El6 XFXwsUFD8J2vGxs aboW7rZYnQRBP5d\n"
        "9erwRwd290El6XF XwsUFD8J2vGxsab oW7rZYnQRBP5d9e rwRwd29.\n"
        "END TEST MESSAGE."
    )
    assert armor.armor(b"\x01" * 128, "TEST") == expected
    assert armor.b62decode(armor.find_message(expected, False)) == b"\x01" * 128
    assert armor.b62encode(b"\x01" * 32) == NONCE


@given(st.binary(max_size=200))
def test_base62_round_trip(data: bytes) -> None:
    assert armor.b62decode(armor.b62encode(data)) == data


@pytest.mark.parametrize("bad", ["0El6XFXwsUFD8J2vGxsaboW7rZYnQRBP5d9erwRwd2!", "zzzzzzzzzz" * 5])
def test_base62_rejects(bad: str) -> None:
    with pytest.raises(armor.ArmorError):
        armor.b62decode(bad)


_KEYS_PUB_FIND = re.compile(r".*BEGIN (.*)MESSAGE\.(.*)END .*MESSAGE.*", re.DOTALL)
_TOKENS = st.sampled_from(["BEGIN ", "MESSAGE.", "MESSAGE", "END ", "x", ".", " ", "E", "\n"])


@given(st.lists(_TOKENS, max_size=12).map("".join))
def test_find_message_matches_keys_pub_regex(text: str) -> None:
    """The linear-time finder picks the same text as keys.pub's greedy regex."""
    match = _KEYS_PUB_FIND.match(text)
    expected = "" if match is None else re.sub(r"[^0-9A-Za-z]", "", match.group(2))
    assert armor.find_message(text, False) == expected
