"""The local files of `svc proxy` and `svc profile` (spec 2 §2, §4 option rules, §8): transfer
files and certificate bundles. Everything here is checked before a request is sent, and every
problem is a `UsageError` (one plain line, exit status 1).

- Exports go to `NAME.svcproxy` / `NAME.svcprofile` in the current directory unless `--output`
  names an exact path. An existing file is never overwritten; the new one is owner-only (0600)
  and appears whole or not at all: it is written to a private temporary file in the same folder,
  then hard-linked to its name (a link, unlike a rename, fails when the name is taken).
- Imports read at most 12 MiB, reject legacy JSON transfer files by name and protected archives
  (sealed credentials need the owning app's passphrase), and send only an SQLite container (the
  agent validates the rest).
- A certificate bundle is 1-16 PEM CERTIFICATE blocks in at most 64 KiB.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
import re
import secrets
from pathlib import Path

from .parser import UsageError

MAX_TRANSFER_FILE = 12 * 1024 * 1024  # spec 2 §8: transfer files 12 MiB
SQLITE_MAGIC = b"SQLite format 3\x00"
MAX_BUNDLE_BYTES = 64 * 1024  # spec 2 §8: certificate bundles 64 KiB
MAX_BUNDLE_CERTS = 16
_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \1-----", re.DOTALL)


# --- exports -------------------------------------------------------------------------------------


def export_path(filename: str, output: str | None, cwd: Path | None = None) -> Path:
    """Where an export goes: `--output` exactly, else the agent's file name in `cwd`. Refuses a
    path that exists (a file, a folder, a dangling link alike)."""
    if output is not None:
        if not output:
            raise UsageError("--output must not be empty")
        path = Path(os.path.abspath(os.path.expanduser(output)))
    else:
        if not filename or os.sep in filename or filename in (".", ".."):
            raise UsageError(f"the agent suggested an unusable file name {filename!r}")
        path = (cwd or Path.cwd()) / filename
    if os.path.lexists(path):
        raise UsageError(f"{path} already exists; refusing to overwrite it (choose --output)")
    if not path.parent.is_dir():
        raise UsageError(f"cannot write {path}: the folder {path.parent} does not exist")
    return path


def write_new(path: Path, data: bytes) -> None:
    """Create `path` holding `data`, owner-only, atomically, never replacing an existing file."""
    temp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise UsageError(f"cannot write in {path.parent}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o600)  # whatever the umask or the folder's default ACL made of it
        try:
            os.link(temp, path)
        except FileExistsError:
            raise UsageError(f"{path} already exists; refusing to overwrite it") from None
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


# --- imports -------------------------------------------------------------------------------------


def read_archive(raw_path: str, kind: str) -> bytes:
    """The bytes of a transfer file, checked as far as the client can: size, legacy JSON, the
    SQLite container's signature."""
    path = Path(os.path.expanduser(raw_path))
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_TRANSFER_FILE:
                raise UsageError(_too_large(path, size))
            data = handle.read(MAX_TRANSFER_FILE + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_TRANSFER_FILE:
        raise UsageError(_too_large(path, len(data)))
    head = data.lstrip()[:1]
    if head in (b"{", b"["):
        raise UsageError(
            f"{path} is a legacy JSON transfer file, which is no longer accepted; export the "
            f"{kind} again to get a .svc{kind} archive"
        )
    if not data.startswith(SQLITE_MAGIC):
        raise UsageError(f"{path} is not a .svc{kind} transfer archive")
    if credentials_included(data):
        raise UsageError(
            f"{path} is a protected archive (it includes credentials); svc imports only "
            "unprotected archives: export it again without credentials, or import it in the app"
        )
    return data


def credentials_included(data: bytes) -> bool:
    """Whether the container says it carries sealed credentials; False when it cannot be read
    (the agent then says what is wrong with it)."""
    import sqlite3

    db = sqlite3.connect(":memory:")
    try:
        db.execute("PRAGMA trusted_schema=OFF")
        db.deserialize(data)
        rows = db.execute("SELECT credentials_included FROM transfer").fetchall()
    except sqlite3.Error:
        return False
    finally:
        db.close()
    return len(rows) == 1 and rows[0][0] == 1


def _too_large(path: Path, size: int) -> str:
    return f"{path} is {size} bytes; transfer files are limited to 12 MiB ({MAX_TRANSFER_FILE})"


def encode_archive(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# --- certificate bundles -------------------------------------------------------------------------


def read_ca_bundle(raw_path: str) -> str:
    """The PEM text of `--ca-cert PATH`: 1-16 CERTIFICATE blocks, at most 64 KiB."""
    path = Path(os.path.expanduser(raw_path))
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BUNDLE_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"--ca-cert: cannot read {path}: {exc.strerror or exc}") from None
    return check_ca_bundle(raw, str(path))


def check_ca_bundle(raw: bytes, name: str) -> str:
    if len(raw) > MAX_BUNDLE_BYTES:
        raise UsageError(f"--ca-cert: {name} exceeds 64 KiB")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise UsageError(f"--ca-cert: {name} is not a PEM file") from None
    blocks = _PEM_BLOCK.findall(text)
    labels = [label for label, _ in blocks]
    if text.count("-----BEGIN ") != len(blocks) or set(labels) - {"CERTIFICATE"}:
        raise UsageError(f"--ca-cert: {name} may hold only PEM CERTIFICATE blocks")
    if not 1 <= len(blocks) <= MAX_BUNDLE_CERTS:
        raise UsageError(
            f"--ca-cert: {name} holds {len(blocks)} certificates; a bundle holds 1-"
            f"{MAX_BUNDLE_CERTS}"
        )
    for _, body in blocks:
        try:
            der = base64.b64decode("".join(body.split()), validate=True)
        except (binascii.Error, ValueError):
            der = b""
        if not der:
            raise UsageError(f"--ca-cert: {name} holds a damaged certificate block")
    return text
