"""HTTP API throughput beside a minimal h11-on-trio server answering the same bytes.

Both servers run as their own processes; the same trio load generator (32 concurrent clients,
one request per connection as the API requires) drives each in turn. The ratio shows what the
framework (quart-trio on hypercorn, plus our transport rules) costs.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import h11
import trio

CLIENTS = 32
SECONDS = 4.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _request(method: str, path: str, body: bytes = b"") -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


async def _exchange(port: int, data: bytes) -> bytes:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(data)
        chunks = []
        while chunk := await stream.receive_some(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _body(reply: bytes) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(reply.partition(b"\r\n\r\n")[2])
    return body


async def _load(port: int, scenario: str, seconds: float) -> float:
    done = 0
    deadline = trio.current_time() + seconds

    async def client() -> None:
        nonlocal done
        while trio.current_time() < deadline:
            if scenario == "health":
                reply = await _exchange(port, _request("GET", "/v1/health"))
                assert b" 200" in reply[:16], reply[:200]
                done += 1
            else:
                reply = await _exchange(port, _request("POST", "/v1/sessions", b"{}"))
                sid = _body(reply)["data"]["session"]["id"]
                reply = await _exchange(port, _request("DELETE", f"/v1/sessions/{sid}"))
                assert b" 200" in reply[:16], reply[:200]
                done += 1

    started = trio.current_time()
    async with trio.open_nursery() as nursery:
        for _ in range(CLIENTS):
            nursery.start_soon(client)
    return done / (trio.current_time() - started)


# --- the baseline server ------------------------------------------------------------------------


async def _h11_serve(port: int, answers: dict[str, bytes]) -> None:
    counter = 0

    async def handle(stream: trio.SocketStream) -> None:
        nonlocal counter
        conn = h11.Connection(h11.SERVER)
        request: h11.Request | None = None
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError:
                return
            if event is h11.NEED_DATA:
                conn.receive_data(await stream.receive_some(65536))
                continue
            if isinstance(event, h11.ConnectionClosed):
                return  # e.g. a readiness probe that connects and leaves
            if isinstance(event, h11.Request):
                request = event
            if isinstance(event, h11.EndOfMessage):
                break
        assert request is not None
        key = f"{request.method.decode()} {request.target.decode().rsplit('/', 1)[0]}"
        body = answers[key]
        if request.method == b"POST":
            counter += 1
            body = body.replace(b"Session1", f"Session{counter}".encode())
        headers = [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            ("Connection", "close"),
            ("X-Request-Id", "req_0123456789abcdef0123456789abcdef"),
        ]
        data = conn.send(h11.Response(status_code=200, headers=headers))
        data += conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage())
        await stream.send_all(data)
        await stream.aclose()

    listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
    print(listeners[0].socket.getsockname()[1], flush=True)  # tell the driver where we are
    await trio.serve_listeners(handle, listeners)


def _serve_baseline(answers_file: str) -> None:
    answers = {k: v.encode() for k, v in json.loads(Path(answers_file).read_text()).items()}
    trio.run(_h11_serve, 0, answers)


# --- driver -------------------------------------------------------------------------------------


def _wait_port(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listening on {port}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        agent_port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
        env.update(
            SVC_DATA_DIR=tmp,
            SVC_AGENT_PORT=str(agent_port),
            SVC_BROWSER_BRIDGE="none",
            SVC_PLAN="pro",
            SVC_BROWSER_PROXY_PORT=str(_free_port()),
        )
        agent = subprocess.Popen(
            [sys.executable, "-m", "agent"], env=env, stdout=subprocess.DEVNULL
        )
        try:
            _wait_port(agent_port)
            # The exact bytes the agent answers, for the baseline to repeat.
            health = trio.run(_exchange, agent_port, _request("GET", "/v1/health"))
            created = trio.run(_exchange, agent_port, _request("POST", "/v1/sessions", b"{}"))
            sid = _body(created)["data"]["session"]["id"]
            deleted = trio.run(_exchange, agent_port, _request("DELETE", f"/v1/sessions/{sid}"))
            answers = {
                "GET /v1": health.partition(b"\r\n\r\n")[2].decode(),
                "POST /v1": created.partition(b"\r\n\r\n")[2].decode().replace(sid, "Session1"),
                "DELETE /v1/sessions": deleted.partition(b"\r\n\r\n")[2].decode(),
            }
            answers_file = Path(tmp) / "answers.json"
            answers_file.write_text(json.dumps(answers))
            svc = {s: trio.run(_load, agent_port, s, SECONDS) for s in ("health", "sessions")}
        finally:
            _stop(agent)
        # The baseline binds port 0 and prints the port: a port picked in advance could meanwhile
        # be handed out as the ephemeral port of a load connection (and self-connect).
        baseline = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.agent_bench", "--h11", str(answers_file)],
            stdout=subprocess.PIPE,
        )
        try:
            assert baseline.stdout is not None
            base_port = int(baseline.stdout.readline())
            _wait_port(base_port)
            raw = {s: trio.run(_load, base_port, s, SECONDS) for s in ("health", "sessions")}
        finally:
            _stop(baseline)
    print(f"  {CLIENTS} concurrent clients, one request per connection, {SECONDS:.0f} s each")
    print("  target: svc at least 0.5 of the h11 baseline")
    print(f"  {'scenario':<32}{'svc req/s':>12}{'h11 req/s':>12}{'ratio':>8}")
    names = {"health": "GET /v1/health", "sessions": "session create + delete (pairs/s)"}
    for scenario in ("health", "sessions"):
        ratio = svc[scenario] / raw[scenario]
        print(f"  {names[scenario]:<32}{svc[scenario]:>12,.0f}{raw[scenario]:>12,.0f}{ratio:>8.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--h11":
        _serve_baseline(sys.argv[2])
    else:
        main()
