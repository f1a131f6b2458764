"""The Logs view's reading of one NDJSON file (spec 1 §1 Log files): an incremental tail that
keeps an unterminated last line for the next read, starts again from the top when the file is
truncated or replaced (another inode), and parses every complete line into an entry; a line that
is not a JSON object is shown as it is, never dropped or fatal."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

# On first open, only the file's last part is read: a long-lived global log can be large.
FIRST_READ = 1 << 20
# One poll reads at most this much; the rest comes with the next polls.
READ_CHUNK = 4 << 20
LEVELS = ("debug", "info", "warning", "error")


@dataclass(frozen=True, slots=True)
class LogEntry:
    created_at: int | None
    level: str
    category: str
    message: str
    session_id: str | None
    data_json: str | None  # the record's data, pretty-printed, shown on demand
    malformed: bool = False

    @property
    def time_text(self) -> str:
        if self.created_at is None:
            return "--:--:--"
        seconds = self.created_at / 1000
        return time.strftime("%H:%M:%S", time.localtime(seconds)) + f".{self.created_at % 1000:03d}"


def parse_line(line: str) -> LogEntry:
    try:
        obj: Any = msgspec.json.decode(line)
    except msgspec.DecodeError:
        obj = None
    if not isinstance(obj, dict):
        return LogEntry(None, "?", "malformed", line[:2000], None, None, malformed=True)
    created = obj.get("created_at")
    data = obj.get("data")
    data_json = None
    if data is not None:
        data_json = msgspec.json.format(msgspec.json.encode(data), indent=2).decode()
    return LogEntry(
        created_at=created if isinstance(created, int) and not isinstance(created, bool) else None,
        level=str(obj.get("level") or "?"),
        category=str(obj.get("category") or "?"),
        message=str(obj.get("message") or ""),
        session_id=obj.get("session_id") if isinstance(obj.get("session_id"), str) else None,
        data_json=data_json,
    )


def matches(entry: LogEntry, *, min_level: str | None, category: str) -> bool:
    """`min_level`: show that level and the ones above (unknown levels always shown);
    `category`: a case-insensitive part of the category, empty for all."""
    known = min_level in LEVELS and entry.level in LEVELS
    if known and LEVELS.index(entry.level) < LEVELS.index(str(min_level)):
        return False
    return category.lower() in entry.category.lower()


@dataclass(slots=True)
class LogTail:
    path: Path
    offset: int = 0
    identity: tuple[int, int] | None = None  # (device, inode) of the file read so far
    partial: bytes = b""

    def read(self) -> tuple[bool, list[LogEntry]]:
        """(reset, new entries): `reset` means what was shown came from a file that is gone,
        truncated or replaced, and the entries start from the new file's beginning."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            reset = self.identity is not None
            self._restart(None)
            return reset, []
        try:
            st = os.fstat(fd)
            identity = (st.st_dev, st.st_ino)
            reset = False
            if self.identity is None:
                self._restart(identity)
                if st.st_size > FIRST_READ:
                    self.offset = _line_start(fd, st.st_size - FIRST_READ)
            elif identity != self.identity or st.st_size < self.offset:
                self._restart(identity)
                reset = True
            data = os.pread(fd, READ_CHUNK, self.offset)
        finally:
            os.close(fd)
        self.offset += len(data)
        data = self.partial + data
        end = data.rfind(b"\n")
        self.partial = data[end + 1 :]
        lines = data[: end + 1].decode("utf-8", "replace").splitlines() if end >= 0 else []
        return reset, [parse_line(line) for line in lines if line.strip()]

    def _restart(self, identity: tuple[int, int] | None) -> None:
        self.identity = identity
        self.offset = 0
        self.partial = b""


def _line_start(fd: int, at: int) -> int:
    """The offset of the first complete line at or after `at`."""
    chunk = os.pread(fd, 64 << 10, at - 1 if at > 0 else 0)
    if at == 0:
        return 0
    nl = chunk.find(b"\n")
    return at + nl if nl >= 0 else at


def machine_id_from_global_log(path: Path) -> str | None:
    """The installation id the agent logs when it starts (`agent.started` data.machine_id): the
    host learns the federated session ids from it (spec 1 §2: `machine-<UUID>.Session<ID>`)."""
    try:
        with path.open("rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - FIRST_READ))
            data = f.read()
    except OSError:
        return None
    return _newest_machine_id(data)


class MachineIdReader:
    """`machine_id_from_global_log` kept current at the cost of a stat: the file is read once
    (its last part), then only what was appended since; a truncated or replaced file is read
    again. What the host's session records carry in `session_id` (agent/logs.py does the
    same from the store): the id stays the last one seen while the file has no newer one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.value: str | None = None
        self._inode: int | None = None
        self._offset = 0  # where the next read starts: after the last complete line read

    def current(self) -> str | None:
        try:
            st = os.stat(self.path)
            if st.st_ino != self._inode or st.st_size < self._offset:
                self._inode, self._offset = st.st_ino, 0
            # more than FIRST_READ appended: its last part holds the newest start
            start = max(self._offset, st.st_size - FIRST_READ)
            if st.st_size <= start:
                return self.value
            with self.path.open("rb") as f:
                f.seek(start)
                data = f.read(st.st_size - start)
        except OSError:
            return self.value
        end = data.rfind(b"\n") + 1  # an unterminated last line waits for its newline
        self._offset = start + end
        found = _newest_machine_id(data[:end])
        if found is not None:
            self.value = found
        return self.value


def _newest_machine_id(data: bytes) -> str | None:
    """The machine id of the last `agent.started` record in `data` (whole lines)."""
    for line in reversed(data.splitlines()):
        if b'"agent.started"' not in line:
            continue
        entry: Any = None
        try:
            entry = msgspec.json.decode(line)
        except msgspec.DecodeError:
            continue
        fields = entry.get("data") if isinstance(entry, dict) else None
        value = fields.get("machine_id") if isinstance(fields, dict) else None
        if isinstance(value, str) and value:
            return value
    return None
