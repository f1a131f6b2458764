"""Both adapters against each other through real OS pipes: the agent's trio client and the
Qt-free host endpoint driven by a thread, as QProcess drives it in the app."""

from __future__ import annotations

import os
import random
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager

import pytest
import trio

import bridge_protocol as bp
from agent.bridge_client import BridgeClient
from bridge_protocol.testing import PipeHost

Answer = Callable[[bp.HostRequest], tuple[float, bp.Answer | bp.ApiError]]


def _number(request: bp.HostRequest) -> int:
    assert isinstance(request, bp.ActionRequest)
    assert isinstance(request.command, bp.Navigate)
    assert request.command.url is not None
    return int(request.command.url.rsplit("/", 1)[1])


def echo_answer(request: bp.HostRequest) -> tuple[float, bp.Answer | bp.ApiError]:
    n = _number(request)
    delay = 0.0 if n % 3 == 0 else (n % 5) / 1000
    if n % 10 == 1:  # never answered in time: the test cancels every one of them
        delay = 60.0
    if n % 7 == 0:
        return delay, bp.ApiError.of(bp.ErrorId.TIMEOUT, f"timed out {n}", n=n)
    return delay, bp.PageAnswer(url=str(n), title="x" * (n % 50))


@contextmanager
def pipe_host(answer: Answer) -> Iterator[tuple[PipeHost, int, int]]:
    req_r, req_w = os.pipe()  # agent -> host
    resp_r, resp_w = os.pipe()  # host -> agent
    host = PipeHost(req_r, resp_w, answer)
    host.start()
    try:
        yield host, req_w, resp_r
    finally:
        host.stop()
        for fd in (req_r, resp_w):
            os.close(fd)


@asynccontextmanager
async def bridge(answer: Answer) -> AsyncIterator[tuple[BridgeClient, PipeHost]]:
    with pipe_host(answer) as (host, req_w, resp_r):
        client = BridgeClient(trio.lowlevel.FdStream(req_w), trio.lowlevel.FdStream(resp_r))
        async with trio.open_nursery() as nursery:
            await nursery.start(client.run)
            try:
                yield client, host
            finally:
                await client.aclose()
                nursery.cancel_scope.cancel()


def navigate(n: int) -> bp.Navigate:
    return bp.Navigate(session_id=f"Session{n % 9 + 1}", url=f"https://site.test/{n}")


async def wait_until(predicate: Callable[[], bool], timeout: float = 10) -> None:
    with trio.fail_after(timeout):
        while not predicate():
            await trio.sleep(0.01)


async def test_ten_thousand_requests_many_in_flight_some_cancelled() -> None:
    total = 10_000
    rng = random.Random(4)
    outcomes: dict[int, str] = {}
    limiter = trio.CapacityLimiter(300)
    peak = 0

    async with bridge(echo_answer) as (client, host):

        async def one(n: int, cancel_after: float | None) -> None:
            nonlocal peak
            async with limiter:
                with trio.CancelScope() as scope:
                    if cancel_after is not None:
                        scope.deadline = trio.current_time() + cancel_after
                    try:
                        peak = max(peak, client.in_flight + 1)
                        data = await client.call(navigate(n))
                    except bp.SvcError as exc:
                        assert exc.error.id == "TIMEOUT"
                        assert exc.error.details == {"n": n}, "answered with another's error"
                        outcomes[n] = "error"
                        return
                    assert data.url == str(n), "answered with another's data"
                    assert data.title == "x" * (n % 50)
                    outcomes[n] = "ok"
                    return
                assert scope.cancelled_caught
                outcomes[n] = "cancelled"

        async with trio.open_nursery() as nursery:
            for n in range(total):
                # n % 10 == 1 always ends cancelled; n % 10 == 2 races a fast answer.
                cancel_after = rng.uniform(0, 0.01) if n % 10 in (1, 2) else None
                nursery.start_soon(one, n, cancel_after)

        assert len(outcomes) == total, "a request was lost"
        counts = {k: list(outcomes.values()).count(k) for k in ("ok", "error", "cancelled")}
        assert counts["cancelled"] >= 1000, counts
        assert counts["ok"] > 5000, counts
        assert counts["error"] > 500, counts
        assert peak > 100, "requests were not in flight together"
        # A caller cancelled after its answer arrived needs no cancellation frame.
        assert 0 < client.cancellations_sent <= counts["cancelled"]
        await wait_until(lambda: client.in_flight == 0 and host.endpoint.in_flight == 0)
        # Every request got exactly one answer on the wire, cancelled ones included.
        assert len(host.answers) == total
        assert set(host.answers.values()) == {1}
        assert host.cancels_received >= 1000  # every never-answered one was stopped
        assert host.protocol_errors == []


async def test_cancellation_reaches_the_host_and_stops_the_work() -> None:
    def slow(request: bp.HostRequest) -> tuple[float, bp.Answer | bp.ApiError]:
        return 30.0, bp.PageAnswer(url=str(_number(request)))

    async with bridge(slow) as (client, host):
        with trio.move_on_after(0.05) as scope:
            await client.call(navigate(1))
        assert scope.cancelled_caught
        await wait_until(lambda: host.cancels_received == 1 and client.in_flight == 0)
        assert host.endpoint.in_flight == 0


async def test_answers_arrive_typed_and_a_wrong_type_fails_only_its_call() -> None:
    def answer(request: bp.HostRequest) -> tuple[float, bp.Answer | bp.ApiError]:
        if isinstance(request, bp.ActionRequest) and isinstance(request.command, bp.Pause):
            return 0.0, bp.PlayAnswer(network_paused=False, reloaded=True)  # not a PauseAnswer
        return 0.0, bp.PageAnswer(url="https://site.test/", title="T", target_http_status=200)

    async with bridge(answer) as (client, _):
        page = await client.call(navigate(1))
        assert page == bp.PageAnswer(url="https://site.test/", title="T", target_http_status=200)
        with pytest.raises(bp.SvcError) as info:
            await client.call(bp.Pause(session_id="Session1"))
        assert info.value.error.id == "INTERNAL_ERROR"
        assert "invalid answer" in info.value.error.message
        assert client.connected
        assert (await client.call(navigate(2))).title == "T"


async def test_error_answers_arrive_unchanged() -> None:
    def fail(request: bp.HostRequest) -> tuple[float, bp.Answer | bp.ApiError]:
        return 0.0, bp.ApiError.of(
            bp.ErrorId.UPSTREAM_UNAVAILABLE,
            "404 at target",
            url="https://x",
            target_http_status=404,
        )

    async with bridge(fail) as (client, _):
        with pytest.raises(bp.SvcError) as info:
            await client.call(navigate(3))
        assert info.value.error == bp.ApiError.of(
            bp.ErrorId.UPSTREAM_UNAVAILABLE,
            "404 at target",
            url="https://x",
            target_http_status=404,
        )


async def test_handler_exception_becomes_internal_error() -> None:
    def boom(request: bp.HostRequest) -> tuple[float, bp.Answer | bp.ApiError]:
        raise RuntimeError("kaboom")

    async with bridge(boom) as (client, _):
        with pytest.raises(bp.SvcError) as info:
            await client.call(navigate(1))
        assert info.value.error.id == "INTERNAL_ERROR"
        assert "kaboom" in info.value.error.message
        # the bridge keeps working after it
        with pytest.raises(bp.SvcError):
            await client.call(navigate(2))


async def test_host_closing_the_pipe_fails_pending_calls_with_browser_unavailable() -> None:
    req_r, req_w = os.pipe()
    resp_r, resp_w = os.pipe()
    client = BridgeClient(trio.lowlevel.FdStream(req_w), trio.lowlevel.FdStream(resp_r))
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(client.run)

            async def close_host() -> None:
                await wait_until(lambda: client.in_flight == 1)
                os.close(resp_w)

            nursery.start_soon(close_host)
            with pytest.raises(bp.SvcError) as info:
                await client.call(navigate(1))
            assert info.value.error.id == "BROWSER_UNAVAILABLE"
            with pytest.raises(bp.SvcError) as again:
                await client.call(navigate(2))
            assert again.value.error.id == "BROWSER_UNAVAILABLE"
    finally:
        await client.aclose()
        os.close(req_r)


async def test_host_sending_an_oversized_header_breaks_the_bridge_cleanly() -> None:
    req_r, req_w = os.pipe()
    resp_r, resp_w = os.pipe()
    errors: list[bp.BridgeProtocolError] = []
    client = BridgeClient(
        trio.lowlevel.FdStream(req_w),
        trio.lowlevel.FdStream(resp_r),
        on_protocol_error=errors.append,
    )
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(client.run)

            async def evil_host() -> None:
                await wait_until(lambda: client.in_flight == 1)
                os.write(resp_w, (bp.MAX_FRAME + 1).to_bytes(4, "big"))

            nursery.start_soon(evil_host)
            with pytest.raises(bp.SvcError) as info:
                await client.call(navigate(1))
            assert info.value.error.id == "BROWSER_UNAVAILABLE"
            assert isinstance(errors[0], bp.FrameTooLarge)
    finally:
        await client.aclose()
        os.close(req_r)
        os.close(resp_w)


def test_host_answers_a_bad_request_by_id_and_keeps_serving() -> None:
    written: list[bytes] = []
    errors: list[bp.BridgeProtocolError] = []
    endpoint = bp.HostEndpoint(
        lambda b: written.append(bytes(b)),
        lambda req, responder: responder.ok(bp.PlayAnswer(network_paused=False, reloaded=True)),
        on_protocol_error=errors.append,
    )
    agent = bp.AgentConnection()
    bad, _ = agent.send_request(bp.Play(session_id="Session1"))
    good, ok = agent.send_request(bp.Play(session_id="Session1"))
    # the first frame is replaced on the way by one whose operation does not exist
    endpoint.data_received(
        bp.encode_frame(b'{"version":4,"id":"%s","op":"teleport"}' % bad.encode())
    )
    endpoint.data_received(ok)
    agent.receive_data(b"".join(written))
    first, second = agent.next_event(), agent.next_event()
    assert isinstance(first, bp.ErrorResponse)
    assert first.error.id == "INTERNAL_ERROR"
    assert isinstance(second, bp.OkResponse)
    assert second.id == good
    assert second.data == bp.PlayAnswer(network_paused=False, reloaded=True)
    assert isinstance(errors[0], bp.UnknownOperation)
