"""Key identifiers: classic BIP-173 bech32 of a 32-byte public key, as keys.pub spells them.

`kex1...` is an EdX25519 key (the Ed25519 public key; the only type allowed to sign) and
`kbx1...` is the same key converted to X25519. The conversion only goes one way, so the server
learns a kbx -> kex mapping from the kex keys it sees (see `kbx_for_kex`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import nacl.bindings
import nacl.exceptions
import nacl.signing

EDX25519: Final = "kex"
X25519: Final = "kbx"
KEY_TYPES: Final = (EDX25519, X25519)

_CHARSET: Final = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_CHARSET_REV: Final = {c: i for i, c in enumerate(_CHARSET)}
_GENERATOR: Final = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


class InvalidKeyId(ValueError):
    """The string is not a kex/kbx key id."""


def _polymod(values: list[int]) -> int:
    chk = 1
    for value in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            chk ^= _GENERATOR[i] if ((top >> i) & 1) else 0
    return chk


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(x) >> 5 for x in hrp] + [0] + [ord(x) & 31 for x in hrp]


def _convert_bits(data: bytes | list[int], from_bits: int, to_bits: int, pad: bool) -> list[int]:
    acc = 0
    bits = 0
    out: list[int] = []
    maxv = (1 << to_bits) - 1
    for value in data:
        if value < 0 or value >> from_bits:
            raise InvalidKeyId("invalid data value")
        acc = (acc << from_bits) | value
        bits += from_bits
        while bits >= to_bits:
            bits -= to_bits
            out.append((acc >> bits) & maxv)
    if pad:
        if bits:
            out.append((acc << (to_bits - bits)) & maxv)
    elif bits >= from_bits or ((acc << (to_bits - bits)) & maxv):
        raise InvalidKeyId("invalid padding")
    return out


def bech32_encode(hrp: str, data: bytes) -> str:
    """Classic BIP-173 bech32 (constant 1, not bech32m) of `data` under `hrp`."""
    five = _convert_bits(data, 8, 5, pad=True)
    polymod = _polymod([*_hrp_expand(hrp), *five, 0, 0, 0, 0, 0, 0]) ^ 1
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(_CHARSET[d] for d in five + checksum)


def bech32_decode(text: str) -> tuple[str, bytes]:
    """Inverse of `bech32_encode`; raises InvalidKeyId on anything that is not valid bech32."""
    if not text or len(text) > 1023:
        raise InvalidKeyId("invalid length")
    if any(ord(c) < 33 or ord(c) > 126 for c in text):
        raise InvalidKeyId("invalid character")
    if text.lower() != text and text.upper() != text:
        raise InvalidKeyId("mixed case")
    text = text.lower()
    pos = text.rfind("1")
    if pos < 1 or pos + 7 > len(text):
        raise InvalidKeyId("invalid separator position")
    hrp = text[:pos]
    try:
        data = [_CHARSET_REV[c] for c in text[pos + 1 :]]
    except KeyError:
        raise InvalidKeyId("invalid character") from None
    if _polymod(_hrp_expand(hrp) + data) != 1:
        raise InvalidKeyId("invalid checksum")
    return hrp, bytes(_convert_bits(data[:-6], 5, 8, pad=False))


@dataclass(frozen=True, slots=True)
class KeyId:
    """A parsed key id: its type (`kex` or `kbx`) and its 32 public key bytes."""

    type: str
    public_key: bytes

    def __str__(self) -> str:
        return bech32_encode(self.type, self.public_key)


def parse_kid(text: str) -> KeyId:
    """Parse a kex/kbx key id; raise InvalidKeyId otherwise."""
    if text != text.lower():
        # keys.pub ids are lower case; an upper-case id would be a second spelling of one key.
        raise InvalidKeyId("key id must be lower case")
    hrp, data = bech32_decode(text)
    if hrp not in KEY_TYPES:
        raise InvalidKeyId(f"unknown key type {hrp!r}")
    if len(data) != 32:
        raise InvalidKeyId("key id must hold 32 bytes")
    return KeyId(hrp, data)


def parse_signing_kid(text: str) -> KeyId:
    """Parse a key id that can sign: an EdX25519 `kex` id."""
    kid = parse_kid(text)
    if kid.type != EDX25519:
        raise InvalidKeyId("not an EdX25519 (kex) key")
    return kid


def kex_for_public_key(public_key: bytes) -> str:
    return bech32_encode(EDX25519, public_key)


def kbx_for_kex(kid: KeyId) -> str:
    """The X25519 (kbx) id of an EdX25519 key; raises InvalidKeyId for a point off the curve."""
    if kid.type != EDX25519:
        raise InvalidKeyId("not an EdX25519 (kex) key")
    try:
        x25519 = nacl.bindings.crypto_sign_ed25519_pk_to_curve25519(kid.public_key)
    except nacl.exceptions.CryptoError as exc:
        raise InvalidKeyId("not a valid Ed25519 public key") from exc
    return bech32_encode(X25519, x25519)


def verify_detached(kid: KeyId, signature: bytes, message: bytes) -> bool:
    """True when `signature` is a valid Ed25519 signature of `message` by `kid`."""
    if kid.type != EDX25519 or len(signature) != 64:
        return False
    try:
        nacl.signing.VerifyKey(kid.public_key).verify(message, signature)
    except nacl.exceptions.CryptoError:
        return False
    return True


def open_signed(kid: KeyId, signed: bytes) -> bytes | None:
    """Open a NaCl combined signed message (signature then message); None when invalid."""
    if kid.type != EDX25519 or len(signed) < 64:
        return None
    try:
        return bytes(nacl.signing.VerifyKey(kid.public_key).verify(signed))
    except nacl.exceptions.CryptoError:
        return None
