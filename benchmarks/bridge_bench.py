"""Bridge throughput beside plain msgspec, and round-trip latency over a real pipe pair."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import msgspec
import trio

import bridge_protocol as bp
from agent.bridge_client import BridgeClient
from bridge_protocol.testing import PipeHost

PIPE_CHUNK = 1 << 16  # what one read of a Linux pipe returns at most by default


class _PlainOk(msgspec.Struct, tag_field="status", tag="ok"):
    """The same frame decoded in one typed pass, the baseline."""

    version: int
    id: str
    data: bp.PageAnswer


def _html(size: int) -> str:
    unit = '<div class="row"><a href="/item/42">Item ✓ 42</a><span>price 9.99</span></div>\n'
    return (unit * (size // len(unit.encode()) + 1))[: size // 2] + "x" * (size - size // 2)


def _rate(fn: Callable[[], Any], min_seconds: float, rounds: int = 3) -> float:
    """Calls per second of fn: the best of a few rounds of at least min_seconds / rounds each,
    so that allocator warm-up or a busy neighbour does not decide the ratio."""
    fn()  # warm up
    best = 0.0
    for _ in range(rounds):
        calls, started = 0, time.perf_counter()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - started
            if elapsed >= min_seconds / rounds:
                break
        best = max(best, calls / elapsed)
    return best


def throughput(size: int, min_seconds: float = 1.0) -> None:
    message = bp.OkResponse(version=4, id="1", data=bp.PageAnswer(title=_html(size)))
    payload_bytes = len(msgspec.json.encode(message))
    framer = bp.MessageEncoder()
    plain_enc = msgspec.json.Encoder()
    plain_dec = msgspec.json.Decoder(_PlainOk)
    answer_dec = msgspec.json.Decoder(bp.PageAnswer)

    decoder = bp.FrameDecoder()  # long-lived, as on a real connection

    def bridge_whole() -> None:
        decoder.feed(framer.frame(message))
        frame = decoder.next_frame()
        assert frame is not None
        received = bp.decode_agent_inbound(frame)
        assert isinstance(received, bp.RawOkResponse)
        answer_dec.decode(received.data)

    def bridge_piped() -> None:
        data = framer.frame(message)
        view = memoryview(data)
        for i in range(0, len(data), PIPE_CHUNK):
            decoder.feed(view[i : i + PIPE_CHUNK])
        frame = decoder.next_frame()
        assert frame is not None
        received = bp.decode_agent_inbound(frame)
        assert isinstance(received, bp.RawOkResponse)
        answer_dec.decode(received.data)

    def plain() -> None:
        plain_dec.decode(plain_enc.encode(message))

    label = f"{size // 1024} KiB" if size < 1 << 20 else f"{size >> 20} MiB"
    # The first multi-megabyte allocations of a process are slow (glibc raises its mmap threshold
    # only after the first frees); run every path once for a while so both sides start warm.
    for fn in (plain, bridge_whole, bridge_piped):
        _rate(fn, min_seconds / 3, rounds=1)
    base = _rate(plain, min_seconds)
    rows = [("plain msgspec encode+decode", base)]
    rows.append(("bridge encode+frame+decode+validate", _rate(bridge_whole, min_seconds)))
    rows.append(("  same, fed in 64 KiB pipe chunks", _rate(bridge_piped, min_seconds)))
    print(f"\n  payload {label} ({payload_bytes:,} bytes of JSON)")
    print(f"  {'path':<40}{'frames/s':>12}{'MB/s':>10}{'ratio':>8}")
    for name, rate in rows:
        mbps = rate * payload_bytes / 1e6
        print(f"  {name:<40}{rate:>12,.0f}{mbps:>10,.0f}{rate / base:>8.2f}")


def latency(calls: int = 3000) -> None:
    def answer(request: bp.HostRequest) -> tuple[float, bp.Answer | bp.ApiError]:
        return 0.0, bp.PauseAnswer(network_paused=True)

    req_r, req_w = os.pipe()
    resp_r, resp_w = os.pipe()
    host = PipeHost(req_r, resp_w, answer)
    host.start()
    samples: list[float] = []

    async def run() -> None:
        client = BridgeClient(trio.lowlevel.FdStream(req_w), trio.lowlevel.FdStream(resp_r))
        async with trio.open_nursery() as nursery:
            await nursery.start(client.run)
            command = bp.Pause(session_id="Session1")
            for _ in range(200):
                await client.call(command)
            for _ in range(calls):
                started = time.perf_counter()
                await client.call(command)
                samples.append(time.perf_counter() - started)
            await client.aclose()
            nursery.cancel_scope.cancel()

    try:
        trio.run(run)
    finally:
        host.stop()
        os.close(req_r)
        os.close(resp_w)
    samples.sort()
    median = statistics.median(samples) * 1e6
    p99 = samples[int(len(samples) * 0.99)] * 1e6
    print(f"\n  round trip over a real pipe pair ({calls} sequential requests, trio agent end,")
    print(f"  threaded host endpoint): median {median:,.0f} us, p99 {p99:,.0f} us")


def main() -> None:
    print("  target: bridge at least 0.8 of plain msgspec")
    throughput(1024)
    throughput(8 << 20)
    latency()


if __name__ == "__main__":
    main()
