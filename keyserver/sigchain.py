"""Sigchain statements in keys.pub's canonical form, and the rules for appending one to a chain.

Canonical bytes: compact JSON, keys in the order `.sig`, `data`, `kid`, `prev`, `revoke`, `seq`,
`ts`, `type`, each omitted when empty or zero (`.sig`, `kid` and `seq` always present). Strings
are written raw, as keys.pub's `json.Marshal` does: printable ASCII without quotes or
backslashes, so there is exactly one spelling. The signature covers the same bytes with
`".sig":""`. A statement is accepted only when its bytes re-serialize byte for byte.
Pure functions; no I/O.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import msgspec

from .keys import InvalidKeyId, parse_signing_kid, verify_detached

MAX_DATA_BYTES: Final = 16 * 1024
REVOKE_TYPE: Final = "revoke"
# The store keeps integers as SQLite INTEGER (signed 64-bit), as keys.pub keeps int64.
MAX_INT: Final = 2**63 - 1
USER_TYPE: Final = "user"


class StatementError(ValueError):
    """The statement is malformed, badly signed or does not extend the chain (HTTP 400)."""


class _Wire(msgspec.Struct, forbid_unknown_fields=True):
    sig: str = msgspec.field(name=".sig")
    kid: str
    seq: int
    data: str = ""
    prev: str = ""
    revoke: int = 0
    ts: int = 0
    type: str = ""


_DECODER: Final = msgspec.json.Decoder(_Wire)


def _plain(value: str, name: str) -> str:
    if not all(0x20 <= ord(c) < 0x7F and c not in '"\\' for c in value):
        raise StatementError(f"invalid character in {name}")
    return value


def b64encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def b64decode(text: str) -> bytes:
    """Standard padded base64, strictly (no whitespace, no stray characters)."""
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise ValueError("invalid base64") from exc


def canonical_json(fields: list[tuple[str, str | int]]) -> bytes:
    """keys.pub's ordered compact JSON writer: raw ASCII strings and decimal integers."""
    parts = []
    for key, value in fields:
        if isinstance(value, int):
            parts.append(f'"{key}":{value}')
        else:
            parts.append(f'"{key}":"{_plain(value, key)}"')
    return ("{" + ",".join(parts) + "}").encode("ascii")


@dataclass(frozen=True, slots=True)
class Statement:
    kid: str
    seq: int
    sig: bytes = b""
    data: bytes = b""
    prev: bytes = b""
    revoke: int = 0
    ts: int = 0
    type: str = ""

    def _fields(self, sig: str) -> list[tuple[str, str | int]]:
        fields: list[tuple[str, str | int]] = [(".sig", sig)]
        if self.data:
            fields.append(("data", b64encode(self.data)))
        fields.append(("kid", self.kid))
        if self.prev:
            fields.append(("prev", b64encode(self.prev)))
        if self.revoke:
            fields.append(("revoke", self.revoke))
        fields.append(("seq", self.seq))
        if self.ts:
            fields.append(("ts", self.ts))
        if self.type:
            fields.append(("type", self.type))
        return fields

    def bytes_to_sign(self) -> bytes:
        return canonical_json(self._fields(""))

    def to_bytes(self) -> bytes:
        return canonical_json(self._fields(b64encode(self.sig) if self.sig else ""))

    def hash(self) -> bytes:
        """SHA-256 of the full canonical bytes: the next statement's `prev`."""
        return hashlib.sha256(self.to_bytes()).digest()


def parse_statement(raw: bytes) -> Statement:
    """Decode and check one statement: canonical bytes, sizes and signature."""
    try:
        wire = _DECODER.decode(raw)
    except msgspec.DecodeError as exc:
        raise StatementError(f"invalid statement: {exc}") from None
    try:
        kid = parse_signing_kid(wire.kid)
    except InvalidKeyId as exc:
        raise StatementError(f"invalid statement kid: {exc}") from None
    try:
        sig = b64decode(wire.sig)
        data = b64decode(wire.data)
        prev = b64decode(wire.prev)
    except ValueError:
        raise StatementError("invalid base64 in statement") from None
    if len(data) > MAX_DATA_BYTES:
        raise StatementError("too much data for sigchain statement (greater than 16KiB)")
    if not 1 <= wire.seq <= MAX_INT:
        raise StatementError("invalid statement seq")
    if not (0 <= wire.ts <= MAX_INT and 0 <= wire.revoke <= MAX_INT):
        raise StatementError("invalid statement fields")
    if prev and len(prev) != 32:
        raise StatementError("invalid statement prev")
    st = Statement(
        kid=wire.kid,
        seq=wire.seq,
        sig=sig,
        data=data,
        prev=prev,
        revoke=wire.revoke,
        ts=wire.ts,
        type=_plain(wire.type, "type"),
    )
    if st.to_bytes() != raw:
        raise StatementError("statement bytes don't match specific serialization")
    if not st.data and st.type != REVOKE_TYPE:
        raise StatementError("statement has no data")
    if not verify_detached(kid, sig, st.bytes_to_sign()):
        raise StatementError("invalid statement signature")
    return st


def sign_statement(st: Statement, sign: Callable[[bytes], bytes]) -> Statement:
    """Fill in the signature (for tools and tests that hold the private key)."""
    return dataclasses.replace(st, sig=sign(st.bytes_to_sign()))


@dataclass(frozen=True, slots=True)
class ChainTip:
    """The last statement of a chain, as the append rules need it."""

    seq: int
    hash: bytes


def check_append(st: Statement, tip: ChainTip | None, revoked_revoke: int) -> None:
    """Raise StatementError unless `st` extends the chain whose last statement is `tip` (None:
    empty chain). `revoked_revoke` is the `revoke` field of the statement `st` revokes (0 when
    that one revokes nothing or `st` revokes nothing)."""
    if tip is None:
        if st.seq != 1:
            raise StatementError(f"invalid sigchain sequence expected 1, got {st.seq}")
        if st.prev:
            raise StatementError("invalid sigchain previous, expected empty")
    else:
        if st.seq != tip.seq + 1:
            raise StatementError(f"invalid sigchain sequence expected {tip.seq + 1}, got {st.seq}")
        if st.prev != tip.hash:
            raise StatementError(f"invalid sigchain previous, expected {b64encode(tip.hash)}")
    if st.revoke:
        if st.revoke >= st.seq:
            raise StatementError("revoke must name an earlier statement")
        if revoked_revoke:
            raise StatementError("revoking a revoke is unsupported")
