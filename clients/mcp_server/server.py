"""The svc-mcp loop on trio: one JSON object per line on stdin and stdout.

Requests are answered in the order the protocol produces them, except tool calls, which run
concurrently in a nursery (a long capture never blocks `ping`). A cancellation notification only
suppresses its request's result: the work, and its connection to the agent, go on until done.
End of stdin ends the server at once: the nursery is cancelled, which closes every open agent
connection, and closing a connection cancels the agent's work for it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, assert_never

import trio

from ..agent_client import AsyncAgentClient
from . import tools
from .protocol import INVALID_REQUEST, Batch, Call, Cancel, Protocol, Reply, error

MAX_LINE = 16 * 1024 * 1024


def _key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id)


class Server:
    def __init__(
        self,
        protocol: Protocol,
        agent: tools.Agent,
        receive: trio.abc.ReceiveStream,
        send: trio.abc.SendStream,
    ) -> None:
        self.protocol = protocol
        self.agent = agent
        self.receive = receive
        self.send = send
        self.write_lock = trio.Lock()
        self.in_flight: set[tuple[str, Any]] = set()
        self.cancelled: set[tuple[str, Any]] = set()

    async def write(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        async with self.write_lock:
            await self.send.send_all(data)

    async def run_call(self, call: Call) -> None:
        key = _key(call.id)
        try:
            outcome = await tools.run(self.agent, tools.BY_NAME[call.name], call.arguments)
            if key not in self.cancelled:
                await self.write(self.protocol.tool_result(call, outcome).message)
        finally:
            self.in_flight.discard(key)
            self.cancelled.discard(key)

    async def run_batch(self, batch: Batch) -> None:
        """Answer a batch with one array: its replies in order, tool results once all are done
        (a cancelled call's result is left out)."""
        answers: list[dict[str, Any] | None] = []
        calls: list[tuple[int, Call]] = []
        for item in batch.items:
            if isinstance(item, Reply):
                answers.append(item.message)
            elif isinstance(item, Call):
                calls.append((len(answers), item))
                answers.append(None)
                self.in_flight.add(_key(item.id))
            elif isinstance(item, Cancel):
                if _key(item.request_id) in self.in_flight:
                    self.cancelled.add(_key(item.request_id))
            else:
                assert_never(item)

        async def one(index: int, call: Call) -> None:
            key = _key(call.id)
            try:
                outcome = await tools.run(self.agent, tools.BY_NAME[call.name], call.arguments)
                if key not in self.cancelled:
                    answers[index] = self.protocol.tool_result(call, outcome).message
            finally:
                self.in_flight.discard(key)
                self.cancelled.discard(key)

        async with trio.open_nursery() as calls_nursery:
            for index, call in calls:
                calls_nursery.start_soon(one, index, call)
        replies = [a for a in answers if a is not None]
        if replies:  # a batch of notifications only gets no answer at all
            data = json.dumps(replies, ensure_ascii=False, separators=(",", ":")).encode()
            async with self.write_lock:
                await self.send.send_all(data + b"\n")

    async def handle(self, line: bytes, nursery: trio.Nursery) -> None:
        for action in self.protocol.receive(line):
            if isinstance(action, Batch):
                nursery.start_soon(self.run_batch, action)
            elif isinstance(action, Reply):
                await self.write(action.message)
            elif isinstance(action, Call):
                self.in_flight.add(_key(action.id))
                nursery.start_soon(self.run_call, action)
            elif isinstance(action, Cancel):
                key = _key(action.request_id)
                if key in self.in_flight:
                    self.cancelled.add(key)
            else:
                assert_never(action)

    async def serve(self) -> None:
        async with trio.open_nursery() as nursery:
            buffer = b""
            discarding = False
            while True:
                chunk = await self.receive.receive_some(65536)
                if not chunk:
                    break
                buffer += chunk
                while True:
                    newline = buffer.find(b"\n")
                    if newline < 0:
                        break
                    line, buffer = buffer[:newline], buffer[newline + 1 :]
                    if discarding:
                        discarding = False
                        continue
                    if line.strip():
                        await self.handle(line.rstrip(b"\r"), nursery)
                if len(buffer) > MAX_LINE:
                    buffer, discarding = b"", True
                    await self.write(
                        error(None, INVALID_REQUEST, "Invalid Request: message too large").message
                    )
            if buffer.strip() and not discarding:
                await self.handle(buffer.rstrip(b"\r"), nursery)
            # End of input: stop at once; cancelling closes every open agent connection.
            nursery.cancel_scope.cancel()


async def main_async(port: int, env: Mapping[str, str], version: str) -> None:
    client = AsyncAgentClient(port)
    receive = trio.lowlevel.FdStream(os.dup(0))
    send = trio.lowlevel.FdStream(os.dup(1))
    protocol = Protocol("svc-mcp", version, tools.TOOLS)
    server = Server(protocol, tools.Agent(client, dict(env)), receive, send)
    try:
        await server.serve()
    finally:
        with trio.CancelScope(shield=True):
            await client.aclose()
            await receive.aclose()
            await send.aclose()
