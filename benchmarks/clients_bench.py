"""Client latency: `svc session list` and `svc health` as whole processes against a warm app
(target under 150 ms), and what one svc-mcp tool call costs over the same HTTP call made directly.
"""

from __future__ import annotations

import json
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from tests.ports import free_port, listener_base

BIN = Path(sys.executable).parent
RUNS = 20


def _figures(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return (
        f"median {statistics.median(ordered):6.1f} ms, p90 {p90:6.1f} ms, min {ordered[0]:6.1f} ms"
    )


def _process_latency(env: dict[str, str], *args: str) -> list[float]:
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run([str(BIN / "svc"), *args], env=env, check=True, capture_output=True)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


class _Mcp:
    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [str(BIN / "svc-mcp")], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.buffer = b""

    def call(self, message: dict[str, object]) -> dict[str, object]:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        while b"\n" not in self.buffer:
            select.select([self.proc.stdout], [], [], 30)
            self.buffer += self.proc.stdout.read1(65536)  # type: ignore[attr-defined]
        line, self.buffer = self.buffer.split(b"\n", 1)
        reply: dict[str, object] = json.loads(line)
        return reply

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


def main() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="svc-clients-bench-"))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    env.update(
        SVC_DATA_DIR=str(data_dir),
        SVC_AGENT_PORT=str(port),
        SVC_BROWSER_PROXY_PORT=str(listener_base()),
        QT_QPA_PLATFORM="offscreen",
    )
    app = subprocess.Popen(
        [str(BIN / "svc-app"), "--headless"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/v1/health", trust_env=False).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError("the app did not become healthy")
            time.sleep(0.1)
        for _ in range(3):  # warm the page cache of the interpreter and the scripts
            subprocess.run([str(BIN / "svc"), "health"], env=env, check=True, capture_output=True)
        httpx.post(f"{base}/v1/sessions", json={}, trust_env=False)

        print(f"svc session list (process)  {_figures(_process_latency(env, 'session', 'list'))}")
        print(f"svc health (process)        {_figures(_process_latency(env, 'health'))}")

        direct = []
        with httpx.Client(base_url=base, trust_env=False) as client:
            for _ in range(RUNS * 5):
                started = time.perf_counter()
                client.get("/v1/sessions", headers={"Connection": "close"}).raise_for_status()
                direct.append((time.perf_counter() - started) * 1000)
        mcp = _Mcp(env)
        via_mcp = []
        try:
            mcp.call(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {}},
                }
            )
            for i in range(RUNS * 5):
                started = time.perf_counter()
                mcp.call(
                    {
                        "jsonrpc": "2.0",
                        "id": i + 1,
                        "method": "tools/call",
                        "params": {"name": "svc_list_sessions", "arguments": {}},
                    }
                )
                via_mcp.append((time.perf_counter() - started) * 1000)
        finally:
            mcp.close()
        print(f"GET /v1/sessions (direct)   {_figures(direct)}")
        print(f"svc_list_sessions (svc-mcp) {_figures(via_mcp)}")
        overhead = statistics.median(via_mcp) - statistics.median(direct)
        print(f"svc-mcp overhead per call   {overhead:6.1f} ms (median difference)")
    finally:
        app.send_signal(signal.SIGTERM)
        try:
            app.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(app.pid, signal.SIGKILL)
            app.wait(5)


if __name__ == "__main__":
    main()
