"""The host app's NDJSON records in `{data_dir}/Logs/global.ndjson` and, for what happened on one
session's pages, in its session log `{data_dir}/Logs/sessions/<profile id>.ndjson`: one complete
JSON object a line, appended with one write() on an O_APPEND descriptor (as agent/logs.py does),
so the agent and the host share the files without tearing lines."""

from __future__ import annotations

import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import msgspec

from bridge_protocol.session_ids import format_session_id

from .logview import MachineIdReader

_encoder = msgspec.json.Encoder()


def record(
    category: str,
    message: str,
    *,
    level: str = "info",
    data: dict[str, Any] | None = None,
    session_id: str | None = None,
) -> bytes:
    obj: dict[str, Any] = {
        "id": uuid.uuid4().hex,
        "created_at": int(time.time() * 1000),
        "category": category,
        "level": level,
        "message": message,
    }
    if session_id is not None:
        obj["session_id"] = session_id
    if data:
        obj["data"] = data
    return _encoder.encode(obj) + b"\n"


class HostLog:
    def __init__(self, logs_dir: Path) -> None:
        self.path = logs_dir / "global.ndjson"
        self.sessions = logs_dir / "sessions"
        logs_dir.mkdir(parents=True, exist_ok=True)
        # the installation id, from the agent's `agent.started` records in the global log
        self._machine_id = MachineIdReader(self.path)
        self._machine_lock = threading.Lock()

    def federated_id(self, profile_id: int) -> str | None:
        """`machine-<UUID>.Session<N>`, as the agent's records carry it (spec 1 §2); None
        until the agent logged the installation id."""
        with self._machine_lock:
            machine_id = self._machine_id.current()
        if machine_id is None:
            return None
        return f"machine-{machine_id}.{format_session_id(profile_id)}"

    def write(
        self,
        category: str,
        message: str,
        *,
        level: str = "info",
        data: dict[str, Any] | None = None,
        profile_id: int | None = None,
    ) -> None:
        """Append to the global log, or to session `profile_id`'s log (with the session's
        federated id in `session_id`, once it is known)."""
        session_id = None if profile_id is None else self.federated_id(profile_id)
        line = record(category, message, level=level, data=data, session_id=session_id)
        path = self.path if profile_id is None else self.sessions / f"{profile_id}.ndjson"
        try:
            if profile_id is not None:
                self.sessions.mkdir(exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError:
            return
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


class StderrLines:
    """Splits the agent's stderr into lines; each complete line becomes one log record."""

    def __init__(self, log: HostLog, limit: int = 64 * 1024) -> None:
        self._log = log
        self._buf = bytearray()
        self._limit = limit
        self.last = ""  # the last line: why an agent that stopped at start did

    def feed(self, data: bytes) -> None:
        self._buf += data
        while True:
            nl = self._buf.find(b"\n")
            if nl < 0:
                if len(self._buf) > self._limit:
                    self._emit(bytes(self._buf))
                    self._buf.clear()
                return
            line = bytes(self._buf[:nl])
            del self._buf[: nl + 1]
            self._emit(line)

    def flush(self) -> None:
        if self._buf:
            self._emit(bytes(self._buf))
            self._buf.clear()

    def _emit(self, line: bytes) -> None:
        text = line.decode("utf-8", "replace").rstrip("\r")
        if text.strip():
            self.last = text
            self._log.write("agent.stderr", text, level="warning")
