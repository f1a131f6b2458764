"""HTTP API throughput beside a minimal h11-on-trio server answering the same bytes.

Both servers run as their own processes; the same load generator (32 concurrent clients, one
request per connection as the API requires) drives each in turn. The ratio shows what the
framework (quart-trio on hypercorn, plus our transport rules) costs.

The load generator is a single-threaded epoll loop over raw non-blocking sockets: it needs a
fraction of a core even against the baseline, so on a 2-core machine neither server is held back
by it (a trio-stream client needed a whole core against the baseline). Its CPU share is printed.
The two servers are measured in alternating rounds and the median round is reported, so a burst
of load from elsewhere on the machine does not land on one side only.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import h11
import trio

from tests.ports import free_port, listener_base

CLIENTS = 32
SECONDS = 2.0
ROUNDS = 3


def _request(method: str, path: str, body: bytes = b"") -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


def _exchange(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _body(reply: bytes) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(reply.partition(b"\r\n\r\n")[2])
    return body


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _load(port: int, scenario: str, seconds: float) -> tuple[float, float]:
    """(completed requests or pairs per second, the generator's CPU share of one core)."""
    poller = select.epoll()
    address = ("127.0.0.1", port)
    first = (
        _request("GET", "/v1/health")
        if scenario == "health"
        else _request("POST", "/v1/sessions", b"{}")
    )
    # fd -> [socket, request still to send or None, reply chunks, is a session create]
    conns: dict[int, list[Any]] = {}

    def start(data: bytes, creating: bool) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        err = sock.connect_ex(address)
        assert err in (0, errno.EINPROGRESS), os.strerror(err)
        conns[sock.fileno()] = [sock, data, [], creating]
        poller.register(sock.fileno(), select.EPOLLOUT)

    done, active = 0, CLIENTS
    cpu0, started = _cpu(), time.monotonic()
    deadline = started + seconds
    for _ in range(CLIENTS):
        start(first, scenario != "health")
    while active:
        for fd, _events in poller.poll():
            conn = conns[fd]
            sock = conn[0]
            if conn[1] is not None:  # connected: send the request (small: one send)
                sent = sock.send(conn[1])
                assert sent == len(conn[1])
                conn[1] = None
                poller.modify(fd, select.EPOLLIN)
                continue
            eof = False
            while True:
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    break
                if not data:
                    eof = True
                    break
                conn[2].append(data)
            if not eof:
                continue
            poller.unregister(fd)
            sock.close()
            del conns[fd]
            reply = b"".join(conn[2])
            assert reply[9:12] == b"200", reply[:300]
            if conn[3]:
                sid = _body(reply)["data"]["session"]["id"]
                start(_request("DELETE", f"/v1/sessions/{sid}"), False)
                continue
            done += 1
            if time.monotonic() < deadline:
                start(first, scenario != "health")
            else:
                active -= 1
    poller.close()
    elapsed = time.monotonic() - started
    return done / elapsed, (_cpu() - cpu0) / elapsed


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
        except OSError:
            time.sleep(0.05)
        else:
            return
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
        agent_port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
        env.update(
            SVC_DATA_DIR=tmp,
            SVC_AGENT_PORT=str(agent_port),
            SVC_BROWSER_BRIDGE="none",
            SVC_PLAN="pro",
            SVC_BROWSER_PROXY_PORT=str(listener_base()),
        )
        agent = subprocess.Popen(
            [sys.executable, "-m", "agent"], env=env, stdout=subprocess.DEVNULL
        )
        baseline = None
        try:
            _wait_port(agent_port)
            # The exact bytes the agent answers, for the baseline to repeat.
            health = _exchange(agent_port, _request("GET", "/v1/health"))
            created = _exchange(agent_port, _request("POST", "/v1/sessions", b"{}"))
            sid = _body(created)["data"]["session"]["id"]
            deleted = _exchange(agent_port, _request("DELETE", f"/v1/sessions/{sid}"))
            answers = {
                "GET /v1": health.partition(b"\r\n\r\n")[2].decode(),
                "POST /v1": created.partition(b"\r\n\r\n")[2].decode().replace(sid, "Session1"),
                "DELETE /v1/sessions": deleted.partition(b"\r\n\r\n")[2].decode(),
            }
            answers_file = Path(tmp) / "answers.json"
            answers_file.write_text(json.dumps(answers))
            # The baseline binds port 0 and prints the port: a port picked in advance could
            # meanwhile be handed out as the ephemeral port of a load connection (and
            # self-connect).
            baseline = subprocess.Popen(
                [sys.executable, "-m", "benchmarks.agent_bench", "--h11", str(answers_file)],
                stdout=subprocess.PIPE,
            )
            assert baseline.stdout is not None
            base_port = int(baseline.stdout.readline())
            _wait_port(base_port)
            ports = {"svc": agent_port, "h11": base_port}
            rounds: dict[tuple[str, str], list[tuple[float, float]]] = {}
            for _ in range(ROUNDS):
                for scenario in ("health", "sessions"):
                    for server, port in ports.items():
                        result = _load(port, scenario, SECONDS)
                        rounds.setdefault((server, scenario), []).append(result)
        finally:
            _stop(agent)
            if baseline is not None:
                _stop(baseline)
    print(
        f"  {CLIENTS} concurrent clients, one request per connection; "
        f"{ROUNDS} alternating rounds of {SECONDS:.0f} s, median shown (all rounds in brackets)"
    )
    print("  target: svc at least 0.5 of the h11 baseline")
    print(f"  {'scenario':<34}{'svc req/s':>10}{'h11 req/s':>10}{'ratio':>7}  rounds svc | h11")
    names = {"health": "GET /v1/health", "sessions": "session create + delete (pairs/s)"}
    for scenario in ("health", "sessions"):
        svc = [rate for rate, _ in rounds["svc", scenario]]
        raw = [rate for rate, _ in rounds["h11", scenario]]
        med_svc, med_raw = statistics.median(svc), statistics.median(raw)
        spread = " ".join(f"{r:,.0f}" for r in svc) + " | " + " ".join(f"{r:,.0f}" for r in raw)
        print(
            f"  {names[scenario]:<34}{med_svc:>10,.0f}{med_raw:>10,.0f}"
            f"{med_svc / med_raw:>7.2f}  {spread}"
        )
    cpu = max(share for results in rounds.values() for _, share in results)
    print(f"  load generator: at most {cpu:.0%} of one core in any round")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--h11":
        _serve_baseline(sys.argv[2])
    else:
        main()
