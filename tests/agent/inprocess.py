"""The agent in the test's own trio run: real `Services`, the real quart app driven through
quart's test client, and a scripted host on in-memory streams. No process, no socket.

`in_process_agent()` builds everything the way `agent.main.run` does (store, logs, bridge,
scheduler, `build_services`, proxy listeners, control worker, app, session expiry) except that
the bridge runs over two `trio.testing.memory_stream_one_way_pair`s and HTTP never leaves the
process. The host end is the real `HostEndpoint`, answered by a `FakeBrowser`
(tests/agent/fakebrowser.py): the same double the process tests use, so a test can move between
the two harnesses unchanged in what it scripts.

The proxy listeners are started as in the process, on the default base port: they bind one port
per proxied session only, and these tests proxy none, so nothing is bound.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
import trio.testing
from quart.typing import TestClientProtocol
from quart_trio.testing.connections import TestHTTPConnection
from werkzeug.datastructures import Headers

import bridge_protocol as bp
from agent.bridge_client import BridgeClient
from agent.config import AgentConfig
from agent.http_app import create_app
from agent.logs import LogWriter
from agent.scheduler import Scheduler
from agent.services import Services, build_services
from agent.store import Store

from .fakebrowser import FakeBrowser

Script = Callable[[bp.HostRequest], tuple[float, bp.Answer | bp.ApiError]]


class MemoryHost:
    """`HostEndpoint` on in-memory streams, fed by a trio task: the part the host app's QProcess
    signals play. A delayed answer is a task sleeping in its own cancel scope, so a cancellation
    frame from the agent really stops it (and is counted), as the host's cancel callback must."""

    def __init__(
        self,
        answer: Script,
        send_stream: trio.abc.SendStream,
        receive_stream: trio.abc.ReceiveStream,
    ) -> None:
        self.answer = answer
        self._send = send_stream
        self._receive = receive_stream
        self.endpoint = bp.HostEndpoint(self._write, self._handle, on_protocol_error=self._error)
        self.requests: list[bp.HostRequest] = []
        self.cancels_received = 0
        self.protocol_errors: list[bp.BridgeProtocolError] = []
        # The endpoint writes synchronously (as QProcess.write does); one task drains the frames
        # in order so the stream never interleaves two of them.
        self._outbox_send, self._outbox_receive = trio.open_memory_channel[bytes](float("inf"))
        self._nursery: trio.Nursery | None = None

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._pump_out)
            task_status.started()
            try:
                async for data in self._receive:
                    self.endpoint.data_received(data)
            finally:
                self.endpoint.connection_lost()
                nursery.cancel_scope.cancel()

    async def _pump_out(self) -> None:
        async with self._outbox_receive:
            async for frame in self._outbox_receive:
                await self._send.send_all(frame)

    def _write(self, frame: bytes | bytearray) -> None:
        self._outbox_send.send_nowait(bytes(frame))

    def _error(self, exc: bp.BridgeProtocolError) -> None:
        self.protocol_errors.append(exc)

    def _handle(self, request: bp.HostRequest, responder: bp.Responder) -> Callable[[], None]:
        self.requests.append(request)
        delay, result = self.answer(request)
        if delay <= 0:
            _reply(responder, result)
            return lambda: None
        assert self._nursery is not None
        scope = trio.CancelScope()

        async def later() -> None:
            with scope:
                await trio.sleep(delay)
                _reply(responder, result)

        self._nursery.start_soon(later)

        def cancel() -> None:
            self.cancels_received += 1
            scope.cancel()

        return cancel

    async def aclose(self) -> None:
        await self._outbox_send.aclose()
        await self._send.aclose()
        await self._receive.aclose()


def _reply(responder: bp.Responder, result: bp.Answer | bp.ApiError) -> None:
    if isinstance(result, bp.ApiError):
        responder.error(result)
    else:
        responder.ok(result)


@dataclass
class Exchange:
    """One finished HTTP exchange: status, headers and the raw body."""

    status: int
    headers: dict[str, str]  # names in lower case, as httpx shows them to the process tests
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.body.splitlines() if line.strip()]


def _lower(headers: Headers | None) -> dict[str, str]:
    return {name.lower(): value for name, value in (headers or Headers()).items()}


class ClientGone(Exception):
    """Raised inside quart's test connection to make it send `http.disconnect`: that is how its
    API says the client went away (`TestHTTPConnection.__aexit__`)."""


@dataclass
class InProcessAgent:
    services: Services
    client: TestClientProtocol
    fake: FakeBrowser
    memory_host: MemoryHost
    data_dir: Path

    async def request(self, method: str, path: str, body: Any = None) -> Exchange:
        kwargs: dict[str, Any] = {} if body is None else {"json": body}
        response = await self.client.open(path, method=method, **kwargs)
        return Exchange(
            response.status_code, _lower(response.headers), await response.get_data(as_text=False)
        )

    async def ok(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        """The `data` of a success envelope; fails the test on anything else."""
        response = await self.request(method, path, body)
        envelope = response.json()
        assert response.status == 200, envelope
        assert envelope["status"] == "ok"
        assert envelope["request_id"] == response.headers["x-request-id"]
        data: dict[str, Any] = envelope["data"]
        return data

    async def error(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
        """(HTTP status, error object) of a failure envelope, checked against the error table."""
        response = await self.request(method, path, body)
        envelope = response.json()
        assert envelope["status"] == "error", envelope
        assert envelope["request_id"] == response.headers["x-request-id"]
        assert response.headers["connection"] == "close"
        error: dict[str, Any] = envelope["error"]
        entry = bp.ERROR_TABLE[bp.ErrorId(error["id"])]
        assert (response.status, error["code"]) == (entry.http_status, entry.code)
        return response.status, error

    def _post(self, path: str) -> TestHTTPConnection:
        connection = self.client.request(
            path, method="POST", headers={"Content-Type": "application/json"}
        )
        # the protocol quart types it with omits the status and headers its class keeps
        assert isinstance(connection, TestHTTPConnection)
        return connection

    async def stream(self, path: str, body: Any) -> Exchange:
        """A streamed POST read chunk by chunk to its end (NDJSON routes)."""
        connection = self._post(path)
        chunks = bytearray()
        async with connection:
            await connection.send(json.dumps(body).encode())
            await connection.send_complete()
            while True:
                try:
                    chunks += await connection.receive()
                except trio.EndOfChannel:
                    break
        return Exchange(connection.status_code or 0, _lower(connection.headers), bytes(chunks))

    async def go_away(
        self, path: str, body: Any, *, when: Callable[[], object], timeout: float = 5.0
    ) -> None:
        """POST `body`, wait until `when()` holds (say, the host has the work), then disconnect
        as a client that closed its socket would, without reading an answer."""

        async def send_then_leave(connection: TestHTTPConnection) -> None:
            await connection.send(json.dumps(body).encode())
            await connection.send_complete()
            await until(when, timeout=timeout, what=f"{path} to reach the host")
            raise ClientGone

        connection = self._post(path)
        try:
            async with connection:
                await send_then_leave(connection)
        except* ClientGone:
            pass


async def until(condition: Callable[[], object], timeout: float = 5.0, what: str = "it") -> None:
    """Poll `condition` each few milliseconds of trio time; fail after `timeout` seconds."""
    with trio.move_on_after(timeout):
        while not condition():
            await trio.sleep(0.005)
        return
    raise AssertionError(f"timed out waiting for {what}")


@asynccontextmanager
async def in_process_agent(
    data_dir: Path,
    fake: FakeBrowser | None = None,
    *,
    env: Mapping[str, str] | None = None,
    **config: Any,
) -> AsyncIterator[InProcessAgent]:
    """The agent of `agent.main.run`, started in this trio run (Pro plan unless `config` says
    otherwise), with `fake` (a fresh FakeBrowser by default) answering its bridge. With `env`
    the configuration is read from that environment as the process reads its own
    (`AgentConfig.from_env`, SVC_DATA_DIR being `data_dir`), `config` then overriding it."""
    fake = fake if fake is not None else FakeBrowser()
    if env is None:
        settings = AgentConfig(data_dir=data_dir, **{"plan": "pro", **config})
    else:
        read = AgentConfig.from_env({**env, "SVC_DATA_DIR": str(data_dir)})
        settings = dataclasses.replace(read, **config)
    agent_out, host_in = trio.testing.memory_stream_one_way_pair()
    host_out, agent_in = trio.testing.memory_stream_one_way_pair()
    memory_host = MemoryHost(fake, host_out, host_in)

    store = Store(settings.store_path)
    logs = LogWriter(settings.logs_dir, store.machine_id)

    def report(exc: bp.BridgeProtocolError) -> None:
        logs.write("bridge.protocol_error", str(exc), level="error")

    bridge = BridgeClient(agent_out, agent_in, on_protocol_error=report)
    services = build_services(settings, store, logs, Scheduler(settings.concurrency), bridge)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(memory_host.run)
            await nursery.start(bridge.run)
            await nursery.start(services.proxy_listeners.run)
            services.worker.started()
            app = create_app(services)
            # The lifespan gives the app its nursery, which the NDJSON capture stream runs in.
            async with app.test_app() as test_app:
                await nursery.start(services.sessions.expire_forever)
                yield InProcessAgent(
                    services=services,
                    client=test_app.test_client(),
                    fake=fake,
                    memory_host=memory_host,
                    data_dir=data_dir,
                )
                services.process.stopping.set()
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await bridge.aclose()
            await memory_host.aclose()
        logs.close()
        store.close()
