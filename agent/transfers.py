"""Proxy and profile transfer archives: one small SQLite container, carried as base64.

Spec 1 §4 says a proxy archive is "an SQLite container, base64"; spec 2 adds that `.svcproxy` and
`.svcprofile` files share one container schema (version 1) and that legacy JSON files are rejected.
The container holds the transfer version of spec 1 (6 now; 4 and 5 import with exit detection off,
older ones also with managed provider Y off). docs/decisions.md describes the layout.

Credentials travel only when the owning app asks for them, encrypted with a passphrase: scrypt
(n=2^15, r=8, p=1) derives an AES-256-GCM key; the alias is authenticated with the ciphertext.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import apsw
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from bridge_protocol import ErrorId, SvcError

from .store import now_ms

CONTAINER_SCHEMA_VERSION = 1  # PRAGMA user_version of the container (spec 2: "version 1 schema")
TRANSFER_VERSION = 6  # the transfer version of spec 1 §4 (exit detection preserved from 6 on)
APPLICATION_ID = 0x53564354  # "SVCT"
MAX_ARCHIVE = 12 * 1024 * 1024
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**15, 8, 1

Kind = Literal["proxy", "profile"]

CONTAINER_SCHEMA: dict[str, str] = {
    "transfer": """CREATE TABLE transfer (
        kind TEXT NOT NULL,
        version INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        credentials_included INTEGER NOT NULL
    )""",
    "proxies": """CREATE TABLE proxies (
        alias TEXT NOT NULL,
        upstream_host TEXT NOT NULL,
        upstream_port INTEGER NOT NULL,
        settings TEXT NOT NULL,
        credentials TEXT
    )""",
    "profiles": """CREATE TABLE profiles (
        name TEXT NOT NULL,
        proxy_alias TEXT,
        settings TEXT NOT NULL
    )""",
}


@dataclass
class Archive:
    kind: Kind
    version: int
    credentials_included: bool
    proxies: list[dict[str, Any]] = field(default_factory=list)
    profiles: list[dict[str, Any]] = field(default_factory=list)


def invalid(message: str, field_name: str = "contents_base64", **extra: Any) -> SvcError:
    return SvcError.of(ErrorId.VALIDATION_FAILED, message, field=field_name, **extra)


def _normalize(sql: str) -> str:
    return " ".join(sql.split())


def build(archive: Archive) -> bytes:
    """The container's bytes (an SQLite database file)."""
    db = apsw.Connection(":memory:")
    try:
        db.execute("PRAGMA page_size=512")  # a one-record archive stays a few KiB
        with db:
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            db.execute(f"PRAGMA user_version={CONTAINER_SCHEMA_VERSION}")
            for sql in CONTAINER_SCHEMA.values():
                db.execute(sql)
            db.execute(
                "INSERT INTO transfer VALUES(?,?,?,?)",
                (archive.kind, archive.version, now_ms(), int(archive.credentials_included)),
            )
            for p in archive.proxies:
                db.execute(
                    "INSERT INTO proxies VALUES(?,?,?,?,?)",
                    (
                        p["alias"],
                        p["upstream_host"],
                        p["upstream_port"],
                        json.dumps(p["settings"]),
                        p.get("credentials"),
                    ),
                )
            for p in archive.profiles:
                db.execute(
                    "INSERT INTO profiles VALUES(?,?,?)",
                    (p["name"], p["proxy_alias"], json.dumps(p["settings"])),
                )
        return bytes(db.serialize("main"))
    finally:
        db.close()


def filename(name: str, extension: str) -> str:
    """A safe file name for an archive: the name's letters, digits, `.`, `-` and `_`."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "export"
    return f"{stem[:100]}.{extension}"


def encode(archive: Archive) -> str:
    raw = build(archive)
    if len(raw) > MAX_ARCHIVE:  # pragma: no cover - one proxy or profile is a few KiB
        raise invalid("the archive exceeds the 12 MiB transfer limit", limit=MAX_ARCHIVE)
    return base64.b64encode(raw).decode("ascii")


def decode(contents_base64: str, expected: Kind) -> Archive:
    """Validate and read an archive; VALIDATION_FAILED (contents_base64) when it is not one."""
    try:
        raw = base64.b64decode(contents_base64.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise invalid("contents_base64 is not valid base64") from None
    if len(raw) > MAX_ARCHIVE:
        raise invalid(
            f"the archive is {len(raw)} bytes; transfers are limited to 12 MiB", limit=MAX_ARCHIVE
        )
    if not raw.startswith(b"SQLite format 3\x00"):
        raise invalid("not a transfer archive (legacy JSON transfer files are not accepted)")
    db = apsw.Connection(":memory:")
    try:
        db.config(apsw.SQLITE_DBCONFIG_DEFENSIVE, 1)
        db.config(apsw.SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)
        try:
            db.deserialize("main", raw)
            return _read(db, expected)
        except apsw.Error as exc:
            raise invalid(f"not a readable transfer archive: {exc}") from None
    finally:
        db.close()


def _read(db: apsw.Connection, expected: Kind) -> Archive:
    app_id = db.execute("PRAGMA application_id").fetchall()[0][0]
    schema_version = db.execute("PRAGMA user_version").fetchall()[0][0]
    if app_id != APPLICATION_ID or schema_version != CONTAINER_SCHEMA_VERSION:
        raise invalid("not a transfer archive of container schema version 1")
    tables = {
        str(name): _normalize(str(sql))
        for name, sql in db.execute(
            "SELECT name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        ).fetchall()
    }
    if tables != {k: _normalize(v) for k, v in CONTAINER_SCHEMA.items()}:
        raise invalid("the archive's tables do not match the transfer container schema")
    if db.execute("PRAGMA quick_check").fetchall() != [("ok",)]:
        raise invalid("the archive is damaged")
    rows = db.execute("SELECT kind, version, credentials_included FROM transfer").fetchall()
    if len(rows) != 1:
        raise invalid("the archive must hold exactly one transfer record")
    kind, version, creds = rows[0]
    if kind not in ("proxy", "profile"):
        raise invalid(f"unknown archive kind {kind!r}")
    if kind != expected:
        raise invalid(f"this is a {kind} archive, not a {expected} archive", kind=kind)
    if not isinstance(version, int) or not 1 <= version <= TRANSFER_VERSION:
        raise invalid(
            f"unsupported transfer version {version!r} (this agent reads 1 to {TRANSFER_VERSION})",
            version=version,
        )
    archive = Archive(kind=kind, version=version, credentials_included=bool(creds))
    try:
        for alias, host, port, settings, credentials in db.execute(
            "SELECT alias, upstream_host, upstream_port, settings, credentials FROM proxies"
        ):
            archive.proxies.append(
                {
                    "alias": alias,
                    "upstream_host": host,
                    "upstream_port": port,
                    "settings": _object(settings),
                    "credentials": credentials,
                }
            )
        for name, proxy_alias, settings in db.execute(
            "SELECT name, proxy_alias, settings FROM profiles"
        ):
            archive.profiles.append(
                {"name": name, "proxy_alias": proxy_alias, "settings": _object(settings)}
            )
    except (TypeError, ValueError):
        raise invalid("the archive holds malformed records") from None
    return archive


def _object(text: Any) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise TypeError("settings must be a JSON object")
    return value


# --- credentials ---------------------------------------------------------------------------------


def _key(passphrase: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(passphrase.encode("utf-8"))


def seal_credentials(
    passphrase: str, alias: str, username: str | None, password: str | None
) -> str:
    salt, nonce = os.urandom(16), os.urandom(12)
    plaintext = json.dumps({"username": username, "password": password}).encode()
    key = _key(passphrase, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    sealed = AESGCM(key).encrypt(nonce, plaintext, alias.encode("utf-8"))
    return json.dumps(
        {
            "kdf": "scrypt",
            "n": SCRYPT_N,
            "r": SCRYPT_R,
            "p": SCRYPT_P,
            "salt": base64.b64encode(salt).decode(),
            "cipher": "aes-256-gcm",
            "nonce": base64.b64encode(nonce).decode(),
            "ciphertext": base64.b64encode(sealed).decode(),
        }
    )


def _sealed(blob: str) -> tuple[int, int, int, bytes, bytes, bytes]:
    """The scrypt parameters, salt, nonce and ciphertext of a credentials record."""
    meta = json.loads(blob)
    n, r, p = int(meta["n"]), int(meta["r"]), int(meta["p"])
    ok_scheme = meta["kdf"] == "scrypt" and meta["cipher"] == "aes-256-gcm"
    if not (ok_scheme and 2**10 <= n <= 2**20 and 1 <= r <= 16 and 1 <= p <= 4):
        raise ValueError("unknown scheme or parameters out of range")
    salt = base64.b64decode(meta["salt"])
    nonce = base64.b64decode(meta["nonce"])
    return n, r, p, salt, nonce, base64.b64decode(meta["ciphertext"])


def open_credentials(passphrase: str, alias: str, blob: str) -> tuple[str | None, str | None]:
    """(username, password); VALIDATION_FAILED field passphrase when it does not open."""
    try:
        n, r, p, salt, nonce, sealed = _sealed(blob)
    except (KeyError, TypeError, ValueError):
        raise invalid("the archive's credentials record is malformed") from None
    try:
        plain = AESGCM(_key(passphrase, salt, n, r, p)).decrypt(nonce, sealed, alias.encode())
    except (InvalidTag, ValueError):
        raise invalid(
            "the passphrase does not open the archive's credentials", field_name="passphrase"
        ) from None
    values = json.loads(plain)
    return values.get("username"), values.get("password")
