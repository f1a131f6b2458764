"""Request authorization of vault routes, as keys.pub clients sign requests.

Header `Authorization: <kid>:<base64 detached Ed25519 signature>`; the signed string is
`METHOD + "," + URL + "," + contentHash` where URL is the server's public origin followed by the
raw request target exactly as received, and contentHash is base64(SHA-256(body)) or "" for an
empty body. The query carries `nonce` (saltpack base62, at least 16 bytes) and `ts` (Unix ms,
within 30 minutes of the server clock); a nonce is accepted once (the caller's replay store keeps
it an hour). Pure: the clock and the replay store are passed in.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final
from urllib.parse import parse_qs

from .armor import ArmorError, b62decode
from .keys import InvalidKeyId, KeyId, parse_signing_kid, verify_detached
from .sigchain import b64decode

MAX_CLOCK_SKEW_MS: Final = 30 * 60 * 1000
NONCE_TTL_MS: Final = 60 * 60 * 1000
MIN_NONCE_BYTES: Final = 16
NONCE_REUSED: Final = "nonce collision, the nonce was already used"


class AuthError(Exception):
    """An authorization failure; always answered 403 with this message."""


def content_hash(body: bytes) -> str:
    if not body:
        return ""
    return base64.b64encode(hashlib.sha256(body).digest()).decode("ascii")


@dataclass(frozen=True, slots=True)
class AuthRequest:
    method: str
    url: str  # public origin + raw request target
    query: str  # raw query string (without "?")
    authorization: str | None
    body: bytes


# claim(nonce, now_ms) -> True when the nonce was not seen in the last hour (and records it).
ClaimNonce = Callable[[str, int], bool]


def _query_value(query: dict[str, list[str]], name: str) -> str:
    values = query.get(name)
    return values[0] if values else ""


@dataclass(frozen=True, slots=True)
class Credentials:
    """What the headers and query of a request claim, checked before its body is read: only a
    signature over the body (and the nonce's first use) is left to check."""

    kid: KeyId
    signature: bytes
    nonce: str

    def check_signature(self, req: AuthRequest) -> KeyId:
        """The claimed key, once its signature over `req` (its body included) holds; AuthError
        otherwise. The nonce is the caller's to claim next (`verify`, or an async replay store
        with NONCE_REUSED as its refusal)."""
        message = f"{req.method},{req.url},{content_hash(req.body)}".encode()
        if not verify_detached(self.kid, self.signature, message):
            raise AuthError("invalid signature")
        return self.kid

    def verify(self, req: AuthRequest, claim_nonce: ClaimNonce, now_ms: int) -> KeyId:
        """The authorized key, once the signature over `req` (its body included) holds and the
        nonce was not used before; AuthError otherwise."""
        key = self.check_signature(req)
        # Last, so that a request rejected for another reason does not burn its nonce.
        if not claim_nonce(self.nonce, now_ms):
            raise AuthError(NONCE_REUSED)
        return key


def credentials(req: AuthRequest, path_kid: str, now_ms: int) -> Credentials:
    """Everything that can be checked without the body (header shape, kid, signature encoding,
    nonce, timestamp window), so that a request with no valid claim is refused before a byte of
    its body is buffered; AuthError otherwise. `req.body` is not read."""
    if not req.authorization:
        raise AuthError("missing Authorization header")
    fields = req.authorization.split(":")
    if len(fields) != 2:
        raise AuthError("invalid Authorization header, expected <kid>:<signature>")
    header_kid, header_sig = fields
    try:
        kid = parse_signing_kid(header_kid)
    except InvalidKeyId as exc:
        raise AuthError(f"invalid kid in Authorization header: {exc}") from None
    if header_kid != path_kid:
        raise AuthError("kid mismatch: Authorization kid is not the kid in the path")
    try:
        signature = b64decode(header_sig)
    except ValueError:
        raise AuthError("invalid signature encoding, expected base64") from None

    query = parse_qs(req.query, keep_blank_values=True)
    nonce = _query_value(query, "nonce")
    if not nonce:
        raise AuthError("nonce is missing")
    try:
        nonce_bytes = b62decode(nonce)
    except ArmorError:
        raise AuthError("nonce is invalid, expected base62") from None
    if len(nonce_bytes) < MIN_NONCE_BYTES:
        raise AuthError(f"nonce is too short, expected at least {MIN_NONCE_BYTES} bytes")

    ts_text = _query_value(query, "ts")
    if not ts_text:
        raise AuthError("timestamp (ts) is missing")
    if not ts_text.isascii() or not ts_text.isdigit() or len(ts_text) > 19:
        raise AuthError("timestamp (ts) is invalid, expected Unix milliseconds")
    diff = abs(now_ms - int(ts_text))
    if diff > MAX_CLOCK_SKEW_MS:
        raise AuthError(f"timestamp is invalid, diff {diff}ms is more than 30 minutes")
    return Credentials(kid, signature, nonce)


def authorize(req: AuthRequest, path_kid: str, now_ms: int, claim_nonce: ClaimNonce) -> KeyId:
    """Check the whole request; return the authorized key or raise AuthError."""
    return credentials(req, path_kid, now_ms).verify(req, claim_nonce, now_ms)
