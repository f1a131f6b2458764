"""agent.scheduler.Scheduler in process, on trio's virtual clock (spec 1 §4 rule 6).

Every test takes pytest-trio's `autojump_clock` (a MockClock that jumps to the next deadline as
soon as all tasks are blocked), so holding a slot for 10 s costs no wall time and every start and
end happens at an exact, repeatable virtual time. Durations are binary fractions so that sums of
them are exact floats and the times can be compared with ==.

tests/agent/test_scheduler.py checks the same rules through HTTP, the bridge and a scripted host;
these tests pin down the scheduler's own order and timing, which real time can only bound.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest
import trio
import trio.testing

from agent.scheduler import Scheduler
from bridge_protocol import ApiError, ErrorId, SvcError

# A scheduler bug that strands a waiter would otherwise block until pytest-timeout; on the
# autojump clock this virtual bound fails such a test at once instead.
HANG = 10_000.0


@dataclass(eq=False)
class Op:
    """One operation: it holds its slot for `hold` virtual seconds once granted."""

    name: str
    session_id: str
    hold: float
    deadline: float
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    started_at: float | None = None
    ended_at: float | None = None
    error: ApiError | None = None

    @property
    def cancelled(self) -> bool:
        return self.scope.cancelled_caught


class Harness:
    def __init__(self, scheduler: Scheduler, nursery: trio.Nursery) -> None:
        self.scheduler = scheduler
        self.start_order: list[str] = []
        self._nursery = nursery
        self._running_sessions: set[str] = set()

    async def submit(
        self, name: str, session_id: str, hold: float, *, timeout: float = math.inf
    ) -> Op:
        op = Op(name, session_id, hold, trio.current_time() + timeout)
        self._nursery.start_soon(self._run, op)
        # Trio runs newly started tasks in no promised order; letting each one reach the queue
        # before the next is submitted makes arrival order the order of submit() calls.
        await trio.testing.wait_all_tasks_blocked()
        return op

    async def _run(self, op: Op) -> None:
        with op.scope:
            try:
                async with self.scheduler.slot(op.session_id, op.deadline):
                    # Checked at every start, so each test also proves rule 6's two bounds.
                    assert self.scheduler.running <= self.scheduler.limit
                    assert op.session_id not in self._running_sessions, op.name
                    self._running_sessions.add(op.session_id)
                    op.started_at = trio.current_time()
                    self.start_order.append(op.name)
                    try:
                        await trio.sleep(op.hold)
                    finally:
                        self._running_sessions.discard(op.session_id)
            except SvcError as exc:
                op.error = exc.error
            finally:
                op.ended_at = trio.current_time()


@asynccontextmanager
async def harness(limit: int) -> AsyncIterator[Harness]:
    """A scheduler and a nursery for its operations; leaving waits for every operation."""
    assert trio.current_time() == 0.0
    with trio.fail_after(HANG):
        async with trio.open_nursery() as nursery:
            yield Harness(Scheduler(limit), nursery)


async def settle_at(when: float) -> None:
    """Advance to `when` and let everything due then (ends, grants, starts) happen first."""
    await trio.sleep_until(when)
    await trio.testing.wait_all_tasks_blocked()


def error_id(op: Op) -> str | None:
    return None if op.error is None else op.error.id


async def test_fifo_order_across_sessions_beyond_the_limit(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=2) as h:
        # Distinct holds so that no two slots are released at the same instant: each start
        # below has exactly one cause.
        ops = [
            await h.submit("s0", "s0", 1.0),
            await h.submit("s1", "s1", 1.5),
            await h.submit("s2", "s2", 1.0),
            await h.submit("s3", "s3", 1.0),
            await h.submit("s4", "s4", 1.0),
        ]
        # Queued work counts for health and may exceed the limit.
        assert (h.scheduler.running, h.scheduler.queued, h.scheduler.active_count) == (2, 3, 5)
    assert h.start_order == ["s0", "s1", "s2", "s3", "s4"]
    assert list(h.scheduler.started_order) == h.start_order
    assert [op.started_at for op in ops] == [0.0, 0.0, 1.0, 1.5, 2.0]
    assert [op.ended_at for op in ops] == [1.0, 1.5, 2.0, 2.5, 3.0]
    assert all(op.error is None for op in ops)
    assert h.scheduler.active_count == 0


async def test_a_session_runs_its_requests_one_after_another(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=4) as h:
        a1 = await h.submit("a1", "a", 1.0)
        a2 = await h.submit("a2", "a", 0.5)
        a3 = await h.submit("a3", "a", 0.25)
        b1 = await h.submit("b1", "b", 0.25)
        # Two of four slots are free, yet a's later requests wait for a1.
        assert (h.scheduler.running, h.scheduler.queued) == (2, 2)
    assert (a1.started_at, a2.started_at, a3.started_at) == (0.0, 1.0, 1.5)
    # b arrived after a's queued requests and still started at once.
    assert b1.started_at == 0.0
    assert h.start_order == ["a1", "b1", "a2", "a3"]


async def test_a_waiter_for_a_busy_session_lets_later_sessions_pass(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=2) as h:
        a1 = await h.submit("a1", "a", 2.0)
        b1 = await h.submit("b1", "b", 1.0)
        a2 = await h.submit("a2", "a", 1.0)
        c1 = await h.submit("c1", "c", 1.0)
    # b1's slot, freed at 1, is owed to a2 by age, but a is still running a1: c1 takes it.
    assert (a1.started_at, b1.started_at, c1.started_at, a2.started_at) == (0.0, 0.0, 1.0, 2.0)
    assert h.start_order == ["a1", "b1", "c1", "a2"]


async def test_a_released_slot_goes_to_the_oldest_waiter(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=1) as h:
        async with h.scheduler.slot("a", math.inf):
            b = await h.submit("b", "b", 1.0)
            c = await h.submit("c", "c", 1.0)
            await trio.sleep(1.0)
        # The slot was handed to b as a's context exited, before any task ran: a request
        # arriving in the same instant queues behind b and c instead of barging in.
        late = await h.submit("late", "late", 1.0)
    assert h.start_order == ["b", "c", "late"]
    assert (b.started_at, c.started_at, late.started_at) == (1.0, 2.0, 3.0)


async def test_a_queued_request_times_out_exactly_at_its_deadline(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=2) as h:
        a = await h.submit("a", "a", 2.0)
        b = await h.submit("b", "b", 1.0)
        doomed = await h.submit("doomed", "d", 1.0, timeout=0.5)
        after = await h.submit("after", "e", 1.0)
        await settle_at(0.5)
        assert error_id(doomed) == ErrorId.TIMEOUT
        assert doomed.ended_at == 0.5
        assert (h.scheduler.running, h.scheduler.queued) == (2, 1)
        assert not h.scheduler.has_work("d")
    assert doomed.error is not None
    assert doomed.error.message == "the operation's deadline expired"
    assert doomed.started_at is None
    # The first slot freed after the timeout goes to the request that queued behind it.
    assert after.started_at == 1.0
    assert (a.error, b.error, after.error) == (None, None, None)
    assert h.start_order == ["a", "b", "after"]


async def test_a_running_request_times_out_at_its_deadline_and_frees_its_slot(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=1) as h:
        slow = await h.submit("slow", "a", 5.0, timeout=1.5)
        nxt = await h.submit("next", "b", 1.0)
    assert (slow.started_at, slow.ended_at, error_id(slow)) == (0.0, 1.5, ErrorId.TIMEOUT)
    assert (nxt.started_at, nxt.error) == (1.5, None)


async def test_an_expired_deadline_never_runs_even_with_a_free_slot(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=2) as h:
        expired = await h.submit("expired", "a", 1.0, timeout=0.0)
        again = await h.submit("again", "a", 1.0)
    assert (error_id(expired), expired.started_at, expired.ended_at) == (ErrorId.TIMEOUT, None, 0.0)
    assert (again.started_at, again.error) == (0.0, None)


async def test_a_cancelled_waiter_leaves_the_queue(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=1) as h:
        await h.submit("a", "a", 1.0)
        gone = await h.submit("gone", "b", 1.0)
        c = await h.submit("c", "c", 1.0)
        await settle_at(0.25)
        # What the HTTP layer does when the client disconnects.
        gone.scope.cancel()
        await trio.testing.wait_all_tasks_blocked()
        assert (gone.cancelled, gone.error, gone.ended_at) == (True, None, 0.25)
        assert (h.scheduler.queued, h.scheduler.has_work("b")) == (1, False)
    assert gone.started_at is None
    assert c.started_at == 1.0
    assert h.start_order == ["a", "c"]


@pytest.mark.parametrize(
    "cancel_first", [True, False], ids=["cancelled-then-granted", "granted-then-cancelled"]
)
async def test_a_waiter_cancelled_in_the_instant_of_its_grant_passes_the_slot_on(
    autojump_clock: trio.testing.MockClock, cancel_first: bool
) -> None:
    async with harness(limit=1) as h:
        async with h.scheduler.slot("a", math.inf):
            b = await h.submit("b", "b", 1.0)
            c = await h.submit("c", "c", 1.0)
            await trio.sleep(1.0)
            if cancel_first:
                # b is woken with Cancelled but has not run yet, so it is still first in the
                # queue when a's exit (no checkpoint in between) grants it the slot.
                b.scope.cancel()
        if not cancel_first:
            # The grant already woke b normally; the cancel lands at its first checkpoint.
            b.scope.cancel()
    assert (b.cancelled, b.error, b.ended_at) == (True, None, 1.0)
    assert b.started_at == (None if cancel_first else 1.0)
    assert (c.started_at, c.ended_at, c.error) == (1.0, 2.0, None)


async def test_a_cancelled_running_request_frees_its_slot(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=1) as h:
        running = await h.submit("running", "a", 10.0)
        nxt = await h.submit("next", "b", 1.0)
        await settle_at(2.0)
        running.scope.cancel()
    assert (running.cancelled, running.error, running.ended_at) == (True, None, 2.0)
    assert (nxt.started_at, nxt.ended_at) == (2.0, 3.0)


async def test_close_session_ends_running_and_queued_work_of_that_session_only(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=2) as h:
        a1 = await h.submit("a1", "a", 10.0)
        b1 = await h.submit("b1", "b", 10.0)
        a2 = await h.submit("a2", "a", 1.0)
        c1 = await h.submit("c1", "c", 1.0)
        await settle_at(1.0)
        assert h.scheduler.close_session("a") == 2
        assert h.scheduler.close_session("idle") == 0
        await trio.testing.wait_all_tasks_blocked()
        assert not h.scheduler.has_work("a")
        # The session's closed state belongs to the ended requests, not to the session id.
        a3 = await h.submit("a3", "a", 1.0)
    for op in (a1, a2):
        assert op.ended_at == 1.0
        assert op.error is not None
        assert op.error.id == ErrorId.REQUEST_CANCELLED
        assert op.error.details == {"reason": "session_closed", "session_id": "a"}
    assert a2.started_at is None
    assert (b1.started_at, b1.ended_at, b1.error) == (0.0, 10.0, None)
    # a1's slot went to the oldest waiter left, at the instant of the close.
    assert (c1.started_at, c1.error) == (1.0, None)
    assert (a3.started_at, a3.error) == (2.0, None)
    assert h.start_order == ["a1", "b1", "c1", "a3"]


async def test_has_work_covers_queued_and_running_work_of_one_session(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with harness(limit=1) as h:
        assert not h.scheduler.has_work("a")
        await h.submit("a", "a", 1.0)
        await h.submit("b", "b", 1.0)
        # a is running, b only queued: both are work; an idle session has none.
        assert (h.scheduler.has_work("a"), h.scheduler.has_work("b")) == (True, True)
        assert not h.scheduler.has_work("idle")
        await settle_at(1.0)
        assert (h.scheduler.has_work("a"), h.scheduler.has_work("b")) == (False, True)
        await settle_at(2.0)
        assert not h.scheduler.has_work("b")
    assert h.scheduler.active_count == 0


@pytest.mark.parametrize("limit", [1, 3])
async def test_the_limit_is_the_number_of_slots(
    autojump_clock: trio.testing.MockClock, limit: int
) -> None:
    async with harness(limit=limit) as h:
        ops = [await h.submit(f"s{i}", f"s{i}", 1.0) for i in range(limit + 1)]
        assert (h.scheduler.running, h.scheduler.queued) == (limit, 1)
    assert [op.started_at for op in ops] == [0.0] * limit + [1.0]


async def test_a_closed_operation_that_raised_something_else_leaves_nothing_behind(
    autojump_clock: trio.testing.MockClock,
) -> None:
    scheduler = Scheduler(limit=2)

    async def raises_its_own_error() -> None:
        async with scheduler.slot("a", trio.current_time() + 10):
            try:
                await trio.sleep(5)
            except trio.Cancelled:
                raise RuntimeError("turned the cancellation into its own error") from None

    raised = []
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(raises_its_own_error)
            await trio.testing.wait_all_tasks_blocked()
            assert scheduler.close_session("a") == 1
    except* RuntimeError as group:
        raised.append(group)
    assert raised
    assert not scheduler._closed_sessions
    assert not scheduler.has_work("a")
