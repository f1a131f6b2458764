"""Client latency: `svc session list` and `svc health` as whole processes against a warm app
(target under 150 ms), and what one svc-mcp tool call costs over the same HTTP call made directly.

What an agent pays in tokens through MCP (issue 38), svc-mcp beside Playwright MCP (npm
`@playwright/mcp`, PLAYWRIGHT_MCP, driving Debian's chromium): the tool list as an MCP client
holds it (the `tools` array of tools/list as compact JSON; target: svc-mcp at most 3,500 tokens),
and one observation of each page of observation_bench (svc_observe's text block beside
browser_snapshot's, after a navigation). Tokens are cl100k_base (benchmarks/tokens.py).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tests.ports import free_port, listener_base

from .engine_bench import CHROMIUM
from .local import serving
from .tokens import compact, tokens

BIN = Path(sys.executable).parent
RUNS = 20
PLAYWRIGHT_MCP = "@playwright/mcp@0.0.83"  # the version issue 38 measured


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


class _Stdio:
    """An MCP server over stdio, driven by JSON-RPC lines: requests answered by id, whatever
    notifications come in between."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path | None = None) -> None:
        self.proc = subprocess.Popen(
            command,
            env=env,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.buffer = b""
        self.ids = 0
        self.lines: list[bytes] = []  # the answers' lines as served

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.ids += 1
        message = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params or {}}
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + 120
        while True:
            while b"\n" not in self.buffer:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no answer to {method}")
                select.select([self.proc.stdout], [], [], 1)
                chunk = self.proc.stdout.read1(65536)  # type: ignore[attr-defined]
                if not chunk and self.proc.poll() is not None:
                    raise EOFError(f"the server ended before answering {method}")
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\n", 1)
            reply: dict[str, Any] = json.loads(line)
            if reply.get("id") == self.ids:
                self.lines.append(line)
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply["result"]
                return result

    def initialize(self) -> dict[str, Any]:
        result = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "svc-bench", "version": "0"},
            },
        )
        assert self.proc.stdin is not None
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()
        return result

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """The text of a tool's result (its text blocks), as the agent reads it."""
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        assert not result.get("isError"), (name, result)
        return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)


def _playwright_mcp(env: dict[str, str], work: Path) -> tuple[_Stdio, dict[str, Any]] | None:
    """Playwright MCP on Debian's chromium, headless, and its initialize result; None (and why,
    printed) when npx cannot run it here."""
    if not Path(CHROMIUM).exists() or shutil.which("npx") is None:
        print(f"Playwright MCP: needs {CHROMIUM} and npx (make bench installs both); left out")
        return None
    command = [
        "npx",
        "-y",
        PLAYWRIGHT_MCP,
        "--headless",
        "--executable-path",
        CHROMIUM,
        "--no-sandbox",
        "--isolated",
        "--viewport-size",
        "1920x947",
        "--output-dir",
        str(work / "playwright-mcp"),
    ]
    server = _Stdio(command, env, cwd=work)
    try:
        return server, server.initialize()
    except (EOFError, TimeoutError, RuntimeError) as exc:
        server.close()
        print(f"Playwright MCP: npx could not run {PLAYWRIGHT_MCP} ({exc}); left out")
        return None


def tool_lists(servers: dict[str, tuple[_Stdio, dict[str, Any]]]) -> None:
    print("tools/list as an MCP client holds it: the tools array as compact JSON (cl100k tokens)")
    print(
        f"{'server':28}{'tools':>6}{'tokens':>8}{'bytes':>8}{'served tok':>12}{'served B':>10}"
        f"{'instructions tok':>18}"
    )
    for label, (server, info) in servers.items():
        listed = server.request("tools/list")["tools"]
        text = compact(listed)
        served = server.lines[-1].decode()
        print(
            f"{label:28}{len(listed):6}{tokens(text):8,}{len(text.encode()):8,}"
            f"{tokens(served):12,}{len(served.encode()):10,}"
            f"{tokens(info.get('instructions') or ''):18,}"
        )
    print(
        "(served: the whole tools/list answer line as written; instructions: the initialize "
        "result's, read once per connection; target: svc-mcp tokens <= 3,500)"
    )


def observations(svc: _Stdio, playwright: _Stdio | None, base: str, pages: dict[str, str]) -> None:
    """One observation per page: svc_navigate then svc_observe's text; browser_navigate then
    browser_snapshot's text (Playwright MCP puts the navigation's snapshot in a file)."""
    print("one observation through MCP, per page: the result's text (cl100k tokens, bytes)")
    print(f"{'page':30}{'svc tok':>9}{'pw tok':>9}{'tokens':>8}{'svc bytes':>11}{'pw bytes':>10}")
    totals = [0, 0, 0, 0]
    for path, label in pages.items():
        svc.call("svc_navigate", {"url": base + path, "wait": 0})
        ours = svc.call("svc_observe", {"wait": 0})
        theirs = ""
        if playwright is not None:
            playwright.call("browser_navigate", {"url": base + path})
            theirs = playwright.call("browser_snapshot", {})
        row = [tokens(ours), tokens(theirs), len(ours.encode()), len(theirs.encode())]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        ratio = f"{row[0] / row[1]:8.2f}" if row[1] else f"{'-':>8}"
        print(f"{label:30}{row[0]:9,}{row[1]:9,}{ratio}{row[2]:11,}{row[3]:10,}")
    ratio = f"{totals[0] / totals[1]:8.2f}" if totals[1] else f"{'-':>8}"
    print(f"{'all pages':30}{totals[0]:9,}{totals[1]:9,}{ratio}{totals[2]:11,}{totals[3]:10,}")
    print("(tokens = svc tok / pw tok)")


def mcp_costs(env: dict[str, str]) -> None:
    from .observation_bench import _Handler, labels

    work = Path(tempfile.mkdtemp(prefix="svc-mcp-bench-"))
    svc = _Stdio([str(BIN / "svc-mcp")], env)
    started = _playwright_mcp({k: v for k, v in env.items() if not k.startswith("SVC_")}, work)
    playwright = None if started is None else started[0]
    try:
        servers = {"svc-mcp": (svc, svc.initialize())}
        if started is not None:
            servers[f"Playwright MCP {PLAYWRIGHT_MCP.rsplit('@', 1)[1]}"] = started
        tool_lists(servers)
        with serving(_Handler) as base:
            observations(svc, playwright, base, labels())
    finally:
        svc.close()
        if playwright is not None:
            playwright.close()
        shutil.rmtree(work, ignore_errors=True)


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
        print()
        mcp_costs(env)
    finally:
        app.send_signal(signal.SIGTERM)
        try:
            app.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(app.pid, signal.SIGKILL)
            app.wait(5)


if __name__ == "__main__":
    main()
