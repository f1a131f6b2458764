"""Saltpack's BaseX (base62, 32-byte blocks) and the `BEGIN MESSAGE.` armor keys.pub wraps around
user proofs.

A keys.pub user proof is a NaCl combined signature (64-byte Ed25519 signature, then the signed
bytes) of the user JSON `{"k":..,"n":..,"sr":..}`, base62 encoded in 32-byte blocks (43
characters each), broken into 15-character words and framed by `BEGIN MESSAGE.` / `END MESSAGE.`
with no brand. Finding the message in a page and decoding it follow keys.pub's
`encoding.FindSaltpack` and `DecodeSaltpack`.
"""

from __future__ import annotations

import html
import re
from typing import Final

ALPHABET: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_INDEX: Final = {c: i for i, c in enumerate(ALPHABET)}
_BLOCK_BYTES: Final = 32


class ArmorError(ValueError):
    """Text that is not valid saltpack base62."""


def _chars_for_bytes(n: int) -> int:
    """The fewest base62 characters that can hold n bytes."""
    c = 0
    while 62**c < 256**n:
        c += 1
    return c


_CHARS_FOR: Final = [_chars_for_bytes(n) for n in range(_BLOCK_BYTES + 1)]
_BYTES_FOR: Final = {c: n for n, c in enumerate(_CHARS_FOR)}
_BLOCK_CHARS: Final = _CHARS_FOR[_BLOCK_BYTES]  # 43


def b62encode(data: bytes) -> str:
    out: list[str] = []
    for start in range(0, len(data), _BLOCK_BYTES):
        block = data[start : start + _BLOCK_BYTES]
        value = int.from_bytes(block, "big")
        chars = [ALPHABET[0]] * _CHARS_FOR[len(block)]
        for i in range(len(chars) - 1, -1, -1):
            value, digit = divmod(value, 62)
            chars[i] = ALPHABET[digit]
        out.append("".join(chars))
    return "".join(out)


def b62decode(text: str) -> bytes:
    """Strict decoding: only the 62 alphabet characters, a valid final block length, no overflow."""
    out = bytearray()
    for start in range(0, len(text), _BLOCK_CHARS):
        block = text[start : start + _BLOCK_CHARS]
        n = _BYTES_FOR.get(len(block))
        if n is None:
            raise ArmorError(f"invalid base62 block length {len(block)}")
        value = 0
        for ch in block:
            digit = _INDEX.get(ch)
            if digit is None:
                raise ArmorError(f"invalid base62 character {ch!r}")
            value = value * 62 + digit
        if value >= 256**n:
            raise ArmorError("base62 block overflows its byte length")
        out += value.to_bytes(n, "big")
    return bytes(out)


def armor(data: bytes, brand: str = "") -> str:
    """`BEGIN MESSAGE.` armor as keys.pub writes it (15-character words, four to a line)."""
    body = b62encode(data) + "."
    words = [body[i : i + 15] for i in range(0, len(body), 15)]
    lines = [" ".join(words[i : i + 4]) for i in range(0, len(words), 4)]
    label = f"{brand} MESSAGE." if brand else "MESSAGE."
    return f"BEGIN {label}\n" + "\n".join(lines) + f"\nEND {label}"


_TAGS: Final = re.compile(r"</?[^>]+(>|$)")
_NOT_BASE62: Final = re.compile(r"[^0-9A-Za-z]")


def _armored_body(text: str) -> str | None:
    """The text between `BEGIN ...MESSAGE.` and `END ...MESSAGE`, chosen exactly as keys.pub's
    greedy `(?s).*BEGIN (.*)MESSAGE\\.(.*)END .*MESSAGE.*` chooses it, in linear time (the
    regex backtracks quadratically on hostile pages)."""
    last_message = text.rfind("MESSAGE")
    end = text.rfind("END ", 0, last_message) if last_message >= 0 else -1
    message = text.rfind("MESSAGE.", 0, end) if end >= 0 else -1
    begin = text.rfind("BEGIN ", 0, message) if message >= 0 else -1
    if begin < 0:
        return None
    return text[message + len("MESSAGE.") : end]


def find_message(text: str, is_html: bool) -> str:
    """The base62 characters of the armored message in `text`, or "" when there is none.

    Like keys.pub: HTML entities are unescaped (and tags dropped) for web pages, literal `\\n`
    escapes are removed, then every character outside the alphabet is dropped.
    """
    if is_html:
        text = html.unescape(text)
    body = _armored_body(text)
    if body is None:
        return ""
    body = body.replace("\\n", "")
    if is_html:
        body = _TAGS.sub("", body)
    return _NOT_BASE62.sub("", body)
