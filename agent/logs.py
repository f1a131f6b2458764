"""NDJSON log files: one complete JSON object per line, appended with one write() each.

O_APPEND makes each write land at the current end of file atomically with respect to other
appenders, so the agent and the host app can share a file without tearing lines.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any

import msgspec


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

    @property
    def global_path(self) -> Path:
        return self._dir / "global.ndjson"

    def session_path(self, profile_id: int) -> Path:
        return self._sessions / f"{profile_id}.ndjson"

    def federated_id(self, profile_id: int) -> str:
        return f"machine-{self._machine_id}.Session{profile_id}"

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
        path = self.global_path if profile_id is None else self.session_path(profile_id)
        append_line(path, line)


def append_line(path: Path, line: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
