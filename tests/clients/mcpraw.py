"""`svc-mcp` driven with raw JSON lines: what a client writes, byte for byte, and what comes back."""

from __future__ import annotations

import json
import select
import subprocess
import time
from typing import Any

from .conftest import SVC_MCP, client_env

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}


class RawMcp:
    def __init__(self, port: int, **env: str) -> None:
        self.proc = subprocess.Popen(
            [SVC_MCP],
            env=client_env(port, **env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.buffer = b""

    def send(self, message: Any) -> None:
        raw = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def request(self, rid: Any, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def recv(self, timeout: float = 30) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from svc-mcp")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = self.proc.stdout.read1(65536)  # type: ignore[attr-defined]
                if not chunk:
                    raise EOFError("svc-mcp closed stdout")
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        message: dict[str, Any] = json.loads(line)
        return message

    def call(self, rid: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.request(rid, method, params)
        return self.recv()

    def nothing_pending(self, modern: bool = False) -> bool:
        """True when the next message is the answer to a ping sent now: nothing was written for
        what came before it (pings are answered in order)."""
        self.request("__probe__", "ping", {"_meta": META} if modern else None)
        return self.recv().get("id") == "__probe__"

    def initialize(self, version: str) -> dict[str, Any]:
        reply = self.call(
            0,
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def close(self) -> int:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(10)
        finally:
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(5)
