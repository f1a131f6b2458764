"""A keys.pub-style client for the tests: it signs requests, builds sigchain statements and writes
user proofs the way keys.pub clients do (keys-ext `http/api/auth.go`, keys `sigchain.go`,
`user/user.go`). It lives with the tests on purpose: the server must not share its code.
"""

from __future__ import annotations

import base64
import hashlib
import os
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import nacl.signing

from keyserver.armor import armor, b62encode
from keyserver.keys import kbx_for_kex, kex_for_public_key, parse_kid


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class Key:
    seed: bytes

    @classmethod
    def generate(cls) -> Key:
        return cls(os.urandom(32))

    @property
    def signing_key(self) -> nacl.signing.SigningKey:
        return nacl.signing.SigningKey(self.seed)

    @property
    def kid(self) -> str:
        return kex_for_public_key(bytes(self.signing_key.verify_key))

    @property
    def kbx(self) -> str:
        return kbx_for_kex(parse_kid(self.kid))

    def sign_detached(self, message: bytes) -> bytes:
        return self.signing_key.sign(message).signature

    def sign_combined(self, message: bytes) -> bytes:
        return bytes(self.signing_key.sign(message))


def content_hash(body: bytes) -> str:
    return base64.b64encode(hashlib.sha256(body).digest()).decode() if body else ""


@dataclass(frozen=True)
class SignedRequest:
    url: str
    authorization: str
    signed_string: str


def sign_request(
    key: Key,
    method: str,
    url: str,
    body: bytes = b"",
    *,
    nonce: bytes | None = None,
    ts: int | None = None,
    kid: str | None = None,
) -> SignedRequest:
    """Like keys-ext `api.newAuth`: add nonce and ts to the query (Go's sorted `Values.Encode`),
    sign `METHOD,URL,contentHash` and return the URL and `Authorization` value."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    query = [(k, v) for k, v in query if k not in ("nonce", "ts")]
    query.append(("nonce", b62encode(nonce if nonce is not None else os.urandom(32))))
    query.append(("ts", str(now_ms() if ts is None else ts)))
    signed_url = urlunsplit(parts._replace(query=urlencode(sorted(query))))
    signed_string = f"{method},{signed_url},{content_hash(body)}"
    sig = base64.b64encode(key.sign_detached(signed_string.encode())).decode()
    return SignedRequest(signed_url, f"{kid or key.kid}:{sig}", signed_string)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@dataclass
class Statement:
    kid: str
    seq: int
    data: bytes = b""
    prev: bytes = b""
    revoke: int = 0
    ts: int = 0
    type: str = ""
    sig: bytes = b""

    def _json(self, sig: str) -> bytes:
        fields = [f'".sig":"{sig}"']
        if self.data:
            fields.append(f'"data":"{_b64(self.data)}"')
        fields.append(f'"kid":"{self.kid}"')
        if self.prev:
            fields.append(f'"prev":"{_b64(self.prev)}"')
        if self.revoke:
            fields.append(f'"revoke":{self.revoke}')
        fields.append(f'"seq":{self.seq}')
        if self.ts:
            fields.append(f'"ts":{self.ts}')
        if self.type:
            fields.append(f'"type":"{self.type}"')
        return ("{" + ",".join(fields) + "}").encode()

    def bytes_to_sign(self) -> bytes:
        return self._json("")

    def to_bytes(self) -> bytes:
        return self._json(_b64(self.sig))


@dataclass
class Sigchain:
    """Builds a key's chain the way keys.pub's `GenerateStatement` / `GenerateRevoke` do."""

    key: Key
    statements: list[bytes] = field(default_factory=list)

    def next(
        self, data: bytes = b"", *, type: str = "", revoke: int = 0, ts: int | None = None
    ) -> Statement:
        prev = hashlib.sha256(self.statements[-1]).digest() if self.statements else b""
        st = Statement(
            kid=self.key.kid,
            seq=len(self.statements) + 1,
            data=data,
            prev=prev,
            revoke=revoke,
            ts=now_ms() if ts is None else ts,
            type=type,
        )
        st.sig = self.key.sign_detached(st.bytes_to_sign())
        return st

    def accept(self, st: Statement) -> bytes:
        raw = st.to_bytes()
        self.statements.append(raw)
        return raw


def user_json(kid: str, name: str, service: str, url: str = "", seq: int = 0) -> bytes:
    """keys.pub `User.Bytes`: k, n, sq (when set), sr, u (when set)."""
    fields = [f'"k":"{kid}"', f'"n":"{name}"']
    if seq:
        fields.append(f'"sq":{seq}')
    fields.append(f'"sr":"{service}"')
    if url:
        fields.append(f'"u":"{url}"')
    return ("{" + ",".join(fields) + "}").encode()


def user_proof(key: Key, name: str, service: str) -> str:
    """keys.pub `User.Sign`: the armored (no brand) combined signature of the user to sign."""
    return armor(key.sign_combined(user_json(key.kid, name, service)))
