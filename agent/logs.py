"""NDJSON log files: one complete JSON object per line, appended with one write() each.

O_APPEND makes each write land at the current end of file atomically with respect to other
appenders, so the agent and the host app can share a file without tearing lines.

Descriptors stay open between writes (the global file always; a few recent session files, and a
session's own until it is deleted), so a record costs one write() rather than open, write, close.
A file removed behind our back (its link count drops to 0) is reopened before the next write.
"""

from __future__ import annotations

import os
import time
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any

import msgspec

from bridge_protocol.session_ids import format_session_id

OPEN_SESSION_FILES = 32  # session log descriptors kept open, least recently used closed first


class LogRecord(msgspec.Struct, omit_defaults=True):
    id: str
    created_at: int
    category: str
    level: str
    message: str
    session_id: str | None = None
    data: dict[str, Any] | None = None


class LogWriter:
    def __init__(self, logs_dir: Path, machine_id: str) -> None:
        self._dir = logs_dir
        self._sessions = logs_dir / "sessions"
        self._sessions.mkdir(parents=True, exist_ok=True)
        self._machine_id = machine_id
        self._encoder = msgspec.json.Encoder()
        self._global_fd: int | None = None
        self._session_fds: OrderedDict[int, int] = OrderedDict()  # profile id -> descriptor

    @property
    def global_path(self) -> Path:
        return self._dir / "global.ndjson"

    def session_path(self, profile_id: int) -> Path:
        return self._sessions / f"{profile_id}.ndjson"

    def federated_id(self, profile_id: int) -> str:
        return f"machine-{self._machine_id}.{format_session_id(profile_id)}"

    def write(
        self,
        category: str,
        message: str,
        *,
        level: str = "info",
        profile_id: int | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        record = LogRecord(
            id=uuid.uuid4().hex,
            created_at=int(time.time() * 1000),
            category=category,
            level=level,
            message=message,
            session_id=None if profile_id is None else self.federated_id(profile_id),
            data=data,
        )
        line = self._encoder.encode(record) + b"\n"
        if profile_id is None:
            self._global_fd = self._write(self._global_fd, self.global_path, line)
        else:
            fd = self._session_fds.pop(profile_id, None)  # re-added last: most recently used
            self._session_fds[profile_id] = self._write(fd, self.session_path(profile_id), line)
            if len(self._session_fds) > OPEN_SESSION_FILES:
                _, oldest = self._session_fds.popitem(last=False)
                os.close(oldest)

    @staticmethod
    def _write(fd: int | None, path: Path, line: bytes) -> int:
        if fd is not None and os.fstat(fd).st_nlink == 0:
            os.close(fd)  # the file was removed: start a new one
            fd = None
        if fd is None:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        os.write(fd, line)
        return fd

    def session_closed(self, profile_id: int) -> None:
        """A deleted session writes no more records: close its file."""
        fd = self._session_fds.pop(profile_id, None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        for fd in self._session_fds.values():
            os.close(fd)
        self._session_fds.clear()
        if self._global_fd is not None:
            os.close(self._global_fd)
            self._global_fd = None


def append_line(path: Path, line: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
